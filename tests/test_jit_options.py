"""The options table (issue 39): each cuda.jit option declared once in cudajit/jitoptions.py, and read from there by
cuda.jit's signature, docstring and checks, by CompileOptions' fields, by cuda.compile's checks and by the flags."""
import dataclasses
import inspect

import pytest

from cudajit import cuda, jitoptions
from cudajit.cuda import build
from cudajit.errors import DeprecationError


def _add(a, b):
    a[0] += b[0]


def test_signature_and_docstring_come_from_the_table():
    params = list(inspect.signature(cuda.jit).parameters.values())
    assert [p.name for p in params[1:]] == [o.name for o in jitoptions.OPTIONS]
    assert all(p.default == o.default for p, o in zip(params[1:], jitoptions.OPTIONS))
    for o in jitoptions.OPTIONS:
        assert f"      {o.name}: {o.doc.split()[0]}" in cuda.jit.__doc__


def test_compile_options_fields_are_the_compiled_options():
    fields = [f.name for f in dataclasses.fields(jitoptions.CompileOptions)]
    assert fields == [o.name for o in jitoptions.OPTIONS if o.compiled] + ["target"]
    held = jitoptions.CompileOptions()
    assert (held.debug, held.boundscheck, held.opt, held.link) == (False, None, True, ())


@pytest.mark.parametrize("given, flags", [
    ({}, []), ({"debug": True, "lineinfo": True}, ["-G"]), ({"lineinfo": True}, ["-lineinfo"]),
    ({"opt": False}, ["-Xptxas=-O0", "--fmad=false"]), ({"fastmath": True}, ["--use_fast_math"]),
    ({"max_registers": 40}, ["--maxrregcount=40"]),
])
def test_nvrtc_flags_come_from_the_table(given, flags):
    options = jitoptions.compile_options(jitoptions.check(given))
    assert jitoptions.nvrtc_flags(options) == flags
    base = build.nvrtc_options(jitoptions.CompileOptions())
    assert build.nvrtc_options(options) == base + flags


def test_host_flags_come_from_the_table():
    options = jitoptions.compile_options(jitoptions.check({"debug": True, "fastmath": True}))
    assert jitoptions.host_flags(options) == ["-g", "-O0"] + jitoptions._HOST_FASTMATH
    assert build.host_options(options) == ["-fwrapv"] + build.host_options(jitoptions.CompileOptions())[1:] + \
        jitoptions.host_flags(options)


def test_inline_takes_forceinline_and_numbas_spellings():
    for given in ({"inline": True}, {"inline": "always"}, {"forceinline": True}):
        assert jitoptions.compile_options(jitoptions.check(given)).inline is True
    assert jitoptions.compile_options(jitoptions.check({"inline": "never"})).inline is False


def test_cuda_compile_checks_its_options_with_the_same_entries():
    with pytest.raises(TypeError, match=r"cuda.compile\(debug=...\) must be True or False, not 'yes'"):
        cuda.compile_ptx(_add, "void(float32[:], float32[:])", debug="yes")
    with pytest.raises(ValueError, match=r"cuda.compile\(launch_bounds=...\) must be a positive int"):
        cuda.compile_ptx(_add, "void(float32[:], float32[:])", launch_bounds=0)


def test_unknown_and_removed_options():
    with pytest.raises(TypeError, match="cuda.jit got unexpected options: colour"):
        cuda.jit(colour="blue")
    with pytest.raises(DeprecationError, match="Deprecated keyword argument `argtypes`"):
        cuda.jit(argtypes=())


def test_link_is_checked_by_the_layer_that_knows_its_files(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"cuda.jit\(link=...\): the file to link does not exist"):
        cuda.jit(link=[str(tmp_path / "missing.cu")])


def test_numba_debuginfo_default_sets_debug_when_decorated(backend, monkeypatch):
    """numba-cuda's NUMBA_CUDA_DEBUGINFO (config.CUDA_DEBUGINFO_DEFAULT) is the default of debug=: a kernel decorated
    while it is 1 raises its failed assert on the host; an explicit debug=False, or one decorated under 0, does not."""
    import numpy as np
    from cudajit import config, cuda

    def check(a):
        assert a[0] > 0, "a[0] must be positive"
        a[1] = a[0]

    monkeypatch.setattr(config, "CUDA_DEBUGINFO_DEFAULT", 1)
    by_default, off = cuda.jit(check), cuda.jit(debug=False)(check)
    monkeypatch.setattr(config, "CUDA_DEBUGINFO_DEFAULT", 0)
    plain = cuda.jit(check)
    a = np.array([-3.0, 0.0])
    with pytest.raises(AssertionError, match="a\\[0\\] must be positive"):
        by_default[1, 1](a)
    for k in (off, plain):
        a = np.array([-3.0, 0.0])
        k[1, 1](a)
        assert a[1] == -3.0

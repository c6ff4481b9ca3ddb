"""The CPU backend's precompiled cudajit/runtime.h (src/host_compiler.cpp): GCC builds it once per compiler, flags and
macros before the #include, on a thread of its own, into the cache's "pch-<key>" directory; later compiles read it
instead of parsing the header. It may only change the speed: a damaged or missing one is a plain compile."""
import ctypes
import os
import time

import numpy as np
import pytest

import cudajit
from cudajit import _core, _paths, cuda

pytestmark = pytest.mark.skipif("clang" in _core.host_compiler_identity(),
                                reason="precompiled headers are GCC's (.gch)")

PRELUDE = ("#line 2 \"cudajit-generated.cu\"\n// cudajit: a unit as program.py begins one\n"
           "#define CJ_ERROR_RECORD 1  // debug=True / boundscheck: raises and index errors reach the host\n"
           "#include <cudajit/runtime.h>\n\n")


def unit(value, prelude=PRELUDE):
    """A unit that uses the runtime header: cj::fmod_py (Python's float %) and a record of whether CJ_ERROR_RECORD
    reached it."""
    return prelude + f"""extern "C" __attribute__((visibility("default"))) double probe(double x) {{
#ifdef CJ_ERROR_RECORD
    return cj::pymod(x, {value}.0) + 1000.0;
#else
    return cj::pymod(x, {value}.0);
#endif
}}
"""


def compile_and_call(source, x):
    lib = ctypes.CDLL(_core.compile_host(source, ["-fwrapv"], _paths.include_dir()))
    lib.probe.restype, lib.probe.argtypes = ctypes.c_double, [ctypes.c_double]
    return lib.probe(x)


def pch_dirs(cache):
    return sorted(p for p in cache.iterdir() if p.name.startswith("pch-"))


def wait_for_pch(cache, count=1):
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        built = [p for p in pch_dirs(cache) if (p / "cudajit" / "runtime.h.gch").is_file()]
        if len(built) >= count:
            return built
        time.sleep(0.05)
    raise AssertionError(f"no precompiled header appeared in {cache}: {os.listdir(cache)}")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDAJIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CUDAJIT_CPU_PCH", raising=False)
    return tmp_path / "cache"


def test_later_compiles_read_the_precompiled_header(cache, rng):
    x = float(rng.uniform(-50, 50))
    assert compile_and_call(unit(7), x) == pytest.approx(np.mod(x, 7.0) + 1000.0, rel=1e-15)
    [pch] = wait_for_pch(cache)
    before = _core.host_pch_uses()
    assert compile_and_call(unit(9), x) == pytest.approx(np.mod(x, 9.0) + 1000.0, rel=1e-15)
    assert _core.host_pch_uses() == before + 1          # GCC took it (no -Winvalid-pch warning)
    assert pch_dirs(cache) == [pch]
    # the macros before the #include are part of the key: a unit without CJ_ERROR_RECORD gets a header of its own,
    # and does not see the first one's macro
    plain = PRELUDE.replace("#define CJ_ERROR_RECORD", "// ")
    assert compile_and_call(unit(5, plain), x) == pytest.approx(np.mod(x, 5.0), rel=1e-15)
    wait_for_pch(cache, 2)
    assert compile_and_call(unit(11, plain), x) == pytest.approx(np.mod(x, 11.0), rel=1e-15)
    assert _core.host_pch_uses() == before + 2


def test_a_damaged_header_is_a_plain_compile_and_is_dropped(cache, rng):
    x = float(rng.uniform(-50, 50))
    compile_and_call(unit(3), x)
    [pch] = wait_for_pch(cache)
    gch = pch / "cudajit" / "runtime.h.gch"
    gch.write_bytes(b"not a precompiled header" * 100)
    before = _core.host_pch_uses()
    assert compile_and_call(unit(13), x) == pytest.approx(np.mod(x, 13.0) + 1000.0, rel=1e-15)
    assert _core.host_pch_uses() == before
    assert not pch.exists()                             # the next process builds it again


def test_a_truncated_or_vanished_header_is_a_plain_compile(cache, rng):
    """GCC fails outright ("cannot read ...gch") on a header cut short, or removed by another process between the
    check and its open: the compile is done again without it, and a cut one is dropped."""
    x = float(rng.uniform(-50, 50))
    compile_and_call(unit(43), x)
    [pch] = wait_for_pch(cache)
    # the user's own errors reach them from the compile without the header, and a good header is kept
    with pytest.raises(cudajit.errors.CompileError, match="rejected the generated source") as info:
        compile_and_call(unit(59).replace("return cj::pymod(x, 59.0) + 1000.0;", "return undeclared_name;"), x)
    assert "undeclared_name" in str(info.value) and ".gch" not in str(info.value)
    assert pch.exists()
    gch = pch / "cudajit" / "runtime.h.gch"
    gch.write_bytes(gch.read_bytes()[:100])
    assert compile_and_call(unit(47), x) == pytest.approx(np.mod(x, 47.0) + 1000.0, rel=1e-15)
    assert not pch.exists()                             # the next process builds it again


def test_cache_size_and_clear_count_it(cache, rng):
    compile_and_call(unit(17), float(rng.uniform(1, 2)))
    [pch] = wait_for_pch(cache)
    gch = pch / "cudajit" / "runtime.h.gch"
    others = sum(f.stat().st_size for f in cache.iterdir() if f.is_file() and not f.name.startswith("tmp-"))
    assert cudajit.cache.size() == others + gch.stat().st_size
    assert cudajit.cache.clear() >= 2                   # the library and the header's directory
    assert not pch.exists() and cudajit.cache.size() == 0


def test_size_limit_evicts_it_like_an_entry(cache, rng, monkeypatch):
    compile_and_call(unit(19), float(rng.uniform(1, 2)))
    [pch] = wait_for_pch(cache)
    os.utime(pch / "cudajit" / "runtime.h.gch", (1, 1))   # the least recently used
    monkeypatch.setenv("CUDAJIT_CACHE_MAX", "1M")       # far below a header's ~20 MB
    compile_and_call(unit(23, PRELUDE.replace("#define CJ_ERROR_RECORD", "// ")), 1.5)
    assert not pch.exists()


def test_off_and_not_for_other_units(cache, rng, monkeypatch):
    compile_and_call(unit(29), 1.5)
    wait_for_pch(cache)                                 # PRELUDE's header exists from here on
    before = _core.host_pch_uses()
    monkeypatch.setenv("CUDAJIT_CPU_PCH", "0")
    assert compile_and_call(unit(37), 40.0) == pytest.approx(1003.0)
    assert _core.host_pch_uses() == before              # off: not given it although it is there
    # a unit with code before the #include is never given one either (nor starts a build of its own)
    monkeypatch.delenv("CUDAJIT_CPU_PCH")
    assert compile_and_call(unit(31, "static int before = 1;\n" + PRELUDE), 40.0) == pytest.approx(1009.0)
    assert _core.host_pch_uses() == before
    assert compile_and_call(unit(41), 40.0) == pytest.approx(1040.0)
    assert _core.host_pch_uses() == before + 1          # and the header was usable all along
    assert len(pch_dirs(cache)) == 1 and not [f for f in os.listdir(cache) if f.startswith("tmp-pch")]


def test_kernels_compiled_with_it_match_numpy(backend, cache, rng):
    @cuda.jit
    def axpy(a, x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i] % 3.0

    x, y = rng.standard_normal(1000), rng.uniform(-9, 9, 1000)
    for a in (2.0, 3):                                  # two specializations: the second may use the header
        out = np.zeros(1000)
        axpy.forall(1000)(a, x, y, out)
        np.testing.assert_allclose(out, a * x + np.mod(y, 3.0), rtol=1e-13, atol=1e-13)
        if backend == "cpu":
            wait_for_pch(cache)

"""``#line`` in the generated C++ is exact: a C++ compiler's diagnostic on any line of a unit names the Python
file:line the line came from (the kernel's or a device function's, in its own file), the linked source's file:line,
or, for a line the compiler wrote itself, ``cudajit-generated.cu`` at that line of the unit's text."""
import importlib
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from cudajit import cuda
from cudajit.compiler import compile_kernel, types
from cudajit.compiler.program import GENERATED
from cudajit.errors import CompileError

KERNELS = os.path.join(os.path.dirname(__file__), "..", "kernels")

DEVICE = """\
from cudajit import cuda


@cuda.jit(device=True)
def scale(x, j):
    y = x * j
    return y + 1.0
"""
LINKED = """\
// twice, in Numba's ABI
extern "C" __device__ int twice(double* result, double x) {
    *result = 2 * x;
    return 0;
}
"""
KERNEL = """\
from cudajit import cuda
from linedev import scale

twice = cuda.declare_device("twice", "float64(float64)", link=[{linked!r}])


@cuda.jit
def kern(a, n):
    i = cuda.grid(1)
    if i < n:
        s = 0.0
        for j in range(3):
            s += scale(a[i], j)
        a[i] = twice(s)
"""
# C++ text of a generated line -> (file, line) of the Python it translates.
WANT = {"CJ_DEVICE double cj_dev_scale": ("linedev.py", 5), "double y_ = ": ("linedev.py", 6),
        "return y_ + 1.0": ("linedev.py", 7), "CJ_GLOBAL void cj_k_kern": ("linekern.py", 8),
        "int64_t i_ = cj::grid_x();": ("linekern.py", 9), "if (i_ < n_) {": ("linekern.py", 10),
        "double s_ = 0.0;": ("linekern.py", 11), "for (int64_t j_": ("linekern.py", 12),
        "s_ += cj_dev_scale": ("linekern.py", 13), "a_(i_) = cj_ext_twice": ("linekern.py", 14)}


@pytest.fixture
def kernel_files(tmp_path, monkeypatch):
    (tmp_path / "linedev.py").write_text(DEVICE)
    (tmp_path / "twice.cu").write_text(LINKED)
    (tmp_path / "linekern.py").write_text(KERNEL.format(linked=str(tmp_path / "twice.cu")))
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("linedev", "linekern"):
        sys.modules.pop(name, None)
    yield tmp_path, importlib.import_module("linekern")
    for name in ("linedev", "linekern"):
        sys.modules.pop(name, None)


def _expected(text, number, tmp_path):
    """Where a diagnostic on line ``number`` (1-based) of the unit, reading ``text``, must point."""
    for snippet, (name, line) in WANT.items():
        if text.strip().startswith(snippet):
            return str(tmp_path / name), line
    return GENERATED, number


def test_every_line_reports_its_origin(kernel_files):
    if not shutil.which("g++"):
        pytest.skip("no g++")
    tmp_path, mod = kernel_files
    source = compile_kernel(mod.kern.py_func, (types.float64[::1], types.int64)).source
    lines = source.split("\n")
    assert lines[-1] == ""
    # A failing static_assert after every line that is C++ code of ours: the compiler reports each one where
    # #line says the line is. Linked lines are the foreign file's text (their position: the next test).
    probed, want, linked = [], {}, False
    for number, text in enumerate(lines[:-1], start=1):
        if text.startswith("#line"):
            linked = text.endswith('twice.cu"')
        elif text.strip() and not text.lstrip().startswith(("#", "//")) and not linked:
            want[number] = _expected(text, number, tmp_path)
            text += f' static_assert(sizeof(char) == 0, "probe {number}");'
        probed.append(text)
    assert len(want) > 12 and set(WANT) <= {s for s in WANT for n in want if lines[n - 1].strip().startswith(s)}
    unit = tmp_path / "unit.cpp"
    unit.write_text("\n".join(probed) + "\n")
    r = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-I", KERNELS, str(unit)], capture_output=True,
                       text=True)
    got = {int(m.group(3)): (m.group(1), int(m.group(2)))
           for m in re.finditer(r"^(.+?):(\d+):\d+: error: static assertion failed: probe (\d+)$", r.stderr, re.M)}
    assert got == want
    # The line before CJ_ENTRY (the kernel's closing brace) and CJ_ENTRY itself: generated, at their own lines.
    entry = next(n for n, t in enumerate(lines, start=1) if t.startswith("CJ_ENTRY("))
    assert got[entry] == (GENERATED, entry) and got[entry - 1] == (GENERATED, entry - 1)


def test_an_error_in_a_linked_source_names_its_line(backend, tmp_path):
    bad = tmp_path / "bad.cu"
    bad.write_text('extern "C" __device__ int broken(double* r, double x) {\n    *r = x;\n'
                   '    return undefined_name;\n}\n')
    broken = cuda.declare_device("broken", "float64(float64)", link=[str(bad)])

    def k(a):
        a[0] = broken(a[0])
    with pytest.raises(CompileError, match=re.escape(str(bad)) + r"[:(]3\b"):
        cuda.jit(k)[1, 1](np.zeros(1))

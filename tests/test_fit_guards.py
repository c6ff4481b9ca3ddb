"""The range guard of an elementwise kernel (``if i < a.size:``) against a parameter's extent, which the CPU block
loop knows true in every block whose grid indices all lie inside that axis (operators.py, _known_in_fitting_blocks:
``(cj_fits || i < n)``), so the loop of such a block has no branch and vectorises. The blocks at the edge, and
grids larger than the arrays, still take the test: every form against NumPy on every backend, at sizes that are and
are not multiples of the block."""
import numpy as np
import pytest

from cudajit import cuda
from cudajit.compiler import CompileOptions, compile_kernel, typeof


@cuda.jit
def add_if_below(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def add_unless_past(a, b, c):
    i = cuda.grid(1)
    if i >= len(c):
        return
    c[i] = a[i] + b[i]


@cuda.jit
def scale_reversed(a, c):
    i = cuda.grid(1)
    if a.shape[0] > i and not (c.shape[0] <= i):
        c[i] = 2 * a[i]


@cuda.jit
def transpose_2d(a, out):
    x, y = cuda.grid(2)
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y] = a[y, x]


@cuda.jit
def guard_on_another_array(a, small, c):
    i = cuda.grid(1)
    if i < small.size:          # the guard's array is not the one indexed: its axis is checked per block too
        c[i] = a[i] + small[i]


@pytest.mark.parametrize("n", [1, 255, 256, 1000, 4097])
def test_guards_against_numpy(backend, rng, n):
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    for kernel in (add_if_below, add_unless_past):
        c = np.full(n, np.nan)
        kernel[(n + 255) // 256 + 1, 256](a, b, c)          # a block more than the array needs
        np.testing.assert_array_equal(c, a + b)
    c = np.full(n, np.nan)
    scale_reversed[(n + 127) // 128, 128](a, c)
    np.testing.assert_array_equal(c, 2 * a)
    small = rng.standard_normal(max(1, n // 3))
    c = np.full(n, np.nan)
    guard_on_another_array[(n + 63) // 64, 64](a, small, c)
    want = np.full(n, np.nan)
    want[:small.size] = a[:small.size] + small
    np.testing.assert_array_equal(c, want)


@pytest.mark.parametrize("shape", [(16, 16), (37, 53), (1, 300)])
def test_2d_guards_against_numpy(backend, rng, shape):
    a = rng.standard_normal(shape[::-1])
    out = np.full(shape, np.nan)
    transpose_2d[((shape[0] + 15) // 16, (shape[1] + 15) // 16), (16, 16)](a, out)
    np.testing.assert_array_equal(out, a.T)


def test_the_guard_is_known_only_in_fitting_blocks():
    f64 = typeof(np.zeros(2))
    src = compile_kernel(add_if_below.py_func, (f64,) * 3, CompileOptions().for_backend("cpu")).source
    assert "if ((cj_fits || i_ < c_.size())) {" in src or "if (cj_fits || i_ < c_.size()) {" in src, src
    assert "CJ_FIT(2, 0, 0)" in src
    src = compile_kernel(add_unless_past.py_func, (f64,) * 3, CompileOptions().for_backend("cpu")).source
    assert "(!cj_fits && i_ >= c_.shape[0])" in src, src

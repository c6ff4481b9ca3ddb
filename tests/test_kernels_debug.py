"""debug=True: exceptions raised in kernels reach the host (Numba's exception checking): ``raise``, ``assert``,
and, beyond Numba, out-of-bounds array indices, which raise IndexError naming the kernel's file and line instead
of touching memory they do not own; a run-time tuple index out of range and a zero divisor (numba-cuda's 'python'
error model) raise too. Without debug, a raise ends the raising thread silently, as in Numba."""
import inspect

import numpy as np
import pytest

from cudajit import cuda
from numba_parity_kernels import zero_div_debug


def _line(fn, text):
    lines, first = inspect.getsourcelines(fn.py_func)
    return first + next(k for k, line in enumerate(lines) if text in line)


@cuda.jit(device=True)
def checked_sqrt(x):
    if x < 0:
        raise ValueError("negative input")
    return x ** 0.5


@cuda.jit(debug=True, opt=False)
def roots_debug(a, out, shift):
    i = cuda.grid(1)
    if i < a.size:
        out[i + shift] = checked_sqrt(a[i])


@cuda.jit
def roots_plain(a, out):
    i = cuda.grid(1)
    if i < a.size:
        if a[i] > 100:
            raise ValueError("too big")
        out[i] = checked_sqrt(a[i])


@cuda.jit(debug=True, opt=False)
def assert_kernel(a, limit):
    i = cuda.grid(1)
    assert i < limit, "more threads than allowed"
    a[i, 0] = i
    a[-1, -1] = 7.0                       # negative indices still wrap


def test_debug_kernel_runs_clean(backend, rng):
    a = rng.uniform(0, 4, 64)
    out = np.zeros(64)
    roots_debug[2, 32](a, out, 0)
    np.testing.assert_allclose(out, np.sqrt(a), rtol=1e-15)


def test_out_of_bounds_index_raises_index_error(backend, rng):
    a = rng.uniform(0, 4, 64)
    out = np.zeros(64)
    with pytest.raises(IndexError) as info:
        roots_debug[2, 32](a, out, 1)      # thread 63 writes out[64]
    msg = str(info.value)
    assert "index 64 is out of bounds for axis 0 with size 64" in msg
    assert f"test_kernels_debug.py, line {_line(roots_debug, 'out[i + shift] =')}," in msg, msg
    assert "tid=[31, 0, 0] ctaid=[1, 0, 0]" in msg
    np.testing.assert_allclose(out[1:], np.sqrt(a[:-1]), rtol=1e-15)   # the other threads' work is there
    roots_debug[2, 32](a, out, 0)          # the error was cleared: the next launch is clean
    np.testing.assert_allclose(out, np.sqrt(a), rtol=1e-15)


def test_raise_in_device_function_reaches_host(backend, rng):
    a = rng.uniform(0, 4, 64)
    a[17] = -1.0
    out = np.zeros(64)
    with pytest.raises(ValueError) as info:
        roots_debug[2, 32](a, out, 0)
    msg = str(info.value)
    assert "tid=[17, 0, 0] ctaid=[0, 0, 0]: negative input" in msg
    assert f"test_kernels_debug.py, line {_line(checked_sqrt, 'raise ValueError')}," in msg, msg


def test_assert_in_debug_kernel(backend):
    a = np.zeros((8, 8))
    assert_kernel[1, 8](a, 8)
    np.testing.assert_array_equal(a[:, 0], np.arange(8))
    assert a[-1, -1] == 7.0
    with pytest.raises(AssertionError, match="more threads than allowed"):
        assert_kernel[1, 8](a, 5)


def test_raise_without_debug_ends_the_thread_silently(backend, rng):
    a = rng.uniform(0, 4, 64)
    a[5] = 1000.0
    out = np.full(64, -3.0)
    roots_plain[2, 32](a, out)            # no exception: Numba checks only with debug=True
    expect = np.sqrt(a)
    expect[5] = -3.0                       # the raising thread stopped before its store
    np.testing.assert_allclose(out, expect, rtol=1e-15)


@cuda.jit
def roots_through_device_function(a, out, visits):
    i = cuda.grid(1)
    for k in range(i, a.size, cuda.gridsize(1)):          # a grid-stride loop: the raise ends it
        out[k] = checked_sqrt(a[k])
        visits[k] = 1


def test_raise_in_device_function_without_debug_ends_the_thread(backend, rng):
    """numba-cuda: the raise's error status makes every caller return, the kernel with them. The raising thread
    stores nothing more, not even its own element (no default value comes back), and its later elements stay."""
    a = rng.uniform(0, 4, 256)
    a[[5, 40, 77]] = -rng.uniform(1, 2, 3)
    out = np.full(256, -3.0)
    visits = np.zeros(256, np.int32)
    roots_through_device_function[2, 32](a, out, visits)   # 64 threads: thread t handles t, t + 64, ...
    stopped = {5 % 64: 5, 40 % 64: 40, 77 % 64: 77}          # threads 5, 40 and 13
    want = np.sqrt(np.abs(a))
    seen = np.ones(256, np.int32)
    for t, k in stopped.items():
        want[k::64], seen[k::64] = -3.0, 0
    np.testing.assert_allclose(out, want, rtol=1e-15)
    np.testing.assert_array_equal(visits, seen)


TABLE = np.arange(8.0)


@cuda.jit(debug=True, opt=False)
def staged(a, out, k):
    sm = cuda.shared.array(16, np.float64)
    i = cuda.grid(1)
    sm[cuda.threadIdx.x] = a[i]               # a block of more than 16 threads overruns the shared array
    cuda.syncthreads()
    out[i] = sm[cuda.threadIdx.x] + TABLE[i % 8 + k]   # a frozen global array is checked too


def test_shared_and_constant_arrays_are_checked(backend, rng):
    a = rng.standard_normal(32)
    out = np.zeros(32)
    staged[2, 16](a, out, 0)
    np.testing.assert_allclose(out, a + np.arange(32) % 8, rtol=1e-15)
    with pytest.raises(IndexError, match=r"index 16 is out of bounds for axis 0 with size 16"):
        staged[1, 32](a, out, 0)
    with pytest.raises(IndexError, match=r"test_kernels_debug.py, line \d+, tid=.*for axis 0 with size 8 "):
        staged[2, 16](a, out, 1)


_OPS = ["//", "%", "/"]
_DIVISIONS = [(np.int64, 0, "integer division by zero"), (np.int32, 1, "integer modulo by zero"),
              (np.int64, 2, "division by zero"), (np.float64, 0, "division by zero"),
              (np.float32, 1, "modulo by zero"), (np.float64, 2, "division by zero")]


@pytest.mark.parametrize("dtype,op,message", _DIVISIONS, ids=[f"{np.dtype(d)}{_OPS[o]}" for d, o, _ in _DIVISIONS])
def test_division_by_zero_under_debug_raises_as_numba_cuda(backend, rng, dtype, op, message):
    kernel = zero_div_debug                             # shared with the GPU parity test against numba-cuda
    a = (rng.integers(1, 100, 64)).astype(dtype)
    b = (rng.integers(1, 9, 64)).astype(dtype)
    out = np.zeros(64)
    kernel[2, 32](a, b, out, op)
    expect = [a // b, a % b, a / b][op]
    np.testing.assert_allclose(out, expect, rtol=1e-6)
    b[40] = 0
    with pytest.raises(ZeroDivisionError) as info:
        kernel[2, 32](a, b, out, op)
    msg = str(info.value)
    assert f"tid=[8, 0, 0] ctaid=[1, 0, 0]: {message}" in msg and "In function 'zero_div_debug', file " in msg, msg
    line = _line(kernel, f"[i] = a[i] {_OPS[op]} b")
    assert f"numba_parity_kernels.py, line {line}," in msg, msg


def test_division_by_zero_without_debug_keeps_numpy_results(backend):
    kernel = cuda.jit(zero_div_debug.py_func)
    a = np.array([7, -7, 0], np.int64)
    out = np.zeros(3)
    kernel[1, 3](a, np.zeros(3, np.int64), out, 0)
    np.testing.assert_array_equal(out, [0, 0, 0])                       # Numba's NumPy error model
    with np.errstate(divide="ignore", invalid="ignore"):
        kernel[1, 3](a.astype(np.float64), np.zeros(3), out, 2)
        np.testing.assert_array_equal(out, a / np.zeros(3))


def test_float32_division_under_fastmath_has_no_zero_check_as_in_numba_cuda(backend, rng):
    """numba-cuda divides float32 by float32 with CUDA's fast division under fastmath, which never raises;
    float64 division, and float32 without fastmath, still raise under debug."""
    def divide(r, x, y):
        r[cuda.grid(1)] = x / y

    fast32 = cuda.jit("void(float32[::1], float32, float32)", fastmath=True, debug=True, opt=False)(divide)
    exact32 = cuda.jit("void(float32[::1], float32, float32)", debug=True, opt=False)(divide)
    fast64 = cuda.jit("void(float64[::1], float64, float64)", fastmath=True, debug=True, opt=False)(divide)
    x = np.float32(rng.uniform(1, 10))
    r = np.zeros(10, np.float32)
    fast32[1, 10](r, x, np.float32(0.0))
    assert np.all(np.isinf(r))
    fast32[1, 10](r, x, np.float32(4.0))
    np.testing.assert_allclose(r, x / np.float32(4.0), rtol=1e-6)
    with pytest.raises(ZeroDivisionError):
        exact32[1, 10](r, x, np.float32(0.0))
    with pytest.raises(ZeroDivisionError):
        fast64[1, 10](np.zeros(10), float(x), 0.0)


@cuda.jit(debug=True, opt=False)
def shape_at(a, axis, out):
    out[0] = a.shape[axis]


def test_tuple_index_out_of_range_under_debug(backend):
    a = np.zeros((3, 5))
    out = np.zeros(1, np.int64)
    shape_at[1, 1](a, -1, out)
    assert out[0] == 5
    # Numba's text first, then the index and the tuple's length
    with pytest.raises(IndexError, match=rf"In function 'shape_at', file .*test_kernels_debug.py, line "
                                         rf"{_line(shape_at, 'a.shape[axis]')}, tid=.*: "
                                         rf"tuple index out of range \(index 2, length 2\)$"):
        shape_at[1, 1](a, 2, out)
    with pytest.raises(IndexError, match=r"tuple index out of range \(index -4, length 3\)"):
        shape_at[1, 1](np.zeros((2, 3, 4)), -4, out)

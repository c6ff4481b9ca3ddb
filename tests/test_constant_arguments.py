"""Device functions that use a parameter where a compile-time constant is needed (``cuda.shared.array(n, dtype)``):
as in Numba, a call that passes a constant (an int, a tuple of ints) specialises the function on that value; a
value known only at run time is a TypingError naming the line. Also tuple variables whose definitions differ in
element types (read back at each definition's type)."""
import numpy as np
import pytest

from cudajit import cuda, float64, int32, uint32
from cudajit.errors import TypingError


@cuda.jit(device=True)
def histogram_in_shared(out, values, dtype, nbins, update):
    tid = cuda.threadIdx.x
    bins = cuda.shared.array(nbins, dtype)
    if tid < nbins:
        bins[tid] = 0
    cuda.syncthreads()
    update(bins, values[tid] % nbins, 1)
    cuda.syncthreads()
    if tid < nbins:
        out[tid] = bins[tid]


@cuda.jit(device=True)
def shifted_in_shared(ary, shape, shift, wrap):
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    tile = cuda.shared.array(shape, float64)
    tile[tx, ty] = ary[tx, ty]
    cuda.syncthreads()
    at = (tx - shift, ty - shift)
    if wrap:
        at = (at[0] % shape[0], at[1] % shape[1])
    cuda.atomic.add(tile, at, 1.0)
    cuda.syncthreads()
    ary[tx, ty] = tile[tx, ty]


@cuda.jit(device=True)
def local_sum(x, n):
    scratch = cuda.local.array(n, float64)
    for k in range(n):
        scratch[k] = x * (k + 1)
    s = 0.0
    for k in range(n):
        s += scratch[k]
    return s


@cuda.jit(device=True)
def local_sum_of(x, n):
    return local_sum(x, n)                    # the constant goes on to the next function


def test_shared_array_sized_by_constant_arguments(backend):
    @cuda.jit
    def hist(out32, out64, values):
        histogram_in_shared(out32, values, uint32, 32, cuda.atomic.add)
        histogram_in_shared(out64, values, int32, 64, cuda.atomic.add)

    values = np.random.default_rng(3).integers(0, 1000, 128).astype(np.int64)
    out32, out64 = np.zeros(32, np.uint32), np.zeros(64, np.int32)
    hist[1, 128](out32, out64, values)
    np.testing.assert_array_equal(out32, np.bincount(values % 32, minlength=32))
    np.testing.assert_array_equal(out64, np.bincount(values % 64, minlength=64))


def test_shape_tuple_argument_and_its_elements(backend):
    @cuda.jit
    def shifted(ary, wrap):
        shifted_in_shared(ary, (4, 8), 0, wrap)

    a = np.random.default_rng(4).standard_normal((4, 8))
    got = a.copy()
    shifted[1, (4, 8)](got, True)
    np.testing.assert_array_equal(got, a + 1.0)
    got = a.copy()
    shifted[1, (4, 8)](got, False)
    np.testing.assert_array_equal(got, a + 1.0)


def test_local_array_sized_through_two_calls(backend):
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[0, i] = local_sum_of(x[i], 3)
            out[1, i] = local_sum_of(x[i], 5)

    x = np.random.default_rng(5).standard_normal(100)
    out = np.zeros((2, 100))
    k[1, 128](x, out)
    np.testing.assert_allclose(out, [x * 6, x * 15], rtol=1e-14)


def test_run_time_size_is_a_typing_error(backend):
    @cuda.jit
    def k(x, out):
        out[0] = local_sum(x[0], x.size)

    with pytest.raises(TypingError, match=r"test_constant_arguments.py:\d+: cuda.local.array shape must be a "
                                          r"constant(.|\n)*pass one to 'local_sum'"):
        k[1, 1](np.ones(4), np.zeros(1))


def test_tuple_variable_widened_on_one_path(backend):
    """``at`` holds (int32, int32) and then (int64, int64): one C++ variable, read at each definition's type."""
    @cuda.jit
    def k(out, wrap):
        tx = cuda.threadIdx.x
        at = (tx, tx + np.int32(1))
        if wrap:
            at = (at[0] % 3, at[1] % 3)
        out[tx, 0] = at[0]
        out[tx, 1] = at[1]

    out = np.zeros((8, 2), np.int64)
    k[1, 8](out, True)
    t = np.arange(8)
    np.testing.assert_array_equal(out, np.stack([t % 3, (t + 1) % 3], axis=1))
    k[1, 8](out, False)
    np.testing.assert_array_equal(out, np.stack([t, t + 1], axis=1))

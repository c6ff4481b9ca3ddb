"""numba.cuda's smaller surface (issue 12, item 7): array.reshape and int.bit_count in kernels, constants
(module-level and local) as shared/local array shapes, and the host-side names Numba programs use."""
import numpy as np
import pytest

from cudajit import cuda, float32, int64
from cudajit.errors import TypingError

TILE = 16            # a module-level constant sizes shared arrays, as in Numba
SHAPE2 = (4, 8)


@cuda.jit
def reshape_rows(a, out):
    b = a.reshape(SHAPE2)              # a tuple
    c = a.reshape(-1, 8)               # integers, one of them inferred
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = b[i // 8, i % 8]
        out[i, 1] = c[i // 8, i % 8]
        out[i, 2] = b.shape[0] * 100 + c.shape[1]


def test_reshape_of_contiguous_array_matches_numpy(backend, rng):
    a = rng.standard_normal(32)
    out = np.zeros((32, 3))
    reshape_rows[1, 32](a, out)
    want = a.reshape(4, 8)
    idx = np.arange(32)
    np.testing.assert_array_equal(out[:, 0], want[idx // 8, idx % 8])
    np.testing.assert_array_equal(out[:, 1], want[idx // 8, idx % 8])
    np.testing.assert_array_equal(out[:, 2], 4 * 100 + 8)


def test_reshape_of_2d_array_writes_through(backend, rng):
    @cuda.jit
    def flatten_double(a):
        flat = a.reshape(a.size)
        i = cuda.grid(1)
        if i < flat.size:
            flat[i] *= 2

    a = rng.standard_normal((6, 5))
    want = a * 2
    flatten_double[1, 32](a)
    np.testing.assert_array_equal(a, want)


def test_reshape_to_wrong_size_raises_under_debug(backend):
    @cuda.jit(debug=True, opt=False)
    def bad(a, out):
        b = a.reshape(5, 7)
        out[0] = b.size

    with pytest.raises(ValueError, match="total size of new array must be unchanged"):
        bad[1, 1](np.zeros(32), np.zeros(1))


def test_reshape_of_non_contiguous_array_is_a_typing_error(backend):
    @cuda.jit
    def strided(a):
        b = a[::2].reshape(2, 8)
        b[0, 0] = 1

    with pytest.raises(TypingError, match="contiguous array only"):
        strided[1, 1](np.zeros(32))


@cuda.jit
def bit_counts(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i].bit_count()


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint32, np.uint64])
def test_int_bit_count_matches_python(backend, rng, dtype):
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, size=64, dtype=dtype, endpoint=True)
    a[:2] = info.min, info.max
    out = np.zeros(64, dtype)
    bit_counts[1, 64](a, out)
    np.testing.assert_array_equal(out, [int(x).bit_count() for x in a])


@cuda.jit
def reverse_in_shared(a, out):
    s = cuda.shared.array(TILE, float32)              # module-level constant
    n = 4
    t = cuda.local.array((n, TILE), int64)            # local constant in a tuple
    i = cuda.threadIdx.x
    s[i] = a[i]
    t[n - 1, i] = i
    cuda.syncthreads()
    out[i] = s[TILE - 1 - i] + t[3, i] * 0


def test_module_and_local_constants_size_arrays(backend, rng):
    a = rng.standard_normal(TILE).astype(np.float32)
    out = np.zeros(TILE, np.float32)
    reverse_in_shared[1, TILE](a, out)
    np.testing.assert_array_equal(out, a[::-1])


def test_a_reassigned_local_is_not_a_constant_shape(backend):
    @cuda.jit
    def varying(a):
        n = 4
        if a[0] > 0:
            n = 8
        s = cuda.local.array(n, float32)
        s[0] = 1

    with pytest.raises(TypingError, match="shape must be a constant"):
        varying[1, 1](np.ones(1))

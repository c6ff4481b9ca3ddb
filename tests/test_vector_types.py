"""CUDA vector types in kernels (numba-cuda's "CUDA vector types"): <base>x<N> constructors from numbers and
smaller vectors, the CUDA C aliases, components .x .y .z .w, vectors in variables and through device functions."""
import numpy as np
import pytest

from cudajit import cuda
from cudajit.cuda import float32x4, int64x3, uint32x2
from cudajit.errors import TypingError


@cuda.jit(device=True)
def swap_xy(v):
    return cuda.float32x2(v.y, v.x)


@cuda.jit
def build_vectors(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        v = float32x4(a[i, 0], a[i, 1], a[i, 2], a[i, 3])
        s = swap_xy(cuda.float2(v.x, v.y))              # an alias, a vector through a device function
        w = cuda.float32x4(s, v.z, cuda.float32x1(v.w))   # vectors and numbers, 4 components in all
        out[i, 0] = w.x
        out[i, 1] = w.y
        out[i, 2] = w.z
        out[i, 3] = w.w
        out[i, 4] = v.x + v.y + v.z + v.w


def test_vector_constructors_and_components(backend, rng):
    a = rng.standard_normal((64, 4)).astype(np.float32)
    out = np.zeros((64, 5), np.float32)
    build_vectors[2, 32](a, out)
    np.testing.assert_array_equal(out[:, :4], a[:, [1, 0, 2, 3]])
    want = ((a[:, 0] + a[:, 1]) + a[:, 2]) + a[:, 3]
    np.testing.assert_array_equal(out[:, 4], want)


@cuda.jit
def integer_vectors(a, out):
    i = cuda.grid(1)
    if i < a.size:
        u = uint32x2(a[i], a[i] + 1)        # converted to uint32 as a store would
        t = int64x3(u, -a[i])
        c = cuda.longlong3(t)               # a vector of the same type: its components
        out[i, 0] = c.x
        out[i, 1] = c.y
        out[i, 2] = c.z


def test_integer_vectors_convert_their_components(backend, rng):
    a = rng.integers(-1000, 1000, size=50)
    out = np.zeros((50, 3), np.int64)
    integer_vectors[1, 64](a, out)
    np.testing.assert_array_equal(out[:, 0], a.astype(np.uint32).astype(np.int64))
    np.testing.assert_array_equal(out[:, 1], (a + 1).astype(np.uint32).astype(np.int64))
    np.testing.assert_array_equal(out[:, 2], -a)


def test_missing_component_and_wrong_count_are_typing_errors(backend):
    @cuda.jit
    def no_z(out):
        v = cuda.float32x2(1.0, 2.0)
        out[0] = v.z

    @cuda.jit
    def three_for_four(out):
        v = cuda.float32x4(1.0, 2.0, 3.0)
        out[0] = v.x

    with pytest.raises(TypingError, match="'float32x2' has no attribute 'z'"):
        no_z[1, 1](np.zeros(1, np.float32))
    with pytest.raises(TypingError, match=r"float32x4\(\) needs 4 components in all, got 3"):
        three_for_four[1, 1](np.zeros(1, np.float32))


def test_vector_names_are_documented_placeholders():
    assert "float32" in cuda.float4.__doc__ and "float32x4" in cuda.float4.__doc__
    with pytest.raises(RuntimeError, match="inside a @cuda.jit kernel"):
        cuda.float32x4(1, 2, 3, 4)

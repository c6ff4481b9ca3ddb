"""cuda.kernels.transpose (numba-cuda's ready-made kernel) and DeviceNDArray.T / .transpose(), which use it."""
import numpy as np
import pytest

from cudajit import cuda
from cudajit.cuda.kernels.transpose import transpose

RECORD = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])


def _random(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == RECORD:
        a = np.zeros(shape, RECORD)
        a["i"] = rng.integers(-1000, 1000, shape)
        a["j"] = rng.standard_normal(shape + (3, 2))
        return a
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0, 100, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("shape", [(5, 6), (32, 32), (33, 31), (1, 70), (70, 1), (129, 65)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128, np.bool_, np.int8, np.uint16, RECORD])
def test_transpose_into_a_new_array(backend, rng, shape, dtype):
    a = _random(rng, shape, dtype)
    t = transpose(cuda.to_device(a))
    assert t.shape == shape[::-1] and t.dtype == a.dtype and t.is_c_contiguous()
    np.testing.assert_array_equal(t.copy_to_host(), a.T)


def test_transpose_into_a_given_array_from_views_and_numpy(backend, rng):
    a = rng.standard_normal((40, 50))
    d = cuda.to_device(a)
    out = cuda.device_array((25, 20))
    assert transpose(d[::2, ::2], out) is out                 # a strided view in, the array given out
    np.testing.assert_array_equal(out.copy_to_host(), a[::2, ::2].T)
    f = np.asfortranarray(rng.standard_normal((17, 9)))
    np.testing.assert_array_equal(transpose(f).copy_to_host(), f.T)      # a NumPy array, F-ordered
    np.testing.assert_array_equal(transpose(cuda.to_device(f)).copy_to_host(), f.T)
    empty = transpose(cuda.to_device(np.zeros((0, 3))))
    assert empty.shape == (3, 0)


def test_transpose_on_the_arrays_stream(backend, rng):
    s = cuda.stream()
    a = rng.standard_normal((64, 48)).astype(np.float32)
    d = cuda.to_device(a, stream=s)
    t = transpose(d)
    assert t.stream is s
    np.testing.assert_array_equal(t.copy_to_host(stream=s), a.T)
    s.synchronize()


def test_device_array_T_is_numba_cudas_copy(backend, rng):
    a = np.arange(120, dtype=np.int64).reshape(10, 12)
    d = cuda.to_device(a)
    t = d[::2, ::2].T                         # numba-cuda's test_transpose_view: shape and strides of a new array
    assert (t.shape, t.strides) == ((6, 5), (40, 8))
    np.testing.assert_array_equal(t.copy_to_host(), a[::2, ::2].T)
    x = rng.standard_normal((7, 3))
    dx = cuda.to_device(x)
    np.testing.assert_array_equal(dx.transpose((1, 0)).copy_to_host(), x.T)
    assert dx.transpose((0, 1)) is dx


@pytest.mark.parametrize("call, error, words", [
    (lambda: transpose([[1.0, 2.0]]), TypeError, ["list"]),
    (lambda: transpose(cuda.to_device(np.zeros(4))), NotImplementedError, ["2 dimensions", "not 1"]),
    (lambda: transpose(cuda.to_device(np.zeros((2, 3))), cuda.device_array((2, 3))), ValueError, ["(2, 3)", "(3, 2)"]),
    (lambda: transpose(cuda.to_device(np.zeros((2, 3))), cuda.device_array((3, 2), np.float32)), TypeError,
     ["float32", "float64"]),
    (lambda: transpose(cuda.to_device(np.zeros((2, 3))), np.zeros((3, 2))), TypeError, ["b must be a device array"]),
    # numba-cuda's and NumPy's words, which numba-cuda's test_devicearray_transpose_duplicatedaxis / _wrongaxis
    # compare exactly
    (lambda: cuda.to_device(np.zeros((2, 3))).transpose((0, 0)), ValueError, ["invalid axes list (0, 0)"]),
    (lambda: np.transpose(cuda.to_device(np.zeros((2, 3))), (0, 2)), np.exceptions.AxisError,
     ["axis 2 is out of bounds for array of dimension 2"]),
    (lambda: cuda.to_device(np.zeros((2, 3))).transpose((-3, 0)), IndexError,
     ["axis -3 is out of bounds for array of dimension 2"]),
    (lambda: cuda.to_device(np.zeros((2, 3))).transpose((0,)), ValueError, ["invalid axes (0,)", "2 dimensions"]),
])
def test_transpose_errors(backend, call, error, words):
    with pytest.raises(error) as info:
        call()
    for w in words:
        assert w in str(info.value)


def test_transpose_axes_count_from_the_end_as_numpys(backend, rng):
    x = rng.standard_normal((4, 7))
    d = cuda.to_device(x)
    np.testing.assert_array_equal(np.transpose(d, (-1, 0)).copy_to_host(), np.transpose(x, (-1, 0)))
    np.testing.assert_array_equal(d.transpose([1, -2]).copy_to_host(), x.T)
    assert d.transpose((-2, -1)) is d
    e = cuda.to_device(rng.standard_normal((2, 3, 4)))
    assert e.transpose((0, -2, 2)) is e

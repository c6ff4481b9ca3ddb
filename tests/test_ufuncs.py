"""NumPy ufuncs inside kernels (numba-cuda's "Supported NumPy features"): Numba's result types, values against
NumPy on random data, the array form with an output argument, and the error for what is not supported."""
import numpy as np
import pytest

from cudajit import cuda
from cudajit.compiler import compile_device, types
from cudajit.errors import UnsupportedError

# (function, argument types, Numba's result type): the first NumPy loop every argument casts to safely,
# float16 loops skipped as numba-cuda has none.
TYPING = [
    (lambda x: np.sin(x), "int16", "float32"),
    (lambda x: np.sin(x), "int32", "float64"),
    (lambda x: np.sqrt(x), "complex64", "complex64"),
    (lambda x: np.abs(x), "complex64", "float32"),
    (lambda x: np.abs(x), "int8", "int8"),
    (lambda x, y: np.add(x, y), "int32 int32", "int32"),
    (lambda x, y: np.add(x, y), "uint8 int8", "int16"),
    (lambda x, y: np.maximum(x, y), "float32 int8", "float32"),
    (lambda x, y: np.true_divide(x, y), "int32 int32", "float64"),
    (lambda x, y: np.greater(x, y), "int8 float32", "bool"),
    (lambda x, y: np.arctan2(x, y), "int16 int16", "float32"),
    (lambda x: np.logical_not(x), "float64", "bool"),
    (lambda x: np.negative(x), "uint16", "uint16"),
]


@pytest.mark.parametrize("fn,args,expected", TYPING, ids=[f"{i}-{t[1]}" for i, t in enumerate(TYPING)])
def test_ufunc_result_types(fn, args, expected):
    argtypes = tuple(getattr(types, a) for a in args.split())
    assert str(compile_device(fn, argtypes).return_type) == expected


@cuda.jit
def float_ufuncs(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        a, b = x[i], y[i]
        out[i, 0] = np.sin(a)
        out[i, 1] = np.cos(a)
        out[i, 2] = np.tan(a)
        out[i, 3] = np.arcsin(a)
        out[i, 4] = np.arctan2(a, b)
        out[i, 5] = np.hypot(a, b)
        out[i, 6] = np.sqrt(b)
        out[i, 7] = np.exp(a)
        out[i, 8] = np.log(b)
        out[i, 9] = np.log10(b)
        out[i, 10] = np.abs(a)
        out[i, 11] = np.maximum(a, b)
        out[i, 12] = np.minimum(a, b)
        out[i, 13] = np.fmax(a, b)
        out[i, 14] = np.add(a, b)
        out[i, 15] = np.multiply(a, b)
        out[i, 16] = np.floor_divide(a, b)
        out[i, 17] = np.remainder(a, b)
        out[i, 18] = np.power(b, a)
        out[i, 19] = np.deg2rad(a)
        out[i, 20] = np.rad2deg(a)
        out[i, 21] = np.tanh(a)
        out[i, 22] = np.arcsinh(a)
        out[i, 23] = np.negative(a)
        out[i, 24] = np.greater(a, b)
        out[i, 25] = np.logical_xor(a > 0, b > 1)


def _float_oracle(a, b):
    return [np.sin(a), np.cos(a), np.tan(a), np.arcsin(a), np.arctan2(a, b), np.hypot(a, b), np.sqrt(b), np.exp(a),
            np.log(b), np.log10(b), np.abs(a), np.maximum(a, b), np.minimum(a, b), np.fmax(a, b), np.add(a, b),
            np.multiply(a, b), np.floor_divide(a, b), np.remainder(a, b), np.power(b, a), np.deg2rad(a),
            np.rad2deg(a), np.tanh(a), np.arcsinh(a), np.negative(a), np.greater(a, b),
            np.logical_xor(a > 0, b > 1)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_ufuncs_match_numpy(backend, rng, dtype):
    n = 300
    x = rng.uniform(-0.99, 0.99, n).astype(dtype)
    y = rng.uniform(0.1, 3.0, n).astype(dtype)
    x[:3] = [np.nan, 0.5, -0.25]
    y[:3] = [1.0, np.nan, 0.75]
    out = np.zeros((n, 26), dtype)
    float_ufuncs[(n + 127) // 128, 128](x, y, out)
    want = np.stack([np.asarray(c, dtype) for c in _float_oracle(x, y)], axis=1)
    rtol = 2e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(out, want, rtol=rtol, atol=rtol, equal_nan=True)


@cuda.jit
def int_ufuncs(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        a, b = x[i], y[i]
        out[i, 0] = np.add(a, b)
        out[i, 1] = np.subtract(a, b)
        out[i, 2] = np.multiply(a, b)
        out[i, 3] = np.floor_divide(a, b)
        out[i, 4] = np.remainder(a, b)
        out[i, 5] = np.bitwise_and(a, b)
        out[i, 6] = np.bitwise_xor(a, b)
        out[i, 7] = np.invert(a)
        out[i, 8] = np.left_shift(a, b & 7)
        out[i, 9] = np.right_shift(a, b & 7)
        out[i, 10] = np.maximum(a, b)
        out[i, 11] = np.minimum(a, b)
        out[i, 12] = np.absolute(a)
        out[i, 13] = np.less_equal(a, b)


def test_int_ufuncs_wrap_as_numpy(backend, rng):
    n = 257
    x = rng.integers(-2**31, 2**31, n, dtype=np.int32)
    y = rng.integers(-2**31, 2**31, n, dtype=np.int32)
    y[y == 0] = 3
    out = np.zeros((n, 14), np.int32)
    int_ufuncs[3, 128](x, y, out)
    with np.errstate(all="ignore"):
        want = [np.add(x, y), np.subtract(x, y), np.multiply(x, y), np.floor_divide(x, y), np.remainder(x, y),
                np.bitwise_and(x, y), np.bitwise_xor(x, y), np.invert(x), np.left_shift(x, y & 7),
                np.right_shift(x, y & 7), np.maximum(x, y), np.minimum(x, y), np.absolute(x), np.less_equal(x, y)]
    np.testing.assert_array_equal(out, np.stack(want, axis=1).astype(np.int32))


@cuda.jit
def complex_ufuncs(z, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i, 0] = np.sqrt(z[i])
        out[i, 1] = np.exp(z[i])
        out[i, 2] = np.log(z[i])
        out[i, 3] = np.sin(z[i])
        out[i, 4] = np.abs(z[i])


def test_complex_ufuncs_match_numpy(backend, rng):
    n = 100
    z = (rng.normal(size=n) + 1j * rng.normal(size=n)).astype(np.complex128)
    out = np.zeros((n, 5), np.complex128)
    complex_ufuncs[1, 128](z, out)
    want = np.stack([np.sqrt(z), np.exp(z), np.log(z), np.sin(z), np.abs(z)], axis=1)
    np.testing.assert_allclose(out, want, rtol=1e-12)


@cuda.jit
def complex_order(a, b, flags, picks, logs):
    i = cuda.grid(1)
    if i < a.size:
        flags[0, i] = np.less(a[i], b[i])
        flags[1, i] = np.less_equal(a[i], b[i])
        flags[2, i] = np.greater(a[i], b[i])
        flags[3, i] = np.greater_equal(a[i], b[i])
        picks[0, i] = np.maximum(a[i], b[i])
        picks[1, i] = np.minimum(a[i], b[i])
        picks[2, i] = np.fmax(a[i], b[i])
        picks[3, i] = np.fmin(a[i], b[i])
        logs[i] = np.log2(a[i])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_order_and_log2_as_numpy(backend, rng, dtype):
    """NumPy orders complex numbers lexicographically (a NaN part: < and <= false; maximum keeps a NaN, fmax drops
    it); numba-cuda has these loops."""
    parts = np.concatenate([rng.integers(-2, 3, (2, 40)), [[np.nan, 1, 0], [1, np.nan, 0]]], axis=1)
    vals = (parts[0] + 1j * parts[1]).astype(dtype)
    a, b = np.repeat(vals, vals.size), np.tile(vals, vals.size)
    flags, picks = np.zeros((4, a.size), np.bool_), np.zeros((4, a.size), dtype)
    logs = np.zeros(a.size, dtype)
    complex_order[(a.size + 127) // 128, 128](a, b, flags, picks, logs)
    with np.errstate(invalid="ignore", divide="ignore"):
        np.testing.assert_array_equal(flags, [np.less(a, b), np.less_equal(a, b), np.greater(a, b),
                                              np.greater_equal(a, b)])
        np.testing.assert_array_equal(picks, [np.maximum(a, b), np.minimum(a, b), np.fmax(a, b), np.fmin(a, b)])
        finite = np.isfinite(a) & (a != 0)
        np.testing.assert_allclose(logs[finite], np.log2(a[finite]), rtol=2e-6 if dtype == np.complex64 else 1e-14)


@cuda.jit
def array_ufuncs(x, y, row, r1, r2):
    np.sin(x, r1)                   # one thread computes the whole array, as in numba-cuda
    np.add(y, row, r2)              # row (shape (m,)) broadcasts over y's rows


def test_ufunc_on_arrays_with_output(backend, rng):
    x = rng.normal(size=37)
    y = rng.normal(size=(5, 6)).astype(np.float32)
    row = rng.normal(size=6).astype(np.float32)
    r1, r2 = np.zeros_like(x), np.zeros_like(y)
    array_ufuncs[1, 1](x, y, row, r1, r2)
    np.testing.assert_allclose(r1, np.sin(x), rtol=1e-14)
    np.testing.assert_allclose(r2, y + row, rtol=1e-6)


def test_array_ufunc_needs_output(backend):
    @cuda.jit
    def no_out(x):
        np.sin(x)
    with pytest.raises(UnsupportedError, match=r"test_ufuncs\.py:\d+: np\.sin\(\) of arrays needs the output array"):
        no_out[1, 1](np.zeros(4))


def test_unsupported_numpy_function_is_named(backend):
    @cuda.jit
    def uses_cumsum(x):
        x[0] = np.cumsum(x)
    with pytest.raises(UnsupportedError, match=r"test_ufuncs\.py:\d+: np\.cumsum\(\) is not supported"):
        uses_cumsum[1, 1](np.zeros(4))

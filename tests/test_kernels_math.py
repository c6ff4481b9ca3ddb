"""math and cmath in kernels, typed as Numba's CUDA target types them, compared with Python's math."""
import cmath
import math

import numpy as np
import pytest

from cudajit import cuda

UNARY = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "atanh", "exp", "expm1",
         "log", "log2", "log10", "log1p", "sqrt", "fabs", "erf", "erfc", "gamma", "lgamma", "floor", "ceil", "trunc",
         "degrees", "radians", "exp2"]


@cuda.jit
def unary_math(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = math.sin(v)
        out[i, 1] = math.cos(v)
        out[i, 2] = math.tan(v)
        out[i, 3] = math.asin(v)
        out[i, 4] = math.acos(v)
        out[i, 5] = math.atan(v)
        out[i, 6] = math.sinh(v)
        out[i, 7] = math.cosh(v)
        out[i, 8] = math.tanh(v)
        out[i, 9] = math.asinh(v)
        out[i, 10] = math.atanh(v)
        out[i, 11] = math.exp(v)
        out[i, 12] = math.expm1(v)
        out[i, 13] = math.log(v)
        out[i, 14] = math.log2(v)
        out[i, 15] = math.log10(v)
        out[i, 16] = math.log1p(v)
        out[i, 17] = math.sqrt(v)
        out[i, 18] = math.fabs(v)
        out[i, 19] = math.erf(v)
        out[i, 20] = math.erfc(v)
        out[i, 21] = math.gamma(v)
        out[i, 22] = math.lgamma(v)
        out[i, 23] = math.floor(v)
        out[i, 24] = math.ceil(v)
        out[i, 25] = math.trunc(v)
        out[i, 26] = math.degrees(v)
        out[i, 27] = math.radians(v)
        out[i, 28] = math.exp2(v)


def test_unary_math_float64(backend, rng):
    x = rng.uniform(0.05, 0.95, 64)
    out = np.zeros((64, len(UNARY)))
    unary_math[1, 64](x, out)
    for k, name in enumerate(UNARY):
        ref = [getattr(math, name)(float(v)) if name != "exp2" else 2.0 ** float(v) for v in x]
        np.testing.assert_allclose(out[:, k], ref, rtol=1e-13, err_msg=name)


def test_unary_math_float32(backend, rng):
    x = rng.uniform(0.05, 0.95, 64).astype(np.float32)
    out = np.zeros((64, len(UNARY)), np.float32)
    unary_math[1, 64](x, out)
    for k, name in enumerate(UNARY):
        ref = [getattr(math, name)(float(v)) if name != "exp2" else 2.0 ** float(v) for v in x]
        np.testing.assert_allclose(out[:, k], ref, rtol=2e-6, atol=1e-6, err_msg=name)


@cuda.jit
def binary_math(x, y, out, flags, ints):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        b = y[i]
        out[i, 0] = math.atan2(a, b)
        out[i, 1] = math.hypot(a, b)
        out[i, 2] = math.copysign(a, b)
        out[i, 3] = math.fmod(a, b)
        out[i, 4] = math.pow(a, 2.0)
        out[i, 5] = math.ldexp(a, 3)
        m, e = math.frexp(a)
        out[i, 6] = m
        ints[i] = e
        f, w = math.modf(a)
        out[i, 7] = f + 10 * w
        out[i, 8] = math.remainder(a, b)
        out[i, 9] = math.pi * a + math.e
        flags[i, 0] = math.isnan(a / b if b != 0 else math.nan)
        flags[i, 1] = math.isinf(a * 1e308 * 10)
        flags[i, 2] = math.isfinite(a)


def test_binary_math(backend, rng):
    x = rng.normal(0, 5, 50)
    y = rng.normal(0, 2, 50)
    y[0] = 0.0
    out = np.zeros((50, 10))
    flags = np.zeros((50, 3), np.bool_)
    ints = np.zeros(50, np.int32)
    binary_math[1, 64](x, y, out, flags, ints)
    for k, (a, b) in enumerate(zip(x.tolist(), y.tolist())):
        m, e = math.frexp(a)
        f, w = math.modf(a)
        ref = [math.atan2(a, b), math.hypot(a, b), math.copysign(a, b), math.fmod(a, b) if b else out[k, 3],
               a ** 2.0, math.ldexp(a, 3), m, f + 10 * w, math.remainder(a, b) if b else out[k, 8],
               math.pi * a + math.e]
        np.testing.assert_allclose(out[k], ref, rtol=1e-14)
        assert ints[k] == e
        assert list(flags[k]) == [b == 0, a != 0, True]


@cuda.jit
def complex_math(z, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i, 0] = cmath.exp(z[i])
        out[i, 1] = cmath.log(z[i])
        out[i, 2] = cmath.sqrt(z[i])
        out[i, 3] = cmath.sin(z[i])
        out[i, 4] = cmath.cosh(z[i])
        out[i, 5] = cmath.phase(z[i])
        r, phi = cmath.polar(z[i])
        out[i, 6] = cmath.rect(r, phi)
        out[i, 7] = abs(z[i])


def test_cmath(backend, rng):
    z = rng.normal(size=30) + 1j * rng.normal(size=30)
    out = np.zeros((30, 8), np.complex128)
    complex_math[1, 32](z, out)
    for k, v in enumerate(z.tolist()):
        ref = [cmath.exp(v), cmath.log(v), cmath.sqrt(v), cmath.sin(v), cmath.cosh(v), cmath.phase(v), v, abs(v)]
        np.testing.assert_allclose(out[k], ref, rtol=1e-13)


@cuda.jit
def complex_log_base(z, w, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i] = cmath.log(z[i], w[i])


def test_cmath_log_with_a_base(backend, rng):
    """cmath.log(z, base) is Numba's log(z) / log(base), in the arguments' precision."""
    z = rng.normal(size=40) + 1j * rng.normal(size=40)
    w = rng.uniform(0.5, 5, size=40) + 1j * rng.normal(size=40)
    for dtype, rtol in ((np.complex128, 1e-13), (np.complex64, 1e-5)):
        out = np.zeros(40, dtype)
        complex_log_base[1, 64](z.astype(dtype), w.astype(dtype), out)
        ref = [cmath.log(a, b) for a, b in zip(z.astype(dtype).tolist(), w.astype(dtype).tolist())]
        np.testing.assert_allclose(out, ref, rtol=rtol)


@cuda.jit
def polar_spread(z, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i] = complex(*cmath.polar(z[i]))


def test_complex_of_a_spread_tuple(backend, rng):
    z = rng.normal(size=30) + 1j * rng.normal(size=30)
    out = np.zeros(30, np.complex128)
    polar_spread[1, 32](z, out)
    np.testing.assert_allclose(out, [complex(*cmath.polar(v)) for v in z.tolist()], rtol=1e-15)


@cuda.jit
def int_args_to_math(n, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = math.sqrt(n[i]) + math.floor(n[i])      # ints go through float64 (Numba's typing)


def test_math_on_integers(backend):
    n = np.array([1, 4, 10, 1000000007], np.int64)
    out = np.zeros(4)
    int_args_to_math[1, 4](n, out)
    np.testing.assert_array_equal(out, np.sqrt(n.astype(np.float64)) + n)


@cuda.jit
def complex_pow(z, w, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i, 0] = z[i] ** w[i]
        out[i, 1] = pow(z[i], w[i])
        out[i, 2] = z[i] ** 3                          # int exponent: complex ** complex (Numba's typing)
        out[i, 3] = z[i] ** 0.5
        acc = z[i]
        acc **= w[i]
        out[i, 4] = acc


def _numba_cpow(a, b):
    """numba-cuda's complex power (its translation of CPython's _Py_c_pow, no integer shortcut)."""
    if b == 0:
        return 1 + 0j
    if a.real == 0 and b.real == 0:
        return 0j
    vabs = math.hypot(a.real, a.imag)
    length = vabs ** b.real
    at = math.atan2(a.imag, a.real)
    phase = at * b.real
    if b.imag != 0:
        length /= math.exp(at * b.imag)
        phase += b.imag * math.log(vabs)
    return complex(length * math.cos(phase), length * math.sin(phase))


@pytest.mark.parametrize("dtype,rtol", [(np.complex128, 1e-13), (np.complex64, 2e-5)])
def test_complex_power(backend, rng, dtype, rtol):
    n = 40
    z = (rng.normal(size=n) + 1j * rng.normal(size=n)).astype(dtype)
    w = (rng.normal(size=n) + 1j * rng.normal(size=n)).astype(dtype)
    w[:3] = [0, 2, -1.5]                              # w == 0 gives 1; real exponents
    z[3], w[3] = 0, 2.5                               # 0 ** w with Re w > 0
    out = np.zeros((n, 5), dtype)
    complex_pow[1, 64](z, w, out)
    for k in range(n):
        a, b = complex(z[k]), complex(w[k])
        ref = [_numba_cpow(a, b), _numba_cpow(a, b), _numba_cpow(a, 3), _numba_cpow(a, 0.5), _numba_cpow(a, b)]
        if a != 0:
            # and the formula is Python's power, up to rounding
            np.testing.assert_allclose(ref[0], a ** b, rtol=1e-12)
        np.testing.assert_allclose(out[k], np.array(ref, dtype), rtol=rtol, atol=rtol * 1e-3, err_msg=str(k))


CMATH_ALL = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "log", "log10", "sin", "sinh",
             "sqrt", "tan", "tanh"]


@cuda.jit
def cmath_all(z, out, flags):
    i = cuda.grid(1)
    if i < z.size:
        v = z[i]
        out[i, 0] = cmath.acos(v)
        out[i, 1] = cmath.acosh(v)
        out[i, 2] = cmath.asin(v)
        out[i, 3] = cmath.asinh(v)
        out[i, 4] = cmath.atan(v)
        out[i, 5] = cmath.atanh(v)
        out[i, 6] = cmath.cos(v)
        out[i, 7] = cmath.cosh(v)
        out[i, 8] = cmath.exp(v)
        out[i, 9] = cmath.log(v)
        out[i, 10] = cmath.log10(v)
        out[i, 11] = cmath.sin(v)
        out[i, 12] = cmath.sinh(v)
        out[i, 13] = cmath.sqrt(v)
        out[i, 14] = cmath.tan(v)
        out[i, 15] = cmath.tanh(v)
        flags[i, 0] = cmath.isnan(v)
        flags[i, 1] = cmath.isinf(v)
        flags[i, 2] = cmath.isfinite(v)


@pytest.mark.parametrize("dtype,rtol", [(np.complex128, 1e-12), (np.complex64, 1e-5)])
def test_every_cmath_function(backend, rng, dtype, rtol):
    n = 48
    z = (rng.normal(0, 2, n) + 1j * rng.normal(0, 2, n)).astype(dtype)
    z[-3:] = [complex(np.nan, 1), complex(np.inf, 0), complex(1, -np.inf)]
    out = np.zeros((n, len(CMATH_ALL)), dtype)
    flags = np.zeros((n, 3), np.bool_)
    cmath_all[1, 64](z, out, flags)
    for k in range(n - 3):
        v = complex(z[k])
        ref = np.array([getattr(cmath, f)(v) for f in CMATH_ALL], np.complex128)
        np.testing.assert_allclose(out[k], ref, rtol=rtol, atol=rtol * 1e-2, err_msg=f"z = {v}")
    for k in range(n):
        v = complex(z[k])
        assert list(flags[k]) == [cmath.isnan(v), cmath.isinf(v), cmath.isfinite(v)]

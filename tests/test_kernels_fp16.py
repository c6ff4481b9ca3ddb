"""float16 in kernels: arrays and scalars of NumPy's float16, arithmetic that stays in half precision (each
operation rounded once, as NumPy's), NumPy's result types when mixed, math functions and cuda.fp16.*."""
import math

import numpy as np
import pytest

from cudajit import cuda, float16


@cuda.jit
def half_ops(a, b, out, wide, flags):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = x * y
        out[i, 3] = x / y
        out[i, 4] = -x
        out[i, 5] = abs(x)
        out[i, 6] = math.sqrt(abs(x))
        out[i, 7] = math.exp(x)
        out[i, 8] = cuda.fp16.hfma(x, y, x)
        out[i, 9] = cuda.fp16.hmax(x, y)
        out[i, 10] = cuda.fp16.hmin(x, y)
        out[i, 11] = cuda.fp16.hadd(x, y)
        out[i, 12] = x * np.int8(3)               # float16 op int8 stays float16 (NumPy)
        wide[i, 0] = x * np.float32(1.1)          # float16 op float32 is float32
        wide[i, 1] = x * np.int16(3)              # float16 op int16 is float32
        wide[i, 2] = x + np.int32(3)              # float16 op int32 is float64
        flags[i, 0] = x < y
        flags[i, 1] = cuda.fp16.heq(x, x)
        flags[i, 2] = math.isnan(x)


def test_half_arithmetic_matches_numpy(backend, rng):
    n = 200
    a = (rng.standard_normal(n) * 4).astype(np.float16)
    b = (rng.standard_normal(n) * 4).astype(np.float16)
    b[b == 0] = np.float16(0.5)
    a[-1] = np.nan
    out = np.zeros((n, 13), np.float16)
    wide = np.zeros((n, 3))
    flags = np.zeros((n, 3), np.bool_)
    half_ops[1, 256](a, b, out, wide, flags)
    with np.errstate(all="ignore"):
        ref = [a + b, a - b, a * b, a / b, -a, np.abs(a), np.sqrt(np.abs(a)), None,
               (a.astype(np.float64) * b + a).astype(np.float16), np.fmax(a, b), np.fmin(a, b), a + b,
               a * np.int8(3)]
        for k, r in enumerate(ref):
            if r is not None:
                np.testing.assert_array_equal(out[:, k], r, err_msg=f"column {k}")
        # exp in half: the float32 result rounded to half (within an ulp of NumPy's float16 exp)
        np.testing.assert_allclose(out[:-1, 7].astype(np.float64), np.exp(a[:-1].astype(np.float64)), rtol=1e-3,
                                   atol=6e-8)                    # half subnormals are spaced 6e-8 apart
        np.testing.assert_array_equal(wide[:, 0], (a * np.float32(1.1)).astype(np.float64))
        np.testing.assert_array_equal(wide[:, 1], (a * np.int16(3)).astype(np.float64))
        np.testing.assert_array_equal(wide[:, 2], a.astype(np.float64) + 3)
    np.testing.assert_array_equal(flags[:, 0], a < b)
    np.testing.assert_array_equal(flags[:, 1], a == a)
    np.testing.assert_array_equal(flags[:, 2], np.isnan(a))


@cuda.jit
def scale_half(a, s, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * s + float16(0.25)


def test_half_scalar_argument_and_typing(backend, rng):
    a = rng.standard_normal(50).astype(np.float16)
    out = np.zeros(50, np.float16)
    scale_half[1, 64](a, np.float16(1.5), out)
    np.testing.assert_array_equal(out, a * np.float16(1.5) + np.float16(0.25))
    assert "float16" in str(scale_half.signatures[0])

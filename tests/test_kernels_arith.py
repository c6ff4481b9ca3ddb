"""Arithmetic in kernels: Python's semantics under Numba's typing, bit for bit for integers."""
import math

import numpy as np
import pytest

from cudajit import cuda, float32, float64, int32, int64, uint32


@cuda.jit
def int_ops(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x + y              # int32 + int32 -> int64: no wraparound
        out[i, 1] = x - y
        out[i, 2] = x * y
        out[i, 3] = x // y             # Python's floor division
        out[i, 4] = x % y              # sign of the divisor
        out[i, 5] = x & y
        out[i, 6] = x | y
        out[i, 7] = x ^ y
        out[i, 8] = -x
        out[i, 9] = ~x
        out[i, 10] = abs(x)
        out[i, 11] = min(x, y)
        out[i, 12] = max(x, y)
        out[i, 13] = x << 3
        out[i, 14] = x >> 2
        out[i, 15] = (x * 7) ** 2


def _py_int_ops(x, y):
    return [x + y, x - y, x * y, x // y, x % y, x & y, x | y, x ^ y, -x, ~x, abs(x), min(x, y), max(x, y),
            x << 3, x >> 2, (x * 7) ** 2]


def test_int32_ops_match_python(backend, rng):
    a = rng.integers(-2**31, 2**31, 500).astype(np.int32)
    b = rng.integers(-1000, 1000, 500).astype(np.int32)
    b[b == 0] = 7
    a[:4] = [2**31 - 1, -2**31, -7, 7]
    b[:4] = [2**31 - 1 if False else 3, -1, 2, -2]
    out = np.zeros((500, 16), np.int64)
    int_ops[4, 128](a, b, out)
    expect = np.array([_py_int_ops(int(x), int(y)) for x, y in zip(a, b)], dtype=object)
    # (x*7)**2 wraps in int64 for large x, as Numba computes it
    expect[:, 15] = [((int(x) * 7) ** 2 + 2**63) % 2**64 - 2**63 for x in a]
    # abs() of an int32 stays int32 (Numba), so abs(-2**31) wraps to -2**31
    expect[:, 10] = [-2**31 if x == 2**31 else x for x in expect[:, 10]]
    # and -x negates in int32 before widening to int64 (numba-cuda's int_negate), so -(-2**31) is -2**31
    expect[:, 8] = [-2**31 if x == 2**31 else x for x in expect[:, 8]]
    np.testing.assert_array_equal(out, expect.astype(np.int64))


@cuda.jit
def div_by_zero(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] // 0
        out[i, 1] = a[i] % 0


def test_integer_division_by_zero_gives_zero(backend):
    # Numba's CUDA target does not raise: integer // 0 and % 0 give 0
    a = np.array([5, -5, 0], np.int64)
    out = np.ones((3, 2), np.int64)
    div_by_zero[1, 3](a, out)
    np.testing.assert_array_equal(out, 0)


@cuda.jit
def float_ops(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x // y
        out[i, 1] = x % y
        out[i, 2] = x / y
        out[i, 3] = x ** 2
        out[i, 4] = x ** y
        out[i, 5] = -x
        out[i, 6] = abs(x)
        out[i, 7] = min(x, y)
        out[i, 8] = max(x, y)


def test_float64_ops_match_python(backend, rng):
    a = rng.normal(0, 10, 300)
    b = rng.normal(0, 3, 300)
    a[:4] = [7.5, -7.5, 7.5, -7.5]
    b[:4] = [2.0, 2.0, -2.0, -2.0]
    out = np.zeros((300, 9))
    float_ops[3, 128](a, b, out)
    for row, x, y in zip(out, a, b):
        x, y = float(x), float(y)
        pw = abs(x) ** y if x < 0 else x ** y
        ref = [x // y, x % y, x / y, x ** 2, pw if x >= 0 else math.nan, -x, abs(x), min(x, y), max(x, y)]
        if x < 0:
            ref[4] = row[4]                       # negative ** fractional is nan in C (and in Numba)
            assert math.isnan(row[4]) or y == int(y)
        np.testing.assert_allclose(row, ref, rtol=1e-15, atol=0)


@cuda.jit
def int_true_div(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] / b[i]


def test_int_true_division_is_float64(backend):
    a = np.array([7, -7, 1, 2**40], np.int64)
    b = np.array([2, 2, 3, 3], np.int64)
    out = np.zeros(4)
    int_true_div[1, 4](a, b, out)
    np.testing.assert_array_equal(out, a / b)


@cuda.jit
def f32_typing(a, out32, out64):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        out64[i, 0] = x + 1          # float32 + int literal -> float64
        out64[i, 1] = x * 0.1        # float32 * float64 literal -> float64
        out32[i, 0] = x * x          # float32 * float32 stays float32
        out64[i, 2] = x * x
        y = float32(0.1)
        out32[i, 1] = x * y


def test_float32_promotion_rules(backend, rng):
    a = rng.random(64).astype(np.float32)
    out32 = np.zeros((64, 2), np.float32)
    out64 = np.zeros((64, 3), np.float64)
    f32_typing[1, 64](a, out32, out64)
    a64 = a.astype(np.float64)
    np.testing.assert_array_equal(out64[:, 0], a64 + 1)
    np.testing.assert_array_equal(out64[:, 1], a64 * 0.1)
    np.testing.assert_array_equal(out32[:, 0], a * a)
    np.testing.assert_array_equal(out64[:, 2], (a * a).astype(np.float64))   # rounded to float32 first
    np.testing.assert_array_equal(out32[:, 1], a * np.float32(0.1))


@cuda.jit
def unsigned_ops(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] + b[i]       # uint32 + uint32 -> uint64
        out[i, 1] = a[i] - b[i]       # wraps in uint64
        out[i, 2] = -a[i]             # negated in uint32, then widened
        out[i, 3] = ~a[i]
        out[i, 4] = a[i] >> 3


def test_unsigned_ops(backend, rng):
    a = rng.integers(0, 2**32, 100, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, 100, dtype=np.uint64).astype(np.uint32)
    out = np.zeros((100, 5), np.uint64)
    unsigned_ops[1, 100](a, b, out)
    a64, b64 = a.astype(np.uint64), b.astype(np.uint64)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out[:, 0], a64 + b64)
        np.testing.assert_array_equal(out[:, 1], a64 - b64)
        # unary - and ~ work in uint32 and then widen (numba-cuda's int_negate/int_invert)
        np.testing.assert_array_equal(out[:, 2], (np.uint32(0) - a).astype(np.uint64))
        np.testing.assert_array_equal(out[:, 3], (~a).astype(np.uint64))
        np.testing.assert_array_equal(out[:, 4], a64 >> np.uint64(3))


@cuda.jit
def shifts(a, n, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] << n[i]
        out[i, 1] = a[i] >> n[i]


def test_shift_by_width_or_more(backend):
    a = np.array([1, -8, 5, -1], np.int64)
    n = np.array([64, 70, 1, 63], np.int64)
    out = np.zeros((4, 2), np.int64)
    shifts[1, 4](a, n, out)
    np.testing.assert_array_equal(out[:, 0], [0, 0, 10, -2**63])
    np.testing.assert_array_equal(out[:, 1], [0, -1, 2, -1])


@cuda.jit
def casts_and_rounding(a, out_i, out_f, out_b):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        out_i[i, 0] = int(x)               # truncation toward zero
        out_i[i, 1] = round(x)             # half to even
        out_i[i, 2] = int32(x)
        out_i[i, 3] = math.floor(x)
        out_i[i, 4] = math.ceil(x)
        out_f[i, 0] = round(x, 1)
        out_f[i, 1] = float(int(x))
        out_f[i, 2] = float32(x)
        out_b[i, 0] = bool(x)
        out_b[i, 1] = not x
        out_b[i, 2] = x > 0.5 and x < 2.5


def test_casts_and_rounding(backend):
    a = np.array([0.5, 1.5, 2.5, -0.5, -1.7, 3.14159, 0.0, 2.675])
    out_i = np.zeros((a.size, 5), np.int64)
    out_f = np.zeros((a.size, 3))
    out_b = np.zeros((a.size, 3), np.bool_)
    casts_and_rounding[1, 32](a, out_i, out_f, out_b)
    for k, x in enumerate(a):
        assert list(out_i[k]) == [int(x), round(x), int(x), math.floor(x), math.ceil(x)]
        assert out_f[k, 1] == float(int(x))
        assert out_f[k, 2] == np.float32(x)
        assert list(out_b[k]) == [bool(x), not x, 0.5 < x < 2.5]
    np.testing.assert_allclose(out_f[:, 0], [round(x, 1) for x in a], rtol=0, atol=1e-12)


@cuda.jit
def bool_ops_values(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] or b[i]        # Python: the first truthy operand
        out[i, 1] = a[i] and b[i]
        out[i, 2] = a[i] if a[i] > b[i] else b[i]
        out[i, 3] = 1 if 0 < a[i] < b[i] else 0     # chained comparison


def test_and_or_return_operands(backend):
    a = np.array([0, 3, 0, -2, 1], np.int64)
    b = np.array([5, 4, 0, 7, 1], np.int64)
    out = np.zeros((5, 4), np.int64)
    bool_ops_values[1, 5](a, b, out)
    for k, (x, y) in enumerate(zip(a.tolist(), b.tolist())):
        assert list(out[k]) == [x or y, x and y, x if x > y else y, 1 if 0 < x < y else 0]


@cuda.jit
def complex_ops(z, w, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i, 0] = z[i] + w[i]
        out[i, 1] = z[i] * w[i]
        out[i, 2] = z[i] / w[i]
        out[i, 3] = z[i].conjugate()
        out[i, 4] = complex(z[i].real, -w[i].imag)
        out[i, 5] = abs(z[i])
        out[i, 6] = z[i] * 2.0


def test_complex_arithmetic(backend, rng):
    z = (rng.normal(size=50) + 1j * rng.normal(size=50))
    w = (rng.normal(size=50) + 1j * rng.normal(size=50))
    out = np.zeros((50, 7), np.complex128)
    complex_ops[1, 64](z, w, out)
    np.testing.assert_allclose(out[:, 0], z + w, rtol=1e-15)
    np.testing.assert_allclose(out[:, 1], z * w, rtol=1e-15)
    np.testing.assert_allclose(out[:, 2], z / w, rtol=1e-14)
    np.testing.assert_allclose(out[:, 3], z.conj(), rtol=0)
    np.testing.assert_allclose(out[:, 4], z.real - 1j * w.imag, rtol=0)
    np.testing.assert_allclose(out[:, 5], np.abs(z), rtol=1e-15)
    np.testing.assert_allclose(out[:, 6], z * 2, rtol=0)


@cuda.jit
def scalar_args(out, n, x, flag, u):
    i = cuda.grid(1)
    if i < out.size:
        if flag:
            out[i] = n * i + x + u
        else:
            out[i] = -1.0


def test_scalar_arguments_python_and_numpy(backend):
    out = np.zeros(8)
    scalar_args[1, 8](out, 3, 0.5, True, np.uint32(2))
    np.testing.assert_array_equal(out, 3 * np.arange(8) + 0.5 + 2)
    scalar_args[1, 8](out, np.int32(3), np.float32(0.5), False, np.uint32(2))
    np.testing.assert_array_equal(out, -1.0)


@cuda.jit
def mixed_int_float(a, out):
    i = cuda.grid(1)
    if i < a.size:
        acc = 0                 # int literal ...
        for k in range(3):
            acc += a[i] * k     # ... unified with float32 * int -> float64
        out[i] = acc


def test_accumulator_unified_to_float64(backend, rng):
    a = rng.random(16).astype(np.float32)
    out = np.zeros(16)
    mixed_int_float[1, 16](a, out)
    expect = np.zeros(16)
    for k in range(3):
        expect += a.astype(np.float64) * k
    np.testing.assert_array_equal(out, expect)


@cuda.jit
def min_max_nan(a, b, c, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = max(a[i], b[i])                   # two floats: fmax, as numba-cuda (a NaN is ignored)
        out[i, 1] = min(a[i], b[i])
        out[i, 2] = max(a[i], b[i], c[i])             # three operands: Python's comparisons
        out[i, 3] = min(a[i], b[i], c[i])
        out[i, 4] = max(a[i], np.float32(c[i]))       # float64 and float32: fmax in float64
        out[i, 5] = max(i, a[i])                      # int and float: Python's comparison


def _py_max(*xs):
    m = xs[0]
    for x in xs[1:]:
        m = x if x > m else m
    return m


def _py_min(*xs):
    m = xs[0]
    for x in xs[1:]:
        m = x if x < m else m
    return m


def test_min_max_with_nan_follow_numba_cuda(backend, rng):
    n = 64
    a, b, c = rng.normal(size=(3, n))
    a[::5] = np.nan
    b[::7] = np.nan
    c[::3] = np.nan
    out = np.zeros((n, 6))
    min_max_nan[1, 64](a, b, c, out)
    np.testing.assert_array_equal(out[:, 0], np.fmax(a, b))
    np.testing.assert_array_equal(out[:, 1], np.fmin(a, b))
    np.testing.assert_array_equal(out[:, 2], [_py_max(*t) for t in zip(a, b, c)])
    np.testing.assert_array_equal(out[:, 3], [_py_min(*t) for t in zip(a, b, c)])
    np.testing.assert_array_equal(out[:, 4], np.fmax(a, c.astype(np.float32).astype(np.float64)))
    np.testing.assert_array_equal(out[:, 5], [_py_max(float(i), x) for i, x in enumerate(a)])

"""Functions and types as values: device functions, intrinsics (``cuda.atomic.add``, ``math.sqrt``), ``operator``
functions and type objects passed to device functions, and held in globals and closures. Each distinct value
specialises the callee at compile time, as Numba's Dispatcher/Function/NumberClass arguments do."""
import math
import operator

import numpy as np
import pytest

from cudajit import cuda, float32, float64, int32, uint32
from cudajit.errors import TypingError


@cuda.jit(device=True)
def apply2(op, a, b):
    return op(a, b)


@cuda.jit(device=True)
def apply1(fn, x):
    return fn(x)


@cuda.jit(device=True)
def cast(t, x):
    return t(x)


@cuda.jit(device=True)
def square(x):
    return x * x


@cuda.jit(device=True)
def accumulate(update, arr, i, v):
    return update(arr, i, v)


@cuda.jit(device=True)
def twice(fn, x):
    return apply1(fn, apply1(fn, x))          # a function value passed on to another device function


def _rng():
    return np.random.default_rng(12)


def test_operator_functions_specialise_the_callee(backend):
    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[0, i] = apply2(operator.mul, a[i], b[i])
            out[1, i] = apply2(operator.add, a[i], b[i])
            out[2, i] = apply2(operator.sub, a[i], b[i])
            out[3, i] = apply2(max, a[i], b[i])
            out[4, i] = apply2(operator.truediv, a[i], b[i])

    a, b = _rng().uniform(1, 2, (2, 300))
    out = np.zeros((5, 300))
    k[3, 128](a, b, out)
    np.testing.assert_allclose(out, [a * b, a + b, a - b, np.maximum(a, b), a / b], rtol=1e-15)


def test_math_functions_and_device_functions_as_values(backend):
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[0, i] = apply1(math.sqrt, x[i])
            out[1, i] = apply1(square, x[i])
            out[2, i] = twice(math.exp, x[i])
            out[3, i] = twice(square, x[i])

    x = _rng().uniform(0, 1, 257)
    out = np.zeros((4, 257))
    k[3, 128](x, out)
    np.testing.assert_allclose(out, [np.sqrt(x), x * x, np.exp(np.exp(x)), x ** 4], rtol=1e-14)


def test_atomic_passed_to_a_device_function(backend):
    @cuda.jit
    def k(bins, keys, olds):
        i = cuda.grid(1)
        if i < keys.size:
            olds[i] = accumulate(cuda.atomic.add, bins, keys[i], 1)
            accumulate(cuda.atomic.max, bins, 16, keys[i])

    keys = _rng().integers(0, 16, 1000).astype(np.int32)
    bins = np.zeros(17, np.int32)
    olds = np.zeros(1000, np.int32)
    k[8, 128](bins, keys, olds)
    np.testing.assert_array_equal(bins[:16], np.bincount(keys, minlength=16))
    assert bins[16] == keys.max()
    for key in range(16):          # the old values of one bin are 0..count-1, in some order
        np.testing.assert_array_equal(np.sort(olds[keys == key]), np.arange((keys == key).sum()))


def test_types_as_values_convert(backend):
    @cuda.jit
    def k(x, u, f, i32):
        i = cuda.grid(1)
        if i < x.size:
            u[i] = cast(uint32, x[i])
            f[i] = cast(float32, x[i])
            i32[i] = cast(int32, x[i])

    x = _rng().uniform(-1000, 1000, 200)
    x[x < 0] = np.floor(x[x < 0])
    u, f, i32 = np.zeros(200, np.uint32), np.zeros(200, np.float32), np.zeros(200, np.int32)
    k[2, 128](x, u, f, i32)
    np.testing.assert_array_equal(f, x.astype(np.float32))
    np.testing.assert_array_equal(i32, x.astype(np.int32))
    pos = x >= 0
    np.testing.assert_array_equal(u[pos], x[pos].astype(np.uint32))


def test_type_value_decides_the_return_type():
    from cudajit.compiler import compile_kernel, types as T

    def k(out, x):
        out[0] = cast(float64, x) / 3
        out[1] = cast(uint32, x) / 3

    ks = compile_kernel(k, (T.float64[:], T.int64))
    # Two specialisations of cast, one per type value, neither taking a parameter for it.
    assert ks.source.count("cj_dev_cast") >= 4
    assert "double cj_dev_cast_0(int64_t" in ks.source and "uint32_t cj_dev_cast_0_1(int64_t" in ks.source



def test_local_variables_hold_types_and_functions(backend):
    """``dt = a.dtype; dt.type(0.5)`` (the array's scalar type, Numba's NumberClass) and ``f = math.sqrt``: a
    local holding a type or function is compile-time, so the arithmetic keeps the array's precision."""
    @cuda.jit
    def k(a, out):
        dt = a.dtype
        half = dt.type(0.5)
        root = math.sqrt
        i = cuda.grid(1)
        if i < a.size:
            out[i] = root(a[i]) * half + apply1(root, a[i])

    a = _rng().uniform(0, 10, 300)
    for dtype in (np.float32, np.float64):
        x = a.astype(dtype)
        out = np.zeros_like(x)
        k[3, 128](x, out)
        ref = np.sqrt(x) * dtype(0.5) + np.sqrt(x)
        assert ref.dtype == dtype
        np.testing.assert_allclose(out, ref, rtol=1e-6 if dtype == np.float32 else 1e-13)


def test_local_type_on_two_paths_must_agree(backend):
    @cuda.jit
    def k(a, flag):
        t = float32
        if flag:
            t = int32
        a[0] = t(a[0])

    with pytest.raises(TypingError, match="variable 't'"):
        k[1, 1](np.ones(1), 1)

OP = operator.mul
CONVERT = float32


def _make_kernel(op):
    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = op(CONVERT(a[i]), CONVERT(b[i])) + apply2(OP, a[i], b[i])
    return k


def test_functions_in_globals_and_closures(backend):
    a, b = _rng().uniform(1, 2, (2, 100)).astype(np.float32)
    for op, ref in ((operator.add, np.add), (operator.sub, np.subtract), (min, np.minimum)):
        out = np.zeros(100, np.float32)
        _make_kernel(op)[1, 128](a, b, out)
        np.testing.assert_allclose(out, ref(a, b) + a * b, rtol=1e-6)


def test_function_parameter_cannot_be_reassigned(backend):
    @cuda.jit(device=True)
    def bad(op, x):
        op = 3
        return x

    @cuda.jit
    def k(out):
        out[0] = bad(math.sin, 1.0)

    with pytest.raises(TypingError, match="cannot assign to 'op'"):
        k[1, 1](np.zeros(1))


def test_a_module_is_not_a_value(backend):
    @cuda.jit
    def k(out):
        out[0] = apply1(math, 1.0)

    with pytest.raises(TypingError, match="'math' cannot be used as a value"):
        k[1, 1](np.zeros(1))

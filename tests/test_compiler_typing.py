"""Typing rules, checked against numba-cuda 0.30.4's own typing (each expected type below is what
numba.cuda.compile_ptx(..., device=True) reports for the same function and argument types).

Compile-only: needs no C++ core.
"""
import cmath  # noqa: F401  (used inside the lambdas)
import math  # noqa: F401

import pytest

from cudajit.compiler import compile_device, types

# (rule, function, argument types, Numba's result type)
RULES = [
    ('int32+int32 -> int64', lambda a, b: a + b, 'int32 int32', 'int64'),
    ('int64+uint64 -> int64', lambda a, b: a + b, 'int64 uint64', 'int64'),
    ('uint64+uint64', lambda a, b: a + b, 'uint64 uint64', 'uint64'),
    ('uint32+uint32 -> uint64', lambda a, b: a + b, 'uint32 uint32', 'uint64'),
    ('uint8+int8', lambda a, b: a + b, 'uint8 int8', 'int64'),
    ('uint64 + literal', lambda a: a + 1, 'uint64', 'int64'),
    ('float32+literal int -> float64', lambda a: a + 1, 'float32', 'float64'),
    ('float32*float32', lambda a, b: a * b, 'float32 float32', 'float32'),
    ('float32+int8 -> float32', lambda a, b: a + b, 'float32 int8', 'float32'),
    ('float32+int32 -> float64', lambda a, b: a + b, 'float32 int32', 'float64'),
    ('float32+float literal', lambda a: a + 1.0, 'float32', 'float64'),
    ('int/int -> float64', lambda a, b: a / b, 'int32 int32', 'float64'),
    ('float32/float32', lambda a, b: a / b, 'float32 float32', 'float32'),
    ('int//int', lambda a, b: a // b, 'int32 int32', 'int64'),
    ('int%int', lambda a, b: a % b, 'int16 int16', 'int64'),
    ('float32//float32', lambda a, b: a // b, 'float32 float32', 'float32'),
    ('float32%int32', lambda a, b: a % b, 'float32 int32', 'float64'),
    ('int**int', lambda a, b: a ** b, 'int32 int32', 'int64'),
    ('int**negative literal', lambda a: a ** -2, 'int64', 'int64'),
    ('float32**2', lambda a: a ** 2, 'float32', 'float32'),
    ('float32**int64', lambda a, b: a ** b, 'float32 int64', 'float32'),
    ('float32**float64', lambda a, b: a ** b, 'float32 float64', 'float64'),
    ('int32<<int32', lambda a, b: a << b, 'int32 int32', 'int64'),
    ('uint32>>literal', lambda a: a >> 1, 'uint32', 'uint64'),
    ('int8&int8', lambda a, b: a & b, 'int8 int8', 'int64'),
    ('bool&bool', lambda a, b: a & b, 'boolean boolean', 'bool'),
    ('bool+bool', lambda a, b: a + b, 'boolean boolean', 'int64'),
    ('-uint32', lambda a: -a, 'uint32', 'uint64'),
    ('-bool', lambda a: -a, 'boolean', 'int64'),
    ('~uint8', lambda a: ~a, 'uint8', 'uint64'),
    ('~bool', lambda a: ~a, 'boolean', 'bool'),
    ('+int8', lambda a: +a, 'int8', 'int64'),
    ('not float', lambda a: not a, 'float32', 'bool'),
    ('compare int32 uint64', lambda a, b: a < b, 'int32 uint64', 'bool'),
    ('abs int32 keeps', lambda a: abs(a), 'int32', 'int32'),
    ('abs int8 keeps', lambda a: abs(a), 'int8', 'int8'),
    ('abs complex64', lambda a: abs(a), 'complex64', 'float32'),
    ('round float32 -> int64', lambda a: round(a), 'float32', 'int64'),
    ('round(x, n) float32', lambda a: round(a, 2), 'float32', 'float32'),
    ('round int32', lambda a: round(a), 'int32', 'int64'),
    ('min int32 int64', lambda a, b: min(a, b), 'int32 int64', 'int64'),
    ('max int32 uint64 -> float64', lambda a, b: max(a, b), 'int32 uint64', 'float64'),
    ('min of 3 mixed', lambda a, b, c: min(a, b, c), 'int32 int32 float32', 'float64'),
    ('int32 and float32', lambda a, b: a and b, 'int32 float32', 'float64'),
    ('int32 or int32', lambda a, b: a or b, 'int32 int32', 'int32'),
    ('int(float32)', lambda a: int(a), 'float32', 'int64'),
    ('float(int32)', lambda a: float(a), 'int32', 'float64'),
    ('float(float32) keeps float32', lambda a: float(a), 'float32', 'float32'),     # numba-cuda's Float template
    ('int(int32) keeps int32', lambda a: int(a), 'int32', 'int32'),                 # and its Int template
    ('int(uint8) keeps uint8', lambda a: int(a), 'uint8', 'uint8'),
    ('int(bool)', lambda a: int(a), 'boolean', 'int64'),
    ('bool(float32)', lambda a: bool(a), 'float32', 'bool'),
    ('complex(f32, f32)', lambda a, b: complex(a, b), 'float32 float32', 'complex64'),
    ('complex64 * float32', lambda a, b: a * b, 'complex64 float32', 'complex64'),
    ('complex64 * float64', lambda a, b: a * b, 'complex64 float64', 'complex128'),
    ('complex64.real', lambda a: a.real, 'complex64', 'float32'),
    ('complex64.conjugate()', lambda a: a.conjugate(), 'complex64', 'complex64'),
    ('math.floor float32', lambda a: math.floor(a), 'float32', 'float32'),
    ('math.floor int32', lambda a: math.floor(a), 'int32', 'float64'),
    ('math.ceil float64', lambda a: math.ceil(a), 'float64', 'float64'),
    ('math.sqrt int32', lambda a: math.sqrt(a), 'int32', 'float64'),
    ('math.sqrt float32', lambda a: math.sqrt(a), 'float32', 'float32'),
    ('math.pow float32 int32', lambda a, b: math.pow(a, b), 'float32 int32', 'float32'),
    ('math.atan2 float32 int32', lambda a, b: math.atan2(a, b), 'float32 int32', 'float64'),
    ('math.hypot float32', lambda a, b: math.hypot(a, b), 'float32 float32', 'float32'),
    ('math.fabs int32', lambda a: math.fabs(a), 'int32', 'float64'),
    ('math.copysign f32 f64', lambda a, b: math.copysign(a, b), 'float32 float64', 'float64'),
    ('math.isnan int32', lambda a: math.isnan(a), 'int32', 'bool'),
    ('math.frexp float32', lambda a: math.frexp(a), 'float32', 'Tuple(float32, int32)'),
    ('math.modf float32', lambda a: math.modf(a), 'float32', 'UniTuple(float32 x 2)'),
    ('math.ldexp', lambda a, b: math.ldexp(a, b), 'float32 int32', 'float32'),
    ('cmath.exp complex64', lambda a: cmath.exp(a), 'complex64', 'complex64'),
    ('cmath.log base complex64', lambda a, b: cmath.log(a, b), 'complex64 complex64', 'complex64'),
    ('cmath.log base complex128', lambda a, b: cmath.log(a, b), 'complex128 complex64', 'complex128'),
    ('pow(int32, literal)', lambda a: pow(a, 2), 'int32', 'int64'),
    ('ternary int32/float32', lambda a, b: a if a > 0 else b, 'int32 float32', 'float64'),
    ('ternary int32/literal', lambda a: a if a > 0 else 1, 'int32', 'int64'),
    ('tuple build', lambda a, b: (a, b), 'int32 float32', 'Tuple(int32, float32)'),
    ('uint64 // int64', lambda a, b: a // b, 'uint64 int64', 'int64'),
    ('uint64 - literal', lambda a: a - 1, 'uint64', 'int64'),
]


@pytest.mark.parametrize("rule,fn,args,expected", RULES, ids=[r[0] for r in RULES])
def test_typing_rule(rule, fn, args, expected):
    argtypes = tuple(getattr(types, a) for a in args.split())
    assert str(compile_device(fn, argtypes).return_type) == expected


# Variables follow Numba's SSA typing: definitions are unified only where control flow joins.
def ssa_sequential(a):
    x = 1
    y = x // 2
    x = 2.5
    return y


def ssa_branch(a):
    x = 1
    if a > 0:
        x = 2.5
    return x


def ssa_rebind_after_branch(a):
    x = 1
    if a > 0:
        x = 2.5
    y = x
    x = a
    return x


def loop_accumulator(a):
    s = 0
    for i in range(10):
        s += a
    return s


def loop_var_after_loop(n):
    i = 0
    for i in range(n):
        pass
    return i


def range_var(n):
    t = n
    for i in range(n):
        t = i
    return t


def range_mixed_var(n):
    t = 0
    for i in range(n, 10):
        t = i
    return t


def unify_branch(a, b):
    x = a
    if b > 0:
        x = b
    return x


def returns_unified(a):
    if a > 0:
        return 1
    return a


@pytest.mark.parametrize("fn,args,expected", [
    (ssa_sequential, "int32", "int64"),
    (ssa_branch, "int32", "float64"),
    (ssa_rebind_after_branch, "int32", "int32"),
    (loop_accumulator, "int32", "int64"),
    (loop_accumulator, "float32", "float64"),
    (loop_var_after_loop, "int32", "int64"),
    (range_var, "int32", "int32"),
    (range_var, "uint32", "uint64"),
    (range_mixed_var, "int32", "int64"),
    (unify_branch, "int32 float32", "float64"),
    (unify_branch, "int32 int64", "int64"),
    (unify_branch, "int32 uint32", "int64"),
    (unify_branch, "int32 uint64", "float64"),
    (unify_branch, "uint32 uint64", "uint64"),
    (unify_branch, "int8 uint8", "int16"),
    (unify_branch, "float32 int8", "float32"),
    (returns_unified, "int32", "int64"),
    (returns_unified, "uint64", "float64"),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_variable_typing(fn, args, expected):
    argtypes = tuple(getattr(types, a) for a in args.split())
    assert str(compile_device(fn, argtypes).return_type) == expected


def test_numba_type_attributes_and_dtypes():
    """Numba's names the programs that build signatures use: Complex.underlying_float, numpy_support.as_dtype."""
    import numpy as np
    assert types.complex64.underlying_float == types.float32 and types.complex128.underlying_float == types.float64
    for t in (types.int8, types.uint64, types.float32, types.complex128, types.boolean):
        assert types.from_dtype(types.as_dtype(t)) == t
    rec = np.dtype([("a", np.int32), ("b", np.float64)])
    assert types.as_dtype(types.from_dtype(rec)) == rec
    with pytest.raises(TypeError, match="has no NumPy dtype"):
        types.as_dtype(types.UniTuple(types.int32, 2))

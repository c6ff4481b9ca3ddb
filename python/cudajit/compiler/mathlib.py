"""math and cmath as Numba's CUDA target types them (numba-cuda's cudamath/cmathdecl tables), emitted as calls to
the runtime's ``cj::m::`` functions (mathfuncs.h). Each function is one table line."""
from . import types as T
from .registry import intrinsic, expect_args
from .typeconv import resolve
from .values import Value, cast

f32, f64, i32, i64, u64 = T.float32, T.float64, T.int32, T.int64, T.uint64
c8, c16 = T.complex64, T.complex128

UNARY = [(f64, (i64,)), (f64, (u64,)), (f32, (f32,)), (f64, (f64,))]
# numba-cuda's fp16 math: half in, half out, last as in its table (a bool ties every case and takes the first:
# math.exp(True) is float64, not float16)
UNARY_HALF = UNARY + [(T.float16, (T.float16,))]
# numba-cuda's bf16 module overloads these for bfloat16 (bfloat16 in and out); other math functions take it as float32
BF16_MATH = ("trunc", "ceil", "floor", "sqrt", "log", "log10", "cos", "sin", "tanh", "exp", "exp2")
UNARY_BF16 = [(T.bfloat16, (T.bfloat16,))]             # last: it never takes a tie from the others
BINARY_INT = [(f64, (i64, i64)), (f64, (u64, u64)), (f32, (f32, f32)), (f64, (f64, f64))]
BINARY = [(f32, (f32, f32)), (f64, (f64, f64))]
POW = BINARY + [(f32, (f32, i32)), (f64, (f64, i32))]
CLASSIFY = [(T.boolean, (i64,)), (T.boolean, (u64,)), (T.boolean, (T.float16,)), (T.boolean, (f32,)),
            (T.boolean, (f64,))]
LDEXP = [(f32, (f32, i32)), (f64, (f64, i32))]
FREXP = [(T.Tuple([f32, i32]), (f32,)), (T.Tuple([f64, i32]), (f64,))]
MODF = [(T.UniTuple(f64, 2), (f64,)), (T.UniTuple(f32, 2), (f32,))]     # numba-cuda's order: modf(True) is float64
C_UNARY = [(c8, (c8,)), (c16, (c16,))]
C_LOG = C_UNARY + [(c8, (c8, c8)), (c16, (c16, c16))]     # cmath.log(z) and cmath.log(z, base)
C_UNARY_WIDE = [(c16, (c8,)), (c16, (c16,))]     # numba-cuda: complex128 also for complex64 (float64 constants)
C_TO_REAL = [(f32, (c8,)), (f64, (c16,))]
C_CLASSIFY = [(T.boolean, (c8,)), (T.boolean, (c16,))]
C_POLAR = [(T.UniTuple(f32, 2), (c8,)), (T.UniTuple(f64, 2), (c16,))]
C_RECT = [(c8, (f32, f32)), (c16, (f64, f64))]

# Python name -> (cases, C++ function). Integer arguments of float functions are converted to the result type.
MATH = {
    **{f"math.{n}": (UNARY, n) for n in (
        "acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "degrees", "erf", "erfc", "expm1", "lgamma",
        "log1p", "radians", "sinh", "tanh", "tan", "sin", "cos", "ceil", "floor", "sqrt", "log", "log2",
        "log10", "exp", "fabs", "trunc", "exp2")},
    **{f"math.{n}": (UNARY_HALF, n) for n in (
        "sin", "cos", "ceil", "floor", "sqrt", "log", "log2", "log10", "exp", "fabs", "trunc", "exp2")},
    **{f"math.{n}": ((UNARY_HALF if n != "tanh" else UNARY) + UNARY_BF16, n) for n in BF16_MATH},
    "math.gamma": (UNARY, "tgamma"),
    "math.atan2": (BINARY_INT, "atan2"), "math.hypot": (BINARY_INT, "hypot"),
    "math.copysign": (BINARY, "copysign"), "math.fmod": (BINARY, "fmod"), "math.nextafter": (BINARY, "nextafter"),
    "math.remainder": (BINARY, "remainder"), "math.pow": (POW, "pow"),
    "math.isnan": (CLASSIFY, "isnan"), "math.isinf": (CLASSIFY, "isinf"), "math.isfinite": (CLASSIFY, "isfinite"),
    "math.ldexp": (LDEXP, "ldexp"), "math.frexp": (FREXP, "frexp_tuple"), "math.modf": (MODF, "modf_tuple"),
    **{f"cmath.{n}": (C_UNARY, n) for n in (
        "exp", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh")},
    "cmath.log": (C_LOG, "log"),
    **{f"cmath.{n}": (C_UNARY_WIDE, n) for n in ("log10", "tanh", "acosh")},
    "cmath.phase": (C_TO_REAL, "phase"),
    "cmath.isnan": (C_CLASSIFY, "isnan"), "cmath.isinf": (C_CLASSIFY, "isinf"), "cmath.isfinite": (C_CLASSIFY, "isfinite"),
    "cmath.polar": (C_POLAR, "polar_tuple"), "cmath.rect": (C_RECT, "rect"),
}
# Tuple-returning helpers live in lang.h (cj::), the rest in mathfuncs.h (cj::m::).
_LANG_HELPERS = {"frexp_tuple", "modf_tuple", "polar_tuple"}


def _math_entry(name, cases, fn):
    def impl(cx, node, args, kwargs):
        arities = [len(formal) for _, formal in cases]
        expect_args(cx, node, name, args, min(arities), max(arities))
        if any(a.type == T.undefined for a in args):
            return Value(T.undefined, "?")
        found = resolve(cases, [a.type for a in args], [a.literal for a in args])
        if found is None:
            cx.error(node, f"{name}() does not accept ({', '.join(str(a.type) for a in args)})")
        ret, formal = found
        if ret == T.boolean and T.is_int(formal[0]):     # isnan(int) and friends are constants
            value = fn == "isfinite"
            return Value(T.boolean, "true" if value else "false", const=value)
        real = ret if T.is_float(ret) else None
        conv = []
        for a, f in zip(args, formal):
            target = real if (T.is_int(f) and real is not None and fn != "ldexp") else f
            conv.append(cast(a, target).code)
        prefix = "cj::" if fn in _LANG_HELPERS else "cj::m::"
        return Value(ret, f"{prefix}{fn}({', '.join(conv)})")
    intrinsic(name)(impl)


for _name, (_cases, _fn) in MATH.items():
    _math_entry(_name, _cases, _fn)

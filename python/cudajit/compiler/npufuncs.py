"""NumPy ufuncs called inside kernels (numba-cuda's "Supported NumPy features"), as registry entries ``np.<name>``.

Typing is Numba's ufunc resolution: the first of the ufunc's own loops (``np.sin.types``) that cudajit implements
and that every argument casts to safely; so ``np.sin(int16)`` is float32 (NumPy's float16 loop is skipped, as in
Numba) and ``np.add(int32, int32)`` is int32. Each ufunc reuses an existing entry or operator (``math.sin``,
``cmath.sqrt``, ``abs``, ``+``, ``<``) on the arguments converted to the loop's types, and converts the result
to the loop's output type. Called with arrays, the output array is the last positional argument (numba-cuda
requires it): the calling thread loops over its elements, inputs broadcasting as NumPy's, and returns it.
"""
import numpy as np

from . import types as T
from .registry import intrinsic, lookup, expect_args
from .operators import binary, compare, unary
from .values import Value, cast, typed

_REAL = set("?bBhHiIlLqQfd")          # loop letters cudajit implements (float16 'e' and long double 'g' are not)
_ALL = _REAL | set("FD")


def _entry(name):
    """Another registry entry's emitter (``math.sin``): the ufunc's loop types are already applied."""
    return lambda cx, node, args: lookup(name).impl(cx, node, args, {})


def _math(fn, cfn=None):
    real, cplx = _entry(f"math.{fn}"), cfn and _entry(f"cmath.{cfn}")
    emit = (lambda cx, node, args: (cplx if isinstance(args[0].type, T.Complex) else real)(cx, node, args))
    return emit, (_ALL if cfn else _REAL)


def _operator(op):
    return (lambda cx, node, args: binary(cx, node, op, *args)), _ALL


# NumPy orders complex numbers lexicographically, a NaN part making < and <= false (its CLT/CLE macros):
# CLT(a, b), CLE(a, b), with the arguments swapped for > and >=.
_CLT = "((a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im < b.im))"
_CLE = "((a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im <= b.im))"
_COMPLEX_ORDER = {"<": _CLT, "<=": _CLE, ">": _CLT.translate(str.maketrans("ab", "ba")),
                  ">=": _CLE.translate(str.maketrans("ab", "ba"))}
_CNAN = "({0}.re != {0}.re || {0}.im != {0}.im)"


def _comparison(op):
    ordered = op in _COMPLEX_ORDER and _lambda(_COMPLEX_ORDER[op], T.boolean)

    def emit(cx, node, args):
        if ordered and isinstance(args[0].type, T.Complex):
            return ordered(cx, node, args)
        return compare(cx, node, op, *args)
    return emit, _ALL


def _extremum(real_body, complex_order, nan_of):
    """maximum/minimum (NaN first: ``nan_of`` "a") and fmax/fmin (NaN ignored: "b"); complex numbers as NumPy
    orders them: ``a`` when ``complex_order`` holds or ``nan_of`` is NaN, else ``b``."""
    real = _lambda(real_body)
    cplx = _lambda(f"({complex_order} || {_CNAN.format(nan_of)}) ? a : b")
    return (lambda cx, node, args: (cplx if isinstance(args[0].type, T.Complex) else real)(cx, node, args)), _ALL


def _unary(op):
    return (lambda cx, node, args: unary(cx, node, op, args[0])), _ALL


def _lambda(body, result=None):
    """A C++ lambda called on the arguments (each evaluated once): ``body`` uses ``a`` and ``b``; its type is
    ``result``, else the first argument's."""
    def emit(cx, node, args):
        params = ", ".join(f"{v.type.cpp} {n}" for v, n in zip(args, "ab"))
        return Value(result or args[0].type,
                     f"[]({params}) {{ return {body}; }}({', '.join(typed(v, v.type).code for v in args)})")
    return emit


def _logical(fmt):
    def emit(cx, node, args):
        return Value(T.boolean, fmt.format(*(f"cj::py_bool({v.code})" for v in args)))
    return emit, _ALL


def _log2():
    """Complex log2 is NumPy's ``log(z)`` with both parts scaled by log2(e)."""
    real, log = _entry("math.log2"), _entry("cmath.log")

    def emit(cx, node, args):
        if not isinstance(args[0].type, T.Complex):
            return real(cx, node, args)
        z = log(cx, node, args)
        scale = f"{z.type.underlying.cpp}(1.4426950408889634)"
        return Value(z.type, f"[]({z.type.cpp} a) {{ return {z.type.cpp}{{a.re * {scale}, a.im * {scale}}}; }}"
                             f"({z.code})")
    return emit, _ALL


_NAN_FIRST = "(a != a || !(b != b) && {cmp}) ? a : b"      # NumPy's maximum/minimum propagate NaN
UFUNCS = {
    **{n: _math(n, n) for n in ("sin", "cos", "tan", "sinh", "cosh", "tanh", "exp", "log", "log10", "sqrt")},
    "log2": _log2(),
    **{n: _math(n) for n in ("exp2", "expm1", "log1p", "floor", "ceil", "trunc", "fabs", "degrees",
                             "radians", "hypot", "copysign", "fmod", "nextafter")},
    "arcsin": _math("asin", "asin"), "arccos": _math("acos", "acos"), "arctan": _math("atan", "atan"),
    "arcsinh": _math("asinh", "asinh"), "arccosh": _math("acosh", "acosh"), "arctanh": _math("atanh", "atanh"),
    "arctan2": _math("atan2"), "deg2rad": _math("radians"), "rad2deg": _math("degrees"),
    "isnan": _math("isnan", "isnan"), "isinf": _math("isinf", "isinf"), "isfinite": _math("isfinite", "isfinite"),
    "add": _operator("+"), "subtract": _operator("-"), "multiply": _operator("*"), "divide": _operator("/"),
    "true_divide": _operator("/"), "floor_divide": _operator("//"), "remainder": _operator("%"),
    "mod": _operator("%"), "power": _operator("**"), "left_shift": _operator("<<"), "right_shift": _operator(">>"),
    "bitwise_and": _operator("&"), "bitwise_or": _operator("|"), "bitwise_xor": _operator("^"),
    "greater": _comparison(">"), "greater_equal": _comparison(">="), "less": _comparison("<"),
    "less_equal": _comparison("<="), "equal": _comparison("=="), "not_equal": _comparison("!="),
    "negative": _unary("-"), "positive": _unary("+"), "invert": _unary("~"), "bitwise_not": _unary("~"),
    "absolute": (_entry("abs"), _ALL), "abs": (_entry("abs"), _ALL),
    "maximum": _extremum(_NAN_FIRST.format(cmp="a >= b"), _COMPLEX_ORDER[">="], "a"),
    "minimum": _extremum(_NAN_FIRST.format(cmp="a <= b"), _COMPLEX_ORDER["<="], "a"),
    "fmax": _extremum("(b != b || a >= b) ? a : b", _COMPLEX_ORDER[">="], "b"),
    "fmin": _extremum("(b != b || a <= b) ? a : b", _COMPLEX_ORDER["<="], "b"),
    "logical_and": _logical("({} && {})"), "logical_or": _logical("({} || {})"),
    "logical_xor": _logical("({} != {})"), "logical_not": _logical("!{}"),
}


def _loops(ufunc, letters):
    """The ufunc's loops cudajit implements, in NumPy's order: [(input dtypes, output dtype)]."""
    out = []
    for sig in ufunc.types:
        ins, res = sig.split("->")
        if len(res) == 1 and set(ins + res) <= letters:
            out.append(([np.dtype(c) for c in ins], np.dtype(res)))
    return out


def _select_loop(cx, node, name, loops, types):
    for ins, res in loops:
        if all(np.can_cast(t.dtype, d, "safe") for t, d in zip(types, ins)):
            return [T.from_dtype(d) for d in ins], T.from_dtype(res)
    cx.error(node, f"np.{name}() has no loop for ({', '.join(map(str, types))})",
             "NumPy's float16 and long double loops are not supported in CUDA kernels")


def _ufunc_entry(name, emit, letters):
    ufunc = getattr(np, name)
    loops, nin = _loops(ufunc, letters), ufunc.nin

    def impl(cx, node, args, kwargs):
        expect_args(cx, node, f"np.{name}", args, nin, nin + 1)
        if any(isinstance(a, Value) and a.type == T.undefined for a in args):
            return Value(T.undefined, "?")
        for a in args:
            if not (isinstance(a, Value) and (T.is_scalar(a.type) or isinstance(a.type, T.Array))):
                cx.error(node, f"np.{name}() takes numbers or arrays, not {getattr(a, 'type', a)}")
        if not any(isinstance(a.type, T.Array) for a in args):
            if len(args) > nin:
                cx.error(node, f"np.{name}() of scalars takes {nin} arguments; an output is only for arrays")
            ins, res = _select_loop(cx, node, name, loops, [a.type for a in args])
            return cast(emit(cx, node, [cast(a, t) for a, t in zip(args, ins)]), res)
        return _array_call(cx, node, name, loops, emit, args, nin)

    intrinsic(f"np.{name}", doc=f"np.{name}: NumPy's ufunc on numbers (Numba's result types), or on arrays with "
                                f"the output array as the last positional argument ``np.{name}(x, ..., out)``.")(impl)


def _array_call(cx, node, name, loops, emit, args, nin):
    """``np.sin(x, out)``: the thread computes every element of ``out`` (NumPy's broadcasting of the inputs)."""
    if len(args) != nin + 1 or not isinstance(args[-1].type, T.Array):
        cx.unsupported(node, f"np.{name}() of arrays needs the output array as its last positional argument",
                       f"write np.{name}({', '.join(['x'] * nin)}, out) (numba-cuda allocates no arrays in kernels)")
    ins_v, out = args[:nin], args[-1]
    cx.check_writable(node, node.args[-1], out)
    elem = [a.type.dtype if isinstance(a.type, T.Array) else a.type for a in ins_v]
    ins, res = _select_loop(cx, node, name, loops, elem)
    nd = out.type.ndim
    if any(isinstance(a.type, T.Array) and a.type.ndim > nd for a in ins_v):
        cx.error(node, f"np.{name}(): an input has more dimensions than the output {out.type}")
    loop_vars = [Value(T.int64, f"cj_u{d}", nonneg=True) for d in range(nd)]

    def element(a):
        if not isinstance(a.type, T.Array):
            return a
        skip = nd - a.type.ndim                     # right-aligned; an axis of length 1 broadcasts
        idx = [Value(T.int64, f"({a.code}.shape[{d}] == 1 ? 0 : cj_u{d + skip})", nonneg=True)
               for d in range(a.type.ndim)]
        return cx.element(node, a, idx)

    value = cast(emit(cx, node, [cast(element(a), t) for a, t in zip(ins_v, ins)]), res)
    store = cx.element(node, out, loop_vars)
    body = f"{store.code} = {typed(cast(value, out.type.dtype), out.type.dtype).code};"
    for d in reversed(range(nd)):
        body = f"for (int64_t cj_u{d} = 0; cj_u{d} < {out.code}.shape[{d}]; ++cj_u{d}) {{ {body} }}"
    return Value(out.type, f"[&]() {{ {body} return {out.code}; }}()")


for _name, (_emit, _letters) in UFUNCS.items():
    _ufunc_entry(_name, _emit, _letters)

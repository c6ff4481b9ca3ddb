"""``cuda.libdevice.<name>``: numba-cuda's libdevice module, for the functions that have an equivalent in cudajit's
math (mathfuncs.h, lang.h). As libdevice's, each has fixed types: ``sin`` takes and returns float64, ``sinf``
float32; ``popc`` int32, ``popcll`` int64. Arguments convert to those types as in a call of a declared signature.
Others of libdevice's names are not provided (cuda/libdevice.py says so by name)."""
from . import types as T
from .registry import expect_args, intrinsic
from .values import Value, typed

# math functions of one or more float arguments: libdevice's name for float64; + "f" for float32.
_FLOAT_FUNCS = {
    1: ("sqrt", "exp", "expm1", "exp2", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan",
        "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "floor", "ceil", "trunc", "rint", "fabs", "erf", "erfc",
        "tgamma", "lgamma", "cbrt"),
    2: ("atan2", "fmod", "remainder", "copysign", "hypot", "pow", "nextafter", "fmin", "fmax"),
    3: ("fma",),
}
# integer bit functions: (libdevice name, cj function, argument type, result type)
_INT_FUNCS = (("popc", "popc", T.int32, T.int32), ("popcll", "popc", T.int64, T.int32),
              ("brev", "brev", T.int32, T.int32), ("brevll", "brev", T.int64, T.int64),
              ("clz", "clz", T.int32, T.int32), ("clzll", "clz", T.int64, T.int32),
              ("ffs", "ffs", T.int32, T.int32), ("ffsll", "ffs", T.int64, T.int32))


def _entry(name, fn, argtypes, ret):
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, f"cuda.libdevice.{name}", args, len(argtypes))
        conv = [typed(cx.convert(node, a, t), t).code for a, t in zip(args, argtypes)]
        return Value(ret, f"{ret.cpp}(cj::{fn}({', '.join(conv)}))")
    sig = f"{ret}({', '.join(str(t) for t in argtypes)})"
    intrinsic(f"cuda.libdevice.{name}", doc=f"cuda.libdevice.{name}: libdevice's {name}, {sig}; arguments convert "
                                            f"to its parameter types.")(impl)


def names():
    """Every libdevice function cudajit provides."""
    return [n[len("cuda.libdevice."):] for n in _registered]


_registered = []
for _nargs, _funcs in _FLOAT_FUNCS.items():
    for _f in _funcs:
        for _name, _t in ((_f, T.float64), (_f + "f", T.float32)):
            _entry(_name, f"m::{_f}", [_t] * _nargs, _t)
            _registered.append(f"cuda.libdevice.{_name}")
for _name, _fn, _arg, _ret in _INT_FUNCS:
    _entry(_name, _fn, [_arg], _ret)
    _registered.append(f"cuda.libdevice.{_name}")

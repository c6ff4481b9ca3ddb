"""NumPy's whole-array reductions in kernels and device functions: ``np.sum(a)``, ``a.sum()``, ``np.mean``,
``a.max()``, ``np.argmin``, ``np.all``, ``np.nanvar``, ``np.count_nonzero``... as registry entries ``np.<name>``
and as the array methods NumPy has (``sum prod mean var std min max all any argmin argmax``).

numba-cuda 0.30 runs its host implementations (numba/cuda/np/arraymath.py) in kernels; the result types here are
theirs (``sum`` of int32 is int64, of bool int64; ``mean`` of any real is float64, of complex complex128; ``var``
and ``std`` float64; ``min``/``max`` keep the dtype; ``argmin``/``argmax``/``count_nonzero`` int64). The calling
thread reduces the whole array itself, in C order (kernels/cudajit/array_reductions.h): any layout, 0-d to n-d,
arguments, local, shared and frozen global arrays. Only the whole array: ``axis``, ``dtype``, ``out`` and the
other keywords are refused (UnsupportedError) unless they have NumPy's default value.
"""
import inspect

import numpy as np

from . import types as T
from .registry import intrinsic
from .values import Value


def _expand(d):
    """Numba's ``_expand_integer``: integers widen to 64 bits keeping their sign, bools become int64."""
    if isinstance(d, T.Integer):
        return T.int64 if d.signed else T.uint64
    return T.int64 if d == T.boolean else d


def _nan_int(d):
    """nansum/nanprod's accumulator: int64 for integers and bools (numba-cuda's ``intp``), else the dtype."""
    return T.int64 if isinstance(d, (T.Integer, T.Boolean)) else d


def _mean_types(d):
    """np.mean's (accumulator, result): float64 accumulates integers and bools, floats and complex accumulate in
    their own type; the quotient is float64 or complex128 (numba-cuda divides by ``a.size``, an int64)."""
    acc = T.float64 if isinstance(d, (T.Integer, T.Boolean)) else d
    return acc, (T.complex128 if isinstance(d, T.Complex) else T.float64)


def _nanmean_types(d):
    """np.nanmean accumulates every dtype in float64 (complex128 for complex): numba-cuda starts from 0.0."""
    wide = T.complex128 if isinstance(d, T.Complex) else T.float64
    return wide, wide


def _sum(fn, skip_nan, result):
    def emit(cx, node, a):
        r = result(a.type.dtype)
        return Value(r, f"cj::{fn}<{r.cpp}, {_flag(skip_nan)}>({a.code})")
    return emit


def _mean(types, skip_nan):
    def emit(cx, node, a):
        acc, r = types(a.type.dtype)
        return Value(r, f"cj::array_mean<{acc.cpp}, {r.cpp}, {_flag(skip_nan)}>({a.code})")
    return emit


def _var(types, skip_nan, root):
    def emit(cx, node, a):
        acc, r = types(a.type.dtype)
        code = f"cj::array_var<{acc.cpp}, {r.cpp}, {_flag(skip_nan)}>({a.code})"
        # numba-cuda's std is var ** 0.5, CUDA's pow (within 2 ulps of NumPy's sqrt): the same bits as numba-cuda
        return Value(T.float64, f"cj::m::pow({code}, 0.5)" if root else code, nonneg=True)
    return emit


def _extremum(fn, is_max, message, index=False):
    """min/max and the nan* and arg* forms; ``message``: Numba's ValueError for an empty array."""
    def emit(cx, node, a):
        site = _empty_site(cx, node, message)
        return Value(T.int64 if index else a.type.dtype, f"cj::{fn}<{_flag(is_max)}>({site}, {a.code})")
    return emit


def _truth(fn, result):
    def emit(cx, node, a):
        return Value(result, f"cj::{fn}({a.code})", nonneg=result == T.int64)
    return emit


def _flag(b):
    return "true" if b else "false"


def _empty_site(cx, node, message):
    """Under debug=True an empty array raises Numba's ValueError (the thread records it and ends); otherwise -1:
    the reduction gives NaN (floats, complex), 0 (integers, bools) or -1 (argmin/argmax)."""
    if not cx.state.program.options.debug:
        return -1
    cx.state.may_raise = True
    cx.note_effect(raises=True)
    return cx.state.program.error_site(ValueError, (message,), cx.state.loc, node)


_EMPTY = "zero-size array to reduction operation {} which has no identity"
_NAN_EMPTY = "zero-size array to reduction operation not possible"
# name: (emitter, whether ndarray has the method, what it computes)
REDUCTIONS = {
    "sum": (_sum("array_sum", False, _expand), True, "the sum of the elements"),
    "prod": (_sum("array_prod", False, _expand), True, "the product of the elements"),
    "nansum": (_sum("array_sum", True, _nan_int), False, "the sum of the elements that are not NaN"),
    "nanprod": (_sum("array_prod", True, _nan_int), False, "the product of the elements that are not NaN"),
    "mean": (_mean(_mean_types, False), True, "the mean of the elements (float64, or complex128)"),
    "nanmean": (_mean(_nanmean_types, True), False, "the mean of the elements that are not NaN"),
    "var": (_var(_mean_types, False, False), True, "the variance of the elements (float64)"),
    "nanvar": (_var(_nanmean_types, True, False), False, "the variance of the elements that are not NaN"),
    "std": (_var(_mean_types, False, True), True, "the standard deviation of the elements (float64)"),
    "nanstd": (_var(_nanmean_types, True, True), False, "the standard deviation of the elements that are not NaN"),
    "min": (_extremum("array_extremum", False, _EMPTY.format("minimum")), True,
            "the smallest element (a NaN if there is one)"),
    "max": (_extremum("array_extremum", True, _EMPTY.format("maximum")), True,
            "the largest element (a NaN if there is one)"),
    "amin": (_extremum("array_extremum", False, _EMPTY.format("minimum")), False,
             "the smallest element (a NaN if there is one)"),
    "amax": (_extremum("array_extremum", True, _EMPTY.format("maximum")), False,
             "the largest element (a NaN if there is one)"),
    "nanmin": (_extremum("array_nanextremum", False, _NAN_EMPTY), False,
               "the smallest element that is not NaN (NaN if all are)"),
    "nanmax": (_extremum("array_nanextremum", True, _NAN_EMPTY), False,
               "the largest element that is not NaN (NaN if all are)"),
    "argmin": (_extremum("array_argextremum", False, "attempt to get argmin of an empty sequence", index=True),
               True, "the flat index of the first smallest element (of the first NaN if there is one)"),
    "argmax": (_extremum("array_argextremum", True, "attempt to get argmax of an empty sequence", index=True),
               True, "the flat index of the first largest element (of the first NaN if there is one)"),
    "all": (_truth("array_all", T.boolean), True, "whether every element is true"),
    "any": (_truth("array_any", T.boolean), True, "whether some element is true"),
    "count_nonzero": (_truth("array_count_nonzero", T.int64), False, "the number of elements that are not zero"),
}

# NumPy's own default for each optional parameter that may be written out: passing it is the whole-array reduction.
_DEFAULTS = {"axis": None, "dtype": None, "out": None, "keepdims": False, "initial": None, "where": True,
             "ddof": 0, "mean": None, "correction": None}


def _params(name):
    """The parameter names of ``np.<name>`` in this NumPy (keywords are matched to them)."""
    try:
        return tuple(inspect.signature(getattr(np, name)).parameters)
    except (TypeError, ValueError):
        return ("a", "axis")


def reduce_array(cx, node, name, what, a, rest):
    """``np.<name>(a, *rest)`` (``what`` names the call for messages: ``np.sum()`` or ``a.sum()``). ``rest``: the
    optional arguments by parameter name, None where absent."""
    emit = REDUCTIONS[name][0]
    for pname, v in rest.items():
        if v is None or _is_default(pname, v):
            continue
        hint = (f"reduce one slice at a time, e.g. np.{name}(a[i, :]) for each i" if pname == "axis" else
                f"pass the array alone: the result has Numba's type for the array's dtype")
        cx.unsupported(node, f"{what} with {pname}= is not supported in CUDA kernels: only the reduction of the whole "
                             f"array", hint)
    if not isinstance(a, Value):
        cx.error(node, f"{what} takes an array, not {getattr(a, 'path', a)}")
    if a.type == T.undefined:
        return Value(T.undefined, "?")
    if not isinstance(a.type, T.Array):
        cx.error(node, f"{what} takes an array in CUDA kernels, not {a.type}",
                 "reduce an array (a kernel argument, a local, shared or global array)")
    d = a.type.dtype
    if not (isinstance(d, (T.Boolean, T.Integer, T.Complex)) or (isinstance(d, T.Float) and d != T.float16)):
        cx.unsupported(node, f"{what} of an array of {d} is not supported in CUDA kernels",
                       "reductions take arrays of bools, integers, float32/float64 and complex numbers")
    cx.state.need("ARRAY_REDUCTIONS")       # also the array methods, which reach here without the registry
    return emit(cx, node, a)


def _is_default(pname, v):
    default = _DEFAULTS.get(pname, None)
    if not (isinstance(v, Value) and v.is_const):
        return False
    return v.type == T.none if default is None else (v.const is default or
                                                     (type(v.const) is type(default) and v.const == default))


def array_method(cx, node, v, name, args, kwargs):
    """``a.<name>(...)``, the ndarray method: NumPy's function with ``a`` first."""
    params = _params(name)[1:]
    if len(args) > len(params):
        cx.error(node, f".{name}() takes at most {len(params)} arguments, {len(args)} given")
    rest = dict(zip(params, args))
    for k, val in kwargs.items():
        if k not in params or k in rest:
            cx.error(node, f".{name}() got an unexpected keyword argument '{k}'" if k not in params
                     else f".{name}() got multiple values for argument '{k}'")
        rest[k] = val
    return reduce_array(cx, node, name, f"a.{name}()", v, rest)


def is_method(name):
    entry = REDUCTIONS.get(name)
    return entry is not None and entry[1]


def _entry(name, what):
    params = _params(name)

    def impl(cx, node, args, kwargs):
        if not args or args[0] is None:
            cx.error(node, f"np.{name}() takes an array as its first argument")
        if len(args) > len(params):
            cx.error(node, f"np.{name}() takes at most {len(params)} arguments, {len(args)} given")
        return reduce_array(cx, node, name, f"np.{name}()", args[0], dict(zip(params[1:], args[1:])))

    method = f"; also the array method ``a.{name}()``" if REDUCTIONS[name][1] else ""
    intrinsic(f"np.{name}", params=params, part="ARRAY_REDUCTIONS",
              doc=f"np.{name}(a): {what} of the whole array ``a``, computed by the calling thread with Numba's result "
                  f"type{method}. ``axis``, ``dtype`` and ``out`` are not supported.")(impl)


for _name, (_emit, _is_method, _what) in REDUCTIONS.items():
    _entry(_name, _what)

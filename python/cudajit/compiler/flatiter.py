"""Flat iteration over arrays: ``a.flat[k]`` (load and store) and ``np.unravel_index(k, shape)``, which the
desugared ``for x in a.flat`` and ``for idx, x in np.ndenumerate(a)`` loops use (desugar.py). The multi-index of
flat position k in C order is ``cj::unravel_index`` (array.h); the element goes through the usual (checked)
element access, so a position past the end is an IndexError under bounds checking."""
import ast

from . import types as T
from .registry import intrinsic, expect_args
from .values import Value, PRIMARY


def flat_target(node):
    """The array expression of ``<array>.flat[...]``, or None when ``node`` (a Subscript) is not of that form."""
    value = node.value
    return value.value if isinstance(value, ast.Attribute) and value.attr == "flat" else None


def flat_indices(cx, node, array, k):
    """The per-axis indices of flat position ``k`` of ``array`` (C order)."""
    if k.type == T.undefined:
        return None
    if not (T.is_int(k.type) or k.type == T.boolean) or isinstance(array.type, T.Array) and array.type.ndim == 0:
        cx.error(node, f"a.flat takes one integer index into an array of at least one dimension, not {k.type}")
    code = k.code
    if T.is_int(k.type) and k.type.signed and not k.nonneg and not (k.is_const and k.const >= 0):
        code = f"cj::wrap({code}, {array.at(PRIMARY)}.size())"      # a.flat[-1] is the last element, as NumPy's
    return [Value(T.int64, f"cj::unravel_index({code}, {array.at(PRIMARY)}).v[{d}]", nonneg=True)
            for d in range(array.type.ndim)]


@intrinsic("np.unravel_index", doc="np.unravel_index(k, shape): the C-order index tuple of flat position k.")
def _unravel_index(cx, node, args, kwargs):
    expect_args(cx, node, "np.unravel_index", args, 2)
    k, shape = (cx.as_value(node, a) for a in args)
    if T.undefined in (k.type, shape.type):
        return Value(T.undefined, "?")
    if not T.is_int(k.type) or not (isinstance(shape.type, T.UniTuple) and T.is_int(shape.type.dtype)):
        cx.error(node, f"np.unravel_index() takes an integer and a tuple of integers, not {k.type} and {shape.type}")
    n = shape.type.count
    dims = ", ".join(f"int64_t({e.code})" for e in cx.tuple_elements(node, shape))
    return Value(T.UniTuple(T.int64, n), f"cj::unravel_index<{n}>(int64_t({k.code}), "
                                         f"cj::UniTuple<int64_t, {n}>{{{{{dims}}}}})")

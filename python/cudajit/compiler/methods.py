"""Methods of kernel values other than complex ``conjugate``: ``array.reshape(...)`` and ``int.bit_count()``."""
from . import types as T
from .values import Value


def call_value_method(cx, node, v, name, args, kwargs):
    """The method ``name`` of the Value ``v`` called with ``args``, or None when ``v``'s type has no such method."""
    t = v.type
    if isinstance(t, T.Array) and name == "reshape":
        return _reshape(cx, node, v, args, kwargs)
    if T.is_int(t) and name == "bit_count":
        if args or kwargs:
            cx.error(node, "int.bit_count() takes no arguments")
        return Value(t, f"cj::bit_count({v.code})", nonneg=True)
    return None


def _reshape(cx, node, v, args, kwargs):
    """``a.reshape(shape)`` or ``a.reshape(n0, n1, ...)`` of a C-contiguous array, as Numba: a view of the same
    data, one -1 inferred; a size that differs raises ValueError under debug=True (the kernel ends the thread)."""
    t = v.type
    if kwargs:
        cx.error(node, f"reshape() takes no keyword arguments (got {', '.join(kwargs)})",
                 "pass the new shape only: a.reshape((n, m)) or a.reshape(n, m)")
    if t.layout != "C":
        cx.error(node, f"reshape() supports contiguous array only; {t} is not C-contiguous",
                 "reshape a C-contiguous array (Numba's rule), e.g. the argument itself rather than a slice of it")
    dims = cx.tuple_elements(node, args[0]) if len(args) == 1 and _is_tuple(args[0]) else list(args)
    if not dims:
        cx.error(node, "reshape() needs the new shape: a.reshape((n, m)) or a.reshape(n, m)")
    values = [cx.as_value(node, d) for d in dims]
    if any(d.type == T.undefined for d in values):
        return Value(T.undefined, "?")
    for d in values:
        if not T.is_int(d.type):
            cx.error(node, f"reshape() takes integers for the new shape, not {d.type}")
    consts = [d.const for d in values if d.is_const]
    if consts.count(-1) > 1:
        cx.error(node, "reshape() can only infer one dimension (-1)")
    site = -1
    if cx.program.options.debug:
        site = cx.program.error_site(ValueError, ("cannot reshape array: total size of new array must be unchanged",),
                                     cx.loc, node)
        cx.calls_raiser = cx.may_raise = True
    rt = T.Array(t.dtype, len(values), "C", t.readonly)
    shape = ", ".join(f"int64_t({d.code})" for d in values)
    return Value(rt, f"cj::reshape<{rt.cpp}>({site}, {v.code}, {shape})")


def _is_tuple(v):
    return isinstance(v, Value) and isinstance(v.type, T.BaseTuple)

"""Methods of kernel values other than complex ``conjugate``: ``array.reshape(...)``, ``.transpose()``,
``.view(dtype)``, the whole-array reductions (``a.sum()``, ``a.max()``, ... : reductions.py) and
``int.bit_count()``. NumPy's other array methods allocate, which numba-cuda's kernels do not ("Unsupported NumPy
features: array methods"): they are an UnsupportedError naming the method."""
from . import reductions
from . import types as T
from .values import Value

# NumPy array methods a user may reach for that allocate; numba-cuda offers none of them in kernels.
_NUMPY_ARRAY_METHODS = {
    "copy", "astype", "fill", "cumsum", "cumprod", "sort", "argsort", "flatten", "ravel", "nonzero", "repeat", "take",
    "dot", "clip", "round", "squeeze", "swapaxes", "tolist", "item", "itemset", "conj", "conjugate", "tobytes",
    "resize", "ptp",
}


def call_value_method(cx, node, v, name, args, kwargs):
    """The method ``name`` of the Value ``v`` called with ``args``, or None when ``v``'s type has no such method."""
    t = v.type
    if isinstance(t, T.Array) and name == "reshape":
        return _reshape(cx, node, v, args, kwargs)
    if isinstance(t, T.Array) and name == "transpose" and not args and not kwargs and t.ndim <= 2:
        return cx.transpose(v)
    if isinstance(t, T.Array) and name == "view":
        return _view(cx, node, v, args, kwargs)
    if isinstance(t, T.Array) and reductions.is_method(name):
        return reductions.array_method(cx, node, v, name, args, kwargs)
    if isinstance(t, T.Array) and name in _NUMPY_ARRAY_METHODS:
        cx.unsupported(node, f"the array method .{name}() is not supported in CUDA kernels",
                       "numba-cuda's kernels allocate no arrays: of the array methods they have the views "
                       "(.reshape, .view, .transpose, .T, .real, .imag) and the whole-array reductions "
                       "(.sum(), .max(), ...); loop over the elements instead")
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
        cx.may_raise = True
        cx.note_effect(raises=True)
    rt = T.Array(t.dtype, len(values), "C", t.readonly)
    shape = ", ".join(f"int64_t({d.code})" for d in values)
    return Value(rt, f"cj::reshape<{rt.cpp}>({site}, {v.code}, {shape})")


def _is_tuple(v):
    return isinstance(v, Value) and isinstance(v.type, T.BaseTuple)


def _view(cx, node, v, args, kwargs):
    """``a.view(dtype)``: the same bytes as another scalar type (NumPy's rule: a different itemsize rescales the
    last axis, which must then be contiguous)."""
    t = v.type
    if kwargs or len(args) != 1:
        cx.error(node, "view() takes one argument, the new dtype: a.view(np.uint32)")
    new = cx.dtype_of(node, args[0])
    old_size, new_size = t.dtype.dtype.itemsize, new.dtype.itemsize
    if new_size != old_size and (t.ndim == 0 or t.layout != "C"):
        cx.error(node, f"view() as {new} changes the itemsize ({old_size} to {new_size} bytes): the array must be "
                       f"C-contiguous, and {t} is not", "view a C-contiguous array, or a type of the same size")
    return reinterpret(v, t.copy(dtype=new), "0", rescale=True)


def reinterpret(v, rt, offset, rescale=False):
    """``v``'s bytes as the array type ``rt``, starting ``offset`` bytes into each element (array.h); ``rescale``:
    the last axis counts ``rt``'s elements (a view), else the shape and strides stay (``.real``, ``.imag``)."""
    return Value(rt, f"cj::reinterpret_view<{rt.cpp}>({v.code}, {offset}, {'true' if rescale else 'false'})")

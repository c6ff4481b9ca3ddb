"""Methods and attributes of kernel values, registered by (kind, name) as intrinsics are by name: the array methods
(``.reshape(...)``, ``.transpose()``, ``.view(dtype)``, the whole-array reductions ``a.sum()``, ``a.max()``, ...
from reductions.py), the array attributes (``.shape``, ``.size``, ``.T``, ``.real``, ...), ``.ctypes.data`` and
``int.bit_count()``. A new one is one ``@method(kind, name)`` or ``@attribute(kind, name)`` function here (or in
the module of its family); the translator asks ``call_value_method`` and ``value_attribute`` and knows no names.
NumPy's other array methods allocate, which numba-cuda's kernels do not ("Unsupported NumPy features: array
methods"): they are an UnsupportedError naming the method."""
from . import records, reductions
from . import types as T
from .values import PRIMARY, Symbol, Value, const_value, reinterpret, tuple_value

METHODS = {}       # (kind, name) -> impl(cx, node, value, args, kwargs): a Value, or None to decline
ATTRIBUTES = {}    # (kind, name) -> impl(cx, node, value, name): a Value, or None to decline

# NumPy array methods a user may reach for that allocate; numba-cuda offers none of them in kernels.
_NUMPY_ARRAY_METHODS = {
    "astype", "fill", "cumsum", "cumprod", "sort", "argsort", "flatten", "ravel", "nonzero", "repeat", "take",
    "dot", "clip", "round", "squeeze", "swapaxes", "tolist", "item", "itemset", "conj", "conjugate", "tobytes",
    "resize", "ptp",
}


def value_kind(t):
    """The kind a value's methods and attributes are registered under: 'array', 'array.ctypes', 'int' or None."""
    if isinstance(t, T.Array):
        return "array"
    if isinstance(t, T.ArrayCTypes):
        return "array.ctypes"
    if T.is_int(t):
        return "int"
    return None


def _registrar(table):
    def decorator(kind, *names):
        def register(impl):
            for n in names:
                table[(kind, n)] = impl
            return impl
        return register
    return decorator


method = _registrar(METHODS)        # @method(kind, name): impl(cx, node, value, args, kwargs)
attribute = _registrar(ATTRIBUTES)  # @attribute(kind, name): impl(cx, node, value, name)


def call_value_method(cx, node, v, name, args, kwargs):
    """The method ``name`` of the Value ``v`` called with ``args``, or None when ``v``'s type has no such method."""
    kind = value_kind(v.type)
    impl = METHODS.get((kind, name))
    if impl is not None:
        return impl(cx, node, v, args, kwargs)
    if kind == "array" and reductions.is_method(name):
        return reductions.array_method(cx, node, v, name, args, kwargs)
    if kind == "array" and name in _NUMPY_ARRAY_METHODS:
        cx.unsupported(node, f"the array method .{name}() is not supported in CUDA kernels",
                       "numba-cuda's kernels allocate no arrays: of the array methods they have the views "
                       "(.reshape, .view, .transpose, .T, .real, .imag) and the whole-array reductions "
                       "(.sum(), .max(), ...); loop over the elements instead")
    return None


def value_attribute(cx, node, v, attr):
    """The registered attribute ``attr`` of ``v`` (a record array's field included), or None: the translator then
    tries the attributes of other kinds of value."""
    kind = value_kind(v.type)
    impl = ATTRIBUTES.get((kind, attr))
    found = impl(cx, node, v, attr) if impl is not None else None
    if found is not None:
        return found
    t = v.type
    if kind == "array":
        if isinstance(t.dtype, T.Record) and attr in t.dtype.fields:
            return records.field_view(cx, node, v, attr)
        cx.unsupported(node, f"array attribute '.{attr}' is not supported in CUDA kernels")
    if kind == "array.ctypes":
        cx.unsupported(node, f"'.ctypes.{attr}' is not supported in CUDA kernels (only '.ctypes.data')")
    return None


# ---- arrays -------------------------------------------------------------------------------------------------------
@attribute("array", "shape")
def _shape(cx, node, v, name):
    return tuple_value(T.UniTuple(T.int64, v.type.ndim),
                       [Value(T.int64, f"{v.at(PRIMARY)}.shape[{k}]", nonneg=True, extent=_extent(cx, v, k))
                        for k in range(v.type.ndim)])


def _extent(cx, v, axis):
    """(parameter, axis) when ``v`` is a kernel's unassigned array parameter (Value.extent), else None."""
    return (v.param, axis) if cx.state.is_kernel and v.param is not None else None


@attribute("array", "strides")
def _strides(cx, node, v, name):
    return tuple_value(T.UniTuple(T.int64, v.type.ndim),
                       [Value(T.int64, f"{v.at(PRIMARY)}.strides[{k}]") for k in range(v.type.ndim)])


@attribute("array", "size")
def _size(cx, node, v, name):
    return Value(T.int64, f"{v.at(PRIMARY)}.size()", nonneg=True,
                 extent=_extent(cx, v, 0) if v.type.ndim == 1 else None)


@attribute("array", "ndim")
def _ndim(cx, node, v, name):
    return const_value(v.type.ndim)


@attribute("array", "dtype")
def _dtype(cx, node, v, name):
    return Symbol("type", v.type.dtype)


@attribute("array", "itemsize")
def _itemsize(cx, node, v, name):
    return const_value(v.type.dtype.dtype.itemsize)


@attribute("array", "nbytes")
def _nbytes(cx, node, v, name):
    return Value(T.int64, f"({v.at(PRIMARY)}.size() * {v.type.dtype.dtype.itemsize})", nonneg=True)


@attribute("array", "T")
def _T(cx, node, v, name):
    return cx.transpose(v) if v.type.ndim <= 2 else None


@attribute("array", "real", "imag")
def _component(cx, node, v, name):
    return cx.component_view(node, v, name) if v.type.ndim >= 1 else None


@attribute("array", "ctypes")
def _ctypes(cx, node, v, name):
    return Value(T.ArrayCTypes(v.type), v.code, v.prec)


@attribute("array.ctypes", "data")
def _ctypes_data(cx, node, v, name):
    return Value(T.uintp, f"reinterpret_cast<uintptr_t>({v.at(PRIMARY)}.data)", nonneg=True)


@method("array", "transpose")
def _transpose(cx, node, v, args, kwargs):
    return cx.transpose(v) if not args and not kwargs and v.type.ndim <= 2 else None


@method("array", "reshape")
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
    if cx.state.program.options.debug:
        site = cx.state.program.error_site(ValueError, ("cannot reshape array: total size of new array must be unchanged",),
                                           cx.state.loc, node)
        cx.state.may_raise = True
        cx.note_effect(raises=True)
    rt = T.Array(t.dtype, len(values), "C", t.readonly)
    shape = ", ".join(f"int64_t({d.code})" for d in values)
    return Value(rt, f"cj::reshape<{rt.cpp}>({site}, {v.code}, {shape})")


def _is_tuple(v):
    return isinstance(v, Value) and isinstance(v.type, T.BaseTuple)


@method("array", "view")
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


@method("array", "copy")
def _copy(cx, node, v, args, kwargs):
    """``a.copy()`` of an array whose shape the compiler knows (a global NumPy array frozen into the kernel): a
    C-contiguous array of the calling thread's local memory, writable, with ``a``'s elements (numba-cuda, with its
    NRT on, allocates the copy on the device heap). Another array's shape is known only when the kernel runs, and
    kernels allocate nothing then: an UnsupportedError saying what to do instead."""
    t = v.type
    if args or kwargs:
        cx.error(node, "copy() takes no arguments in CUDA kernels (the copy is C-contiguous: no order=)")
    shape = v.const.shape if v.is_const and hasattr(v.const, "shape") else None
    if shape is None:
        cx.unsupported(node, f"a.copy() of an array whose shape is known only at run time ({t}) is not supported in "
                             f"CUDA kernels", "kernels allocate no memory: copy into a cuda.local.array of a constant "
                             "shape (b[:] = a) or pass a second array for the copy")
    if cx.state.loops:
        cx.unsupported(node, "a.copy() inside a loop is not supported in CUDA kernels: every iteration's copy would "
                             "be the same local array", "copy once before the loop (q = a.copy()) and assign to "
                             "it in the loop (q[:] = a)")
    count = 1
    for n in shape:
        count *= n
    storage = cx.declare_array_storage(node, "local", t.dtype, (max(count, 1),))
    rt = T.Array(t.dtype, len(shape), "C")
    copy = Value(rt, f"cj::c_array({', '.join([storage] + [str(n) for n in shape])})")
    cx.emit(f"cj::copy_into(-1, -1, {copy.code}, {v.code});", node)
    return copy


# ---- integers ----------------------------------------------------------------------------------------------------
@method("int", "bit_count")
def _bit_count(cx, node, v, args, kwargs):
    if args or kwargs:
        cx.error(node, "int.bit_count() takes no arguments")
    return Value(v.type, f"cj::bit_count({v.code})", nonneg=True)

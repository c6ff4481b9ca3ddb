"""Arrays over C pointers in kernels: ``carray(ptr, shape, dtype=None)`` and ``farray`` (Numba's ``numba.carray``,
also as ``cuda.carray``/``cudajit.carray``). ``ptr`` is a ``CPointer(T)`` value, e.g. what a foreign function
declared with ``cuda.declare_device`` returns; the result is a C (or F) contiguous view of its memory, as a kernel
argument's array is (array.h's ``cj::contiguous_array``). ``ffi.from_buffer(array)`` of a ``cffi.FFI()`` gives a
contiguous array's data pointer, as numba-cuda's documentation passes arrays to foreign functions."""
from . import types as T
from .registry import expect_args, intrinsic
from .values import PRIMARY, Value


def _pointer_array(name, layout):
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, name, args, 2, 3)
        ptr = cx.as_value(node, args[0])
        if ptr.type == T.undefined:
            return Value(T.undefined, "?")
        if not isinstance(ptr.type, T.CPointer):
            cx.error(node, f"{name}() takes a CPointer as its first argument, not {ptr.type}",
                     "pass a pointer, e.g. what a foreign function declared as returning CPointer(float32) gives")
        dtype = ptr.type.dtype
        if len(args) == 3 and cx.dtype_of(node, args[2]) != dtype:
            cx.error(node, f"{name}(): the dtype {cx.dtype_of(node, args[2])} does not match the pointer's "
                           f"element type {dtype}")
        shape = args[1]
        dims = cx.tuple_elements(node, shape) if isinstance(shape, Value) and isinstance(shape.type, T.BaseTuple) \
            else [shape]
        values = [cx.as_value(node, d) for d in dims]
        if not values or not all(T.is_int(d.type) for d in values):
            cx.error(node, f"{name}(): the shape must be an integer or a tuple of integers, not "
                           f"{', '.join(str(d.type) for d in values) or '()'}")
        rt = T.Array(dtype, len(values), layout)
        dims = ", ".join(f"int64_t({d.code})" for d in values)
        return Value(rt, f"cj::contiguous_array<cj::{rt.layout}>({ptr.code}, {dims})")
    return impl


_DOC = ("{name}(ptr, shape, dtype=None): a {order}-ordered array of the given shape over the memory a CPointer "
        "points at (Numba's numba.{short}); dtype, if given, must be the pointer's element type.")
for _short, _layout, _order in (("carray", "C", "C"), ("farray", "F", "Fortran")):
    intrinsic(f"cuda.{_short}", f"numba.{_short}", f"cudajit.{_short}", params=["ptr", "shape", "dtype"],
              doc=_DOC.replace("{order}", _order).replace("{short}", _short))(_pointer_array(_short, _layout))


@intrinsic("cffi.from_buffer", doc="ffi.from_buffer(array) of a cffi.FFI(): the CPointer to a contiguous array's data.")
def _from_buffer(cx, node, args, kwargs):
    expect_args(cx, node, "ffi.from_buffer", args, 1)
    a = cx.as_value(node, args[0])
    if a.type == T.undefined:
        return Value(T.undefined, "?")
    if not isinstance(a.type, T.Array) or a.type.layout == "A":
        cx.error(node, f"ffi.from_buffer() takes a contiguous array, not {a.type}")
    return Value(T.CPointer(a.type.dtype), f"{a.at(PRIMARY)}.data")

"""Record (structured dtype) fields in kernels: ``r.x``, ``r['x']``, ``r[0]`` read and written, nested array fields.

A record value's code is a ``cj::Record`` lvalue (an array element) or a ``cj::RecordRef`` (a variable, a record
argument); record.h's accessors take either and copy the field's bytes at NumPy's offset.
"""
import ast

from . import types as T
from .values import Value, reinterpret


def field_key(node):
    """The field a subscript names when it is a constant string or int (``r['x']``, ``r[0]``), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)) and not isinstance(node.value, bool):
        return node.value
    return None


def _field(cx, node, rec, key):
    t = rec.type
    if isinstance(key, int):
        names = list(t.fields)
        if not -len(names) <= key < len(names):
            cx.error(node, f"record index {key} out of range: {t} has {len(names)} fields")
        key = names[key]
    if key not in t.fields:
        cx.error(node, f"record {t} has no field '{key}'", f"its fields are {', '.join(t.fields)}")
    return t.fields[key]


def load(cx, node, rec, key):
    """The value of field ``key`` of record value ``rec``: a scalar, or a view of a nested array field."""
    ftype, offset, shape = _field(cx, node, rec, key)
    if shape is None:
        return Value(ftype, f"cj::get_field<{ftype.cpp}, {offset}>({rec.code})")
    align = ftype.dtype.dtype.alignment
    if cx.state.program.options.target == "gpu" and (offset % align or rec.type.alignment % align):
        cx.error(node, f"the nested array field '{key}' of {rec.type} is not aligned for {ftype.dtype} "
                       f"(offset {offset}, record alignment {rec.type.alignment}): GPU loads of it would fault",
                 "use an aligned dtype: np.dtype([...], align=True)")
    dims = ", ".join(str(n) for n in shape)
    return Value(ftype, f"cj::field_array<{ftype.dtype.cpp}, {offset}>({rec.code}, {dims})")


def store(cx, node, rec, key, value, stmt):
    """``r.x = value`` / ``r['x'] = value``; a nested array field takes a scalar (filled) or an array (copied)."""
    ftype, offset, shape = _field(cx, node, rec, key)
    if not cx.state.final:
        return
    if shape is not None:
        view = load(cx, node, rec, key).code
        if isinstance(value.type, T.Array):
            if value.type.ndim > len(shape):
                cx.error(node, f"cannot assign a {value.type.ndim}-d array to the {len(shape)}-d field '{key}'")
            cx.convert(node, Value(value.type.dtype, "?"), ftype.dtype)      # as each element's store converts
            cx.emit(f"cj::copy_into({cx.slice_copy_site(node)}, {view}, {value.code});", stmt)
        else:
            cx.emit(f"cj::fill({view}, {cx.convert(node, value, ftype.dtype).code});", stmt)
        return
    cx.emit(f"cj::set_field<{ftype.cpp}, {offset}>({rec.code}, {cx.convert(node, value, ftype).code});", stmt)


def field_view(cx, node, arr, key):
    """``a.x`` of a record array ``a``: a strided view of field ``x`` of every element (Numba's), the array's shape
    and strides kept; writes through it reach ``a``."""
    t = arr.type
    ftype, offset, shape = t.dtype.fields[key]
    if shape is not None:
        cx.unsupported(node, f"'.{key}' of a record array, a nested array field, is not supported in CUDA kernels",
                       f"index the array first: a[i].{key}")
    align = ftype.dtype.alignment
    if cx.state.program.options.target == "gpu" and (offset % align or t.dtype.alignment % align):
        cx.error(node, f"the field '{key}' of the record array's {t.dtype} is not aligned for {ftype} "
                       f"(offset {offset}, record alignment {t.dtype.alignment}): GPU loads of it would fault",
                 "use an aligned dtype: np.dtype([...], align=True)")
    return reinterpret(arr, T.Array(ftype, t.ndim, "A", t.readonly), str(offset))


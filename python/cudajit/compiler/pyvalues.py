"""Python objects a kernel uses as values, as Numba types them: namedtuple instances and classes, ``enum.Enum``
members, and ``literal_unroll`` (its loop is ``loops.Loops.for_unrolled``)."""
from . import types as T
from .typeof import typeof
from .values import Value, cast, const_value, tuple_value, typed
from ..errors import TypingError


def literal_unroll(container):
    """Numba's ``literal_unroll``: outside a kernel it returns ``container``; a kernel's ``for x in
    literal_unroll(t)`` over a tuple is unrolled at compile time, each element typed on its own."""
    return container


def is_literal_unroll(obj):
    """``cudajit.literal_unroll`` or Numba's own (``from numba import literal_unroll``)."""
    return obj is literal_unroll or (getattr(obj, "__name__", None) == "literal_unroll"
                                     and getattr(obj, "__module__", "").startswith("numba"))


# ---- enum.Enum members ----------------------------------------------------------------------------------
def enum_member(cx, node, member):
    """A member of a (non-int) ``enum.Enum`` class: a value of type ``EnumMember(cls, dtype)`` whose C++ is its
    value. Numba types these when every member's value is a number of one type."""
    cls = type(member)
    dtype = enum_dtype(cls)
    if dtype is None:
        cx.unsupported(node, f"the Enum member {cls.__name__}.{member.name} is not supported in CUDA kernels: "
                             f"{ENUM_VALUES_RULE.format(cls.__name__)}",
                       "give every member an int (or every member a float) value")
    if isinstance(dtype, T.BaseTuple):             # Planet.EARTH = (mass, radius): its tuple, as a global's
        value = cx.global_value(node, f"{cls.__name__}.{member.name}", member.value)
        return Value(T.EnumMember(cls, dtype), value.code, value.prec, const=member, elements=value.elements)
    return Value(T.EnumMember(cls, dtype), typed(const_value(member.value), dtype).code, const=member)


ENUM_VALUES_RULE = "the values of {} must all be numbers, or tuples of numbers, of one type"


def enum_dtype(cls):
    """The one type of every value of Enum class ``cls`` (Numba's EnumMember dtype): a number, or a tuple of
    numbers (Numba's typeof of the values); else None."""
    dtypes = set()
    for m in cls:
        try:
            dtypes.add(typeof(m.value))
        except TypingError:
            dtypes.add(None)
    dtype = dtypes.pop() if len(dtypes) == 1 else None
    if isinstance(dtype, T.BaseTuple) and all(T.is_number(t) or t == T.boolean for t in dtype.types):
        return dtype
    return dtype if dtype is not None and (T.is_number(dtype) or dtype == T.boolean) else None


def enum_attribute(cx, node, v, attr):
    """``member.value``: its number or tuple (``.name`` is a string, which kernels cannot hold)."""
    if attr == "value":
        if v.is_const and not isinstance(v.type.dtype, T.BaseTuple):
            return cast(const_value(v.const.value), v.type.dtype)
        return Value(v.type.dtype, v.code, v.prec, elements=v.elements)
    cx.error(node, f"'{v.type}' has no attribute '{attr}' in a CUDA kernel", "use .value")


def compare_enum(cx, node, op, a, b):
    """``==``, ``!=``, ``is``, ``is not`` of two Enum members: of one class by value, of two classes never
    equal (Python's answer). Ordering is Python's TypeError, here a TypingError."""
    equal = op in ("==", "is")
    if op not in ("==", "!=", "is", "is not") or not (isinstance(a.type, T.EnumMember)
                                                     and isinstance(b.type, T.EnumMember)):
        cx.error(node, f"cannot compare {a.type} and {b.type} with {op}",
                 "Enum members compare with ==, != and is against members of their own class")
    if a.type.cls is not b.type.cls:
        return Value(T.boolean, "true" if not equal else "false", const=not equal)
    if a.is_const and b.is_const:
        same = a.const is b.const
        return Value(T.boolean, "true" if same == equal else "false", const=same == equal)
    # members of one class are equal when their values are (aliases are one member)
    dtype = a.type.dtype
    if isinstance(dtype, T.BaseTuple):
        parts = zip(cx.tuple_elements(node, enum_attribute(cx, node, a, "value")),
                    cx.tuple_elements(node, enum_attribute(cx, node, b, "value")))
        same = " && ".join(f"({x.code} == {y.code})" for x, y in parts)
        return Value(T.boolean, f"({same})" if equal else f"!({same})")
    return Value(T.boolean, f"({a.code} {'==' if equal else '!='} {b.code})")


# ---- namedtuples ----------------------------------------------------------------------------------------
def construct_namedtuple(cx, node, cls, args, kwargs):
    """``Point(x, y=...)`` in a kernel: a namedtuple of the arguments' types (Numba ignores the annotations of
    typing.NamedTuple, and so does this); missing fields take the class's defaults."""
    fields = cls._fields
    if len(args) > len(fields):
        cx.error(node, f"{cls.__name__}() takes {len(fields)} arguments, {len(args)} given")
    bound = dict(zip(fields, args))
    for k, v in kwargs.items():
        if k not in fields or k in bound:
            cx.error(node, f"{cls.__name__}() got an unexpected or repeated argument '{k}'")
        bound[k] = v
    defaults = getattr(cls, "_field_defaults", {})
    parts = []
    for f in fields:
        if f in bound:
            v = cx.as_value(node, bound[f])
        elif f in defaults:
            v = const_value(defaults[f])
            if v is None:
                cx.error(node, f"the default of field '{f}' of {cls.__name__} is not a number")
        else:
            cx.error(node, f"{cls.__name__}() missing argument '{f}'")
        if v.type == T.undefined:
            return Value(T.undefined, "?")
        if not (T.is_scalar(v.type) or isinstance(v.type, (T.BaseTuple, T.Array, T.EnumMember))):
            cx.error(node, f"field '{f}' of {cls.__name__} cannot hold a value of type {v.type}")
        parts.append(typed(v, v.type))
    return tuple_value(T.named_tuple([p.type for p in parts], cls), parts)


def namedtuple_attribute(cx, node, v, attr):
    """``p.x``: the element of field ``x``."""
    t = v.type
    if attr not in t.fields:
        cx.error(node, f"'{t}' has no field '{attr}' (its fields: {', '.join(t.fields)})")
    return cx.tuple_elements(node, v)[t.fields.index(attr)]

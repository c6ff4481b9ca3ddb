"""datetime64 / timedelta64 in kernels: typing of their operators (Numba's npdatetime rules, NumPy's units) and the
C++ they become (kernels/cudajit/datetime.h).

Two operands meet in the finer of their units, as NumPy converts them (``timedelta64[s] + timedelta64[ms]`` is
``timedelta64[ms]``). Years and months convert only to each other: mixing them with weeks, days or finer units is a
TypingError, as NumPy refuses it for timedeltas (datetimes of years or months against finer units would need
NumPy's calendar; cudajit refuses them too).
"""
from . import types as T
from .values import Value, cast, typed, PRIMARY, UNARY, MUL, ADD, REL, EQ

_PREC = {"+": ADD, "-": ADD, "*": MUL, "<": REL, "<=": REL, ">": REL, ">=": REL, "==": EQ, "!=": EQ}
_NONLINEAR = ("Y", "M")


def involved(*ts):
    return any(isinstance(t, T.NPTime) for t in ts)


def common_unit(u, v):
    """The unit two values meet in (the finer one), or None where NumPy has no common unit."""
    if (u in _NONLINEAR) != (v in _NONLINEAR):
        return None
    return max(u, v, key=T.NPTime.UNITS.__getitem__)


def convertible(src, dst):
    """Whether a ``src`` value may be stored as ``dst`` (same kind, towards a finer unit: NumPy's safe cast)."""
    return type(src) is type(dst) and common_unit(src.unit, dst.unit) == dst.unit


def to_unit(v, unit):
    return cast(v, type(v.type)(unit))


def _meet(cx, node, op, a, b):
    unit = common_unit(a.type.unit, b.type.unit)
    if unit is None:
        cx.error(node, f"cannot combine {a.type} and {b.type} with {op}: NumPy has no common unit for years or "
                       f"months and weeks, days or finer units", "convert one operand to the other's unit first")
    return to_unit(a, unit), to_unit(b, unit)


def _infix(ret, op, a, b):
    prec = _PREC[op]
    return Value(ret, f"{a.at(prec)} {op} {b.at(prec + 1)}", prec)


def _number(v):
    """An int (or bool) operand as int64, a float as float64; None for anything else."""
    if T.is_int(v.type) or v.type == T.boolean:
        return typed(v, T.int64)                     # a literal too: datetime.h overloads int64_t and double
    if T.is_float(v.type):
        return typed(v, T.float64)
    return None


def binary(cx, node, op, a, b):
    """``a op b`` where one operand is a datetime64 or timedelta64 (Numba's supported operations)."""
    A, B = a.type, b.type
    dt, td = T.NPDatetime, T.NPTimedelta
    if op in ("+", "-") and isinstance(A, (dt, td)) and isinstance(B, td) \
            or op == "+" and isinstance(A, td) and isinstance(B, dt) \
            or op == "-" and isinstance(A, dt) and isinstance(B, dt):
        x, y = _meet(cx, node, op, a, b)
        kind = td if isinstance(A, dt) and isinstance(B, dt) or isinstance(A, td) and isinstance(B, td) else dt
        return _infix(kind(x.type.unit), op, x, y)
    if isinstance(A, td) and isinstance(B, td) and op in ("/", "//", "%"):
        x, y = _meet(cx, node, op, a, b)
        fn, ret = {"/": ("td_truediv", T.float64), "//": ("td_floordiv", T.int64), "%": ("td_mod", x.type)}[op]
        return Value(ret, f"cj::{fn}({x.code}, {y.code})")
    if op == "*" and (isinstance(A, td) or isinstance(B, td)):
        delta, n = (a, _number(b)) if isinstance(A, td) else (b, _number(a))
        if n is not None:
            return _infix(delta.type, "*", delta, n) if delta is a else _infix(delta.type, "*", n, delta)
    if op in ("/", "//") and isinstance(A, td):
        n = _number(b)
        if n is not None and (op == "/" or n.type == T.int64):
            return Value(A, f"cj::td_div({a.code}, {n.code})")
    cx.error(node, f"unsupported operand types for {op}: {A} and {B}",
             "Numba supports datetime - datetime, datetime +/- timedelta, timedelta +/- timedelta, timedelta * "
             "number, timedelta / number, timedelta // int and timedelta / // % timedelta")


def compare(cx, node, op, a, b):
    """``a op b`` of two datetimes or two timedeltas, in their common unit; NaT compares unequal (NumPy)."""
    if type(a.type) is not type(b.type):
        cx.error(node, f"cannot compare {a.type} and {b.type} with {op}")
    x, y = _meet(cx, node, op, a, b)
    return _infix(T.boolean, op, x, y)


def unary(cx, node, op, a):
    if op in ("-", "+") and isinstance(a.type, T.NPTimedelta):
        return a if op == "+" else Value(a.type, f"-{a.at(UNARY)}", UNARY)
    cx.error(node, f"bad operand type for unary {op}: {a.type}")


def absolute(v):
    """``abs(timedelta)``; NaT stays NaT."""
    return Value(v.type, f"cj::abs({v.code})", PRIMARY)

"""Python builtins inside kernels: abs min max round pow len int float bool complex isinstance print (``range`` is part of
the ``for`` statement). Typing follows Numba's (e.g. ``round(x)`` is int64, ``abs`` of an int keeps its type)."""
import warnings

from ..errors import NumbaWarning
from . import datetimes, types as T
from .registry import intrinsic, expect_args
from .operators import binary
from .typeconv import resolve, unify_all
from .values import LOR, Value, cast, const_value, type_name, typed

_ABS = ([(t, (t,)) for t in T.signed_domain] + [(t, (t,)) for t in T.unsigned_domain]
        + [(t, (t,)) for t in (T.float16,) + T.real_domain] + [(t.underlying, (t,)) for t in T.complex_domain])


def _undefined(args):
    return any(isinstance(a, Value) and a.type == T.undefined for a in args)


@intrinsic("abs")
def _abs(cx, node, args, kwargs):
    expect_args(cx, node, "abs", args, 1)
    if _undefined(args):
        return Value(T.undefined, "?")
    x = args[0]
    if isinstance(x.type, T.NPTimedelta):
        return datetimes.absolute(x)
    found = resolve(_ABS, [x.type], [x.literal])
    if found is None:
        cx.error(node, f"abs() does not accept {x.type}")
    ret, (f,) = found
    x = cast(x, f)
    if isinstance(f, T.Complex):
        return Value(ret, f"cj::m::abs({x.code})", nonneg=True)
    if T.is_float(f):
        return Value(ret, f"cj::m::fabs({x.code})", nonneg=True)
    if not f.signed:
        return x
    return Value(ret, f"cj::iabs({typed(x, f).code})")


def _minmax(fn):
    def impl(cx, node, args, kwargs):
        if len(args) == 1 and isinstance(args[0], Value) and args[0].elements is not None:
            args = args[0].elements                      # min(tuple)
        if len(args) < 2:
            cx.error(node, f"{fn}() takes at least 2 arguments (or one tuple)")
        if _undefined(args):
            return Value(T.undefined, "?")
        if not all(isinstance(a, Value) and T.is_scalar(a.type) and not isinstance(a.type, T.Complex) for a in args):
            cx.error(node, f"{fn}() takes real numbers")
        t = unify_all([a.type for a in args])
        if len(args) == 2 and all(T.is_float(a.type) for a in args):
            # numba-cuda lowers min/max of two floats to fmin/fmax (a NaN operand is ignored); more operands,
            # or ints mixed in, take Python's comparisons.
            return Value(t, f"cj::m::f{fn}({typed(args[0], t).code}, {typed(args[1], t).code})",
                         nonneg=args[0].nonneg or args[1].nonneg if fn == "max" else args[0].nonneg and args[1].nonneg)
        out = typed(args[0], t)
        for a in args[1:]:
            out = Value(t, f"cj::py{fn}({out.code}, {typed(a, t).code})", nonneg=out.nonneg and a.nonneg)
        return out
    intrinsic(fn)(impl)


_minmax("min")
_minmax("max")


_ROUND_NDIGITS = [(T.float32, (T.float32, T.int64)), (T.float64, (T.float64, T.int64))]


@intrinsic("round", params=["number", "ndigits"])
def _round(cx, node, args, kwargs):
    expect_args(cx, node, "round", args, 1, 2)
    if _undefined(args):
        return Value(T.undefined, "?")
    x = args[0]
    if len(args) == 1:
        if T.is_float(x.type):
            return Value(T.int64, f"int64_t(cj::round_even({x.code}))")
        if T.is_int(x.type) or x.type == T.boolean:
            return cast(x, T.int64)
        cx.error(node, f"round() does not accept {x.type}")
    found = resolve(_ROUND_NDIGITS, [x.type, args[1].type], [x.literal, args[1].literal])
    if found is None:
        cx.error(node, f"round(x, ndigits) does not accept ({x.type}, {args[1].type})")
    ret, (fx, _) = found                  # an integer x is rounded as a float, as Numba's signatures say
    return Value(ret, f"cj::round_ndigits({typed(x, fx).code}, {cast(args[1], T.int64).code})")


@intrinsic("pow")
def _pow(cx, node, args, kwargs):
    expect_args(cx, node, "pow", args, 2)
    return binary(cx, node, "**", args[0], args[1])


@intrinsic("len", params=["obj"])
def _len(cx, node, args, kwargs):
    expect_args(cx, node, "len", args, 1)
    x = args[0]
    if isinstance(x.type, T.Array):
        if x.type.ndim == 0:
            cx.error(node, "len() of a 0-d array")
        extent = (x.param, 0) if cx.state.is_kernel and x.param is not None else None
        return Value(T.int64, f"{x.code}.shape[0]", nonneg=True, extent=extent)
    if isinstance(x.type, T.BaseTuple):
        return const_value(x.type.count)
    if isinstance(x.const, str):
        return const_value(len(x.const))
    cx.error(node, f"len() does not accept {x.type}")


def _scalar_cast(name, target, keeps=lambda t: False):
    """``int(x)``, ``float(x)``, ``bool(x)``: ``target``, except that a value whose type ``keeps`` holds keeps it
    (numba-cuda: ``int(int32)`` is int32, ``float(float32)`` float32)."""
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, name, args, 0 if name != "bool" else 0, 1)
        if not args:
            return const_value({"int": 0, "float": 0.0, "bool": False}[name])
        if _undefined(args):
            return Value(T.undefined, "?")
        if name == "float" and isinstance(getattr(args[0], "const", None), str):
            try:                                      # float("nan"), float("inf"): a constant, as Numba folds it
                return const_value(float(args[0].const))
            except ValueError:
                cx.error(node, f"could not convert string to float: {args[0].const!r}")
        t = getattr(args[0], "type", None)
        return cx.explicit_cast(node, args[0], t if t is not None and keeps(t) else target)
    intrinsic(name)(impl)


_scalar_cast("int", T.int64, T.is_int)
_scalar_cast("float", T.float64, lambda t: isinstance(t, T.Float))
_scalar_cast("bool", T.boolean)


# isinstance(x, cls) against a builtin class: the kinds of Numba types it stands for
_ISINSTANCE_KINDS = {int: T.is_int, float: lambda t: isinstance(t, T.Float) and t != T.bfloat16,
                     complex: lambda t: isinstance(t, T.Complex), bool: lambda t: t == T.boolean}


@intrinsic("isinstance")
def _isinstance(cx, node, args, kwargs):
    """``isinstance(x, cls)``: a compile-time bool (Numba decides it by type, so a branch on it is pruned): ``cls``
    a type (``float32``, ``bfloat16``: x has exactly that type), int, float, complex, bool, or a tuple of these."""
    expect_args(cx, node, "isinstance", args, 2)
    if _undefined(args[:1]):
        return Value(T.undefined, "?")
    x, classes = args
    if not isinstance(x, Value):
        cx.error(node, "isinstance() takes a value as its first argument")
    result = False
    for cls in classes if isinstance(classes, tuple) else (classes,):
        if getattr(cls, "path", None) == "type":
            result |= x.type == cls.obj
        elif getattr(cls, "obj", None) in _ISINSTANCE_KINDS:
            result |= _ISINSTANCE_KINDS[cls.obj](x.type)
        else:
            cx.error(node, "isinstance() in CUDA kernels takes a class or a tuple of classes: types such as "
                           "float32 or bfloat16, or int, float, complex, bool")
    return const_value(bool(result))


@intrinsic("complex", params=["real", "imag"])
def _complex(cx, node, args, kwargs):
    expect_args(cx, node, "complex", args, 0, 2)
    if _undefined(args):
        return Value(T.undefined, "?")
    if any(isinstance(a.type, T.Complex) for a in args):
        cx.error(node, "complex() with complex arguments is not supported in CUDA kernels")
    for a in args:              # an array, a tuple, None: the C++ cast failed in the host compiler
        if not T.is_scalar(a.type):
            cx.error(node, f"complex() takes real numbers, not {type_name(a)}")
    t = T.complex64 if args and all(a.type == T.float32 for a in args) else T.complex128
    parts = [cast(a, t.underlying).code for a in args] + [f"{t.underlying.cpp}(0)"] * (2 - len(args))
    return Value(t, f"cj::make_complex({parts[0]}, {parts[1]})")


def _c_string(text):
    """``text`` inside a C string literal of a printf format: escaped, and other control characters as octal escapes
    (a raw carriage return or escape byte in the generated source reads badly and some compilers warn)."""
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("%", "%%")
    return "".join(f"\\{ord(c):03o}" if ord(c) < 32 or ord(c) == 127 else c for c in out)


def _print_item(cx, node, v):
    """(format, [C++ arguments]) for one printed value, as numba-cuda's print_item."""
    v = cx.as_value(node, v)
    if isinstance(v.const, str):
        # A NUL ends a C string (the format): each is printed by a %c of 0, so the rest of the line follows it, as
        # Python prints it (issue 37: the line was cut there).
        pieces = v.const.split("\0")
        return "%c".join(_c_string(p) for p in pieces), ["0"] * (len(pieces) - 1)
    t = v.type
    if t == T.none:
        return "None", []
    if t == T.boolean:
        return "%s", [f'({v.at(LOR)} ? "True" : "False")']
    if T.is_int(t):
        return ("%lld", [f"(long long)({v.code})"]) if t.signed else ("%llu", [f"(unsigned long long)({v.code})"])
    if T.is_float(t):
        return "%f", [f"double({v.code})"]
    if isinstance(t, T.Optional):
        cx.error(node, f"print() of a value that may be None ({t}, Numba's Optional) is not supported in CUDA kernels",
                 "print a conversion of it, e.g. print(float(x)), where it is not None")
    if isinstance(t, T.BaseTuple):
        parts = [_print_item(cx, node, e) for e in cx.tuple_elements(node, v)]
        fmt = ", ".join(p[0] for p in parts)
        return (f"({fmt},)" if len(parts) == 1 else f"({fmt})"), [a for p in parts for a in p[1]]
    cx.error(node, f"print() cannot print a value of type {t} in a CUDA kernel")


_PRINT_MAX_ITEMS = 32


@intrinsic("print", effect=True)
def _print(cx, node, args, kwargs):
    if kwargs:
        cx.unsupported(node, "print() keyword arguments (sep, end, file) are not supported in CUDA kernels")
    if _undefined(args):
        return Value(T.undefined, "?")
    fmts, values = [], []
    for a in args:
        f, vs = _print_item(cx, node, a)
        fmts.append(f)
        values.extend(vs)
    fmt = " ".join(fmts)
    if len(args) > _PRINT_MAX_ITEMS:
        # CUDA's vprintf takes at most 32 arguments: numba-cuda then prints its format string as text, and warns
        if cx.state.final:
            warnings.warn_explicit(f"CUDA print() cannot print more than {_PRINT_MAX_ITEMS} items. The raw format "
                                   "string will be emitted by the kernel instead.", NumbaWarning,
                                   cx.state.loc.filename, cx.state.loc.lineno(node))
        fmt, values = fmt.replace("%", "%%"), []
    rest = "".join(", " + v for v in values)
    return Value(T.none, f'CJ_PRINTF("{fmt}\\n"{rest})')


@intrinsic("range")
def _range(cx, node, args, kwargs):
    cx.unsupported(node, "range() is only supported as the iterable of a for loop in CUDA kernels")

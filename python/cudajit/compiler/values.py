"""What an expression translates to: a typed C++ expression (``Value``) or a compile-time object (``Symbol``)."""
from . import types as T

# C++ operator precedence (higher binds tighter); a primary expression (name, call, literal) is PRIMARY.
PRIMARY, UNARY, MUL, ADD, SHIFT, REL, EQ, BITAND, XOR, BITOR, LAND, LOR, COND = 16, 15, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3


class Value:
    """A typed C++ expression.

    ``const``: the Python value when known at compile time (literals, frozen globals) - used for shared array
    shapes, tuple indices, range steps, folding. ``literal``: an int literal, which Numba rates no better than
    'promote' when choosing an operator's signature. ``nonneg``: provably >= 0 (thread indices, shapes, loop
    counters from 0 up), so indexing needs no negative wraparound. ``elements``: the parts of a tuple value, so
    ``a.shape[0]`` and ``x, y = cuda.grid(2)`` stay readable. ``lvalue``: assignable (array elements).
    ``grid``: the value is ``cuda.grid``'s component 0, 1 or 2 (x, y, z) of the running thread, else None.
    ``param``: the value is the kernel's parameter of this name, unassigned on every path here, else None.
    ``extent``: the value is ``(parameter, axis)``'s extent, ``p.shape[axis]`` (``p.size``, ``len(p)`` of a 1-d
    one) of such a parameter, else None (operators.compare: a grid index below it in a block the CPU proved).
    """
    __slots__ = ("type", "code", "prec", "const", "literal", "nonneg", "elements", "lvalue", "grid", "param",
                 "extent")
    NOCONST = object()

    def __init__(self, type_, code, prec=PRIMARY, const=NOCONST, literal=False, nonneg=False, elements=None,
                 lvalue=False, grid=None, param=None, extent=None):
        self.type, self.code, self.prec = type_, code, prec
        self.const, self.literal, self.nonneg = const, literal, nonneg
        self.elements, self.lvalue = elements, lvalue
        self.grid, self.param, self.extent = grid, param, extent

    @property
    def is_const(self):
        return self.const is not Value.NOCONST

    def at(self, prec):
        """The code, parenthesised if it binds looser than ``prec`` requires."""
        return self.code if self.prec >= prec else f"({self.code})"

    def __repr__(self):
        return f"Value({self.type}, {self.code!r})"


class Symbol:
    """A compile-time object: a module or namespace (``cuda``, ``cuda.atomic``), an intrinsic, a type used as a
    value (``float32``), a device function, a Python constant not yet turned into a Value."""
    __slots__ = ("path", "obj")

    def __init__(self, path, obj):
        self.path, self.obj = path, obj

    def __repr__(self):
        return f"Symbol({self.path!r})"


def cpp_int_literal(v, t=None):
    """An integer literal C++ reads as the intended value. Beyond 32 bits it is written as int64_t(...) or
    uint64_t(...): a suffix cannot name those types on both targets (int64_t is long on the host's LP64 and long
    long under NVRTC), and a literal of another type than int64_t breaks runtime templates (cj::pymin(T, T))."""
    v = int(v)        # an IntEnum member formats as 'Name.MEMBER' before Python 3.11
    if t is not None and not t.signed:
        return f"uint64_t({v}ull)" if v > 0xFFFFFFFF else f"{v}u"
    if -2**31 <= v < 2**31:
        return str(v)
    if v == -2**63:
        return "int64_t(-9223372036854775807ll - 1)"
    return f"int64_t({v}ll)" if -2**63 <= v < 2**63 else f"uint64_t({v}ull)"


def cpp_float_literal(v, t):
    """A float literal that round-trips exactly; inf/nan through the runtime's helpers."""
    if t == T.float16:                                  # rounded to half by cj::half's constructor
        return f"cj::half({cpp_float_literal(v, T.float64)})"
    if t == T.bfloat16:                                 # rounded once by cj::bfloat16's constructor
        return f"cj::bfloat16({cpp_float_literal(v, T.float64)})"
    if v != v:
        return f"cj::nan<{t.cpp}>()"
    if v in (float("inf"), float("-inf")):
        return f"{'-' if v < 0 else ''}cj::inf<{t.cpp}>()"
    r = repr(float(v))
    if "e" not in r and "." not in r:
        r += ".0"
    return r + ("f" if t == T.float32 else "")


def float_literal(v, t):
    """The float constant ``v`` of type ``t`` (float32 or float64) as a Value. -0.0 is ``cj::neg_zero`` (config.h
    says why) and, being below zero for a division, is not ``nonneg``."""
    import math
    if v == 0 and math.copysign(1.0, v) < 0:
        return Value(t, f"cj::neg_zero<{t.cpp}>()", const=v)
    return Value(t, cpp_float_literal(v, t), PRIMARY if v >= 0 else UNARY, const=v, nonneg=v >= 0)


def bfloat16_value(v):
    """The number ``v`` (an int or float) rounded once to bfloat16, to nearest even, as a float: what
    ``cj::bfloat16(v)`` holds (inf beyond its range, nan for nan)."""
    import math
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return v
    num, den = (v, 1) if isinstance(v, int) else v.as_integer_ratio()   # den is a power of two
    mag, exp2 = abs(num), -(den.bit_length() - 1)
    if mag == 0:
        return math.copysign(0.0, v) if isinstance(v, float) else 0.0
    e = mag.bit_length() - 1 + exp2
    s = max(e, -126) - 7 - exp2                       # the low bits of mag that bfloat16 drops
    kept = mag >> s if s > 0 else mag << -s
    rest, half = (mag - (kept << s), 1 << (s - 1)) if s > 0 else (0, 1)
    kept += rest > half or (rest == half and kept & 1)
    r = math.ldexp(kept, max(e, -126) - 7) if kept < 1 << 9 else math.inf
    r = math.inf if r >= 2.0 ** 128 else r
    return -r if num < 0 else r


def const_value(v):
    """A Python constant (int, float, bool, complex) as a literal Value typed as Numba types it."""
    if isinstance(v, bool):
        return Value(T.boolean, "true" if v else "false", const=v)
    if isinstance(v, int):
        t = T.int64 if -2**63 <= v < 2**63 else T.uint64
        return Value(t, cpp_int_literal(v, t), PRIMARY if v >= 0 else UNARY, const=v, literal=True, nonneg=v >= 0)
    if isinstance(v, float):
        return float_literal(v, T.float64)
    if isinstance(v, complex):
        return Value(T.complex128, f"cj::make_complex({cpp_float_literal(v.real, T.float64)}, "
                                   f"{cpp_float_literal(v.imag, T.float64)})", const=v)
    return None


def type_name(v):
    """A value's type as an error message names it: a string constant is ``str 'abc'``."""
    if isinstance(v, Value) and isinstance(v.type, T.StringLiteral):
        return f"{type(v.const).__name__} {v.const!r:.40}"
    return str(v.type)


def string_value(s):
    """A str or bytes constant in a kernel: compile-time, no C++ of its own (types.StringLiteral)."""
    return Value(T.StringLiteral(s), "", const=s)


def none_value():
    """``None`` in a kernel: a compile-time value of type none (no C++ of its own), as Numba's ``none``."""
    return Value(T.none, "", const=None)


def cast(v, t):
    """``v`` converted to ``t`` (Numba's implicit conversion), as C++ code; unchanged if already ``t``."""
    if v.type == t:
        return v
    if isinstance(t, T.Optional) or isinstance(v.type, T.Optional):
        return _optional_cast(v, t)
    if isinstance(v.type, T.FP8):                    # CUDA's conversion operators (fp8.h); fp8lib checked t
        return Value(t, f"cj::fp8::to<{t.cpp}>({v.code})")
    if isinstance(t, T.NPTime):                      # to a finer unit (datetimes.convertible said it may)
        return Value(t, f"cj::to_unit<{t.unit_code}>({v.code})")
    if isinstance(t, T.Array) and isinstance(v.type, T.Array) and t.ndim == v.type.ndim and t.cpp != v.type.cpp:
        # the same array seen with another layout tag: a variable holding C and A arrays is an A array (array.h)
        return Value(t, f"cj::array_cast<{t.cpp}>({v.code})")
    if isinstance(t, T.Array) or isinstance(v.type, T.Array):
        return Value(t, f"{t.cpp}({v.code})", nonneg=v.nonneg)
    if isinstance(t, T.BaseTuple):
        if v.elements is not None:
            parts = [cast(e, et) for e, et in zip(v.elements, t.types)]
            return tuple_value(t, parts)
        return Value(t, f"cj::tuple_cast<{t.cpp}>({v.code})")
    if v.is_const and not isinstance(v.const, (tuple, str)):
        c = v.const
        if T.is_int(t) and isinstance(c, (int, bool)) and not isinstance(c, bool):
            lo, hi = (-2**(t.bitwidth - 1), 2**(t.bitwidth - 1)) if t.signed else (0, 2**t.bitwidth)
            if lo <= c < hi:
                return Value(t, cpp_int_literal(c, t), v.prec, const=c, literal=v.literal, nonneg=c >= 0)
        if t == T.bfloat16 and isinstance(c, (int, float)) and not isinstance(c, bool):
            fc = bfloat16_value(c)                      # the value the kernel holds, for folding
            return Value(t, cpp_float_literal(float(c), t), const=fc, nonneg=fc >= 0)
        if T.is_float(t) and isinstance(c, (int, float)) and not isinstance(c, bool):
            fc = float(c)
            if t == T.float64 or float(__import__("numpy").float32(fc)) == fc:
                return float_literal(fc, t)
    if isinstance(t, T.Complex):
        if isinstance(v.type, T.Complex):
            return Value(t, f"cj::complex_cast<{t.underlying.cpp}>({v.code})")
        return Value(t, f"cj::make_complex({t.underlying.cpp}({v.code}), {t.underlying.cpp}(0))")
    if t == T.boolean:
        if isinstance(v.type, T.Complex):
            return Value(t, f"({v.at(PRIMARY)}.re != 0 || {v.at(PRIMARY)}.im != 0)", LOR)
        return Value(t, f"({v.at(REL)} != 0)", PRIMARY)
    nonneg = v.nonneg or (T.is_int(t) and not t.signed)
    if T.is_int(t) and t.bitwidth < 32 and T.is_int(v.type) and (
            v.type.bitwidth > t.bitwidth or (v.type.bitwidth == t.bitwidth and v.type.signed != t.signed)):
        # an integer that may not fit an 8- or 16-bit type: wrapped by inline PTX on the GPU (arith.h: ptxas
        # dropped the sign extension of int16(32768) when it was widened again)
        return Value(t, f"cj::narrow_int<{t.cpp}>({v.code})", nonneg=nonneg)
    return Value(t, f"{t.cpp}({v.code})", nonneg=nonneg if T.is_number(t) else False)


def _optional_cast(v, t):
    """Conversions into and out of ``cj::Optional`` (lang.h). Out of one, this reads the value *unchecked*: it is
    for a variable's use that only non-None definitions reach; a use that may meet None goes through
    ``Expressions.unwrap_optional``, which checks the flag."""
    if isinstance(t, T.Optional):
        if v.type == T.none:
            return Value(t, f"{t.cpp}{{}}")
        if isinstance(v.type, T.Optional):
            return Value(t, f"cj::opt_cast<{t.type.cpp}>({v.code})")
        return Value(t, f"cj::some<{t.type.cpp}>({cast(v, t.type).code})")
    return cast(Value(v.type.type, f"{v.at(PRIMARY)}.value"), t)


def is_shape_constant(c):
    """An int or a tuple of ints (not bools): what a local may carry as a known constant."""
    def is_int(x):
        return isinstance(x, int) and not isinstance(x, bool)
    return is_int(c) or (isinstance(c, tuple) and len(c) > 0 and all(is_int(x) for x in c))


def tuple_value(t, parts):
    """A tuple Value built from element Values (already converted to ``t``'s element types)."""
    if isinstance(t, T.UniTuple):
        code = f"{t.cpp}{{{{{', '.join(p.code for p in parts)}}}}}"
    else:
        # the element types written out: deduced, `abs(int16) | uint32` would give a C++ unsigned int, not int64
        types = ", ".join(e.cpp for e in t.types)
        code = f"cj::make_tuple<{types}>({', '.join(p.code for p in parts)})" if parts else "cj::make_tuple()"
    const = tuple(p.const for p in parts) if all(p.is_const for p in parts) else Value.NOCONST
    return Value(t, code, const=const, elements=list(parts))


def typed(v, t):
    """``v`` as ``t`` with its C++ type exactly ``t`` - for arguments of runtime templates (``cj::floordiv(a, b)``
    deduces T from both), where an integer literal would otherwise be a C++ ``int``."""
    c = cast(v, t)
    if c.is_const and (T.is_int(t) or t == T.boolean) and not c.code.startswith(t.cpp + "("):
        if t == T.boolean:
            return c
        return Value(t, f"{t.cpp}({c.code})", const=c.const, literal=c.literal, nonneg=c.nonneg)
    return c


def reinterpret(v, rt, offset, rescale=False):
    """``v``'s bytes as the array type ``rt``, starting ``offset`` bytes into each element (array.h); ``rescale``:
    the last axis counts ``rt``'s elements (a view), else the shape and strides stay (``.real``, ``.imag``)."""
    return Value(rt, f"cj::reinterpret_view<{rt.cpp}>({v.code}, {offset}, {'true' if rescale else 'false'})")

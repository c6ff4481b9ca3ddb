"""Python operators: Numba's signature tables (typing) and their C++ (emission).

Each operator has Numba's list of cases; ``typeconv.resolve`` picks one, the operands are converted to its
argument types and the C++ operator or runtime function (arith.h) is applied. A conversion is written only where
C++'s own arithmetic conversions would not give the same value, so ``a[i] + b[i]`` stays ``a(i) + b(i)``.
"""
import enum
import itertools
import math
import operator

import numpy as np

from . import datetimes, types as T
from .pyvalues import compare_enum
from .typeconv import resolve
from .values import (Value, cast, const_value, typed, cpp_int_literal, PRIMARY, UNARY, MUL, ADD, REL, EQ, BITAND, XOR,
                     BITOR, LAND, LOR)

_MACHINE_INTS = [T.int64, T.uint64]


def _result_int(*ts):
    return T.int64 if any(t.signed for t in ts) else T.uint64


_INT_BINOP = [(_result_int(a, b), (a, b)) for a, b in itertools.product(_MACHINE_INTS, _MACHINE_INTS)]
_REAL_BINOP = [(t, (t, t)) for t in T.real_domain]
# numba-cuda's float16 arithmetic: half op half stays half; mixed with other numbers the conversion rules give
# NumPy's result types (float16 op int8 is float16, op int16 or float32 is float32, op int32 is float64).
_HALF_BINOP = [(T.float16, (T.float16, T.float16))]
# numba-cuda's bfloat16 (numba.cuda.bf16): bf16 op bf16 stays bf16 (+ - * /); with int8/uint8 too, with other numbers
# float32 or wider. After the other cases, so that it never takes a tie from them (bool + bool stays int64).
_BF16_BINOP = [(T.bfloat16, (T.bfloat16, T.bfloat16))]
_COMPLEX_BINOP = [(t, (t, t)) for t in T.complex_domain]

CASES = {
    "+": _INT_BINOP + _HALF_BINOP + _REAL_BINOP + _COMPLEX_BINOP + _BF16_BINOP,
    "-": _INT_BINOP + _HALF_BINOP + _REAL_BINOP + _COMPLEX_BINOP + _BF16_BINOP,
    "*": _INT_BINOP + _HALF_BINOP + _REAL_BINOP + _COMPLEX_BINOP + _BF16_BINOP,
    "%": _INT_BINOP + _REAL_BINOP,
    "//": _INT_BINOP + _REAL_BINOP,
    "/": [(T.float64, args) for _, args in _INT_BINOP] + _HALF_BINOP + _REAL_BINOP + _COMPLEX_BINOP + _BF16_BINOP,
    "**": _INT_BINOP + [(f, (f, i)) for f in T.real_domain for i in (T.int32, T.int64, T.uint64)]
    + _REAL_BINOP + _COMPLEX_BINOP,
    "<<": [(max(op, T.int64, key=lambda t: t.bitwidth) if op.signed else T.uint64, (op, n))
           for op in T.signed_domain + T.unsigned_domain for n in (T.uint64, T.int64)],
    "&": [(T.boolean, (T.boolean, T.boolean))] + _INT_BINOP,
}
CASES[">>"] = CASES["<<"]
CASES["|"] = CASES["^"] = CASES["&"]
_NO_UNSAFE = {"<<", ">>", "&", "|", "^", "~"}

_ORDERED = [(T.boolean, (T.boolean, T.boolean))] + [(T.boolean, (t, t))
                                                    for t in T.integer_domain + (T.float16,) + T.real_domain]
_ORDERED += [(T.boolean, (T.bfloat16, T.bfloat16))]
CMP_CASES = {"<": _ORDERED, "<=": _ORDERED, ">": _ORDERED, ">=": _ORDERED,
             "==": _ORDERED + [(T.boolean, (t, t)) for t in T.complex_domain]}
CMP_CASES["!="] = CMP_CASES["=="]

_UNARY = ([(T.uint64, (t,)) for t in T.unsigned_domain] + [(T.int64, (t,)) for t in T.signed_domain]
          + [(t, (t,)) for t in (T.float16,) + T.real_domain + T.complex_domain] + [(T.int64, (T.boolean,))]
          + [(T.bfloat16, (T.bfloat16,))])
UNARY_CASES = {"-": _UNARY, "+": _UNARY,
               "~": [(T.boolean, (T.boolean,))] + [(T.uint64, (t,)) for t in T.unsigned_domain]
               + [(T.int64, (t,)) for t in T.signed_domain]}

PY_OPS = {"Add": "+", "Sub": "-", "Mult": "*", "Div": "/", "FloorDiv": "//", "Mod": "%", "Pow": "**",
          "MatMult": "@", "LShift": "<<", "RShift": ">>", "BitAnd": "&", "BitOr": "|", "BitXor": "^",
          "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">=", "Eq": "==", "NotEq": "!=",
          "USub": "-", "UAdd": "+", "Invert": "~"}
_INFIX_PREC = {"+": ADD, "-": ADD, "*": MUL, "&": BITAND, "|": BITOR, "^": XOR,
               "<": REL, "<=": REL, ">": REL, ">=": REL, "==": EQ, "!=": EQ, "/": MUL}


def _implicitly_same(t_from, t_to):
    """Whether C++'s usual arithmetic conversions turn a ``t_from`` operand into ``t_to`` by themselves, with
    the value Numba's explicit conversion gives (so no cast needs writing)."""
    if t_from == t_to:
        return True
    if T.float16 in (t_from, t_to) or T.bfloat16 in (t_from, t_to):
        return False                  # cj::half, cj::bfloat16 are classes: C++ never mixes them with builtin arithmetic
    if T.is_float(t_to):
        return T.is_int(t_from) or t_from == T.boolean or (T.is_float(t_from) and t_from.bitwidth < t_to.bitwidth)
    if T.is_int(t_to) and t_to.bitwidth == 64:
        return (T.is_int(t_from) and t_from.bitwidth < 64) or t_from == T.boolean
    return False


def convert_operands(a, b, fa, fb):
    """Operands converted to the formal types ``fa``/``fb``, writing as few casts as C++ allows: when one operand
    already has the common type, the other converts implicitly (constants are always rewritten as literals)."""
    def exact(v):
        # an integer literal is a C++ int whatever its Numba type, so it does not carry the common type
        return v.type == t and not (v.is_const and not T.is_float(v.type))

    def implicit(v, other):
        return v.type == t or (_implicitly_same(v.type, t) and not v.is_const and exact(other))
    t = fa
    if fa != fb:
        return cast(a, fa), cast(b, fb)
    if a.type == t and b.type == t:
        return a, b
    if a.type == t:
        return a, (b if implicit(b, a) else cast(b, t))
    if b.type == t:
        return (a if implicit(a, b) else cast(a, t)), b
    ca = cast(a, t)
    return ca, (b if implicit(b, ca) else cast(b, t))


def _wrap_int(v, t):
    """v wrapped into integer type t, as a cast or an overflow does in Numba."""
    bits = t.bitwidth
    v &= (1 << bits) - 1
    if t.signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def _fold(op, x, y):
    """Fold integer constants as Python would (the caller wraps the result into the result type)."""
    try:
        r = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y,
             "//": lambda: x // y if y else None, "%": lambda: x % y if y else None,
             "<<": lambda: x << y if 0 <= y < 64 else None, ">>": lambda: x >> y if 0 <= y < 64 else None,
             "&": lambda: x & y, "|": lambda: x | y, "^": lambda: x ^ y,
             "**": lambda: x ** y if 0 <= y < 64 else None}[op]()
    except KeyError:
        return None
    return r


# numba-cuda compiles debug kernels with Numba's 'python' error model: these raise ZeroDivisionError, with
# Numba's messages, where the 'numpy' model (no debug) gives 0, inf or nan.
_ZERO_DIVISION = {"/": "division by zero", "//": "division by zero", "%": "modulo by zero"}
_INT_ZERO_DIVISION = {"//": "integer division by zero", "%": "integer modulo by zero"}


def _checked_divisor(cx, node, op, ret, b):
    if isinstance(ret, T.Complex):
        msg = "complex division by zero"
    else:
        msg = _INT_ZERO_DIVISION.get(op) if T.is_int(ret) else None
    site = cx.state.program.error_site(ZeroDivisionError, (msg or _ZERO_DIVISION[op],), cx.state.loc, node)
    cx.state.may_raise = True
    cx.note_effect(raises=True)                    # a zero divisor ends the thread before the division (debug.h)
    return Value(b.type, f"cj::check_divisor({site}, {b.code})", nonneg=b.nonneg)


def binary(cx, node, op, a, b):
    """``a op b`` for arithmetic and bitwise operators."""
    if T.undefined in (a.type, b.type):
        return Value(T.undefined, "?")
    if datetimes.involved(a.type, b.type):
        return datetimes.binary(cx, node, op, a, b)
    if not (T.is_scalar(a.type) and T.is_scalar(b.type)):
        cx.error(node, f"unsupported operand types for {op}: {a.type} and {b.type}")
    found = resolve(CASES[op], [a.type, b.type], [a.literal, b.literal], unsafe_casting=op not in _NO_UNSAFE)
    if found is None:
        cx.error(node, f"unsupported operand types for {op}: {a.type} and {b.type}")
    ret, (fa, fb) = found
    if T.is_int(ret) and fa != fb and op not in ("<<", ">>"):
        fa = fb = ret                 # int64 op uint64: Numba converts both operands to the result type
    # float32 / float32 under fastmath is CUDA's fast division in numba-cuda, which has no zero check
    fast_division = op == "/" and ret == T.float32 and cx.state.program.options.fastmath
    if (op in _ZERO_DIVISION and cx.state.program.options.debug and not (b.is_const and b.const != 0)
        and not fast_division):
        b = _checked_divisor(cx, node, op, ret, b)
    if (a.is_const and b.is_const and T.is_int(ret) and isinstance(a.const, int) and isinstance(b.const, int)
            and not isinstance(a.const, bool) and not isinstance(b.const, bool)):
        # Numba converts the operands to the case's types (a shift's count to the result type), computes, and
        # wraps: uint64(2**64 - 1) // int64(2) is -1 // 2, uint32(4294967295) * uint32(4294967295) wraps in uint64
        x = _wrap_int(a.const, ret if op in ("<<", ">>") else fa)
        y = _wrap_int(b.const, ret if op in ("<<", ">>") else fb)
        r = _fold(op, x, y)
        if r is not None:
            r = _wrap_int(r, ret)
            if r >= 2**63:
                return Value(ret, cpp_int_literal(r, ret), PRIMARY, const=r, nonneg=True)
            return cast(Value(T.int64, cpp_int_literal(r), PRIMARY if r >= 0 else UNARY, const=r, nonneg=r >= 0), ret)
    if op in ("<<", ">>"):
        fn = "shl" if op == "<<" else "shr"
        return Value(ret, f"cj::{fn}({typed(a, ret).code}, {typed(b, fb).code})", nonneg=a.nonneg and op == ">>")
    if op == "**":
        if isinstance(ret, T.Complex):
            return Value(ret, f"cj::m::cpow({typed(a, ret).code}, {typed(b, ret).code})")
        if T.is_int(fb):
            fn, e = ("ipow_u", cast(b, T.uint64)) if fb == T.uint64 else ("ipow", cast(b, T.int64))  # uint64 stays
            return Value(ret, f"cj::{fn}({typed(a, ret).code}, {e.code})", nonneg=a.nonneg)
        return Value(ret, f"cj::m::pow({cast(a, fa).code}, {cast(b, fb).code})")
    ca, cb = convert_operands(a, b, fa, fb)
    if op in ("//", "%"):
        fn = "floordiv" if op == "//" else "pymod"
        return Value(ret, f"cj::{fn}({typed(a, fa).code}, {typed(b, fb).code})", nonneg=a.nonneg and b.nonneg)
    if op == "/" and T.is_int(fa):
        if fa != fb:                  # int64 / uint64: each operand becomes a float64 on its own (Numba)
            return Value(ret, f"cj::truediv({typed(a, T.float64).code}, {typed(b, T.float64).code})")
        return Value(ret, f"cj::truediv({typed(a, fa).code}, {typed(b, fb).code})")
    if (op == "-" and T.is_float(ret) and ca.is_const and isinstance(ca.const, (int, float))
            and ca.const == 0 and math.copysign(1.0, ca.const) > 0):
        # +0.0 - x: GCC 12 folds `0.0 - double(i)` into `-double(i)`, which is -0.0 for i == 0 (Python: 0.0)
        return Value(ret, f"cj::zero_minus<{ret.cpp}>({cb.code})")     # x in the result's type (int - float32: double)
    prec = _INFIX_PREC[op]
    code = f"{ca.at(prec)} {op} {cb.at(prec + 1)}"
    if ret == T.boolean:                      # bool & bool: C++ gives int
        return Value(ret, f"bool({code})")
    nonneg = a.nonneg and b.nonneg and op in ("+", "*", "&", "|", "^", "/")
    if op == "&" and (a.nonneg or b.nonneg):
        nonneg = True
    return Value(ret, code, prec, nonneg=nonneg)


_PY_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
               ">=": operator.ge}


def _chars_equal(op, x, y):
    """``==``/``!=`` of two fixed-width strings of one kind (C++ ``x``, ``y``): NumPy's, trailing NULs not counted."""
    eq = f"cj::chars_eq({x}, {y})"
    return Value(T.boolean, eq if op == "==" else f"!{eq}", PRIMARY if op == "==" else UNARY)


def _compare_strings(cx, node, op, a, b):
    """A comparison with a string constant, known when compiling: of two constants, Python's answer (``value ==
    "1"`` in a device function specialised on its literal argument takes one branch, as in numba-cuda); with None or
    a number, == is False and != True (values of different types), ``is`` likewise."""
    both = isinstance(a.type, T.StringLiteral) and isinstance(b.type, T.StringLiteral)
    chars = next((v.type for v in (a, b) if isinstance(v.type, T.CharSeq)), None)
    if chars is not None and op in ("==", "!="):
        # an 'S'/'U' element or field against a constant: the constant as a fixed-width string of its own length
        lit = a if isinstance(a.type, T.StringLiteral) else b
        n = max(1, len(lit.const))
        code = cx.chars_value(node, lit, T.CharSeq(n, chars.unicode)).code
        return _chars_equal(op, (b if lit is a else a).code, code)
    if op in ("is", "is not"):
        same = both and type(a.const) is type(b.const) and a.const == b.const
        r = same if op == "is" else not same
    elif both and (op in ("==", "!=") or type(a.const) is type(b.const)):
        r = _PY_COMPARE[op](a.const, b.const)
    elif op in ("==", "!=") and all(isinstance(v.type, T.StringLiteral) or v.type == T.none or T.is_scalar(v.type)
                                    for v in (a, b)):
        r = op == "!="
    else:
        cx.error(node, f"cannot compare {a.type} and {b.type} with {op}",
                 "kernels compare string constants with each other only")
    return Value(T.boolean, "true" if r else "false", const=r)


def compare(cx, node, op, a, b):
    """``a op b`` for one comparison; Numba compares in the common type its cases pick."""
    if T.undefined in (a.type, b.type):
        return Value(T.undefined, "?")
    if isinstance(a.type, T.StringLiteral) or isinstance(b.type, T.StringLiteral):
        return _compare_strings(cx, node, op, a, b)
    if isinstance(a.type, T.CharSeq) and isinstance(b.type, T.CharSeq) and op in ("==", "!=") \
            and a.type.unicode == b.type.unicode:
        return _chars_equal(op, a.code, b.code)
    if T.none not in (a.type, b.type) and (isinstance(a.type, T.EnumMember) or isinstance(b.type, T.EnumMember)):
        return compare_enum(cx, node, op, a, b)
    if op in ("is", "is not") and (_int_enum_class(a) or _int_enum_class(b)):
        # IntEnum members: the same object when of one class and one value (aliases are one member); Numba's `is`
        # of two IntEnumMember types compares them, of any other pair of types is False
        ca, cb = _int_enum_class(a), _int_enum_class(b)
        if ca is None or ca is not cb:
            r = op == "is not"
            return Value(T.boolean, "true" if r else "false", const=r)
        return compare(cx, node, "==" if op == "is" else "!=", a, b)
    if isinstance(a.type, T.BaseTuple) and isinstance(b.type, T.BaseTuple) and op not in ("is", "is not"):
        return _compare_tuples(cx, node, op, cx.tuple_elements(node, a), cx.tuple_elements(node, b))
    if op in ("is", "is not"):
        opt = a if isinstance(a.type, T.Optional) else b if isinstance(b.type, T.Optional) else None
        if opt is not None and T.none in (a.type, b.type):
            # numba's optional_is_none: the valid flag
            return Value(T.boolean, f"{'!' if op == 'is' else ''}{opt.at(PRIMARY)}.valid", UNARY if op == "is" else PRIMARY)
        if opt is not None:
            cx.unsupported(node, f"'{op}' between {a.type} and {b.type} is not supported in CUDA kernels",
                           "compare a value that may be None with None only")
        if a.type == T.none or b.type == T.none:
            same = (a.type == T.none) == (b.type == T.none) if a.type == T.none and b.type == T.none else False
            r = same if op == "is" else not same
            return Value(T.boolean, "true" if r else "false", const=r)
        if T.boolean in (a.type, b.type) and T.is_number(a.type) | (a.type == T.boolean) \
                and T.is_number(b.type) | (b.type == T.boolean):
            # Numba's `is` of booleans (``flag is True``, ``case True:``) compares them; a boolean and a number
            # are of different types, so never the same object
            if a.type != b.type:
                r = op == "is not"
                return Value(T.boolean, "true" if r else "false", const=r)
            return compare(cx, node, "==" if op == "is" else "!=", a, b)
        cx.unsupported(node, f"'{op}' is only supported against None and between booleans in CUDA kernels",
                       "use == or !=")
    if datetimes.involved(a.type, b.type):
        return datetimes.compare(cx, node, op, a, b)
    if not (T.is_scalar(a.type) and T.is_scalar(b.type)):
        cx.error(node, f"cannot compare {a.type} and {b.type} with {op}")
    found = resolve(CMP_CASES[op], [a.type, b.type], [a.literal, b.literal])
    if found is None:
        cx.error(node, f"cannot compare {a.type} and {b.type} with {op}")
    if _exact_int(a) and _exact_int(b):
        # Both known (``a.ndim == 2``, a global flag): a constant, so ``if`` takes one branch only, as Numba's
        # rewrite of arr.ndim and len(tuple) to constants and its dead-branch pruning do.
        r = _COMPARE[op](a.const, b.const)
        return Value(T.boolean, "true" if r else "false", const=r)
    _, (fa, fb) = found
    if fa == T.float64:
        # float32 against a constant that float32 holds exactly: comparing in float32 gives the same answer as
        # Numba's float64 comparison (both conversions are exact) and keeps double precision off the GPU.
        for x, y in ((a, b), (b, a)):
            if x.type == T.float32 and y.is_const and isinstance(y.const, (int, float)) \
                    and not isinstance(y.const, bool) and float(np.float32(y.const)) == y.const:
                fa = fb = T.float32
    ca, cb = convert_operands(a, b, fa, fb)
    prec = _INFIX_PREC[op]
    out = Value(T.boolean, f"{ca.at(prec)} {op} {cb.at(prec + 1)}", prec)
    return _known_in_fitting_blocks(cx, op, a, b, out)


# a grid index against a parameter's extent: the comparisons a block the CPU proved in range decides (op -> whether
# the grid index is on the left, and the comparison's answer there)
_FIT_COMPARISONS = {"<": (True, True), ">=": (True, False), ">": (False, True), "<=": (False, False)}


def _known_in_fitting_blocks(cx, op, a, b, out):
    """``i < a.shape[k]`` (``a.size``, ``len(a)``; or ``>=``, or reversed) with ``i`` cuda.grid's component d and
    ``a`` a kernel's unassigned array parameter: in a CPU block whose grid indices all lie inside that axis
    (CJ_ENTRY_FITS, the kernel's ``cj_fits`` instantiation) its answer is known, so the comparison becomes
    ``(cj_fits || ...)`` (``(!cj_fits && ...)``) and the block's loop has no branch left (it vectorises). On the GPU
    ``cj_fits`` is false: the same source, the same code. The axis becomes one the entry checks per block, as an
    index along it would."""
    case = _FIT_COMPARISONS.get(op)
    if case is None or not cx.state.is_kernel:
        return out
    grid, extent = (a, b) if case[0] else (b, a)
    if grid.grid is None or extent.extent is None:
        return out
    code = f"(cj_fits || {out.code})" if case[1] else f"(!cj_fits && {out.code})"
    if cx.state.final:
        cx.state.fit_codes.append((code, [(extent.extent[0], extent.extent[1], grid.grid)]))
    return Value(T.boolean, code, PRIMARY)


def _compare_tuples(cx, node, op, xs, ys):
    """Tuples compare as Python's (and Numba's) do: ``==`` when of one length and equal element by element,
    ``<``, ``<=``, ``>``, ``>=`` by the first elements that differ, else by length. Known parts fold."""
    if op in ("==", "!="):
        if len(xs) != len(ys):
            return const_value(op == "!=")
        eq = _all_of([compare(cx, node, "==", x, y) for x, y in zip(xs, ys)])
        return eq if op == "==" else _negate(eq)
    strict = op[0]                            # "<" or ">": the element test for a difference
    # from the last element pair back: tail = what the comparison is when every pair before it is equal
    tail = const_value(_COMPARE[op](len(xs), len(ys)))
    for x, y in reversed(list(zip(xs, ys))):
        differs = compare(cx, node, strict, x, y)
        same = compare(cx, node, "==", x, y)
        tail = _any_of([differs, _all_of([same, tail])])
    return tail


def _all_of(tests):
    return _join(tests, True)


def _any_of(tests):
    return _join(tests, False)


def _join(tests, conjunction):
    """``tests`` joined by ``&&`` (conjunction) or ``||``: a constant that decides folds the whole, constants that
    do not drop out."""
    if any(t.type == T.undefined for t in tests):
        return Value(T.undefined, "?")
    if any(t.is_const and t.const is (not conjunction) for t in tests):
        return const_value(not conjunction)
    live = [t for t in tests if not t.is_const]
    if not live:
        return const_value(conjunction)
    op, prec = ("&&", LAND) if conjunction else ("||", LOR)
    return live[0] if len(live) == 1 else Value(T.boolean, f" {op} ".join(t.at(prec + 1) for t in live), prec)


def _negate(v):
    if v.type == T.undefined:
        return v
    if v.is_const:
        return const_value(not v.const)
    return Value(T.boolean, f"!{v.at(UNARY)}", UNARY)


def _int_enum_class(v):
    """The IntEnum class of an IntEnum member: an argument's (its type says) or a global's (its constant); else
    None."""
    if isinstance(v.type, T.IntEnumMember):
        return v.type.cls
    return type(v.const) if v.is_const and isinstance(v.const, enum.IntEnum) else None


_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
            ">=": operator.ge}


def _exact_int(v):
    """A constant int (or bool) whose comparison in any of Numba's types is Python's: |v| < 2**53."""
    return v.is_const and isinstance(v.const, int) and abs(v.const) < 2**53


def unary(cx, node, op, a):
    if a.type == T.undefined:
        return Value(T.undefined, "?")
    if op == "not":
        if a.type == T.none and a.const is None:      # ``not G`` on a None known when compiling
            return const_value(True)
        if a.type == T.boolean:
            return Value(T.boolean, f"!{a.at(UNARY)}", UNARY)
        if T.is_scalar(a.type):
            return Value(T.boolean, f"!cj::py_bool({a.code})", UNARY)
        cx.error(node, f"'not' is not supported on {a.type}")
    if datetimes.involved(a.type):
        return datetimes.unary(cx, node, op, a)
    if not T.is_scalar(a.type):
        cx.error(node, f"bad operand type for unary {op}: {a.type}")
    found = resolve(UNARY_CASES[op], [a.type], [a.literal], unsafe_casting=op not in _NO_UNSAFE)
    if found is None:
        cx.error(node, f"bad operand type for unary {op}: {a.type}")
    ret, (fa,) = found
    if a.is_const and isinstance(a.const, (int, float)) and not isinstance(a.const, bool) and op == "-" \
            and T.is_number(ret) and not isinstance(ret, T.Complex):
        r = -a.const
        if T.is_int(fa):              # Numba negates in the operand's type, then widens: -uint16(1) is 65535
            bits = fa.bitwidth
            r &= (1 << bits) - 1
            if fa.signed and r >> (bits - 1):
                r -= 1 << bits
        v = const_value(r)
        return cast(v, ret) if v.type != ret else v
    if op == "~" and ret == T.boolean:
        return Value(T.boolean, f"!{a.at(UNARY)}", UNARY)
    if op in ("-", "~") and T.is_int(fa) and T.is_int(ret) and (fa != ret or op == "-"):
        # Numba negates and inverts in the operand's type, then widens: -int8(-128) is -128, ~uint8(0) is 255.
        # Negation goes through the unsigned type: -INT64_MIN wraps as in Numba instead of being undefined C++.
        x = typed(a, fa)
        inner = f"cj::wrap_neg({x.code})" if op == "-" else f"{fa.cpp}(~{x.at(UNARY)})"
        return cast(Value(fa, inner), ret)
    x = typed(a, ret) if T.is_int(ret) else cast(a, ret)    # ~ of a literal: int64_t(...), not a C++ int
    if op == "+":
        return x
    code = x.at(UNARY)
    if code[:1] in "-+":                     # never write "--x"
        code = f"({code})"
    return Value(ret, f"{op}{code}", UNARY, nonneg=False)

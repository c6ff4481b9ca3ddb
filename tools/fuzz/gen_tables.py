"""Which operands give which result type: the generator's inverted view of nbtypes and oracle_builtins, so that
it can ask for an expression of an exact Numba type and pick an operator and operand types that produce it."""
import collections
import functools

import nbtypes as nt
import oracle_builtins as ob

SCALARS = ("bool",) + nt.INTS + ("float32", "float64") + nt.COMPLEXES
LITERAL_TYPES = ("bool", "int64", "float64", "complex128")
ARITH = ("+", "-", "*", "/", "//", "%", "**")
BITWISE = ("&", "|", "^", "<<", ">>")
COMPARE = ("<", "<=", ">", ">=", "==", "!=")


@functools.lru_cache(maxsize=None)
def binops_for(ret):
    """[(op, left type, right type)] whose Numba result type is ret."""
    out = []
    for op in ARITH + BITWISE:
        for a in SCALARS:
            for b in SCALARS:
                sig = nt.op_signature(op, (a, b))
                if sig and sig[0] == ret:
                    out.append((op, a, b))
    return out


@functools.lru_cache(maxsize=None)
def unops_for(ret):
    out = []
    for op, pyop in (("-u", "-"), ("+u", "+"), ("~", "~")):
        for a in SCALARS:
            sig = nt.op_signature(op, (a,))
            if sig and sig[0] == ret:
                out.append((pyop, a))
    return out


@functools.lru_cache(maxsize=None)
def comparable(a):
    """Types b for which `a < b` (ordered) and `a == b` type."""
    ordered = [b for b in SCALARS if nt.op_signature("<", (a, b))]
    equal = [b for b in SCALARS if nt.op_signature("==", (a, b))]
    return ordered, equal


_MATH_ARITY = {n: (2 if n in ("atan2", "hypot", "copysign", "fmod", "remainder", "pow") else 1) for n in ob._MATH}


@functools.lru_cache(maxsize=None)
def math_for(ret):
    """[(function name, argument types)] of math functions whose result is ret."""
    out = []
    for name, (cases, _, _) in ob._MATH.items():
        arity = _MATH_ARITY[name]
        args_choices = [SCALARS] * arity
        import itertools
        for args in itertools.product(*args_choices):
            if any(nt.is_complex(a) for a in args):
                continue
            sig = nt.resolve(cases, args)
            if sig and sig[0] == ret:
                out.append((name, args))
    return out


CMATH_UNARY = ("acos", "asin", "asinh", "atan", "atanh", "cos", "exp", "sin", "sqrt", "tan", "log")

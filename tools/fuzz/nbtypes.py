"""Numba's scalar types and how it types an operator on them: the oracle's typing model.

Written from Numba's documented behaviour (conversion kinds exact < promote < safe < unsafe, overloads chosen by the
fewest unsafe, then safe, then promoting conversions, the first case winning a tie) and checked case by case
against numba-cuda's own typing context by ``check_typing.py`` (run in a venv that has numba-cuda).
A type is its Numba name: 'bool', 'int8' ... 'uint64', 'float16', 'float32', 'float64', 'complex64', 'complex128'.
"""
import functools
import itertools

SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTS = SIGNED + UNSIGNED
FLOATS = ("float16", "float32", "float64")
COMPLEXES = ("complex64", "complex128")
ALL = ("bool",) + INTS + FLOATS + COMPLEXES

EXACT, PROMOTE, SAFE, UNSAFE = 0, 1, 2, 3

BITS = {"bool": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint8": 8, "uint16": 16, "uint32": 32,
        "uint64": 64, "float16": 16, "float32": 32, "float64": 64, "complex64": 64, "complex128": 128}


def is_int(t):
    return t in INTS


def is_signed(t):
    return t in SIGNED


def is_float(t):
    return t in FLOATS


def is_complex(t):
    return t in COMPLEXES


def int_range(t):
    b = BITS[t]
    return (-(1 << (b - 1)), (1 << (b - 1)) - 1) if t in SIGNED else (0, (1 << b) - 1)


# Numba's casting rules (typeconv/rules.py in substance): (from, to, forward kind, backward kind or None).
_RULES = [
    ("bool", "int8", SAFE, UNSAFE), ("bool", "uint8", SAFE, UNSAFE),
    ("int8", "int16", PROMOTE, UNSAFE), ("uint8", "uint16", PROMOTE, UNSAFE),
    ("int16", "int32", PROMOTE, UNSAFE), ("uint16", "uint32", PROMOTE, UNSAFE),
    ("int32", "int64", PROMOTE, UNSAFE), ("uint32", "uint64", PROMOTE, UNSAFE),
    ("uint8", "int16", SAFE, UNSAFE), ("uint16", "int32", SAFE, UNSAFE), ("uint32", "int64", SAFE, UNSAFE),
    ("int8", "float16", SAFE, UNSAFE), ("int16", "float32", SAFE, UNSAFE), ("int32", "float64", SAFE, UNSAFE),
    ("int16", "float16", UNSAFE, UNSAFE), ("int32", "float32", UNSAFE, UNSAFE),
    ("int64", "float64", SAFE, UNSAFE), ("uint64", "float64", SAFE, UNSAFE),
    ("float16", "float32", PROMOTE, UNSAFE), ("float32", "float64", PROMOTE, UNSAFE),
    ("float32", "complex64", SAFE, None), ("float64", "complex128", SAFE, None),
    ("complex64", "complex128", PROMOTE, UNSAFE),
]


def _closure():
    """Best conversion between every pair: the worst step of a path, the best path (a minimax closure)."""
    best = {}
    for a, b, fwd, back in _RULES:
        best[a, b] = min(best.get((a, b), 9), fwd)
        if back is not None:
            best[b, a] = min(best.get((b, a), 9), back)
    changed = True
    while changed:
        changed = False
        for (a, b), k1 in list(best.items()):
            for (c, d), k2 in list(best.items()):
                if b == c and a != d:
                    k = max(k1, k2)
                    if k < best.get((a, d), 9):
                        best[a, d] = k
                        changed = True
    return best


_CONV = _closure()


def conversion(a, b):
    """Numba's conversion kind from type a to type b, or None when there is none."""
    if a == b:
        return EXACT
    return _CONV.get((a, b))


def choose_result_int(*ts):
    """Numba's integer result: at least 64 bits, signed when any operand is (bool counts as signed)."""
    bits = max([64] + [BITS[t] for t in ts])
    signed = any(t not in UNSIGNED for t in ts)
    return ("int" if signed else "uint") + str(bits)


_MACHINE = ("int64", "uint64")
_INT_BINOP = [((choose_result_int(a, b)), (a, b)) for a, b in itertools.product(_MACHINE, _MACHINE)]
_REALS = ("float16", "float32", "float64")
_SAME = lambda ts: [(t, (t, t)) for t in ts]
_SAME1 = lambda ts: [(t, (t,)) for t in ts]

CASES = {
    "+": _INT_BINOP + _SAME(_REALS) + _SAME(COMPLEXES),
    "/": [("float64", ab) for _, ab in _INT_BINOP] + _SAME(_REALS) + _SAME(COMPLEXES),
    "//": _INT_BINOP + _SAME(_REALS),
    "**": _INT_BINOP + [("float32", ("float32", t)) for t in ("int32", "int64", "uint64")]
    + [("float64", ("float64", t)) for t in ("int32", "int64", "uint64")] + _SAME(_REALS) + _SAME(COMPLEXES),
    "<<": [(max(t, "int64", key=lambda x: BITS[x]) if t in SIGNED else ("uint64" if BITS[t] <= 64 else t), (t, s))
           for t in SIGNED + UNSIGNED for s in ("uint64", "int64")],
    "&": [("bool", ("bool", "bool"))] + _INT_BINOP,
    "~": [("bool", ("bool",))] + [(choose_result_int(t), (t,)) for t in UNSIGNED + SIGNED],
    "-u": [(choose_result_int(t), (t,)) for t in UNSIGNED + SIGNED] + _SAME1(_REALS) + _SAME1(COMPLEXES)
    + [("int64", ("bool",))],
    "not": [("bool", (t,)) for t in ("bool",) + SIGNED + UNSIGNED + _REALS + COMPLEXES],
    "<": [("bool", ("bool", "bool"))] + [("bool", (t, t)) for t in SIGNED + UNSIGNED + _REALS],
}
CASES["-"] = CASES["*"] = CASES["+"]
CASES["%"] = CASES["//"]
CASES[">>"] = CASES["<<"]
CASES["|"] = CASES["^"] = CASES["&"]
CASES["+u"] = CASES["-u"]
CASES["<="] = CASES[">"] = CASES[">="] = CASES["<"]
CASES["=="] = CASES["!="] = CASES["<"] + [("bool", (t, t)) for t in COMPLEXES]
NO_UNSAFE = {"<<", ">>", "&", "|", "^", "~"}


_RESOLVED = {}


def resolve(cases, args, unsafe_ok=True):
    """(result type, parameter types) of the case Numba picks for argument types ``args``, or None (cached)."""
    key = (id(cases), tuple(args), unsafe_ok)
    if key not in _RESOLVED:
        _RESOLVED[key] = _resolve(cases, args, unsafe_ok)
    return _RESOLVED[key]


def _resolve(cases, args, unsafe_ok=True):
    """(result type, parameter types) of the case Numba picks for argument types ``args``, or None."""
    best = None
    for ret, params in cases:
        if len(params) != len(args):
            continue
        rating = [0, 0, 0]           # unsafe, safe, promote: fewer is better, compared in that order
        for a, p in zip(args, params):
            k = conversion(a, p)
            if k is None or (k == UNSAFE and not unsafe_ok):
                break
            if k != EXACT:
                rating[{UNSAFE: 0, SAFE: 1, PROMOTE: 2}[k]] += 1
        else:
            if best is None or rating < best[0]:
                best = (rating, ret, params)
    return None if best is None else (best[1], best[2])


@functools.lru_cache(maxsize=None)
def op_signature(op, args):
    """Numba's signature of operator ``op`` ('+', '-u', '<', ...) on argument types ``args`` (a tuple)."""
    return resolve(CASES[op], args, unsafe_ok=op not in NO_UNSAFE)


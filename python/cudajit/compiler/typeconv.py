"""Numba's conversion lattice, overload resolution and unification, re-derived from its documented rules.

Numba types an operation by rating each candidate signature of the operator ("cases") against the argument
types: every argument conversion is exact, promote, safe or unsafe; the best candidate has the fewest unsafe,
then safe, then promote conversions, ties going to the earlier case. Getting these tables right is what makes
``int32 + int32 -> int64`` and ``float32 + 1 -> float64`` come out as in Numba.
"""
import enum
import functools

import numpy as np

from . import types as T


class Conversion(enum.IntEnum):
    exact = 0
    promote = 1
    safe = 2
    unsafe = 3


# Direct edges (from, to, kind); the reverse edge of each is unsafe. From numba.typeconv.rules.
_EDGES = [
    (T.boolean, T.int8, "safe"), (T.boolean, T.uint8, "safe"),
    (T.int8, T.int16, "promote"), (T.uint8, T.uint16, "promote"),
    (T.int16, T.int32, "promote"), (T.uint16, T.uint32, "promote"),
    (T.int32, T.int64, "promote"), (T.uint32, T.uint64, "promote"),
    (T.uint8, T.int16, "safe"), (T.uint16, T.int32, "safe"), (T.uint32, T.int64, "safe"),
    (T.int8, T.float16, "safe"), (T.int16, T.float32, "safe"), (T.int32, T.float64, "safe"),
    (T.int16, T.float16, "unsafe"), (T.int32, T.float32, "unsafe"),
    (T.int64, T.float64, "safe"), (T.uint64, T.float64, "safe"),
    (T.float16, T.float32, "promote"), (T.float32, T.float64, "promote"),
    (T.complex64, T.complex128, "promote"),
    # numba-cuda's Bfloat16.can_convert_from/to: 8-bit integers fit it; it fits float32 (and so float64)
    (T.int8, T.bfloat16, "safe"), (T.uint8, T.bfloat16, "safe"), (T.bfloat16, T.float32, "safe"),
]
_ONE_WAY = [(T.float32, T.complex64, "safe"), (T.float64, T.complex128, "safe")]


def _build_graph():
    g = {}
    for a, b, k in _EDGES:
        g.setdefault(a, {})[b] = Conversion[k]
        g.setdefault(b, {})[a] = Conversion.unsafe
    for a, b, k in _ONE_WAY:
        g.setdefault(a, {})[b] = Conversion[k]
    return g


_GRAPH = _build_graph()


@functools.lru_cache(maxsize=None)
def can_convert(src, dst):
    """Best conversion kind from ``src`` to ``dst`` along the cast graph (a path is as bad as its worst
    edge), or None when there is no conversion. Arrays and tuples follow Numba's ``can_convert_to``."""
    if src == dst:
        return Conversion.exact
    if isinstance(src, T.Optional) or isinstance(dst, T.Optional):
        return _optional_conversion(src, dst)
    if isinstance(dst, T.IntEnumMember):        # nothing else becomes a member
        return None
    if isinstance(src, T.IntEnumMember):
        # Numba's IntEnumMember.can_convert_to: as its value's type would, but never better than safe
        c = can_convert(src.base, dst)
        return None if c is None else max(c, Conversion.safe)
    if isinstance(dst, T.Array):
        return _array_conversion(src, dst)
    if isinstance(dst, T.BaseTuple):
        return _tuple_conversion(src, dst)
    return _reachable(src).get(dst)


@functools.lru_cache(maxsize=None)
def _reachable(src):
    """Every type ``src`` converts to along the cast graph, with the best kind of each: one walk per source type,
    which every ``can_convert(src, ...)`` then reads (a walk per pair made a kernel's first compile 1 ms slower)."""
    best = {src: Conversion.exact}
    frontier = [src]
    while frontier:
        nxt = []
        for node in frontier:
            for peer, kind in _GRAPH.get(node, {}).items():
                k = max(best[node], kind)
                if peer not in best or k < best[peer]:
                    best[peer] = k
                    nxt.append(peer)
        frontier = nxt
    return best


def _optional_conversion(src, dst):
    """Numba's Optional.can_convert_to/from: None becomes an Optional by promotion; T? to U? as T to U; T? to U no
    better than safe (it is checked at run time); T to U? no better than promote."""
    if isinstance(src, T.Optional) and isinstance(dst, T.Optional):
        return can_convert(src.type, dst.type)
    if isinstance(src, T.Optional):
        c = can_convert(src.type, dst)
        return None if c is None else max(c, Conversion.safe)
    if src == T.none:
        return Conversion.promote
    c = can_convert(src, dst.type)
    return None if c is None else max(c, Conversion.promote)


def _array_conversion(src, dst):
    """An array passes as one of the same dtype and ndim whose layout is 'A' or its own, and a read-only one
    only as read-only: a safe conversion (a C or F array where any layout is declared)."""
    if isinstance(src, T.Array) and (src.dtype, src.ndim) == (dst.dtype, dst.ndim) \
            and dst.layout in ("A", src.layout) and (dst.readonly or not src.readonly):
        return Conversion.safe
    return None


def _tuple_conversion(src, dst):
    """A tuple converts element by element, as well as its worst element does."""
    if not isinstance(src, T.BaseTuple) or len(src.types) != len(dst.types):
        return None
    kinds = [can_convert(a, b) for a, b in zip(src.types, dst.types)]
    return None if None in kinds else max(kinds, default=Conversion.exact)


def convert_kind(src, dst, literal=False):
    """As ``can_convert``; a literal argument (an int constant) converts no better than 'promote'."""
    c = can_convert(src, dst)
    if c is not None and literal:
        c = max(c, Conversion.promote)
    return c


def resolve(cases, args, literals=None, unsafe_casting=True):
    """Pick the best signature among ``cases`` (a list of (return, arg types)) for ``args``, Numba's way.
    ``literals``: per argument, whether it is a literal constant. Returns (return, formal args) or None; among
    cases rated alike, the first (Numba allows that ambiguity when typing calls)."""
    best = best_cases(cases, args, literals, unsafe_casting)
    return best[0] if best else None


def best_cases(cases, args, literals=None, unsafe_casting=True):
    """The cases (return, formal args) that ``args`` convert to with the fewest unsafe, then safe, then promoting
    conversions, in the order given: more than one is Numba's "ambiguous overloading"."""
    literals = literals or [False] * len(args)
    best, rated = None, []
    for ret, formal in cases:
        if len(formal) != len(args):
            continue
        rating = [0, 0, 0]
        for a, f, lit in zip(args, formal, literals):
            c = convert_kind(a, f, lit)
            if c is None or (not unsafe_casting and c == Conversion.unsafe):
                break
            if c != Conversion.exact:
                rating[3 - c] += 1      # (unsafe, safe, promote)
        else:
            if best is None or tuple(rating) < best:
                best, rated = tuple(rating), [(ret, formal)]
            elif tuple(rating) == best:
                rated.append((ret, formal))
    return rated


def unify(a, b):
    """The type a variable takes when two definitions meet (Numba's unify_pairs): numbers unify by NumPy's
    type promotion (so int64 with uint64 gives float64), others by a safe conversion one way or the other."""
    if a == b or b is T.undefined:
        return a
    if a is T.undefined:
        return b
    if T.none in (a, b) or isinstance(a, T.Optional) or isinstance(b, T.Optional):
        return _unify_optional(a, b)
    if T.bfloat16 in (a, b) and T.is_number(a) and T.is_number(b):
        return _unify_bfloat16(b if a == T.bfloat16 else a)
    if T.is_number(a) and T.is_number(b):
        return T.from_dtype(np.promote_types(a.dtype, b.dtype))
    if isinstance(a, T.BaseTuple) and isinstance(b, T.BaseTuple) and a.count == b.count:
        parts = [unify(x, y) for x, y in zip(a.types, b.types)]
        if any(isinstance(p, T.Optional) for p in parts):     # Numba's tuple of Optionals: not supported here
            return None
        return None if None in parts else T.Tuple(parts)
    if isinstance(a, T.Array) and isinstance(b, T.Array) and (a.dtype, a.ndim) == (b.dtype, b.ndim):
        return T.Array(a.dtype, a.ndim, a.layout if a.layout == b.layout else "A", a.readonly or b.readonly)
    for x, y in ((a, b), (b, a)):
        c = can_convert(x, y) if T.is_scalar(x) and T.is_scalar(y) else None
        if c is not None and c <= Conversion.safe:
            return y
    return None


def _unify_optional(a, b):
    """None meeting T, or T? meeting U or U?: Optional(unify(T, U)) (Numba's NoneType.unify / Optional.unify), for
    the scalars cudajit wraps (T.can_be_optional); None for anything else."""
    inner = [t.type if isinstance(t, T.Optional) else t for t in (a, b) if t != T.none]
    u = inner[0] if len(inner) == 1 else unify(*inner)
    if u is None or not T.can_be_optional(u):
        return None
    return T.Optional(u)


def _unify_bfloat16(other):
    """bfloat16 meeting another number: itself with 8-bit integers (as ml_dtypes promotes), else as float32 would
    (float16, int16 -> float32; int32, int64, float64 -> float64; complex), where ml_dtypes has no common type."""
    if other in (T.boolean, T.int8, T.uint8):
        return T.bfloat16
    return unify(T.float32, other)


def unify_all(ts):
    """Unify several types, narrowest first as Numba sorts them."""
    ts = sorted(ts, key=lambda t: getattr(t, "bitwidth", 0))
    out = T.undefined
    for t in ts:
        out = unify(out, t)
        if out is None:
            return None
    return out

"""The match statement in kernels (Numba compiles the bytecode of value, singleton, wildcard, capture and ``|``
patterns, with guards, as a chain of tests): an agent-based simulation's kernel switched on ``match dim:`` and
on IntEnum members. Sequence, mapping and class patterns are refused with the pattern named."""
import enum
import sys

import numpy as np
import pytest

from cudajit import cuda
from cudajit.errors import UnsupportedError

pytestmark = pytest.mark.skipif(sys.version_info < (3, 10), reason="the match statement needs Python 3.10")


class Kind(enum.IntEnum):
    FIXED = 0
    WALK = 1
    JUMP = 2


def python_reference(code, x):
    match code:
        case 0:
            return x
        case 1 | 2:
            return x + 10 * code
        case Kind.JUMP.value if x > 0:        # unreachable: case 1 | 2 took 2 already
            return -1.0
        case k if k > 100:
            return x * k
        case 7:
            return -7.0
        case _:
            return 0.5


@cuda.jit
def dispatch(codes, xs, out):
    i = cuda.grid(1)
    if i < out.size:
        code = codes[i]
        x = xs[i]
        match code:
            case 0:
                r = x
            case 1 | 2:
                r = x + 10 * code
            case Kind.JUMP.value if x > 0:
                r = -1.0
            case k if k > 100:
                r = x * k
            case 7:
                r = -7.0
            case _:
                r = 0.5
        out[i] = r


def test_value_or_guard_capture_and_wildcard_patterns(backend, rng):
    codes = rng.choice([0, 1, 2, 3, 7, 101, 250, -4], size=200).astype(np.int64)
    xs = rng.standard_normal(200)
    out = np.zeros(200)
    dispatch[4, 64](codes, xs, out)
    np.testing.assert_array_equal(out, [python_reference(int(c), float(x)) for c, x in zip(codes, xs)])


@cuda.jit
def by_kind(kinds, xs, out):
    i = cuda.grid(1)
    if i < out.size:
        match kinds[i] % 3:                     # a subject that is an expression: evaluated once
            case Kind.FIXED:
                out[i] = xs[i]
            case Kind.WALK.value:
                out[i] = xs[i] + 1.0
            case other:
                out[i] = xs[i] * other          # the capture binds the subject's value


def test_int_enum_members_and_value_as_patterns(backend, rng):
    kinds = rng.integers(0, 30, 100)
    xs = rng.standard_normal(100)
    out = np.zeros(100)
    by_kind[1, 128](kinds, xs, out)
    k = kinds % 3
    np.testing.assert_array_equal(out, np.where(k == 0, xs, np.where(k == 1, xs + 1.0, xs * k)))


@cuda.jit
def fixed_points(kinds, p0, p1):
    i = cuda.grid(1)
    if i < p0.shape[0]:
        if kinds[i] == Kind.FIXED.value:        # an IntEnum member's .value, as Numba's IntEnumMember has
            p1[i] = p0[i]
        else:
            p1[i] = p0[i] + Kind.JUMP.value * Kind.WALK


def test_int_enum_member_value_attribute(backend, rng):
    kinds = rng.integers(0, 3, 64)
    p0 = rng.standard_normal(64)
    p1 = np.zeros(64)
    fixed_points[1, 64](kinds, p0, p1)
    np.testing.assert_array_equal(p1, np.where(kinds == 0, p0, p0 + 2))


@cuda.jit
def match_none_and_bool(flags, out):
    i = cuda.grid(1)
    if i < out.size:
        match flags[i] > 0:
            case True:
                out[i] = 1
            case False:
                out[i] = 2
        match flags[i]:
            case True | None:                   # an int is never the object True (Python's and Numba's `is`)
                out[i] += 100
            case 1:
                out[i] += 10


def test_singleton_patterns(backend, rng):
    flags = rng.integers(-3, 3, 50)
    out = np.zeros(50, np.int64)
    match_none_and_bool[1, 64](flags, out)
    np.testing.assert_array_equal(out, np.where(flags > 0, 1, 2) + np.where(flags == 1, 10, 0))


def test_class_and_sequence_patterns_are_refused_with_the_pattern_named(backend):
    @cuda.jit
    def seq(t, out):
        match t:
            case (a, b):
                out[0] = a + b

    with pytest.raises(UnsupportedError, match=r"test_kernels_match.py:\d+: the match statement with a sequence "
                                               r"pattern is not supported"):
        seq[1, 1]((1, 2), np.zeros(1))

    @cuda.jit
    def cls(x, out):
        match x:
            case int():
                out[0] = 1

    with pytest.raises(UnsupportedError, match=r"the match statement with a class pattern is not supported"):
        cls[1, 1](3, np.zeros(1))

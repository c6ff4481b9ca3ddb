"""Enum members as kernel arguments (Numba's EnumMember / IntEnumMember arguments) and ``Color["red"]`` in a
kernel: a plain Enum member whose class's values are numbers (or tuples of numbers) of one type is passed as its
value, typed as a member of its class; an IntEnum member is an int typed ``IntEnumMember(cls, int64)``."""
import enum

import numpy as np
import pytest

from cudajit import cuda
from cudajit.errors import TypingError


class Color(enum.Enum):
    red = 1
    green = 2
    blue = 3


class Mass(enum.Enum):
    light = 0.25
    heavy = 7.5


class Code(enum.IntEnum):
    ok = 200
    missing = 404


class Mixed(enum.Enum):
    one = 1
    half = 0.5


class Planet(enum.Enum):           # numba-cuda's enum_usecases: tuple values
    MERCURY = (3.303e23, 2.4397e6)
    VENUS = (4.869e24, 6.0518e6)
    EARTH = (5.976e24, 6.37814e6)


class Shape(enum.IntEnum):
    circle = 2
    square = 500


class Signed(enum.IntEnum):
    one = 1
    two = 2
    too = 2                        # an alias: the same member as two
    negone = -1


@cuda.jit
def compare(a, b, out):
    out[0] = a == b
    out[1] = a != b
    out[2] = a is b
    out[3] = a is not b


def test_members_compare_as_in_python(backend):
    pairs = [(Color.red, Color.red), (Color.red, Color.blue), (Mass.heavy, Mass.heavy), (Mass.light, Mass.heavy),
             (Color.red, Mass.light), (Planet.EARTH, Planet.EARTH), (Planet.VENUS, Planet.EARTH),
             (Shape.circle, Signed.two), (Signed.too, Signed.two), (Signed.two, Signed.one), (Code.ok, Code.ok),
             (Shape.square, Code.ok)]
    for a, b in pairs:
        got = np.zeros(4, np.bool_)
        compare[1, 1](a, b, got)
        np.testing.assert_array_equal(got, [a == b, a != b, a is b, a is not b], err_msg=f"{a}, {b}")


def test_member_value_and_int_enum(backend, rng):
    @cuda.jit
    def scale(x, m, code, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * m.value + code

    x = rng.standard_normal(50)
    out = np.zeros(50)
    for m in Mass:
        scale[1, 64](x, m, Code.missing, out)
        np.testing.assert_array_equal(out, x * m.value + 404)


def test_member_by_name(backend):
    @cuda.jit
    def k(c, out):
        out[0] = c == Color["green"]
        out[1] = Code["missing"] - Code["ok"]

    out = np.zeros(2, np.int64)
    k[1, 1](Color.green, out)
    np.testing.assert_array_equal(out, [1, 204])
    k[1, 1](Color.blue, out)
    np.testing.assert_array_equal(out, [0, 204])

    @cuda.jit
    def bad(out):
        out[0] = Color["purple"] == Color.red

    with pytest.raises(TypingError, match=r"test_enum_arguments.py:\d+: Color\[...\] takes the constant name of one "
                                          r"of its members \(red, green, blue\)"):
        bad[1, 1](out)


def test_member_of_an_enum_of_mixed_values_is_refused(backend):
    with pytest.raises(TypeError, match=r"argument 0 \(a\) is Mixed.one: the values of Mixed must all be numbers, "
                                        r"or tuples of numbers, of one type"):
        compare[1, 1](Mixed.one, Mixed.half, np.zeros(4, np.bool_))


@cuda.jit(device=True)
def doubled_value(m):
    return m.value * 2                 # the device function gets the member's type too


@cuda.jit
def int_enum_ops(c, d, n, arr, out):
    out[0] = c.value
    out[1] = c + n                     # arithmetic as an int
    out[2] = c * d
    out[3] = -c
    out[4] = c // 3
    out[5] = arr[c]                    # an index
    out[6] = c > Shape.circle          # against a member of another IntEnum: as ints
    out[7] = c == n
    out[8] = c is Shape.square         # `is`: class and value
    out[9] = c is d
    s = 0
    for i in range(c % 7):
        s += i
    out[10] = s
    x = c
    x = x - 1                          # an int from here
    out[11] = x
    out[12] = doubled_value(c)
    out[13] = abs(c)


def test_int_enum_arguments_are_ints_that_know_their_class(backend, rng):
    arr = rng.integers(-100, 100, 1000)
    for c, d in [(Shape.square, Shape.circle), (Shape.circle, Signed.two), (Code.missing, Code.missing),
                 (Signed.negone, Signed.too)]:
        n = int(rng.integers(-50, 50))
        out = np.zeros(14, np.int64)
        int_enum_ops[1, 1](c, d, n, arr, out)
        want = [c.value, c + n, c * d, -c, c // 3, arr[c], c > Shape.circle, c == n, c is Shape.square, c is d,
                sum(range(c % 7)), c - 1, c.value * 2, abs(c)]
        np.testing.assert_array_equal(out, want, err_msg=f"{c!r}, {d!r}")


def test_int_enum_classes_are_specialisations_of_their_own(backend):
    @cuda.jit
    def k(c, out):
        out[0] = c + (c is Shape.circle)

    out = np.zeros(1, np.int64)
    for c, want in [(Shape.circle, 3), (Signed.two, 2), (Shape.square, 500), (Signed.negone, -1), (Shape.circle, 3)]:
        k[1, 1](c, out)
        assert out[0] == want, c
    # as in Numba: one specialisation per IntEnum class, none for the values; the core keys them itself
    assert sorted(str(sig[0]) for sig in k.signatures) == ["IntEnumMember(Shape, int64)",
                                                          "IntEnumMember(Signed, int64)"]
    assert len(k._core) == 2
    k[1, 1](2, out)                     # a plain int is a third
    assert out[0] == 2 and str(k.signatures[-1][0]) == "int64"


def test_tuple_valued_enum_members(backend):
    @cuda.jit
    def k(p, out):
        v = p.value
        out[0] = v[0]
        out[1] = v[1]
        out[2] = p == Planet.EARTH
        out[3] = Planet.VENUS.value[1]

    out = np.zeros(4)
    for p in Planet:
        k[1, 1](p, out)
        np.testing.assert_array_equal(out, [p.value[0], p.value[1], p is Planet.EARTH, Planet.VENUS.value[1]])


def test_int_enum_members_for_declared_signatures(backend):
    # an IntEnumMember converts as its int does, never better than safe (numba's IntEnumMember.can_convert_to):
    # the declared signatures are chosen as for an int64 argument (int32 first, declared first among equals)
    @cuda.jit(["void(int64[:], int32)", "void(int64[:], float64)"])
    def k(out, c):
        out[0] = c * 3

    out = np.zeros(1, np.int64)
    for c in (Shape.square, Signed.negone, Code.missing):
        k[1, 1](out, c)
        assert out[0] == c * 3
    assert len(k.signatures) == 2


class Outcome(enum.IntEnum):
    HIGH = 0
    PAIR = 1
    FLUSH = 2


def test_int_enum_members_returned_from_device_functions(backend, rng):
    # a device function returning global IntEnum members returns IntEnumMember(Outcome, int64), so `.value` and
    # `is` work on its result (a poker simulation: uint32(outcome_of_hand(x).value)); arithmetic treats it as int
    from cudajit import uint32

    @cuda.jit(device=True)
    def classify(v):
        if v % 7 == 0:
            return Outcome.FLUSH
        if v % 2 == 0:
            return Outcome.PAIR
        return Outcome.HIGH

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            o = classify(a[i])
            out[i, 0] = uint32(o.value)
            out[i, 1] = o + 10
            out[i, 2] = 1 if o is Outcome.PAIR else 0
            out[i, 3] = Outcome.FLUSH.value * 2

    a = rng.integers(0, 100, 70)
    out = np.zeros((70, 4), np.int64)
    k[1, 128](a, out)
    want = np.where(a % 7 == 0, 2, np.where(a % 2 == 0, 1, 0))
    np.testing.assert_array_equal(out[:, 0], want)
    np.testing.assert_array_equal(out[:, 1], want + 10)
    np.testing.assert_array_equal(out[:, 2], (want == 1).astype(np.int64))
    np.testing.assert_array_equal(out[:, 3], 4)

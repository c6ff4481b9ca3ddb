"""Enum members as kernel arguments (Numba's EnumMember / IntEnumMember arguments) and ``Color["red"]`` in a
kernel: a plain Enum member whose class's values are numbers of one type is passed as its value, typed as a
member of its class; an IntEnum member is its int."""
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


@cuda.jit
def compare(a, b, out):
    out[0] = a == b
    out[1] = a != b
    out[2] = a is b
    out[3] = a is not b


def test_members_compare_as_in_python(backend):
    pairs = [(Color.red, Color.red), (Color.red, Color.blue), (Mass.heavy, Mass.heavy), (Mass.light, Mass.heavy),
             (Color.red, Mass.light)]
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
    with pytest.raises(TypeError, match=r"argument 0 \(a\) is Mixed.one: the values of Mixed must all be numbers "
                                        r"of one type"):
        compare[1, 1](Mixed.one, Mixed.half, np.zeros(4, np.bool_))

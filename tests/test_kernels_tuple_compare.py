"""``in`` / ``not in`` on tuples and comparisons of tuples in kernels, as Numba types them (``operator.contains`` of
a tuple; tuples compare element by element, then by length), against Python on random data, on every backend."""
import operator

import numpy as np
import pytest

from cudajit import cuda
from cudajit.errors import UnsupportedError

TARGETS = (2, 5, 7)


@cuda.jit
def membership(out, a, t):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i]
        r = 0
        if v in TARGETS:                 # a global tuple
            r += 1
        if v not in (1, 3):              # a literal tuple
            r += 2
        if v in t:                       # a tuple argument
            r += 4
        if v * 0.5 in (1.0, 2.5):        # float against float constants
            r += 8
        if v in ():                      # nothing is in the empty tuple
            r += 16
        if 3 in (1, 2, 3) and 4 not in (1, 2, 3):     # folded at compile time
            r += 32
        out[i] = r


def test_in_and_not_in_on_tuples(backend, rng):
    a = rng.integers(0, 9, 300)
    t = tuple(int(x) for x in rng.integers(0, 9, 3))
    out = np.zeros(300, np.int64)
    membership[3, 128](out, a, t)
    want = [(v in TARGETS) + 2 * (v not in (1, 3)) + 4 * (v in t) + 8 * (v * 0.5 in (1.0, 2.5)) + 32
            for v in a.tolist()]
    np.testing.assert_array_equal(out, want)


@cuda.jit
def compare_pairs(out, a, b):
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = (a[i, 0], a[i, 1])
        y = (b[i, 0], b[i, 1])
        out[i, 0] = x < y
        out[i, 1] = x <= y
        out[i, 2] = x > y
        out[i, 3] = x >= y
        out[i, 4] = x == y
        out[i, 5] = x != y
        out[i, 6] = (a[i, 0],) < x                   # a prefix is less
        out[i, 7] = x in ((1, 2), (3, 3), y)         # a tuple among tuples
        out[i, 8] = (a[i, 0], a[i, 1], 0) == x       # lengths differ: never equal


def test_tuple_comparisons(backend, rng):
    a = rng.integers(0, 3, (400, 2))
    b = rng.integers(0, 3, (400, 2))
    out = np.zeros((400, 9), np.int64)
    compare_pairs[4, 128](out, a, b)
    ops = (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne)
    want = [[f(tuple(x), tuple(y)) for f in ops]
            + [(x[0],) < tuple(x), tuple(x) in ((1, 2), (3, 3), tuple(y)), False]
            for x, y in zip(a.tolist(), b.tolist())]
    np.testing.assert_array_equal(out, np.array(want, np.int64))


def test_mixed_tuples_compare_in_their_common_types(backend, rng):
    @cuda.jit
    def k(out, a, f):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = (a[i], f[i]) < (2, 0.5)         # int64 with int, float32 with a float

    a = rng.integers(0, 4, 200)
    f = rng.random(200).astype(np.float32)
    out = np.zeros(200, np.int64)
    k[2, 128](out, a, f)
    np.testing.assert_array_equal(out, [(x, y) < (2, 0.5) for x, y in zip(a.tolist(), f.astype(float).tolist())])


def test_in_on_an_array_is_refused_by_name(backend):
    @cuda.jit
    def k(out, a):
        out[0] = 3 in a

    with pytest.raises(UnsupportedError, match=r"'in' is supported on tuples.*not on array") as e:
        k[1, 1](np.zeros(1, np.int64), np.arange(5))
    assert "test_kernels_tuple_compare.py" in str(e.value)

"""numba-cuda's page "Supported Python features in CUDA Python", row by row (docs/SUPPORTED.md names each test).

Groups of rows (math, cmath, operator, built-in functions) share one kernel, launched once per backend; each row
checks its own column against Python on random data. Constructs numba-cuda refuses are compiled only: the error
must name the construct and the user's file:line.
"""
import cmath
import collections
import enum
import inspect
import math
import operator
import typing

import numpy as np
import pytest

from cudajit import cuda, literal_unroll
from cudajit.compiler import compile_kernel, types
from cudajit.errors import TypingError, UnsupportedError
from doc_surface_util import once_per_backend, refused

N = 64
F64 = types.float64[::1]


def _rng():
    return np.random.default_rng(2024)


# ---- constructs ----------------------------------------------------------------------------------------------
@cuda.jit
def loop_forms(a, b, out):
    for i in range(a.size):                    # for ... else: no break happened
        if a[i] < -10.0:
            break
    else:
        out[0] = 1.0
    for i in range(a.size):                    # for ... else: a break skips the else
        if a[i] > 0.5:
            out[1] = i
            break
    else:
        out[1] = -1.0
    i = 0
    while i < a.size:                          # while ... else
        i += 1
    else:
        out[2] = i
    s = 0.0
    for k, v in enumerate(a):                  # enumerate
        s += k * v
    out[3] = s
    s = 0.0
    for k, v in enumerate(a, 5):               # enumerate with a start
        s += k * v
    out[4] = s
    s = 0.0
    for x, y in zip(a, b):                     # zip
        s += x * y
    out[5] = s
    s = 0.0
    for k, (x, y) in enumerate(zip(a, b)):     # nested targets
        s += k * (x - y)
    out[6] = s
    s = 0.0
    for v in (1.5, 2.5, 4.0):                  # a tuple
        s += v
    out[7] = s
    s = 0.0
    for p, q in ((1, 2), (3, 4), (5, 6)):      # tuple targets over a tuple of tuples
        s += p * q
    out[8] = s
    first, *rest, last = (a[0], a[1], a[2], a[3])   # starred unpacking
    out[9] = first + rest[0] * 10 + rest[1] * 100 + last * 1000 + len(rest)
    s = 0.0
    for k, v in zip(range(3, 9), a):           # zip of a range and an array
        s += k * v
    out[10] = s


@once_per_backend
def _loops(backend):
    a, b = _rng().random(N), _rng().random(N) + 1
    out = np.zeros(11)
    loop_forms[1, 1](a, b, out)
    return a, b, out


def _loops_expected(a, b):
    first_big = next((i for i, v in enumerate(a) if v > 0.5), -1)
    return [1.0, first_big, a.size, sum(k * v for k, v in enumerate(a)), sum(k * v for k, v in enumerate(a, 5)),
            sum(x * y for x, y in zip(a, b)), sum(k * (x - y) for k, (x, y) in enumerate(zip(a, b))), 8.0, 44.0,
            a[0] + a[1] * 10 + a[2] * 100 + a[3] * 1000 + 2, sum(k * v for k, v in zip(range(3, 9), a))]


LOOP_ROWS = {"for-else": [0, 1], "while-else": [2], "enumerate": [3, 4, 6], "zip": [5, 6, 10], "tuple-loop": [7, 8],
             "starred": [9]}


@pytest.mark.parametrize("row", LOOP_ROWS)
def test_loop_construct(backend, row):
    a, b, out = _loops(backend)
    expected = _loops_expected(a, b)
    for col in LOOP_ROWS[row]:
        assert out[col] == pytest.approx(expected[col], rel=1e-12), (row, col)


def try_except(a):
    try:
        a[0] = 1
    except Exception:
        a[0] = 2


def try_finally(a):
    try:
        a[0] = 1
    finally:
        a[0] = 2


def with_statement(a):
    with cuda.defer_cleanup():
        a[0] = 1


def list_comprehension(a):
    a[0] = [i for i in range(3)][0]


def dict_comprehension(a):
    a[0] = {i: i for i in range(3)}[0]


def set_comprehension(a):
    a[0] = len({i for i in range(3)})


def generator_expression(a):
    g = (i for i in range(3))


def generator(a):
    yield a[0]


def unroll_break(a):
    for v in literal_unroll((1, 2.5)):
        if v > 1:
            break
        a[0] = v


REFUSED = {
    "try-except": (try_except, "try/except is not supported", "try:"),
    "try-finally": (try_finally, "try/except is not supported", "try:"),
    "with": (with_statement, "the with statement is not supported", "with cuda"),
    "list-comprehension": (list_comprehension, "list comprehensions are not supported", "a[0] = [i"),
    "dict-comprehension": (dict_comprehension, "dict comprehensions are not supported", "a[0] = {i: i"),
    "set-comprehension": (set_comprehension, "set comprehensions are not supported", "a[0] = len({i"),
    "generator-expression": (generator_expression, "generator expressions are not supported", "g = (i for"),
    "yield": (generator, "yield is not supported", "yield a[0]"),
    "literal-unroll-break": (unroll_break, "'break' in a literal_unroll loop is not supported", "        break"),
}


@pytest.mark.parametrize("row", REFUSED)
def test_refused_construct(row):
    fn, words, line = REFUSED[row]
    refused(fn, (F64,), UnsupportedError, words, line)


@cuda.jit(debug=True)
def raise_and_assert(a, out):
    i = cuda.grid(1)
    if i < a.size:
        if a[i] > 2.0:
            raise ValueError("too large")
        assert a[i] >= 0.0, "negative"
        out[i] = a[i]


@pytest.mark.parametrize("value,exc,words", [(3.0, ValueError, "too large"), (-1.0, AssertionError, "negative")])
def test_raise_and_assert(backend, value, exc, words):
    a = _rng().random(8)
    out = np.zeros(8)
    raise_and_assert[1, 8](a, out)
    np.testing.assert_array_equal(out, a)
    a[5] = value
    with pytest.raises(exc, match=words):
        raise_and_assert[1, 8](a, out)


@cuda.jit
def printing(a):
    print("value", a[0], 7)


def test_print(backend, capfd):
    printing[1, 1](np.array([2.5]))
    cuda.synchronize()
    if backend == "cpu":                       # the GPU's printf goes to the process's stdout too late to capture
        assert "value 2.500000 7" in capfd.readouterr().out


@cuda.jit
def print_thread_index(out):
    print(cuda.threadIdx)
    t = cuda.threadIdx                          # Numba's Dim3 as a value: .x .y .z, and it prints as a tuple
    out[t.z, t.y, t.x] = t.x + 10 * t.y + 100 * cuda.blockDim.z * t.z


def test_print_and_assign_thread_index(backend, capfd):
    out = np.zeros((2, 2, 3), np.int64)
    print_thread_index[1, (3, 2, 2)](out)
    cuda.synchronize()
    z, y, x = np.indices(out.shape)
    np.testing.assert_array_equal(out, x + 10 * y + 200 * z)
    if backend == "cpu":
        lines = sorted(capfd.readouterr().out.split("\n")[:-1])
        assert lines == sorted(str((i, j, k)) for k in range(2) for j in range(2) for i in range(3))


def test_print_of_more_than_32_items_prints_its_format(backend, capfd):
    """CUDA's printf takes at most 32 arguments: numba-cuda prints the format string instead, with a warning."""
    from cudajit.errors import NumbaWarning

    @cuda.jit
    def many(r):
        print(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15],
              r[16], r[17], r[18], r[19], r[20], r[21], r[22], r[23], r[24], r[25], r[26], r[27], r[28], r[29],
              r[30], r[31], r[32])

    with pytest.warns(NumbaWarning, match="cannot print more than 32 items") as caught:
        many[1, 1](np.arange(33))
    cuda.synchronize()
    assert caught[0].filename == __file__
    if backend == "cpu":
        assert capfd.readouterr().out == " ".join(["%lld"] * 33) + "\n"


@cuda.jit("int64(int64)", device=True)
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@cuda.jit
def call_fib(n, out):
    i = cuda.grid(1)
    if i < n.size:
        out[i] = fib(n[i])


def test_self_recursion(backend):
    n = np.arange(15)
    out = np.zeros(15, np.int64)
    call_fib[1, 15](n, out)
    np.testing.assert_array_equal(out, [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377])


# ---- built-in types ------------------------------------------------------------------------------------------
class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Size(enum.IntEnum):
    SMALL = 3
    LARGE = 7


class Shade(enum.Enum):
    LIGHT = 0.25
    DARK = 0.75


@cuda.jit
def builtin_types(a, z, out, cout):
    out[0] = int(a[0] * 10)                    # int
    out[1] = a[1] / 3                          # float
    cout[0] = z[0] * z[1] + 1j                 # complex
    out[2] = (a[0] > a[1]) + (not a[0])        # bool
    t = (a[0], 2, a[1])                        # tuple: index, len, nesting
    u = (t, 1.5)
    out[3] = t[0] + t[1] * t[2] + len(t) + u[0][2] + u[1]
    out[4] = Size.LARGE * 2 + Size.SMALL       # IntEnum: an int
    out[5] = Size.SMALL < Size.LARGE


@once_per_backend
def _types(backend):
    a, z = _rng().random(2), _rng().random(2) + 1j * _rng().random(2)
    out, cout = np.zeros(6), np.zeros(1, np.complex128)
    builtin_types[1, 1](a, z, out, cout)
    return a, z, out, cout


def test_type_int(backend):
    a, _, out, _ = _types(backend)
    assert out[0] == int(a[0] * 10)


def test_type_float(backend):
    a, _, out, _ = _types(backend)
    assert out[1] == a[1] / 3


def test_type_complex(backend):
    _, z, _, cout = _types(backend)
    assert cout[0] == pytest.approx(z[0] * z[1] + 1j, rel=1e-15)


def test_type_bool(backend):
    a, _, out, _ = _types(backend)
    assert out[2] == (a[0] > a[1]) + (not a[0])


def test_type_tuple(backend):
    a, _, out, _ = _types(backend)
    assert out[3] == pytest.approx(a[0] + 2 * a[1] + 3 + a[1] + 1.5, rel=1e-15)


def test_type_intenum(backend):
    _, _, out, _ = _types(backend)
    assert (out[4], out[5]) == (17, 1)


# ---- namedtuples, Enum members, None, literal_unroll ------------------------------------------------------
P = collections.namedtuple("P", ["x", "y"])
Pair = collections.namedtuple("Pair", "data scale")


class Q(typing.NamedTuple):
    a: float
    n: int = 7


FAVOURITE = Color.GREEN


@cuda.jit(device=True)
def norm2(p):
    return p.x * p.x + p.y * p.y


@cuda.jit(device=True)
def doubled(q):
    return Q(q.a * 2, q.n + 1)


@cuda.jit(device=True)
def enum_code(c):
    if c == Color.RED:
        return 100
    return c.value


@cuda.jit(device=True)
def plus_maybe(a, b=None):
    if b is None:
        return a * 2
    return a + b


@cuda.jit(device=True)
def plus_if_positive(a, b=None):
    if b is not None and b > 0:
        return a + b
    return a


@cuda.jit
def python_objects(p, q, pa, mixed, x, out):
    out[0] = p.x + 10 * p.y                                     # attribute by field name
    out[1] = p[0] - p[1] * 3 + q[1]                             # indexing
    a, b = p                                                    # unpacking
    qa, qn = q
    out[2] = a * b + qa * qn
    out[3] = len(p) + 10 * len(q)                               # len
    s = 0.0
    for v in p:                                                 # iteration (one element type)
        s += v * v
    out[4] = s
    r = P(x[0], y=x[1])                                         # constructed in the kernel
    d = Q(x[2])                                                 # typing.NamedTuple with a default field
    out[5] = r.x * 2 + r.y + d.a + d.n
    w = doubled(q)                                              # passed to and returned from device functions
    out[6] = norm2(p) + w.a + w.n
    out[7] = pa.data[1] * pa.scale + len(pa.data)               # a namedtuple argument holding an array
    out[8] = q.a * q.n
    c = Color.RED if x[0] < 0.5 else Color.GREEN                # Enum members: chosen at run time
    out[9] = (c == Color.GREEN) + 2 * (c != Color.RED) + 4 * (c is Color.GREEN) + 8 * (c is not Color.GREEN) \
        + 16 * (Color.RED == Shade.DARK)
    out[10] = c.value * 10 + Shade.DARK.value + FAVOURITE.value
    out[11] = enum_code(c) + enum_code(Color.GREEN)
    n = None                                                    # None: known when compiling
    out[12] = (1 if n is None else 2) + 10 * (n is not None)
    out[13] = plus_maybe(x[0]) + 100 * plus_maybe(x[0], x[1])
    out[14] = plus_if_positive(x[3]) + 100 * plus_if_positive(x[3], x[4] - 0.5)
    t = 0.0
    for e in literal_unroll((1, 2.5, np.int8(3), x[3])):        # each element typed on its own
        t = t * 2 + e // 2
    out[15] = t
    t = 0.0
    for e in literal_unroll(mixed):                             # a tuple argument of mixed types
        t = t * 3 + e
    for e in literal_unroll(q):
        t = t * 3 + e
    out[16] = t


def _python_objects_expected(p, q, pa, mixed, x):
    c = Color.RED if x[0] < 0.5 else Color.GREEN
    plus_maybe_py = lambda a, b=None: a * 2 if b is None else a + b
    plus_if_positive_py = lambda a, b=None: a + b if b is not None and b > 0 else a
    t = 0.0
    for e in (1, 2.5, 3, x[3]):
        t = t * 2 + e // 2
    u = 0.0
    for e in tuple(mixed) + tuple(q):
        u = u * 3 + float(e)                    # float64 arithmetic, as the kernel's (NumPy 2 would keep float32)
    return [p.x + 10 * p.y, p[0] - p[1] * 3 + q[1], p.x * p.y + q.a * q.n, 2 + 20, p.x ** 2 + p.y ** 2,
            x[0] * 2 + x[1] + x[2] + 7, p.x ** 2 + p.y ** 2 + q.a * 2 + q.n + 1, pa.data[1] * pa.scale + pa.data.size,
            q.a * q.n,
            (c == Color.GREEN) + 2 * (c != Color.RED) + 4 * (c is Color.GREEN) + 8 * (c is not Color.GREEN),
            c.value * 10 + Shade.DARK.value + FAVOURITE.value, (100 if c == Color.RED else c.value) + 2, 1,
            plus_maybe_py(x[0]) + 100 * plus_maybe_py(x[0], x[1]),
            plus_if_positive_py(x[3]) + 100 * plus_if_positive_py(x[3], x[4] - 0.5), t, u]


@once_per_backend
def _objects(backend):
    rng = _rng()
    x = rng.random(8)
    p, q = P(*rng.uniform(-2, 2, 2)), Q(rng.uniform(-2, 2), int(rng.integers(-9, 9)))
    pa = Pair(rng.random(5), rng.uniform(1, 3))
    mixed = (int(rng.integers(-50, 50)), rng.random(), np.float32(rng.random()))
    out = np.zeros(17)
    python_objects[1, 1](p, q, pa, mixed, x, out)
    return (p, q, pa, mixed, x), out


OBJECT_ROWS = {"attribute": [0], "index": [1], "unpack": [2], "len": [3], "iterate": [4], "construct": [5],
               "device-function": [6], "array-field": [7], "typing.NamedTuple": [5, 8]}


def _check_object_columns(backend, cols):
    args, out = _objects(backend)
    expected = _python_objects_expected(*args)
    for col in cols:
        assert out[col] == pytest.approx(expected[col], rel=1e-12), col


@pytest.mark.parametrize("row", OBJECT_ROWS)
def test_namedtuple(backend, row):
    _check_object_columns(backend, OBJECT_ROWS[row])


ENUM_ROWS = {"compare": [9], "value": [10], "device-function": [11]}


@pytest.mark.parametrize("row", ENUM_ROWS)
def test_enum(backend, row):
    _check_object_columns(backend, ENUM_ROWS[row])


def _enum_kernel(member):
    @cuda.jit
    def closure_enum(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] * member.value if member == Color.GREEN else -a[i]
    return closure_enum


def test_type_enum(backend):
    # members of a plain Enum (number values) as globals (python_objects) and as closure constants
    a = _rng().random(16)
    for member in Color:
        out = np.zeros(16)
        _enum_kernel(member)[1, 16](a, out)
        np.testing.assert_array_equal(out, a * member.value if member == Color.GREEN else -a)


NONE_ROWS = {"variable": [12], "default-argument": [13], "and-pruned": [14]}


@pytest.mark.parametrize("row", NONE_ROWS)
def test_none(backend, row):
    _check_object_columns(backend, NONE_ROWS[row])


def test_type_none(backend):
    args, out = _objects(backend)
    assert out[12] == 1


UNROLL_ROWS = {"literal-tuple": [15], "tuple-argument": [16]}


@pytest.mark.parametrize("row", UNROLL_ROWS)
def test_literal_unroll(backend, row):
    _check_object_columns(backend, UNROLL_ROWS[row])


def optional_variable(a):
    x = None
    if a[0] > 0:
        x = 1.5
    a[1] = 0 if x is None else x


def returns_optional(a):
    a[0] = optional_device(a[1])


@cuda.jit(device=True)
def optional_device(v):
    if v > 0:
        return v
    return None


optional_variable_kernel = cuda.jit(optional_variable)
returns_optional_kernel = cuda.jit(returns_optional)


def test_optional(backend, rng):
    # numba-cuda types a value that may be None at run time as Optional (tests/test_optional.py has the rest)
    for first, x in ((2.0, 1.5), (-2.0, 0.0)):
        a = np.array([first, 7.0])
        optional_variable_kernel[1, 1](a)
        assert a[1] == x
    a = rng.uniform(0.5, 1, 2)
    returns_optional_kernel[1, 1](a)
    assert a[0] == a[1]
    b = np.array([5.0, -a[1]])                   # optional_device returns None: the use ends the thread
    returns_optional_kernel[1, 1](b)
    assert b[0] == 5.0


def test_refused_optional():
    # a tuple (or array) that may be None stays refused
    def optional_tuple_variable(a):
        t = None
        if a[0] > 0:
            t = (a[0], a[0])
        a[1] = 0 if t is None else t[0]
    refused(optional_tuple_variable, (F64,), TypingError,
            "variable 't' is None on one path and UniTuple(float64 x 2) on another", "a[1] = 0 if t is None")


# ---- built-in functions --------------------------------------------------------------------------------------
@cuda.jit
def builtin_functions(x, y, n, out):
    i = cuda.grid(1)
    if i < x.size:
        out[0, i] = abs(-x[i]) + abs(-n[i])
        out[1, i] = bool(n[i] % 2)
        out[2, i] = complex(x[i], y[i]).imag
        s = 0.0
        for k, v in enumerate(x):
            s += k * v
        out[3, i] = s
        out[4, i] = float(n[i]) / 7
        out[5, i] = int(x[i] * 100)
        out[6, i] = len(x) + len(x.shape)
        out[7, i] = min(x[i], y[i], 0.5)
        out[8, i] = max(n[i], 3, 5)
        out[9, i] = pow(x[i], y[i]) + pow(n[i], 2)
        s = 0.0
        for k in range(n[i] % 5, 9, 2):
            s += k
        out[10, i] = s
        out[11, i] = round(x[i] * 10) + round(y[i], 2)
        s = 0.0
        for u, v in zip(x, y):
            s += u * v
        out[12, i] = s


BUILTINS = [
    ("abs", lambda x, y, n, X, Y: abs(-x) + abs(-n)),
    ("bool", lambda x, y, n, X, Y: bool(n % 2)),
    ("complex", lambda x, y, n, X, Y: complex(x, y).imag),
    ("enumerate", lambda x, y, n, X, Y: sum(k * v for k, v in enumerate(X))),
    ("float", lambda x, y, n, X, Y: float(n) / 7),
    ("int", lambda x, y, n, X, Y: int(x * 100)),
    ("len", lambda x, y, n, X, Y: len(X) + 1),
    ("min", lambda x, y, n, X, Y: min(x, y, 0.5)),
    ("max", lambda x, y, n, X, Y: max(n, 3, 5)),
    ("pow", lambda x, y, n, X, Y: pow(x, y) + pow(n, 2)),
    ("range", lambda x, y, n, X, Y: sum(range(n % 5, 9, 2))),
    ("round", lambda x, y, n, X, Y: round(x * 10) + round(y, 2)),
    ("zip", lambda x, y, n, X, Y: sum(u * v for u, v in zip(X, Y))),
]


@once_per_backend
def _builtins(backend):
    rng = _rng()
    x, y, n = rng.random(N), rng.random(N), rng.integers(-50, 50, N)
    out = np.zeros((len(BUILTINS), N))
    builtin_functions[1, N](x, y, n, out)
    return x, y, n, out


@pytest.mark.parametrize("row", [r[0] for r in BUILTINS])
def test_builtin_function(backend, row):
    x, y, n, out = _builtins(backend)
    col = [r[0] for r in BUILTINS].index(row)
    expected = [BUILTINS[col][1](a, b, int(m), x.tolist(), y.tolist()) for a, b, m in zip(x.tolist(), y.tolist(), n)]
    np.testing.assert_allclose(out[col], expected, rtol=1e-13)


@cuda.jit
def isinstance_and_float_of_str(a, n, flags, out):
    flags[0] = isinstance(a[0], float)
    flags[1] = not isinstance(a[0], int)
    flags[2] = isinstance(n, int) and not isinstance(n, float)
    flags[3] = isinstance(a[0], types.float64) and not isinstance(a[0], types.float32)
    flags[4] = isinstance(n > 0, bool) and isinstance(1j, complex)
    if isinstance(n, float):                   # decided at compile time: the branch is not typed
        out[0] = n.no_such_attribute
    out[0] = float("nan")
    out[1] = float("-inf")
    out[2] = float(" 2.5 ")


def test_isinstance_and_float_of_a_string(backend):
    # Numba's isinstance (decided by the argument's type) and float() of a constant string
    flags, out = np.zeros(5, np.bool_), np.zeros(3)
    isinstance_and_float_of_str[1, 1](np.ones(2), 3, flags, out)
    assert flags.all(), np.nonzero(~flags)[0]
    assert np.isnan(out[0]) and out[1] == -np.inf and out[2] == 2.5

    @cuda.jit
    def bad_string(out):
        out[0] = float("one")
    with pytest.raises(TypingError, match=r"test_doc_surface_python.py:\d+: could not convert string to float: 'one'"):
        bad_string[1, 1](np.zeros(1))

    @cuda.jit
    def tuple_of_classes(a, flags):
        flags[0] = isinstance(a[0], (int, float))
        flags[1] = not isinstance(a[0], (int, types.float32, complex))
    flags = np.zeros(2, np.bool_)
    tuple_of_classes[1, 1](np.ones(1), flags)
    assert flags.all()

    @cuda.jit
    def not_a_class(a, flags):
        flags[0] = isinstance(a[0], 3)
    with pytest.raises(TypingError, match=r"test_doc_surface_python.py:\d+: isinstance\(\) in CUDA kernels takes a class"):
        not_a_class[1, 1](np.ones(1), flags)


# ---- math, cmath, operator -----------------------------------------------------------------------------------
@cuda.jit
def math_functions(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        a, b = x[i], y[i]
        out[0, i] = math.acos(a)
        out[1, i] = math.asin(a)
        out[2, i] = math.atan(a)
        out[3, i] = math.acosh(1 + a)
        out[4, i] = math.asinh(a)
        out[5, i] = math.atanh(a)
        out[6, i] = math.cos(a)
        out[7, i] = math.sin(a)
        out[8, i] = math.tan(a)
        out[9, i] = math.hypot(a, b)
        out[10, i] = math.cosh(a)
        out[11, i] = math.sinh(a)
        out[12, i] = math.tanh(a)
        out[13, i] = math.atan2(a, b)
        out[14, i] = math.erf(a)
        out[15, i] = math.erfc(a)
        out[16, i] = math.exp(a)
        out[17, i] = math.exp2(a)
        out[18, i] = math.expm1(a)
        out[19, i] = math.fabs(-a)
        m, e = math.frexp(a * 100)
        out[20, i] = m + e
        out[21, i] = math.ldexp(a, 5)
        out[22, i] = math.gamma(a)
        out[23, i] = math.lgamma(a)
        out[24, i] = math.log(a)
        out[25, i] = math.log2(a)
        out[26, i] = math.log10(a)
        out[27, i] = math.log1p(a)
        out[28, i] = math.nextafter(a, b)
        out[29, i] = math.sqrt(a)
        out[30, i] = math.remainder(a * 10, b)
        out[31, i] = math.pow(a, b)
        out[32, i] = math.ceil(a * 10)
        out[33, i] = math.floor(a * 10)
        out[34, i] = math.copysign(a, -b)
        out[35, i] = math.fmod(a * 10, b)
        f, w = math.modf(a * 10)
        out[36, i] = f + 100 * w
        out[37, i] = math.isnan((a - a) / (a - a))
        out[38, i] = math.isinf(a / (a - a))
        out[39, i] = math.isfinite(a)


MATH = [
    ("math.acos", lambda a, b: math.acos(a)), ("math.asin", lambda a, b: math.asin(a)),
    ("math.atan", lambda a, b: math.atan(a)), ("math.acosh", lambda a, b: math.acosh(1 + a)),
    ("math.asinh", lambda a, b: math.asinh(a)), ("math.atanh", lambda a, b: math.atanh(a)),
    ("math.cos", lambda a, b: math.cos(a)), ("math.sin", lambda a, b: math.sin(a)),
    ("math.tan", lambda a, b: math.tan(a)), ("math.hypot", lambda a, b: math.hypot(a, b)),
    ("math.cosh", lambda a, b: math.cosh(a)), ("math.sinh", lambda a, b: math.sinh(a)),
    ("math.tanh", lambda a, b: math.tanh(a)), ("math.atan2", lambda a, b: math.atan2(a, b)),
    ("math.erf", lambda a, b: math.erf(a)), ("math.erfc", lambda a, b: math.erfc(a)),
    ("math.exp", lambda a, b: math.exp(a)), ("math.exp2", lambda a, b: 2.0 ** a),
    ("math.expm1", lambda a, b: math.expm1(a)), ("math.fabs", lambda a, b: math.fabs(-a)),
    ("math.frexp", lambda a, b: sum(math.frexp(a * 100))), ("math.ldexp", lambda a, b: math.ldexp(a, 5)),
    ("math.gamma", lambda a, b: math.gamma(a)), ("math.lgamma", lambda a, b: math.lgamma(a)),
    ("math.log", lambda a, b: math.log(a)), ("math.log2", lambda a, b: math.log2(a)),
    ("math.log10", lambda a, b: math.log10(a)), ("math.log1p", lambda a, b: math.log1p(a)),
    ("math.nextafter", lambda a, b: math.nextafter(a, b)), ("math.sqrt", lambda a, b: math.sqrt(a)),
    ("math.remainder", lambda a, b: math.remainder(a * 10, b)), ("math.pow", lambda a, b: math.pow(a, b)),
    ("math.ceil", lambda a, b: math.ceil(a * 10)), ("math.floor", lambda a, b: math.floor(a * 10)),
    ("math.copysign", lambda a, b: math.copysign(a, -b)), ("math.fmod", lambda a, b: math.fmod(a * 10, b)),
    ("math.modf", lambda a, b: math.modf(a * 10)[0] + 100 * math.modf(a * 10)[1]),
    ("math.isnan", lambda a, b: True), ("math.isinf", lambda a, b: True), ("math.isfinite", lambda a, b: True),
]


@once_per_backend
def _math(backend):
    rng = _rng()
    x, y = rng.uniform(0.05, 0.95, N), rng.uniform(0.5, 2.0, N)
    out = np.zeros((len(MATH), N))
    math_functions[1, N](x, y, out)
    return x, y, out


@pytest.mark.parametrize("row", [r[0] for r in MATH])
def test_math(backend, row):
    x, y, out = _math(backend)
    col = [r[0] for r in MATH].index(row)
    expected = [MATH[col][1](a, b) for a, b in zip(x.tolist(), y.tolist())]
    np.testing.assert_allclose(out[col], expected, rtol=1e-13)


@cuda.jit
def cmath_functions(z, out):
    i = cuda.grid(1)
    if i < z.size:
        w = z[i]
        out[0, i] = cmath.acos(w)
        out[1, i] = cmath.acosh(w)
        out[2, i] = cmath.asin(w)
        out[3, i] = cmath.asinh(w)
        out[4, i] = cmath.atan(w)
        out[5, i] = cmath.atanh(w)
        out[6, i] = cmath.cos(w)
        out[7, i] = cmath.cosh(w)
        out[8, i] = cmath.exp(w)
        out[9, i] = cmath.isfinite(w / (w - w))
        out[10, i] = cmath.isinf(w / 0)
        out[11, i] = cmath.isnan(w * (w - w) / 0)
        out[12, i] = cmath.log(w)
        out[13, i] = cmath.log10(w)
        out[14, i] = cmath.phase(w)
        r, phi = cmath.polar(w)
        out[15, i] = complex(r, phi)
        out[16, i] = cmath.rect(abs(w), 0.5)
        out[17, i] = cmath.sin(w)
        out[18, i] = cmath.sinh(w)
        out[19, i] = cmath.sqrt(w)
        out[20, i] = cmath.tan(w)
        out[21, i] = cmath.tanh(w)


CMATH = [
    ("cmath.acos", cmath.acos), ("cmath.acosh", cmath.acosh), ("cmath.asin", cmath.asin),
    ("cmath.asinh", cmath.asinh), ("cmath.atan", cmath.atan), ("cmath.atanh", cmath.atanh),
    ("cmath.cos", cmath.cos), ("cmath.cosh", cmath.cosh), ("cmath.exp", cmath.exp),
    ("cmath.isfinite", lambda w: False), ("cmath.isinf", lambda w: True), ("cmath.isnan", lambda w: True),
    ("cmath.log", cmath.log), ("cmath.log10", cmath.log10), ("cmath.phase", cmath.phase),
    ("cmath.polar", lambda w: complex(*cmath.polar(w))), ("cmath.rect", lambda w: cmath.rect(abs(w), 0.5)),
    ("cmath.sin", cmath.sin), ("cmath.sinh", cmath.sinh), ("cmath.sqrt", cmath.sqrt),
    ("cmath.tan", cmath.tan), ("cmath.tanh", cmath.tanh),
]


@once_per_backend
def _cmath(backend):
    rng = _rng()
    z = rng.uniform(-2, 2, N) + 1j * rng.uniform(-2, 2, N)
    out = np.zeros((len(CMATH), N), np.complex128)
    cmath_functions[1, N](z, out)
    return z, out


@pytest.mark.parametrize("row", [r[0] for r in CMATH])
def test_cmath(backend, row):
    z, out = _cmath(backend)
    col = [r[0] for r in CMATH].index(row)
    np.testing.assert_allclose(out[col], [CMATH[col][1](w) for w in z.tolist()], rtol=1e-12)


@cuda.jit
def operator_functions(p, q, out):
    i = cuda.grid(1)
    if i < p.size:
        a, b = p[i], q[i]
        out[0, i] = operator.add(a, b)
        out[1, i] = operator.and_(a, b)
        out[2, i] = operator.eq(a, b % 3)
        out[3, i] = operator.floordiv(a, b)
        out[4, i] = operator.ge(a, b)
        out[5, i] = operator.gt(a, b)
        out[6, i] = operator.iadd(a, b)
        out[7, i] = operator.iand(a, b)
        out[8, i] = operator.ifloordiv(a, b)
        out[9, i] = operator.ilshift(a, 3)
        out[10, i] = operator.imod(a, b)
        out[11, i] = operator.imul(a, b)
        out[12, i] = operator.invert(a)
        out[13, i] = operator.ior(a, b)
        out[14, i] = operator.ipow(a, 2)
        out[15, i] = operator.irshift(a, 2)
        out[16, i] = operator.isub(a, b)
        out[17, i] = operator.itruediv(a, b)
        out[18, i] = operator.ixor(a, b)
        out[19, i] = operator.le(a, b)
        out[20, i] = operator.lshift(a, 4)
        out[21, i] = operator.lt(a, b)
        out[22, i] = operator.mod(a, b)
        out[23, i] = operator.mul(a, b)
        out[24, i] = operator.ne(a, b % 3)
        out[25, i] = operator.neg(a)
        out[26, i] = operator.not_(a % 2)
        out[27, i] = operator.or_(a, b)
        out[28, i] = operator.pos(a)
        out[29, i] = operator.pow(a, 3)
        out[30, i] = operator.rshift(a, 1)
        out[31, i] = operator.sub(a, b)
        out[32, i] = operator.truediv(a, b)
        out[33, i] = operator.xor(a, b)


OPERATOR = [
    ("operator.add", lambda a, b: a + b), ("operator.and_", lambda a, b: a & b),
    ("operator.eq", lambda a, b: a == b % 3), ("operator.floordiv", lambda a, b: a // b),
    ("operator.ge", lambda a, b: a >= b), ("operator.gt", lambda a, b: a > b), ("operator.iadd", lambda a, b: a + b),
    ("operator.iand", lambda a, b: a & b), ("operator.ifloordiv", lambda a, b: a // b),
    ("operator.ilshift", lambda a, b: a << 3), ("operator.imod", lambda a, b: a % b),
    ("operator.imul", lambda a, b: a * b), ("operator.invert", lambda a, b: ~a), ("operator.ior", lambda a, b: a | b),
    ("operator.ipow", lambda a, b: a ** 2), ("operator.irshift", lambda a, b: a >> 2),
    ("operator.isub", lambda a, b: a - b), ("operator.itruediv", lambda a, b: a / b),
    ("operator.ixor", lambda a, b: a ^ b), ("operator.le", lambda a, b: a <= b),
    ("operator.lshift", lambda a, b: a << 4), ("operator.lt", lambda a, b: a < b), ("operator.mod", lambda a, b: a % b),
    ("operator.mul", lambda a, b: a * b), ("operator.ne", lambda a, b: a != b % 3), ("operator.neg", lambda a, b: -a),
    ("operator.not_", lambda a, b: not a % 2), ("operator.or_", lambda a, b: a | b), ("operator.pos", lambda a, b: +a),
    ("operator.pow", lambda a, b: a ** 3), ("operator.rshift", lambda a, b: a >> 1),
    ("operator.sub", lambda a, b: a - b), ("operator.truediv", lambda a, b: a / b),
    ("operator.xor", lambda a, b: a ^ b),
]


@once_per_backend
def _operator(backend):
    rng = _rng()
    p = rng.integers(-1000, 1000, N)
    q = rng.integers(1, 50, N) * rng.choice([-1, 1], N)
    out = np.zeros((len(OPERATOR), N))
    operator_functions[1, N](p, q, out)
    return p, q, out


@pytest.mark.parametrize("row", [r[0] for r in OPERATOR])
def test_operator(backend, row):
    p, q, out = _operator(backend)
    col = [r[0] for r in OPERATOR].index(row)
    np.testing.assert_allclose(out[col], [OPERATOR[col][1](a, b) for a, b in zip(p.tolist(), q.tolist())],
                               rtol=1e-15)

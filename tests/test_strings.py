"""Strings in kernels (issue 40): string constants as compile-time values (compared, passed to device functions,
assigned to locals), and NumPy's fixed-width strings ('S' bytes, 'U' code points) as array elements and record
fields: constants stored into them, copied, compared. Each against NumPy/Python on every backend."""
import numpy as np
import pytest

from cudajit import cuda
from cudajit.errors import TypingError

ALPHABET = list("abcdefghijklmnopqrstuvwxyz") + ["é", "ü", "字", "😀"]


def random_strings(rng, n, width, unicode):
    chars = ALPHABET if unicode else ALPHABET[:26]
    out = ["".join(rng.choice(chars, rng.integers(0, width + 1))) for _ in range(n)]
    return np.array(out if unicode else [s.encode() for s in out], f"{'U' if unicode else 'S'}{width}")


@cuda.jit(device=True)
def pick(value, a, i):
    if value == "one":
        a[i] = 1.0
    elif value != b"two":
        a[i] = 3.0
    else:
        a[i] = 2.0


@cuda.jit
def literal_arguments(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        pick("one", a[i], 0)
        pick(b"two", a[i], 1)
        pick("two", a[i], 2)          # str "two" is not bytes b"two"
        s = "" or "x"                 # Python's value: the first true operand
        a[i, 3] = 4.0 if s == "x" and s is not None and "x" != 1 and "a" < "b" else -1.0


def test_string_constants_fold_and_specialise_device_functions(backend):
    a = np.zeros((33, 4))
    literal_arguments[2, 32](a)
    np.testing.assert_array_equal(a, np.tile([1.0, 2.0, 3.0, 4.0], (33, 1)))


def test_the_numba_cuda_regression_string_argument_compiles(backend):
    """numba-cuda issue 755's program, unchanged but for the import."""
    @cuda.jit(device=True, forceinline=True)
    def load(gmem, value):
        if value == "1":
            gmem[cuda.threadIdx.x] = 1.0
        else:
            gmem[cuda.threadIdx.x] = 0.0

    @cuda.jit
    def kernel(buff):
        load(buff, "1")

    buff = cuda.to_device(np.zeros(32, dtype=np.float32))
    kernel[1, 32](buff)
    np.testing.assert_array_equal(buff.copy_to_host(), np.ones(32, np.float32))


@cuda.jit
def store_str(arr):
    i = cuda.grid(1)
    if i < len(arr) - 1:
        if i % 2:
            arr[i] = "XYZé"
        else:
            arr[i] = "ab"


@cuda.jit
def store_bytes(arr):
    i = cuda.grid(1)
    if i < len(arr) - 1:
        if i % 2:
            arr[i] = b"XYZ"
        else:
            arr[i] = b"abcdefghijklmnop"      # cut at the width, as NumPy


@pytest.mark.parametrize("width", [1, 3, 12])
def test_constants_stored_into_fixed_width_elements(backend, width):
    n = 40
    u = np.array(["junk"] * n, f"U{width}")
    store_str[2, 32](u)
    want = np.array(["junk"] * n, f"U{width}")
    want[:-1] = ["XYZé" if i % 2 else "ab" for i in range(n - 1)]
    np.testing.assert_array_equal(u, want)
    s = np.array([b"junk"] * n, f"S{width}")
    store_bytes[2, 32](s)
    want = np.array([b"junk"] * n, f"S{width}")
    want[:-1] = [b"XYZ" if i % 2 else b"abcdefghijklmnop" for i in range(n - 1)]
    np.testing.assert_array_equal(s, want)


@cuda.jit
def copy_and_compare(a, b, out, flags):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i]
        flags[i, 0] = a[i] == b[i]
        flags[i, 1] = a[i] != b[i]
        flags[i, 2] = a[i] == "abc"
        flags[i, 3] = "" == a[i]


@pytest.mark.parametrize("unicode", [False, True], ids=["bytes", "str"])
def test_elements_copied_and_compared(backend, rng, unicode):
    n = 300
    a = random_strings(rng, n, 5, unicode)
    b = a.copy()
    b[::3] = random_strings(rng, len(b[::3]), 4, unicode)     # another width: NumPy compares without the NULs
    b = b.astype(f"{'U' if unicode else 'S'}4")
    a[::7] = "abc" if unicode else b"abc"
    out = np.zeros_like(a)
    flags = np.zeros((n, 4), np.bool_)
    copy_and_compare[(n + 63) // 64, 64](cuda.to_device(a), b, out, flags)
    np.testing.assert_array_equal(out, a)
    abc, empty = ("abc", "") if unicode else (b"abc", b"")
    np.testing.assert_array_equal(flags[:, 0], a == b)
    np.testing.assert_array_equal(flags[:, 1], a != b)
    np.testing.assert_array_equal(flags[:, 2], a == abc)
    np.testing.assert_array_equal(flags[:, 3], a == empty)


@cuda.jit
def fill_records(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i]["x"] = i
        if i % 2:
            a[i]["y"] = "ABC"
        else:
            a[i]["y"] = "XYZ"
        a[i].z = b"q"
        if a[i].y == "XYZ":
            a[i].x = -i


def test_string_fields_of_records(backend):
    """numba-cuda's test_const_string record cases, with both kinds in one record."""
    dt = np.dtype([("x", np.int32), ("y", np.dtype("<U12")), ("z", "S3")])
    a = np.zeros(50, dt)
    fill_records[2, 32](a)
    want = np.zeros(50, dt)
    want["x"] = [i if i % 2 else -i for i in range(50)]
    want["y"] = ["ABC" if i % 2 else "XYZ" for i in range(50)]
    want["z"] = b"q"
    np.testing.assert_array_equal(a, want)


def test_a_string_array_where_a_number_is_needed_names_the_line(backend):
    @cuda.jit
    def copy(src, dst):
        dst[0] = src[0]

    with pytest.raises(TypingError, match=r"test_strings.py:\d+: cannot convert \[unichr x 1\] to float64\n"
                                          r"    dst\[0\] = src\[0\]"):
        copy[1, 1](np.array(["x", "y"]), np.zeros(1))


def test_what_strings_cannot_do_is_refused_by_name(backend):
    def non_ascii_into_bytes(a):
        a[0] = "é"

    def number_into_string(a):
        a[0] = 3

    def ordered_against_number(a, out):
        out[0] = "a" < 1

    def string_lengths(a):
        a[0] = len("abcd")

    def one_of_two_constants(a, i):
        a[0] = "x" if i else "y"

    with pytest.raises(TypingError, match=r"cannot store str 'é' into \[char x 2\]: NumPy stores only ASCII"):
        cuda.jit(non_ascii_into_bytes)[1, 1](np.zeros(1, "S2"))
    with pytest.raises(TypingError, match=r"cannot store int64 into \[unichr x 2\]"):
        cuda.jit(number_into_string)[1, 1](np.zeros(1, "U2"))
    with pytest.raises(TypingError, match=r"cannot compare Literal\[str\]\('a'\) and int64 with <"):
        cuda.jit(ordered_against_number)[1, 1](np.zeros(1), np.zeros(1, np.bool_))
    with pytest.raises(TypingError, match=r"cannot unify Literal\[str\]\('x'\) and Literal\[str\]\('y'\)"):
        cuda.jit(one_of_two_constants)[1, 1](np.zeros(1, "U2"), 1)
    out = np.zeros(1, np.int64)
    cuda.jit(string_lengths)[1, 1](out)
    assert out[0] == 4

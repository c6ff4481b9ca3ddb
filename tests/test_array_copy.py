"""``a.copy()`` in a kernel (issue 40; numba-cuda's test_array_methods.py::test_array_copy): a global NumPy array's
copy is a writable local array of the same elements; a copy of an array whose shape is known only at run time is an
UnsupportedError naming the file and line, as kernels allocate nothing."""
import numpy as np
import pytest

from cudajit import cuda
from cudajit.errors import UnsupportedError

RNG = np.random.default_rng(40)
REVERSED = RNG.integers(-50, 50, 7)[::-1]                 # a view with a negative stride: copied in its order
GRID = RNG.standard_normal((3, 4)).astype(np.float32)
FORTRAN = np.asfortranarray(RNG.standard_normal((2, 5)))


@cuda.jit
def copies(v, m, f):
    i = cuda.grid(1)
    q = REVERSED.copy()
    q[0] += i                                             # each thread's own copy, writable
    r = GRID.copy()
    r[1, 2] = -1.0
    s = FORTRAN.copy()
    for k in range(q.size):
        v[i, k] = q[k] + REVERSED[k]
    for a in range(3):
        for b in range(4):
            m[i, a, b] = r[a, b]
    for a in range(2):
        for b in range(5):
            f[i, a, b] = s[a, b] * s.shape[1]


def test_the_copy_of_a_global_array(backend):
    n = 40
    v, m, f = np.zeros((n, 7), np.int64), np.zeros((n, 3, 4), np.float32), np.zeros((n, 2, 5))
    copies[2, 20](v, m, f)
    want_m = GRID.copy()
    want_m[1, 2] = -1.0
    for i in range(n):
        q = REVERSED.copy()
        q[0] += i
        np.testing.assert_array_equal(v[i], q + REVERSED)
        np.testing.assert_array_equal(m[i], want_m)
        np.testing.assert_array_equal(f[i], FORTRAN * 5)


def test_numba_cudas_example(backend):
    val = np.array([1, 2, 3])[::-1]

    @cuda.jit
    def kernel(out):
        q = val.copy()
        for i in range(len(out)):
            out[i] = q[i]
    out = cuda.to_device(np.zeros(len(val), dtype="float64"))
    kernel[1, 1](out)
    np.testing.assert_array_equal(out.copy_to_host(), val)


def test_a_copy_of_an_argument_says_what_to_do_instead(backend):
    @cuda.jit
    def bad(a, out):
        b = a.copy()
        out[0] = b[0]
    with pytest.raises(UnsupportedError, match=r"test_array_copy.py:\d+: a.copy\(\) of an array whose shape is known "
                                               r"only at run time") as e:
        bad[1, 1](np.ones(3), np.zeros(1))
    assert "cuda.local.array" in str(e.value)


def test_copy_takes_no_arguments(backend):
    @cuda.jit
    def bad(out):
        b = GRID.copy(order="F")
        out[0] = b[0, 0]
    with pytest.raises(Exception, match="copy\\(\\) takes no arguments"):
        bad[1, 1](np.zeros(1, np.float32))


def test_a_copy_inside_a_loop_is_refused(backend):
    """Each iteration's copy would be one local array, so a copy kept from an earlier iteration would change with
    the next: refused rather than wrong (Python gives distinct arrays)."""
    @cuda.jit
    def in_loop(out):
        prev = GRID.copy()
        for k in range(2):
            q = GRID.copy()
            q[0, 0] = k
            if k == 0:
                prev = q
        out[0] = prev[0, 0]
    with pytest.raises(UnsupportedError, match=r"test_array_copy.py:\d+: a.copy\(\) inside a loop"):
        in_loop[1, 1](np.zeros(1, np.float32))

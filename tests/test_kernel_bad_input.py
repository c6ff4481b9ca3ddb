"""Bad kernel source and bad data in kernels raise a clear Python exception naming the user's file and line: never an
internal compiler error, a host compiler log, a silent wrong result or a read past an array. Each test is one finding
of the sweep (hand-written cases and a generator of small kernels); the right kernel beside it still works, checked
with NumPy."""
import inspect
import math  # noqa: F401  (kernels below name it)
import os

import numpy as np
import pytest

from cudajit import cuda
from cudajit.errors import TypingError, UnsupportedError

HERE = os.path.basename(__file__)

# --- kernels ----------------------------------------------------------------------------------------------------


def _line(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


def _where(fn, text):
    """The ``file:line`` (compile errors) and ``file <path>, line N`` (run-time errors) of ``text`` in ``fn``."""
    return rf"{HERE}:{_line(fn, text)}:", rf"file .*{HERE}, line {_line(fn, text)},"


def tuple_at(t, i, out):
    out[0] = t[i[0]]


def test_tuple_index_out_of_range_never_reads_past_the_tuple(backend, rng):
    # Unchecked, a run-time index past a tuple read whatever followed it (a CPU thread's stack): a kernel given
    # (1, 2, 3, 4) where it indexes an array returned garbage. Without debug it now reads 0 (numba-cuda's thread
    # stops at the IndexError it cannot report, and its test_exception asks that such a kernel not raise); with
    # debug=True it raises IndexError naming the line, the index and the length.
    vals = tuple(float(v) for v in rng.standard_normal(3))
    out = cuda.device_array(1)
    for options in ({}, {"boundscheck": True}, {"boundscheck": False}):
        k = cuda.jit(**options)(tuple_at)
        for i in (0, 2, -1):
            k[1, 1](vals, np.array([i]), out)
            assert out.copy_to_host()[0] == vals[i]
        for i in (3, -4, 10**6):
            k[1, 1](vals, np.array([i]), out)
            assert out.copy_to_host()[0] == 0.0
    _, runtime = _where(tuple_at, "out[0] = t[i[0]]")
    k = cuda.jit(debug=True)(tuple_at)
    with pytest.raises(IndexError, match=runtime + r".*tuple index out of range \(index 3, length 3\)"):
        k[1, 1](vals, np.array([3]), out)
    with pytest.raises(IndexError, match=r"tuple index out of range \(index -4, length 3\)"):
        k[1, 1](vals, np.array([-4]), out)


def matmul_operator(a):
    a[0] = a @ a


def matmul_augmented(a):
    x = a[0]
    x @= a[1]
    a[0] = x


def test_matmul_operator_is_unsupported_with_its_line(backend):
    # `a @ b` was a KeyError: 'MatMult' from the compiler's operator table, with no file or line.
    for fn, text in ((matmul_operator, "a[0] = a @ a"), (matmul_augmented, "x @= a[1]")):
        where, _ = _where(fn, text)
        with pytest.raises(UnsupportedError, match=where + " the @ operator is not supported in CUDA kernels"):
            cuda.jit(fn)[1, 1](np.zeros(4))


def huge_shared(a):
    s = cuda.shared.array(2**40, np.float32)
    a[0] = s[0]


def big_shared(a):
    s = cuda.shared.array((97, 64), np.float64)
    a[0] = s[0, 0]


def fits_shared(a):
    s = cuda.shared.array((96, 64), np.float64)        # 49152 bytes: the limit itself
    s[cuda.threadIdx.x, 63] = a[cuda.threadIdx.x]
    cuda.syncthreads()
    a[cuda.threadIdx.x] = 2 * s[cuda.threadIdx.x, 63]


def test_static_shared_array_over_48_kib_is_a_typing_error(backend, rng):
    # 2**40 float32 failed the CPU backend's link (a host compiler log, no line); over 48 KiB fails ptxas.
    where, _ = _where(huge_shared, "cuda.shared.array(2**40")
    with pytest.raises(TypingError, match=where + r" shared array 's' of shape \(1099511627776,\) and dtype float32 "
                                                  r"takes 4398046511104 bytes, more than CUDA's limit of 49152"):
        cuda.jit(huge_shared)[1, 1](np.zeros(4))
    where, _ = _where(big_shared, "cuda.shared.array((97, 64)")
    with pytest.raises(TypingError, match=where + r" shared array 's' of shape \(97, 64\) and dtype float64 takes "
                                                  r"49664 bytes[\s\S]*hint: use dynamic shared memory"):
        cuda.jit(big_shared)[1, 1](np.zeros(4))
    host = rng.standard_normal(32)
    d = cuda.to_device(host)
    cuda.jit(fits_shared)[1, 32](d)
    np.testing.assert_array_equal(d.copy_to_host(), 2 * host)


def launches_a_kernel(a):
    kernel_in_kernel[1, 1](a)


@cuda.jit
def kernel_in_kernel(a):
    a[0] = 1


def test_launching_a_kernel_from_a_kernel_says_so(backend):
    # was "subscripting 'devfunc' is not supported" (an internal name)
    where, _ = _where(launches_a_kernel, "kernel_in_kernel[1, 1](a)")
    with pytest.raises(UnsupportedError, match=where + " launching kernel 'kernel_in_kernel' from a kernel "
                                                       r"\(dynamic parallelism\) is not supported"):
        cuda.jit(launches_a_kernel)[1, 1](np.zeros(4))


def range_step(a, step):
    for i in range(0, 4, step):
        a[i] += 1


def test_range_step_zero_raises_value_error_under_debug(backend):
    # Python's range() and numba-cuda's debug kernels raise; the loop silently ran no iteration.
    k = cuda.jit(debug=True)(range_step)
    _, runtime = _where(range_step, "for i in range(0, 4, step)")
    d = cuda.to_device(np.zeros(4))
    with pytest.raises(ValueError, match=runtime + r".*range\(\) arg 3 must not be zero"):
        k[1, 1](d, 0)
    k[1, 1](d, 2)
    k[1, 1](d, -1)          # range(0, 4, -1) is empty
    np.testing.assert_array_equal(d.copy_to_host(), [1, 0, 1, 0])
    cuda.jit(range_step)[1, 1](d, 0)          # without debug: no iteration, as numba-cuda's thread that stops
    np.testing.assert_array_equal(d.copy_to_host(), [1, 0, 1, 0])


def stores_a_string(a):
    a[0] = 'x'


def range_of_string(a):
    for i in range('x'):
        a[0] = i


def test_string_constants_are_named_str_in_messages(backend):
    # was "cannot convert none to float64" (strings are kept as constants typed none)
    where, _ = _where(stores_a_string, "a[0] = 'x'")
    with pytest.raises(TypingError, match=where + " cannot convert str 'x' to float64"):
        cuda.jit(stores_a_string)[1, 1](np.zeros(4))
    where, _ = _where(range_of_string, "for i in range('x')")
    with pytest.raises(TypingError, match=where + " range\\(\\) takes integers, not str 'x'"):
        cuda.jit(range_of_string)[1, 1](np.zeros(4))


def star_params(*a):
    a[0][0] = 1


def star_kwargs(a, **kw):
    a[0] = 1


async def async_kernel(a):
    a[0] = 1


def test_star_params_and_async_def_are_refused_at_the_def(backend):
    # *args: "kernel takes 0 arguments, 1 given"; **kw: "takes 2 arguments (a, kw)"; async def: compiled as a def.
    for fn, text, what in ((star_params, "def star_params", r"\*args, \*\*kwargs, keyword-only"),
                           (star_kwargs, "def star_kwargs", r"\*args, \*\*kwargs, keyword-only"),
                           (async_kernel, "async def async_kernel", "async functions are not supported")):
        where, _ = _where(fn, text)
        with pytest.raises(UnsupportedError, match=where + " " + what):
            cuda.jit(fn)[1, 1](np.zeros(4))


# --- slice assignment in kernels ------------------------------------------------------------------------------------

def assign_slice(a, b):
    a[0:4] = b


def assign_rows(a, b):
    a[:, 1:3] = b


def shift_right(a):
    a[1:] = a[:-1]


def shift_left_2d(a):
    a[:-1, :-1] = a[1:, 1:]


def reverse_in_place(a):
    a[::-1] = a


def test_slice_assignment_shapes_are_checked(backend, rng):
    # a[0:4] = b with b of 16 elements copied b's first 4; with b[0:2] it read b[2], b[3] past the view (past the
    # buffer for a 2-element b). Checked now, with Numba's message; a lower-dimensional b broadcasts (it was a host
    # compiler error), a higher-dimensional one is a TypingError.
    _, runtime = _where(assign_slice, "a[0:4] = b")
    a = rng.standard_normal(8)
    for b in (rng.standard_normal(16), rng.standard_normal(2)):   # checked where bounds are: the CPU's default
        with pytest.raises(ValueError, match=runtime + ".*cannot assign slice from input of different size"):
            cuda.jit(boundscheck=True)(assign_slice)[1, 1](a.copy(), b)
    for b in (rng.standard_normal(4), rng.standard_normal(1)):       # equal, or broadcast from length 1
        got = a.copy()
        cuda.jit(assign_slice)[1, 1](got, b)
        want = a.copy()
        want[0:4] = b
        np.testing.assert_array_equal(got, want)
    m, row = rng.standard_normal((3, 4)), rng.standard_normal(2)
    got = m.copy()
    cuda.jit(assign_rows)[1, 1](got, row)
    want = m.copy()
    want[:, 1:3] = row
    np.testing.assert_array_equal(got, want)
    where, _ = _where(assign_slice, "a[0:4] = b")
    with pytest.raises(TypingError, match=where + r" cannot assign a 2-d array to a 1-d slice"):
        cuda.jit(assign_slice)[1, 1](a, np.zeros((4, 1)))


def test_overlapping_slice_assignment(backend, rng):
    # a[1:] = a[:-1] copied a[0] everywhere (each element read after it was overwritten); NumPy and Numba copy
    # the source first. The same layout is now copied in memmove's order; another overlap raises.
    a = rng.standard_normal(8)
    got = a.copy()
    cuda.jit(shift_right)[1, 1](got)
    want = a.copy()
    want[1:] = a[:-1]
    np.testing.assert_array_equal(got, want)
    m = rng.standard_normal((3, 4))
    got = m.copy()
    cuda.jit(shift_left_2d)[1, 1](got)
    want = m.copy()
    want[:-1, :-1] = m[1:, 1:]
    np.testing.assert_array_equal(got, want)
    _, runtime = _where(reverse_in_place, "a[::-1] = a")
    with pytest.raises(ValueError, match=runtime + ".*overlaps it in another layout: copy it to a local array first"):
        cuda.jit(boundscheck=True)(reverse_in_place)[1, 1](a.copy())


# --- kernels the compiler typed but whose C++ did not compile, or that crashed the compiler ----------------------
# (found by a generator of small kernels: each was a host compiler log or an internal Python error, with no line)

def complex_of_array(a, out):
    out[0] = complex(a, 1.0).real


def selp_of_none(a, out):
    out[0] = cuda.selp(None, 1.0, 2.0)


def atomic_at_str(a, out):
    cuda.atomic.add(out, 's', 1.0)


def or_of_strings(a, out):
    r = out[0] or 't'
    out[0] = 1.0


def tuple_at_none(a, out):
    t = (1.0, 2.0)
    out[0] = t[None]


def sqrt_of_module(a, out):
    out[0] = math.sqrt(np)


def augassign_to_type(a, out):
    np.float32 += 1


def slice_from_complex(a, out):
    out[0:2] = a


def test_compiler_refuses_what_it_cannot_emit(backend):
    cases = ((complex_of_array, "complex(a, 1.0)", TypingError, r"complex\(\) takes real numbers, not array"),
             (selp_of_none, "cuda.selp(None", TypingError, "cuda.selp's test must be a number or a bool, not none"),
             (atomic_at_str, "cuda.atomic.add(out, 's'", TypingError,
              "cuda.atomic.add: the index must be an integer or a tuple of integers, not str 's'"),
             (or_of_strings, "r = out[0] or 't'", TypingError,
              r"cannot unify float64 and Literal\[str\]\('t'\) in 'or'"),
             (tuple_at_none, "t[None]", TypingError, "tuple indices must be integers or slices, not none"),
             (sqrt_of_module, "math.sqrt(np)", TypingError, r"math.sqrt\(\) cannot take 'np' \(a module\)"),
             (augassign_to_type, "np.float32 += 1", TypingError, "cannot assign to 'np.float32'"),
             (slice_from_complex, "out[0:2] = a", TypingError,
              r"cannot convert complex128 to float64 \(a complex number has no real conversion\)"))
    for fn, text, exc, what in cases:
        where, _ = _where(fn, text)
        arg = np.ones(2, np.complex128) if fn is slice_from_complex else np.zeros(2)
        with pytest.raises(exc, match=where + " " + what):
            cuda.jit(fn)[1, 1](arg, np.zeros(4))


def sum_whole_view(a, out):
    r = 0.0
    for v in a[()]:
        r += v
    out[0] = r


def transpose_0d(a, out):
    out[0] = a.T[()] + a.T[()]


def test_whole_array_index_and_0d_transpose(backend, rng):
    # a[()] of a 1-d array and a 0-d array's .T gave C++ that did not compile; NumPy's meaning: the array itself
    host = rng.standard_normal(5)
    out = cuda.device_array(1)
    cuda.jit(sum_whole_view)[1, 1](host, out)
    np.testing.assert_allclose(out.copy_to_host()[0], host.sum(), rtol=1e-12)
    zero_d = np.array(rng.standard_normal())
    cuda.jit(transpose_0d)[1, 1](zero_d, out)
    assert out.copy_to_host()[0] == 2 * zero_d[()]

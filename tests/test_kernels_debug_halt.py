"""debug=True (and boundscheck for index errors): a thread that raises stops where Python, and so Numba, stops. The
statement that raised has no further effect (no store of its value, none of the target's subscript), the statements
after it do not run, and what Python evaluated before the raise in the same expression (a device function's writes,
an atomic) is done. Each kernel is checked against its own Python run thread by thread on Python numbers (a zero
divisor raises ZeroDivisionError, as under numba-cuda's 'python' error model; an index out of range raises
IndexError), which is what Numba leaves in the arrays."""
import re
import types

import numpy as np
import pytest

from cudajit import cuda
from numba_parity_kernels import HALT_CASES, halt_debug, note


# ---- the oracle: the kernel's Python, one thread after another ---------------------------------------------------
class _Elements:
    """A NumPy array as a kernel sees it: elements come out as Python numbers, out of range raises IndexError."""

    def __init__(self, a):
        self.a, self.shape, self.size, self.ndim = a, a.shape, a.size, a.ndim

    def __getitem__(self, k):
        v = self.a[k]
        return v.item() if isinstance(v, np.generic) else v

    def __setitem__(self, k, v):
        self.a[k] = v


class _Threads:
    """The few names of ``cuda`` the kernels here use, for the thread running now."""

    def __init__(self, block):
        self.threadIdx, self.blockIdx = types.SimpleNamespace(x=0), types.SimpleNamespace(x=0)
        self.blockDim = types.SimpleNamespace(x=block)
        self.atomic = types.SimpleNamespace(add=self._atomic_add)

    def grid(self, ndim):
        assert ndim == 1
        return self.blockIdx.x * self.blockDim.x + self.threadIdx.x

    @staticmethod
    def _atomic_add(ary, i, v):
        old = ary[i]
        ary[i] = old + v
        return old


def _as_python(fn, threads, done):
    """``fn``'s Python with ``cuda`` the oracle's and every device function it calls made Python the same way."""
    if fn in done:
        return done[fn]
    env = dict(fn.__globals__)
    env["cuda"] = threads
    py = types.FunctionType(fn.__code__, env, fn.__name__, fn.__defaults__, fn.__closure__)
    done[fn] = py
    for name in fn.__code__.co_names:
        inner = getattr(env.get(name), "__cudajit_pyfunc__", None)
        if inner is not None:
            env[name] = _as_python(inner, threads, done)
    return py


def python_run(kernel, blocks, block, *args):
    """Runs ``kernel``'s Python over the launch, each thread stopping at its exception, on copies of the array
    arguments; returns (the arrays as Python leaves them, the set of exception types the threads raised)."""
    threads = _Threads(block)
    py = _as_python(kernel.py_func, threads, {})
    arrays = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    seen = [_Elements(a) if isinstance(a, np.ndarray) else a for a in arrays]
    raised = set()
    for b in range(blocks):
        for t in range(block):
            threads.blockIdx.x, threads.threadIdx.x = b, t
            try:
                py(*seen)
            except (ZeroDivisionError, IndexError, ValueError, AssertionError) as e:
                raised.add(type(e))
    return arrays, raised


def check_against_python(kernel, blocks, block, *args):
    """Launches ``kernel`` on copies of the arguments and compares what it leaves and raises with Python's run."""
    expect, raised = python_run(kernel, blocks, block, *args)
    got = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    if raised:
        with pytest.raises(tuple(raised)):
            kernel[blocks, block](*got)
    else:
        kernel[blocks, block](*got)
    for k, (g, e) in enumerate(zip(got, expect)):
        if isinstance(e, np.ndarray):
            np.testing.assert_allclose(g, e, rtol=1e-13, atol=0, err_msg=f"argument {k}")
    return raised


def _data(rng, dtype, n=64, zeros=6):
    """x: divisors with a few zeros at random places; y: numerators; r, s, marks: random, so an element left
    unwritten differs from any value a kernel could store there."""
    if np.dtype(dtype).kind == "i":
        x = rng.integers(-9, 10, n).astype(dtype)
        x[x == 0] = 3
        y = rng.integers(-1000, 1000, n).astype(dtype)
    else:
        x = rng.uniform(-4, 4, n).astype(dtype)
        y = rng.uniform(-100, 100, n).astype(dtype)
    x[rng.choice(n, zeros, replace=False)] = 0
    r, s, marks = (rng.uniform(1000, 2000, n) for _ in range(3))
    return r, s, marks, x, y


# ---- statements that raise in the kernel itself (also compared with numba-cuda on the GPU) ------------------------
@pytest.mark.parametrize("dtype", [np.int64, np.float64])
@pytest.mark.parametrize("case", range(len(HALT_CASES)), ids=HALT_CASES)
def test_raising_statement_leaves_what_python_leaves(backend, rng, case, dtype):
    r, s, marks, x, y = _data(rng, dtype)
    raised = check_against_python(halt_debug, 2, 32, r, s, marks, x, y, case)
    expected = AssertionError if HALT_CASES[case].startswith("assert") else ZeroDivisionError
    assert raised == {expected}
    # without a zero divisor every thread finishes and nothing is raised
    x[x == 0] = 7
    assert check_against_python(halt_debug, 2, 32, r, s, marks, x, y, case) == set()


def test_numba_cuda_example_stops_at_the_division(backend):
    """numba-cuda's test_zero_division_error_in_debug: r[0] is not stored, r[1] is not reached."""
    @cuda.jit(debug=True, opt=False)
    def f(r, x, y):
        r[0] = y[0] / x[0]
        r[1] = y[0]

    r = np.zeros(2)
    with pytest.raises(ZeroDivisionError):
        f[1, 1](r, np.zeros(1), np.ones(1))
    assert r.tolist() == [0.0, 0.0]


def test_other_threads_finish_their_work(backend, rng):
    """A raise ends only its own thread (numba-cuda's kernel returns there): the others store everything."""
    r, s, marks, x, y = _data(rng, np.float64, n=256, zeros=1)
    check_against_python(halt_debug, 8, 32, r, s, marks, x, y, 0)


# ---- raises inside device functions --------------------------------------------------------------------------------
@cuda.jit(device=True)
def reciprocal(v, marks, i):
    marks[i] = 1.0                    # before the raise: done
    if v == 0:
        raise ValueError("no reciprocal of zero")
    marks[i] = 2.0
    return 1.0 / v


@cuda.jit(device=True)
def tripled_reciprocal(v, marks, i):
    w = reciprocal(v, marks, i) * 3.0
    marks[i] = w                      # after the inner raise: never reached
    return w


@cuda.jit(device=True)
def positive(v):
    assert v > 0, "not positive"
    return v


DEVICE_CASES = ["y + raiser()", "nested raiser", "y * asserting()", "max(note, raiser)", "empty min", "call args",
                "r += overwrite(r) / x"]


@cuda.jit(device=True)
def overwrite(r, i, v):
    r[i] = v                          # the element an augmented assignment is updating
    return 1.0


@cuda.jit(device=True)
def weighted(a, b, c):
    return a + 2 * b + 3 * c


@cuda.jit(debug=True, opt=False)
def raise_in_device_function(r, s, marks, x, y, case):
    i = cuda.grid(1)
    if i >= x.size:
        return
    if case == 0:
        r[i] = y[i] + reciprocal(x[i], marks, i)
    elif case == 1:
        r[i] = tripled_reciprocal(x[i], marks, i) - y[i]
    elif case == 2:
        r[i] = y[i] * positive(x[i])
    elif case == 3:
        r[i] = max(note(marks, i, y[i]), reciprocal(x[i], marks, i))
    elif case == 4:
        r[i] = y[i] + np.min(y[i:i + int(x[i] != 0)])     # ValueError: an empty array has no minimum
    elif case == 5:
        r[i] = weighted(note(marks, i, y[i]), y[i] / x[i], note(marks, i, -y[i]))
    elif case == 6:
        r[i] += overwrite(r, i, y[i]) / x[i]               # Python adds to the value r[i] had before the call
    s[i] = -1.0 - i


@pytest.mark.parametrize("case", range(len(DEVICE_CASES)), ids=DEVICE_CASES)
def test_raise_in_device_function_stops_the_thread_there(backend, rng, case):
    r, s, marks, x, y = _data(rng, np.float64)
    if case == 2:
        x = np.abs(x)                 # zeros fail the assert, the rest passes
    raised = check_against_python(raise_in_device_function, 2, 32, r, s, marks, x, y, case)
    assert len(raised) == 1


# ---- index errors: debug=True, and boundscheck alone -----------------------------------------------------------------
INDEX_CASES = ["r = y[bad]", "r[bad] = y", "r[bad] += y", "r, s = y, y[bad]", "r[bad] = note", "r[bad] += note",
               "r = note + y[bad]", "r = y.shape[bad]"]


def _index_cases(r, s, marks, y, idx, case):
    i = cuda.grid(1)
    if i >= y.size:
        return
    if case == 0:
        r[i] = y[idx[i]]                   # a read out of range: nothing stored
    elif case == 1:
        r[idx[i]] = y[i]
    elif case == 2:
        r[idx[i]] += y[i]
    elif case == 3:
        r[i], s[i] = y[i], y[idx[i]]
    elif case == 4:
        r[idx[i]] = note(marks, i, y[i])      # Python evaluates the value first: the call runs
    elif case == 5:
        r[idx[i]] += note(marks, i, y[i])     # the element is loaded first: the call does not run
    elif case == 6:
        r[i] = note(marks, i, y[i]) + y[idx[i]]
    elif case == 7:
        r[i] = y.shape[idx[i] // 64]          # a tuple index out of range
    s[i] = -1.0 - i


index_debug = cuda.jit(debug=True, opt=False)(_index_cases)
index_boundscheck = cuda.jit(boundscheck=True)(_index_cases)


def _indices(rng, n):
    """A permutation (so no two threads store to one element), some of it as negative indices, and 8 indices out of
    range on either side."""
    idx = rng.permutation(n)
    idx[rng.random(n) < 0.3] -= n
    bad = rng.choice(n, 8, replace=False)
    idx[bad[:4]] = n + rng.integers(0, 5, 4)
    idx[bad[4:]] = -n - 1 - rng.integers(0, 5, 4)
    return idx


@pytest.mark.parametrize("case", range(len(INDEX_CASES)), ids=INDEX_CASES)
def test_index_error_stops_the_thread_under_debug(backend, rng, case):
    r, s, marks, _, y = _data(rng, np.float64)
    raised = check_against_python(index_debug, 2, 32, r, s, marks, y, _indices(rng, 64), case)
    assert raised == {IndexError}


# Python's order of evaluation around a call is kept under debug=True only (cases 5 and 6: without debug the code
# is what it was, and C++ evaluates the value of ``r[bad] += note(...)`` first); a tuple index is checked under
# debug=True only (case 7).
@pytest.mark.parametrize("case", range(5), ids=INDEX_CASES[:5])
def test_index_error_stops_the_thread_under_boundscheck(backend, rng, case):
    r, s, marks, _, y = _data(rng, np.float64)
    raised = check_against_python(index_boundscheck, 2, 32, r, s, marks, y, _indices(rng, 64), case)
    assert raised == {IndexError}


# ---- the generated code -----------------------------------------------------------------------------------------
def test_order_is_kept_only_where_it_shows(backend):
    """Temporaries appear only where an operand with a side effect meets another effect, and only under debug."""
    args = _data(np.random.default_rng(1), np.float64, n=1, zeros=0)
    debug = cuda.jit(debug=True, opt=False)(halt_debug.py_func)
    plain = cuda.jit(halt_debug.py_func)
    debug[1, 1](*args, 5)
    plain[1, 1](*args, 5)
    src = next(iter(debug.inspect_source().values()))
    # case 5: the call first, then the division; case 6: the division first; case 7: the element, then the call
    assert re.search(r"\(cj_seq\d+ = cj_dev_note_0\([^;]*, cj_seq\d+ \+ y_\.checked[^;]*check_divisor", src), src
    assert re.search(r"\(cj_seq\d+ = y_\.checked[^;]*check_divisor[^;]*, cj_seq\d+ \+ cj_dev_note_0\(", src), src
    assert re.search(r"auto& (cj_ref\d+) = r_\.checked[^;]*;\n(.*\n)?\s*const double (cj_old\d+) = \1;\n(.*\n)?"
                     r"\s*\1 = \3 \+ \(cj_seq", src), src
    # nothing where only reads that may raise meet (case 0: y[i] / x[i]), nor in the assert (case 8)
    assert not re.search(r"case_ == 0\) \{\n[^\n]*cj_seq", src), src
    assert "cj_seq" not in next(iter(plain.inspect_source().values()))

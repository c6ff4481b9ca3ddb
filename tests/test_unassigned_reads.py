"""Legal code the compiler once failed on (issue 36): a variable assigned on only some paths and read after them,
or read where no assignment reaches (numba-cuda's test_ssa.py::test_undefined_var compiles both; the read gives
zero, as Numba lowers its SSA's ``undef``), and truth tests of a None known when compiling (``if G:`` on a global
or captured None is false, as in Python). Each kernel is compared with its Python function on random data."""
import warnings

import numpy as np
import pytest

from cudajit import config, cuda
from cudajit.errors import NumbaWarning


@cuda.jit
def undefined_var(result, n):          # numba-cuda's test_ssa.py::check_undefined_var, as written there
    if n:
        if n > 0:
            c = 0
        result[0] = c
    else:
        # variable c is not defined in this branch
        c += 1
        result[0] = c


@cuda.jit(device=True)
def one_branch_then_loop(a, k, i):
    if a[i] > k:
        x = a[i] * 2.5
    r = x                              # zero where a[i] <= k (Python: UnboundLocalError)
    for j in range(3):
        if j == 1:
            y = a[i] + j
    return r + y                       # y is assigned on the second iteration: always defined here


@cuda.jit
def one_branch_kernel(out, a, k):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = one_branch_then_loop(a, k, i)


def _python_or_zero(fn, out, *args):
    """Python's answer, or Numba's (the variable reads 0) where Python raises UnboundLocalError."""
    try:
        fn(out, *args)
        return True
    except UnboundLocalError:
        return False


def test_numba_undefined_var(backend, rng):
    for n in list(rng.integers(1, 50, size=4)) + [0, -3]:
        got = np.full(1, 77, np.int64)
        undefined_var[1, 1](got, np.int64(n))
        want = np.full(1, 77, np.int64)
        if _python_or_zero(undefined_var.py_func, want, np.int64(n)):
            np.testing.assert_array_equal(got, want)
        else:
            assert got[0] == (1 if n == 0 else 0)           # c reads zero: c += 1 gives 1, result[0] = c gives 0


def test_one_branch_assignment(backend, rng):
    a = rng.standard_normal(300)
    k = 0.2
    got = np.zeros_like(a)
    one_branch_kernel[3, 128](got, a, k)
    np.testing.assert_allclose(got, np.where(a > k, a * 2.5, 0.0) + (a + 1))
    for i in range(a.size):
        if a[i] > k:                                       # where Python defines x: Python's own answer
            assert got[i] == one_branch_then_loop.py_func(a, k, i)


def test_warns_only_when_asked(backend, monkeypatch):
    @cuda.jit
    def k(result, n):
        if n:
            result[0] = 5
        else:
            d += 2
            result[0] = d
    out = np.zeros(1, np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k[1, 1](out, 0)
    assert out[0] == 2
    monkeypatch.setattr(config, "ALWAYS_WARN_UNINIT_VAR", 1)

    @cuda.jit
    def k2(result, n):
        if n:
            result[0] = 5
        else:
            d += 3
            result[0] = d
    with pytest.warns(NumbaWarning, match="Detected uninitialized variable d"):
        k2[1, 1](out, 0)
    assert out[0] == 3


@cuda.jit
def function1(arg1, arg2, arg3, arg4, arg5):     # numba-cuda's test_ssa.py::test_unhandled_undefined
    if arg1:
        var1 = arg2
        var2 = arg3
        var3 = var2
        var4 = arg1
        return
    else:
        if arg2:
            if arg4:
                var5 = arg4  # noqa: F841
                return
            else:
                var6 = var4
                return
            return var6
        else:
            if arg5:
                if var1:
                    if arg5:
                        var1 = var6
                        return
                    else:
                        var7 = arg2  # noqa: F841
                        return arg2
                    return
                else:
                    if var2:
                        arg5 = arg2
                        return arg1
                    else:
                        var6 = var3
                        return var4
                    return
                return
            else:
                var8 = var1
                return
            return var8
        var9 = var3  # noqa: F841
        var10 = arg5  # noqa: F841
        return var1


@cuda.jit
def function1_caller(result, arg1, arg2, arg3, arg4, arg5):
    retval = function1(arg1, arg2, arg3, arg4, arg5)
    if retval is None:
        result[0] = 99
    else:
        result[0] = retval


def test_numba_unhandled_undefined(backend, rng):
    cases = [(2, 3, 6, 0, 7)] + [tuple(int(x) for x in rng.integers(0, 2, size=5)) for _ in range(8)]
    for args in cases:
        got = np.zeros(1, np.int64)
        function1_caller[1, 1](got, *args)
        try:
            expect = function1.py_func(*args)
        except UnboundLocalError:
            continue                   # Python raises; cudajit reads zero as Numba does
        assert got[0] == (99 if expect is None else expect), args


# ---- None known when compiling -------------------------------------------------------------------------------
FLAG = None


def make_captured(flag):
    @cuda.jit
    def captured(out, a):
        i = cuda.grid(1)
        if i < a.size:
            if flag:
                out[i] = a[i] * 2
            elif not flag:
                out[i] = a[i] + 1
            else:
                out[i] = -1
    return captured


@cuda.jit
def global_none(out, a):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i]
        if FLAG:
            v = -v
        if FLAG and v > 0:
            v = 0
        if FLAG or v > 3:
            v += 100
        if not FLAG:
            v *= 3
        x = None
        if x:
            v = 12345
        while FLAG:
            v = -1
        out[i] = v


def test_none_conditions(backend, rng):
    a = rng.integers(-10, 10, size=100).astype(np.int64)
    got, want = np.zeros_like(a), np.zeros_like(a)
    global_none[1, 128](got, a)
    for i in range(a.size):
        v = a[i]
        if FLAG:
            v = -v
        if FLAG and v > 0:
            v = 0
        if FLAG or v > 3:
            v += 100
        if not FLAG:
            v *= 3
        want[i] = v
    np.testing.assert_array_equal(got, want)
    for flag in (None, 0, 1):
        got = np.zeros_like(a)
        make_captured(flag)[1, 128](got, a)
        want = a * 2 if flag else a + 1
        np.testing.assert_array_equal(got, want)

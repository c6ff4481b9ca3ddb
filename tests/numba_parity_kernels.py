"""Kernels compiled by both cudajit and numba-cuda in tests/test_vs_numba_cuda.py: ``load(lib)`` executes this
file as a fresh module whose ``cuda`` is that library's, so one Python source is typed by both compilers."""
import cmath
import importlib.util
import math
import os

import numpy as np

LIB = globals().get("LIB", "cudajit")
if LIB == "numba":
    from numba import cuda
    from numba.cuda import random as crandom
else:
    from cudajit import cuda
    from cudajit.cuda import random as crandom

INT_OPS = ["+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>", "neg", "abs", "min", "max", "**3", "/", "~",
           "+1", "*3-7", "//2", "cmp"]
FLOAT_OPS = ["+", "-", "*", "/", "//", "%", "**2", "**b", "neg", "abs", "min", "max", "min3", "sqrt", "exp", "log",
             "sin", "atan2", "hypot", "floor", "ceil", "round", "round2", "fmod", "trunc", "isnan", "*2+1", "f32",
             "pow", "copysign"]
COMPLEX_OPS = ["+", "-", "*", "/", "**", "abs", "exp", "log", "sqrt", "conj", "real", "imag", "*2", "+1j", "log10",
               "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "phase",
               "polar.r", "polar.phi", "rect", "*x", "x/", "**2", "**i"]
ZERO_DIV_OPS = ["//", "%", "/"]
MIXED_EXPRS = ["x * 2", "x * 2.5", "x / 3", "x // 3", "x % 3", "x + True", "x * 0.1", "np.float32(x) * 3",
               "np.float32(x) / 3", "np.int32(i) * x", "np.int16(i) * np.int16(300)", "np.uint8(i) + np.uint8(250)",
               "x if i % 2 else i", "float(i) / 7", "int(abs(x) % 1000) * 3", "math.floor(x)", "x ** 0.5",
               "np.float32(x) ** 2", "x > 1 and x < 100", "-x // 4", "acc", "np.float32(i) + 0.1",
               "np.float32(i) + np.float64(0.1)", "max(i, x)", "abs(np.float32(x))", "x ** -2", "i ** 2",
               "(i - 10) ** 3", "i / 4", "np.int8(i) * np.int8(i)"]


def load(lib):
    spec = importlib.util.spec_from_file_location(f"numba_parity_kernels_{lib}", os.path.abspath(__file__))
    mod = importlib.util.module_from_spec(spec)
    mod.LIB = lib
    spec.loader.exec_module(mod)
    return mod


@cuda.jit(device=True)
def store(outf, outi, i, k, r):
    outf[i, k] = r
    outi[i, k] = r


@cuda.jit
def int_ops(a, b, outf, outi):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        store(outf, outi, i, 0, x + y)
        store(outf, outi, i, 1, x - y)
        store(outf, outi, i, 2, x * y)
        store(outf, outi, i, 3, x // y)
        store(outf, outi, i, 4, x % y)
        store(outf, outi, i, 5, x & y)
        store(outf, outi, i, 6, x | y)
        store(outf, outi, i, 7, x ^ y)
        store(outf, outi, i, 8, x << (y & 7))
        store(outf, outi, i, 9, x >> (y & 7))
        store(outf, outi, i, 10, -x)
        store(outf, outi, i, 11, abs(x))
        store(outf, outi, i, 12, min(x, y))
        store(outf, outi, i, 13, max(x, y))
        store(outf, outi, i, 14, x ** 3)
        store(outf, outi, i, 16, ~x)
        store(outf, outi, i, 17, x + 1)
        store(outf, outi, i, 18, x * 3 - 7)
        store(outf, outi, i, 19, x // 2)
        store(outf, outi, i, 20, (x < y) + (x == y))
        outf[i, 15] = x / y


@cuda.jit
def float_ops(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        b = y[i]
        out[i, 0] = a + b
        out[i, 1] = a - b
        out[i, 2] = a * b
        out[i, 3] = a / b
        out[i, 4] = a // b
        out[i, 5] = a % b
        out[i, 6] = a ** 2
        out[i, 7] = abs(a) ** b
        out[i, 8] = -a
        out[i, 9] = abs(a)
        out[i, 10] = min(a, b)
        out[i, 11] = max(a, b)
        out[i, 12] = min(a, b, 0.5)
        out[i, 13] = math.sqrt(abs(a))
        out[i, 14] = math.exp(b)
        out[i, 15] = math.log(abs(a) + 1)
        out[i, 16] = math.sin(a)
        out[i, 17] = math.atan2(a, b)
        out[i, 18] = math.hypot(a, b)
        out[i, 19] = math.floor(a)
        out[i, 20] = math.ceil(a)
        out[i, 21] = round(a) if abs(a) < 1e15 else 0
        out[i, 22] = round(a, 2)
        out[i, 23] = math.fmod(a, b)
        out[i, 24] = math.trunc(a) if abs(a) < 1e15 else 0
        out[i, 25] = math.isnan(a)
        out[i, 26] = a * 2 + 1
        out[i, 27] = np.float32(a) * b
        out[i, 28] = pow(abs(a), 0.5)
        out[i, 29] = math.copysign(a, b)


@cuda.jit
def complex_ops(z, w, out):
    i = cuda.grid(1)
    if i < z.size:
        a = z[i]
        b = w[i]
        out[i, 0] = a + b
        out[i, 1] = a - b
        out[i, 2] = a * b
        out[i, 3] = a / b
        out[i, 4] = a ** b
        out[i, 5] = abs(a)
        out[i, 6] = cmath.exp(a)
        out[i, 7] = cmath.log(a)
        out[i, 8] = cmath.sqrt(a)
        out[i, 9] = a.conjugate()
        out[i, 10] = a.real
        out[i, 11] = a.imag
        out[i, 12] = a * 2
        out[i, 13] = a + 1j
        out[i, 14] = cmath.log10(a)
        out[i, 15] = cmath.sin(a)
        out[i, 16] = cmath.cos(a)
        out[i, 17] = cmath.tan(a)
        out[i, 18] = cmath.asin(a)
        out[i, 19] = cmath.acos(a)
        out[i, 20] = cmath.atan(a)
        out[i, 21] = cmath.sinh(a)
        out[i, 22] = cmath.cosh(a)
        out[i, 23] = cmath.tanh(a)
        out[i, 24] = cmath.asinh(a)
        out[i, 25] = cmath.acosh(a)
        out[i, 26] = cmath.atanh(a)
        out[i, 27] = cmath.phase(a)
        r, phi = cmath.polar(a)
        out[i, 28] = r
        out[i, 29] = phi
        out[i, 30] = cmath.rect(r, phi)
        out[i, 31] = a * b.real
        out[i, 32] = b.imag / a
        out[i, 33] = a ** 2
        out[i, 34] = a ** 3


@cuda.jit
def zero_div(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] // b[i]
        out[i, 1] = a[i] % b[i]
        out[i, 2] = a[i] / b[i]


@cuda.jit(debug=True, opt=False)
def zero_div_debug(a, b, out, op):
    # debug=True: numba-cuda's 'python' error model raises ZeroDivisionError
    i = cuda.grid(1)
    if i < a.size:
        if op == 0:
            out[i] = a[i] // b[i]
        elif op == 1:
            out[i] = a[i] % b[i]
        else:
            out[i] = a[i] / b[i]


@cuda.jit(device=True)
def note(marks, i, v):
    # a side effect inside an expression: the thread's mark shows whether the call ran
    marks[i] = v
    return v


# What a statement that raises leaves behind under debug=True: nothing of its own (no store), and the thread stops
# there, so s[i] stays; what ran before the raise in Python's order (a call's writes, an atomic) is done.
HALT_CASES = ["r = y / x", "r = y // x", "r = y % x", "r += y / x", "r, s = y * 2, y // x",
              "r = note + y / x", "r = y / x + note", "r += note / x", "assert x != 0", "r = atomic * 0 + y % x",
              "r = f(note, y // x)", "if note < y / x"]


@cuda.jit(debug=True, opt=False)
def halt_debug(r, s, marks, x, y, case):
    i = cuda.grid(1)
    if i >= x.size:
        return
    if case == 0:
        r[i] = y[i] / x[i]
    elif case == 1:
        r[i] = y[i] // x[i]
    elif case == 2:
        r[i] = y[i] % x[i]
    elif case == 3:
        r[i] += y[i] / x[i]
    elif case == 4:
        r[i], s[i] = y[i] * 2, y[i] // x[i]
    elif case == 5:
        r[i] = note(marks, i, y[i]) + y[i] / x[i]        # the call runs, then the division raises
    elif case == 6:
        r[i] = y[i] / x[i] + note(marks, i, y[i])        # the division raises first: no call
    elif case == 7:
        r[i] += note(marks, i, y[i]) / x[i]
    elif case == 8:
        assert x[i] != 0, "zero divisor"
        r[i] = y[i] / x[i]
    elif case == 9:
        r[i] = cuda.atomic.add(marks, 0, 1.0) * 0.0 + y[i] % x[i]     # the old value depends on the threads' order
    elif case == 10:
        r[i] = max(note(marks, i, y[i]), y[i] // x[i])
    elif case == 11:
        if note(marks, i, y[i]) < y[i] / x[i]:
            r[i] = 1.0
    s[i] = -1.0 - i                                       # only threads that did not raise get here


@cuda.jit
def mixed_typing(a, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        acc = 0
        for k in range(3):
            acc += x * k
        out[i, 0] = x * 2
        out[i, 1] = x * 2.5
        out[i, 2] = x / 3
        out[i, 3] = x // 3
        out[i, 4] = x % 3
        out[i, 5] = x + True
        out[i, 6] = x * 0.1
        out[i, 7] = np.float32(x) * 3
        out[i, 8] = np.float32(x) / 3
        out[i, 9] = np.int32(i) * x
        out[i, 10] = np.int16(i) * np.int16(300)
        out[i, 11] = np.uint8(i) + np.uint8(250)
        out[i, 12] = x if i % 2 else i
        out[i, 13] = float(i) / 7
        out[i, 14] = int(abs(x) % 1000) * 3
        out[i, 15] = math.floor(x)
        out[i, 16] = x ** 0.5
        out[i, 17] = np.float32(x) ** 2
        out[i, 18] = x > 1 and x < 100
        out[i, 19] = -x // 4
        out[i, 20] = acc
        out[i, 21] = np.float32(i) + 0.1
        out[i, 22] = np.float32(i) + np.float64(0.1)
        out[i, 23] = max(i, x)
        out[i, 24] = abs(np.float32(x))
        out[i, 25] = x ** -2
        out[i, 26] = i ** 2
        out[i, 27] = (i - 10) ** 3
        out[i, 28] = i / 4
        out[i, 29] = np.int8(i) * np.int8(i)


WARP_OPS = ["shfl", "shfl_up", "shfl_down", "shfl_xor", "all", "any", "eq", "ballot", "match_any", "match_all.mask",
            "match_all.pred", "activemask", "lanemask_lt"]


@cuda.jit
def warp_ops(x, outf, outi):
    i = cuda.grid(1)
    v = x[i]
    outf[i, 0] = cuda.shfl_sync(0xffffffff, v, 5)
    outf[i, 1] = cuda.shfl_up_sync(0xffffffff, v, 3)
    outf[i, 2] = cuda.shfl_down_sync(0xffffffff, v, 7)
    outf[i, 3] = cuda.shfl_xor_sync(0xffffffff, v, 6)
    outi[i, 4] = cuda.all_sync(0xffffffff, v > -1)
    outi[i, 5] = cuda.any_sync(0xffffffff, v > 1)
    outi[i, 6] = cuda.eq_sync(0xffffffff, v > 0)
    outi[i, 7] = cuda.ballot_sync(0xffffffff, v > 0)
    outi[i, 8] = cuda.match_any_sync(0xffffffff, v > 0)
    m, p = cuda.match_all_sync(0xffffffff, i // 64)
    outi[i, 9] = m
    outi[i, 10] = p
    outi[i, 11] = cuda.activemask()
    outi[i, 12] = cuda.lanemask_lt()


@cuda.jit
def random_draws(states, u32, u64, n32, n64):
    i = cuda.grid(1)
    if i < u32.shape[0]:
        for j in range(u32.shape[1]):
            u32[i, j] = crandom.xoroshiro128p_uniform_float32(states, i)
            u64[i, j] = crandom.xoroshiro128p_uniform_float64(states, i)
            n32[i, j] = crandom.xoroshiro128p_normal_float32(states, i)
            n64[i, j] = crandom.xoroshiro128p_normal_float64(states, i)


HALF_OPS = ["+", "-", "*", "/", "neg", "abs", "sqrt", "exp", "log", "sin", "hfma", "hmax", "*int8", "*f32", "+i32",
            "<", "*2.5", "*+"]


@cuda.jit
def half_ops(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = x * y
        out[i, 3] = x / y
        out[i, 4] = -x
        out[i, 5] = abs(x)
        out[i, 6] = math.sqrt(abs(x))
        out[i, 7] = math.exp(x)
        out[i, 8] = math.log(abs(x))
        out[i, 9] = math.sin(x)
        out[i, 10] = cuda.fp16.hfma(x, y, x)
        out[i, 11] = cuda.fp16.hmax(x, y)
        out[i, 12] = x * np.int8(3)
        out[i, 13] = x * np.float32(1.1)
        out[i, 14] = x + np.int32(3)
        out[i, 15] = x < y
        out[i, 16] = x * 2.5
        out[i, 17] = x * y + x          # a mul and an add of halves, which the GPU may fuse


@cuda.jit
def grid_sync_rotate(a, steps, out):
    """Cooperative groups: each step reads what another block wrote in the step before a grid sync."""
    i = cuda.grid(1)
    n = a.shape[0]
    g = cuda.cg.this_grid()
    shift = cuda.blockDim.x + 1
    for _ in range(steps):
        v = a[(i + shift) % n]
        g.sync()
        a[i] = v * 0.5 + a[i]
        g.sync()
    out[i] = a[i]


PARTICLE = np.dtype([("x", np.float32), ("tag", np.int8), ("n", np.int64), ("v", np.float64, (3,))], align=True)


@cuda.jit
def record_fields(a, out):
    """Records: fields by attribute and name, a nested array field, writes through an element."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = a[i]
        out[i] = r.x * r.tag + r["n"] + r.v[1]
        a[i].x = r.x * 2 + 1
        a[i]["n"] = r.n // 3
        r.v[2] = r.v[0] - r.x


# ---- functions and types as values (issue 12 item 2): device functions, intrinsics, operator/math functions and
# type objects passed to device functions, as numba-cuda's first-class function arguments ----
import operator  # noqa: E402


@cuda.jit(device=True)
def fv_apply2(op, a, b):
    return op(a, b)


@cuda.jit(device=True)
def fv_apply1(fn, x):
    return fn(x)


@cuda.jit(device=True)
def fv_cast(t, x):
    return t(x)


@cuda.jit(device=True)
def fv_cube(x):
    return x * x * x


@cuda.jit(device=True)
def fv_update(update, arr, i, v):
    return update(arr, i, v)


@cuda.jit
def function_values(a, b, out, counts):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = fv_apply2(operator.mul, a[i], b[i])
        out[i, 1] = fv_apply2(operator.sub, a[i], b[i])
        out[i, 2] = fv_apply1(math.sqrt, a[i])
        out[i, 3] = fv_apply1(fv_cube, b[i])
        out[i, 4] = fv_apply2(math.atan2, a[i], b[i])
        out[i, 5] = fv_cast(np.float32, a[i] * 1000.5)
        out[i, 6] = fv_cast(np.int32, a[i] * 1000.5)
        out[i, 7] = fv_cast(np.uint8, b[i] * 120.0)   # in range: out of range, C and LLVM leave it undefined
        fv_update(cuda.atomic.add, counts, i % 4, 1)
        fv_update(cuda.atomic.max, counts, 4, i)


@cuda.jit
def cache_hints(m, x, outi, outf):
    # numba.cuda's ld*/st* hints: tuple and negative indices, and a float64 value stored into an int32 array
    i = cuda.grid(1)
    if i < m.shape[0]:
        outi[i, 0] = cuda.ldca(m, (i, -1))
        outi[i, 1] = cuda.ldcg(m, (i, 0))
        cuda.stcs(outi, (i, 2), cuda.ldcs(x, i) * 3.7)
        cuda.stwb(outf, (i, 0), cuda.ldlu(m, (i, 1)) + cuda.ldcv(x, -1 - i))
        cuda.stwt(outf, (i, 1), cuda.ldcs(x, i))
        cuda.stcg(outf, (i, 2), np.int64(i) * 2)


REDUCTION_OPS = ["sum", "prod", "mean", "var", "std", "min", "max", "argmin", "argmax", "nansum", "nanprod",
                 "nanmean", "nanvar", "nanstd", "nanmin", "nanmax", "count_nonzero", "all", "any", ".sum", ".mean",
                 ".std"]


@cuda.jit
def array_reductions(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        r = x[i]                                 # one row per thread: a 1-d view
        out[i, 0] = np.sum(r)
        out[i, 1] = np.prod(r)
        out[i, 2] = np.mean(r)
        out[i, 3] = np.var(r)
        out[i, 4] = np.std(r)
        out[i, 5] = np.min(r)
        out[i, 6] = np.max(r)
        out[i, 7] = np.argmin(r)
        out[i, 8] = np.argmax(r)
        out[i, 9] = np.nansum(r)
        out[i, 10] = np.nanprod(r)
        out[i, 11] = np.nanmean(r)
        out[i, 12] = np.nanvar(r)
        out[i, 13] = np.nanstd(r)
        out[i, 14] = np.nanmin(r)
        out[i, 15] = np.nanmax(r)
        out[i, 16] = np.count_nonzero(r)
        out[i, 17] = np.all(r)
        out[i, 18] = np.any(r)
        out[i, 19] = r.sum()
        out[i, 20] = r.mean()
        out[i, 21] = r.std()

"""The runtime headers of generated code (kernels/cudajit/{config,complex,arith,mathfuncs,cmathfuncs,atomics,print}.h).

One C++ program calls every function on many inputs (random and edge cases) and prints the results bit-exactly;
it is compiled once with the host C++ compiler and each result is compared with Python/NumPy's answer (Numba's
semantics where they differ from Python's, e.g. division by zero). The same expressions are compiled once more
for sm_90 through NVRTC, which offers no standard headers, so the GPU side of every header is checked too.
"""
import cmath
import functools
import math
import operator
import os
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

KERNELS = Path(__file__).resolve().parent.parent / "kernels"
HEADERS = ["config.h", "complex.h", "arith.h", "mathfuncs.h", "cmathfuncs.h", "atomics.h", "print.h"]
NAN, INF = math.nan, math.inf
M64 = (1 << 64) - 1

INTS = {"int8_t": (8, True), "int16_t": (16, True), "int32_t": (32, True), "int64_t": (64, True),
        "uint8_t": (8, False), "uint16_t": (16, False), "uint32_t": (32, False), "uint64_t": (64, False)}
FLOATS = {"float": np.float32, "double": np.float64}
COMPLEX = {"cj::complex<float>": np.float32, "cj::complex<double>": np.float64}


def wrap(v, ctype):
    bits, signed = INTS[ctype]
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def f32(x):
    with np.errstate(over="ignore"):
        return float(np.float32(x))


def int_range(ctype):
    bits, signed = INTS[ctype]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


# ---------------------------------------------------------------------------------------------------------------
# Cases: a C++ expression over arguments {0}, {1}, ... of the given C++ types, rows of inputs, and the oracle.

class Case:
    def __init__(self, expr, types, rows, oracle, tol=None, gpu=True):
        self.expr, self.types, self.rows, self.oracle, self.tol = expr, types, list(rows), oracle, tol
        self.gpu = gpu  # False: CPU only (atomics on a local variable; the GPU program has its own)


CASES = []


def case(expr, types, rows, oracle, tol=None, gpu=True):
    CASES.append(Case(expr, types, rows, oracle, tol, gpu))


RNG = np.random.default_rng(2024)


def int_inputs(ctype, n=40):
    lo, hi = int_range(ctype)
    edge = [0, 1, 2, 3, 7, hi, hi - 1, lo, lo + 1] + ([-1, -2, -3, -7] if lo < 0 else [])
    rand = [int(v) for v in RNG.integers(lo, hi, size=n, endpoint=True, dtype=np.int64 if lo < 0 else np.uint64)]
    small = [int(v) for v in RNG.integers(max(lo, -50), 50, size=n)]
    return edge + rand + small


def int_pairs(ctype):
    xs = int_inputs(ctype)
    ys = int_inputs(ctype)
    pairs = [(x, y) for x in xs[:13] for y in ys[:13]]
    return pairs + list(zip(xs, ys[::-1])) + list(zip(xs, ys))


FLOAT_EDGE = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 7.5, -7.5, 2.0, -2.0, 3.0, -3.0, 5.0, 1e308,
              -1e308, 5e-324, 1e-300, INF, -INF, NAN, 0.1, 3.14159, 1e20, -1e20, 123456.789]


def float_inputs(n=40, scale=100.0):
    return FLOAT_EDGE + [float(v) for v in RNG.uniform(-scale, scale, n)] + \
        [float(v) for v in RNG.standard_normal(n // 2) * 10.0 ** RNG.integers(-10, 10, n // 2)]


def float_pairs():
    xs = float_inputs()
    pairs = [(x, y) for x in FLOAT_EDGE for y in FLOAT_EDGE]
    pairs += list(zip(xs, xs[::-1]))
    pairs += [(float(a), float(b)) for a, b in zip(RNG.uniform(-50, 50, 60), RNG.integers(-6, 7, 60))]
    return pairs


def np_op(dtype, fn):
    """Apply a NumPy ufunc in `dtype` (float32 stays float32), without warnings."""
    def go(*args):
        with np.errstate(all="ignore"):
            return float(fn(*[dtype(a) for a in args]))
    return go


def _close_to(dt, fn):
    """fn computed in double, rounded to dt."""
    def go(*a):
        with np.errstate(all="ignore"):
            return float(dt(fn(*[float(x) for x in a])))
    return go


# --- arith.h: integers ---
def _int_floordiv(t):
    def f(a, b):
        if b == 0 or (INTS[t][1] and b == -1 and a == int_range(t)[0]):
            return 0
        return wrap(a // b, t)
    return f


def _int_pow(t):
    def f(a, e):
        if e >= 0:
            return wrap(pow(a, e, 1 << INTS[t][0]), t)
        if a == 0:
            return wrap(1 << (INTS[t][0] - 1), t)
        return 1 if a == 1 else ((-1 if e % 2 else 1) if a == -1 else 0)
    return f


for t in INTS:
    bits, signed = INTS[t]
    pairs = int_pairs(t)
    case("cj::floordiv({0}, {1})", (t, t), pairs, _int_floordiv(t))
    case("cj::pymod({0}, {1})", (t, t), pairs, lambda a, b, t=t: 0 if b == 0 else wrap(a % b, t))
    case("cj::pymax({0}, {1})", (t, t), pairs, lambda a, b: max(a, b))
    case("cj::pymin({0}, {1})", (t, t), pairs, lambda a, b: min(a, b))
    case("cj::py_bool({0})", (t,), [(p[0],) for p in pairs[:30]], bool)
    case("cj::sign_bit({0})", (t,), [(p[0],) for p in pairs[:30]], lambda a: a < 0)
    case("cj::truediv({0}, {1})", (t, t), pairs, np_op(np.float64, np.divide))
    exps = list(range(0, 70)) + ([-1, -2, -3] if signed else [])
    bases = [0, 1, 2, 3, 10, 7, int_range(t)[1]] + ([-1, -2, -3] if signed else [])
    case("cj::ipow({0}, (int64_t){1})", (t, "int64_t"), [(b, e) for b in bases for e in exps], _int_pow(t))
    shifts = [0, 1, 3, bits - 1, bits, bits + 1, 63, 64, 100, -1]
    vals = [0, 1, -1, int_range(t)[0], int_range(t)[1], 0x5A] if signed else [0, 1, int_range(t)[1], 0x5A]
    case("cj::shl({0}, {1})", (t, "int64_t"), [(v, s) for v in vals for s in shifts],
         lambda a, n, t=t: 0 if not 0 <= n < INTS[t][0] else wrap(a << n, t))
    case("cj::shr({0}, {1})", (t, "int64_t"), [(v, s) for v in vals for s in shifts],
         lambda a, n, t=t: (-1 if a < 0 else 0) if not 0 <= n < INTS[t][0] else a >> n)


# --- arith.h: floats ---
def _round_ndigits(x, nd):  # Numba's algorithm (not CPython's decimal one)
    if math.isinf(x) or math.isnan(x) or nd > 323:
        return x
    if nd < -308:
        return 0.0 * x
    if nd >= 0:
        pow1, pow2 = (10.0 ** (nd - 22), 1e22) if nd > 22 else (10.0 ** nd, 1.0)
        y = (x * pow1) * pow2
        return x if math.isinf(y) else (float(np.rint(y)) / pow2) / pow1
    pow1 = 10.0 ** -nd
    return float(np.rint(x / pow1)) * pow1


def _ipow_float(x, e):
    with np.errstate(all="ignore"):
        return float(np.float64(x) ** e) if abs(e) < 200 else float(np.power(x, float(e)))


for t, dt in FLOATS.items():
    pairs = [(f32(a), f32(b)) if dt is np.float32 else (a, b) for a, b in float_pairs()]
    singles = [(a,) for a, _ in pairs[:: 7]]
    case("cj::floordiv({0}, {1})", (t, t), pairs, np_op(dt, np.floor_divide))
    case("cj::pymod({0}, {1})", (t, t), pairs, np_op(dt, np.remainder))
    case("cj::truediv({0}, {1})", (t, t), pairs, np_op(dt, np.divide))
    case("cj::pymax({0}, {1})", (t, t), pairs, lambda a, b: max(a, b))
    case("cj::pymin({0}, {1})", (t, t), pairs, lambda a, b: min(a, b))
    case("cj::round_even({0})", (t,), singles + [(x + 0.5,) for x in range(-6, 6)], np_op(dt, np.rint))
    nd_rows = [(a, nd) for (a,) in singles for nd in (0, 1, 2, 3, -1, -2, 25, 300, 400, -400)]
    nd_rows += [(2.675, 2), (0.125, 2), (1.5, 0), (2.5, 0), (-0.5, 0), (1234.5, -1), (15.0, -1), (25.0, -1)]
    case("cj::round_ndigits({0}, (int64_t){1})", (t, "int64_t"), nd_rows,
         lambda x, nd, dt=dt: float(dt(_round_ndigits(float(dt(x)), nd))))
    case("cj::sign_bit({0})", (t,), singles, lambda a: math.copysign(1.0, a) < 0)
    case("cj::py_bool({0})", (t,), singles, bool)
    rows = [(float(dt(b)), e) for b in (0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -1.5, 1.0001, 10.0, INF, NAN) for e in
            list(range(-12, 13)) + [31, 64, 100, -100, 70000]]
    case("cj::ipow({0}, (int64_t){1})", (t, "int64_t"), rows,
         lambda b, e, dt=dt: _close_to(dt, _ipow_float)(b, e),
         tol=(1e-13, 0.0) if dt is np.float64 else (2e-5, 0.0))  # squaring compounds float32 rounding


# --- mathfuncs.h: real functions ---
def _py_math(fn):
    """Python's math function with C's results where Python raises (as Numba returns them)."""
    def go(*a):
        try:
            return fn(*a)
        except ValueError:
            return NAN
        except OverflowError:
            return INF
    return go


UNARY = {  # name: (oracle on doubles, input domain)
    "sqrt": (np.sqrt, "pos"), "exp": (np.exp, "small"), "expm1": (np.expm1, "small"), "exp2": (np.exp2, "small"),
    "log": (np.log, "pos"), "log2": (np.log2, "pos"), "log10": (np.log10, "pos"), "log1p": (np.log1p, "pos"),
    "sin": (np.sin, "any"), "cos": (np.cos, "any"), "tan": (np.tan, "any"), "asin": (np.arcsin, "unit"),
    "acos": (np.arccos, "unit"), "atan": (np.arctan, "any"), "sinh": (np.sinh, "small"),
    "cosh": (np.cosh, "small"), "tanh": (np.tanh, "any"), "asinh": (np.arcsinh, "any"),
    "acosh": (np.arccosh, "pos"), "atanh": (np.arctanh, "unit"), "floor": (np.floor, "any"),
    "ceil": (np.ceil, "any"), "trunc": (np.trunc, "any"), "fabs": (np.fabs, "any"), "cbrt": (np.cbrt, "any"),
    "rint": (np.rint, "any"), "erf": (_py_math(math.erf), "any"), "erfc": (_py_math(math.erfc), "small"),
    "tgamma": (_py_math(math.gamma), "gamma"), "lgamma": (_py_math(math.lgamma), "gamma"),
}
DOMAINS = {
    "any": [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -2.5, 10.0, 1e-8, 100.0, -1234.5, INF, -INF, NAN],
    "pos": [0.0, 1.0, 2.0, 0.5, 1e-5, 10.0, 1e10, 1e300, INF, NAN, -1.0],
    "small": [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -2.5, 10.0, -20.0, 50.0, INF, -INF, NAN],
    "unit": [0.0, -0.0, 0.5, -0.5, 0.999, -0.25, 1.0, -1.0, 2.0, NAN],
    "gamma": [0.5, 1.0, 2.0, 3.5, 10.0, 25.0, 170.5, 200.0, -0.5, -2.5, 1e-3, INF, NAN],
}
RANDOM = {"any": (-50, 50), "pos": (0, 100), "small": (-30, 30), "unit": (-1, 1), "gamma": (0.01, 30)}


def _c_pow(x, y):
    """C's pow (Numba's): math.pow, with C's answers where Python raises."""
    odd = y == int(y) and int(y) % 2 == 1 if math.isfinite(y) else False
    try:
        return math.pow(x, y)
    except ValueError:  # 0 ** negative: a pole; negative ** non-integer: nan
        return math.copysign(INF, x) if x == 0 and odd else (INF if x == 0 else NAN)
    except OverflowError:
        return -INF if x < 0 and odd else INF


TOL = {np.float64: (2e-14, 1e-300), np.float32: (3e-6, 1e-37)}
for t, dt in FLOATS.items():
    cast = (lambda x: f32(x)) if dt is np.float32 else float
    tol = TOL[dt]
    for name, (fn, dom) in UNARY.items():
        lo, hi = RANDOM[dom]
        xs = [cast(x) for x in DOMAINS[dom] + [float(v) for v in RNG.uniform(lo, hi, 25)]]
        exact = name in ("floor", "ceil", "trunc", "fabs", "rint")
        case(f"cj::m::{name}({{0}})", (t,), [(x,) for x in xs], _close_to(dt, fn), None if exact else tol)
    xs = [cast(x) for x in DOMAINS["any"] + [float(v) for v in RNG.uniform(-50, 50, 20)]]
    pairs = [(x, y) for x in xs[:14] for y in xs[:14]] + list(zip(xs, xs[::-1]))
    for name, fn in {"atan2": np.arctan2, "hypot": np.hypot, "pow": _c_pow}.items():
        case(f"cj::m::{name}({{0}}, {{1}})", (t, t), pairs, _close_to(dt, fn), tol)
    for name, fn in {"fmod": np.fmod, "copysign": np.copysign, "nextafter": np.nextafter}.items():
        case(f"cj::m::{name}({{0}}, {{1}})", (t, t), pairs, np_op(dt, fn))
    case("cj::m::remainder({0}, {1})", (t, t), pairs, _close_to(dt, _py_math(math.remainder)))
    for name in ("isnan", "isinf", "isfinite"):
        case(f"cj::m::{name}({{0}})", (t,), [(x,) for x in xs], getattr(math, name))
    case("cj::m::degrees({0})", (t,), [(x,) for x in xs], lambda x, dt=dt: float(dt(x) * dt(180.0 / math.pi)))
    case("cj::m::radians({0})", (t,), [(x,) for x in xs], lambda x, dt=dt: float(dt(x) * dt(math.pi / 180.0)))
    frexp_in = [(x,) for x in xs + [cast(1e-310), cast(3e-40)]]
    case("[]({T0} x) { int32_t e; {T0} m = cj::m::frexp(x, &e); return pair2<{T0}, int32_t>{m, e}; }({0})",
         (t,), frexp_in, math.frexp)
    case("[]({T0} x) { {T0} i; {T0} f = cj::m::modf(x, &i); return pair2<{T0}, {T0}>{f, i}; }({0})",
         (t,), [(x,) for x in xs], math.modf)
    case("cj::m::ldexp({0}, {1})", (t, "int32_t"), [(x, e) for x in xs[:14] for e in (0, 1, -1, 10, -1074, 2000)],
         np_op(dt, lambda x, e: np.ldexp(x, np.int32(e))))
    fma_rows = [(cast(a), cast(b), cast(c)) for a, b, c in RNG.uniform(-10, 10, (40, 3))]
    fma_rows += [(cast(0.1), cast(10.0), cast(-1.0)), (cast(1.0 + 2.0 ** -20), cast(1.0 - 2.0 ** -20), cast(-1.0))]
    case("cj::m::fma({0}, {1}, {2})", (t, t, t), fma_rows,
         lambda a, b, c, dt=dt: float(dt(float(Fraction(a) * Fraction(b) + Fraction(c)))),
         None if dt is np.float64 else (1e-7, 0.0))
    # Integer arguments compute as double; integers are never NaN/inf.
    case("cj::m::sqrt({0})", ("int64_t",), [(0,), (4,), (2,), (10 ** 12,)], math.sqrt, TOL[np.float64])
    case("cj::m::isnan({0}) + 2 * cj::m::isinf({0}) + 4 * cj::m::isfinite({0})", ("int32_t",), [(0,), (-5,)],
         lambda x: 4)


# --- complex.h ---
def c_of(dt, z):
    with np.errstate(over="ignore"):
        return complex(float(dt(z.real)), float(dt(z.imag)))


def np_complex(dt, fn):
    ct = np.complex64 if dt is np.float32 else np.complex128

    def go(*args):
        with np.errstate(all="ignore"):
            return complex(fn(*[ct(a) if isinstance(a, complex) else dt(a) for a in args]))
    return go


CPLX_EDGE = [0j, complex(-0.0, 0.0), complex(0.0, -0.0), 1 + 0j, 1j, -1 - 1j, 2 + 3j, complex(1e300, 1e300),
             complex(1e-300, 1e-300), complex(INF, 0), complex(0, INF), complex(NAN, 1), complex(3, NAN),
             complex(1, -0.0), complex(-2.5, 1e-5)]
for t, dt in COMPLEX.items():
    zs = [c_of(dt, z) for z in CPLX_EDGE + [complex(a, b) for a, b in RNG.uniform(-20, 20, (30, 2))]]
    pairs = [(a, b) for a in zs[:15] for b in zs[:15]] + list(zip(zs, zs[::-1]))
    real_t = "float" if dt is np.float32 else "double"
    reals = [float(dt(x)) for x in [0.0, -0.0, 2.0, -3.5, INF, NAN, 1e-3]]
    mixed = [(z, x) for z in zs[:12] for x in reals]
    exact = None if dt is np.float64 else (2e-6, 1e-37)
    for op in "+-*/":
        # NumPy divides by multiplying with 1/denominator: an ulp away from Smith's (Python's) quotient.
        tol = None if op in "+-" else (exact if op == "*" else (exact or (5e-16, 1e-300)))
        case(f"{{0}} {op} {{1}}", (t, t), pairs, np_complex(dt, eval(f"lambda a, b: a {op} b")), tol)
        case(f"{{0}} {op} {{1}}", (t, real_t), mixed, np_complex(dt, eval(f"lambda a, b: a {op} b")), tol)
        case(f"{{1}} {op} {{0}}", (t, real_t), mixed, np_complex(dt, eval(f"lambda a, b: b {op} a")), tol)
    if dt is np.float64:  # Python itself (Smith's division as CPython), where it does not raise
        case("{0} / {1}", (t, t), [p for p in pairs if p[1] != 0], lambda a, b: a / b)
        case("{0} * {1}", (t, real_t), mixed, lambda a, b: a * b)
    case("pair2<bool, bool>{{0} == {1}, {0} != {1}}", (t, t), pairs + [(z, z) for z in zs],
         lambda a, b: (a == b, a != b))
    case("pair2<bool, bool>{{0} == {1}, {1} != {0}}", (t, real_t), mixed + [(complex(x, 0), x) for x in reals],
         lambda a, b: (a == b, a != b))
    case("-{0}", (t,), [(z,) for z in zs], lambda a: complex(-a.real, -a.imag))
    case("cj::conj({0})", (t,), [(z,) for z in zs], lambda a: a.conjugate())
    case("[]({T0} z) { auto w = z; w += z; w *= z; w -= z; w /= z; return w; }({0})", (t,),
         [(z,) for z in zs[15:]], lambda z: ((z + z) * z - z) / z, exact)
    case(f"cj::make_complex({{0}}.real(), {{0}}.imag() * ({real_t})2)", (t,), [(z,) for z in zs],
         lambda z, dt=dt: complex(z.real, float(dt(z.imag * 2))))


# --- cmathfuncs.h: cmath ---
def _cmath(fn, dt):
    def go(*a):
        try:
            r = fn(*[complex(x) if isinstance(x, complex) else x for x in a])
        except (ValueError, OverflowError):
            return complex(NAN, NAN)
        return c_of(dt, r) if isinstance(r, complex) else float(dt(r))
    return go


CMATH = ["exp", "log", "log10", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
         "asinh", "acosh", "atanh"]
BRANCH = [complex(a, b) for a in (-2.0, 2.0, -0.5, 0.5, 0.0, -0.0) for b in (0.0, -0.0, 2.0, -2.0)]
for t, dt in COMPLEX.items():
    big = 1e300 if dt is np.float64 else 1e30
    zs = [c_of(dt, z) for z in BRANCH + [complex(a, b) for a, b in RNG.uniform(-4, 4, (20, 2))]
          + [complex(a, b) for a, b in RNG.uniform(-1, 1, (10, 2))] + [complex(0.3, 1e-4), complex(1.2, 0.6)]]
    huge = [c_of(dt, complex(a * big, b * big)) for a, b in [(1, 1), (1, -1), (-1, 1), (-1, -0.0), (1, 0), (1, -0.0),
                                                             (0, 1), (-0.0, -1), (0.5, 2)]]
    tol = (1e-13, 1e-300) if dt is np.float64 else (1e-5, 1e-37)
    for name in CMATH:
        overflows = name in ("exp", "sin", "cos", "tan", "sinh", "cosh", "tanh")  # cmath raises on huge input
        rows = zs + ([] if overflows else huge)
        rows = [z for z in rows if name not in ("log", "log10") or z != 0]
        case(f"cj::m::{name}({{0}})", (t,), [(z,) for z in rows], _cmath(getattr(cmath, name), dt), tol)
    specials = [complex(INF, 0), complex(-INF, 0), complex(0, INF), complex(NAN, 0), complex(INF, NAN), 0j]
    for name in ("isnan", "isinf", "isfinite"):
        case(f"cj::m::{name}({{0}})", (t,), [(z,) for z in zs[:6] + specials], getattr(cmath, name))
    case("cj::m::abs({0})", (t,), [(z,) for z in zs + huge + specials], lambda z, dt=dt: float(dt(abs(z))), tol)
    case("cj::m::phase({0})", (t,), [(z,) for z in zs + huge], _cmath(cmath.phase, dt), tol)
    real_t = "float" if dt is np.float32 else "double"
    case("[]({T0} z) { {T1} phi; {T1} r = cj::m::polar(z, &phi); return pair2<{T1}, {T1}>{r, phi}; }({0})",
         (t, real_t), [(z, 0.0) for z in zs], lambda z, _, dt=dt: tuple(float(dt(v)) for v in cmath.polar(z)), tol)
    rects = [(float(dt(r)), float(dt(p))) for r, p in RNG.uniform(-5, 5, (20, 2))]
    rects += [(r, p) for r in (INF, -INF, NAN, 2.0, -2.0, 0.0) for p in (0.0, -0.0)]
    case("cj::m::rect({0}, {1})", (real_t, real_t), rects, _cmath(cmath.rect, dt), tol)


# --- atomics.h: each operation once, single-threaded (the returned old value and the stored new one) ---
def _pymax(a, b):
    return b if b > a else a


def _pymin(a, b):
    return b if b < a else a


def _nanmax(a, b):
    return b if not math.isnan(b) and (a < b or math.isnan(a)) else a


def _nanmin(a, b):
    return b if not math.isnan(b) and (a > b or math.isnan(a)) else a


ATOMIC_TYPES = ["int32_t", "uint32_t", "int64_t", "uint64_t", "float", "double"]
for t in ATOMIC_TYPES:
    is_float = t in FLOATS
    if is_float:
        dt = FLOATS[t]
        vals = [float(dt(v)) for v in (0.0, -0.0, 1.5, -2.25, 1e30, NAN, INF, -INF)]
        norm = float

        def arith(op, dt=dt):
            return np_op(dt, op)
    else:
        lo, hi = int_range(t)
        vals = [0, 1, 5, hi, lo] + ([-1, -7] if lo < 0 else [])
        norm = int

        def arith(op, t=t):
            return lambda a, b: wrap(op(a, b), t)
    pairs = [(a, b) for a in vals for b in vals]
    ops = {"add": arith(lambda a, b: a + b), "sub": arith(lambda a, b: a - b), "max": _pymax, "min": _pymin,
           "nanmax": _nanmax, "nanmin": _nanmin, "exch": lambda a, b: b}
    if not is_float:
        ops.update({"and_": lambda a, b: a & b, "or_": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
                    "and": lambda a, b: a & b, "or": lambda a, b: a | b})
    for name, new in ops.items():
        case(f"[]({{T0}} s, {{T1}} v) {{ auto x = s; auto old = cj::atomic_{name}(&x, v); "
             f"return pair2<{{T0}}, {{T0}}>{{old, x}}; }}({{0}}, {{1}})",
             (t, t), pairs, lambda a, b, new=new: (a, new(a, b)), gpu=False)
    case("[]({T0} s, {T1} e, {T2} d) { auto x = s; auto old = cj::atomic_cas(&x, e, d); "
         "return pair2<{T0}, {T0}>{old, x}; }({0}, {1}, {2})",
         (t, t, t), [(a, b, c) for a in vals[:4] for b in (a, vals[2]) for c in vals[:3]],
         lambda a, e, d: (a, d if (a == e or (a != a and e != e)) else a), gpu=False)
for t in ("uint32_t", "uint64_t"):
    hi = int_range(t)[1]
    rows = [(a, m) for a in (0, 1, 4, 5, 6, hi) for m in (0, 5, hi)]
    case("[]({T0} s, {T1} m) { auto x = s; auto old = cj::atomic_inc(&x, m); "
         "return pair2<{T0}, {T0}>{old, x}; }({0}, {1})",
         (t, t), rows, lambda a, m: (a, 0 if a >= m else a + 1), gpu=False)
    case("[]({T0} s, {T1} m) { auto x = s; auto old = cj::atomic_dec(&x, m); "
         "return pair2<{T0}, {T0}>{old, x}; }({0}, {1})",
         (t, t), rows, lambda a, m: (a, m if (a == 0 or a > m) else a - 1), gpu=False)


# ---------------------------------------------------------------------------------------------------------------
# Program generation

PRELUDE = r"""
#include <cudajit/config.h>
#include <cudajit/complex.h>
#include <cudajit/arith.h>
#include <cudajit/mathfuncs.h>
#include <cudajit/cmathfuncs.h>
#include <cudajit/atomics.h>
#include <cudajit/print.h>

template <class A, class B> struct pair2 { A first; B second; };

// An argument from its bit pattern (ints: two's complement; floats: IEEE bits; complex: two patterns).
template <class T> struct from_bits_t {
    CJ_INLINE static T get(uint64_t re, uint64_t) {
        if constexpr (cj::is_floating_v<T>) return cj::bit_cast<T>(cj::uint_like_t<T>(re));
        else return T(re);
    }
};
template <class T> struct from_bits_t<cj::complex<T>> {
    CJ_INLINE static cj::complex<T> get(uint64_t re, uint64_t im) {
        return cj::make_complex(from_bits_t<T>::get(re, 0), from_bits_t<T>::get(im, 0));
    }
};
template <class T> CJ_INLINE T from_bits(uint64_t re, uint64_t im) { return from_bits_t<T>::get(re, im); }
"""

CPU_MAIN = r"""
#include <csetjmp>
#include <thread>
#include <type_traits>
#include <vector>

// One result as tokens: b (bool), i/u (integer), f/d (float/double bits), c (complex: two), p (pair: two).
template <class T> static void put(T v) {
    if constexpr (std::is_same_v<T, bool>) std::printf(" b %d", int(v));
    else if constexpr (std::is_same_v<T, float>) std::printf(" f %u", cj::bit_cast<uint32_t>(v));
    else if constexpr (std::is_same_v<T, double>) std::printf(" d %llu", (unsigned long long)cj::bit_cast<uint64_t>(v));
    else if constexpr (cj::is_signed_v<T>) std::printf(" i %lld", (long long)v);
    else std::printf(" u %llu", (unsigned long long)v);
}
template <class T> static void put(cj::complex<T> v) { std::printf(" c"); put(v.re); put(v.im); }
template <class A, class B> static void put(pair2<A, B> v) { std::printf(" p"); put(v.first); put(v.second); }
template <class T> static void out(int c, int i, T v) { std::printf("%d %d", c, i); put(v); std::printf("\n"); }

static std::jmp_buf trap_jump;

// The declaration macros as generated code uses them.
CJ_CONSTANT int32_t kTable[2] = {3, 4};
CJ_DEVICE int32_t dev_helper(int32_t x) { return x * kTable[1]; }
CJ_FORCEINLINE_DEVICE int32_t forced(int32_t x) { return x + kTable[0]; }
CJ_GLOBAL void CJ_LAUNCH_BOUNDS(128, 0) kernel_like(int32_t* a) { a[0] = dev_helper(a[0]) + forced(1); }

static void config_checks() {
#if defined(CJ_CPU) && !defined(CJ_GPU)
    std::printf("cfg target 1\n");
#endif
    int32_t k = 5;
    kernel_like(&k);
    std::printf("cfg macros %d\n", k);
    std::printf("cfg nan %d %d\n", int(std::isnan(cj::nan<float>())), int(std::isnan(cj::nan<double>())));
    std::printf("cfg inf %d %d\n", int(cj::inf<float>() == HUGE_VALF), int(cj::inf<double>() == HUGE_VAL));
    std::printf("cfg sizes %zu %zu %zu %zu\n", sizeof(cj::complex<float>), alignof(cj::complex<float>),
                sizeof(cj::complex<double>), alignof(cj::complex<double>));
    cj::cpu_trap_hook = [] { std::longjmp(trap_jump, 1); };
    if (setjmp(trap_jump) == 0) {
        cj::trap();
        std::printf("cfg trap returned\n");
    } else {
        std::printf("cfg trap hook\n");
    }
    cj::cpu_trap_hook = nullptr;
}

// Many threads hammer the same words; the totals show the operations are atomic.
static void thread_checks() {
    const int NT = 8, N = 20000;
    int32_t add32 = 0; int64_t add64 = 0; uint64_t sub64 = 0; float addf = 0; double addd = 0;
    uint32_t inc32 = 0; uint64_t dec64 = 0; double maxd = -cj::inf<double>(); int64_t min64 = 0;
    uint32_t cas32 = 0; uint64_t xor64 = 0; float nanmaxf = cj::nan<float>();
    std::vector<std::thread> threads;
    for (int t = 0; t < NT; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < N; ++i) {
                cj::atomic_add(&add32, int32_t(1));
                cj::atomic_add(&add64, int64_t(3));
                cj::atomic_sub(&sub64, uint64_t(1));
                cj::atomic_add(&addf, 1.0f);
                cj::atomic_add(&addd, 0.5);
                cj::atomic_inc(&inc32, 997u);
                cj::atomic_dec(&dec64, uint64_t(996));
                cj::atomic_max(&maxd, double(t * N + i));
                cj::atomic_min(&min64, -int64_t(t * N + i));
                cj::atomic_nanmax(&nanmaxf, float(i));
                cj::atomic_xor(&xor64, uint64_t(i) * 2654435761u + uint64_t(t));
                for (uint32_t seen = cas32;;) {  // increment by compare-and-swap
                    uint32_t prev = cj::atomic_cas(&cas32, seen, seen + 1);
                    if (prev == seen) break;
                    seen = prev;
                }
            }
        });
    }
    for (auto& th : threads) th.join();
    std::printf("mt add32 %d\nmt add64 %lld\nmt sub64 %llu\nmt addf %.1f\nmt addd %.1f\nmt inc32 %u\n", add32,
                (long long)add64, (unsigned long long)sub64, addf, addd, inc32);
    std::printf("mt dec64 %llu\nmt maxd %.1f\nmt min64 %lld\nmt nanmaxf %.1f\nmt cas32 %u\nmt xor64 %llu\n",
                (unsigned long long)dec64, maxd, (long long)min64, nanmaxf, cas32, (unsigned long long)xor64);

    // CJ_PRINTF from many threads: every line arrives whole.
    std::vector<std::thread> printers;
    for (int t = 0; t < 4; ++t)
        printers.emplace_back([t] { for (int i = 0; i < 50; ++i) CJ_PRINTF("printed %d %d %s\n", t, i, "abcdefgh"); });
    for (auto& th : printers) th.join();
}
"""


def encode(value, ctype):
    """(re_bits, im_bits) of a value as the C++ type holds it."""
    if ctype in COMPLEX:
        dt = COMPLEX[ctype]
        return encode(value.real, "float" if dt is np.float32 else "double")[0], \
            encode(value.imag, "float" if dt is np.float32 else "double")[0]
    if ctype == "float":
        return int(np.float32(value).view(np.uint32)), 0
    if ctype == "double":
        return int(np.float64(value).view(np.uint64)), 0
    return int(value) & M64, 0


def substitute(expr, args, types=()):
    """Arguments for {0}, {1}, ... and their C++ types for {T0}, {T1}, ... (not str.format: C++ has braces).
    Lambdas in cases are typed, not generic: NVRTC takes a generic lambda in a kernel for a host function."""
    for j, a in enumerate(args):
        expr = expr.replace("{%d}" % j, a)
    for j, t in enumerate(types):
        expr = expr.replace("{T%d}" % j, t)
    return expr


def case_source(k, c, cpu):
    """Case k in C++. CPU: a block printing the result for every row. GPU: a block folding the result into
    `acc` (all cases inlined into one kernel read the same inputs, so ptxas sees much common code: fast)."""
    args = [f"from_bits<{t}>(a{j}[i][0], a{j}[i][1])" if cpu else f"from_bits<{t}>(p[{2 * j}], p[{2 * j + 1}])"
            for j, t in enumerate(c.types)]
    decls = " ".join(f"auto x{j} = {a};" for j, a in enumerate(args))
    expr = substitute(c.expr, [f"x{j}" for j in range(len(args))], c.types)
    if not cpu:
        return f"  {{ {decls} sink(acc, {expr}); }}"
    lines = ["{"]
    for j, ctype in enumerate(c.types):
        enc = ", ".join("{%dull, %dull}" % encode(row[j], ctype) for row in c.rows)
        lines.append(f"  static const uint64_t a{j}[][2] = {{{enc}}};")
    lines.append(f"  for (int i = 0; i < {len(c.rows)}; ++i) {{ {decls} out({k}, i, {expr}); }}")
    lines.append("}")
    return "\n".join(lines)


def cpu_program():
    body = "\n".join(case_source(k, c, True) for k, c in enumerate(CASES))
    return PRELUDE + CPU_MAIN + "int main() {\nconfig_checks();\n" + body + "\nthread_checks();\nreturn 0;\n}\n"


GPU_SINK = r"""
CJ_INLINE void sink(double& acc, bool v) { acc += v; }
CJ_INLINE void sink(double& acc, double v) { acc += v; }
template <class T> CJ_INLINE void sink(double& acc, T v) { acc += double(v); }
template <class T> CJ_INLINE void sink(double& acc, cj::complex<T> v) { acc += double(v.re) + double(v.im); }
template <class A, class B> CJ_INLINE void sink(double& acc, pair2<A, B> v) { sink(acc, v.first); sink(acc, v.second); }

CJ_CONSTANT double kScale = 2.0;
CJ_DEVICE double helper(double x) { return x * kScale; }
"""


def gpu_program():
    body = "".join(case_source(k, c, False) + "\n" for k, c in enumerate(CASES) if c.gpu)
    # Real device atomics on global memory, through a pointer of each type.
    atomics = []
    for t in ATOMIC_TYPES:
        a = f"reinterpret_cast<{t}*>(mem)"
        v = f"from_bits<{t}>(p[0], 0)"
        ops = ["add", "sub", "max", "min", "nanmax", "nanmin", "exch"] + \
              ([] if t in FLOATS else ["and_", "or_", "xor", "and", "or"])
        atomics += [f"  sink(acc, cj::atomic_{op}({a}, {v}));" for op in ops]
        atomics.append(f"  sink(acc, cj::atomic_cas({a}, {v}, {v}));")
    for t in ("uint32_t", "uint64_t"):
        atomics += [f"  sink(acc, cj::atomic_{op}(reinterpret_cast<{t}*>(mem), {t}(p[1])));" for op in ("inc", "dec")]
    return (PRELUDE + GPU_SINK +
            "CJ_GLOBAL void CJ_LAUNCH_BOUNDS(256, 0) all_runtime(const uint64_t* p, double* mem, double* result, "
            "cj::complex<float> zf, cj::complex<double> zd) {\n  double acc = helper(zf.re) + zd.im;\n" + body +
            "\n".join(atomics) + '\n  if (acc == 12345.0) CJ_PRINTF("%f %d\\n", acc, int(threadIdx.x));\n'
            "  if (acc < -1e300) cj::trap();\n  *result = acc;\n}\n"
            "CJ_GLOBAL void CJ_LAUNCH_BOUNDS(0, 0) no_bounds(int32_t* a) { a[0] = 1; }\n")


# ---------------------------------------------------------------------------------------------------------------
# Decoding and comparison

def parse_values(tokens):
    tag = tokens.pop(0)
    if tag == "b":
        return bool(int(tokens.pop(0)))
    if tag in "iu":
        return int(tokens.pop(0))
    if tag == "f":
        return float(np.uint32(int(tokens.pop(0))).view(np.float32))
    if tag == "d":
        return float(np.uint64(int(tokens.pop(0))).view(np.float64))
    if tag == "c":
        re = parse_values(tokens)
        return complex(re, parse_values(tokens))
    if tag == "p":
        first = parse_values(tokens)
        return (first, parse_values(tokens))
    raise AssertionError(f"bad tag {tag}")


def same_float(got, exp, tol, scale=None):
    if math.isnan(exp):
        return math.isnan(got)
    if tol is None or math.isinf(exp):
        return got == exp and math.copysign(1, got) == math.copysign(1, exp)
    rtol, atol = tol
    return abs(got - exp) <= atol + rtol * (abs(exp) if scale is None else scale)


def same(got, exp, tol):
    if isinstance(exp, tuple):
        return isinstance(got, tuple) and len(got) == len(exp) and all(same(g, e, tol) for g, e in zip(got, exp))
    if isinstance(exp, complex):
        parts = [abs(v) for v in (exp.real, exp.imag) if not math.isnan(v)]
        scale = max(parts, default=0.0)
        if math.isinf(scale):
            tol = None
        return isinstance(got, complex) and same_float(got.real, exp.real, tol, scale) and \
            same_float(got.imag, exp.imag, tol, scale)
    if isinstance(got, float) or isinstance(exp, float):
        return same_float(float(got), float(exp), tol)
    return got == exp


# ---------------------------------------------------------------------------------------------------------------
# Fixtures and tests

# NVRTC first: the host compiler builds the CPU program meanwhile (see cpu_build).

CUDA_HOME = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))


def _nvrtc_via_core():
    """cudajit._core.nvrtc_compile(source, name, options, arch, cubin), if the core is built."""
    try:
        from cudajit import _core
    except ImportError:
        return None
    if not hasattr(_core, "nvrtc_compile") or not _core.nvrtc_available()[0]:
        return None
    if hasattr(_core, "nvrtc_clear_memory_cache"):
        _core.nvrtc_clear_memory_cache()
    return lambda source, opts: (_core.nvrtc_compile(source, "runtime_headers.cu", opts, 90, True), None)


def _nvrtc_via_library():
    """libnvrtc called directly (ctypes): works without the core, and returns NVRTC's log (warnings)."""
    import ctypes
    lib = CUDA_HOME / "lib64" / "libnvrtc.so"
    if not lib.exists():
        return None
    nvrtc = ctypes.CDLL(str(lib))

    def compile_(source, opts):
        prog = ctypes.c_void_p()
        assert nvrtc.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), b"runtime_headers.cu", 0, None, None) == 0
        opts = opts if any(o.startswith("-arch") for o in opts) else ["-arch=sm_90", *opts]
        rc = nvrtc.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts]))
        size = ctypes.c_size_t()
        nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetProgramLog(prog, log)
        image = b""
        if rc == 0 and "-arch=sm_90" in opts:
            nvrtc.nvrtcGetCUBINSize(prog, ctypes.byref(size))
            buf = ctypes.create_string_buffer(size.value)
            nvrtc.nvrtcGetCUBIN(prog, buf)
            image = buf.raw
        nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
        assert rc == 0, log.value.decode()[-8000:]
        return image, log.value.decode()
    return compile_


def _nvcc(tmp_path):
    nvcc = shutil.which("nvcc") or (CUDA_HOME / "bin" / "nvcc" if (CUDA_HOME / "bin" / "nvcc").exists() else None)
    if nvcc is None:
        return None

    def compile_(source, opts):
        (tmp_path / "k.cu").write_text(source)
        r = subprocess.run([str(nvcc), "-arch=sm_90", "-cubin", *opts, str(tmp_path / "k.cu"), "-o",
                            str(tmp_path / "k.cubin")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-8000:]
        return (tmp_path / "k.cubin").read_bytes(), r.stderr
    return compile_


@pytest.fixture
def gpu_compile(tmp_path, monkeypatch):
    """Compile for sm_90: NVRTC through the core, else libnvrtc, else (no NVRTC at all) nvcc; else skip."""
    monkeypatch.setenv("CUDAJIT_CACHE_DIR", str(tmp_path / "cache"))  # a cached cubin would hide header changes
    compile_ = _nvrtc_via_core() or _nvrtc_via_library() or _nvcc(tmp_path)
    if compile_ is None:
        pytest.skip("neither NVRTC nor nvcc is available")

    def go(source, extra_opts=()):
        image, log = compile_(source, ["-std=c++17", f"-I{KERNELS}", *extra_opts])
        assert image[:4] == b"\x7fELF"
        return log
    return go


def test_every_function_compiles_under_nvrtc(gpu_compile):
    gpu_compile(gpu_program())


def test_no_warnings_under_nvrtc():
    """Users see NVRTC's log: the headers must not add warnings to it (libnvrtc directly, for the log)."""
    compile_ = _nvrtc_via_library()
    if compile_ is None:
        pytest.skip("libnvrtc not found")
    _, log = compile_(gpu_program(), ["-std=c++17", f"-I{KERNELS}", "-arch=compute_90"])  # PTX: no ptxas time
    assert "warning" not in log.lower(), log[-8000:]


@pytest.mark.parametrize("header", HEADERS)
def test_each_header_compiles_alone_under_nvrtc(gpu_compile, header):
    gpu_compile(f'#include <cudajit/{header}>\nCJ_GLOBAL void k(int64_t* p) {{ p[0] = INT64_MAX; }}\n')


def test_headers_coexist_with_cccl_under_nvrtc(gpu_compile):
    """CUB (CCCL) after our headers, as in a unit with the user's CUDA C++ linked in (program.py marks it): no clash
    over int64_t or the limit macros."""
    cccl = CUDA_HOME / "include" / "cccl"
    if not (cccl / "cub").is_dir():
        pytest.skip("no CCCL headers")
    from cudajit.compiler.program import LINKED_SOURCES_MARK
    src = (LINKED_SOURCES_MARK + "\n" + "".join(f"#include <cudajit/{h}>\n" for h in HEADERS) + "#include <cub/warp/warp_reduce.cuh>\n"
           "CJ_GLOBAL void k(int64_t* p) { using WR = cub::WarpReduce<int64_t>; __shared__ WR::TempStorage t;"
           " p[0] = WR(t).Sum(p[1]) + INT64_MAX + cj::floordiv(p[2], p[3]); }\n")
    gpu_compile(src, [f"-I{cccl}"])


# Results of the CPU program.

@pytest.fixture(scope="module", autouse=True)
def cpu_build(tmp_path_factory):
    """Start the host compiler at once, in the background: it runs while the NVRTC tests use the other core."""
    cxx = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("c++")
    if cxx is None:
        yield None
        return
    d = tmp_path_factory.mktemp("runtime_headers")
    (d / "prog.cpp").write_text(cpu_program())
    proc = subprocess.Popen([cxx, "-std=c++17", "-O2", "-pthread", "-Wall", "-Wextra", "-Wno-unused-parameter",
                             f"-I{KERNELS}", str(d / "prog.cpp"), "-o", str(d / "prog")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    yield proc, d
    proc.kill()
    proc.communicate()


@pytest.fixture(scope="module")
def cpu_results(cpu_build):
    if cpu_build is None:
        pytest.skip("no host C++ compiler")
    proc, d = cpu_build
    _, stderr = proc.communicate()
    assert proc.returncode == 0, stderr[-6000:]
    header_warnings = [ln for ln in stderr.splitlines() if "warning" in ln and "cudajit/" in ln]
    assert not header_warnings, "\n".join(header_warnings)
    run = subprocess.run([str(d / "prog")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    results, extra = {}, []
    for line in run.stdout.splitlines():
        head = line.split()
        if head and head[0].isdigit():
            results[(int(head[0]), int(head[1]))] = parse_values(head[2:])
        else:
            extra.append(line)
    return results, extra


def describe(c, row):
    return substitute(c.expr, [repr(v) for v in row], c.types)


def test_every_function_matches_python(cpu_results):
    results, _ = cpu_results
    failures, checked = [], 0
    for k, c in enumerate(CASES):
        for i, row in enumerate(c.rows):
            got = results.get((k, i))
            exp = c.oracle(*row)
            checked += 1
            if got is None or not same(got, exp, c.tol):
                failures.append(f"{describe(c, row)}: got {got!r}, expected {exp!r}")
    assert not failures, f"{len(failures)} of {checked} results differ:\n" + "\n".join(failures[:150])
    assert checked > 10000


def test_python_semantics_spot_checks(cpu_results):
    """The brief's examples, found among the generated rows (guards against an oracle that drifted)."""
    results, _ = cpu_results
    want = {("cj::floordiv({0}, {1})", ("double", "double"), (-7.5, 2.0)): -4.0,
            ("cj::pymod({0}, {1})", ("double", "double"), (-7.5, 2.0)): 0.5,
            ("cj::pymod({0}, {1})", ("double", "double"), (5.0, -3.0)): -1.0,
            ("cj::pymax({0}, {1})", ("double", "double"), (NAN, 1.0)): NAN,
            ("cj::pymax({0}, {1})", ("double", "double"), (1.0, NAN)): 1.0,
            ("cj::pymod({0}, {1})", ("int64_t", "int64_t"), (-7, 2)): 1,
            ("cj::floordiv({0}, {1})", ("int64_t", "int64_t"), (-7, 2)): -4,
            ("cj::floordiv({0}, {1})", ("int64_t", "int64_t"), (7, 0)): 0,
            ("cj::round_even({0})", ("double",), (2.5,)): 2.0,
            ("cj::round_even({0})", ("double",), (-2.5,)): -2.0}
    found = 0
    for k, c in enumerate(CASES):
        for i, row in enumerate(c.rows):
            key = (c.expr, c.types, tuple(row))
            if key in want:
                found += 1
                assert same(results[(k, i)], want[key], None), (key, results[(k, i)])
    pmod = [(k, i) for k, c in enumerate(CASES) if c.expr == "cj::pymod({0}, {1})" and c.types == ("double", "double")
            for i, row in enumerate(c.rows) if row[1] == 0.0]
    assert pmod and all(math.isnan(results[key]) for key in pmod)  # % by 0.0 is nan
    assert found >= 8


def test_config_and_trap_hook(cpu_results):
    _, extra = cpu_results
    assert "cfg target 1" in extra and "cfg macros 24" in extra
    assert "cfg nan 1 1" in extra and "cfg inf 1 1" in extra
    assert "cfg sizes 8 8 16 16" in extra
    assert "cfg trap hook" in extra and "cfg trap returned" not in extra


def test_atomics_from_many_threads(cpu_results):
    _, extra = cpu_results
    mt = dict(line.split()[1:] for line in extra if line.startswith("mt "))
    n = 8 * 20000
    assert int(mt["add32"]) == n and int(mt["add64"]) == 3 * n
    assert int(mt["sub64"]) == (-n) & M64
    assert float(mt["addf"]) == n and float(mt["addd"]) == n / 2
    assert int(mt["inc32"]) == n % 998  # 0..997, wrapping
    assert int(mt["dec64"]) == (-n) % 997  # from 0 down, wrapping to 996
    assert float(mt["maxd"]) == n - 1 and int(mt["min64"]) == -(n - 1)
    assert float(mt["nanmaxf"]) == 19999.0  # the initial NaN is replaced, then the max wins
    assert int(mt["cas32"]) == n
    xor = functools.reduce(operator.xor, (i * 2654435761 + t for t in range(8) for i in range(20000)))
    assert int(mt["xor64"]) == xor


def test_printf_lines_stay_whole(cpu_results):
    _, extra = cpu_results
    printed = [line for line in extra if line.startswith("printed")]
    assert sorted(printed) == sorted(f"printed {t} {i} abcdefgh" for t in range(4) for i in range(50))

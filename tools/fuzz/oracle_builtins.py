"""The oracle's builtins, ``math`` and ``cmath``: each types its arguments as numba-cuda does (its CUDA typing
templates in substance) and computes the C library's result (NaN and inf where Python's ``math`` would raise),
marking what correct implementations may compute differently as approximate (values.V.e)."""
import cmath as _cmath
import functools
import math
import math as _math
import types as _types

import numpy as np

import nbtypes as nt
import numeric as nm
from values import V, Uncertain, _approx_core, binop, cast, lift
from numeric import Undefined


@functools.lru_cache(maxsize=None)
def _numpy_unify(*ts):
    """numba's unify_types for numbers: NumPy's promotion."""
    r = ts[0]
    for t in ts[1:]:
        r = np.promote_types(r if r != "bool" else "bool", t if t != "bool" else "bool").name
    return r


# ---- range ---------------------------------------------------------------------------------------------------------
_RANGE_CASES = [(s, tuple([s] * n)) for s in ("int32", "int64", "uint64") for n in (1, 2, 3)]


def range_(*args):
    """A typed range: its values are int32 when every bound is (at most) int32, uint64 for unsigned, else int64."""
    vs = [lift(a) for a in args]
    sig = nt.resolve(_RANGE_CASES, tuple(v.t for v in vs))
    if sig is None:
        raise TypeError(f"range{tuple(v.t for v in vs)}")
    t = sig[0]
    ints = [cast(v, t).v for v in vs]
    if len(ints) == 3 and ints[2] == 0:
        raise Undefined("range() step 0")
    r = range(*ints)
    if len(r) > 100000:
        raise Undefined("range too long for a test")
    return (V(t, i) for i in r)


# ---- builtins ------------------------------------------------------------------------------------------------------
def abs_(x):
    x = lift(x)
    if nt.is_complex(x.t):
        t = "float32" if x.t == "complex64" else "float64"
        return _approx_core(nm.round_float(abs(x.v), t), t, [x], lambda z: nm.round_float(abs(z), t), 2)
    if x.t == "bool":
        x = cast(x, "int8")      # bool -> int8 is the first safe case
    if nt.is_int(x.t):
        return V(x.t, nm.wrap(abs(x.v), x.t))
    return V(x.t, abs(x.v), x.e)


def _minmax(args, greater):
    if len(args) == 1:
        args = tuple(args[0])
    vs = [lift(a) for a in args]
    t = _numpy_unify(*[v.t for v in vs])
    if len(vs) == 2 and all(v.t in ("float32", "float64") for v in vs):
        return _fminmax(vs, t, greater)
    acc = cast(vs[0], t)
    for v in vs[1:]:
        v = cast(v, t)
        pred = (v > acc) if greater else (v < acc)
        if pred:
            acc = v
    return acc


def _fminmax(vs, t, greater):
    """numba-cuda's max/min of two floats: CUDA's fmax/fmin (a NaN operand is ignored); which zero of -0.0 and
    0.0 it gives is not specified."""
    a, b = cast(vs[0], t), cast(vs[1], t)
    if a.v != a.v:
        return b
    if b.v != b.v:
        return a
    if a.v == b.v == 0 and math.copysign(1, a.v) != math.copysign(1, b.v):
        raise Uncertain("fmax/fmin of -0.0 and 0.0")
    if a.e or b.e:
        if abs(a.v - b.v) <= a.e + b.e:
            return V(t, max(a.v, b.v) if greater else min(a.v, b.v), max(a.e, b.e))
    pick = (a.v >= b.v) if greater else (a.v <= b.v)
    return a if pick else b


def max_(*args):
    return _minmax(args, True)


def min_(*args):
    return _minmax(args, False)


def round_(x, ndigits=None):
    x = lift(x)
    if ndigits is None:
        sig = nt.resolve([("int64", ("float32",)), ("int64", ("float64",))], (x.t,))
        y = cast(x, sig[1][0])
        if y.e:
            frac = abs(y.v - _math.floor(y.v))
            if abs(frac - 0.5) <= y.e or (_math.floor(y.v - y.e) != _math.floor(y.v + y.e) and frac < 0.5):
                raise Uncertain("round near a tie")
        if y.v != y.v or _math.isinf(y.v):
            raise Undefined("round of nan or inf")
        return V("int64", nm.convert(float(np.rint(y.v)), "float64", "int64"))
    sig = nt.resolve([("float32", ("float32", "int64")), ("float64", ("float64", "int64"))], (x.t, lift(ndigits).t))
    raise Undefined("round(x, n) is not generated")


def int_(x):
    x = lift(x)
    if nt.is_int(x.t):
        return x
    if nt.is_complex(x.t):
        raise TypeError("int(complex)")
    return cast(x, "int64")


def float_(x):
    x = lift(x)
    if nt.is_complex(x.t) or x.t == "bool":
        raise TypeError(f"float({x.t})")
    return x if x.t in ("float32", "float64") else cast(x, "float64")


def bool_(x):
    return V("bool", bool(lift(x)))


def complex_(re, im=None):
    re = lift(re)
    if re.t == "bool" or (im is not None and lift(im).t == "bool"):
        raise TypeError("complex(bool)")
    if im is None:
        return cast(re, "complex64" if re.t == "float32" else "complex128")
    im = lift(im)
    t = "complex64" if re.t == im.t == "float32" else "complex128"
    part = "float32" if t == "complex64" else "float64"
    if nt.is_complex(re.t) or nt.is_complex(im.t):
        raise TypeError("complex(complex, ...) is not generated")
    r, i = cast(re, part), cast(im, part)
    return V(t, complex(r.v, i.v), r.e + i.e)


def len_(a):
    return V("int64", len(a))


def type_ctor(t):
    def ctor(x):
        return cast(lift(x), t)
    ctor.__name__ = t
    return ctor


# ---- math ----------------------------------------------------------------------------------------------------------
_UNARY_CASES = [("float64", ("int64",)), ("float64", ("uint64",)), ("float32", ("float32",)),
                ("float64", ("float64",))]
_BIN_INT_CASES = [("float64", ("int64", "int64")), ("float64", ("uint64", "uint64")),
                  ("float32", ("float32", "float32")), ("float64", ("float64", "float64"))]
_BIN_CASES = [("float32", ("float32", "float32")), ("float64", ("float64", "float64"))]
_POW_CASES = _BIN_CASES + [("float32", ("float32", "int32")), ("float64", ("float64", "int32"))]


def _c(f, nan_on=(ValueError,), inf_on=(OverflowError,)):
    """A Python math function with C's results where Python raises."""
    def g(*a):
        try:
            return f(*a)
        except nan_on:
            return _math.nan
        except inf_on:
            return _math.inf
    return g


def _gamma(x):
    if x == 0:
        return _math.copysign(_math.inf, x)
    if x < 0 and x == _math.floor(x) or x == -_math.inf:
        return _math.nan
    try:
        return _math.gamma(x)
    except OverflowError:
        return _math.inf if x > 0 or _math.floor(x) % 2 == 0 else -_math.inf


def _lgamma(x):
    if x <= 0 and x == _math.floor(x):
        return _math.inf
    try:
        return _math.lgamma(x)
    except OverflowError:
        return _math.inf


def _np1(f):
    return lambda x: float(f(np.float64(x)))


def _np2(f):
    return lambda x, y: float(f(np.float64(x), np.float64(y)))


# name: (cases, function on doubles, ulps: 0 = exact, correctly rounded)
_MATH = {
    "sin": (_UNARY_CASES, _np1(np.sin), 4), "cos": (_UNARY_CASES, _np1(np.cos), 4),
    "tan": (_UNARY_CASES, _np1(np.tan), 8), "asin": (_UNARY_CASES, _np1(np.arcsin), 4),
    "acos": (_UNARY_CASES, _np1(np.arccos), 4), "atan": (_UNARY_CASES, _np1(np.arctan), 4),
    "sinh": (_UNARY_CASES, _np1(np.sinh), 4), "cosh": (_UNARY_CASES, _np1(np.cosh), 4),
    "tanh": (_UNARY_CASES, _np1(np.tanh), 4), "asinh": (_UNARY_CASES, _np1(np.arcsinh), 4),
    "acosh": (_UNARY_CASES, _np1(np.arccosh), 4), "atanh": (_UNARY_CASES, _np1(np.arctanh), 4),
    "exp": (_UNARY_CASES, _np1(np.exp), 4), "expm1": (_UNARY_CASES, _np1(np.expm1), 4),
    "log": (_UNARY_CASES, _np1(np.log), 4), "log2": (_UNARY_CASES, _np1(np.log2), 4),
    "log10": (_UNARY_CASES, _np1(np.log10), 4), "log1p": (_UNARY_CASES, _np1(np.log1p), 4),
    "erf": (_UNARY_CASES, _c(_math.erf), 4), "erfc": (_UNARY_CASES, _c(_math.erfc), 8),
    "gamma": (_UNARY_CASES, _gamma, 16), "lgamma": (_UNARY_CASES, _lgamma, 16),
    "degrees": (_UNARY_CASES, None, 0), "radians": (_UNARY_CASES, None, 0),
    "sqrt": (_UNARY_CASES, _np1(np.sqrt), 0), "fabs": (_UNARY_CASES, _np1(np.fabs), 0),
    "floor": (_UNARY_CASES, _np1(np.floor), 0), "ceil": (_UNARY_CASES, _np1(np.ceil), 0),
    "trunc": (_UNARY_CASES, _np1(np.trunc), 0),
    "atan2": (_BIN_INT_CASES, _np2(np.arctan2), 4), "hypot": (_BIN_INT_CASES, _np2(np.hypot), 4),
    "copysign": (_BIN_CASES, _np2(np.copysign), 0), "fmod": (_BIN_CASES, _np2(np.fmod), 0),
    "remainder": (_BIN_CASES, _c(_math.remainder), 0), "pow": (_POW_CASES, _np2(np.power), 8),
}
_DISCONTINUOUS = {"floor", "ceil", "trunc"}


def _math_fn(name):
    cases, f, ulps = _MATH[name]

    def fn(*args):
        vs = [lift(a) for a in args]
        sig = nt.resolve(cases, tuple(v.t for v in vs))
        if sig is None:
            raise TypeError(f"math.{name}{tuple(v.t for v in vs)}")
        t, params = sig
        xs = [cast(v, p) for v, p in zip(vs, params)]
        if name in ("degrees", "radians"):
            # numba-cuda: one multiplication by the constant 180/pi (pi/180) in the argument's type
            k = nm.round_float(180 / _math.pi if name == "degrees" else _math.pi / 180, t)
            return binop("*", V(t, k), xs[0])
        g = lambda *a: nm.round_float(f(*[float(u) for u in a]), t)
        if name in _DISCONTINUOUS:
            x = xs[0]
            if x.e:
                if x.v == x.v and not _math.isinf(x.v) and _math.floor(x.v - x.e) != _math.floor(x.v + x.e):
                    raise Uncertain(f"math.{name} near an integer")
            return V(t, g(x.v))
        if name in ("fmod", "remainder") and any(x.e for x in xs):
            raise Uncertain(f"math.{name} of an approximate value")
        r = g(*[x.v for x in xs])
        if ulps == 0 and not any(x.e for x in xs):
            return V(t, r)
        return _approx_core(r, t, xs, g, max(ulps, 1))
    fn.__name__ = name
    return fn


def _isx(name, f):
    def fn(x):
        x = lift(x)
        sig = nt.resolve([("bool", ("int64",)), ("bool", ("uint64",)), ("bool", ("float32",)),
                          ("bool", ("float64",))], (x.t,))
        y = cast(x, sig[1][0])
        if y.e:
            raise Uncertain(f"math.{name} of an approximate value")
        return V("bool", bool(f(y.v)))
    return fn


def _modf(x):
    x = lift(x)
    sig = nt.resolve([("float64", ("float64",)), ("float32", ("float32",))], (x.t,))
    y = cast(x, sig[0])
    if y.e:
        raise Uncertain("math.modf of an approximate value")
    fr, ip = _math.modf(y.v) if not _math.isinf(y.v) else (_math.copysign(0.0, y.v), y.v)
    return V(y.t, fr), V(y.t, ip)


def _frexp(x):
    x = lift(x)
    sig = nt.resolve([("float32", ("float32",)), ("float64", ("float64",))], (x.t,))
    y = cast(x, sig[0])
    if y.e or y.v != y.v or _math.isinf(y.v):
        raise Uncertain("math.frexp of an approximate, nan or inf value")
    m, e = _math.frexp(y.v)
    return V(y.t, m), V("int32", e)


def _ldexp(x, n):
    x, n = lift(x), lift(n)
    sig = nt.resolve([("float32", ("float32", "int32")), ("float64", ("float64", "int32"))], (x.t, n.t))
    if sig is None:
        raise TypeError(f"math.ldexp{(x.t, n.t)}")
    y, k = cast(x, sig[1][0]), cast(n, "int32")
    try:
        r = _math.ldexp(y.v, k.v)
    except OverflowError:
        r = _math.copysign(_math.inf, y.v)
    r = nm.round_float(r, y.t)
    if y.e:
        return V(y.t, r, abs(r) * y.e / max(abs(y.v), 1e-300) + abs(r) * nm.EPS[y.t])
    return V(y.t, r)


def _nextafter(x, y):
    x, y = lift(x), lift(y)
    t, (p, _) = nt.resolve(_BIN_CASES, (x.t, y.t))
    a, b = cast(x, p), cast(y, p)
    if a.e or b.e:
        raise Uncertain("math.nextafter of an approximate value")
    npt = np.float32 if t == "float32" else np.float64
    return V(t, float(np.nextafter(npt(a.v), npt(b.v))))


def make_math():
    m = _types.SimpleNamespace(**{name: _math_fn(name) for name in _MATH})
    m.isnan = _isx("isnan", _math.isnan)
    m.isinf = _isx("isinf", _math.isinf)
    m.isfinite = _isx("isfinite", _math.isfinite)
    m.modf, m.frexp, m.ldexp, m.nextafter = _modf, _frexp, _ldexp, _nextafter
    m.pi, m.e, m.inf, m.nan, m.tau = _math.pi, _math.e, _math.inf, _math.nan, _math.tau
    return m


# ---- cmath (numba-cuda types only complex arguments) ---------------------------------------------------------------
def _cmath_fn(name, ulps=16):
    f = getattr(_cmath, name)

    def fn(x):
        x = lift(x)
        if not nt.is_complex(x.t):
            raise TypeError(f"cmath.{name}({x.t})")
        g = lambda z: nm.round_complex(_c_complex(f, z), x.t)
        r = g(x.v)
        if not (_math.isfinite(r.real) and _math.isfinite(r.imag)):
            raise Undefined(f"cmath.{name} not finite")
        return _approx_complex(r, x, g, ulps)
    return fn


def _c_complex(f, z):
    try:
        return f(z)
    except (ValueError, OverflowError):
        raise Undefined("cmath domain")


def _approx_complex(r, x, g, ulps):
    eps = nm.EPS["float32" if x.t == "complex64" else "float64"]
    e = 0.0
    step = x.e + abs(x.v) * eps * ulps + 1e-300
    for d in (step, -step, step * 1j, -step * 1j):
        try:
            r2 = g(x.v + d)
        except Undefined:
            raise Uncertain("cmath near a singularity")
        if not (_math.isfinite(r2.real) and _math.isfinite(r2.imag)):
            raise Uncertain("cmath near a singularity")
        e = max(e, abs(r2 - r))
    # a jump across a branch cut shows as a large e: fine for values, Uncertain where it decides anything
    return V(x.t, r, e * 1.01 + abs(r) * eps * ulps + eps * ulps)


def make_cmath():
    names = ["acos", "asin", "asinh", "atan", "atanh", "cos", "exp", "sin", "sqrt", "tan", "log"]
    m = _types.SimpleNamespace(**{n: _cmath_fn(n) for n in names})

    def pred(name, f):
        def fn(x):
            x = lift(x)
            if not nt.is_complex(x.t):
                raise TypeError(f"cmath.{name}({x.t})")
            if x.e:
                raise Uncertain(f"cmath.{name} of an approximate value")
            return V("bool", bool(f(x.v)))
        return fn
    m.isnan, m.isinf, m.isfinite = pred("isnan", _cmath.isnan), pred("isinf", _cmath.isinf), \
        pred("isfinite", _cmath.isfinite)
    m.pi, m.e = _cmath.pi, _cmath.e
    return m


def make_builtins():
    """The names a program's py_func sees in place of Python's builtins."""
    env = {"range": range_, "abs": abs_, "min": min_, "max": max_, "round": round_, "int": int_,
           "float": float_, "bool": bool_, "complex": complex_, "len": len_}
    for t in nt.ALL:
        env[t if t != "bool" else "boolean"] = type_ctor(t)
    return env

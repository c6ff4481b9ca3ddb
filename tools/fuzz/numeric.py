"""Numba's arithmetic on plain Python numbers, one scalar type at a time: the oracle's number crunching.

Values are Python bool/int/float/complex holding exactly what the typed value holds (a float32 is a Python float
that float32 represents). Where Numba's result is undefined (LLVM poison: a float converted to an integer it does
not fit, a shift by a negative amount or by the width or more) ``Undefined`` is raised: a program that does that
is not a valid test. Numba-cuda's 'numpy' error model (no debug) is what it defines for zero divisors: integer
``//`` and ``%`` give 0, float ones inf or nan, ``0 ** -n`` the type's minimum.
"""
import math

import numpy as np

from nbtypes import BITS, FLOATS, SIGNED, UNSIGNED, int_range

np.seterr(all="ignore")


class Undefined(Exception):
    """The program's result is undefined here (in Numba as in C++): the program is not a valid test."""


_NP = {"float16": np.float16, "float32": np.float32, "float64": np.float64,
       "complex64": np.complex64, "complex128": np.complex128}
_MANT = {"float16": 11, "float32": 24, "float64": 53}
_MAXF = {t: float(np.finfo(_NP[t]).max) for t in FLOATS}
EPS = {"float16": 2.0 ** -11, "float32": 2.0 ** -24, "float64": 2.0 ** -53}
TINY = {t: float(np.finfo(_NP[t]).tiny) for t in FLOATS}


def wrap(n, t):
    """An integer taken modulo 2**bits into type t's range (Numba's integers wrap)."""
    bits = BITS[t]
    n &= (1 << bits) - 1
    if t in SIGNED and n >> (bits - 1):
        n -= 1 << bits
    return n


def round_float(x, t):
    """A Python float (double) rounded to float type t (overflow to inf)."""
    if t == "float64":
        return float(x)
    return float(_NP[t](x))


def int_to_float(n, t):
    """Integer n converted to float type t, rounded to nearest even (LLVM's sitofp/uitofp)."""
    if n == 0:
        return 0.0
    m = abs(n)
    bits = m.bit_length()
    keep = _MANT[t]
    if bits > keep:
        shift = bits - keep
        q, r = divmod(m, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        m = q << shift
    try:
        x = float(m)
    except OverflowError:
        x = math.inf
    x = x if n > 0 else -x
    return x if abs(x) <= _MAXF[t] else math.copysign(math.inf, x)


def round_complex(z, t):
    part = "float32" if t == "complex64" else "float64"
    return complex(round_float(z.real, part), round_float(z.imag, part))


def truth(x):
    """Numba's truth of a scalar (a float NaN is true, as `x != 0` unordered)."""
    if isinstance(x, complex):
        return x.real != 0 or x.imag != 0 or x != x
    return x != 0 or x != x


def convert(x, frm, to):
    """Numba's cast of value x from type frm to type to."""
    if frm == to:
        return x
    if to == "bool":
        return bool(truth(x))
    if frm == "bool":
        x = int(x)
        frm = "int64"
    if to in SIGNED or to in UNSIGNED:
        if frm in FLOATS:
            if x != x or math.isinf(x):
                raise Undefined(f"{x} converted to {to}")
            n = int(x)                      # toward zero
            lo, hi = int_range(to)
            if not lo <= n <= hi:
                raise Undefined(f"{x} converted to {to}")
            return n
        if frm in ("complex64", "complex128"):
            raise Undefined("complex converted to an integer")
        return wrap(x, to)
    if to in FLOATS:
        if frm in FLOATS:
            return round_float(x, to)
        if frm in ("complex64", "complex128"):
            return round_float(x.real, to)
        return int_to_float(x, to)
    # complex
    part = "float32" if to == "complex64" else "float64"
    if frm in ("complex64", "complex128"):
        return round_complex(x, to)
    return complex(convert(x, frm, part), 0.0)


# ---- float arithmetic in a type's precision ----------------------------------------------------------------------
def fadd(a, b, t):
    return round_float(_NP[t](a) + _NP[t](b), t) if t != "float64" else float(np.float64(a) + np.float64(b))


def fsub(a, b, t):
    return round_float(_NP[t](a) - _NP[t](b), t) if t != "float64" else float(np.float64(a) - np.float64(b))


def fmul(a, b, t):
    return round_float(_NP[t](a) * _NP[t](b), t) if t != "float64" else float(np.float64(a) * np.float64(b))


def fdiv(a, b, t):
    return round_float(_NP[t](a) / _NP[t](b), t) if t != "float64" else float(np.float64(a) / np.float64(b))


def frem(a, b, t):
    """C's fmod (LLVM frem): exact."""
    if b == 0 or a != a or b != b or math.isinf(a):
        return math.nan
    if math.isinf(b):
        return a
    return round_float(math.fmod(a, b), t)


def fdivmod(vx, wx, t):
    """Numba's float floordiv and mod (CPython's float_divmod in type t's precision), zero divisor included."""
    if wx == 0:
        return fdiv(vx, wx, t), frem(vx, wx, t)
    mod = frem(vx, wx, t)
    div = fdiv(fsub(vx, mod, t), wx, t)
    if mod != 0 or mod != mod:                       # non-zero or NaN
        if (wx < 0) != (mod < 0):
            div = fsub(div, 1.0, t)
            mod = fadd(mod, wx, t)
    else:
        mod = -0.0 if wx < 0 else 0.0
    if div != 0 and div == div:
        floordiv = math.floor(div) if not math.isinf(div) else div
        if fsub(div, floordiv, t) > 0.5:
            floordiv = fadd(floordiv, 1.0, t)
    else:
        div = fmul(div, div, t)
        floordiv = fdiv(fmul(div, vx, t), wx, t)
    return floordiv, mod


# ---- integer arithmetic (operands already converted to the result type t) ----------------------------------------
def idivmod(x, y, t):
    """Numba's integer divmod: Python's floor semantics; 0, 0 for a zero divisor and for MIN // -1."""
    if y == 0:
        return 0, 0
    if t in SIGNED and x == int_range(t)[0] and y == -1:
        return 0, 0
    q, r = divmod(x, y)
    return wrap(q, t), wrap(r, t)


def ipow(a, b, t, literal):
    """Numba's integer power a ** b in type t: int_power_impl, for a literal exponent too (``literal`` is kept for
    the callers but changes nothing): numba-cuda 0.30.4 types ``x ** -3`` with an int64 exponent, so its
    static_power_impl, which would invert the wrapped power (2**31 ** -3 -> 0 -> INT_MIN), is never used; its PTX
    tests the base (0 -> INT_MIN, +-1 -> +-1, else 0)."""
    bits = BITS[t]
    a = wrap(a, t)
    if b < 0:
        zerodiv = wrap(-1 << (bits - 1), t)
        if a == 0:
            return zerodiv
        if a == 1:
            return 1
        if a == -1:
            return 1 if b % 2 == 0 else -1
        return 0
    if b > 0x10000:
        raise Undefined("integer power computed with math.pow")
    return wrap(pow(a, b, 1 << bits), t)


def fpow_int(a, b, t, literal):
    """float ** integer as Numba computes it: repeated squaring in t's precision, then 1/r for negative b (a literal
    exponent alike: see ipow)."""
    if abs(b) > 0x10000:
        return round_float(math.pow(a, float(b)) if a != 0 or b >= 0 else math.inf, t)
    exp, invert = abs(b), b < 0
    r, x = 1.0, a
    while exp:
        if exp & 1:
            r = fmul(r, x, t)
        exp >>= 1
        if exp:
            x = fmul(x, x, t)
    return fdiv(1.0, r, t) if invert else r


def ishift(a, b, t, left):
    if not 0 <= b < BITS[t]:
        raise Undefined(f"shift by {b}")
    if left:
        return wrap(a << b, t)
    if t in UNSIGNED:
        return a >> b
    return a >> b

"""Typed values for the oracle: a number that carries its Numba type and an error bound, and whose operators
type and compute as Numba does (nbtypes for the signature, numeric for the arithmetic).

``e`` is an absolute error bound: 0 for a value every correct implementation computes bit for bit; non-zero once
an approximate function (sin, exp, ...) or, on the GPU, a contractible multiply (a * b + c may become an FMA) has
touched it. Where such a value decides something discontinuous (a comparison, a floor, a conversion to an
integer) closer than its bound, the result is implementation-defined: ``Uncertain`` is raised and the program is
not a valid test.
"""
import math

import nbtypes as nt
import numeric as nm
from numeric import Undefined


class Uncertain(Exception):
    """An approximate value decides a discontinuous result within its error bound."""


class Config:
    fma = False          # GPU: every float multiply may be fused with an add (NVRTC's and NVVM's default)


class V:
    __slots__ = ("t", "v", "e")

    def __init__(self, t, v, e=0.0):
        self.t, self.v, self.e = t, v, e

    def __repr__(self):
        return f"V({self.t}, {self.v!r}{', e=%g' % self.e if self.e else ''})"

    # -- Python protocol used by the program's own syntax --
    def __bool__(self):
        if self.e and abs(self.v) <= self.e:
            raise Uncertain(f"truth of {self!r}")
        return nm.truth(self.v)

    def __index__(self):
        if not nt.is_int(self.t):
            raise TypeError(f"{self.t} used as an index")
        return self.v

    def __hash__(self):
        return hash((self.t, self.v))

    def __float__(self):
        return float(self.v)

    def __int__(self):
        return int(self.v)

    def __complex__(self):
        return complex(self.v)

    def __pow__(self, o):
        return binop("**", self, o, literal_exponent=not isinstance(o, V) or isinstance(o, Lit))

    def __rpow__(self, o):
        return binop("**", o, self)

    for _name, _op in [("add", "+"), ("sub", "-"), ("mul", "*"), ("truediv", "/"), ("floordiv", "//"),
                       ("mod", "%"), ("lshift", "<<"), ("rshift", ">>"), ("and", "&"),
                       ("or", "|"), ("xor", "^")]:
        exec(f"def __{_name}__(self, o): return binop({_op!r}, self, o)\n"
             f"def __r{_name}__(self, o): return binop({_op!r}, o, self)")
    for _name, _op in [("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">="), ("eq", "=="), ("ne", "!=")]:
        exec(f"def __{_name}__(self, o): return binop({_op!r}, self, o)")
    del _name, _op

    @property
    def real(self):
        return complex_part(self, "real")

    @property
    def imag(self):
        return complex_part(self, "imag")

    def conjugate(self):
        if not nt.is_complex(self.t):
            raise TypeError(f"{self.t}.conjugate()")
        return V(self.t, self.v.conjugate(), self.e)

    def __neg__(self):
        return unop("-u", self)

    def __pos__(self):
        return unop("+u", self)

    def __invert__(self):
        return unop("~", self)


class Lit(V):
    """A literal of the program (the oracle's code makes every number literal one): Numba's literal types."""
    __slots__ = ()


def literal(x):
    v = lift(x)
    return Lit(v.t, v.v)


def complex_part(x, which):
    if not nt.is_complex(x.t):
        raise TypeError(f"{x.t}.{which} is not generated")
    t = "float32" if x.t == "complex64" else "float64"
    return V(t, getattr(x.v, which), x.e)


def lift(x):
    """A Python literal of the program (or a value) as a V: ints are int64, floats float64, as Numba types them."""
    if type(x) is V or type(x) is Lit:
        return x
    if isinstance(x, bool):
        return V("bool", x)
    if isinstance(x, int):
        if not -2**63 <= x < 2**63:
            raise Undefined(f"literal {x} outside int64")
        return V("int64", x)
    if isinstance(x, float):
        return V("float64", x)
    if isinstance(x, complex):
        return V("complex128", x)
    raise TypeError(f"not a number: {x!r}")


def literal_kind(x):
    return not isinstance(x, V)


def eps(t):
    if nt.is_complex(t):
        t = "float32" if t == "complex64" else "float64"
    return nm.EPS[t]


def cast(x, t):
    """Numba's conversion of a V to type t (an implicit or explicit cast)."""
    if type(x) is not V and type(x) is not Lit:
        x = lift(x)
    if x.t == t:
        return x
    if x.e:
        if nt.is_int(t) or t == "bool":
            _check_not_near_int(x, truncate=True)
            return V(t, nm.convert(x.v, x.t, t))
        v = nm.convert(x.v, x.t, t)
        return V(t, v, _finite_err(x.e + abs(v) * eps(t), t))
    return V(t, nm.convert(x.v, x.t, t))


def _finite_err(e, t):
    if e != e or math.isinf(e):
        raise Uncertain("unbounded error")
    return e


def _check_not_near_int(x, truncate=False):
    """Raise Uncertain when x.v is within x.e of a value where floor/trunc/int conversion jumps."""
    v = x.v
    if v != v or math.isinf(v):
        return
    lo, hi = v - x.e, v + x.e
    if math.floor(lo) != math.floor(hi) or (truncate and lo <= 0 <= hi):
        raise Uncertain(f"integer part of {x!r}")


def _sig(op, a, b=None):
    args = (a.t,) if b is None else (a.t, b.t)
    sig = nt.op_signature(op, args)
    if sig is None:
        raise TypeError(f"no Numba signature for {op} on {args}")
    return sig


def unop(op, a):
    a = lift(a)
    ret, (pa,) = _sig(op, a)
    x = cast(a, pa)
    if op == "+u":
        return cast(x, ret)
    if op == "-u":
        if pa == "bool":                     # Numba widens a boolean first: -True is -1
            return V(ret, -int(x.v))
        if nt.is_int(ret):                   # an integer is negated in its own type, then widened
            return V(ret, nm.convert(nm.wrap(-x.v, pa), pa, ret))
        return V(ret, -x.v, x.e)
    if op == "~":
        if ret == "bool":
            return V("bool", not x.v)
        return V(ret, nm.convert(nm.wrap(~x.v, pa), pa, ret))      # inverted in its own type, then widened
    raise ValueError(op)


def not_(a):
    return V("bool", not bool(lift(a)))


_CMP = {"<": lambda x, y: x < y, "<=": lambda x, y: x <= y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y,
        "==": lambda x, y: x == y, "!=": lambda x, y: x != y}


def binop(op, a, b, literal_exponent=False):
    """``a op b`` as Numba types and computes it (``literal_exponent``: the ``**``'s exponent is a literal in the
    source, which Numba lowers by unrolling)."""
    a, b = lift(a), lift(b)
    ret, (pa, pb) = _sig(op, a, b)
    if op in _CMP:
        x, y = cast(a, pa), cast(b, pb)
        if (x.e or y.e) and not (x.v != x.v or y.v != y.v):
            d = abs(x.v - y.v)
            if not d > x.e + y.e:
                raise Uncertain(f"{x!r} {op} {y!r}")
        return V("bool", bool(_CMP[op](x.v, y.v)))
    if nt.is_int(ret) or ret == "bool":
        return _int_binop(op, a, b, ret, pa, pb, literal_exponent)
    x, y = cast(a, pa), cast(b, pb)
    if nt.is_complex(ret):
        return _complex_binop(op, x, y, ret)
    return _float_binop(op, x, y, ret, int_exponent=op == "**" and nt.is_int(pb), literal=literal_exponent)


def _int_binop(op, a, b, ret, pa, pb, literal):
    if a.e or b.e:
        raise Uncertain("approximate value in integer arithmetic")
    if op in ("<<", ">>"):
        x = nm.convert(nm.convert(a.v, a.t, pa), pa, ret)
        y = nm.convert(nm.convert(b.v, b.t, pb), pb, ret)
        return V(ret, nm.ishift(x, y, ret, op == "<<"))
    x = nm.convert(nm.convert(a.v, a.t, pa), pa, ret)
    y = nm.convert(nm.convert(b.v, b.t, pb), pb, ret)
    if ret == "bool":
        return V("bool", {"&": x and y, "|": x or y, "^": x != y}[op])
    if op == "+":
        r = x + y
    elif op == "-":
        r = x - y
    elif op == "*":
        r = x * y
    elif op == "//":
        r = nm.idivmod(x, y, ret)[0]
    elif op == "%":
        r = nm.idivmod(x, y, ret)[1]
    elif op == "**":
        r = nm.ipow(x, y, ret, literal)
    elif op == "&":
        r = x & y
    elif op == "|":
        r = x | y
    elif op == "^":
        r = x ^ y
    else:
        raise ValueError(op)
    return V(ret, nm.wrap(r, ret))


def _float_binop(op, x, y, t, int_exponent=False, literal=False):
    a, b = x.v, y.v
    if op == "+":
        r = nm.fadd(a, b, t)
    elif op == "-":
        r = nm.fsub(a, b, t)
    elif op == "*":
        r = nm.fmul(a, b, t)
    elif op == "/":
        r = nm.fdiv(a, b, t)
    elif op in ("//", "%"):
        q, m = nm.fdivmod(a, b, t)
        if x.e or y.e:
            _check_divmod(x, y)
            return V(t, q) if op == "//" else V(t, m, _finite_err(x.e + abs(q) * y.e + abs(m) * eps(t), t))
        return V(t, q if op == "//" else m)
    elif op == "**":
        if int_exponent and abs(b) <= 0x10000:
            r = nm.fpow_int(a, b, t, literal)
            if r != 0 and not math.isinf(r) and r == r:
                # squaring in t's precision: exact as Numba computes it; allow for pow()-based implementations
                return _approx_result(r, t, x, None, lambda u: nm.fpow_int(u, b, t, True), ulps=2 + abs(b).bit_length())
            return V(t, r) if not x.e else _approx_result(r, t, x, None, lambda u: nm.fpow_int(u, b, t, True), 2)
        return _approx2(lambda u, w: _c_pow(u, w, t), t, x, y, ulps=4)
    else:
        raise ValueError(op)
    e = 0.0
    if x.e or y.e:
        if op in ("+", "-"):
            e = x.e + y.e
        elif op == "*":
            e = abs(a) * y.e + abs(b) * x.e + x.e * y.e
        else:
            if not abs(b) > y.e:
                raise Uncertain("division by an approximate value near zero")
            e = (x.e + abs(r) * y.e) / (abs(b) - y.e)
        e += abs(r) * eps(t)
    if Config.fma and op in ("*", "+", "-"):
        # a contracted a*b+c skips the product's rounding; its neighbours' sums may skip theirs
        e += abs(r) * eps(t) * 2
    if e:
        if math.isinf(r) or r != r:
            if x.e or y.e:
                raise Uncertain("approximate value overflows")
        elif abs(r) + e >= nm._MAXF[t]:
            raise Uncertain("approximate value near overflow")
        return V(t, r, _finite_err(e, t))
    return V(t, r)


def _check_divmod(x, y):
    if not abs(y.v) > y.e:
        raise Uncertain("divmod by an approximate value near zero")
    q = x.v / y.v
    dq = (x.e + abs(q) * y.e) / (abs(y.v) - y.e) + abs(q) * 1e-15
    if math.floor(q - dq) != math.floor(q + dq):
        raise Uncertain("floor division near an integer")


def _c_pow(u, w, t):
    """C99's pow (as llvm.pow and CUDA's pow compute it): inf at the pole 0 ** negative, nan for a negative base
    and a non-integer exponent."""
    import numpy as np
    return nm.round_float(float(np.power(np.float64(u), np.float64(w))), t)


def _complex_binop(op, x, y, t):
    part = "float32" if t == "complex64" else "float64"
    a, b, c, d = x.v.real, x.v.imag, y.v.real, y.v.imag
    f = lambda fn, *args: fn(*args, part)
    if op == "+":
        r = complex(f(nm.fadd, a, c), f(nm.fadd, b, d))
    elif op == "-":
        r = complex(f(nm.fsub, a, c), f(nm.fsub, b, d))
    elif op == "*":
        r = complex(f(nm.fsub, f(nm.fmul, a, c), f(nm.fmul, b, d)), f(nm.fadd, f(nm.fmul, a, d), f(nm.fmul, b, c)))
    elif op == "/":
        if c == 0 and d == 0:
            raise Undefined("complex division by zero")
        r = _complex_div(a, b, c, d, part)
        e = abs(r) * eps(t) * 8 + (x.e + abs(r) * y.e) / max(abs(y.v) - y.e, 1e-300)
        return V(t, r, _finite_err(e, t)) if abs(r) == abs(r) and not math.isinf(abs(r)) else _undefined_special()
    elif op == "**":
        return _complex_pow(x, y, t)
    else:
        raise ValueError(op)
    e = 0.0
    if x.e or y.e:
        e = x.e * (1 + abs(y.v)) + y.e * (1 + abs(x.v)) + x.e * y.e + abs(r) * eps(t) * 4
    if Config.fma and op == "*":
        e += (abs(x.v) * abs(y.v)) * eps(t) * 4
    if e and not (math.isfinite(r.real) and math.isfinite(r.imag)):
        raise Uncertain("approximate complex overflows")
    return V(t, r, _finite_err(e, t))


def _undefined_special():
    raise Uncertain("complex division overflows")


def _complex_div(a, b, c, d, part):
    f = lambda fn, *args: fn(*args, part)
    if abs(c) >= abs(d):
        ratio = f(nm.fdiv, d, c)
        denom = f(nm.fadd, c, f(nm.fmul, d, ratio))
        return complex(f(nm.fdiv, f(nm.fadd, a, f(nm.fmul, b, ratio)), denom),
                       f(nm.fdiv, f(nm.fsub, b, f(nm.fmul, a, ratio)), denom))
    ratio = f(nm.fdiv, c, d)
    denom = f(nm.fadd, f(nm.fmul, c, ratio), d)
    return complex(f(nm.fdiv, f(nm.fadd, f(nm.fmul, a, ratio), b), denom),
                   f(nm.fdiv, f(nm.fsub, f(nm.fmul, b, ratio), a), denom))


def _cuda_cpow(a, b):
    """numba-cuda's complex power (cpow_internal in its mathimpl.py, which cudajit's cmathfuncs.h follows), not
    CPython's: 0j ** inf is nan there (phase 0 * inf), 0j in CPython."""
    if b.real == 0 and b.imag == 0:
        return complex(1.0, 0.0)
    if a.real == 0 and b.real == 0:
        return complex(0.0, 0.0)
    vabs = math.hypot(a.real, a.imag)
    length = math.pow(vabs, b.real)
    at = math.atan2(a.imag, a.real)
    phase = at * b.real
    if b.imag != 0:
        length /= math.exp(at * b.imag)
        phase += b.imag * math.log(vabs)
    # len * (cos(phase) + sin(phase) * 1j) in complex arithmetic, term by term as numba-cuda (and cmathfuncs.h)
    # compute it: the signs of zero parts come from these products
    def mul(x, y):
        return complex(x.real * y.real - x.imag * y.imag, x.real * y.imag + x.imag * y.real)
    unit = complex(math.cos(phase), 0.0) + mul(complex(math.sin(phase), 0.0), complex(0.0, 1.0))
    return mul(complex(length, 0.0), unit)


def _complex_pow(x, y, t):
    try:
        r = _cuda_cpow(x.v, y.v)
    except (ZeroDivisionError, OverflowError, ValueError):
        raise Undefined("complex power at a pole or overflowing")
    exact = r
    r = nm.round_complex(r, t)
    if not (math.isfinite(r.real) and math.isfinite(r.imag)):
        raise Undefined("complex power overflows")
    if (r.real == 0 and exact.real != 0) or (r.imag == 0 and exact.imag != 0):
        # a part that underflows to zero in t: its sign comes from t's arithmetic (|a| ** b.re already 0 in float32
        # gives 0 * cos(phase) - 0 * sin(phase), +0.0 where the rounded exact value is -0.0; seed 61, 34/30)
        raise Uncertain("a part of a complex power underflows")
    # computed in t's precision: pow(|a|, b.re), exp(at * b.im) and the phase's terms each carry a relative error of
    # a few ulps times their exponent, which the magnitude and the phase of the result inherit
    a, b = x.v, y.v
    vabs, at = math.hypot(a.real, a.imag), math.atan2(a.imag, a.real)
    log_abs = math.log(vabs) if vabs > 0 else 0.0
    cond = 4 + abs(b.real * log_abs) + abs(at * b.imag) + abs(at * b.real) + abs(b.imag * log_abs)
    e = abs(r) * eps(t) * 16 * cond + (x.e + y.e) * (abs(r) + 1) * 64
    if r.real == 0 or r.imag == 0:
        # a zero part's sign is cos(phase)'s or sin(phase)'s: undecided when the phase, computed in t's precision
        # (at * b.re is some 1e20 for b = -1e20), may lie on either side of a multiple of pi/2
        phase = at * b.real + b.imag * log_abs
        perr = (abs(at * b.real) + abs(b.imag * log_abs) + 4) * eps(t) * 16 + (x.e + y.e) * 64 * (abs(b) + 1)
        k = phase / (math.pi / 2)
        if perr >= abs(k - round(k)) * (math.pi / 2):
            raise Uncertain("the sign of a zero part of a complex power")
    return V(t, r, e)


# ---- approximate functions ----------------------------------------------------------------------------------------
def _classify(r):
    if isinstance(r, complex):
        return (_classify(r.real), _classify(r.imag))
    return "nan" if r != r else "inf" if math.isinf(r) else "fin"


def _approx_result(r, t, x, y, f, ulps):
    """Result r of an approximate function f of x (and y): error from its ulps and from its arguments' bounds."""
    return _approx_core(r, t, [x] + ([y] if y is not None else []), f, ulps)


def _approx2(f, t, x, y, ulps):
    return _approx_core(f(x.v, y.v), t, [x, y], f, ulps)


def _approx_core(r, t, args, f, ulps):
    """Checks that nudging the arguments (by their bounds and by a few ulps) cannot change r's class (finite, inf,
    nan) and bounds the change; raises Uncertain otherwise."""
    cls = _classify(r)
    e = 0.0
    for i, a in enumerate(args):
        if not isinstance(a.v, (int, float, complex)) or isinstance(a.v, bool):
            continue
        if a.v != a.v or (not isinstance(a.v, complex) and math.isinf(a.v)):
            continue
        step = a.e + abs(a.v) * eps(a.t if not nt.is_int(a.t) else "float64") * ulps
        if step == 0:
            continue
        for s in (step, -step):
            vals = [b.v for b in args]
            vals[i] = a.v + s
            try:
                r2 = f(*vals)
            except (Undefined, ValueError, OverflowError, ZeroDivisionError):
                raise Uncertain("approximate function near a singularity")
            if _classify(r2) != cls:
                raise Uncertain("approximate function near a class boundary")
            if cls == "fin" or cls == ("fin", "fin"):
                if a.e:
                    e = max(e, abs(r2 - r) * 1.01)
    if cls in ("fin", ("fin", "fin")):
        tiny = nm.TINY["float32" if t in ("float32", "complex64") else "float64"]
        e += max(abs(r), tiny) * eps(t) * ulps
        if not nt.is_complex(t) and abs(r) + e >= nm._MAXF[t]:
            raise Uncertain("approximate value near overflow")
        return V(t, r, _finite_err(e, t))
    return V(t, r)

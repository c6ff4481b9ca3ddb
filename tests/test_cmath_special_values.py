"""cmath in kernels at special values (infinities, NaNs, signed zeros, huge and tiny magnitudes), complex128 and
complex64, compared with CPython's cmath: NaN, infinities and the sign of a zero exactly, finite parts to a few
ulps. np.exp & co. on complex values and cuda.vectorize ufuncs go through the same functions.

Where CPython raises ValueError (C99 Annex G's "invalid" and "divide-by-zero" cases) it has computed a value from
its special-value tables first; a kernel cannot raise and returns that value (``_value_before_raising``)."""
import cmath
import itertools
import math

import numpy as np
import pytest

from cudajit import cuda

INF, NAN = math.inf, math.nan
FUNCS = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "log", "log10", "sin", "sinh",
         "sqrt", "tan", "tanh"]
# One value of each of CPython's classes (-inf, negative, -0, +0, positive, +inf, nan), a few finite ones so that
# cos and sin take every sign, and the branch points +-1.
PARTS = [-INF, -2.5, -1.0, -0.75, -0.0, 0.0, 0.75, 1.0, 3.0, INF, NAN]
SPECIAL = [complex(x, y) for x, y in itertools.product(PARTS, PARTS)]
# (ulps of the result's largest part, the dtype's eps, the smallest normal number) per precision
PRECISION = {np.complex128: (4, 2.0 ** -52, 2.2250738585072014e-308), np.complex64: (8, 2.0 ** -23, 1.1754944e-38)}


@cuda.jit
def every_cmath(z, out):
    i = cuda.grid(1)
    if i < z.size:
        v = z[i]
        out[i, 0] = cmath.acos(v)
        out[i, 1] = cmath.acosh(v)
        out[i, 2] = cmath.asin(v)
        out[i, 3] = cmath.asinh(v)
        out[i, 4] = cmath.atan(v)
        out[i, 5] = cmath.atanh(v)
        out[i, 6] = cmath.cos(v)
        out[i, 7] = cmath.cosh(v)
        out[i, 8] = cmath.exp(v)
        out[i, 9] = cmath.log(v)
        out[i, 10] = cmath.log10(v)
        out[i, 11] = cmath.sin(v)
        out[i, 12] = cmath.sinh(v)
        out[i, 13] = cmath.sqrt(v)
        out[i, 14] = cmath.tan(v)
        out[i, 15] = cmath.tanh(v)


@cuda.jit
def every_ufunc(z, out):
    i = cuda.grid(1)
    if i < z.size:
        v = z[i]
        out[i, 0] = np.arccos(v)
        out[i, 1] = np.arccosh(v)
        out[i, 2] = np.arcsin(v)
        out[i, 3] = np.arcsinh(v)
        out[i, 4] = np.arctan(v)
        out[i, 5] = np.arctanh(v)
        out[i, 6] = np.cos(v)
        out[i, 7] = np.cosh(v)
        out[i, 8] = np.exp(v)
        out[i, 9] = np.log(v)
        out[i, 10] = np.log10(v)
        out[i, 11] = np.sin(v)
        out[i, 12] = np.sinh(v)
        out[i, 13] = np.sqrt(v)
        out[i, 14] = np.tan(v)
        out[i, 15] = np.tanh(v)


@cuda.jit
def polar_kernel(z, out, flags):
    i = cuda.grid(1)
    if i < z.size:
        r, phi = cmath.polar(z[i])
        out[i, 0] = r
        out[i, 1] = phi
        out[i, 2] = cmath.phase(z[i])
        out[i, 3] = abs(z[i])
        flags[i, 0] = cmath.isnan(z[i])
        flags[i, 1] = cmath.isinf(z[i])
        flags[i, 2] = cmath.isfinite(z[i])


@cuda.jit
def rect_kernel(r, phi, out):
    i = cuda.grid(1)
    if i < r.size:
        out[i] = cmath.rect(r[i], phi[i])


@cuda.jit
def log_base_kernel(z, base, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i] = cmath.log(z[i], base[i])


def _value_before_raising(name, z):
    """What CPython's cmath computes (its special-value tables) before it raises ValueError for z."""
    x, y = z.real, z.imag
    if name in ("sin", "cos", "tan"):     # CPython computes them as the hyperbolic function of iz
        w = _value_before_raising(name + "h", complex(-y, x))
        return w if name == "cos" else complex(w.imag, -w.real)
    if name == "atan":
        w = _value_before_raising("atanh", complex(-y, x))
        return complex(w.imag, -w.real)
    if name in ("log", "log10"):         # log(+-0 +-0j)
        scale = 1.0 if name == "log" else math.log(10)
        return complex(-INF, math.atan2(y, x) / scale)
    if name == "atanh":                  # atanh(+-1 +-0j)
        return complex(math.copysign(INF, x), y)
    assert math.isinf(y), (name, z)      # exp, cosh, sinh, tanh of x +- inf j
    if name == "exp":
        return complex(INF, NAN) if x == INF else complex(NAN, NAN)
    if name == "tanh":
        return complex(NAN, NAN)
    if math.isinf(x):
        return complex(INF, NAN)
    if x == 0:
        return complex(NAN, 0.0) if name == "cosh" else complex(0.0, NAN)
    return complex(NAN, NAN)


def _reference(fn, *args):
    """CPython's result, or the value it computes before raising ValueError; None on OverflowError."""
    try:
        return complex(getattr(cmath, fn)(*args))
    except ValueError:
        if fn == "rect":                 # rect(r, +-inf) with r nonzero and not NaN
            r = args[0]
            return complex(INF, NAN) if math.isinf(r) else complex(NAN, NAN)
        return _value_before_raising(fn, *args)
    except OverflowError:
        return None


def _part_agrees(got, exp, scale, dtype):
    ulps, eps, tiny = PRECISION[dtype]
    if math.isnan(exp):
        return math.isnan(got)
    if math.isinf(exp) or exp == 0:
        return got == exp and math.copysign(1, got) == math.copysign(1, exp)
    return abs(got - exp) <= ulps * eps * scale + tiny


def _mismatches(got, inputs, refs, dtype, label):
    """Rows whose result differs from the reference: each part NaN where it is NaN, the same infinity, the same
    signed zero; finite parts within ulps of the larger finite part. A complex64 reference is CPython's double
    result rounded to float32 (exact zeros stay exact: the sign of a zero is compared on the double result)."""
    bad = []
    for z, g, exp in zip(inputs, got, refs):
        if exp is None:
            continue
        g = complex(g)
        if dtype is np.complex64:
            with np.errstate(over="ignore"):
                rounded = complex(float(np.float32(exp.real)), float(np.float32(exp.imag)))
            # keep a double zero's sign and a double result's finite part where float32 rounds it to zero
            exp = complex(exp.real if rounded.real == 0 else rounded.real,
                          exp.imag if rounded.imag == 0 else rounded.imag)
        scale = max([abs(p) for p in (exp.real, exp.imag) if math.isfinite(p)], default=0.0)
        if not (_part_agrees(g.real, exp.real, scale, dtype) and _part_agrees(g.imag, exp.imag, scale, dtype)):
            bad.append(f"{label}({z!r}) = {g!r}, CPython {exp!r}")
    return bad


def _run_every(kernel, values, dtype):
    z = np.array(values, dtype)
    out = np.zeros((z.size, len(FUNCS)), dtype)
    kernel[(z.size + 63) // 64, 64](z, out)
    return z, out


def _check_every(values, dtype):
    z, out = _run_every(every_cmath, values, dtype)
    inputs = [complex(v) for v in z]           # the argument as the kernel saw it (rounded to complex64)
    bad, checked = [], 0
    for k, name in enumerate(FUNCS):
        refs = [_reference(name, v) for v in inputs]
        checked += sum(r is not None for r in refs)
        bad += _mismatches(out[:, k], inputs, refs, dtype, f"cmath.{name}")
    return bad, checked


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_cmath_at_every_special_value(backend, dtype):
    """All 121 combinations of -inf, finite, -0, +0, inf and nan parts through all 16 functions."""
    bad, checked = _check_every(SPECIAL, dtype)
    assert checked == len(SPECIAL) * len(FUNCS)
    assert not bad, "\n".join(bad[:40])


def _magnitudes(dtype):
    """Finite arguments where a naive formula overflows, underflows or loses bits: hypot overflowing or subnormal,
    exp(x) overflowing where exp(z) does not, y * y underflowing in atanh near 1, |z| near 1 in log."""
    if dtype is np.complex128:
        big, huge, sub, tiny, edge = 1e300, 1.5e308, 3e-310, 1e-300, 709.9
        over = [709.5, 710.0, 710.3, 711.0, 800.0]
        small_y = 1e-170
    else:
        big, huge, sub, tiny, edge = 1e30, 3e38, 3e-41, 1e-30, 88.5
        over = [87.5, 88.5, 89.0, 89.5, 100.0]
        small_y = 1e-21
    vals = []
    for a, b in [(big, big), (huge, huge), (huge, -1.0), (-huge, 0.5), (0.0, huge), (-big, -0.0), (sub, sub),
                 (sub, -2 * sub), (-sub, 0.0), (tiny, tiny), (tiny, -big), (1.0, small_y), (1.0, -small_y),
                 (-1.0, small_y), (small_y, 1.0), (0.6, 0.8), (0.8, -0.6), (-0.71, 0.7), (1.2, 0.9),
                 (edge, 0.3), (-edge, 2.0)]:
        vals.append(complex(a, b))
    for x in over:                       # large real parts with imaginary parts of every quadrant
        for y in (0.0, -0.0, 1.5, -2.0, 3.0, -1.4, tiny):
            vals += [complex(x, y), complex(-x, y), complex(y, x), complex(y, -x)]
    return vals


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_cmath_at_huge_and_tiny_magnitudes(backend, dtype):
    values = _magnitudes(dtype)
    bad, checked = _check_every(values, dtype)
    assert checked > len(values) * len(FUNCS) // 2     # most have a result CPython does not refuse
    assert not bad, "\n".join(bad[:40])


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_cmath_at_random_values(backend, rng, dtype):
    n = 400
    mag = np.exp(rng.uniform(-8, 4, n))          # 3e-4 .. 55: both sides of 1, far from overflow
    values = list(mag * np.exp(1j * rng.uniform(-np.pi, np.pi, n)))
    values += list(rng.normal(0, 2, 64) + 1j * rng.normal(0, 2, 64))
    bad, checked = _check_every(values, dtype)
    assert checked == len(values) * len(FUNCS)
    assert not bad, "\n".join(bad[:40])


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_polar_phase_abs_and_predicates_at_special_values(backend, dtype):
    real = np.float64 if dtype is np.complex128 else np.float32
    z = np.array(SPECIAL, dtype)
    out = np.zeros((z.size, 4), real)
    flags = np.zeros((z.size, 3), np.bool_)
    polar_kernel[(z.size + 63) // 64, 64](z, out, flags)
    for k, v in enumerate(complex(w) for w in z):
        r, phi = cmath.polar(v)
        for got, exp in zip(out[k], (r, phi, cmath.phase(v), abs(v))):
            assert _part_agrees(float(got), float(real(exp)), abs(float(real(exp))), dtype), (v, out[k])
        assert list(flags[k]) == [cmath.isnan(v), cmath.isinf(v), cmath.isfinite(v)], v


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_rect_at_special_values(backend, rng, dtype):
    real = np.float64 if dtype is np.complex128 else np.float32
    pairs = list(itertools.product(PARTS, PARTS)) + [tuple(p) for p in rng.uniform(-10, 10, (64, 2))]
    r = np.array([p[0] for p in pairs], real)
    phi = np.array([p[1] for p in pairs], real)
    out = np.zeros(r.size, dtype)
    rect_kernel[(r.size + 63) // 64, 64](r, phi, out)
    inputs = [(float(a), float(b)) for a, b in zip(r, phi)]
    refs = [_reference("rect", a, b) for a, b in inputs]
    assert all(ref is not None for ref in refs)
    bad = _mismatches(out, inputs, refs, dtype, "cmath.rect")
    assert not bad, "\n".join(bad[:40])


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_log_with_a_base_is_cpythons_quotient(backend, rng, dtype):
    """log(z) / log(base) as CPython computes it (each logarithm with log1p near |z| = 1), so that on the CPU in
    complex128 even the small part of the quotient is within a few ulps of CPython's. complex64 (computed in float
    as Numba does), and the GPU (CUDA's log1p and atan2 are not glibc's, and NVRTC fuses products into FMAs), are
    held to ulps of the modulus, numba's own rule for complex results; special values through the same division."""
    parts = [0.0, 1.0, -1.0, -math.pi, math.pi, -INF, INF, NAN]
    grid = [complex(x, y) for x, y in itertools.product(parts, parts)]
    pairs = list(itertools.product(grid, grid))
    pairs += list(zip(rng.normal(0, 3, 200) + 1j * rng.normal(0, 3, 200),
                      rng.normal(0, 3, 200) + 1j * rng.normal(0, 3, 200)))
    z = np.array([p[0] for p in pairs], dtype)
    base = np.array([p[1] for p in pairs], dtype)
    out = np.zeros(z.size, dtype)
    log_base_kernel[(z.size + 255) // 256, 256](z, base, out)
    ulps, eps, tiny = PRECISION[dtype]
    bad, checked = [], 0
    for a, b, g in zip(z.tolist(), base.tolist(), out.tolist()):
        try:
            exp = cmath.log(a, b)
        except (ValueError, ZeroDivisionError):   # log(0) or base 1: CPython raises, no value to compare
            continue
        checked += 1
        per_part = dtype is np.complex128 and backend == "cpu"
        modulus = abs(exp) if not per_part and math.isfinite(abs(exp)) else 0.0
        for gp, ep in ((g.real, exp.real), (g.imag, exp.imag)):
            if math.isnan(ep) or math.isinf(ep) or (ep == 0 and per_part):
                ok = math.isnan(gp) if math.isnan(ep) else gp == ep
            else:   # complex128 on the CPU: each part relative to itself; otherwise to the modulus
                ok = abs(gp - ep) <= ulps * eps * max(abs(ep), modulus) + tiny
            if not ok:
                bad.append(f"log({a!r}, {b!r}) = {g!r}, CPython {exp!r}")
                break
    assert checked > len(pairs) // 2
    assert not bad, "\n".join(bad[:40])


def _same_bits(a, b):
    """Equal arrays, NaN where NaN (any payload), zeros with the same sign."""
    a, b = np.asarray(a), np.asarray(b)
    both = [(a.real, b.real), (a.imag, b.imag)]
    return all(np.array_equal(np.isnan(x), np.isnan(y)) and
               np.array_equal(np.where(np.isnan(x), 0, x), np.where(np.isnan(y), 0, y)) and
               np.array_equal(np.signbit(x) | np.isnan(x), np.signbit(y) | np.isnan(y)) for x, y in both)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_numpy_ufuncs_in_kernels_are_the_cmath_functions(backend, rng, dtype):
    """np.exp(z) & co. in a kernel give cmath's results bit for bit, specials included."""
    values = SPECIAL + list(rng.normal(0, 2, 64) + 1j * rng.normal(0, 2, 64))
    _, via_cmath = _run_every(every_cmath, values, dtype)
    _, via_numpy = _run_every(every_ufunc, values, dtype)
    for k, name in enumerate(FUNCS):
        assert _same_bits(via_numpy[:, k], via_cmath[:, k]), name


# cuda.vectorize ufuncs compared with NumPy's own ufunc where NumPy agrees with CPython
# (NumPy follows C99 too, but picks other signs where Annex G leaves them unspecified).
COMPLEX_SIGS = ["complex128(complex128)", "complex64(complex64)"]


@cuda.vectorize(COMPLEX_SIGS)
def vexp(z):
    return np.exp(z)


@cuda.vectorize(COMPLEX_SIGS)
def vsin(z):
    return np.sin(z)


@cuda.vectorize(COMPLEX_SIGS)
def vcosh(z):
    return np.cosh(z)


@cuda.vectorize(COMPLEX_SIGS)
def vtanh(z):
    return np.tanh(z)


@cuda.vectorize(COMPLEX_SIGS)
def vsqrt(z):
    return np.sqrt(z)


@cuda.vectorize(COMPLEX_SIGS)
def vlog(z):
    return np.log(z)


@cuda.vectorize(COMPLEX_SIGS)
def varctanh(z):
    return np.arctanh(z)


VECTORIZED = {"exp": (vexp, np.exp), "sin": (vsin, np.sin), "cosh": (vcosh, np.cosh), "tanh": (vtanh, np.tanh),
              "sqrt": (vsqrt, np.sqrt), "log": (vlog, np.log), "atanh": (varctanh, np.arctanh)}


@pytest.mark.parametrize("name", sorted(VECTORIZED))
def test_vectorize_agrees_with_numpy_at_special_values(backend, name):
    gpu_ufunc, np_ufunc = VECTORIZED[name]
    for dtype in (np.complex128, np.complex64):
        z = np.array(SPECIAL, dtype)
        got = gpu_ufunc(z)
        assert got.dtype == dtype
        _, via_cmath = _run_every(every_cmath, SPECIAL, dtype)
        assert _same_bits(got, via_cmath[:, FUNCS.index(name)]), name
        with np.errstate(all="ignore"):
            expected = np_ufunc(z)
        inputs = [complex(v) for v in z]
        refs = [_reference(name, v) for v in inputs]
        agree = [k for k in range(z.size) if not _mismatches(expected[k:k + 1], inputs[k:k + 1], refs[k:k + 1],
                                                               dtype, name)]
        assert len(agree) > z.size * 3 // 4
        bad = _mismatches(got[agree], [inputs[k] for k in agree], [complex(expected[k]) for k in agree], dtype,
                          f"vectorized np.{np_ufunc.__name__}")
        assert not bad, "\n".join(bad)

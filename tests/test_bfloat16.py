"""bfloat16 in kernels (numba.cuda.bf16): conversions in every rounding mode bit for bit against an exact model and
ml_dtypes, arithmetic against float32 computed and rounded once, fma against exact sums, CUDA's saturating integer
conversions, comparisons, NaN and inf rules, typing, host arguments (ml_dtypes arrays and scalars) and errors."""
import math
import struct
from fractions import Fraction

import numpy as np
import pytest

from cudajit import cuda, float16, float32, int8, int16, int32, int64, uint8, uint16, uint32, uint64
from cudajit.cuda import bf16
from cudajit.cuda.bf16 import (bfloat16, bfloat16_as_int16, bfloat16_as_uint16, bfloat16_to_float32,
                               float32_to_bfloat16, float32_to_bfloat16_rd, float32_to_bfloat16_rn,
                               float32_to_bfloat16_ru, float32_to_bfloat16_rz, float64_to_bfloat16, habs, hadd,
                               hadd_rn, hadd_sat, hceil, hdiv, hequ, heq, hexp10, hfloor, hfma, hfma_relu, hfma_sat,
                               hge, hgeu, hgt, hgtu, hisinf, hisnan, hle, hleu, hlt, hltu, hmax, hmax_nan, hmin,
                               hmin_nan, hmul, hmul_rn, hmul_sat, hne, hneg, hneu, hrcp, hrint, hrsqrt, hsqrt, hsub,
                               hsub_rn, hsub_sat, htanh, htrunc, int16_as_bfloat16, uint16_as_bfloat16)

ml_dtypes = pytest.importorskip("ml_dtypes")
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")  # NaN to bf16
BF = ml_dtypes.bfloat16
MODES = ("rn", "rz", "rd", "ru")
QNAN = 0x7FFF                   # CUDA's canonical NaN, what every NaN result is


# ---- the exact model: a number rounded once to bfloat16 in a mode (IEEE 754), from its exact value ----
def exact_bits(x, mode):
    x = Fraction(x)
    neg = x < 0
    sign = 0x8000 if neg else 0
    a = -x if neg else x
    if a == 0:
        return sign
    e = a.numerator.bit_length() - a.denominator.bit_length()
    e += (Fraction(2) ** (e + 1) <= a) - (Fraction(2) ** e > a)
    q = max(e, -126) - 7                     # the weight of bfloat16's last bit there
    scaled = a / Fraction(2) ** q
    kept, rest = math.floor(scaled), scaled - math.floor(scaled)
    up = {"rn": rest > Fraction(1, 2) or (rest == Fraction(1, 2) and kept % 2 == 1), "rz": False,
          "rd": neg and rest != 0, "ru": not neg and rest != 0}[mode]
    bits = ((q + 133) << 7) + kept + up
    if bits >= 0x7F80:
        to_inf = mode == "rn" or (mode == "rd" and neg) or (mode == "ru" and not neg)
        return sign | (0x7F80 if to_inf else 0x7F7F)
    return sign | bits


def float_bits(x, mode):
    """exact_bits for a float (inf and nan too)."""
    if math.isnan(x):
        return QNAN
    if math.isinf(x):
        return 0xFF80 if x < 0 else 0x7F80
    if x == 0:
        return 0x8000 if math.copysign(1, x) < 0 else 0
    return exact_bits(Fraction(x), mode)


def as_bf16(bits):
    return np.asarray(bits, np.uint16).view(BF)


def bf_fraction(b):
    return Fraction(float(as_bf16([b])[0]))


def assert_bits(got, want, what):
    """Equal bit patterns, except that any NaN equals any NaN (ml_dtypes keeps payloads CUDA drops)."""
    got, want = np.asarray(got, np.uint16), np.asarray(want, np.uint16)
    nan_g, nan_w = (got & 0x7FFF) > 0x7F80, (want & 0x7FFF) > 0x7F80
    bad = np.nonzero((got != want) & ~(nan_g & nan_w))[0]
    assert bad.size == 0, f"{what}: {bad.size} differ, e.g. index {bad[0]}: got {got[bad[0]]:#06x}, " \
                          f"want {want[bad[0]]:#06x}"


def random_float32(rng, n):
    """Random bit patterns (every exponent, subnormals, inf, nan), and values exactly on and next to bfloat16
    midpoints and representable values, both signs."""
    raw = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    near = (rng.integers(0, 2**16, n).astype(np.uint32) << 16) + rng.choice(
        np.array([0, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF], np.uint32), n)
    return np.concatenate([raw, near]).view(np.float32)


# ---- conversions to bfloat16 ----
@cuda.jit
def from_float32(a, out, stored):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = bfloat16_as_uint16(float32_to_bfloat16_rn(a[i]))
        out[i, 1] = bfloat16_as_uint16(float32_to_bfloat16_rz(a[i]))
        out[i, 2] = bfloat16_as_uint16(float32_to_bfloat16_rd(a[i]))
        out[i, 3] = bfloat16_as_uint16(float32_to_bfloat16_ru(a[i]))
        out[i, 4] = bfloat16_as_uint16(float32_to_bfloat16(a[i]))
        out[i, 5] = bfloat16_as_uint16(bfloat16(a[i]))
        stored[i] = a[i]                      # a store into a bfloat16 array converts too


def test_float32_to_bfloat16_every_mode(backend, rng):
    a = random_float32(rng, 20000)
    out = np.zeros((a.size, 6), np.uint16)
    stored = np.zeros(a.size, BF)
    from_float32[(a.size + 255) // 256, 256](a, out, stored)
    for k, mode in enumerate(MODES):
        assert_bits(out[:, k], [float_bits(float(x), mode) for x in a], f"float32 -> bfloat16 {mode}")
    with np.errstate(over="ignore", invalid="ignore"):
        ml = a.astype(BF).view(np.uint16)     # ml_dtypes rounds to nearest even from float32 too
    for k, what in ((0, "_rn"), (4, "float32_to_bfloat16"), (5, "bfloat16(x)")):
        assert_bits(out[:, k], ml, what)
    assert_bits(stored.view(np.uint16), ml, "store into a bfloat16 array")
    nan_out = out[np.isnan(a)]
    assert nan_out.size and (nan_out == QNAN).all()          # CUDA's canonical NaN, in every mode


@cuda.jit
def from_float64(a, out, stored):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = bfloat16_as_uint16(bfloat16(a[i]))
        out[i, 1] = bfloat16_as_uint16(float64_to_bfloat16(a[i]))
        stored[i] = a[i]


def test_float64_rounds_once(backend, rng):
    n = 6000
    wide = rng.standard_normal(n) * np.exp2(rng.integers(-140, 130, n))
    # on a bfloat16 midpoint of float32, plus a little: rounding through float32 first would tie (to even)
    mids = (rng.integers(0, 0x7F80, n).astype(np.uint32) << 16 | 0x8000).view(np.float32).astype(np.float64)
    a = np.concatenate([wide, mids * (1 + 2.0 ** -40), mids * (1 - 2.0 ** -40), [np.inf, -np.inf, np.nan, 0.0, -0.0,
                                                                                 1e300, -1e-300]])
    out = np.zeros((a.size, 2), np.uint16)
    stored = np.zeros(a.size, BF)
    from_float64[(a.size + 255) // 256, 256](a, out, stored)
    want = [float_bits(float(x), "rn") for x in a]
    assert_bits(out[:, 0], want, "bfloat16(float64)")
    assert_bits(out[:, 1], want, "float64_to_bfloat16")
    assert_bits(stored.view(np.uint16), want, "float64 stored into a bfloat16 array")
    # one case where rounding through float32 rounds twice (to a tie, then to even: 1.0), as ml_dtypes before 0.7
    # did; CUDA's __double2bfloat16 rounds once
    x = 1 + 2.0 ** -8 + 2.0 ** -40
    assert float(np.float32(x)) == 1 + 2.0 ** -8                       # the tie that double rounding meets
    one = np.zeros((1, 2), np.uint16)
    from_float64[1, 1](np.array([x]), one, np.zeros(1, BF))
    assert one[0, 0] == exact_bits(Fraction(x), "rn") == 0x3F81       # 1 + 2**-7: the exact value's nearest


def _int_kernel(rn, rz, rd, ru):
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i, 0] = bfloat16_as_uint16(rn(a[i]))
            out[i, 1] = bfloat16_as_uint16(rz(a[i]))
            out[i, 2] = bfloat16_as_uint16(rd(a[i]))
            out[i, 3] = bfloat16_as_uint16(ru(a[i]))
            out[i, 4] = bfloat16_as_uint16(bfloat16(a[i]))      # the constructor rounds to nearest
    return k


_FROM_INT = {t: _int_kernel(*(getattr(bf16, f"{t}_to_bfloat16_{m}") for m in MODES))
             for t in ("int16", "uint16", "int32", "uint32", "int64", "uint64")}


@pytest.mark.parametrize("tname", list(_FROM_INT))
def test_integer_to_bfloat16_every_mode(backend, rng, tname):
    dt = np.dtype(tname)
    info = np.iinfo(dt)
    n = 3000
    big = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    scaled = big >> rng.integers(0, dt.itemsize * 8, n).astype(dt)     # every magnitude
    edges = np.array([info.min, info.max, 0, 1, 255, 256, 257, 383, 384, 385], dtype=dt)
    negated = np.array([min(max(-int(e), int(info.min)), int(info.max)) for e in edges], dt)
    a = np.concatenate([big, scaled, edges, negated])
    if dt.itemsize == 8:
        # between two bfloat16 values, just above a midpoint by less than float32's precision: a conversion
        # through float32 rounds to the midpoint, then to even (ml_dtypes does: 2**24 + 2**16 + 1 -> 2**24)
        a = np.concatenate([a, np.array([2**24 + 2**16 + 1, 2**62 + 2**54 + 1], dt)])
    out = np.zeros((a.size, 5), np.uint16)
    _FROM_INT[tname][(a.size + 255) // 256, 256](a, out)
    for k, mode in enumerate(MODES):
        assert_bits(out[:, k], [exact_bits(int(x), mode) for x in a], f"{tname} -> bfloat16 {mode}")
    assert_bits(out[:, 4], out[:, 0], f"bfloat16({tname})")
    exact_in_float32 = np.abs(a.astype(np.float64)) <= 2**24        # where ml_dtypes (via float32) is exact too
    assert_bits(out[exact_in_float32, 0], a[exact_in_float32].astype(BF).view(np.uint16), "vs ml_dtypes")


@cuda.jit
def from_small_types(i8, u8, h, out):
    i = cuda.grid(1)
    if i < i8.size:
        out[i, 0] = bfloat16_as_uint16(bfloat16(i8[i]))
        out[i, 1] = bfloat16_as_uint16(bfloat16(u8[i]))
        out[i, 2] = bfloat16_as_uint16(bfloat16(h[i]))               # float16 -> bfloat16
        out[i, 3] = bfloat16_as_uint16(bfloat16(i8[i] > 0))          # bool -> 1 or 0
        h[i] = float16(bfloat16(h[i]))                                 # and back, rounded to half


def test_int8_uint8_float16_bool_to_bfloat16(backend, rng):
    i8 = np.arange(-128, 128, dtype=np.int8)
    u8 = np.arange(256, dtype=np.uint8)
    h = (rng.standard_normal(256) * 100).astype(np.float16)
    h[:4] = [np.inf, -np.inf, np.nan, 6e-8]
    h0 = h.copy()
    out = np.zeros((256, 4), np.uint16)
    from_small_types[1, 256](i8, u8, h, out)
    assert_bits(out[:, 0], i8.astype(BF).view(np.uint16), "int8")
    assert_bits(out[:, 1], u8.astype(BF).view(np.uint16), "uint8")
    want_h = h0.astype(np.float32).astype(BF)                       # a half is exact in float32
    assert_bits(out[:, 2], want_h.view(np.uint16), "float16")
    assert_bits(out[:, 3], (i8 > 0).astype(np.float32).astype(BF).view(np.uint16), "bool")
    np.testing.assert_array_equal(h, want_h.astype(np.float32).astype(np.float16))


# ---- conversions from bfloat16 ----
def _to_int_kernel(rn, rz, rd, ru, plain):
    @cuda.jit
    def k(bits, out):
        i = cuda.grid(1)
        if i < bits.size:
            x = uint16_as_bfloat16(bits[i])
            out[i, 0] = rn(x)
            out[i, 1] = rz(x)
            out[i, 2] = rd(x)
            out[i, 3] = ru(x)
            out[i, 4] = plain(x)
    return k


def _to_int8_kernel(rz, plain):
    @cuda.jit
    def k(bits, out):
        i = cuda.grid(1)
        if i < bits.size:
            x = uint16_as_bfloat16(bits[i])
            out[i, 0] = rz(x)
            out[i, 1] = plain(x)
    return k


def _to_int_case(tname, typ):
    """(modes, kernel) converting every bfloat16 to ``tname`` in each of its modes, then with ``typ(x)``."""
    modes = ("rz",) if tname in ("int8", "uint8") else MODES

    @cuda.jit(device=True)
    def plain(x):                              # the conversion int32(x): toward zero, as CUDA's operator int
        return typ(x)
    fns = [getattr(bf16, f"bfloat16_to_{tname}_{m}") for m in modes]
    return modes, (_to_int8_kernel if len(modes) == 1 else _to_int_kernel)(*fns, plain)


def _python_to_int(v, mode, dt):
    """CUDA's __bfloat162int_rn & co: rounded in mode, saturated to the type; NaN gives 0, or 0x8000000000000000
    for 64-bit types."""
    info = np.iinfo(dt)
    if math.isnan(v):
        return (1 << 63) if dt.itemsize == 8 and dt.kind == "u" else (info.min if dt.itemsize == 8 else 0)
    if math.isinf(v):
        return info.max if v > 0 else info.min
    f = Fraction(v)
    r = {"rn": round(f), "rz": math.trunc(f), "rd": math.floor(f), "ru": math.ceil(f)}[mode]
    return min(max(r, info.min), info.max)


@pytest.mark.parametrize("tname", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"])
def test_bfloat16_to_integer_every_value(backend, tname):
    import cudajit
    dt = np.dtype(tname)
    if tname not in _TO_INT_KERNELS:
        _TO_INT_KERNELS[tname] = _to_int_case(tname, getattr(cudajit, tname))
    modes, kernel = _TO_INT_KERNELS[tname]
    bits = np.arange(65536, dtype=np.uint16)
    out = np.zeros((bits.size, len(modes) + 1), dt)
    kernel[256, 256](bits, out)
    values = as_bf16(bits).astype(np.float64)
    for k, mode in enumerate(modes + ("rz",)):
        want = np.array([_python_to_int(float(v), mode, dt) for v in values], dtype=dt)
        bad = np.nonzero(out[:, k] != want)[0]
        what = f"bfloat16_to_{tname}_{mode}" if k < len(modes) else f"{tname}(x)"
        assert bad.size == 0, f"{what}: {bad.size} differ, e.g. {values[bad[0]]} -> {out[bad[0], k]}, want {want[bad[0]]}"


_TO_INT_KERNELS = {}


@cuda.jit
def to_floats(bits, f32, f64, f16):
    i = cuda.grid(1)
    if i < bits.size:
        x = uint16_as_bfloat16(bits[i])
        f32[i, 0] = bfloat16_to_float32(x)
        f32[i, 1] = float32(x)
        f64[i] = x
        f16[i] = float16(x)


def test_bfloat16_to_floats_every_value(backend):
    bits = np.arange(65536, dtype=np.uint16)
    f32 = np.zeros((bits.size, 2), np.float32)
    f64 = np.zeros(bits.size)
    f16 = np.zeros(bits.size, np.float16)
    to_floats[256, 256](bits, f32, f64, f16)
    want = as_bf16(bits).astype(np.float32)
    for k in range(2):
        np.testing.assert_array_equal(f32[:, k].view(np.uint32), want.view(np.uint32))   # exact, NaN bits too
    np.testing.assert_array_equal(f64, want.astype(np.float64))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(f16, want.astype(np.float16))


@cuda.jit
def bit_casts(i2, u2, out_i, out_u):
    i = cuda.grid(1)
    if i < i2.size:
        out_i[i] = bfloat16_as_int16(int16_as_bfloat16(i2[i]))
        out_u[i] = bfloat16_as_uint16(uint16_as_bfloat16(u2[i]))


def test_bit_casts_round_trip(backend):
    u2 = np.arange(65536, dtype=np.uint16)
    i2 = u2.view(np.int16)
    out_i, out_u = np.zeros_like(i2), np.zeros_like(u2)
    bit_casts[256, 256](i2, u2, out_i, out_u)
    np.testing.assert_array_equal(out_i, i2)          # NaN payloads too: no conversion happens
    np.testing.assert_array_equal(out_u, u2)


# ---- arithmetic ----
def random_bits(rng, n):
    """bfloat16 bit patterns: random, plus zeros, infinities, NaN, subnormals and the largest values."""
    specials = np.array([0, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFFF, 1, 0x8001, 0x7F, 0x80, 0x7F7F, 0xFF7F,
                         0x3F80, 0xBF80, 0x4000], np.uint16)
    moderate = (rng.standard_normal(n) * 8).astype(np.float32).astype(BF).view(np.uint16)
    return np.concatenate([rng.integers(0, 2**16, n).astype(np.uint16), moderate, np.repeat(specials, 20)])


@cuda.jit
def arith(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x = uint16_as_bfloat16(a[i])
        y = uint16_as_bfloat16(b[i])
        out[i, 0] = bfloat16_as_uint16(x + y)
        out[i, 1] = bfloat16_as_uint16(x - y)
        out[i, 2] = bfloat16_as_uint16(x * y)
        out[i, 3] = bfloat16_as_uint16(x / y)
        out[i, 4] = bfloat16_as_uint16(hadd(x, y))
        out[i, 5] = bfloat16_as_uint16(hsub(x, y))
        out[i, 6] = bfloat16_as_uint16(hmul(x, y))
        out[i, 7] = bfloat16_as_uint16(hdiv(x, y))
        out[i, 8] = bfloat16_as_uint16(hadd_rn(x, y))
        out[i, 9] = bfloat16_as_uint16(hsub_rn(x, y))
        out[i, 10] = bfloat16_as_uint16(hmul_rn(x, y))
        z = x
        z += y
        z *= y
        z -= x
        z /= y
        out[i, 11] = bfloat16_as_uint16(z)
        out[i, 12] = bfloat16_as_uint16(-x)
        out[i, 13] = bfloat16_as_uint16(hneg(x))
        out[i, 14] = bfloat16_as_uint16(habs(x))
        out[i, 15] = bfloat16_as_uint16(math.sqrt(habs(x)))
        out[i, 16] = bfloat16_as_uint16(hsqrt(x))
        out[i, 17] = bfloat16_as_uint16(math.floor(x))
        out[i, 18] = bfloat16_as_uint16(math.ceil(x))
        out[i, 19] = bfloat16_as_uint16(math.trunc(x))
        out[i, 20] = bfloat16_as_uint16(hrint(x))
        out[i, 21] = bfloat16_as_uint16(hfloor(x) + hceil(y) - htrunc(x))


def test_arithmetic_is_float_rounded_once(backend, rng):
    a = random_bits(rng, 4000)
    b = rng.permutation(a)
    out = np.zeros((a.size, 22), np.uint16)
    arith[(a.size + 255) // 256, 256](a, b, out)
    x, y = as_bf16(a).astype(np.float32), as_bf16(b).astype(np.float32)

    def rounded(v):                                  # ml_dtypes: float32 -> bfloat16 to nearest even, once
        return np.asarray(v, np.float32).astype(BF).view(np.uint16)
    with np.errstate(all="ignore"):
        add, sub, mul, div = rounded(x + y), rounded(x - y), rounded(x * y), rounded(x / y)
        for k, want in enumerate([add, sub, mul, div, add, sub, mul, div, add, sub, mul]):
            assert_bits(out[:, k], want, f"operation {k}")
        z = as_bf16(add).astype(np.float32)
        z = as_bf16(rounded(z * y)).astype(np.float32)
        z = as_bf16(rounded(z - x)).astype(np.float32)
        assert_bits(out[:, 11], rounded(z / y), "+= *= -= /=")
        assert_bits(out[:, 12], a ^ 0x8000, "-x")                    # the sign flips, NaN included
        assert_bits(out[:, 13], a ^ 0x8000, "hneg")
        assert_bits(out[:, 14], a & 0x7FFF, "habs")
        assert_bits(out[:, 15], rounded(np.sqrt(np.abs(x))), "math.sqrt")
        assert_bits(out[:, 16], rounded(np.sqrt(x)), "hsqrt")
        for k, f in ((17, np.floor), (18, np.ceil), (19, np.trunc), (20, np.rint)):
            assert_bits(out[:, k], rounded(f(x)), f.__name__)
        fl, ce, tr = (as_bf16(rounded(f(v))).astype(np.float32) for f, v in ((np.floor, x), (np.ceil, y), (np.trunc, x)))
        assert_bits(out[:, 21], rounded(as_bf16(rounded(fl + ce)).astype(np.float32) - tr), "hfloor + hceil - htrunc")


@cuda.jit
def fused(a, b, c, out):
    i = cuda.grid(1)
    if i < a.size:
        x, y, z = uint16_as_bfloat16(a[i]), uint16_as_bfloat16(b[i]), uint16_as_bfloat16(c[i])
        out[i, 0] = bfloat16_as_uint16(hfma(x, y, z))
        out[i, 1] = bfloat16_as_uint16(hfma_sat(x, y, z))
        out[i, 2] = bfloat16_as_uint16(hfma_relu(x, y, z))


def _fma_exact(a, b, c):
    va, vb, vc = (float(as_bf16([v])[0]) for v in (a, b, c))
    if not all(math.isfinite(v) for v in (va, vb, vc)):
        r = va * vb + vc                                 # inf and nan: float arithmetic is exact about them
        return float_bits(r, "rn")
    s = Fraction(va) * Fraction(vb) + Fraction(vc)
    if s == 0:
        both_neg_zero = va * vb == 0 and vc == 0 and math.copysign(1, va * vb) < 0 and math.copysign(1, vc) < 0
        return 0x8000 if both_neg_zero else 0
    return exact_bits(s, "rn")


def test_fma_rounds_once(backend, rng):
    a = random_bits(rng, 3000)
    b = rng.permutation(a)
    c = rng.permutation(a)
    # c near -(a * b): cancellation; and c tiny against a * b on a midpoint (9 * 29 = 261, between 260 and 262)
    prod = as_bf16(a).astype(np.float64) * as_bf16(b).astype(np.float64)
    with np.errstate(all="ignore"):
        near = (-prod * rng.choice([1, 1 + 2.0 ** -8, 1 - 2.0 ** -9], prod.size)).astype(np.float32).astype(BF)
    c[: a.size // 3] = near.view(np.uint16)[: a.size // 3]
    mid = np.array([BF(9.0), BF(29.0), BF(2.0 ** -100)]).view(np.uint16)
    a, b, c = (np.concatenate([v, [m, m]]).astype(np.uint16) for v, m in zip((a, b, c), mid))
    c[-1] ^= 0x8000
    out = np.zeros((a.size, 3), np.uint16)
    fused[(a.size + 255) // 256, 256](a, b, c, out)
    want = np.array([_fma_exact(*t) for t in zip(a, b, c)], np.uint16)
    assert_bits(out[:, 0], want, "hfma")
    assert as_bf16(out[-2:, 0]).astype(np.float64).tolist() == [262.0, 260.0]   # not ties: the tiny c decides
    w = as_bf16(want).astype(np.float32)
    sat = np.where(np.isnan(w) | ~(w > 0), 0, np.where(w > 1, 1, w)).astype(np.float32).astype(BF)
    assert_bits(out[:, 1], sat.view(np.uint16), "hfma_sat")
    relu = np.where((want & 0x7FFF) > 0x7F80, QNAN, np.where(want & 0x8000, 0, want)).astype(np.uint16)
    assert_bits(out[:, 2], relu, "hfma_relu")
    assert (out[(want & 0x7FFF) > 0x7F80, 2] == QNAN).all()


@cuda.jit
def saturating_and_extremes(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x, y = uint16_as_bfloat16(a[i]), uint16_as_bfloat16(b[i])
        out[i, 0] = bfloat16_as_uint16(hadd_sat(x, y))
        out[i, 1] = bfloat16_as_uint16(hsub_sat(x, y))
        out[i, 2] = bfloat16_as_uint16(hmul_sat(x, y))
        out[i, 3] = bfloat16_as_uint16(hmax(x, y))
        out[i, 4] = bfloat16_as_uint16(hmin(x, y))
        out[i, 5] = bfloat16_as_uint16(hmax_nan(x, y))
        out[i, 6] = bfloat16_as_uint16(hmin_nan(x, y))
        out[i, 7] = bfloat16_as_uint16(max(x, y))     # Python's builtin: fmax, a NaN operand is ignored


def test_saturation_max_min(backend, rng):
    a = random_bits(rng, 2000)
    b = rng.permutation(a)
    a = np.concatenate([a, [0, 0x8000, 0x7FC0, 0x7FC0]]).astype(np.uint16)   # +0 vs -0; NaN vs NaN
    b = np.concatenate([b, [0x8000, 0, 0x7FC1, 0x3F80]]).astype(np.uint16)
    out = np.zeros((a.size, 8), np.uint16)
    saturating_and_extremes[(a.size + 255) // 256, 256](a, b, out)
    x, y = as_bf16(a).astype(np.float32), as_bf16(b).astype(np.float32)

    def rounded(v):
        return np.asarray(v, np.float32).astype(BF).view(np.uint16)

    def sat(bits):
        v = as_bf16(bits).astype(np.float32)
        return rounded(np.where(np.isnan(v) | ~(v > 0), 0, np.minimum(v, 1)))
    with np.errstate(all="ignore"):
        assert_bits(out[:, 0], sat(rounded(x + y)), "hadd_sat")
        assert_bits(out[:, 1], sat(rounded(x - y)), "hsub_sat")
        assert_bits(out[:, 2], sat(rounded(x * y)), "hmul_sat")
    assert (out[:, :3] & 0x8000 == 0).all()                                 # never -0
    nx, ny = np.isnan(x), np.isnan(y)
    both_zero = (x == 0) & (y == 0)
    hi = np.where(nx, b, np.where(ny, a, np.where(both_zero, a & b, np.where(x > y, a, b))))
    lo = np.where(nx, b, np.where(ny, a, np.where(both_zero, a | b, np.where(x < y, a, b))))
    hi, lo = (np.where(nx & ny, QNAN, v).astype(np.uint16) for v in (hi, lo))
    assert_bits(out[:, 3], hi, "hmax")
    assert_bits(out[:, 4], lo, "hmin")
    assert_bits(out[:, 5], np.where(nx | ny, QNAN, hi).astype(np.uint16), "hmax_nan")
    assert_bits(out[:, 6], np.where(nx | ny, QNAN, lo).astype(np.uint16), "hmin_nan")
    assert out[-4, 3] == 0 and out[-4, 4] == 0x8000             # max(+0, -0) is +0, min is -0
    assert out[-1, 3] == 0x3F80 and out[-1, 5] == QNAN
    np.testing.assert_array_equal(as_bf16(out[:, 7]).astype(np.float32), np.fmax(x, y))


@cuda.jit
def compare(a, b, flags, inf):
    i = cuda.grid(1)
    if i < a.size:
        x, y = uint16_as_bfloat16(a[i]), uint16_as_bfloat16(b[i])
        flags[i, 0] = x == y
        flags[i, 1] = x != y
        flags[i, 2] = x < y
        flags[i, 3] = x <= y
        flags[i, 4] = x > y
        flags[i, 5] = x >= y
        flags[i, 6] = heq(x, y)
        flags[i, 7] = hne(x, y)
        flags[i, 8] = hlt(x, y)
        flags[i, 9] = hle(x, y)
        flags[i, 10] = hgt(x, y)
        flags[i, 11] = hge(x, y)
        flags[i, 12] = hequ(x, y)
        flags[i, 13] = hneu(x, y)
        flags[i, 14] = hltu(x, y)
        flags[i, 15] = hleu(x, y)
        flags[i, 16] = hgtu(x, y)
        flags[i, 17] = hgeu(x, y)
        flags[i, 18] = hisnan(x)
        flags[i, 19] = math.isnan(x)
        flags[i, 20] = math.isinf(x)
        flags[i, 21] = bool(x)
        flags[i, 22] = not x
        inf[i] = hisinf(x)


def test_comparisons_ordered_and_unordered(backend, rng):
    a = random_bits(rng, 2000)
    b = np.where(rng.random(a.size) < 0.2, a, rng.permutation(a)).astype(np.uint16)
    flags = np.zeros((a.size, 23), np.bool_)
    inf = np.zeros(a.size, np.int32)
    compare[(a.size + 255) // 256, 256](a, b, flags, inf)
    x, y = as_bf16(a).astype(np.float32), as_bf16(b).astype(np.float32)
    unordered = np.isnan(x) | np.isnan(y)
    ordered = [x == y, x != y, x < y, x <= y, x > y, x >= y]          # Python's: != is True with a NaN
    for k, want in enumerate(ordered):
        np.testing.assert_array_equal(flags[:, k], want, err_msg=f"operator {k}")
    for k, want in enumerate([x == y, (x != y) & ~unordered, x < y, x <= y, x > y, x >= y]):
        np.testing.assert_array_equal(flags[:, 6 + k], want, err_msg=f"ordered h* {k}")
    for k, want in enumerate([x == y, x != y, x < y, x <= y, x > y, x >= y]):
        np.testing.assert_array_equal(flags[:, 12 + k], want | unordered, err_msg=f"unordered h*u {k}")
    np.testing.assert_array_equal(flags[:, 18], np.isnan(x))
    np.testing.assert_array_equal(flags[:, 19], np.isnan(x))
    np.testing.assert_array_equal(flags[:, 20], np.isinf(x))
    np.testing.assert_array_equal(flags[:, 21], x != 0)              # NaN is true, as Python's bool(nan)
    np.testing.assert_array_equal(flags[:, 22], x == 0)
    np.testing.assert_array_equal(inf, np.where(np.isposinf(x), 1, np.where(np.isneginf(x), -1, 0)))


@cuda.jit
def transcendental(a, out):
    i = cuda.grid(1)
    if i < a.size:
        x = bfloat16(a[i])
        out[i, 0] = math.log(x)
        out[i, 1] = math.log10(x)
        out[i, 2] = bf16.hlog2(x)
        out[i, 3] = math.cos(x)
        out[i, 4] = math.sin(x)
        out[i, 5] = math.tanh(x)
        out[i, 6] = htanh(x)
        out[i, 7] = math.exp(x)
        out[i, 8] = math.exp2(x)
        out[i, 9] = hexp10(x)
        out[i, 10] = hrcp(x)
        out[i, 11] = hrsqrt(x)


def test_math_functions_within_rounding(backend, rng):
    a = np.abs(rng.standard_normal(2000) * 3).astype(np.float32).astype(BF)
    a = a[a > 0]
    out = np.zeros((a.size, 12), BF)
    transcendental[(a.size + 255) // 256, 256](a, out)
    x = a.astype(np.float64)
    want = [np.log(x), np.log10(x), np.log2(x), np.cos(x), np.sin(x), np.tanh(x), np.tanh(x), np.exp(x), np.exp2(x),
            10.0 ** x, 1 / x, 1 / np.sqrt(x)]
    got = out.astype(np.float64)
    for k, w in enumerate(want):
        # the float32 function's result rounded to bfloat16: within half a bfloat16 ulp and a float32 ulp or so
        np.testing.assert_allclose(got[:, k], w, rtol=2.0 ** -8 + 2.0 ** -20, atol=1e-38, err_msg=f"function {k}")


# ---- typing ----
@cuda.jit
def result_types(flags):
    x = bfloat16(1.5)
    flags[0] = isinstance(x + x, bfloat16)
    flags[1] = isinstance(x * int8(2), bfloat16)            # an 8-bit integer fits bfloat16: it stays bfloat16
    flags[2] = isinstance(x + uint8(2), bfloat16)
    flags[3] = isinstance(x + int16(2), float32)            # int16 and float16 do not: float32
    flags[4] = isinstance(x + float16(2), float32)
    flags[5] = isinstance(x + float32(2), float32)
    flags[6] = isinstance(x + int32(2), float)              # int32, int64, float64: float64
    flags[7] = isinstance(x / 2.0, float)
    flags[8] = isinstance(math.sqrt(x), bfloat16)          # numba-cuda's bf16 math overloads
    flags[9] = isinstance(math.log2(x), float32)           # not overloaded: bfloat16 converts to float32
    flags[10] = isinstance(-x, bfloat16)
    flags[11] = not isinstance(x, float)                    # not a float, as in numba-cuda (its own Number type)
    y = x if flags[0] else int8(3)                          # unified: bfloat16 with int8 stays bfloat16
    flags[12] = isinstance(y, bfloat16)
    z = x if flags[0] else int16(3)                         # with int16: float32
    flags[13] = isinstance(z, float32)
    flags[14] = isinstance(float64_to_bfloat16(2.5) + int64(1), float)


def test_result_types(backend):
    flags = np.zeros(15, np.bool_)
    result_types[1, 1](flags)
    assert flags.all(), np.nonzero(~flags)[0]


@cuda.jit(device=True)
def scale(v, s):
    return v * s + bfloat16(0.5)


@cuda.jit
def with_device_function(a, s, out, f):
    i = cuda.grid(1)
    tile = cuda.shared.array(64, bfloat16)
    loc = cuda.local.array(2, bfloat16)
    if i < a.size:
        loc[0] = a[i]
        tile[i] = scale(loc[0], s)
        cuda.syncthreads()
        out[i] = tile[a.size - 1 - i]
        f[i] = tile[i]


def test_arrays_scalars_device_functions(backend, rng):
    a = (rng.standard_normal(64) * 10).astype(BF)
    s = BF(1.75)
    out = np.zeros(64, BF)
    f = np.zeros(64, np.float32)
    with_device_function[1, 64](a, s, out, f)
    want = ((a.astype(np.float32) * np.float32(s)).astype(BF).astype(np.float32) + np.float32(0.5)).astype(BF)
    np.testing.assert_array_equal(f, want.astype(np.float32))
    np.testing.assert_array_equal(out.view(np.uint16), want[::-1].view(np.uint16))
    assert "bfloat16" in str(with_device_function.signatures[0])
    # device arrays: to_device, device_array(dtype=bfloat16) and back
    import cudajit
    d_out = cuda.device_array(64, dtype=cudajit.bfloat16)
    assert d_out.dtype == np.dtype(BF)
    with_device_function[1, 64](cuda.to_device(a), s, d_out, f)
    np.testing.assert_array_equal(d_out.copy_to_host().view(np.uint16), want[::-1].view(np.uint16))


@cuda.jit("void(bfloat16[::1], bfloat16)")
def eager(a, s):
    a[0] = a[0] * s


def test_eager_signature_takes_bfloat16_values_only(backend):
    a = np.array([3.0, 1.0], BF)
    eager[1, 1](a, BF(2.5))
    assert a[0] == BF(7.5)
    from cudajit.errors import TypingError
    with pytest.raises(TypingError, match="No matching definition"):
        eager[1, 1](a, 2.5)         # a bfloat16 parameter is launched as its bits: pass ml_dtypes.bfloat16


@cuda.jit
def constant_and_ml_dtypes_type(out):
    out[0] = HALF_PI * ml_dtypes.bfloat16(2)
    out[1] = bfloat16(3.14159)


HALF_PI = BF(1.5703125)


def test_globals_of_ml_dtypes(backend):
    out = np.zeros(2, np.float64)
    constant_and_ml_dtypes_type[1, 1](out)
    assert out[0] == 3.140625 and out[1] == float(BF(3.14159))


@cuda.jit
def printing(a):
    print("bf16", a[0], -a[1])


def test_print(backend, capfd):
    printing[1, 1](np.array([2.5, 1e10], BF))
    cuda.synchronize()
    if backend == "cpu":                       # the GPU's printf goes to the process's stdout too late to capture
        assert "bf16 2.500000 -9999220736.000000" in capfd.readouterr().out     # %f of the value, as numba-cuda


@cuda.jit
def bf16_saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def test_gpu_units_compile_with_nvrtc():
    # the GPU's units, the coarsened one (bfloat16 loads through __ldg) included, compile for sm_90
    from cudajit.compiler import CompileOptions, compile_kernel, types as T
    from cudajit.cuda import build
    A = T.Array(T.bfloat16, 1, "C")
    ks = compile_kernel(bf16_saxpy.py_func, (T.bfloat16, A, A, A), CompileOptions().for_backend("gpu"))
    name, read_only, unit = ks.coarse
    assert read_only == [1, 2] and "cj::ld_nc<cj_nc>(x_(i_))" in unit
    options = build.nvrtc_options(CompileOptions().for_backend("gpu"))
    try:
        ptx = build.nvrtc(unit, "k.cu", options, 90, False)
    except Exception as e:                     # no NVRTC on this machine
        pytest.skip(f"NVRTC is not usable here: {e}")
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    assert "ld.global.nc.u16" in ptx or "ld.global.nc.b16" in ptx
    build.nvrtc(ks.source, "k.cu", options, 90, False)


# ---- errors and the module surface ----
def test_unsupported_uses_name_the_line(backend):
    from cudajit.errors import TypingError

    @cuda.jit
    def atomic_on_bf16(a):
        cuda.atomic.add(a, 0, a[1])
    with pytest.raises(TypingError, match=r"test_bfloat16.py:\d+: cuda.atomic.add does not support arrays of bfloat16"):
        atomic_on_bf16[1, 1](np.ones(2, BF))

    @cuda.jit
    def complex_arg(out):
        out[0] = hadd(1j, bfloat16(1))
    with pytest.raises(TypingError, match=r"test_bfloat16.py:\d+: cuda.bf16.hadd\(\) takes real numbers"):
        complex_arg[1, 1](np.zeros(1, BF))

    frozen = np.ones(3, BF)

    @cuda.jit
    def frozen_global(out):
        out[0] = frozen[1]
    with pytest.raises(TypingError, match=r"test_bfloat16.py:\d+: global array 'frozen' of dtype bfloat16"):
        frozen_global[1, 1](np.zeros(1, BF))
    with pytest.raises(TypeError, match="structured/record dtype"):        # record fields of bfloat16: not yet
        atomic_on_bf16[1, 1](np.zeros(2, [("x", BF)]))


def test_module_surface(backend):
    from cudajit.cuda._internal import cuda_bf16
    assert cuda_bf16.nv_bfloat16 is bfloat16 is cuda.bf16.bfloat16
    assert cuda_bf16.__hadd is hadd and cuda_bf16.htrunc is htrunc and cuda_bf16.__float2bfloat16_rz is \
        float32_to_bfloat16_rz and cuda_bf16.__bfloat162ull_rd is bf16.bfloat16_to_uint64_rd
    assert "rounded toward zero" in float32_to_bfloat16_rz.__doc__
    with pytest.raises(RuntimeError, match="inside a @cuda.jit kernel"):
        hadd(1, 2)
    assert bfloat16(1.2) == BF(1.2) and isinstance(bfloat16(1.2), BF)     # outside kernels: ml_dtypes' scalar
    want = backend == "cpu" or cuda.get_current_device().compute_capability >= (8, 0)
    assert cuda.is_bfloat16_supported() is want


def test_exact_model_agrees_with_ml_dtypes(rng):
    # the oracle itself, against ml_dtypes where ml_dtypes rounds once (from float32)
    a = random_float32(rng, 3000)
    a = a[np.isfinite(a)]
    with np.errstate(over="ignore"):
        want = a.astype(BF).view(np.uint16)
    assert_bits([float_bits(float(x), "rn") for x in a], want, "model")
    assert struct.pack("<H", exact_bits(Fraction(1, 3), "rn")) == np.array([BF(1 / 3)]).view(np.uint16).tobytes()


class _NoInterface:
    """A producer as PyTorch's bfloat16 tensors are: reading __cuda_array_interface__ raises, DLPack works."""

    def __init__(self, d):
        self.d = d

    @property
    def __cuda_array_interface__(self):
        raise TypeError("bfloat16 has no typestr in the CUDA array interface")

    def __dlpack__(self, **kwargs):
        return self.d.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.d.__dlpack_device__()


class _InterfaceOnly:
    def __init__(self, d):
        self.__cuda_array_interface__ = d.__cuda_array_interface__
        self.keep = d


@cuda.jit
def _scale_add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * cuda.bf16.float32_to_bfloat16(4.0) + b[i]


def test_bfloat16_arrays_through_the_interface_and_dlpack(backend, rng):
    """'<V2' (ml_dtypes' dtype.str, which numba-cuda and CuPy write) is bfloat16 in a __cuda_array_interface__;
    DLPack carries kDLBfloat both ways; a producer whose interface raises is read through DLPack."""
    a_h = rng.standard_normal(100).astype(BF)
    b_h = rng.standard_normal(100).astype(BF)
    a, b = cuda.to_device(a_h), cuda.to_device(b_h)
    assert a.__cuda_array_interface__["typestr"] == "<V2"
    view = cuda.from_cuda_array_interface(a.__cuda_array_interface__, owner=a)
    assert view.dtype == BF and view._ptr == a._ptr
    again = cuda.from_dlpack(a)
    assert again.dtype == BF and again._ptr == a._ptr
    np.testing.assert_array_equal(again.copy_to_host(), a_h)
    out = cuda.device_array(100, BF)
    _scale_add[1, 128](_NoInterface(a), _InterfaceOnly(b), _InterfaceOnly(out))
    want = (a_h.astype(np.float32) * 4 + b_h.astype(np.float32)).astype(BF)
    np.testing.assert_array_equal(out.copy_to_host(), want)

    class Broken:
        @property
        def __cuda_array_interface__(self):
            raise TypeError("no interface for this dtype")
    with pytest.raises(TypeError, match="no interface for this dtype"):
        _scale_add[1, 128](Broken(), b, out)

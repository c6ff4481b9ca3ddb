"""The fp8 types in kernels (numba.cuda._internal.cuda_fp8, CUDA's cuda_fp8.h): every conversion bit for bit against
a model written here. The model of a value is the format's definition (a table of every fp8 value, checked against
ml_dtypes' decoding); rounding to e4m3/e5m2 is "the nearest value of the table, ties to the even encoding" with
CUDA's overflow and NaN rules, cross-checked with a transcription of CUDA's own __nv_cvt_double_to_fp8 and with
ml_dtypes where it rounds the same way; e8m0 rounds |x| to a power of two (floor or ceil of log2). Inputs: every fp8
bit pattern, every float16 and bfloat16 bit pattern, random and edge float32/float64 values (NaN payloads, inf,
subnormals, the largest finite values and past them, every midpoint and its neighbours), every integer type's
edges. Also the x2/x4 types, typing (no arithmetic, explicit conversions only), errors, and host arguments
(ml_dtypes' float8 arrays and scalars)."""
import math
import struct

import numpy as np
import pytest

from cudajit import cuda, float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64
from cudajit.errors import TypingError
from cudajit.cuda.types import bfloat16
from cudajit.cuda.fp8 import (cudaRoundMode, cvt_bfloat16raw_to_e8m0, cvt_bfloat16raw_to_fp8, cvt_double2_to_e8m0x2,
                              cvt_double2_to_fp8x2, cvt_double_to_e8m0, cvt_double_to_fp8, cvt_e8m0_to_bf16raw,
                              cvt_float2_to_e8m0x2, cvt_float2_to_fp8x2, cvt_float_to_e8m0, cvt_float_to_fp8,
                              fp8_e4m3, fp8_e5m2, fp8_e8m0, fp8_interpretation_t, fp8x2_e4m3, fp8x2_e5m2, fp8x2_e8m0,
                              fp8x4_e4m3, fp8x4_e5m2, fp8x4_e8m0, saturation_t)

ml_dtypes = pytest.importorskip("ml_dtypes")
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")   # NaN and overflow in the models' NumPy casts

KINDS = ("e4m3", "e5m2", "e8m0")
ML = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2, "e8m0": ml_dtypes.float8_e8m0fnu}
SAT, NOSAT = 1, 0
FLT_MAX = float(np.finfo(np.float32).max)
ALL_BITS = np.arange(256, dtype=np.uint8)


# ---- the model: the formats' definitions --------------------------------------------------------------------------
def fp8_value(b, kind):
    """The value of bit pattern ``b``: a float (exact: every fp8 value is a double), nan or +-inf."""
    if kind == "e8m0":
        return math.nan if b == 0xFF else math.ldexp(1.0, b - 127)
    m, bias = (3, 7) if kind == "e4m3" else (2, 15)
    sign = -1.0 if b & 0x80 else 1.0
    a = b & 0x7F
    if kind == "e4m3" and a == 0x7F or kind == "e5m2" and a > 0x7C:
        return math.nan
    if kind == "e5m2" and a == 0x7C:
        return sign * math.inf
    field, frac = a >> m, a & ((1 << m) - 1)
    if field == 0:
        return sign * math.ldexp(frac, 1 - bias - m)
    return sign * math.ldexp((1 << m) + frac, field - bias - m)


def table(kind):
    """(values, encodings) of every non-negative finite e4m3/e5m2 value, ascending, and one more: the value the next
    encoding would have (480 for e4m3, whose 0x7f is NaN; 65536 for e5m2, inf's place). Rounding to it overflows."""
    top = 0x7E if kind == "e4m3" else 0x7B
    values = [fp8_value(b, kind) for b in range(top + 1)] + [480.0 if kind == "e4m3" else 65536.0]
    return np.array(values), np.arange(top + 2, dtype=np.int64)


TABLES = {k: table(k) for k in ("e4m3", "e5m2")}


def round_fp8(x, kind, sat):
    """float64 values (finite or inf; no NaN) rounded to the nearest value of the table, a tie to the even encoding;
    past the table's last real value: the largest finite value with SATFINITE, else e5m2's inf / e4m3's NaN. The
    sign is kept, zero and overflow included (CUDA ORs it in last). float64 holds every input, table value and
    midpoint exactly, so these comparisons are exact."""
    x = np.asarray(x, np.float64)
    values, codes = TABLES[kind]
    a = np.abs(x)
    hi = np.clip(np.searchsorted(values, a, side="left"), 0, len(values) - 1)   # values[hi] >= a (or the last)
    lo = np.maximum(hi - 1, 0)
    exact = values[hi] == a
    mid = (values[lo] + values[hi]) / 2
    pick = np.where(exact, hi, np.where(a < mid, lo, np.where(a > mid, hi, np.where(codes[lo] % 2 == 0, lo, hi))))
    bits = codes[pick]
    overflow = (pick == len(values) - 1) | (a > values[-1])
    over_bits = (0x7E if kind == "e4m3" else 0x7B) if sat == SAT else (0x7F if kind == "e4m3" else 0x7C)
    bits = np.where(overflow, over_bits, bits)
    return (bits | np.where(np.signbit(x), 0x80, 0)).astype(np.uint8)


def from_double_bits(u, kind, sat):
    """CUDA's __nv_cvt_double_to_fp8 of the doubles whose bits are ``u``: round_fp8, and a NaN keeps its sign: e4m3's
    0x7f, e5m2's 0x7e with the double's two highest fraction bits."""
    u = np.asarray(u, np.uint64)
    x = u.view(np.float64)
    nan = np.isnan(x)
    out = round_fp8(np.where(nan, 0.0, x), kind, sat)
    sign = np.where(u >> np.uint64(63) != 0, 0x80, 0)
    nan_bits = (0x7F if kind == "e4m3" else 0x7E | ((u >> np.uint64(50)) & np.uint64(3)).astype(np.int64)) | sign
    return np.where(nan, nan_bits, out).astype(np.uint8)


def from_float(x, kind, sat):
    """__nv_cvt_float_to_fp8 (and the half and bfloat16 forms, exact in float): every NaN is first CUDA's canonical
    0x7fffffff, so it gives 0x7f."""
    x = np.asarray(x, np.float64)
    return np.where(np.isnan(x), 0x7F, round_fp8(np.where(np.isnan(x), 0.0, x), kind, sat)).astype(np.uint8)


def e8m0(x, sat, mode):
    """|x| (float64) rounded to a power of two: toward zero ("rz": 2^floor(log2|x|)) or up ("ru": 2^ceil); below
    2^-127 it is 2^-127 (0x00, also for 0); past 2^127 (and inf) NaN, or 2^127 with SATFINITE; NaN gives 0xff."""
    x = np.asarray(x, np.float64)
    a = np.abs(np.where(np.isnan(x), 1.0, x))
    m, e = np.frexp(np.where(np.isinf(a) | (a == 0), 1.0, a))      # a = m * 2^e, 0.5 <= m < 1
    k = e - 1 + ((m != 0.5) if mode == "ru" else 0)
    k = np.where(a == 0, -127, np.maximum(k, -127))
    over = np.isinf(a) | (k > 127)
    out = np.where(over, 0xFE if sat == SAT else 0xFF, k + 127)
    return np.where(np.isnan(x), 0xFF, out).astype(np.uint8)


def e8m0_from_double(x, sat, mode):
    """__nv_cvt_double_to_e8m0: e8m0 of the double as a float truncated with a sticky bit, so a finite double past
    float's range counts as FLT_MAX (toward zero that is 2^127, not an overflow)."""
    x = np.asarray(x, np.float64)
    return e8m0(np.where(np.isfinite(x) & (np.abs(x) > FLT_MAX), FLT_MAX, x), sat, mode)


def ceil_pow2_of_int(v):
    """fp8_e8m0(integer): |v| rounded up to a power of two (0: 0x00), as CUDA's integer constructors come out."""
    v = abs(int(v))
    if v == 0:
        return 0
    return 127 + v.bit_length() - 1 + (v & (v - 1) != 0)


# A transcription of CUDA 13's __nv_cvt_double_to_fp8 (cuda_fp8.hpp), step by step, in Python integers: the model
# above is checked against it on every float64 input.
def cuda_double_to_fp8(xbits, sat, interp):
    if interp == 0:                                  # E4M3
        bias, sig, mask, mindenorm_o2, overflow, maxnorm, minnorm = (
            7, 4, 7, 0x3F50000000000000, 0x407D000000000000, 0x7E, 0x3F90000000000000)
    else:
        bias, sig, mask, mindenorm_o2, overflow, maxnorm, minnorm = (
            15, 3, 3, 0x3EE0000000000000, 0x40EE000000000000 - 1, 0x7B, 0x3F10000000000000)
    half_ulp = 1 << (53 - sig - 1)
    sign = (xbits >> 63) << 7
    exp = ((xbits >> 52) & 0x7FF) - 1023 + bias
    mantissa = (xbits >> (53 - sig)) & mask
    absx = xbits & 0x7FFFFFFFFFFFFFFF
    if absx <= mindenorm_o2:
        res = 0
    elif absx > 0x7FF0000000000000:
        res = 0x7F if interp == 0 else 0x7E | mantissa
    elif absx > overflow:
        res = maxnorm if sat == SAT else (0x7F if interp == 0 else 0x7C)
    elif absx >= minnorm:
        res = ((exp << (sig - 1)) | mantissa) & 0xFF
        rnd = xbits & ((half_ulp << 1) - 1)
        if rnd > half_ulp or (rnd == half_ulp and mantissa & 1):
            res += 1
    else:
        shift = (1 - exp) & 0xFF
        mantissa |= 1 << (sig - 1)
        res = mantissa >> shift
        rnd = (xbits | (1 << 52)) & ((half_ulp << (shift + 1)) - 1)
        if rnd > (half_ulp << shift) or (rnd == (half_ulp << shift) and res & 1):
            res += 1
    return (res | sign) & 0xFF


# And of __nv_cvt_bfloat16raw_to_e8m0 / __nv_cvt_float_to_e8m0's software paths, which also say what the modes CUDA
# does not support (cudaRoundNearest, cudaRoundMinInf) do when they arrive at run time.
def cuda_bf16_to_e8m0(x, sat, rounding):
    res = (x >> 7) & 0xFF
    if rounding == 2 and (x & 0x7F) and (x & 0x7FFF) > 0x40 and (x & 0x7FFF) < 0x7F80:
        res += 1
    if sat == SAT and (x & 0x7FFF) <= 0x7F80 and res == 0xFF:
        res -= 1
    return res


def cuda_float_to_e8m0(u, sat, rounding):
    if rounding == 1:
        b = 0x7FFF if (u & 0x7FFFFFFF) > 0x7F800000 else u >> 16
    else:
        a = u & 0x7FFFFFFF
        b = 0x7FFF if a > 0x7F800000 else ((a >> 16) + 1 if a < 0x7F800000 and a & 0xFFFF else a >> 16)
    return cuda_bf16_to_e8m0(b, sat, rounding)


def test_model_values_are_ml_dtypes(rng):
    """The value table is the formats' own: ml_dtypes decodes every bit pattern to the same value (NaN to NaN, the
    sign of zero too); and the rounding model is CUDA's: equal to its __nv_cvt_double_to_fp8 on random doubles of
    every magnitude and on every midpoint of both formats and its neighbours."""
    for kind in KINDS:
        want = ALL_BITS.view(ML[kind]).astype(np.float64)
        got = np.array([fp8_value(int(b), kind) for b in ALL_BITS])
        np.testing.assert_array_equal(got.view(np.uint64)[~np.isnan(got)], want.view(np.uint64)[~np.isnan(got)])
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    xs = float64_inputs(rng).view(np.uint64)
    for kind, interp in (("e4m3", 0), ("e5m2", 1)):
        for sat in (NOSAT, SAT):
            want = np.array([cuda_double_to_fp8(int(u), sat, interp) for u in xs], np.uint8)
            assert_bits(from_double_bits(xs, kind, sat), want, f"model vs CUDA's code, {kind} sat={sat}",
                        xs.view(np.float64))


# ---- inputs ------------------------------------------------------------------------------------------------------
def float32_inputs(rng, n=6000):
    """Random float32 bit patterns (every exponent, subnormals, inf, NaN with payloads), every e4m3/e5m2 value and
    midpoint (ties) with their float32 neighbours, the overflow thresholds, powers of two 2^-149 .. 2^127 and their
    neighbours (e8m0's boundaries); both signs."""
    raw = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    pts = []
    for kind in ("e4m3", "e5m2"):
        values = TABLES[kind][0]
        mids = (values[:-1] + values[1:]) / 2
        pts += [values, mids, values * 2, values * 1.5]
    pts.append(np.ldexp(1.0, np.arange(-149, 128)))
    pts = np.concatenate(pts).astype(np.float32)
    near = np.concatenate([pts, np.nextafter(pts, np.float32(np.inf)), np.nextafter(pts, np.float32(0))])
    specials = np.array([0.0, np.inf, np.nan, FLT_MAX, 1e20, 3e38, np.finfo(np.float32).tiny, 1e-45, 2.0**-127,
                         np.nextafter(np.float32(2.0**127), np.float32(np.inf))], np.float32)
    nans = np.array([0x7FC00000, 0x7F800001, 0x7FFFFFFF, 0x7FA00000], np.uint32).view(np.float32)
    both = np.concatenate([near, specials, nans])
    return np.concatenate([raw, both, -both])


def float64_inputs(rng, n=4000):
    """float32_inputs as doubles; random double bit patterns; values a little off the midpoints (where rounding
    through float32 first would tie); doubles past float's range and below it; NaNs whose two highest fraction bits
    are 00, 01, 10 and 11 (e5m2 keeps them); both signs."""
    f = float32_inputs(rng, n).astype(np.float64)
    raw = rng.integers(0, 2**63, n, dtype=np.uint64).view(np.float64)
    mids = np.concatenate([(v[:-1] + v[1:]) / 2 for v, _ in TABLES.values()] + [np.ldexp(1.0, np.arange(-140, 128))])
    off = np.concatenate([mids * (1 + 2.0**-40), mids * (1 - 2.0**-40)])
    far = np.array([1e300, 2.0**128, 2.0**128 * 3, float(np.nextafter(FLT_MAX, np.inf)), 1e-300, 2.0**-1074,
                    2.0**-150, 2.0**-149 * 1.5, 2.0**-127 * (1 + 2.0**-30), 2.0**127 * (1 + 2.0**-30)])
    nans = np.array([0x7FF0000000000001, 0x7FF4000000000000, 0x7FF8000000000000, 0x7FFC000000000000,
                     0x7FF0000000000000], np.uint64).view(np.float64)
    both = np.concatenate([off, far, nans])
    return np.concatenate([f, raw, both, -both, -raw])


# ---- checking ----------------------------------------------------------------------------------------------------
def assert_bits(got, want, what, inputs=None):
    got, want = np.asarray(got), np.asarray(want)
    bad = np.nonzero(got != want)[0]
    if bad.size:
        i = bad[0]
        x = f" for input {inputs[i]!r} ({np.asarray(inputs[i:i + 1]).view(f'u{np.asarray(inputs).itemsize}')[0]:#x})" \
            if inputs is not None else f" at index {i}"
        raise AssertionError(f"{what}: {bad.size} of {got.size} differ, e.g.{x}: got {int(got[i]):#x}, "
                             f"want {int(want[i]):#x}")


def launch(kernel, n, *args):
    kernel[(n + 127) // 128, 128](*args)


# ---- from every fp8 value ----------------------------------------------------------------------------------------
@cuda.jit
def from_fp8(a, f4, f8, f2, bf, i1, i2, i4, i8, u1, u2, u4, u8, truth):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        f4[i] = float32(x)
        f8[i] = float64(x)
        f2[i] = float16(x)
        bf[i] = bfloat16(x)
        i1[i] = int8(x)
        i2[i] = int16(x)
        i4[i] = int32(x)
        i8[i] = int64(x)
        u1[i] = uint8(x)
        u2[i] = uint16(x)
        u4[i] = uint32(x)
        u8[i] = uint64(x)
        truth[i, 0] = bool(x)
        truth[i, 1] = 1 if x else 0
        truth[i, 2] = int(x) == int64(x)


def _to_int_model(v, dt):
    """CUDA's fp8 -> integer conversion operators: toward zero, saturated; NaN gives 0, or 0x8000000000000000 for the
    64-bit types (__half2ll_rz, __bfloat162ull_rz ... as CUDA documents them)."""
    info = np.iinfo(dt)
    if math.isnan(v):
        return (1 << 63) if dt.itemsize == 8 and dt.kind == "u" else (info.min if dt.itemsize == 8 else 0)
    if math.isinf(v):
        return info.max if v > 0 else info.min
    return min(max(math.trunc(v), info.min), info.max)


@pytest.mark.parametrize("kind", KINDS)
def test_every_fp8_value_to_every_type(backend, kind):
    a = ALL_BITS.view(ML[kind])
    outs = [np.zeros(256, t) for t in (np.float32, np.float64, np.float16)] + [np.zeros(256, ml_dtypes.bfloat16)]
    ints = [np.zeros(256, t) for t in ("i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8")]
    truth = np.zeros((256, 3), np.int32)
    launch(from_fp8, 256, a, *outs, *ints, truth)
    values = np.array([fp8_value(int(b), kind) for b in ALL_BITS])
    nan = np.isnan(values)
    # float32: exact; NaN is CUDA's canonical 0x7fffffff (its conversion goes through a half's 0x7fff), e8m0's NaN
    # its bfloat16's 0x7fff0000. float64: that float widened (the NaN's payload shifted along).
    want32 = values.astype(np.float32).view(np.uint32).copy()
    want32[nan] = 0x7FFF0000 if kind == "e8m0" else 0x7FFFFFFF
    assert_bits(outs[0].view(np.uint32), want32, f"float32({kind})", a)
    want64 = values.view(np.uint64).copy()
    want64[nan] = np.uint64(0x7FFFE00000000000 if kind == "e8m0" else 0x7FFFFFFFE0000000)
    assert_bits(outs[1].view(np.uint64), want64, f"float64({kind})", a)
    # float16: exact for e4m3/e5m2, e8m0 rounded to nearest even (2^16 and up: inf; 2^-25 and below: 0); NaN 0x7fff
    want16 = values.astype(np.float16).view(np.uint16).copy()
    want16[nan] = 0x7FFF
    assert_bits(outs[2].view(np.uint16), want16, f"float16({kind})", a)
    wantbf = values.astype(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16).copy()   # exact in bfloat16
    wantbf[nan] = 0x7FFF
    assert_bits(outs[3].view(np.uint16), wantbf, f"bfloat16({kind})", a)
    for got in ints:
        want = np.array([_to_int_model(v, got.dtype) for v in values], dtype=got.dtype)
        assert_bits(got, want, f"{got.dtype}({kind})", a)
    want_truth = np.ones(256, bool) if kind == "e8m0" else (values != 0)      # NaN is true
    np.testing.assert_array_equal(truth[:, 0], want_truth)
    np.testing.assert_array_equal(truth[:, 1], want_truth)
    assert truth[:, 2].all()                                                 # int(x) is int64(x)
    # ml_dtypes decodes the same (its NaNs aside)
    ok = ~nan
    np.testing.assert_array_equal(outs[0][ok], a[ok].astype(np.float32))
    np.testing.assert_array_equal(outs[1][ok], a[ok].astype(np.float64))


# ---- to fp8 from float32 / float64 -------------------------------------------------------------------------------
@cuda.jit
def float32_to_fp8(a, out, e4, e5, e8):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        out[i, 0] = cvt_float_to_fp8(x, saturation_t.NOSAT, fp8_interpretation_t.E4M3)
        out[i, 1] = cvt_float_to_fp8(x, saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
        out[i, 2] = cvt_float_to_fp8(x, saturation_t.NOSAT, fp8_interpretation_t.E5M2)
        out[i, 3] = cvt_float_to_fp8(x, saturation_t.SATFINITE, fp8_interpretation_t.E5M2)
        out[i, 4] = cvt_float_to_e8m0(x, saturation_t.NOSAT, cudaRoundMode.cudaRoundZero)
        out[i, 5] = cvt_float_to_e8m0(x, saturation_t.SATFINITE, cudaRoundMode.cudaRoundZero)
        out[i, 6] = cvt_float_to_e8m0(x, saturation_t.NOSAT, cudaRoundMode.cudaRoundPosInf)
        out[i, 7] = cvt_float_to_e8m0(x, saturation_t.SATFINITE, cudaRoundMode.cudaRoundPosInf)
        e4[i] = fp8_e4m3(x)
        e5[i] = fp8_e5m2(x)
        e8[i] = fp8_e8m0(x)


FP8_CASES = ((0, "e4m3", NOSAT), (1, "e4m3", SAT), (2, "e5m2", NOSAT), (3, "e5m2", SAT))
E8M0_CASES = ((4, NOSAT, "rz"), (5, SAT, "rz"), (6, NOSAT, "ru"), (7, SAT, "ru"))


def test_float32_to_fp8(backend, rng):
    a = float32_inputs(rng)
    out = np.zeros((a.size, 8), np.uint8)
    e4, e5, e8 = (np.zeros(a.size, ML[k]) for k in KINDS)
    launch(float32_to_fp8, a.size, a, out, e4, e5, e8)
    for k, kind, sat in FP8_CASES:
        assert_bits(out[:, k], from_float(a, kind, sat), f"cvt_float_to_fp8 {kind} sat={sat}", a)
    for k, sat, mode in E8M0_CASES:
        assert_bits(out[:, k], e8m0(a, sat, mode), f"cvt_float_to_e8m0 sat={sat} {mode}", a)
    # the constructors: SATFINITE, e8m0 rounding up
    assert_bits(e4.view(np.uint8), from_float(a, "e4m3", SAT), "fp8_e4m3(float32)", a)
    assert_bits(e5.view(np.uint8), from_float(a, "e5m2", SAT), "fp8_e5m2(float32)", a)
    assert_bits(e8.view(np.uint8), e8m0(a, SAT, "ru"), "fp8_e8m0(float32)", a)
    # ml_dtypes rounds float32 the same way where CUDA does not saturate (its NaNs keep their sign: not compared)
    ok = ~np.isnan(a)
    assert_bits(out[ok, 0], a[ok].astype(ML["e4m3"]).view(np.uint8), "vs ml_dtypes float8_e4m3fn", a[ok])
    assert_bits(out[ok, 2], a[ok].astype(ML["e5m2"]).view(np.uint8), "vs ml_dtypes float8_e5m2", a[ok])
    # the boundaries, spelled out: CUDA's documented overflow results, and ties to even at the top of e4m3
    edge = np.array([448, 464, 464.00003, 480, 57344, 61439.996, 61440, np.inf, -np.inf, np.nan], np.float32)
    eo = np.zeros((edge.size, 8), np.uint8)
    launch(float32_to_fp8, edge.size, edge, eo, *(np.zeros(edge.size, ML[k]) for k in KINDS))
    assert [hex(v) for v in eo[:, 0]] == ["0x7e", "0x7e", "0x7f", "0x7f", "0x7f", "0x7f", "0x7f", "0x7f", "0xff",
                                          "0x7f"]
    assert [hex(v) for v in eo[:, 1]] == ["0x7e"] * 8 + ["0xfe", "0x7f"]
    # e5m2: 480 is a tie between 448 (0x5f, odd) and 512 (0x60); 61440 one between 57344 (0x7b) and inf's place
    assert [hex(v) for v in eo[:, 2]] == ["0x5f", "0x5f", "0x5f", "0x60", "0x7b", "0x7b", "0x7c", "0x7c", "0xfc",
                                          "0x7f"]
    assert [hex(v) for v in eo[:, 3]] == ["0x5f", "0x5f", "0x5f", "0x60", "0x7b", "0x7b", "0x7b", "0x7b", "0xfb",
                                          "0x7f"]


@cuda.jit
def float64_to_fp8(a, out, e4, e5, e8):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        out[i, 0] = cvt_double_to_fp8(x, saturation_t.NOSAT, fp8_interpretation_t.E4M3)
        out[i, 1] = cvt_double_to_fp8(x, saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
        out[i, 2] = cvt_double_to_fp8(x, saturation_t.NOSAT, fp8_interpretation_t.E5M2)
        out[i, 3] = cvt_double_to_fp8(x, saturation_t.SATFINITE, fp8_interpretation_t.E5M2)
        out[i, 4] = cvt_double_to_e8m0(x, saturation_t.NOSAT, cudaRoundMode.cudaRoundZero)
        out[i, 5] = cvt_double_to_e8m0(x, saturation_t.SATFINITE, cudaRoundMode.cudaRoundZero)
        out[i, 6] = cvt_double_to_e8m0(x, saturation_t.NOSAT, cudaRoundMode.cudaRoundPosInf)
        out[i, 7] = cvt_double_to_e8m0(x, saturation_t.SATFINITE, cudaRoundMode.cudaRoundPosInf)
        e4[i] = fp8_e4m3(x)
        e5[i] = fp8_e5m2(x)
        e8[i] = fp8_e8m0(x)


def test_float64_to_fp8_rounds_once(backend, rng):
    a = float64_inputs(rng)
    u = a.view(np.uint64)
    out = np.zeros((a.size, 8), np.uint8)
    e4, e5, e8 = (np.zeros(a.size, ML[k]) for k in KINDS)
    launch(float64_to_fp8, a.size, a, out, e4, e5, e8)
    for k, kind, sat in FP8_CASES:
        assert_bits(out[:, k], from_double_bits(u, kind, sat), f"cvt_double_to_fp8 {kind} sat={sat}", a)
    for k, sat, mode in E8M0_CASES:
        assert_bits(out[:, k], e8m0_from_double(a, sat, mode), f"cvt_double_to_e8m0 sat={sat} {mode}", a)
    assert_bits(e4.view(np.uint8), from_double_bits(u, "e4m3", SAT), "fp8_e4m3(float64)", a)
    assert_bits(e5.view(np.uint8), from_double_bits(u, "e5m2", SAT), "fp8_e5m2(float64)", a)
    assert_bits(e8.view(np.uint8), e8m0_from_double(a, SAT, "ru"), "fp8_e8m0(float64)", a)
    # a double just above an e4m3 midpoint by less than float32 can hold: through float32 it would be a tie (to
    # even, down); CUDA rounds the double once (up)
    x = np.array([(1.0 + 1.125) / 2 * (1 + 2.0**-40)])
    one = np.zeros((1, 8), np.uint8)
    launch(float64_to_fp8, 1, x, one, *(np.zeros(1, ML[k]) for k in KINDS))
    assert fp8_value(int(one[0, 0]), "e4m3") == 1.125 and float(np.float32(x[0])) == 1.0625
    # NaN payloads: e4m3 keeps only the sign, e5m2 the two highest fraction bits
    nans = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF4000000000000, 0x7FF0000000000001,
                     0x7FFC000000000000], np.uint64).view(np.float64)
    no = np.zeros((5, 8), np.uint8)
    launch(float64_to_fp8, 5, nans, no, *(np.zeros(5, ML[k]) for k in KINDS))
    assert list(no[:, 0]) == [0x7F, 0xFF, 0x7F, 0x7F, 0x7F] and list(no[:, 2]) == [0x7E, 0xFE, 0x7F, 0x7E, 0x7F]
    assert (no[:, 4:] == 0xFF).all()
    # CUDA's double -> e8m0 goes through a float: a finite double past float's range rounds toward zero to 2^127
    big = np.array([1e300, -3e38 * 2, np.inf])
    bo = np.zeros((3, 8), np.uint8)
    launch(float64_to_fp8, 3, big, bo, *(np.zeros(3, ML[k]) for k in KINDS))
    assert list(bo[:, 4]) == [0xFE, 0xFE, 0xFF] and list(bo[:, 6]) == [0xFF, 0xFF, 0xFF]


# ---- every float16 and bfloat16 value ----------------------------------------------------------------------------
@cuda.jit
def small_floats_to_fp8(h, b, out):
    i = cuda.grid(1)
    if i < h.size:
        e4, e5, e8 = fp8_e4m3(h[i]), fp8_e5m2(h[i]), fp8_e8m0(h[i])
        out[i, 1] = cvt_float_to_fp8(float32(h[i]), saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
        out[i, 2] = cvt_float_to_fp8(float32(e4), saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
        out[i, 3] = cvt_float_to_fp8(float32(e5), saturation_t.SATFINITE, fp8_interpretation_t.E5M2)
        out[i, 4] = cvt_float_to_e8m0(float32(e8), saturation_t.SATFINITE, cudaRoundMode.cudaRoundZero)
        y = b[i]
        out[i, 5] = cvt_float_to_fp8(float32(fp8_e4m3(y)), saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
        out[i, 6] = cvt_float_to_fp8(float32(fp8_e5m2(y)), saturation_t.SATFINITE, fp8_interpretation_t.E5M2)
        out[i, 7] = cvt_float_to_e8m0(float32(fp8_e8m0(y)), saturation_t.SATFINITE, cudaRoundMode.cudaRoundZero)
        out[i, 8] = cvt_bfloat16raw_to_fp8(y, saturation_t.NOSAT, fp8_interpretation_t.E4M3)
        out[i, 9] = cvt_bfloat16raw_to_fp8(y, saturation_t.SATFINITE, fp8_interpretation_t.E5M2)
        out[i, 10] = cvt_bfloat16raw_to_e8m0(y, saturation_t.NOSAT, cudaRoundMode.cudaRoundZero)
        out[i, 11] = cvt_bfloat16raw_to_e8m0(y, saturation_t.SATFINITE, cudaRoundMode.cudaRoundPosInf)


def test_every_float16_and_bfloat16_to_fp8(backend):
    """fp8_e4m3(x), fp8_e5m2(x), fp8_e8m0(x) of every float16 and every bfloat16 bit pattern (each read back through
    float32, which is exact, and cvt_float_to_*'s identity on fp8 values), and the cvt_bfloat16raw_* functions (which
    cudajit also gives a bfloat16)."""
    bits = np.arange(65536, dtype=np.uint16)
    h, b = bits.view(np.float16), bits.view(ml_dtypes.bfloat16)
    out = np.zeros((bits.size, 12), np.uint8)
    launch(small_floats_to_fp8, bits.size, h, b, out)
    hv, bv = h.astype(np.float64), b.astype(np.float64)
    assert_bits(out[:, 1], from_float(hv, "e4m3", SAT), "cvt_float_to_fp8(float32(half))", h)
    assert_bits(out[:, 2], from_float(hv, "e4m3", SAT), "fp8_e4m3(float16)", h)
    assert_bits(out[:, 3], from_float(hv, "e5m2", SAT), "fp8_e5m2(float16)", h)
    ok = ~np.isnan(hv)                      # e8m0 -> float32 -> e8m0 toward zero is the identity but for NaN (0xff)
    assert_bits(out[ok, 4], e8m0(hv, SAT, "ru")[ok], "fp8_e8m0(float16)", h[ok])
    assert (out[~ok, 4] == 0xFF).all()
    assert_bits(out[:, 5], from_float(bv, "e4m3", SAT), "fp8_e4m3(bfloat16)", b)
    assert_bits(out[:, 6], from_float(bv, "e5m2", SAT), "fp8_e5m2(bfloat16)", b)
    ok = ~np.isnan(bv)
    assert_bits(out[ok, 7], e8m0(bv, SAT, "ru")[ok], "fp8_e8m0(bfloat16)", b[ok])
    assert_bits(out[:, 8], from_float(bv, "e4m3", NOSAT), "cvt_bfloat16raw_to_fp8 e4m3 nosat", b)
    assert_bits(out[:, 9], from_float(bv, "e5m2", SAT), "cvt_bfloat16raw_to_fp8 e5m2 satfinite", b)
    assert_bits(out[:, 10], e8m0(bv, NOSAT, "rz"), "cvt_bfloat16raw_to_e8m0 nosat rz", b)
    assert_bits(out[:, 11], e8m0(bv, SAT, "ru"), "cvt_bfloat16raw_to_e8m0 satfinite ru", b)


# ---- integers --------------------------------------------------------------------------------------------------
def _int_kernel(typ):
    @cuda.jit
    def k(a, e4, e5, e8):
        i = cuda.grid(1)
        if i < a.size:
            e4[i] = fp8_e4m3(typ(a[i]))
            e5[i] = fp8_e5m2(typ(a[i]))
            e8[i] = fp8_e8m0(typ(a[i]))
    return k


_INT_TYPES = {"int8": int8, "int16": int16, "int32": int32, "int64": int64, "uint8": uint8, "uint16": uint16,
              "uint32": uint32, "uint64": uint64}
_INT_KERNELS = {}


@pytest.mark.parametrize("tname", list(_INT_TYPES))
def test_integers_to_fp8(backend, rng, tname):
    """Integers round to nearest even (through float, as CUDA's constructors do: past 2^24 only saturation is
    left), saturating; e8m0 takes |i| rounded up to a power of two."""
    dt = np.dtype(tname)
    info = np.iinfo(dt)
    big = rng.integers(info.min, info.max, 2000, dtype=dt, endpoint=True)
    scaled = big >> rng.integers(0, dt.itemsize * 8, big.size).astype(dt)
    edges = [info.min, info.max, 0, 1, 2, 3, 5, 7, 9, 17, 18, 19, 240, 247, 248, 255, 256, 447, 448, 464, 465, 479,
             480, 57343, 57344, 61439, 61440, 65535, 2**24 + 1, 2**31, 2**32 - 1, 2**62 + 1]
    edges = np.array([e for e in edges if info.min <= e <= info.max]
                     + [-e for e in edges if info.min <= -e <= info.max], dt)
    a = np.concatenate([big, scaled, edges])
    kernel = _INT_KERNELS.setdefault(tname, _int_kernel(_INT_TYPES[tname]))
    e4, e5, e8 = (np.zeros(a.size, ML[k]) for k in KINDS)
    launch(kernel, a.size, a, e4, e5, e8)
    exact = a.astype(np.float64)                   # saturating fp8 ranges: an int past 2^53 saturates either way
    assert_bits(e4.view(np.uint8), round_fp8(exact, "e4m3", SAT), f"fp8_e4m3({tname})", a)
    assert_bits(e5.view(np.uint8), round_fp8(exact, "e5m2", SAT), f"fp8_e5m2({tname})", a)
    assert_bits(e8.view(np.uint8), np.array([ceil_pow2_of_int(v) for v in a], np.uint8), f"fp8_e8m0({tname})", a)


@cuda.jit
def literals(out, e4, e5, e8):
    out[0] = float32(fp8_e4m3(2))                  # an int literal (int64)
    out[1] = float32(fp8_e5m2(-3.75))              # a float literal (float64): a tie, to -4 (even)
    out[2] = float32(fp8_e8m0(1000))
    out[3] = float32(fp8_e4m3(True))
    out[4] = float32(fp8_e4m3())                   # value-initialised: zero, as CUDA's T()
    out[5] = float32(fp8_e8m0())                   # the zero byte: 2^-127
    out[6] = float32(fp8_e5m2(uint64(18446744073709551615)))
    e4[0] = fp8_e4m3(1e9)
    e5[0] = fp8_e5m2(-1e9)
    e8[0] = fp8_e8m0(-0.3)


def test_literal_and_default_construction(backend):
    out = np.zeros(7, np.float32)
    e4, e5, e8 = (np.zeros(1, ML[k]) for k in KINDS)
    literals[1, 1](out, e4, e5, e8)
    assert list(out[:6]) == [2.0, -4.0, 1024.0, 1.0, 0.0, np.float32(2.0**-127)] and out[6] == 57344.0
    assert (e4.view(np.uint8)[0], e5.view(np.uint8)[0], e8.view(np.uint8)[0]) == (0x7E, 0xFB, 126)


# ---- e8m0 <-> bfloat16_raw, run-time modes -----------------------------------------------------------------------
@cuda.jit
def raw_round_trip(a, out, bf):
    i = cuda.grid(1)
    if i < a.size:
        raw = cvt_e8m0_to_bf16raw(a[i])
        out[i, 0] = raw.x
        out[i, 1] = cvt_bfloat16raw_to_e8m0(raw, saturation_t.NOSAT, cudaRoundMode.cudaRoundZero)
        out[i, 2] = cvt_bfloat16raw_to_e8m0(raw, saturation_t.SATFINITE, cudaRoundMode.cudaRoundPosInf)
        out[i, 3] = cvt_bfloat16raw_to_fp8(raw, saturation_t.NOSAT, fp8_interpretation_t.E4M3)
        out[i, 4] = cvt_bfloat16raw_to_fp8(raw, saturation_t.SATFINITE, fp8_interpretation_t.E5M2)
        bf[i] = bfloat16(raw)


def test_e8m0_to_bf16raw_every_value(backend):
    out = np.zeros((256, 5), np.uint16)
    bf = np.zeros(256, ml_dtypes.bfloat16)
    launch(raw_round_trip, 256, ALL_BITS, out, bf)
    values = np.array([fp8_value(int(b), "e8m0") for b in ALL_BITS])
    want = values.astype(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16).copy()   # 2^-127: a subnormal
    want[255] = 0x7FFF
    assert_bits(out[:, 0], want, "cvt_e8m0_to_bf16raw", ALL_BITS)
    assert want[0] == 0x0040 and want[127] == 0x3F80
    np.testing.assert_array_equal(out[:, 1], ALL_BITS)                  # back to e8m0: the identity, NaN too
    np.testing.assert_array_equal(out[:, 2], ALL_BITS)
    assert_bits(out[:, 3], from_float(values, "e4m3", NOSAT), "cvt_bfloat16raw_to_fp8 e4m3", ALL_BITS)
    assert_bits(out[:, 4], from_float(values, "e5m2", SAT), "cvt_bfloat16raw_to_fp8 e5m2", ALL_BITS)
    assert_bits(bf.view(np.uint16), want, "bfloat16(raw)", ALL_BITS)


@cuda.jit
def runtime_modes(f, modes, out):
    i = cuda.grid(1)
    if i < f.size:
        s, m = modes[i, 0], modes[i, 1]
        out[i, 0] = cvt_float_to_fp8(f[i], s, m)
        out[i, 1] = cvt_double_to_fp8(float64(f[i]), s, m)
        out[i, 2] = cvt_float_to_e8m0(f[i], s, m)
        out[i, 3] = cvt_bfloat16raw_to_e8m0(bfloat16(f[i]), s, m)


def test_modes_at_run_time(backend, rng):
    """Modes that are variables follow CUDA's code: SATFINITE saturates and any other value does not; E4M3 is e4m3
    and any other value e5m2; for e8m0, cudaRoundMode values CUDA does not support take the paths its code gives
    them (constants other than cudaRoundZero and cudaRoundPosInf are refused at compile time instead)."""
    f = float32_inputs(rng, 3000)
    modes = rng.integers(0, 4, (f.size, 2)).astype(np.int32)
    out = np.zeros((f.size, 4), np.uint8)
    launch(runtime_modes, f.size, f, modes, out)
    fu = f.view(np.uint32)
    bf = f.astype(ml_dtypes.bfloat16)
    bfu = bf.view(np.uint16)
    for i in range(f.size):
        s, m = int(modes[i, 0]), int(modes[i, 1])
        kind, sat = ("e4m3" if m == 0 else "e5m2"), (SAT if s == 1 else NOSAT)
        want = [from_float(f[i:i + 1], kind, sat)[0], from_double_bits(f[i:i + 1].astype(np.float64).view(np.uint64),
                                                                        kind, sat)[0],
                cuda_float_to_e8m0(int(fu[i]), s, m), cuda_bf16_to_e8m0(int(bfu[i]), s, m)]
        assert list(out[i]) == want, (f[i], s, m, list(out[i]), want)
    # the supported modes' run-time values are the model's
    zero_up = modes[:, 1] >= 1
    sel = zero_up & (modes[:, 1] <= 2)
    for mode_value, mode in ((1, "rz"), (2, "ru")):
        for s in (0, 1):
            rows = sel & (modes[:, 1] == mode_value) & (modes[:, 0] == s)
            assert_bits(out[rows, 2], e8m0(f[rows], SAT if s else NOSAT, mode), f"e8m0 {mode} sat={s}", f[rows])


# ---- pairs and quads ---------------------------------------------------------------------------------------------
@cuda.jit
def vectors(f, d, out2, out4, back):
    i = cuda.grid(1)
    if i < f.shape[0]:
        v2 = cuda.float32x2(f[i, 0], f[i, 1])
        w2 = cuda.float64x2(d[i, 0], d[i, 1])
        v4 = cuda.float32x4(f[i, 0], f[i, 1], f[i, 2], f[i, 3])
        w4 = cuda.float64x4(d[i, 0], d[i, 1], d[i, 2], d[i, 3])
        out2[i, 0] = fp8x2_e4m3(v2).__x
        out2[i, 1] = fp8x2_e5m2(w2).__x
        out2[i, 2] = fp8x2_e8m0(v2).__x
        out2[i, 3] = cvt_float2_to_fp8x2(v2, saturation_t.NOSAT, fp8_interpretation_t.E4M3)
        out2[i, 4] = cvt_double2_to_fp8x2(w2, saturation_t.SATFINITE, fp8_interpretation_t.E5M2)
        out2[i, 5] = cvt_float2_to_e8m0x2(v2, saturation_t.NOSAT, cudaRoundMode.cudaRoundPosInf)
        out2[i, 6] = cvt_double2_to_e8m0x2(w2, saturation_t.SATFINITE, cudaRoundMode.cudaRoundZero)
        out2[i, 7] = fp8x2_e4m3().__x
        out4[i, 0] = fp8x4_e4m3(v4).__x
        out4[i, 1] = fp8x4_e5m2(w4).__x
        out4[i, 2] = fp8x4_e8m0(v4).__x
        g = cuda.float32x2(fp8x2_e5m2(v2))
        h = cuda.float32x4(fp8x4_e8m0(w4))
        back[i, 0] = g.x
        back[i, 1] = g.y
        back[i, 2] = h.x
        back[i, 3] = h.y
        back[i, 4] = h.z
        back[i, 5] = h.w


def test_pairs_and_quads(backend, rng):
    """fp8x2_*/fp8x4_* from float32 and float64 vectors (lane i in byte i of ``__x``, each as the scalar
    constructor converts it), cvt_*2_to_*x2, and float32x2/float32x4 of them (each lane as float32(x))."""
    f = float32_inputs(rng, 1000)
    n = f.size // 4
    f = rng.permutation(f)[:4 * n].reshape(n, 4)
    d = rng.permutation(float64_inputs(rng, 1000))[:4 * n].reshape(n, 4)
    out2, out4, back = np.zeros((n, 8), np.uint16), np.zeros((n, 3), np.uint32), np.zeros((n, 6), np.float32)
    launch(vectors, n, f, d, out2, out4, back)
    du = d.view(np.uint64)

    def pack(lanes):
        return sum(lane.astype(np.uint64) << np.uint64(8 * k) for k, lane in enumerate(lanes))
    assert_bits(out2[:, 0], pack([from_float(f[:, k], "e4m3", SAT) for k in (0, 1)]), "fp8x2_e4m3(float32x2)")
    assert_bits(out2[:, 1], pack([from_double_bits(du[:, k], "e5m2", SAT) for k in (0, 1)]), "fp8x2_e5m2(float64x2)")
    assert_bits(out2[:, 2], pack([e8m0(f[:, k], SAT, "ru") for k in (0, 1)]), "fp8x2_e8m0(float32x2)")
    assert_bits(out2[:, 3], pack([from_float(f[:, k], "e4m3", NOSAT) for k in (0, 1)]), "cvt_float2_to_fp8x2")
    assert_bits(out2[:, 4], pack([from_double_bits(du[:, k], "e5m2", SAT) for k in (0, 1)]), "cvt_double2_to_fp8x2")
    assert_bits(out2[:, 5], pack([e8m0(f[:, k], NOSAT, "ru") for k in (0, 1)]), "cvt_float2_to_e8m0x2")
    assert_bits(out2[:, 6], pack([e8m0_from_double(d[:, k], SAT, "rz") for k in (0, 1)]), "cvt_double2_to_e8m0x2")
    assert not out2[:, 7].any()
    assert_bits(out4[:, 0], pack([from_float(f[:, k], "e4m3", SAT) for k in range(4)]), "fp8x4_e4m3(float32x4)")
    assert_bits(out4[:, 1], pack([from_double_bits(du[:, k], "e5m2", SAT) for k in range(4)]), "fp8x4_e5m2")
    assert_bits(out4[:, 2], pack([e8m0(f[:, k], SAT, "ru") for k in range(4)]), "fp8x4_e8m0(float32x4)")
    lanes_e5 = [from_float(f[:, k], "e5m2", SAT) for k in (0, 1)]
    lanes_e8 = [e8m0_from_double(d[:, k], SAT, "ru") for k in range(4)]
    want = np.stack([_float32_bits(l, "e5m2") for l in lanes_e5] + [_float32_bits(l, "e8m0") for l in lanes_e8], 1)
    assert_bits(back.view(np.uint32), want, "float32x2/float32x4 of fp8 pairs and quads")


def _float32_bits(bits, kind):
    """float32(x)'s bits of fp8 bit patterns (the model of test_every_fp8_value_to_every_type)."""
    values = np.array([fp8_value(int(b), kind) for b in bits])
    out = values.astype(np.float32).view(np.uint32).copy()
    out[np.isnan(values)] = 0x7FFF0000 if kind == "e8m0" else 0x7FFFFFFF
    return out


# ---- in kernels: locals, device functions, arrays, host arguments -------------------------------------------------
@cuda.jit(device=True)
def halve_in_e4m3(x):
    return fp8_e4m3(float32(x) / 2)


@cuda.jit
def plumbing(a, s, out, store):
    i = cuda.grid(1)
    if i < a.size:
        loc = cuda.local.array(2, fp8_e4m3)
        loc[0] = halve_in_e4m3(a[i])                   # a device function takes and returns fp8
        loc[1] = s
        t = (loc[0], loc[1])
        out[i, 0] = float32(t[0])
        out[i, 1] = float32(t[1])
        store[i] = loc[0]


def test_fp8_values_in_kernels_and_host_arguments(backend, rng):
    a = rng.standard_normal(300).astype(np.float32).astype(ML["e4m3"])
    out = np.zeros((a.size, 2), np.float32)
    store = np.zeros(a.size, ML["e4m3"])
    plumbing[3, 128](a, ML["e4m3"](-2.5), out, store)               # an ml_dtypes scalar argument: its bits
    want = (a.astype(np.float32) / 2).astype(np.float32)
    np.testing.assert_array_equal(store.view(np.uint8), from_float(want.astype(np.float64), "e4m3", SAT))
    np.testing.assert_array_equal(out[:, 0], store.astype(np.float32))
    assert (out[:, 1] == -2.5).all()
    d = cuda.to_device(a)                                           # device arrays of it too
    dstore = cuda.device_array(a.size, ML["e4m3"])
    plumbing[3, 128](d, ML["e4m3"](1.5), out, dstore)
    np.testing.assert_array_equal(dstore.copy_to_host().view(np.uint8), store.view(np.uint8))
    # every type's arrays and scalars, e5m2's NumPy kind being 'f'
    for kind, typ in (("e5m2", fp8_e5m2), ("e8m0", fp8_e8m0)):
        vals = ALL_BITS.view(ML[kind])
        got = np.zeros(256, np.float32)
        scalar = np.zeros(1, np.float32)
        _echo[2, 128](vals, got, vals[7], scalar)
        np.testing.assert_array_equal(got.view(np.uint32), _float32_bits(ALL_BITS, kind))
        assert scalar[0] == vals[7].astype(np.float32)
        assert typ(0.25) == ML[kind](0.25) and isinstance(typ(0.25), ML[kind])    # outside a kernel: ml_dtypes'


@cuda.jit
def _echo(a, out, s, so):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = float32(a[i])
    if i == 0:
        so[0] = float32(s)


GLOBAL_INF = ml_dtypes.float8_e5m2(float("inf"))
GLOBAL_NAN = np.uint8(0xFF).view(ML["e4m3"])


@cuda.jit
def frozen(out):
    out[0] = float32(GLOBAL_INF)                   # a global ml_dtypes scalar is its bits, not a saturating cast
    out[1] = float32(GLOBAL_NAN)


def test_frozen_globals_keep_their_bits(backend):
    out = np.zeros(2, np.float32)
    frozen[1, 1](out)
    assert out[0] == np.inf and np.isnan(out[1])


def test_eager_signature_takes_ml_dtypes_scalars(backend):
    @cuda.jit("void(fp8_e4m3, fp8_e5m2[:], float32[:])")
    def k(x, a, out):
        out[0] = float32(x)
        out[1] = float32(a[0])
    out = np.zeros(2, np.float32)
    k[1, 1](ML["e4m3"](0.5), np.array([3.0], ML["e5m2"]), out)
    assert list(out) == [0.5, 3.0]
    with pytest.raises(TypingError, match="No matching definition"):
        k[1, 1](0.5, np.array([3.0], ML["e5m2"]), out)              # a float is not an fp8 argument


def test_numba_cuda_names():
    from cudajit.cuda._internal import cuda_fp8
    from cudajit.cuda import fp8 as fp8_module
    for name in ("fp8_e5m2", "fp8_e4m3", "fp8_e8m0", "cvt_float_to_fp8", "cvt_double_to_fp8",
                 "cvt_bfloat16raw_to_fp8", "cvt_bfloat16raw_to_e8m0", "cvt_float_to_e8m0", "cvt_double_to_e8m0",
                 "cvt_e8m0_to_bf16raw", "cvt_float2_to_fp8x2", "cvt_double2_to_fp8x2", "cvt_float2_to_e8m0x2",
                 "cvt_double2_to_e8m0x2", "saturation_t", "fp8_interpretation_t", "fp8x2_e4m3", "fp8x4_e8m0"):
        assert getattr(cuda_fp8, name) is getattr(fp8_module, name), name
        assert name in cuda_fp8.__all__
    assert cuda_fp8._type_fp8_e4m3 is fp8_e4m3 and cuda.fp8.cvt_float_to_fp8 is cvt_float_to_fp8
    assert [fp8_e5m2.__name__, fp8_e4m3.__name__, fp8_e8m0.__name__] == ["fp8_e5m2", "fp8_e4m3", "fp8_e8m0"]
    assert (int(saturation_t.NOSAT), int(saturation_t.SATFINITE)) == (0, 1)
    assert (int(fp8_interpretation_t.E4M3), int(fp8_interpretation_t.E5M2)) == (0, 1)
    assert [int(cudaRoundMode.cudaRoundZero), int(cudaRoundMode.cudaRoundPosInf)] == [1, 2]
    with pytest.raises(RuntimeError, match="inside a @cuda.jit kernel"):
        cvt_float_to_fp8(1.0, saturation_t.NOSAT, fp8_interpretation_t.E4M3)


# ---- typing and errors ---------------------------------------------------------------------------------------------
def _compile_error(fn, *args):
    with pytest.raises(TypingError) as info:
        cuda.jit(fn)[1, 1](*args)
    return str(info.value)


def _arith(a, out):
    out[0] = float32(a[0] + a[0])


def _compare(a, out):
    out[0] = a[0] < a[0]


def _implicit_store(a, out):
    out[0] = a[0]


def _implicit_into(a, out):
    a[0] = out[0]


def _other_fp8(a, out):
    out[0] = float32(fp8_e5m2(a[0]))


def _to_complex(a, out):
    out[0] = float32(fp8_e5m2(1j))


def _bad_sat(a, out):
    out[0] = cvt_float_to_fp8(1.0, 2, fp8_interpretation_t.E5M2)


def _bad_rounding(a, out):
    out[0] = cvt_float_to_e8m0(1.0, saturation_t.NOSAT, cudaRoundMode.cudaRoundNearest)


def _bad_interp_type(a, out):
    out[0] = cvt_float_to_fp8(1.0, saturation_t.NOSAT, 1.0)


def _bad_vector(a, out):
    out[0] = cvt_float2_to_fp8x2(1.0, saturation_t.NOSAT, fp8_interpretation_t.E4M3)


def _bad_raw(a, out):
    out[0] = cvt_bfloat16raw_to_fp8(1.0, saturation_t.NOSAT, fp8_interpretation_t.E4M3)


def _bad_pair(a, out):
    out[0] = fp8x2_e4m3(cuda.float32x4(1, 2, 3, 4)).__x


def _fp8_argument_to_cvt(a, out):
    out[0] = cvt_float_to_fp8(a[0], saturation_t.NOSAT, fp8_interpretation_t.E4M3)


def _unknown_attribute(a, out):
    out[0] = cvt_e8m0_to_bf16raw(uint8(3)).y


@pytest.mark.parametrize("fn, message", [
    (_arith, "unsupported operand types for +: fp8_e4m3 and fp8_e4m3"),
    (_compare, "cannot compare fp8_e4m3 and fp8_e4m3"),
    (_implicit_store, "cannot convert fp8_e4m3 to float32 implicitly"),
    (_implicit_into, "cannot convert float32 to fp8_e4m3 implicitly"),
    (_other_fp8, "fp8_e5m2() takes an integer, bool, float16, float32, float64 or bfloat16, not fp8_e4m3"),
    (_to_complex, "not complex128"),
    (_bad_sat, "saturate must be saturation_t.NOSAT (0) or saturation_t.SATFINITE (1), not 2"),
    (_bad_rounding, "rounding must be cudaRoundMode.cudaRoundZero (1) or cudaRoundMode.cudaRoundPosInf (2)"),
    (_bad_interp_type, "fp8_interpretation must be fp8_interpretation_t.E4M3 (0) or fp8_interpretation_t.E5M2 (1)"),
    (_bad_vector, "takes a float32x2 or float64x2 as its first argument, not float64"),
    (_bad_raw, "takes a bfloat16_raw (what cvt_e8m0_to_bf16raw returns) or a bfloat16"),
    (_bad_pair, "fp8x2_e4m3() takes a float32x2 or float64x2, not float32x4"),
    (_fp8_argument_to_cvt, "cannot convert fp8_e4m3 to float32 implicitly"),
    (_unknown_attribute, "'bfloat16_raw' has no attribute 'y'"),
])
def test_errors_name_the_line(backend, fn, message):
    """As in numba-cuda an fp8 value has no arithmetic and no implicit conversion; wrong modes and arguments are
    TypingErrors naming this file and the line."""
    a = np.zeros(1, ML["e4m3"])
    out = np.zeros(1, np.float32)
    text = _compile_error(fn, a, out)
    assert message in text, text
    assert "test_fp8.py" in text and fn.__code__.co_firstlineno + 1 == int(text.split("test_fp8.py:")[1].split(":")[0])
    if fn in (_implicit_store, _implicit_into):
        assert "write " in text                                      # the hint: convert explicitly

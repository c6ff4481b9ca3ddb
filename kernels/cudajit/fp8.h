// cudajit: the fp8 types in kernels (owned by the compiler), numba-cuda's numba.cuda._internal.cuda_fp8: one byte
// each, fp8_e4m3 and fp8_e5m2 (OCP's formats; e4m3 has no inf, 0x7f/0xff are its NaNs) and fp8_e8m0 (a power of two
// 2^(b - 127), 0xff NaN), as ml_dtypes' float8_e4m3fn, float8_e5m2 and float8_e8m0fnu store them; their pairs and
// quads (fp8x2_*, fp8x4_*) and CUDA's __nv_cvt_* functions. The rules are CUDA 13's cuda_fp8.hpp (its software
// path, which sm_90 runs): round to nearest even with __NV_NOSAT / __NV_SATFINITE for e4m3/e5m2, round toward zero
// or up to a power of two for e8m0. Every conversion is integer bit manipulation written once for both targets (no
// cuda_fp8.h, no fp8 PTX, no float arithmetic that fast math could flush), so the CPU backend and any GPU agree bit
// for bit.
#pragma once
#include "config.h"
#include "half.h"
#include "bfloat16.h"

namespace cj {

// __nv_bfloat16_raw: a bfloat16's bits in a struct, what cvt_e8m0_to_bf16raw returns (.x).
struct bfloat16_raw {
    uint16_t x;
};

namespace fp8 {

// CUDA's enumerations, by value: __nv_saturation_t, __nv_fp8_interpretation_t, cudaRoundMode.
enum : int { nosat = 0, satfinite = 1 };
enum : int { e4m3 = 0, e5m2 = 1, e8m0 = 2 };  // e8m0 is cudajit's own tag (CUDA has no interpretation for it)
enum : int { round_nearest = 0, round_zero = 1, round_pos_inf = 2, round_min_inf = 3 };

template <class A, class B> struct same { static constexpr bool value = false; };
template <class A> struct same<A, A> { static constexpr bool value = true; };

using bf16::top_bit;

// ---- to e4m3 / e5m2 (__nv_cvt_double_to_fp8 and the functions built on it) ----

// (-1)^neg * mag * 2^exp2, an exact value, rounded once to nearest even in the kind's format (subnormals included).
// Past the largest finite value (e4m3: at or above 464, where the tie goes to 448; e5m2: at or above 61440, the tie
// to inf) the result is that largest value with __NV_SATFINITE, else e5m2's inf or e4m3's NaN (0x7f): the sign is
// kept in every case, as CUDA's code ORs it in last.
CJ_HD inline uint8_t round_bits(bool neg, uint64_t mag, int exp2, int saturate, int kind) {
    const uint32_t sign = neg ? 0x80u : 0u;
    if (mag == 0) return static_cast<uint8_t>(sign);
    const int m = kind == e4m3 ? 3 : 2;            // mantissa bits
    const int emin = kind == e4m3 ? -6 : -14;      // the smallest normal exponent
    const int e = top_bit(mag) + exp2;             // 2^e <= value < 2^(e+1)
    const uint32_t beyond = kind == e4m3 ? 0x7fu : 0x7cu;  // the first encoding past the largest finite value
    uint32_t bits = beyond;
    if (e <= 16) {                                 // 2^17 is past both formats: no need to round it
        const int q = (e < emin ? emin : e) - m;   // the weight of the last bit kept
        const int s = q - exp2;                    // how many low bits of mag are dropped
        uint64_t kept = 0;
        bool up = false;
        if (s <= 0) {
            kept = mag << -s;                      // < 2^(m+1): exact
        } else if (s < 64) {
            const uint64_t rest = mag & ((uint64_t(1) << s) - 1), half = uint64_t(1) << (s - 1);
            kept = mag >> s;
            up = rest > half || (rest == half && (kept & 1u));
        } else {                                   // everything is dropped, below half the last bit (mag < 2^63)
            up = false;
        }
        // kept < 2^m for subnormals (exponent field 0), else 2^m <= kept < 2^(m+1): one formula, and a carry out of
        // the significand moves into the exponent by itself
        bits = (static_cast<uint32_t>(q + m - emin) << m) + static_cast<uint32_t>(kept) + (up ? 1u : 0u);
    }
    if (bits >= beyond) bits = saturate == satfinite ? beyond - 1u : beyond;  // e4m3's NaN, e5m2's inf
    return static_cast<uint8_t>(sign | bits);
}

// A double's bits (__nv_cvt_double_to_fp8). A NaN keeps its sign: e4m3's NaN, or e5m2's 0x7e with the double's two
// highest fraction bits (x86's and Python's NaN 0x7ff8... gives 0x7e).
CJ_HD inline uint8_t from_double_bits(uint64_t u, int saturate, int kind) {
    const bool neg = (u >> 63) != 0;
    const int biased = static_cast<int>((u >> 52) & 0x7ff);
    const uint64_t frac = u & ((uint64_t(1) << 52) - 1);
    if (biased == 0x7ff) {
        if (frac == 0) return round_bits(neg, 1, 1024, saturate, kind);        // inf: beyond either range
        const uint32_t nan = kind == e4m3 ? 0x7fu : (0x7eu | static_cast<uint32_t>((u >> 50) & 3u));
        return static_cast<uint8_t>((neg ? 0x80u : 0u) | nan);
    }
    const uint64_t mag = biased ? (frac | (uint64_t(1) << 52)) : frac;
    return round_bits(neg, mag, (biased ? biased : 1) - 1075, saturate, kind);
}

CJ_HD inline uint8_t from_double(double d, int saturate, int kind) {
    return from_double_bits(bit_cast<uint64_t>(d), saturate, kind);
}

// __nv_cvt_float_to_fp8: as the float's exact value; every NaN is first CUDA's canonical 0x7fffffff (so 0x7f).
CJ_HD inline uint8_t from_float_bits(uint32_t u, int saturate, int kind) {
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fu;
    const bool neg = (u >> 31) != 0;
    const int biased = static_cast<int>((u >> 23) & 0xff);
    const uint64_t frac = u & 0x7fffffu;
    if (biased == 0xff) return round_bits(neg, 1, 1024, saturate, kind);       // inf
    const uint64_t mag = biased ? (frac | 0x800000u) : frac;
    return round_bits(neg, mag, (biased ? biased : 1) - 150, saturate, kind);
}

CJ_HD inline uint8_t from_float(float f, int saturate, int kind) {
    return from_float_bits(bit_cast<uint32_t>(f), saturate, kind);
}

// A half and a bfloat16 are exact in float (__nv_cvt_halfraw_to_fp8, __nv_cvt_bfloat16raw_to_fp8).
CJ_HD inline uint8_t from_half(half h, int saturate, int kind) { return from_float(float(h), saturate, kind); }
CJ_HD inline uint8_t from_bf16_bits(uint16_t b, int saturate, int kind) {
    return from_float_bits(static_cast<uint32_t>(b) << 16, saturate, kind);
}

// ---- to e8m0 (__nv_cvt_bfloat16raw_to_e8m0 and the float and double forms built on it) ----

// A bfloat16's exponent field, rounded up (round_pos_inf) when the bfloat16 lies strictly between two powers of two
// above 2^-127; any other rounding mode truncates (CUDA's code tests for cudaRoundPosInf only). The sign is
// ignored; NaN gives 0xff, and so do inf and overflow unless saturate clips them to 0xfe (2^127).
CJ_HD inline uint8_t e8m0_from_bf16_bits(uint16_t x, int saturate, int rounding) {
    const uint32_t a = x & 0x7fffu;
    uint32_t res = (x >> 7) & 0xffu;
    if (rounding == round_pos_inf && (x & 0x7fu) && a > 0x40u && a < 0x7f80u) ++res;
    if (saturate == satfinite && a <= 0x7f80u && res == 0xffu) --res;
    return static_cast<uint8_t>(res);
}

// __nv_cvt_float_to_e8m0's software path (sm_90's): cudaRoundZero truncates the float to a bfloat16 first; any other
// mode takes |x| rounded up to a bfloat16, then rounds as e8m0_from_bf16_bits does (up only for cudaRoundPosInf).
CJ_HD inline uint8_t e8m0_from_float_bits(uint32_t u, int saturate, int rounding) {
    uint16_t b;
    if (rounding == round_zero) {
        b = (u & 0x7fffffffu) > 0x7f800000u ? uint16_t(0x7fff) : static_cast<uint16_t>(u >> 16);
    } else {
        const uint32_t a = u & 0x7fffffffu;
        if (a > 0x7f800000u) b = 0x7fff;
        else if (a < 0x7f800000u && (a & 0xffffu)) b = static_cast<uint16_t>((a >> 16) + 1u);
        else b = static_cast<uint16_t>(a >> 16);
    }
    return e8m0_from_bf16_bits(b, saturate, rounding);
}

CJ_HD inline uint8_t e8m0_from_float(float f, int saturate, int rounding) {
    return e8m0_from_float_bits(bit_cast<uint32_t>(f), saturate, rounding);
}

// A double as the float CUDA's __internal_double_to_float_with_sticky makes of it: truncated to float's precision,
// its last bit set when that dropped anything (round to odd), so the float's power-of-two rounding is the double's;
// a finite double beyond float's range gives FLT_MAX. NaN gives a float NaN, inf stays inf.
CJ_HD inline uint32_t double_to_float_bits_odd(uint64_t u) {
    const uint32_t sign = static_cast<uint32_t>(u >> 63) << 31;
    const int biased = static_cast<int>((u >> 52) & 0x7ff);
    const uint64_t frac = u & ((uint64_t(1) << 52) - 1);
    if (biased == 0x7ff) return sign | 0x7f800000u | (frac ? (0x400000u | static_cast<uint32_t>(frac >> 29)) : 0u);
    if (biased == 0 && frac == 0) return sign;
    const uint64_t mag = biased ? (frac | (uint64_t(1) << 52)) : frac;
    const int exp2 = (biased ? biased : 1) - 1075;
    const int e = top_bit(mag) + exp2;
    if (e > 127) return sign | 0x7f7fffffu;
    const int q = (e < -126 ? -126 : e) - 23;      // the weight of float's last bit there
    const int s = q - exp2;                        // > 0: a double has more bits than any float there
    const uint64_t kept = s < 64 ? mag >> s : 0;
    const bool inexact = s < 64 ? (mag & ((uint64_t(1) << s) - 1)) != 0 : true;
    const uint32_t bits = (static_cast<uint32_t>(q + 149) << 23) + static_cast<uint32_t>(kept);
    return sign | bits | (inexact ? 1u : 0u);
}

CJ_HD inline uint8_t e8m0_from_double(double d, int saturate, int rounding) {
    return e8m0_from_float_bits(double_to_float_bits_odd(bit_cast<uint64_t>(d)), saturate, rounding);
}

// An integer's |i| rounded up to a power of two (0 gives 0x00, 2^-127): what CUDA's e8m0 constructors from every
// integer type compute, through float, double or a bfloat16 rounded to nearest and then bumped.
template <class I> CJ_HD inline uint8_t e8m0_from_int(I i) {
    const bool neg = I(-1) < I(0) && i < I(0);
    const uint64_t mag = neg ? uint64_t(0) - static_cast<uint64_t>(i) : static_cast<uint64_t>(i);
    if (mag == 0) return 0;
    const int t = top_bit(mag);
    return static_cast<uint8_t>(127 + t + ((mag & (mag - 1)) ? 1 : 0));
}

// __nv_cvt_e8m0_to_bf16raw: 2^(x - 127) as a bfloat16's bits (0x00 is the subnormal 2^-127); 0xff is NaN 0x7fff.
CJ_HD inline uint16_t e8m0_to_bf16_bits(uint8_t x) {
    if (x == 0xffu) return 0x7fff;
    if (x == 0) return 0x0040;
    return static_cast<uint16_t>(static_cast<uint32_t>(x) << 7);
}

// ---- from fp8: a value's parts ----

// NaN, inf, or (-1)^neg * sig * 2^exp.
struct Parts {
    bool nan, inf, neg;
    uint32_t sig;
    int exp;
};

CJ_HD inline Parts decode(uint8_t b, int kind) {
    if (kind == e8m0) return Parts{b == 0xffu, false, false, 1u, static_cast<int>(b) - 127};
    const bool neg = (b & 0x80u) != 0;
    const uint32_t a = b & 0x7fu;
    if (kind == e4m3 ? a == 0x7fu : a > 0x7cu) return Parts{true, false, neg, 0, 0};
    if (kind == e5m2 && a == 0x7cu) return Parts{false, true, neg, 0, 0};
    const int m = kind == e4m3 ? 3 : 2, bias = kind == e4m3 ? 7 : 15;
    const int field = static_cast<int>(a >> m);
    const uint32_t frac = a & ((1u << m) - 1u);
    return field ? Parts{false, false, neg, frac | (1u << m), field - bias - m}
                 : Parts{false, false, neg, frac, 1 - bias - m};
}

// A finite value's bits in a binary format of `m` fraction bits and `ebits` exponent bits whose normal range holds it
// (float holds every fp8 value as a normal number, half every e4m3 value).
CJ_HD inline uint64_t normal_bits(const Parts& p, int m, int ebits) {
    const uint64_t sign = static_cast<uint64_t>(p.neg ? 1 : 0) << (m + ebits);
    if (p.sig == 0) return sign;
    const int t = top_bit(p.sig);
    const uint64_t field = static_cast<uint64_t>(t + p.exp + (1 << (ebits - 1)) - 1);
    return sign | (field << m) | ((static_cast<uint64_t>(p.sig) << (m - t)) & ((uint64_t(1) << m) - 1));
}

// float: a NaN is CUDA's canonical 0x7fffffff (its conversions go through a half whose NaN is 0x7fff), except
// e8m0's, which is its bfloat16's 0x7fff0000.
CJ_HD inline uint32_t to_float_bits(uint8_t b, int kind) {
    if (kind == e8m0) return static_cast<uint32_t>(e8m0_to_bf16_bits(b)) << 16;  // 2^-127 is float's subnormal
    const Parts p = decode(b, kind);
    if (p.nan) return 0x7fffffffu;
    if (p.inf) return p.neg ? 0xff800000u : 0x7f800000u;
    return static_cast<uint32_t>(normal_bits(p, 23, 8));
}

// double: the float widened exactly (CUDA's static_cast<double>(float(x))); a NaN keeps the float's payload.
CJ_HD inline uint64_t widen_float_bits(uint32_t f) {
    const uint64_t sign = static_cast<uint64_t>(f >> 31) << 63;
    const int biased = static_cast<int>((f >> 23) & 0xff);
    const uint64_t frac = f & 0x7fffffu;
    if (biased == 0xff) return sign | 0x7ff0000000000000ull | (frac << 29);
    if (biased == 0) {
        if (frac == 0) return sign;
        const int t = top_bit(frac);             // a subnormal float is a normal double
        return sign | (static_cast<uint64_t>(t - 149 + 1023) << 52) | ((frac << (52 - t)) & ((uint64_t(1) << 52) - 1));
    }
    return sign | (static_cast<uint64_t>(biased - 127 + 1023) << 52) | (frac << 29);
}

CJ_HD inline uint64_t to_double_bits(uint8_t b, int kind) { return widen_float_bits(to_float_bits(b, kind)); }

// half: e5m2 is a half's high byte; every e4m3 value is a normal half; NaN is 0x7fff. e8m0 is rounded to nearest
// even (__float2half_rn): 2^16 and above is inf, 2^-25 and below 0.
CJ_HD inline uint16_t to_half_bits(uint8_t b, int kind) {
    const Parts p = decode(b, kind);
    if (p.nan) return 0x7fff;
    if (kind == e5m2) return static_cast<uint16_t>(static_cast<uint32_t>(b) << 8);
    if (kind == e4m3) return static_cast<uint16_t>(normal_bits(p, 10, 5));
    const int k = p.exp;                         // e8m0: 2^k
    if (k > 15) return 0x7c00;
    if (k >= -14) return static_cast<uint16_t>((k + 15) << 10);
    if (k >= -24) return static_cast<uint16_t>(1u << (k + 24));
    return 0;                                    // 2^-25 is a tie between 0 and 2^-24: even
}

// bfloat16: exact (e4m3/e5m2 through __float2bfloat16_rz of the float, e8m0 directly); NaN is 0x7fff.
CJ_HD inline uint16_t to_bf16_bits(uint8_t b, int kind) {
    if (kind == e8m0) return e8m0_to_bf16_bits(b);
    const uint32_t f = to_float_bits(b, kind);
    return (f & 0x7fffffffu) > 0x7f800000u ? uint16_t(0x7fff) : static_cast<uint16_t>(f >> 16);
}

// An integer, toward zero and saturated to I's range; NaN gives 0, or 0x8000000000000000 for the 64-bit types (the
// values CUDA documents for __half2ll_rz, __bfloat162ull_rz ... that its conversion operators use).
template <class I> CJ_HD inline I to_int(uint8_t b, int kind) {
    constexpr bool is_signed = I(-1) < I(0);
    constexpr int bits = 8 * static_cast<int>(sizeof(I));
    const Parts p = decode(b, kind);
    if (p.nan) return sizeof(I) == 8 ? static_cast<I>(uint64_t(1) << 63) : I(0);
    const I hi = is_signed ? static_cast<I>(~int_min<I>()) : static_cast<I>(~I(0));
    const I lo = is_signed ? int_min<I>() : I(0);
    if (p.inf) return p.neg ? lo : hi;
    uint64_t mag = 0;
    bool over = false;                           // |x| >= 2^64
    if (p.exp >= 0) {
        over = p.sig != 0 && top_bit(p.sig) + p.exp >= 64;
        mag = over ? 0 : static_cast<uint64_t>(p.sig) << p.exp;
    } else {
        mag = p.exp > -32 ? (p.sig >> -p.exp) : 0;
    }
    if (p.neg) {
        if (!is_signed) return I(0);
        const uint64_t limit = uint64_t(1) << (bits - 1);   // |int_min|
        return over || mag >= limit ? lo : static_cast<I>(uint64_t(0) - mag);
    }
    return over || mag > static_cast<uint64_t>(hi) ? hi : static_cast<I>(mag);
}

// bool: a nonzero value or NaN (CUDA's operator bool tests the bits below the sign); every e8m0 is nonzero.
CJ_HD inline bool to_bool(uint8_t b, int kind) { return kind == e8m0 || (b & 0x7fu) != 0; }

template <class I> struct is_int { static constexpr bool value = bf16::is_int<I>::value; };

}  // namespace fp8

// One fp8 value: fp8_e4m3, fp8_e5m2, fp8_e8m0 (numba-cuda's names; CUDA's __nv_fp8_e4m3 ...). Constructors are CUDA's:
// e4m3/e5m2 round to nearest even with __NV_SATFINITE (integers through float, as CUDA's do), e8m0 rounds |x| up to
// a power of two, saturating. Explicit: the compiler writes every conversion (fp8::to below for the other way).
template <int Kind> struct fp8_t {
    uint8_t bits;
    static constexpr int kind = Kind;
    fp8_t() = default;
    CJ_HD explicit fp8_t(double d)
        : bits(Kind == fp8::e8m0 ? fp8::e8m0_from_double(d, fp8::satfinite, fp8::round_pos_inf)
                                 : fp8::from_double(d, fp8::satfinite, Kind)) {}
    CJ_HD explicit fp8_t(float f)
        : bits(Kind == fp8::e8m0 ? fp8::e8m0_from_float(f, fp8::satfinite, fp8::round_pos_inf)
                                 : fp8::from_float(f, fp8::satfinite, Kind)) {}
    CJ_HD explicit fp8_t(half h) : fp8_t(float(h)) {}                          // a half is exact in float
    CJ_HD explicit fp8_t(bfloat16 b)
        : bits(Kind == fp8::e8m0 ? fp8::e8m0_from_bf16_bits(b.bits, fp8::satfinite, fp8::round_pos_inf)
                                 : fp8::from_bf16_bits(b.bits, fp8::satfinite, Kind)) {}
    CJ_HD explicit fp8_t(bool b) : fp8_t(b ? 1.0f : 0.0f) {}
    template <class I, bf16::if_int<I> = 0>
    CJ_HD explicit fp8_t(I i)
        : bits(Kind == fp8::e8m0 ? fp8::e8m0_from_int(i) : fp8::from_float(static_cast<float>(i), fp8::satfinite, Kind)) {}
    CJ_HD static fp8_t from_bits(uint8_t b) {
        fp8_t x;
        x.bits = b;
        return x;
    }
};
using fp8_e4m3 = fp8_t<fp8::e4m3>;
using fp8_e5m2 = fp8_t<fp8::e5m2>;
using fp8_e8m0 = fp8_t<fp8::e8m0>;

// N (2 or 4) fp8 values of one kind in one integer, lane i in byte i: fp8x2_e4m3 ... fp8x4_e8m0. Built from a
// vector of N floats or doubles (cj::vec, lang.h: .x .y .z .w) as N scalars are; to_vec gives N floats.
template <int Kind, int N> struct fp8xn_t {
    using storage = typename uint_of<N>::type;
    storage bits;
    fp8xn_t() = default;
    template <class V> CJ_HD static fp8xn_t from_vec(const V& v) {
        fp8xn_t r;
        r.bits = static_cast<storage>(fp8_t<Kind>(v.x).bits | (static_cast<uint32_t>(fp8_t<Kind>(v.y).bits) << 8));
        if constexpr (N == 4) {
            r.bits |= static_cast<storage>((static_cast<uint32_t>(fp8_t<Kind>(v.z).bits) << 16) |
                                           (static_cast<uint32_t>(fp8_t<Kind>(v.w).bits) << 24));
        }
        return r;
    }
    CJ_HD float lane(int i) const {
        return bit_cast<float>(fp8::to_float_bits(static_cast<uint8_t>(bits >> (8 * i)), Kind));
    }
    template <class V> CJ_HD V to_vec() const {
        if constexpr (N == 2) return V{lane(0), lane(1)};
        else return V{lane(0), lane(1), lane(2), lane(3)};
    }
};
using fp8x2_e4m3 = fp8xn_t<fp8::e4m3, 2>;
using fp8x2_e5m2 = fp8xn_t<fp8::e5m2, 2>;
using fp8x2_e8m0 = fp8xn_t<fp8::e8m0, 2>;
using fp8x4_e4m3 = fp8xn_t<fp8::e4m3, 4>;
using fp8x4_e5m2 = fp8xn_t<fp8::e5m2, 4>;
using fp8x4_e8m0 = fp8xn_t<fp8::e8m0, 4>;

namespace fp8 {

// An fp8 value converted to To, as CUDA's conversion operators do (see to_float_bits ... to_int above).
template <class To, int Kind> CJ_HD inline To to(fp8_t<Kind> x) {
    if constexpr (same<To, float>::value) return bit_cast<float>(to_float_bits(x.bits, Kind));
    else if constexpr (same<To, double>::value) return bit_cast<double>(to_double_bits(x.bits, Kind));
    else if constexpr (same<To, half>::value) return bit_cast<half>(to_half_bits(x.bits, Kind));
    else if constexpr (same<To, bfloat16>::value) return bfloat16::from_bits(to_bf16_bits(x.bits, Kind));
    else if constexpr (same<To, bool>::value) return to_bool(x.bits, Kind);
    else return to_int<To>(x.bits, Kind);
}

// CUDA's __nv_cvt_* functions, the storage (uint8_t, uint16_t) in and out.
CJ_HD inline uint8_t cvt_double_to_fp8(double x, int saturate, int interp) {
    return from_double(x, saturate, interp == e4m3 ? e4m3 : e5m2);
}
CJ_HD inline uint8_t cvt_float_to_fp8(float x, int saturate, int interp) {
    return from_float(x, saturate, interp == e4m3 ? e4m3 : e5m2);
}
// Two converted bytes as CUDA packs an x2 result: .x in the low byte.
CJ_HD inline uint16_t pack_pair(uint8_t lo, uint8_t hi) {
    return static_cast<uint16_t>(lo | (static_cast<uint32_t>(hi) << 8));
}
CJ_HD inline uint8_t cvt_bfloat16raw_to_fp8(bfloat16_raw x, int saturate, int interp) {
    return from_bf16_bits(x.x, saturate, interp == e4m3 ? e4m3 : e5m2);
}
template <class V> CJ_HD inline uint16_t cvt_float2_to_fp8x2(const V& v, int saturate, int interp) {
    return pack_pair(cvt_float_to_fp8(v.x, saturate, interp), cvt_float_to_fp8(v.y, saturate, interp));
}
template <class V> CJ_HD inline uint16_t cvt_double2_to_fp8x2(const V& v, int saturate, int interp) {
    return pack_pair(cvt_double_to_fp8(v.x, saturate, interp), cvt_double_to_fp8(v.y, saturate, interp));
}
CJ_HD inline uint8_t cvt_bfloat16raw_to_e8m0(bfloat16_raw x, int saturate, int rounding) {
    return e8m0_from_bf16_bits(x.x, saturate, rounding);
}
CJ_HD inline uint8_t cvt_float_to_e8m0(float x, int saturate, int rounding) {
    return e8m0_from_float(x, saturate, rounding);
}
CJ_HD inline uint8_t cvt_double_to_e8m0(double x, int saturate, int rounding) {
    return e8m0_from_double(x, saturate, rounding);
}
template <class V> CJ_HD inline uint16_t cvt_float2_to_e8m0x2(const V& v, int saturate, int rounding) {
    return pack_pair(e8m0_from_float(v.x, saturate, rounding), e8m0_from_float(v.y, saturate, rounding));
}
template <class V> CJ_HD inline uint16_t cvt_double2_to_e8m0x2(const V& v, int saturate, int rounding) {
    return pack_pair(e8m0_from_double(v.x, saturate, rounding), e8m0_from_double(v.y, saturate, rounding));
}
CJ_HD inline bfloat16_raw cvt_e8m0_to_bf16raw(uint8_t x) { return bfloat16_raw{e8m0_to_bf16_bits(x)}; }

}  // namespace fp8

// Truth values (`if x:`, bool(x)) of the fp8 types: CUDA's operator bool.
template <int Kind> CJ_INLINE bool py_bool(fp8_t<Kind> x) { return fp8::to_bool(x.bits, Kind); }

}  // namespace cj

// cudajit: bfloat16 in kernels (owned by the compiler), numba-cuda's numba.cuda.bf16. cj::bfloat16 is two bytes,
// the top half of a float32, as ml_dtypes.bfloat16 stores it in NumPy arrays. Every rounding is integer bit
// manipulation written once for both targets (no cuda_bf16.h, no bf16 PTX), so the CPU backend and the GPU agree
// bit for bit: + - * / compute in float and round once (float's 24 bits hold enough for that to equal bfloat16
// arithmetic: 24 >= 2 * 8 + 2), fma adds exactly in integers. A NaN result is CUDA's canonical NaN, 0x7fff.
#pragma once
#include "config.h"
#include "half.h"
#include "mathfuncs.h"

namespace cj {

namespace bf16 {

// Rounding modes, as CUDA's _rn _rz _rd _ru suffixes: to nearest even, toward zero, down, up.
enum : int { rn = 0, rz = 1, rd = 2, ru = 3 };

template <class T> struct is_int { static constexpr bool value = false; };
#define CJ_BF16_INT(T) \
    template <> struct is_int<T> { static constexpr bool value = true; };
CJ_BF16_INT(char)
CJ_BF16_INT(signed char)
CJ_BF16_INT(unsigned char)
CJ_BF16_INT(short)
CJ_BF16_INT(unsigned short)
CJ_BF16_INT(int)
CJ_BF16_INT(unsigned int)
CJ_BF16_INT(long)
CJ_BF16_INT(unsigned long)
CJ_BF16_INT(long long)
CJ_BF16_INT(unsigned long long)
#undef CJ_BF16_INT
template <bool B> struct enable_if {};
template <> struct enable_if<true> { using type = int; };
template <class T> using if_int = typename enable_if<is_int<T>::value>::type;

constexpr uint16_t kNaN = 0x7fff;   // what CUDA's conversions and arithmetic give for a NaN
constexpr uint16_t kInf = 0x7f80;
constexpr uint16_t kMax = 0x7f7f;   // the largest finite value
constexpr uint16_t kOne = 0x3f80;

CJ_HD inline int top_bit(uint64_t x) {  // x != 0
#if defined(CJ_GPU)
    return 63 - __clzll(static_cast<long long>(x));
#else
    return 63 - __builtin_clzll(x);
#endif
}

CJ_HD inline bool is_nan(uint16_t b) { return (b & 0x7fffu) > kInf; }
CJ_HD inline float to_float(uint16_t b) { return bit_cast<float>(static_cast<uint32_t>(b) << 16); }

// The bits of (-1)^neg * mag * 2^exp2, an exact value, rounded once in Mode (IEEE 754). Beyond the largest finite
// value the result is inf, or that largest value where the mode rounds toward zero.
template <int Mode> CJ_HD inline uint16_t round_bits(bool neg, uint64_t mag, int exp2) {
    const uint32_t sign = neg ? 0x8000u : 0u;
    if (mag == 0) return static_cast<uint16_t>(sign);
    const int e = top_bit(mag) + exp2;            // 2^e <= value < 2^(e+1)
    const int q = (e < -126 ? -126 : e) - 7;      // the weight of the last bit kept (2^-133 for subnormals)
    const int s = q - exp2;                       // how many low bits of mag are dropped (>= -7)
    uint64_t kept = 0;
    int vs_half = -1;                             // the dropped bits against half the last kept bit: -1, 0, 1
    bool inexact = true;
    if (s <= 0) {
        kept = mag << -s;
        inexact = false;
    } else if (s <= 64) {
        const uint64_t rest = s == 64 ? mag : mag & ((uint64_t(1) << s) - 1);
        const uint64_t half = uint64_t(1) << (s - 1);
        kept = s == 64 ? 0 : mag >> s;
        vs_half = rest > half ? 1 : (rest == half ? 0 : -1);
        inexact = rest != 0;
    }                                             // s > 64: everything is dropped, below half the last bit
    bool up = false;
    if (Mode == rn) up = vs_half > 0 || (vs_half == 0 && (kept & 1u));
    else if (Mode == rd) up = neg && inexact;
    else if (Mode == ru) up = !neg && inexact;
    // kept < 2^7 in the subnormal range (exponent field 0), else 2^7 <= kept < 2^8: one formula for both, and a
    // carry out of the significand moves into the exponent by itself
    const uint32_t bits = (static_cast<uint32_t>(q + 133) << 7) + static_cast<uint32_t>(kept) + (up ? 1u : 0u);
    if (bits >= kInf) {
        const bool to_inf = Mode == rn || (Mode == rd && neg) || (Mode == ru && !neg);
        return static_cast<uint16_t>(sign | (to_inf ? kInf : kMax));
    }
    return static_cast<uint16_t>(sign | bits);
}

template <int Mode> CJ_HD inline uint16_t from_float(float f) {
    const uint32_t u = bit_cast<uint32_t>(f);
    const uint32_t mag = u & 0x7fffffffu;
    if (mag > 0x7f800000u) return kNaN;
    if (Mode == rn) return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);  // a carry reaches inf
    const bool neg = (u >> 31) != 0;
    const uint32_t kept = mag >> 16, rest = mag & 0xffffu;
    const bool up = (Mode == rd && neg && rest != 0) || (Mode == ru && !neg && rest != 0);
    return static_cast<uint16_t>(((u >> 16) & 0x8000u) | (kept + (up ? 1u : 0u)));
}

template <int Mode> CJ_HD inline uint16_t from_double(double d) {
    const uint64_t u = bit_cast<uint64_t>(d);
    const bool neg = (u >> 63) != 0;
    const int biased = static_cast<int>((u >> 52) & 0x7ff);
    const uint64_t frac = u & ((uint64_t(1) << 52) - 1);
    if (biased == 0x7ff) return frac ? kNaN : static_cast<uint16_t>(neg ? 0xff80u : kInf);
    const uint64_t mag = biased ? (frac | (uint64_t(1) << 52)) : frac;
    return round_bits<Mode>(neg, mag, (biased ? biased : 1) - 1075);
}

// An integer's exact value rounded once (an int64 or uint64 does not fit a float: no double rounding through one).
template <int Mode, class I> CJ_HD inline uint16_t from_int(I i) {
    const bool neg = I(-1) < I(0) && i < I(0);
    const uint64_t u = static_cast<uint64_t>(i);
    return round_bits<Mode>(neg, neg ? uint64_t(0) - u : u, 0);
}

// To an integer in Mode, as CUDA's __bfloat162int_rn & co: out of range saturates to the type's limits, NaN gives 0
// (for 64-bit types 0x8000000000000000, as CUDA documents).
template <class I, int Mode> CJ_HD inline I to_int(uint16_t b) {
    constexpr bool is_signed = I(-1) < I(0);
    constexpr int bits = 8 * static_cast<int>(sizeof(I));
    if (is_nan(b)) return sizeof(I) == 8 ? static_cast<I>(uint64_t(1) << 63) : I(0);
    const float f = to_float(b);
    float r = f;
    if (f > -128.0f && f < 128.0f) {                // only there does a bfloat16 have a fraction
        const int32_t t = static_cast<int32_t>(f);   // toward zero
        const float frac = f - static_cast<float>(t);  // exact
        int32_t k = t;
        if (Mode == rd) k -= frac < 0.0f ? 1 : 0;
        else if (Mode == ru) k += frac > 0.0f ? 1 : 0;
        else if (Mode == rn) {
            const float a = frac < 0.0f ? -frac : frac;
            if (a > 0.5f || (a == 0.5f && (t & 1))) k += frac < 0.0f ? -1 : 1;
        }
        r = static_cast<float>(k);
    }
    // 2^(bits-1) (signed) or 2^bits (unsigned) as a float: the first value beyond the range
    const float beyond = bit_cast<float>(static_cast<uint32_t>(127 + bits - (is_signed ? 1 : 0)) << 23);
    if (r >= beyond) return is_signed ? static_cast<I>(~int_min<I>()) : static_cast<I>(~I(0));
    if (is_signed ? r < -beyond : r < 0.0f) return is_signed ? int_min<I>() : I(0);
    return static_cast<I>(r);
}

// A finite value as (-1)^neg * sig * 2^exp, sig < 2^8.
struct Parts {
    bool neg;
    uint64_t sig;
    int exp;
};
CJ_HD inline Parts parts(uint16_t x) {
    const int biased = (x >> 7) & 0xff;
    const uint64_t m = x & 0x7fu;
    return Parts{(x & 0x8000u) != 0, biased ? (m | 0x80u) : m, (biased ? biased : 1) - 134};
}
CJ_HD inline bool is_special(uint16_t x) { return (x & 0x7f80u) == 0x7f80u; }  // inf or NaN

// a * b + c rounded once: a * b is exact in integers (16 bits), and the sum is formed exactly too, the smaller
// operand's bits below the frame folded into a sticky bit (round to odd there; the result keeps 53 bits above it).
CJ_HD inline uint16_t fma_bits(uint16_t a, uint16_t b, uint16_t c) {
    if (is_special(a) || is_special(b) || is_special(c)) {
        // an inf or NaN operand: double arithmetic is exact about those (no finite product overflows a double)
        return from_double<rn>(static_cast<double>(to_float(a)) * static_cast<double>(to_float(b)) +
                               static_cast<double>(to_float(c)));
    }
    const Parts pa = parts(a), pb = parts(b), pc = parts(c);
    Parts p{pa.neg != pb.neg, pa.sig * pb.sig, pa.exp + pb.exp};
    if (p.sig == 0 && pc.sig == 0) return (p.neg && pc.neg) ? 0x8000u : 0u;  // +0 unless both zeros are -0
    if (p.sig == 0) return c;
    if (pc.sig == 0) return round_bits<rn>(p.neg, p.sig, p.exp);
    // the operand with the higher top bit is "big": its top goes to bit 62, whose weight sets the frame
    const bool p_big = top_bit(p.sig) + p.exp >= top_bit(pc.sig) + pc.exp;
    Parts big = p_big ? p : pc, small = p_big ? pc : p;
    const int shift = 62 - top_bit(big.sig);
    uint64_t mb = big.sig << shift;
    const int frame = big.exp - shift;               // the weight of bit 0
    const int d = small.exp - frame;
    uint64_t ms;
    if (d >= 0) {
        ms = small.sig << d;                         // its top bit is at most bit 62
    } else {
        // below the frame: mb's low 46 bits are zero and the result's top is near bit 62, so round to odd at
        // bit 0 keeps every rounding decision of the exact sum
        ms = -d >= 64 ? 1 : ((small.sig >> -d) | ((small.sig & ((uint64_t(1) << -d) - 1)) != 0 ? 1 : 0));
    }
    bool neg = big.neg;
    uint64_t m;
    if (big.neg == small.neg) {
        m = mb + ms;                                 // < 2^64: both are below 2^63
    } else if (mb >= ms) {
        m = mb - ms;
    } else {                                         // same top bit, small larger: exact, no sticky was made
        m = ms - mb;
        neg = small.neg;
    }
    if (m == 0) return 0;                            // exact cancellation is +0 when rounding to nearest
    return round_bits<rn>(neg, m, frame);
}

}  // namespace bf16

struct bfloat16 {
    uint16_t bits;
    bfloat16() = default;
    // Conversions round to nearest even, once, from the exact value (CUDA's __float2bfloat16, __double2bfloat16,
    // __ll2bfloat16_rn...). Explicit: the compiler writes every conversion, so C++ never picks one by itself.
    CJ_HD explicit bfloat16(float f) : bits(bf16::from_float<bf16::rn>(f)) {}
    CJ_HD explicit bfloat16(double d) : bits(bf16::from_double<bf16::rn>(d)) {}
    CJ_HD explicit bfloat16(half h) : bits(bf16::from_float<bf16::rn>(float(h))) {}  // a half is exact in float
    CJ_HD explicit bfloat16(bool b) : bits(b ? bf16::kOne : uint16_t(0)) {}
    template <class I, bf16::if_int<I> = 0> CJ_HD explicit bfloat16(I i) : bits(bf16::from_int<bf16::rn>(i)) {}
    CJ_HD operator float() const { return bf16::to_float(bits); }
    // To an integer: toward zero, saturating, NaN to 0 (CUDA's conversion operators, __bfloat162int_rz...).
    template <class I, bf16::if_int<I> = 0> CJ_HD explicit operator I() const { return bf16::to_int<I, bf16::rz>(bits); }
    CJ_HD static bfloat16 from_bits(uint16_t b) {
        bfloat16 x;
        x.bits = b;
        return x;
    }
};

CJ_INLINE bfloat16 operator+(bfloat16 a, bfloat16 b) { return bfloat16(float(a) + float(b)); }
CJ_INLINE bfloat16 operator-(bfloat16 a, bfloat16 b) { return bfloat16(float(a) - float(b)); }
CJ_INLINE bfloat16 operator*(bfloat16 a, bfloat16 b) { return bfloat16(float(a) * float(b)); }
CJ_INLINE bfloat16 operator/(bfloat16 a, bfloat16 b) { return bfloat16(float(a) / float(b)); }
CJ_INLINE bfloat16 operator-(bfloat16 a) { return bfloat16::from_bits(static_cast<uint16_t>(a.bits ^ 0x8000u)); }
CJ_INLINE bfloat16 operator+(bfloat16 a) { return a; }
CJ_INLINE bfloat16& operator+=(bfloat16& a, bfloat16 b) { return a = a + b; }
CJ_INLINE bfloat16& operator-=(bfloat16& a, bfloat16 b) { return a = a - b; }
CJ_INLINE bfloat16& operator*=(bfloat16& a, bfloat16 b) { return a = a * b; }
CJ_INLINE bfloat16& operator/=(bfloat16& a, bfloat16 b) { return a = a / b; }
CJ_INLINE bool operator==(bfloat16 a, bfloat16 b) { return float(a) == float(b); }
CJ_INLINE bool operator!=(bfloat16 a, bfloat16 b) { return float(a) != float(b); }  // NaN: true (CUDA's __hneu)
CJ_INLINE bool operator<(bfloat16 a, bfloat16 b) { return float(a) < float(b); }
CJ_INLINE bool operator<=(bfloat16 a, bfloat16 b) { return float(a) <= float(b); }
CJ_INLINE bool operator>(bfloat16 a, bfloat16 b) { return float(a) > float(b); }
CJ_INLINE bool operator>=(bfloat16 a, bfloat16 b) { return float(a) >= float(b); }

// ---- numba.cuda.bf16's functions (CUDA's __h* of cuda_bf16.h), namespace cj::bf16 ----
namespace bf16 {

template <int Mode> CJ_INLINE bfloat16 from_f32(float f) { return bfloat16::from_bits(from_float<Mode>(f)); }
template <int Mode, class I> CJ_INLINE bfloat16 from_integer(I i) { return bfloat16::from_bits(from_int<Mode>(i)); }
template <class I, int Mode> CJ_INLINE I to_integer(bfloat16 x) { return to_int<I, Mode>(x.bits); }

CJ_INLINE bool isnan(bfloat16 x) { return is_nan(x.bits); }
CJ_INLINE int32_t isinf(bfloat16 x) { return x.bits == kInf ? 1 : (x.bits == 0xff80u ? -1 : 0); }  // CUDA's int
CJ_INLINE bfloat16 neg(bfloat16 x) { return -x; }
CJ_INLINE bfloat16 abs(bfloat16 x) { return bfloat16::from_bits(static_cast<uint16_t>(x.bits & 0x7fffu)); }
CJ_INLINE bfloat16 fma(bfloat16 a, bfloat16 b, bfloat16 c) { return bfloat16::from_bits(fma_bits(a.bits, b.bits, c.bits)); }

// Clamped to [0, 1]; NaN gives +0 (CUDA's _sat: max with 0, then min with 1).
CJ_INLINE bfloat16 sat(bfloat16 x) {
    const float f = float(x);
    if (!(f > 0.0f)) return bfloat16::from_bits(0);
    return f > 1.0f ? bfloat16::from_bits(kOne) : x;
}
// fma's result where it is not negative, else +0; NaN stays NaN (PTX fma.rn.relu).
CJ_INLINE bfloat16 relu(bfloat16 x) {
    if (is_nan(x.bits)) return bfloat16::from_bits(kNaN);
    return (x.bits & 0x8000u) ? bfloat16::from_bits(0) : x;
}

// max/min: a NaN operand loses to the other (both NaN: NaN); +0 is above -0. The _nan forms return NaN if
// either operand is one.
CJ_INLINE bfloat16 max(bfloat16 a, bfloat16 b) {
    if (is_nan(a.bits)) return is_nan(b.bits) ? bfloat16::from_bits(kNaN) : b;
    if (is_nan(b.bits)) return a;
    if (float(a) == float(b)) return bfloat16::from_bits(static_cast<uint16_t>(a.bits & b.bits));
    return float(a) > float(b) ? a : b;
}
CJ_INLINE bfloat16 min(bfloat16 a, bfloat16 b) {
    if (is_nan(a.bits)) return is_nan(b.bits) ? bfloat16::from_bits(kNaN) : b;
    if (is_nan(b.bits)) return a;
    if (float(a) == float(b)) return bfloat16::from_bits(static_cast<uint16_t>(a.bits | b.bits));
    return float(a) < float(b) ? a : b;
}
CJ_INLINE bfloat16 max_nan(bfloat16 a, bfloat16 b) {
    return (is_nan(a.bits) || is_nan(b.bits)) ? bfloat16::from_bits(kNaN) : max(a, b);
}
CJ_INLINE bfloat16 min_nan(bfloat16 a, bfloat16 b) {
    return (is_nan(a.bits) || is_nan(b.bits)) ? bfloat16::from_bits(kNaN) : min(a, b);
}

// Comparisons: ordered ones are false with a NaN operand, the unordered (...u) ones true.
CJ_INLINE bool eq(bfloat16 a, bfloat16 b) { return float(a) == float(b); }
CJ_INLINE bool ne(bfloat16 a, bfloat16 b) { return float(a) < float(b) || float(a) > float(b); }
CJ_INLINE bool equ(bfloat16 a, bfloat16 b) { return !ne(a, b); }
CJ_INLINE bool neu(bfloat16 a, bfloat16 b) { return !(float(a) == float(b)); }
CJ_INLINE bool geu(bfloat16 a, bfloat16 b) { return !(float(a) < float(b)); }
CJ_INLINE bool gtu(bfloat16 a, bfloat16 b) { return !(float(a) <= float(b)); }
CJ_INLINE bool leu(bfloat16 a, bfloat16 b) { return !(float(a) > float(b)); }
CJ_INLINE bool ltu(bfloat16 a, bfloat16 b) { return !(float(a) >= float(b)); }

CJ_INLINE int16_t as_int16(bfloat16 x) { return static_cast<int16_t>(x.bits); }
CJ_INLINE uint16_t as_uint16(bfloat16 x) { return x.bits; }
CJ_INLINE bfloat16 from_int16_bits(int16_t b) { return bfloat16::from_bits(static_cast<uint16_t>(b)); }
CJ_INLINE bfloat16 from_uint16_bits(uint16_t b) { return bfloat16::from_bits(b); }

}  // namespace bf16
}  // namespace cj

// Python's math functions of bfloat16 (mathfuncs.h has the float and double ones).
namespace cj {
namespace m {

// bfloat16 (bfloat16.h): the float function's result rounded to bfloat16, as numba.cuda.bf16's h* functions (CUDA
// computes them in float too). Exact for sqrt, floor, ceil, trunc, rint, fabs, fmin, fmax; the others round the
// float result, so on the CPU and the GPU they agree but where the float results straddle a rounding boundary.
#define CJ_BF16_1(name) \
    CJ_INLINE bfloat16 name(bfloat16 x) { return bfloat16(name(float(x))); }
CJ_BF16_1(sqrt)
CJ_BF16_1(exp)
CJ_BF16_1(exp2)
CJ_BF16_1(log)
CJ_BF16_1(log2)
CJ_BF16_1(log10)
CJ_BF16_1(sin)
CJ_BF16_1(cos)
CJ_BF16_1(tanh)
CJ_BF16_1(floor)
CJ_BF16_1(ceil)
CJ_BF16_1(trunc)
CJ_BF16_1(rint)
#undef CJ_BF16_1
CJ_INLINE bfloat16 fabs(bfloat16 x) { return bf16::abs(x); }
// a NaN operand is ignored, as fmin/fmax's; in bits, so that a signalling NaN is no exception (glibc's fmaxf returns
// NaN for one, the GPU's max.f32 the other operand)
CJ_INLINE bfloat16 fmin(bfloat16 a, bfloat16 b) { return bf16::min(a, b); }
CJ_INLINE bfloat16 fmax(bfloat16 a, bfloat16 b) { return bf16::max(a, b); }
CJ_INLINE bool isnan(bfloat16 x) { return bf16::is_nan(x.bits); }
CJ_INLINE bool isinf(bfloat16 x) { return (x.bits & 0x7fffu) == bf16::kInf; }
CJ_INLINE bool isfinite(bfloat16 x) { return (x.bits & 0x7f80u) != bf16::kInf; }
CJ_INLINE bool signbit(bfloat16 x) { return (x.bits & 0x8000u) != 0; }

}  // namespace m
}  // namespace cj

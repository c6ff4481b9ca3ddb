// cudajit runtime: numba-cuda's cuda.libdevice functions that cudajit's math (mathfuncs.h, lang.h) has no
// equivalent for, namespace cj::ld, with numba-cuda's types (compiler/libdevice.py): libdevice's unsigned
// arguments and results are int32/int64 bit patterns, its pointer results come back as a tuple.
//
// GPU: libdevice's own __nv_<name>, which NVRTC links in, as numba-cuda calls it: the same results bit for bit.
// CPU: C++ with libdevice's results where they are exact (IEEE operations in a rounding mode, conversions, integer
// and bit functions: the mode is the host's floating-point environment around one operation on volatile operands,
// so that the compiler neither folds it nor moves it out of the mode), and to a few ulp elsewhere (the special
// functions, the fast_ approximations, which are the accurate ones here).
#pragma once
#include "config.h"
#include "array.h"
#if defined(CJ_CPU)
#include <cfenv>
#include <limits>
#endif

namespace cj {
namespace ld {

#if defined(CJ_GPU)
// ---- GPU: libdevice ----------------------------------------------------------------------------------------------
#define CJ_LD(R, name, params, args) \
    extern "C" __device__ R __nv_##name params; \
    CJ_INLINE R name params { return __nv_##name args; }
#define CJ_LD_MODES(R, stem, params, args) \
    CJ_LD(R, stem##_rd, params, args) CJ_LD(R, stem##_rn, params, args) CJ_LD(R, stem##_ru, params, args) \
    CJ_LD(R, stem##_rz, params, args)
CJ_LD_MODES(float, fadd, (float x, float y), (x, y)) CJ_LD_MODES(float, fsub, (float x, float y), (x, y)) CJ_LD_MODES(float, fmul, (float x, float y), (x, y))
CJ_LD_MODES(float, fdiv, (float x, float y), (x, y)) CJ_LD_MODES(float, frcp, (float x), (x)) CJ_LD_MODES(float, fsqrt, (float x), (x))
CJ_LD_MODES(double, dadd, (double x, double y), (x, y)) CJ_LD_MODES(double, dmul, (double x, double y), (x, y)) CJ_LD_MODES(double, ddiv, (double x, double y), (x, y))
CJ_LD_MODES(double, drcp, (double x), (x)) CJ_LD_MODES(double, dsqrt, (double x), (x))
CJ_LD_MODES(float, fmaf, (float x, float y, float z), (x, y, z))
CJ_LD_MODES(double, fma, (double x, double y, double z), (x, y, z))
CJ_LD(float, frsqrt_rn, (float x), (x))
CJ_LD_MODES(int32_t, float2int, (float x), (x)) CJ_LD_MODES(int32_t, float2uint, (float x), (x))
CJ_LD_MODES(int64_t, float2ll, (float x), (x)) CJ_LD_MODES(int64_t, float2ull, (float x), (x))
CJ_LD_MODES(int32_t, double2int, (double x), (x)) CJ_LD_MODES(int32_t, double2uint, (double x), (x))
CJ_LD_MODES(int64_t, double2ll, (double x), (x)) CJ_LD_MODES(int64_t, double2ull, (double x), (x))
CJ_LD_MODES(float, double2float, (double x), (x))
CJ_LD_MODES(float, int2float, (int32_t x), (x)) CJ_LD_MODES(float, uint2float, (int32_t x), (x))
CJ_LD_MODES(float, ll2float, (int64_t x), (x)) CJ_LD_MODES(float, ull2float, (int64_t x), (x))
CJ_LD_MODES(double, ll2double, (int64_t x), (x)) CJ_LD_MODES(double, ull2double, (int64_t x), (x))
CJ_LD(double, int2double_rn, (int32_t x), (x)) CJ_LD(double, uint2double_rn, (int32_t x), (x))
CJ_LD(int32_t, float_as_int, (float x), (x)) CJ_LD(float, int_as_float, (int32_t x), (x))
CJ_LD(int64_t, double_as_longlong, (double x), (x)) CJ_LD(double, longlong_as_double, (int64_t x), (x))
CJ_LD(int32_t, double2hiint, (double x), (x)) CJ_LD(int32_t, double2loint, (double x), (x))
CJ_LD(double, hiloint2double, (int32_t hi, int32_t lo), (hi, lo))
extern "C" __device__ unsigned short __nv_float2half_rn(float);
extern "C" __device__ float __nv_half2float(unsigned short);
CJ_INLINE int16_t float2half_rn(float x) { return static_cast<int16_t>(__nv_float2half_rn(x)); }
CJ_INLINE float half2float(int16_t h) { return __nv_half2float(static_cast<unsigned short>(h)); }
// integers
CJ_LD(int32_t, abs, (int32_t x), (x)) CJ_LD(int64_t, llabs, (int64_t x), (x))
CJ_LD(int32_t, min, (int32_t x, int32_t y), (x, y)) CJ_LD(int32_t, max, (int32_t x, int32_t y), (x, y)) CJ_LD(int32_t, umin, (int32_t x, int32_t y), (x, y)) CJ_LD(int32_t, umax, (int32_t x, int32_t y), (x, y))
CJ_LD(int64_t, llmin, (int64_t x, int64_t y), (x, y)) CJ_LD(int64_t, llmax, (int64_t x, int64_t y), (x, y)) CJ_LD(int64_t, ullmin, (int64_t x, int64_t y), (x, y)) CJ_LD(int64_t, ullmax, (int64_t x, int64_t y), (x, y))
CJ_LD(int32_t, mulhi, (int32_t x, int32_t y), (x, y)) CJ_LD(int32_t, umulhi, (int32_t x, int32_t y), (x, y)) CJ_LD(int64_t, mul64hi, (int64_t x, int64_t y), (x, y))
CJ_LD(int64_t, umul64hi, (int64_t x, int64_t y), (x, y)) CJ_LD(int32_t, mul24, (int32_t x, int32_t y), (x, y)) CJ_LD(int32_t, umul24, (int32_t x, int32_t y), (x, y))
CJ_LD(int32_t, hadd, (int32_t x, int32_t y), (x, y)) CJ_LD(int32_t, rhadd, (int32_t x, int32_t y), (x, y)) CJ_LD(int32_t, uhadd, (int32_t x, int32_t y), (x, y)) CJ_LD(int32_t, urhadd, (int32_t x, int32_t y), (x, y))
CJ_LD(int32_t, sad, (int32_t x, int32_t y, int32_t z), (x, y, z))
CJ_LD(int32_t, usad, (int32_t x, int32_t y, int32_t z), (x, y, z))
CJ_LD(int32_t, byte_perm, (int32_t x, int32_t y, int32_t z), (x, y, z))
// classification
CJ_LD(int32_t, isfinited, (double x), (x)) CJ_LD(int32_t, isinfd, (double x), (x)) CJ_LD(int32_t, isnand, (double x), (x))
CJ_LD(int32_t, signbitd, (double x), (x)) CJ_LD(int32_t, finitef, (float x), (x)) CJ_LD(int32_t, isinff, (float x), (x))
CJ_LD(int32_t, isnanf, (float x), (x)) CJ_LD(int32_t, signbitf, (float x), (x))
// functions of a real
CJ_LD(float, cospif, (float x), (x)) CJ_LD(double, cospi, (double x), (x)) CJ_LD(float, sinpif, (float x), (x)) CJ_LD(double, sinpi, (double x), (x)) CJ_LD(float, erfinvf, (float x), (x)) CJ_LD(double, erfinv, (double x), (x))
CJ_LD(float, erfcinvf, (float x), (x)) CJ_LD(double, erfcinv, (double x), (x)) CJ_LD(float, erfcxf, (float x), (x)) CJ_LD(double, erfcx, (double x), (x)) CJ_LD(float, normcdff, (float x), (x)) CJ_LD(double, normcdf, (double x), (x))
CJ_LD(float, normcdfinvf, (float x), (x)) CJ_LD(double, normcdfinv, (double x), (x)) CJ_LD(float, j0f, (float x), (x)) CJ_LD(double, j0, (double x), (x)) CJ_LD(float, j1f, (float x), (x)) CJ_LD(double, j1, (double x), (x))
CJ_LD(float, y0f, (float x), (x)) CJ_LD(double, y0, (double x), (x)) CJ_LD(float, y1f, (float x), (x)) CJ_LD(double, y1, (double x), (x)) CJ_LD(float, rsqrtf, (float x), (x)) CJ_LD(double, rsqrt, (double x), (x)) CJ_LD(float, rcbrtf, (float x), (x)) CJ_LD(double, rcbrt, (double x), (x))
CJ_LD(float, exp10f, (float x), (x)) CJ_LD(double, exp10, (double x), (x)) CJ_LD(float, logbf, (float x), (x)) CJ_LD(double, logb, (double x), (x)) CJ_LD(float, nearbyintf, (float x), (x)) CJ_LD(double, nearbyint, (double x), (x))
CJ_LD(float, roundf, (float x), (x)) CJ_LD(double, round, (double x), (x)) CJ_LD(float, fdimf, (float x, float y), (x, y)) CJ_LD(double, fdim, (double x, double y), (x, y))
CJ_LD(float, jnf, (int32_t n, float x), (n, x)) CJ_LD(double, jn, (int32_t n, double x), (n, x))
CJ_LD(float, ynf, (int32_t n, float x), (n, x)) CJ_LD(double, yn, (int32_t n, double x), (n, x))
CJ_LD(int32_t, ilogbf, (float x), (x)) CJ_LD(int32_t, ilogb, (double x), (x))
CJ_LD(int64_t, llrintf, (float x), (x)) CJ_LD(int64_t, llrint, (double x), (x)) CJ_LD(int64_t, llroundf, (float x), (x))
CJ_LD(int64_t, llround, (double x), (x))
CJ_LD(float, ldexpf, (float x, int32_t e), (x, e)) CJ_LD(double, ldexp, (double x, int32_t e), (x, e))
CJ_LD(float, scalbnf, (float x, int32_t e), (x, e)) CJ_LD(double, scalbn, (double x, int32_t e), (x, e))
CJ_LD(float, powif, (float x, int32_t e), (x, e)) CJ_LD(double, powi, (double x, int32_t e), (x, e))
CJ_LD(float, saturatef, (float x), (x))
CJ_LD(float, fast_cosf, (float x), (x)) CJ_LD(float, fast_exp10f, (float x), (x)) CJ_LD(float, fast_expf, (float x), (x))
CJ_LD(float, fast_fdividef, (float x, float y), (x, y)) CJ_LD(float, fast_log10f, (float x), (x)) CJ_LD(float, fast_log2f, (float x), (x))
CJ_LD(float, fast_logf, (float x), (x)) CJ_LD(float, fast_powf, (float x, float y), (x, y)) CJ_LD(float, fast_sinf, (float x), (x))
CJ_LD(float, fast_tanf, (float x), (x))
// pointer results, as numba-cuda returns them: a tuple, the function's own result first
#define CJ_LD_PAIR(T, name) \
    extern "C" __device__ void __nv_##name(T, T*, T*); \
    CJ_INLINE UniTuple<T, 2> name(T x) { T a, b; __nv_##name(x, &a, &b); return UniTuple<T, 2>{{a, b}}; }
CJ_LD_PAIR(float, sincosf) CJ_LD_PAIR(double, sincos) CJ_LD_PAIR(float, sincospif) CJ_LD_PAIR(double, sincospi)
CJ_LD_PAIR(float, fast_sincosf)
#undef CJ_LD_PAIR
extern "C" __device__ float __nv_frexpf(float, int32_t*);
extern "C" __device__ double __nv_frexp(double, int32_t*);
extern "C" __device__ float __nv_modff(float, float*);
extern "C" __device__ double __nv_modf(double, double*);
extern "C" __device__ float __nv_remquof(float, float, int32_t*);
extern "C" __device__ double __nv_remquo(double, double, int32_t*);
CJ_INLINE Tuple<float, int32_t> frexpf(float x) { int32_t e; float m = __nv_frexpf(x, &e); return make_tuple(m, e); }
CJ_INLINE Tuple<double, int32_t> frexp(double x) { int32_t e; double m = __nv_frexp(x, &e); return make_tuple(m, e); }
CJ_INLINE UniTuple<float, 2> modff(float x) { float i; float f = __nv_modff(x, &i); return UniTuple<float, 2>{{f, i}}; }
CJ_INLINE UniTuple<double, 2> modf(double x) { double i; double f = __nv_modf(x, &i); return UniTuple<double, 2>{{f, i}}; }
CJ_INLINE Tuple<float, int32_t> remquof(float x, float y) {
    int32_t q;
    float r = __nv_remquof(x, y, &q);
    return make_tuple(r, q);
}
CJ_INLINE Tuple<double, int32_t> remquo(double x, double y) {
    int32_t q;
    double r = __nv_remquo(x, y, &q);
    return make_tuple(r, q);
}
#undef CJ_LD
#undef CJ_LD_MODES

#else
// ---- CPU ---------------------------------------------------------------------------------------------------------
// One IEEE operation in a rounding mode: the host's environment set around it, on volatile copies of the operands.
template <class T, class Op> inline T in_mode(int mode, Op op) {
    const int saved = std::fegetround();
    std::fesetround(mode);
    T r = op();
    std::fesetround(saved);
    return r;
}
#define CJ_LD_MODES(R, stem, params, ...) \
    inline R stem##_rd params { return in_mode<R>(FE_DOWNWARD, [&] { __VA_ARGS__; }); } \
    inline R stem##_rn params { return in_mode<R>(FE_TONEAREST, [&] { __VA_ARGS__; }); } \
    inline R stem##_ru params { return in_mode<R>(FE_UPWARD, [&] { __VA_ARGS__; }); } \
    inline R stem##_rz params { return in_mode<R>(FE_TOWARDZERO, [&] { __VA_ARGS__; }); }
#define CJ_V2(T) volatile T a = x, b = y; volatile T r
CJ_LD_MODES(float, fadd, (float x, float y), CJ_V2(float) = a + b; return r)
CJ_LD_MODES(float, fsub, (float x, float y), CJ_V2(float) = a - b; return r)
CJ_LD_MODES(float, fmul, (float x, float y), CJ_V2(float) = a * b; return r)
CJ_LD_MODES(float, fdiv, (float x, float y), CJ_V2(float) = a / b; return r)
CJ_LD_MODES(double, dadd, (double x, double y), CJ_V2(double) = a + b; return r)
CJ_LD_MODES(double, dmul, (double x, double y), CJ_V2(double) = a * b; return r)
CJ_LD_MODES(double, ddiv, (double x, double y), CJ_V2(double) = a / b; return r)
CJ_LD_MODES(float, frcp, (float x), volatile float a = x; volatile float r = 1.0f / a; return r)
CJ_LD_MODES(double, drcp, (double x), volatile double a = x; volatile double r = 1.0 / a; return r)
CJ_LD_MODES(float, fsqrt, (float x), volatile float a = x; volatile float r = std::sqrt(float(a)); return r)
CJ_LD_MODES(double, dsqrt, (double x), volatile double a = x; volatile double r = std::sqrt(double(a)); return r)
CJ_LD_MODES(float, fmaf, (float x, float y, float z),
            volatile float a = x, b = y, c = z; volatile float r = std::fma(float(a), float(b), float(c)); return r)
CJ_LD_MODES(double, fma, (double x, double y, double z),
            volatile double a = x, b = y, c = z; volatile double r = std::fma(double(a), double(b), double(c));
            return r)
#undef CJ_V2
inline float frsqrt_rn(float x) { return float(1.0 / std::sqrt(double(x))); }   // in double: a tie is ~never met

// float -> integer: rounded to an integer in the mode, then saturated to the range; NaN gives 0 (PTX's cvt).
template <class I, class F> inline I to_integer(F x, int mode) {
    if (x != x) return 0;
    F r = mode == FE_DOWNWARD ? std::floor(x) : mode == FE_UPWARD ? std::ceil(x)
          : mode == FE_TOWARDZERO ? std::trunc(x) : std::nearbyint(x);     // nearbyint: the default mode, ties even
    if (r <= F(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
    if (r >= F(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
    return static_cast<I>(r);
}
#define CJ_TO_INT(R, U, stem, F) \
    inline R stem##_rd(F x) { return static_cast<R>(to_integer<U>(x, FE_DOWNWARD)); } \
    inline R stem##_rn(F x) { return static_cast<R>(to_integer<U>(x, FE_TONEAREST)); } \
    inline R stem##_ru(F x) { return static_cast<R>(to_integer<U>(x, FE_UPWARD)); } \
    inline R stem##_rz(F x) { return static_cast<R>(to_integer<U>(x, FE_TOWARDZERO)); }
CJ_TO_INT(int32_t, int32_t, float2int, float) CJ_TO_INT(int32_t, uint32_t, float2uint, float)
CJ_TO_INT(int64_t, int64_t, float2ll, float) CJ_TO_INT(int64_t, uint64_t, float2ull, float)
CJ_TO_INT(int32_t, int32_t, double2int, double) CJ_TO_INT(int32_t, uint32_t, double2uint, double)
CJ_TO_INT(int64_t, int64_t, double2ll, double) CJ_TO_INT(int64_t, uint64_t, double2ull, double)
#undef CJ_TO_INT
// conversions to a narrower float, in the mode
CJ_LD_MODES(float, double2float, (double x), volatile double a = x; volatile float r = float(a); return r)
CJ_LD_MODES(float, int2float, (int32_t x), volatile int32_t a = x; volatile float r = float(a); return r)
CJ_LD_MODES(float, uint2float, (int32_t x), volatile uint32_t a = uint32_t(x); volatile float r = float(a); return r)
CJ_LD_MODES(float, ll2float, (int64_t x), volatile int64_t a = x; volatile float r = float(a); return r)
CJ_LD_MODES(float, ull2float, (int64_t x), volatile uint64_t a = uint64_t(x); volatile float r = float(a); return r)
CJ_LD_MODES(double, ll2double, (int64_t x), volatile int64_t a = x; volatile double r = double(a); return r)
CJ_LD_MODES(double, ull2double, (int64_t x),
            volatile uint64_t a = uint64_t(x); volatile double r = double(a); return r)
#undef CJ_LD_MODES
inline double int2double_rn(int32_t x) { return double(x); }
inline double uint2double_rn(int32_t x) { return double(uint32_t(x)); }
// bit patterns
template <class To, class From> inline To bits_as(From x) {
    static_assert(sizeof(To) == sizeof(From), "same size");
    To r;
    std::memcpy(&r, &x, sizeof r);
    return r;
}
inline int32_t float_as_int(float x) { return bits_as<int32_t>(x); }
inline float int_as_float(int32_t x) { return bits_as<float>(x); }
inline int64_t double_as_longlong(double x) { return bits_as<int64_t>(x); }
inline double longlong_as_double(int64_t x) { return bits_as<double>(x); }
inline int32_t double2hiint(double x) { return int32_t(uint64_t(bits_as<int64_t>(x)) >> 32); }
inline int32_t double2loint(double x) { return int32_t(uint32_t(uint64_t(bits_as<int64_t>(x)))); }
inline double hiloint2double(int32_t hi, int32_t lo) {
    return bits_as<double>(int64_t(uint64_t(uint32_t(hi)) << 32 | uint32_t(lo)));
}
inline int16_t float2half_rn(float x) { return bits_as<int16_t>(static_cast<_Float16>(x)); }
inline float half2float(int16_t h) { return static_cast<float>(bits_as<_Float16>(h)); }
// integers: libdevice's results, its unsigned values as bit patterns (wrapping where the hardware wraps)
inline int32_t abs(int32_t x) { return x < 0 ? int32_t(0u - uint32_t(x)) : x; }
inline int64_t llabs(int64_t x) { return x < 0 ? int64_t(0ull - uint64_t(x)) : x; }
inline int32_t min(int32_t x, int32_t y) { return x < y ? x : y; }
inline int32_t max(int32_t x, int32_t y) { return x > y ? x : y; }
inline int32_t umin(int32_t x, int32_t y) { return uint32_t(x) < uint32_t(y) ? x : y; }
inline int32_t umax(int32_t x, int32_t y) { return uint32_t(x) > uint32_t(y) ? x : y; }
inline int64_t llmin(int64_t x, int64_t y) { return x < y ? x : y; }
inline int64_t llmax(int64_t x, int64_t y) { return x > y ? x : y; }
inline int64_t ullmin(int64_t x, int64_t y) { return uint64_t(x) < uint64_t(y) ? x : y; }
inline int64_t ullmax(int64_t x, int64_t y) { return uint64_t(x) > uint64_t(y) ? x : y; }
inline int32_t mulhi(int32_t x, int32_t y) { return int32_t((int64_t(x) * int64_t(y)) >> 32); }
inline int32_t umulhi(int32_t x, int32_t y) { return int32_t((uint64_t(uint32_t(x)) * uint32_t(y)) >> 32); }
inline int64_t mul64hi(int64_t x, int64_t y) { return int64_t((__int128(x) * __int128(y)) >> 64); }
inline int64_t umul64hi(int64_t x, int64_t y) {
    return int64_t((static_cast<unsigned __int128>(uint64_t(x)) * uint64_t(y)) >> 64);
}
inline int32_t mul24(int32_t x, int32_t y) {      // the low 24 bits, sign-extended, multiplied: the product's low 32
    int32_t a = int32_t(uint32_t(x) << 8) >> 8, b = int32_t(uint32_t(y) << 8) >> 8;
    return int32_t(uint32_t(int64_t(a) * int64_t(b)));
}
inline int32_t umul24(int32_t x, int32_t y) {
    return int32_t(uint32_t((uint64_t(uint32_t(x) & 0xFFFFFFu) * (uint32_t(y) & 0xFFFFFFu))));
}
inline int32_t hadd(int32_t x, int32_t y) { return int32_t(uint32_t(x & y) + uint32_t((x ^ y) >> 1)); }
inline int32_t rhadd(int32_t x, int32_t y) { return int32_t(uint32_t(x | y) - uint32_t((x ^ y) >> 1)); }
inline int32_t uhadd(int32_t x, int32_t y) {
    return int32_t((uint32_t(x) & uint32_t(y)) + ((uint32_t(x) ^ uint32_t(y)) >> 1));
}
inline int32_t urhadd(int32_t x, int32_t y) {
    return int32_t((uint32_t(x) | uint32_t(y)) - ((uint32_t(x) ^ uint32_t(y)) >> 1));
}
inline int32_t sad(int32_t x, int32_t y, int32_t z) {
    uint32_t d = x < y ? uint32_t(y) - uint32_t(x) : uint32_t(x) - uint32_t(y);
    return int32_t(uint32_t(z) + d);
}
inline int32_t usad(int32_t x, int32_t y, int32_t z) {
    uint32_t a = uint32_t(x), b = uint32_t(y);
    return int32_t(uint32_t(z) + (a < b ? b - a : a - b));
}
inline int32_t byte_perm(int32_t x, int32_t y, int32_t s) {   // PTX prmt: bytes of y:x picked by s's nibbles
    uint64_t bytes = uint64_t(uint32_t(y)) << 32 | uint32_t(x);
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i) r |= uint32_t((bytes >> (8 * ((s >> (4 * i)) & 7))) & 0xFF) << (8 * i);
    return int32_t(r);
}
// classification: 0 or 1
inline int32_t isfinited(double x) { return std::isfinite(x); }
inline int32_t isinfd(double x) { return std::isinf(x); }
inline int32_t isnand(double x) { return std::isnan(x); }
inline int32_t signbitd(double x) { return std::signbit(x); }
inline int32_t finitef(float x) { return std::isfinite(x); }
inline int32_t isinff(float x) { return std::isinf(x); }
inline int32_t isnanf(float x) { return std::isnan(x); }
inline int32_t signbitf(float x) { return std::signbit(x); }

// sin(pi x), cos(pi x): the argument reduced exactly to [-1/4, 1/4] around a multiple of 1/2
template <class T> inline UniTuple<T, 2> sincospi_of(T x) {
    if (!std::isfinite(x)) return UniTuple<T, 2>{{T(NAN), T(NAN)}};
    T n = std::nearbyint(x * T(2));                 // x = n/2 + r, |r| <= 1/4 (exact: x*2 and x - n/2 are)
    T r = x - n / T(2);
    T s = std::sin(T(M_PI) * r), c = std::cos(T(M_PI) * r);
    int64_t q = int64_t(std::fmod(n, T(4)));
    if (q < 0) q += 4;
    T sn = q == 0 ? s : q == 1 ? c : q == 2 ? -s : -c;
    T cs = q == 0 ? c : q == 1 ? -s : q == 2 ? -c : s;
    if (r == 0) {                                  // exact zeros: sinpi(n) = +-0 with x's sign, cospi(n + 1/2) = +0
        if (q % 2 == 0) sn = std::copysign(T(0), x);
        else cs = T(0);
    }
    return UniTuple<T, 2>{{sn, cs + T(0)}};
}
inline float sinpif(float x) { return float(sincospi_of(double(x)).v[0]); }
inline double sinpi(double x) { return sincospi_of(x).v[0]; }
inline float cospif(float x) { return float(sincospi_of(double(x)).v[1]); }
inline double cospi(double x) { return sincospi_of(x).v[1]; }
inline UniTuple<float, 2> sincospif(float x) {
    auto d = sincospi_of(double(x));
    return UniTuple<float, 2>{{float(d.v[0]), float(d.v[1])}};
}
inline UniTuple<double, 2> sincospi(double x) { return sincospi_of(x); }
inline UniTuple<float, 2> sincosf(float x) { return UniTuple<float, 2>{{std::sin(x), std::cos(x)}}; }
inline UniTuple<double, 2> sincos(double x) { return UniTuple<double, 2>{{std::sin(x), std::cos(x)}}; }
inline UniTuple<float, 2> fast_sincosf(float x) { return sincosf(x); }

// the inverse error functions: Halley's method on erf (|x| small, where erf is accurate relative to x) or erfc (the
// tails), from a close start, in double
inline double halley_erf(double y, bool complement, double x) {
    for (int i = 0; i < 60; ++i) {               // f = erf(x) - y (or erfc(x) - y), f' = +-2/sqrt(pi) e^-x^2
        double f = complement ? std::erfc(x) - y : std::erf(x) - y;
        double d = (complement ? -1.1283791670955126 : 1.1283791670955126) * std::exp(-x * x);
        double step = f / d;
        step = step / (1 + step * x);             // Halley: f'' = -2x f'
        x -= step;
        if (!(std::fabs(step) > 1e-17 * std::fabs(x))) break;
    }
    return x;
}
inline double erfinv_d(double y) {
    if (!(y >= -1 && y <= 1)) return NAN;
    if (y == 0) return y;                         // keeps -0
    if (y == 1 || y == -1) return std::copysign(INFINITY, y);
    double a = std::fabs(y), x;
    if (a <= 0.5) {
        x = halley_erf(a, false, a * 0.886226925452758);                  // sqrt(pi)/2 y
    } else {                                      // erfc(x) = 1 - a, exact for a >= 1/2
        double c = 1 - a;
        x = halley_erf(c, true, std::sqrt(-std::log(c * std::sqrt(-std::log(c)))));
    }
    return std::copysign(x, y);
}
inline double erfcinv_d(double y) {               // erfc(x) = y, 0 <= y <= 2
    if (!(y >= 0 && y <= 2)) return NAN;
    if (y == 0) return INFINITY;
    if (y == 2) return -INFINITY;
    if (y > 1) return -erfcinv_d(2 - y);          // 2 - y exact
    if (y >= 0.5) return erfinv_d(1 - y);         // 1 - y exact: erf, accurate near 0
    return halley_erf(y, true, std::sqrt(-std::log(y * std::sqrt(-std::log(y)))));
}
inline double erfinv(double x) { return erfinv_d(x); }
inline float erfinvf(float x) { return float(erfinv_d(x)); }
inline double erfcinv(double x) { return erfcinv_d(x); }
inline float erfcinvf(float x) { return float(erfcinv_d(x)); }
// erfcx(x) = e^(x^2) erfc(x): for x < 2 directly (x^2 split exactly for e^(x^2)), beyond by its continued fraction
// 1/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), evaluated from the bottom
inline double erfcx_d(double x) {
    if (x != x) return x;
    if (x < 2) {
        if (x < -26.7) return INFINITY;
        double hi = x * x, lo = std::fma(x, x, -hi);
        if (x < 0) return 2 * std::exp(hi) * std::exp(lo) - erfcx_d(-x);
        return std::exp(hi) * std::exp(lo) * std::erfc(x);
    }
    if (std::isinf(x)) return 0;
    int terms = x < 4 ? 120 : x < 8 ? 60 : 30;
    double t = x;
    for (int k = terms; k >= 1; --k) t = x + (0.5 * k) / t;
    return 0.56418958354775629 / t;              // 1/sqrt(pi)
}
inline double erfcx(double x) { return erfcx_d(x); }
inline float erfcxf(float x) { return float(erfcx_d(x)); }
// normcdf(x) = erfc(-x/sqrt(2)) / 2, with the rounding error of -x/sqrt(2) taken back (it matters in the tail)
inline double normcdf(double x) {
    if (x != x) return x;
    const double c_hi = 0.70710678118654757, c_lo = -4.8336466567264567e-17;   // 1/sqrt(2) = c_hi + c_lo
    double t = -x * c_hi;
    double e = std::fma(-x, c_hi, -t) - x * c_lo;     // -x/sqrt(2) = t + e
    double r = std::erfc(t);
    if (std::isfinite(t) && r > 0) r -= e * 1.1283791670955126 * std::exp(-t * t);
    return 0.5 * r;
}
inline float normcdff(float x) { return float(normcdf(x)); }
inline double normcdfinv(double p) {
    if (!(p >= 0 && p <= 1)) return NAN;
    return -1.4142135623730951 * erfcinv_d(2 * p);
}
inline float normcdfinvf(float p) { return float(normcdfinv(p)); }
// Bessel functions: the C library's (POSIX)
inline double j0(double x) { return ::j0(x); }
inline float j0f(float x) { return ::j0f(x); }
inline double j1(double x) { return ::j1(x); }
inline float j1f(float x) { return ::j1f(x); }
inline double jn(int32_t n, double x) { return ::jn(n, x); }
inline float jnf(int32_t n, float x) { return ::jnf(n, x); }
inline double y0(double x) { return ::y0(x); }
inline float y0f(float x) { return ::y0f(x); }
inline double y1(double x) { return ::y1(x); }
inline float y1f(float x) { return ::y1f(x); }
inline double yn(int32_t n, double x) { return ::yn(n, x); }
inline float ynf(int32_t n, float x) { return ::ynf(n, x); }
// the rest of a real's functions
inline double rsqrt(double x) { return 1 / std::sqrt(x); }
inline float rsqrtf(float x) { return 1 / std::sqrt(x); }
inline double rcbrt(double x) { return 1 / std::cbrt(x); }
inline float rcbrtf(float x) { return 1 / std::cbrt(x); }
inline double exp10(double x) { return ::exp10(x); }
inline float exp10f(float x) { return ::exp10f(x); }
inline double logb(double x) { return std::logb(x); }
inline float logbf(float x) { return std::logb(x); }
inline double nearbyint(double x) { return std::nearbyint(x); }
inline float nearbyintf(float x) { return std::nearbyint(x); }
inline double round(double x) { return std::trunc(dadd_rz(x, std::copysign(0.5, x))); }     // libdevice's: add_rz
inline float roundf(float x) { return std::trunc(fadd_rz(x, std::copysign(0.5f, x))); }
inline double fdim(double x, double y) { return std::fdim(x, y); }
inline float fdimf(float x, float y) { return std::fdim(x, y); }
template <class F> inline int32_t ilogb_of(F x) {
    if (x == 0 || x != x) return std::numeric_limits<int32_t>::min();
    if (std::isinf(x)) return std::numeric_limits<int32_t>::max();
    return std::ilogb(x);
}
inline int32_t ilogbf(float x) { return ilogb_of(x); }
inline int32_t ilogb(double x) { return ilogb_of(x); }
inline int64_t llrint(double x) { return to_integer<int64_t>(x, FE_TONEAREST); }
inline int64_t llrintf(float x) { return to_integer<int64_t>(x, FE_TONEAREST); }
inline int64_t llround(double x) { return to_integer<int64_t>(round(x), FE_TOWARDZERO); }
inline int64_t llroundf(float x) {           // NaN and the saturated ends as libdevice's
    if (x != x) return std::numeric_limits<int64_t>::min();
    return to_integer<int64_t>(roundf(x), FE_TOWARDZERO);
}
inline double ldexp(double x, int32_t e) { return std::ldexp(x, e); }
inline float ldexpf(float x, int32_t e) { return std::ldexp(x, e); }
inline double scalbn(double x, int32_t e) { return std::scalbn(x, e); }
inline float scalbnf(float x, int32_t e) { return std::scalbn(x, e); }
template <class T> inline T powi_of(T x, int32_t n) {   // libdevice's: square and multiply, then 1/r for n < 0
    uint32_t e = n < 0 ? 0u - uint32_t(n) : uint32_t(n);
    T r = 1, p = x;
    while (e) {
        if (e & 1) r *= p;
        e >>= 1;
        if (e) p *= p;
    }
    return n < 0 ? 1 / r : r;
}
inline double powi(double x, int32_t n) { return powi_of(x, n); }
inline float powif(float x, int32_t n) { return powi_of(x, n); }
inline float saturatef(float x) { return x > 0 ? (x < 1 ? x : 1.0f) : 0.0f; }     // NaN -> 0
inline float fast_cosf(float x) { return std::cos(x); }
inline float fast_exp10f(float x) { return ::exp10f(x); }
inline float fast_expf(float x) { return std::exp(x); }
inline float fast_fdividef(float x, float y) { return x / y; }
inline float fast_log10f(float x) { return std::log10(x); }
inline float fast_log2f(float x) { return std::log2(x); }
inline float fast_logf(float x) { return std::log(x); }
inline float fast_powf(float x, float y) { return std::pow(x, y); }
inline float fast_sinf(float x) { return std::sin(x); }
inline float fast_tanf(float x) { return std::tan(x); }
inline Tuple<float, int32_t> frexpf(float x) { int e = 0; float m = std::frexp(x, &e); return make_tuple(m, int32_t(e)); }
inline Tuple<double, int32_t> frexp(double x) { int e = 0; double m = std::frexp(x, &e); return make_tuple(m, int32_t(e)); }
inline UniTuple<float, 2> modff(float x) { float i; float f = std::modf(x, &i); return UniTuple<float, 2>{{f, i}}; }
inline UniTuple<double, 2> modf(double x) { double i; double f = std::modf(x, &i); return UniTuple<double, 2>{{f, i}}; }
template <class T> inline Tuple<T, int32_t> remquo_of(T x, T y) {
    int q = 0;
    T r = std::remquo(x, y, &q);
    return make_tuple(r, int32_t(q));
}
inline Tuple<float, int32_t> remquof(float x, float y) { return remquo_of(x, y); }
inline Tuple<double, int32_t> remquo(double x, double y) { return remquo_of(x, y); }
#endif

}  // namespace ld
}  // namespace cj

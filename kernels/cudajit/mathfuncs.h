// cudajit runtime: Python's math and cmath modules, namespace cj::m.
//
// Every real function has a float and a double overload, so that a float32 argument stays float32 as in Numba's
// CUDA target (GPU: CUDA's sqrtf/sqrt...; CPU: std::sqrt's float/double overloads). Integer arguments are
// computed as double, as Numba does. Domain errors give NaN/inf like C (Numba), where Python raises ValueError.
// Functions that return a Python tuple return the first element and write the others through out-pointers:
// frexp(x, &e), modf(x, &ipart). Python's cmath module is in cmathfuncs.h; the float16 and bfloat16 overloads are
// at the end of half.h and bfloat16.h (a unit without those types does not parse them: runtime.h).
#pragma once
#include "config.h"
#include "complex.h"

namespace cj {
namespace m {

#if defined(CJ_GPU)
#define CJ_CALL_F(fname, dname, ...) ::fname(__VA_ARGS__)
#define CJ_CALL_D(fname, dname, ...) ::dname(__VA_ARGS__)
#else
#define CJ_CALL_F(fname, dname, ...) std::dname(__VA_ARGS__)
#define CJ_CALL_D(fname, dname, ...) std::dname(__VA_ARGS__)
#endif

// float/double overloads of a C math function, plus integer arguments as double.
#define CJ_MATH1(name, fname, dname)                                                 \
    CJ_INLINE float name(float x) { return CJ_CALL_F(fname, dname, x); }             \
    CJ_INLINE double name(double x) { return CJ_CALL_D(fname, dname, x); }           \
    template <class I> CJ_INLINE double name(I x) { return name(static_cast<double>(x)); }
#define CJ_MATH2(name, fname, dname)                                                        \
    CJ_INLINE float name(float x, float y) { return CJ_CALL_F(fname, dname, x, y); }        \
    CJ_INLINE double name(double x, double y) { return CJ_CALL_D(fname, dname, x, y); }

CJ_MATH1(sqrt, sqrtf, sqrt)
CJ_MATH1(exp, expf, exp)
CJ_MATH1(expm1, expm1f, expm1)
CJ_MATH1(exp2, exp2f, exp2)
CJ_MATH1(log, logf, log)
CJ_MATH1(log2, log2f, log2)
CJ_MATH1(log10, log10f, log10)
CJ_MATH1(log1p, log1pf, log1p)
CJ_MATH1(sin, sinf, sin)
CJ_MATH1(cos, cosf, cos)
CJ_MATH1(tan, tanf, tan)
CJ_MATH1(asin, asinf, asin)
CJ_MATH1(acos, acosf, acos)
CJ_MATH1(atan, atanf, atan)
CJ_MATH1(sinh, sinhf, sinh)
CJ_MATH1(cosh, coshf, cosh)
CJ_MATH1(tanh, tanhf, tanh)
CJ_MATH1(asinh, asinhf, asinh)
CJ_MATH1(acosh, acoshf, acosh)
CJ_MATH1(atanh, atanhf, atanh)
CJ_MATH1(floor, floorf, floor)  // Python's math.floor/ceil/trunc return int: the compiler converts the result
CJ_MATH1(ceil, ceilf, ceil)
CJ_MATH1(trunc, truncf, trunc)
CJ_MATH1(fabs, fabsf, fabs)
CJ_MATH1(erf, erff, erf)
CJ_MATH1(erfc, erfcf, erfc)
CJ_MATH1(tgamma, tgammaf, tgamma)
CJ_MATH1(lgamma, lgammaf, lgamma)
CJ_MATH1(cbrt, cbrtf, cbrt)
CJ_MATH1(rint, rintf, rint)  // round half to even (default rounding mode)
CJ_MATH2(atan2, atan2f, atan2)
CJ_MATH2(fmod, fmodf, fmod)
CJ_MATH2(remainder, remainderf, remainder)
CJ_MATH2(copysign, copysignf, copysign)
CJ_MATH2(hypot, hypotf, hypot)
CJ_MATH2(pow, powf, pow)
CJ_MATH2(nextafter, nextafterf, nextafter)
CJ_MATH2(fmin, fminf, fmin)  // builtin min/max of two floats in numba-cuda: a NaN operand is ignored
CJ_MATH2(fmax, fmaxf, fmax)

CJ_INLINE float fma(float x, float y, float z) { return CJ_CALL_F(fmaf, fma, x, y, z); }
CJ_INLINE double fma(double x, double y, double z) { return CJ_CALL_D(fmaf, fma, x, y, z); }
CJ_INLINE float ldexp(float x, int32_t e) { return CJ_CALL_F(ldexpf, ldexp, x, e); }
CJ_INLINE double ldexp(double x, int32_t e) { return CJ_CALL_D(ldexpf, ldexp, x, e); }

// Classification returns bool; integers are never NaN or infinite (Numba accepts them).
// __builtin_isnan & co. are understood by both g++ and NVRTC and are not folded away by --use_fast_math.
#define CJ_CLASSIFY(name, builtin, int_value)                      \
    CJ_INLINE bool name(float x) { return builtin(x); }            \
    CJ_INLINE bool name(double x) { return builtin(x); }           \
    template <class I> CJ_INLINE bool name(I) { return int_value; }
CJ_CLASSIFY(isnan, __builtin_isnan, false)
CJ_CLASSIFY(isinf, __builtin_isinf, false)
CJ_CLASSIFY(isfinite, __builtin_isfinite, true)
#undef CJ_CLASSIFY
// The sign bit, read from the bit pattern (NVRTC has no __builtin_signbit): true for -0.0 and negative NaNs.
CJ_INLINE bool signbit(float x) { return bit_cast<uint32_t>(x) >> 31; }
CJ_INLINE bool signbit(double x) { return bit_cast<uint64_t>(x) >> 63; }

// math.frexp(x) -> (mantissa, exponent): returns the mantissa, stores the exponent. Like Python, the exponent of
// 0, inf and nan is 0 (C leaves it unspecified for inf/nan).
CJ_INLINE float frexp(float x, int32_t* e) {
    int ei = 0;
    float r = isfinite(x) ? CJ_CALL_F(frexpf, frexp, x, &ei) : x;
    *e = ei;
    return r;
}
CJ_INLINE double frexp(double x, int32_t* e) {
    int ei = 0;
    double r = isfinite(x) ? CJ_CALL_D(frexpf, frexp, x, &ei) : x;
    *e = ei;
    return r;
}
// math.modf(x) -> (fractional part, integer part): returns the fractional part, stores the integer part.
CJ_INLINE float modf(float x, float* ipart) { return CJ_CALL_F(modff, modf, x, ipart); }
CJ_INLINE double modf(double x, double* ipart) { return CJ_CALL_D(modff, modf, x, ipart); }

// math.degrees/radians: one multiplication by a constant rounded to the argument's type (as Numba's CUDA target).
CJ_INLINE float degrees(float x) { return x * float(180.0 / 3.14159265358979323846); }
CJ_INLINE double degrees(double x) { return x * (180.0 / 3.14159265358979323846); }
CJ_INLINE float radians(float x) { return x * float(3.14159265358979323846 / 180.0); }
CJ_INLINE double radians(double x) { return x * (3.14159265358979323846 / 180.0); }
template <class I> CJ_INLINE double degrees(I x) { return degrees(static_cast<double>(x)); }
template <class I> CJ_INLINE double radians(I x) { return radians(static_cast<double>(x)); }

#undef CJ_MATH1
#undef CJ_MATH2
#undef CJ_CALL_F
#undef CJ_CALL_D

}  // namespace m
}  // namespace cj

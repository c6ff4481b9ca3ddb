// cudajit runtime: Python's math and cmath modules, namespace cj::m.
//
// Every real function has a float and a double overload, so that a float32 argument stays float32 as in Numba's
// CUDA target (GPU: CUDA's sqrtf/sqrt...; CPU: std::sqrt's float/double overloads). Integer arguments are
// computed as double, as Numba does. Domain errors give NaN/inf like C (Numba), where Python raises ValueError.
// Functions that return a Python tuple return the first element and write the others through out-pointers:
// frexp(x, &e), modf(x, &ipart), polar(z, &phi).
#pragma once
#include "config.h"
#include "complex.h"
#include "half.h"
#include "bfloat16.h"

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

// ---------------------------------------------------------------------------------------------------------------
// cmath. Finite arguments follow CPython's cmath (Kahan's formulas for the inverse functions, so branch cuts and
// signed zeros agree); infinite/NaN arguments follow the formulas, not C99 Annex G's special-value tables.

namespace cdetail {
template <class T> CJ_INLINE T ln2() { return T(0.69314718055994530942); }
template <class T> CJ_INLINE T ln10() { return T(2.30258509299404568402); }
// Above this magnitude the inverse functions use their asymptotic form (squares would overflow).
template <class T> CJ_INLINE T large() { return sizeof(T) == 4 ? T(1e18f) : T(1e150); }
}  // namespace cdetail

template <class T> CJ_INLINE T abs(complex<T> z) { return hypot(z.re, z.im); }
template <class T> CJ_INLINE T phase(complex<T> z) { return atan2(z.im, z.re); }
template <class T> CJ_INLINE bool isnan(complex<T> z) { return isnan(z.re) || isnan(z.im); }
template <class T> CJ_INLINE bool isinf(complex<T> z) { return isinf(z.re) || isinf(z.im); }
template <class T> CJ_INLINE bool isfinite(complex<T> z) { return isfinite(z.re) && isfinite(z.im); }

// cmath.polar(z) -> (r, phi): returns r, stores phi.
template <class T> CJ_INLINE T polar(complex<T> z, T* phi) {
    *phi = phase(z);
    return abs(z);
}
template <class T> CJ_INLINE complex<T> rect(T r, T phi) {
    // phi = 0: the imaginary part is a zero with the sign of r*phi, also for infinite r (not inf*0 = nan);
    // +0 for a NaN r (CPython's special-value table).
    if (phi == T(0)) return complex<T>{r, isnan(r) ? T(0) : (signbit(r) ? -phi : phi)};
    return complex<T>{r * cos(phi), r * sin(phi)};
}

template <class T> CJ_INLINE complex<T> exp(complex<T> z) {
    T e = exp(z.re);
    if (z.im == T(0)) return complex<T>{e, z.im};  // real argument: no inf*0 = nan in the imaginary part
    return complex<T>{e * cos(z.im), e * sin(z.im)};
}

// cmath.log as numba-cuda computes it: log|z| + i arg z (|z| by hypot). Near |z| = 1 CPython's log1p form is
// more accurate, but results must match numba-cuda's (checked bit for bit on an H100).
template <class T> CJ_INLINE complex<T> log(complex<T> z) { return complex<T>{log(hypot(z.re, z.im)), atan2(z.im, z.re)}; }
// cmath.log(z, base): Numba's log(z) / log(base)
template <class T> CJ_INLINE complex<T> log(complex<T> z, complex<T> base) { return log(z) / log(base); }

// numba-cuda types cmath.log10, tanh and acosh by their Python implementations, whose float64 constants make the
// result complex128 also for a complex64 argument; these follow that arithmetic step by step.
template <class T> CJ_INLINE complex<double> log10(complex<T> z) {
    complex<T> l = log(z);
    return complex<double>{double(l.re) / cdetail::ln10<double>(), double(l.im) / cdetail::ln10<double>()};
}

template <class T> CJ_INLINE complex<T> sqrt(complex<T> z) {
    if (z.re == T(0) && z.im == T(0)) return complex<T>{T(0), z.im};
    if (isinf(z.im)) return complex<T>{inf<T>(), z.im};
    T ax = fabs(z.re), ay = fabs(z.im);
    // s = sqrt((|x| + |z|) / 2), computed on values scaled by 1/8 so that |x| + |z| cannot overflow.
    T s = T(2) * sqrt(ax / T(8) + hypot(ax / T(8), ay / T(8)));
    T d = ay / (T(2) * s);
    if (z.re >= T(0)) return complex<T>{s, copysign(d, z.im)};
    return complex<T>{d, copysign(s, z.im)};
}

template <class T> CJ_INLINE complex<T> sin(complex<T> z) {
    return complex<T>{sin(z.re) * cosh(z.im), cos(z.re) * sinh(z.im)};
}
template <class T> CJ_INLINE complex<T> cos(complex<T> z) {
    return complex<T>{cos(z.re) * cosh(z.im), -(sin(z.re) * sinh(z.im))};
}
template <class T> CJ_INLINE complex<T> sinh(complex<T> z) {
    return complex<T>{sinh(z.re) * cos(z.im), cosh(z.re) * sin(z.im)};
}
template <class T> CJ_INLINE complex<T> cosh(complex<T> z) {
    return complex<T>{cosh(z.re) * cos(z.im), sinh(z.re) * sin(z.im)};
}
template <class T> CJ_INLINE complex<double> tanh(complex<T> z) {
    // CPython's c_tanh as numba-cuda writes it: tanh x (1 + tan^2 y) + i tan y sech^2 x over 1 + tanh^2 x tan^2 y,
    // the products of two T values in T, everything after a float64 constant in double.
    T x = z.re, y = z.im;
    if (isinf(x)) return complex<double>{copysign(1.0, double(x)), isinf(y) ? 0.0 : copysign(0.0, sin(2.0 * double(y)))};
    T tx = tanh(x), ty = tan(y);
    double cx = 1.0 / double(cosh(x));
    T txty = tx * ty;
    double denom = 1.0 + double(txty * txty);
    return complex<double>{double(tx) * (1.0 + double(ty * ty)) / denom, ((double(ty) / denom) * cx) * cx};
}
template <class T> CJ_INLINE complex<T> tan(complex<T> z) {  // tan(z) = -i tanh(iz), rounded back to T
    complex<double> t = tanh(complex<T>{-z.im, z.re});
    return complex<T>{T(t.im), T(-t.re)};
}

template <class T> CJ_INLINE complex<T> asinh(complex<T> z) {
    if (fabs(z.re) > cdetail::large<T>() || fabs(z.im) > cdetail::large<T>()) {  // asinh z ~ log(2z), odd
        T l = log(hypot(z.re / T(2), z.im / T(2))) + T(2) * cdetail::ln2<T>();
        return complex<T>{copysign(l, z.re), atan2(z.im, fabs(z.re))};
    }
    // Kahan: with s1 = sqrt(1 + iz) and s2 = sqrt(1 - iz), asinh z = asinh(Im(conj(s1) s2)) + i atan2(y, Re(s1 s2)).
    complex<T> s1 = sqrt(complex<T>{T(1) + z.im, -z.re});
    complex<T> s2 = sqrt(complex<T>{T(1) - z.im, z.re});
    return complex<T>{asinh(s1.re * s2.im - s2.re * s1.im), atan2(z.im, s1.re * s2.re - s1.im * s2.im)};
}
template <class T> CJ_INLINE complex<T> asin(complex<T> z) {  // asin z = -i asinh(iz)
    complex<T> r = asinh(complex<T>{-z.im, z.re});
    return complex<T>{r.im, -r.re};
}
template <class T> CJ_INLINE complex<T> acos(complex<T> z) {
    if (fabs(z.re) > cdetail::large<T>() || fabs(z.im) > cdetail::large<T>()) {  // acos z ~ -i log(2z)
        T l = log(hypot(z.re / T(2), z.im / T(2))) + T(2) * cdetail::ln2<T>();
        return complex<T>{atan2(fabs(z.im), z.re), signbit(z.im) ? l : -l};
    }
    // Kahan: s1 = sqrt(1 - z), s2 = sqrt(1 + z); acos z = 2 atan2(Re s1, Re s2) + i asinh(Im(conj(s2) s1)).
    complex<T> s1 = sqrt(complex<T>{T(1) - z.re, -z.im});
    complex<T> s2 = sqrt(complex<T>{T(1) + z.re, z.im});
    return complex<T>{T(2) * atan2(s1.re, s2.re), asinh(s2.re * s1.im - s2.im * s1.re)};
}
template <class T> CJ_INLINE complex<double> acosh(complex<T> z) {
    // numba-cuda's c_acosh subtracts the float64 1.0 first, so a complex64 argument is worked on in double.
    double x = z.re, y = z.im;
    if (fabs(x) > cdetail::large<double>() || fabs(y) > cdetail::large<double>()) {  // acosh z ~ log(2z)
        double l = log(hypot(x / 2.0, y / 2.0)) + 2.0 * cdetail::ln2<double>();
        return complex<double>{l, atan2(y, x)};
    }
    // Kahan: s1 = sqrt(z - 1), s2 = sqrt(z + 1); acosh z = asinh(Re(conj(s1) s2)) + 2i atan2(Im s1, Re s2).
    complex<double> s1 = sqrt(complex<double>{x - 1.0, y});
    complex<double> s2 = sqrt(complex<double>{x + 1.0, y});
    return complex<double>{asinh(s1.re * s2.re + s1.im * s2.im), 2.0 * atan2(s1.im, s2.re)};
}
template <class T> CJ_INLINE complex<T> atanh(complex<T> z) {
    if (z.re < T(0) || (z.re == T(0) && signbit(z.re))) {  // atanh is odd: work with Re z >= +0
        complex<T> r = atanh(complex<T>{-z.re, -z.im});
        return complex<T>{-r.re, -r.im};
    }
    T x = z.re, y = z.im;
    if (x > cdetail::large<T>() || fabs(y) > cdetail::large<T>()) {  // atanh z ~ 1/z + i pi/2 sign(y)
        T h = hypot(x / T(2), y / T(2));  // |z| / 2
        return complex<T>{x / h / h / T(4), copysign(T(1.57079632679489661923), y)};
    }
    if (x == T(1) && y == T(0)) return complex<T>{inf<T>(), y};
    // Re = log(|1+z|^2 / |1-z|^2) / 4 = log1p(4x / ((1-x)^2 + y^2)) / 4;  Im = arg((1+z)(1-conj z)) / 2.
    T d = (T(1) - x) * (T(1) - x) + y * y;
    return complex<T>{log1p(T(4) * x / d) / T(4), atan2(T(2) * y, (T(1) - x) * (T(1) + x) - y * y) / T(2)};
}
template <class T> CJ_INLINE complex<T> atan(complex<T> z) {  // atan z = -i atanh(iz)
    complex<T> r = atanh(complex<T>{-z.im, z.re});
    return complex<T>{r.im, -r.re};
}

// z ** w as numba-cuda computes it (its translation of CPython's _Py_c_pow, in the operands' precision):
// w == 0 gives 1, 0 ** w with Re w == 0 gives 0, otherwise |z|**w by polar form. No integer-exponent shortcut.
template <class T> CJ_INLINE complex<T> cpow(complex<T> a, complex<T> b) {
    if (b.re == T(0) && b.im == T(0)) return complex<T>{T(1), T(0)};
    if (a.re == T(0) && b.re == T(0)) return complex<T>{T(0), T(0)};
    T vabs = hypot(a.re, a.im);
    T len = pow(vabs, b.re);
    T at = atan2(a.im, a.re);
    T phase = at * b.re;
    if (b.im != T(0)) {
        len /= exp(at * b.im);
        phase += b.im * log(vabs);
    }
    // len * (cos(phase) + sin(phase) * 1j), with complex arithmetic as Numba's so that inf/nan agree.
    complex<T> unit = complex<T>{cos(phase), T(0)} + complex<T>{sin(phase), T(0)} * complex<T>{T(0), T(1)};
    return complex<T>{len, T(0)} * unit;
}

// float16 (half.h): computed in float and rounded to half, as CUDA's h* functions are specified.
#define CJ_HALF1(name) \
    CJ_INLINE half name(half x) { return half(name(float(x))); }
CJ_HALF1(sqrt)
CJ_HALF1(exp)
CJ_HALF1(exp2)
CJ_HALF1(log)
CJ_HALF1(log2)
CJ_HALF1(log10)
CJ_HALF1(sin)
CJ_HALF1(cos)
CJ_HALF1(floor)
CJ_HALF1(ceil)
CJ_HALF1(trunc)
CJ_HALF1(rint)
CJ_HALF1(fabs)
#undef CJ_HALF1
CJ_INLINE half fmin(half a, half b) { return half(fmin(float(a), float(b))); }
CJ_INLINE half fmax(half a, half b) { return half(fmax(float(a), float(b))); }
CJ_INLINE bool isnan(half x) { return isnan(float(x)); }
CJ_INLINE bool isinf(half x) { return isinf(float(x)); }
CJ_INLINE bool isfinite(half x) { return isfinite(float(x)); }

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

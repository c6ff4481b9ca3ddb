// cudajit runtime: Python's cmath module for complex<float> and complex<double>, namespace cj::m.
//
// Finite arguments follow CPython's cmath (Kahan's formulas for the inverse functions, so branch cuts and signed
// zeros agree; rescaling where an intermediate would overflow or lose bits as a subnormal) in the argument's
// precision, as numba-cuda; numba-cuda's own formula is kept where it differs (log near |z| = 1, tanh's float64
// constants) so that results match it. Infinite and NaN parts leave the fast path in one test and get the values of
// CPython's special-value tables (C99 Annex G, with CPython's choice where Annex G leaves a sign unspecified), also
// where Python raises ValueError: a kernel cannot raise, so it returns the value CPython computed before raising
// (numba-cuda returns a value too; where Python raises OverflowError the kernel's result is the infinity).
// sin, cos, tan, asin, atan are their hyperbolic twins rotated by i, as in CPython, so they share those tables.
#pragma once
#include "config.h"
#include "complex.h"
#include "mathfuncs.h"

namespace cj {
namespace m {

namespace cdetail {
template <class T> CJ_INLINE T ln2() { return T(0.69314718055994530942); }
template <class T> CJ_INLINE T ln10() { return T(2.30258509299404568402); }
template <class T> CJ_INLINE T pi() { return T(3.14159265358979323846); }
template <class T> CJ_INLINE T e() { return T(2.71828182845904523536); }
// The smallest normal number and its square root.
template <class T> CJ_INLINE T min_normal() { return sizeof(T) == 4 ? T(1.17549435e-38f) : T(2.2250738585072014e-308); }
template <class T> CJ_INLINE T sqrt_min_normal() {
    return sizeof(T) == 4 ? T(1.0842022e-19f) : T(1.4916681462400413e-154);
}
// CPython's CM_LARGE_DOUBLE (max/4): above it log rescales so that hypot cannot overflow.
template <class T> CJ_INLINE T quarter_max() { return sizeof(T) == 4 ? T(8.50705917e37f) : T(4.4942328371557893e307); }
// log(max/4): above it exp, cosh and sinh go through exp_times, as exp(x) may overflow where the result does not.
template <class T> CJ_INLINE T log_large() { return sizeof(T) == 4 ? T(87.3365448f) : T(708.39641853226408); }
// Above this magnitude the inverse functions use their asymptotic form (squares would overflow).
template <class T> CJ_INLINE T large() { return sizeof(T) == 4 ? T(1e18f) : T(1e150); }
// Bits of the significand: 2**mant_dig turns any subnormal into a normal number.
template <class T> CJ_HD constexpr int mant_dig() { return sizeof(T) == 4 ? 24 : 53; }

// exp(x) * (c + is) for a finite x > log(max/4), where exp(x) may overflow but the product does not: CPython's
// exp(x - 1) * e in double; in float, whose exp(x - 1) would overflow too, exp(x/2) twice.
template <class T> CJ_INLINE complex<T> exp_times(T x, T c, T s) {
    if constexpr (sizeof(T) == 4) {
        T l = exp(x / T(2));
        return complex<T>{(c * l) * l, (s * l) * l};
    } else {
        T l = exp(x - T(1));
        return complex<T>{l * c * e<T>(), l * s * e<T>()};
    }
}

// atan2(y, x) where x or y is infinite and neither is NaN: C99's exact multiples of pi/4.
template <class T> CJ_INLINE T atan2_inf(T y, T x) {
    T a = isinf(y) ? (isinf(x) ? (x > T(0) ? pi<T>() / T(4) : T(2.35619449019234492885)) : pi<T>() / T(2))
                   : (x > T(0) ? T(0) : pi<T>());
    return copysign(a, y);
}

// ---- special values: a part infinite or NaN (exp, cosh, sinh: also a finite |x| > log(max/4)) ----
// c and s are cos(y) and sin(y), which the callers compute for their fast path anyway: only their signs matter here
// (or, for a finite x, the values), so these paths add no trigonometric code of their own.

template <class T> CJ_INLINE complex<T> exp_special(T x, T y, T c, T s) {  // y != 0
    if (isfinite(x) && isfinite(y)) return exp_times(x, c, s);
    if (isinf(x) && isfinite(y)) {  // exp(+inf + iy) is inf * (c + is), exp(-inf + iy) is 0 * (c + is)
        T mag = x > T(0) ? inf<T>() : T(0);
        return complex<T>{copysign(mag, c), copysign(mag, s)};
    }
    if (isinf(x)) return x > T(0) ? complex<T>{inf<T>(), nan<T>()} : complex<T>{T(0), T(0)};  // y is inf or nan
    return complex<T>{nan<T>(), nan<T>()};  // x nan, or finite x and y inf or nan
}

template <class T> CJ_INLINE complex<T> cosh_special(T x, T y, T c, T s) {
    if (isfinite(x) && isfinite(y)) {  // cosh x = |sinh x| = exp(|x|) / 2
        T sx = x > T(0) ? s : -s;
        complex<T> r = exp_times(fabs(x), c / T(2), sx / T(2));
        return complex<T>{r.re, y == T(0) ? sx : r.im};  // a zero y gives a zero, not 0 * inf
    }
    if (isinf(x) && isfinite(y)) {
        if (y == T(0)) return complex<T>{inf<T>(), x > T(0) ? y : -y};
        T im = copysign(inf<T>(), s);
        return complex<T>{copysign(inf<T>(), c), x > T(0) ? im : -im};
    }
    if (isinf(x)) return complex<T>{inf<T>(), nan<T>()};  // y is inf or nan
    if (isnan(x)) return complex<T>{nan<T>(), y == T(0) ? T(0) : nan<T>()};
    return complex<T>{nan<T>(), x == T(0) ? T(0) : nan<T>()};  // finite x, y inf or nan
}

template <class T> CJ_INLINE complex<T> sinh_special(T x, T y, T c, T s) {
    if (isfinite(x) && isfinite(y)) {  // |sinh x| = cosh x = exp(|x|) / 2
        complex<T> r = exp_times(fabs(x), (x > T(0) ? c : -c) / T(2), s / T(2));
        return complex<T>{r.re, y == T(0) ? y : r.im};
    }
    if (isinf(x) && isfinite(y)) {
        if (y == T(0)) return complex<T>{x, y};
        T re = copysign(inf<T>(), c);
        return complex<T>{x > T(0) ? re : -re, copysign(inf<T>(), s)};
    }
    if (isinf(x)) return complex<T>{inf<T>(), nan<T>()};  // y is inf or nan
    if (isnan(x)) return complex<T>{nan<T>(), y == T(0) ? y : nan<T>()};
    return complex<T>{x == T(0) ? T(0) : nan<T>(), nan<T>()};  // finite x, y inf or nan
}

template <class T> CJ_INLINE complex<T> tanh_special(T x, T y, T ty) {  // ty = tan(y): the sign of sin(y) cos(y)
    if (isinf(x)) return complex<T>{copysign(T(1), x), isfinite(y) ? copysign(T(0), ty) : T(0)};
    if (isnan(x)) return complex<T>{nan<T>(), y == T(0) ? y : nan<T>()};
    return complex<T>{nan<T>(), nan<T>()};  // finite x, y inf or nan
}

template <class T> CJ_INLINE complex<T> sqrt_special(complex<T> z) {
    T x = z.re, y = z.im;
    if (isinf(y)) return complex<T>{inf<T>(), y};
    if (isinf(x)) {  // y finite or nan
        if (x > T(0)) return complex<T>{x, isnan(y) ? y : copysign(T(0), y)};
        return isnan(y) ? complex<T>{y, inf<T>()} : complex<T>{T(0), copysign(inf<T>(), y)};
    }
    return complex<T>{nan<T>(), nan<T>()};
}

template <class T> CJ_INLINE complex<T> asinh_special(complex<T> z) {
    T x = z.re, y = z.im;
    if (isnan(x)) return complex<T>{isinf(y) ? inf<T>() : nan<T>(), y == T(0) ? y : nan<T>()};
    if (isnan(y)) return complex<T>{isinf(x) ? x : nan<T>(), nan<T>()};
    return complex<T>{copysign(inf<T>(), x), atan2_inf(y, fabs(x))};
}

template <class T> CJ_INLINE complex<T> acos_special(complex<T> z) {
    T x = z.re, y = z.im;
    if (isnan(x)) return complex<T>{nan<T>(), isinf(y) ? -y : nan<T>()};
    if (isnan(y)) return complex<T>{x == T(0) ? pi<T>() / T(2) : nan<T>(), isinf(x) ? inf<T>() : nan<T>()};
    return complex<T>{atan2_inf(fabs(y), x), -copysign(inf<T>(), y)};
}

template <class T> CJ_INLINE complex<T> acosh_special(complex<T> z) {
    T x = z.re, y = z.im;
    if (isnan(x) || isnan(y)) return complex<T>{isinf(x) || isinf(y) ? inf<T>() : nan<T>(), nan<T>()};
    return complex<T>{inf<T>(), atan2_inf(y, x)};
}

template <class T> CJ_INLINE complex<T> atanh_special(complex<T> z) {
    T x = z.re, y = z.im;
    if (isnan(y)) return complex<T>{isinf(x) || x == T(0) ? copysign(T(0), x) : nan<T>(), nan<T>()};
    if (isnan(x)) {
        if (isinf(y)) return complex<T>{T(0), copysign(pi<T>() / T(2), y)};
        return complex<T>{nan<T>(), nan<T>()};
    }
    return complex<T>{copysign(T(0), x), copysign(pi<T>() / T(2), y)};
}

template <class T> CJ_INLINE complex<T> rect_special(T r, T phi, T c, T s) {  // c, s: cos(phi), sin(phi)
    if (phi == T(0)) return complex<T>{r, isnan(r) || signbit(r) == signbit(phi) ? T(0) : -T(0)};  // r inf or nan
    if (isfinite(phi)) {  // r is inf or nan
        if (isnan(r)) return complex<T>{nan<T>(), nan<T>()};
        T re = copysign(inf<T>(), c), im = copysign(inf<T>(), s);
        return r > T(0) ? complex<T>{re, im} : complex<T>{-re, -im};
    }
    if (r == T(0)) return complex<T>{T(0), T(0)};  // phi inf or nan
    if (isinf(r)) return complex<T>{inf<T>(), nan<T>()};
    return complex<T>{nan<T>(), nan<T>()};
}
}  // namespace cdetail

// ---- the functions ----

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
    T c = cos(phi), s = sin(phi);
    if (!isfinite(r) || !isfinite(phi)) return cdetail::rect_special(r, phi, c, s);
    if (phi == T(0)) return complex<T>{r, r * phi};  // as CPython: the zero's sign is r's times phi's
    return complex<T>{r * c, r * s};
}

template <class T> CJ_INLINE complex<T> exp(complex<T> z) {
    T x = z.re, y = z.im;
    if (y == T(0)) return complex<T>{exp(x), y};  // a real argument (also inf, nan): no cos/sin, no inf * 0
    T c = cos(y), s = sin(y);
    if (!(x <= cdetail::log_large<T>()) || isinf(x) || !isfinite(y)) return cdetail::exp_special(x, y, c, s);
    T e = exp(x);
    return complex<T>{e * c, e * s};
}

// cmath.log as numba-cuda computes it, log|z| + i arg z (|z| by hypot), so that results match numba-cuda's near
// |z| = 1. Where |z| could overflow or be subnormal (numba-cuda gives inf or loses bits) CPython's rescaling by a
// power of two, folded into the one hypot and log so that the fast path stays small.
template <class T> CJ_INLINE complex<T> log(complex<T> z) {
    T ax = fabs(z.re), ay = fabs(z.im), scale = T(1), shift = T(0);
    if (ax > cdetail::quarter_max<T>() || ay > cdetail::quarter_max<T>()) {
        scale = T(0.5);
        shift = cdetail::ln2<T>();
    } else if (ax < cdetail::min_normal<T>() && ay < cdetail::min_normal<T>() && (ax != T(0) || ay != T(0))) {
        constexpr int k = cdetail::mant_dig<T>();
        scale = T(1ull << k);
        shift = -T(k) * cdetail::ln2<T>();
    }
    return complex<T>{log(hypot(ax * scale, ay * scale)) + shift, atan2(z.im, z.re)};
}
namespace cdetail {
// log z with CPython's care near |z| = 1 (its c_log): there the real part is log1p(|z|**2 - 1) / 2, where
// log(hypot) would keep few bits of a result near 0; elsewhere log(z) above, whose rescaling is CPython's.
template <class T> CJ_INLINE complex<T> log_accurate(complex<T> z) {
    T ax = fabs(z.re), ay = fabs(z.im), h = hypot(ax, ay);
    if (!(T(0.71) <= h && h <= T(1.73))) return log(z);
    T big = ax > ay ? ax : ay, small = ax > ay ? ay : ax;
    return complex<T>{log1p((big - T(1)) * (big + T(1)) + small * small) / T(2), atan2(z.im, z.re)};
}
}  // namespace cdetail

// cmath.log(z, base): CPython's log(z) / log(base), by Smith's division as CPython's, both logarithms with CPython's
// care near |z| = 1 (the quotient's smaller part may cancel, and log(hypot) would leave it few correct bits).
template <class T> CJ_INLINE complex<T> log(complex<T> z, complex<T> base) {
    return cdetail::log_accurate(z) / cdetail::log_accurate(base);
}

// numba-cuda types cmath.log10, tanh and acosh by their Python implementations, whose float64 constants make the
// result complex128 also for a complex64 argument; these follow that arithmetic step by step.
template <class T> CJ_INLINE complex<double> log10(complex<T> z) {
    complex<T> l = log(z);
    return complex<double>{double(l.re) / cdetail::ln10<double>(), double(l.im) / cdetail::ln10<double>()};
}

template <class T> CJ_INLINE complex<T> sqrt(complex<T> z) {
    if (!isfinite(z.re) || !isfinite(z.im)) return cdetail::sqrt_special(z);
    if (z.re == T(0) && z.im == T(0)) return complex<T>{T(0), z.im};
    // s = sqrt((|x| + |z|) / 2), as 2 sqrt(|x|/8 + |z/8|) so that |x| + |z| cannot overflow; where |z| would be
    // subnormal (and lose bits) as 2**-(k+1)/2 sqrt(|x| 2**k + |z 2**k|), k odd so that both are powers of two.
    T ax = fabs(z.re), ay = fabs(z.im), pre = T(0.125), post = T(2);
    if (ax < cdetail::min_normal<T>() && ay < cdetail::min_normal<T>()) {
        constexpr int k = 2 * (cdetail::mant_dig<T>() / 2) + 1;
        pre = T(1ull << k);
        post = T(1) / T(1ull << ((k + 1) / 2));
    }
    ax *= pre;
    T s = post * sqrt(ax + hypot(ax, ay * pre));
    T d = ay / (T(2) * s);
    if (z.re >= T(0)) return complex<T>{s, copysign(d, z.im)};
    return complex<T>{d, copysign(s, z.im)};
}

template <class T> CJ_INLINE complex<T> cosh(complex<T> z) {
    T x = z.re, y = z.im, c = cos(y), s = sin(y);
    if (!(fabs(x) <= cdetail::log_large<T>()) || !isfinite(y)) return cdetail::cosh_special(x, y, c, s);
    return complex<T>{c * cosh(x), s * sinh(x)};
}
template <class T> CJ_INLINE complex<T> sinh(complex<T> z) {
    T x = z.re, y = z.im, c = cos(y), s = sin(y);
    if (!(fabs(x) <= cdetail::log_large<T>()) || !isfinite(y)) return cdetail::sinh_special(x, y, c, s);
    return complex<T>{c * sinh(x), s * cosh(x)};
}
template <class T> CJ_INLINE complex<T> cos(complex<T> z) {  // cos z = cosh(iz)
    return cosh(complex<T>{-z.im, z.re});
}
template <class T> CJ_INLINE complex<T> sin(complex<T> z) {  // sin z = -i sinh(iz)
    complex<T> s = sinh(complex<T>{-z.im, z.re});
    return complex<T>{s.im, -s.re};
}
template <class T> CJ_INLINE complex<double> tanh(complex<T> z) {
    // CPython's c_tanh as numba-cuda writes it: tanh x (1 + tan^2 y) + i tan y sech^2 x over 1 + tanh^2 x tan^2 y,
    // the products of two T values in T, everything after a float64 constant in double. For large |x| sech^2 x
    // underflows to zero as CPython's 4 exp(-2|x|) does.
    T x = z.re, y = z.im, ty = tan(y);
    if (!isfinite(x) || !isfinite(y)) {
        complex<T> r = cdetail::tanh_special(x, y, ty);
        return complex<double>{double(r.re), double(r.im)};
    }
    T tx = tanh(x);
    double cx = 1.0 / double(cosh(x));
    T txty = tx * ty;
    double denom = 1.0 + double(txty * txty);
    return complex<double>{double(tx) * (1.0 + double(ty * ty)) / denom, ((double(ty) / denom) * cx) * cx};
}
template <class T> CJ_INLINE complex<T> tan(complex<T> z) {  // tan z = -i tanh(iz), rounded back to T
    complex<double> t = tanh(complex<T>{-z.im, z.re});
    return complex<T>{T(t.im), T(-t.re)};
}

template <class T> CJ_INLINE complex<T> asinh(complex<T> z) {
    if (!isfinite(z.re) || !isfinite(z.im)) return cdetail::asinh_special(z);
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
    if (!isfinite(z.re) || !isfinite(z.im)) return cdetail::acos_special(z);
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
    if (!isfinite(x) || !isfinite(y)) return cdetail::acosh_special(complex<double>{x, y});
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
    if (!isfinite(z.re) || !isfinite(z.im)) return cdetail::atanh_special(z);
    if (z.re < T(0) || (z.re == T(0) && signbit(z.re))) {  // atanh is odd: work with Re z >= +0
        complex<T> r = atanh(complex<T>{-z.re, -z.im});
        return complex<T>{-r.re, -r.im};
    }
    T x = z.re, y = z.im, ay = fabs(y);
    if (x > cdetail::large<T>() || ay > cdetail::large<T>()) {  // atanh z ~ 1/z + i pi/2 sign(y)
        T h = hypot(x / T(2), y / T(2));  // |z| / 2
        return complex<T>{x / h / h / T(4), copysign(cdetail::pi<T>() / T(2), y)};
    }
    if (x == T(1) && ay < cdetail::sqrt_min_normal<T>()) {
        // y * y would underflow: CPython's leading terms -log(sqrt|y| / sqrt(hypot(y, 2))) + i atan2(2, -|y|) / 2,
        // where hypot(y, 2) is 2 and atan2(2, -|y|) is pi/2, rounded
        if (ay == T(0)) return complex<T>{inf<T>(), y};
        return complex<T>{-log(sqrt(ay) / T(1.41421356237309504880)), copysign(cdetail::pi<T>() / T(4), y)};
    }
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

}  // namespace m
}  // namespace cj

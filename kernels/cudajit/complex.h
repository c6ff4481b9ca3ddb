// cudajit runtime: complex64 / complex128 as cj::complex<float> / cj::complex<double>.
//
// A plain aggregate (trivially copyable, standard layout, aligned like NumPy's and CUDA's float2/double2), so it
// can be a kernel parameter and an array element. Arithmetic follows Python/NumPy: a real operand is promoted to
// complex (x + 0j) first, so inf/nan and signed zeros come out as Python's do.
#pragma once
#include "config.h"

namespace cj {

template <class T> struct alignas(2 * sizeof(T)) complex {
    T re, im;
    CJ_INLINE T real() const { return re; }
    CJ_INLINE T imag() const { return im; }
};

namespace detail {
// |x| by clearing the sign bit (mathfuncs.h includes this header, so no m::fabs here); |-0.0| is +0.0.
template <class T> CJ_INLINE T fabs(T x) {
    using U = uint_like_t<T>;
    return bit_cast<T>(U(bit_cast<U>(x) & ~(U(1) << (8 * sizeof(T) - 1))));
}
}  // namespace detail

template <class T> CJ_INLINE complex<T> make_complex(T re, T im) { return complex<T>{re, im}; }
template <class T> CJ_INLINE complex<T> conj(complex<T> z) { return complex<T>{z.re, -z.im}; }
// complex64(z) of a complex128 rounds each part. GCC 12 at -O2 (its SLP vectorizer) folded a double -> float ->
// double round trip of both parts into nothing (complex128(complex64(z)) was z): an empty asm on the CPU hides the
// rounded parts from it (fuzz seed 33, 62/71).
template <class U, class T> CJ_INLINE complex<U> complex_cast(complex<T> z) {
    U re = U(z.re), im = U(z.im);
#if defined(CJ_CPU) && defined(__GNUC__) && !defined(__clang__)
    if constexpr (sizeof(U) != sizeof(T)) asm("" : "+g"(re), "+g"(im));
#endif
    return complex<U>{re, im};
}

template <class T> CJ_INLINE complex<T> operator+(complex<T> a) { return a; }
template <class T> CJ_INLINE complex<T> operator-(complex<T> a) { return complex<T>{-a.re, -a.im}; }
template <class T> CJ_INLINE complex<T> operator+(complex<T> a, complex<T> b) {
    return complex<T>{a.re + b.re, a.im + b.im};
}
template <class T> CJ_INLINE complex<T> operator-(complex<T> a, complex<T> b) {
    return complex<T>{a.re - b.re, a.im - b.im};
}
// On the GPU NVRTC contracts these into FMAs as NVVM does for numba-cuda; which product gets fused depends on the
// surrounding code in both compilers, so the last bit of a product may differ from numba-cuda's.
template <class T> CJ_INLINE complex<T> operator*(complex<T> a, complex<T> b) {
    return complex<T>{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
// Smith's algorithm (as CPython's complex division and Numba's): divide by the larger component of b, so no
// intermediate overflows. Division by 0j gives inf/nan components like NumPy (Python raises ZeroDivisionError).
template <class T> CJ_INLINE complex<T> operator/(complex<T> a, complex<T> b) {
    T abs_re = detail::fabs(b.re), abs_im = detail::fabs(b.im);
    if (abs_re >= abs_im) {
        if (abs_re == T(0)) return complex<T>{a.re / abs_re, a.im / abs_re};  // +0: signs come from a only
        T ratio = b.im / b.re, denom = b.re + b.im * ratio;
        return complex<T>{(a.re + a.im * ratio) / denom, (a.im - a.re * ratio) / denom};
    }
    if (abs_im >= abs_re) {
        T ratio = b.re / b.im, denom = b.re * ratio + b.im;
        return complex<T>{(a.re * ratio + a.im) / denom, (a.im * ratio - a.re) / denom};
    }
    return complex<T>{nan<T>(), nan<T>()};  // a component of b is NaN
}

// Mixed with a real T: promote (Python and NumPy do), so e.g. (inf+0j) * 2.0 is (inf+nanj) as in Python.
template <class T> CJ_INLINE complex<T> operator+(complex<T> a, T b) { return a + complex<T>{b, T(0)}; }
template <class T> CJ_INLINE complex<T> operator+(T a, complex<T> b) { return complex<T>{a, T(0)} + b; }
template <class T> CJ_INLINE complex<T> operator-(complex<T> a, T b) { return a - complex<T>{b, T(0)}; }
template <class T> CJ_INLINE complex<T> operator-(T a, complex<T> b) { return complex<T>{a, T(0)} - b; }
template <class T> CJ_INLINE complex<T> operator*(complex<T> a, T b) { return a * complex<T>{b, T(0)}; }
template <class T> CJ_INLINE complex<T> operator*(T a, complex<T> b) { return complex<T>{a, T(0)} * b; }
template <class T> CJ_INLINE complex<T> operator/(complex<T> a, T b) { return a / complex<T>{b, T(0)}; }
template <class T> CJ_INLINE complex<T> operator/(T a, complex<T> b) { return complex<T>{a, T(0)} / b; }

template <class T> CJ_INLINE complex<T>& operator+=(complex<T>& a, complex<T> b) { return a = a + b; }
template <class T> CJ_INLINE complex<T>& operator-=(complex<T>& a, complex<T> b) { return a = a - b; }
template <class T> CJ_INLINE complex<T>& operator*=(complex<T>& a, complex<T> b) { return a = a * b; }
template <class T> CJ_INLINE complex<T>& operator/=(complex<T>& a, complex<T> b) { return a = a / b; }
template <class T> CJ_INLINE complex<T>& operator+=(complex<T>& a, T b) { return a = a + b; }
template <class T> CJ_INLINE complex<T>& operator-=(complex<T>& a, T b) { return a = a - b; }
template <class T> CJ_INLINE complex<T>& operator*=(complex<T>& a, T b) { return a = a * b; }
template <class T> CJ_INLINE complex<T>& operator/=(complex<T>& a, T b) { return a = a / b; }

template <class T> CJ_INLINE bool operator==(complex<T> a, complex<T> b) { return a.re == b.re && a.im == b.im; }
template <class T> CJ_INLINE bool operator!=(complex<T> a, complex<T> b) { return !(a == b); }
template <class T> CJ_INLINE bool operator==(complex<T> a, T b) { return a.re == b && a.im == T(0); }
template <class T> CJ_INLINE bool operator==(T a, complex<T> b) { return b == a; }
template <class T> CJ_INLINE bool operator!=(complex<T> a, T b) { return !(a == b); }
template <class T> CJ_INLINE bool operator!=(T a, complex<T> b) { return !(b == a); }

}  // namespace cj

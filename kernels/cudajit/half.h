// cudajit: float16 in kernels (owned by the compiler). cj::half is two bytes, as NumPy's float16: the bits converted
// with PTX's cvt on the GPU (no cuda_fp16.h needed), the compiler's _Float16 on the CPU. Arithmetic is done in float
// and rounded once to half, on both targets: float holds every sum, product and quotient of two halves closely
// enough that this equals half-precision arithmetic (and NumPy's float16, which computes the same way).
#pragma once
#include "config.h"

namespace cj {

struct half {
#if defined(CJ_GPU)
    unsigned short bits;
    half() = default;
    CJ_HD half(float f) {
        asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(f));
    }
    CJ_HD half(double d) {  // rounded once, as NumPy's float64 -> float16
        asm("cvt.rn.f16.f64 %0, %1;" : "=h"(bits) : "d"(d));
    }
    template <class I> CJ_HD half(I i) : half(float(i)) {}
    CJ_HD operator float() const {
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
        return f;
    }
#else
    _Float16 h;
    half() = default;
    half(float f) : h(static_cast<_Float16>(f)) {}
    half(double d) : h(static_cast<_Float16>(d)) {}
    template <class I> half(I i) : h(static_cast<_Float16>(float(i))) {}
    operator float() const { return static_cast<float>(h); }
#endif
};

CJ_INLINE half operator+(half a, half b) { return half(float(a) + float(b)); }
CJ_INLINE half operator-(half a, half b) { return half(float(a) - float(b)); }
CJ_INLINE half operator*(half a, half b) { return half(float(a) * float(b)); }
CJ_INLINE half operator/(half a, half b) { return half(float(a) / float(b)); }
CJ_INLINE half operator-(half a) { return half(-float(a)); }
CJ_INLINE half operator+(half a) { return a; }
CJ_INLINE half& operator+=(half& a, half b) { return a = a + b; }
CJ_INLINE half& operator-=(half& a, half b) { return a = a - b; }
CJ_INLINE half& operator*=(half& a, half b) { return a = a * b; }
CJ_INLINE half& operator/=(half& a, half b) { return a = a / b; }
CJ_INLINE bool operator==(half a, half b) { return float(a) == float(b); }
CJ_INLINE bool operator!=(half a, half b) { return float(a) != float(b); }
CJ_INLINE bool operator<(half a, half b) { return float(a) < float(b); }
CJ_INLINE bool operator<=(half a, half b) { return float(a) <= float(b); }
CJ_INLINE bool operator>(half a, half b) { return float(a) > float(b); }
CJ_INLINE bool operator>=(half a, half b) { return float(a) >= float(b); }

// cuda.fp16.hfma: a * b + c rounded once to half (double holds a * b exactly and the sum closely enough).
CJ_INLINE half hfma(half a, half b, half c) { return half(double(float(a)) * double(float(b)) + double(float(c))); }

// cuda.fp16.__hisinf: CUDA's int result: -1 for -inf, 1 for +inf, else 0.
CJ_INLINE int32_t hisinf(half x) {
    const float f = float(x);
    return f > 3.4e38f ? 1 : (f < -3.4e38f ? -1 : 0);
}

}  // namespace cj

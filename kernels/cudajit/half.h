// cudajit: float16 in kernels (owned by the compiler). cj::half is two bytes, as NumPy's float16: the bits converted
// with PTX's cvt on the GPU (no cuda_fp16.h needed), the compiler's _Float16 on the CPU. On the CPU arithmetic is done
// in float and rounded once to half: float holds every sum, product and quotient of two halves closely enough that
// this equals half-precision arithmetic (and NumPy's float16, which computes the same way). On the GPU +, -, *,
// unary -, comparisons and fabs are the f16 instructions numba-cuda emits (same results, one instruction).
#pragma once
#include "config.h"
#include "mathfuncs.h"

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

#if defined(CJ_GPU)
// The GPU's own half instructions (sm_53+), as numba-cuda emits them: add, sub and mul round once to half, the
// result float arithmetic gives too; without .rn, ptxas may fuse a mul and an add into fma.f16 as it fuses floats.
// Comparisons are setp (ne unordered: true for NaN, as Python's !=); division goes through float.
#define CJ_HALF_BINARY(op, instr)                                                                 \
    CJ_INLINE half operator op(half a, half b) {                                                  \
        half r;                                                                                   \
        asm(instr " %0, %1, %2;" : "=h"(r.bits) : "h"(a.bits), "h"(b.bits));                      \
        return r;                                                                                 \
    }
CJ_HALF_BINARY(+, "add.f16")
CJ_HALF_BINARY(-, "sub.f16")
CJ_HALF_BINARY(*, "mul.f16")
#undef CJ_HALF_BINARY
#define CJ_HALF_COMPARE(op, cmp)                                                                  \
    CJ_INLINE bool operator op(half a, half b) {                                                  \
        unsigned short r;                                                                         \
        asm("{ .reg .pred p; setp." cmp ".f16 p, %1, %2; selp.u16 %0, 1, 0, p; }"                 \
            : "=h"(r) : "h"(a.bits), "h"(b.bits));                                                \
        return r != 0;                                                                            \
    }
CJ_HALF_COMPARE(==, "eq")
CJ_HALF_COMPARE(!=, "neu")
CJ_HALF_COMPARE(<, "lt")
CJ_HALF_COMPARE(<=, "le")
CJ_HALF_COMPARE(>, "gt")
CJ_HALF_COMPARE(>=, "ge")
#undef CJ_HALF_COMPARE
CJ_INLINE half operator-(half a) {
    half r;
    asm("neg.f16 %0, %1;" : "=h"(r.bits) : "h"(a.bits));
    return r;
}
#else
CJ_INLINE half operator+(half a, half b) { return half(float(a) + float(b)); }
CJ_INLINE half operator-(half a, half b) { return half(float(a) - float(b)); }
CJ_INLINE half operator*(half a, half b) { return half(float(a) * float(b)); }
CJ_INLINE half operator-(half a) { return half(-float(a)); }
CJ_INLINE bool operator==(half a, half b) { return float(a) == float(b); }
CJ_INLINE bool operator!=(half a, half b) { return float(a) != float(b); }
CJ_INLINE bool operator<(half a, half b) { return float(a) < float(b); }
CJ_INLINE bool operator<=(half a, half b) { return float(a) <= float(b); }
CJ_INLINE bool operator>(half a, half b) { return float(a) > float(b); }
CJ_INLINE bool operator>=(half a, half b) { return float(a) >= float(b); }
#endif
CJ_INLINE half operator/(half a, half b) { return half(float(a) / float(b)); }
CJ_INLINE half operator+(half a) { return a; }
CJ_INLINE half& operator+=(half& a, half b) { return a = a + b; }
CJ_INLINE half& operator-=(half& a, half b) { return a = a - b; }
CJ_INLINE half& operator*=(half& a, half b) { return a = a * b; }
CJ_INLINE half& operator/=(half& a, half b) { return a = a / b; }

// cuda.fp16.hfma: a * b + c rounded once to half: fma.rn.f16 on the GPU (numba-cuda's instruction); on the CPU in
// double, which holds a * b exactly and, for any product a half can hold, the sum exactly too.
#if defined(CJ_GPU)
CJ_INLINE half hfma(half a, half b, half c) {
    half r;
    asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(r.bits) : "h"(a.bits), "h"(b.bits), "h"(c.bits));
    return r;
}
#else
CJ_INLINE half hfma(half a, half b, half c) { return half(double(float(a)) * double(float(b)) + double(float(c))); }
#endif

// cuda.fp16.__hisinf: CUDA's int result: -1 for -inf, 1 for +inf, else 0.
CJ_INLINE int32_t hisinf(half x) {
    const float f = float(x);
    return f > 3.4e38f ? 1 : (f < -3.4e38f ? -1 : 0);
}

}  // namespace cj

// Python's math functions of float16 (mathfuncs.h has the float and double ones).
namespace cj {
namespace m {

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
#undef CJ_HALF1
#if defined(CJ_GPU)
CJ_INLINE half fabs(half x) {  // abs.f16, as numba-cuda
    half r;
    asm("abs.f16 %0, %1;" : "=h"(r.bits) : "h"(x.bits));
    return r;
}
#else
CJ_INLINE half fabs(half x) { return half(fabs(float(x))); }
#endif
CJ_INLINE half fmin(half a, half b) { return half(fmin(float(a), float(b))); }
CJ_INLINE half fmax(half a, half b) { return half(fmax(float(a), float(b))); }
CJ_INLINE bool isnan(half x) { return isnan(float(x)); }
CJ_INLINE bool isinf(half x) { return isinf(float(x)); }
CJ_INLINE bool isfinite(half x) { return isfinite(float(x)); }

}  // namespace m
}  // namespace cj

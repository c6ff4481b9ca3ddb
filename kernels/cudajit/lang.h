// cudajit: Python-language helpers of the generated code that are not in the runtime headers' table
// (owned by the compiler): cuda.grid/gridsize, dynamic shared array sizes, integer bit intrinsics.
#pragma once
#include "config.h"
#include "thread.h"
#include "arith.h"

namespace cj {

// cuda.grid(n): the absolute thread index, computed in int64 as Numba types it.
CJ_INLINE int64_t grid_x() { return int64_t(tid_x()) + int64_t(ctaid_x()) * int64_t(ntid_x()); }
CJ_INLINE int64_t grid_y() { return int64_t(tid_y()) + int64_t(ctaid_y()) * int64_t(ntid_y()); }
CJ_INLINE int64_t grid_z() { return int64_t(tid_z()) + int64_t(ctaid_z()) * int64_t(ntid_z()); }
// cuda.gridsize(n): the number of threads in the grid along each axis.
CJ_INLINE int64_t gridsize_x() { return int64_t(ntid_x()) * int64_t(nctaid_x()); }
CJ_INLINE int64_t gridsize_y() { return int64_t(ntid_y()) * int64_t(nctaid_y()); }
CJ_INLINE int64_t gridsize_z() { return int64_t(ntid_z()) * int64_t(nctaid_z()); }
// The same for the block a coarsened kernel's body runs as (compiler/coarsen.py): block index bx of a grid of nbx.
CJ_INLINE int64_t grid_x_at(int32_t bx) { return int64_t(tid_x()) + int64_t(bx) * int64_t(ntid_x()); }
CJ_INLINE int64_t gridsize_x_of(int32_t nbx) { return int64_t(ntid_x()) * int64_t(nbx); }

// An element of a read-only kernel parameter (compiler/coarsen.py): loaded through the non-coherent cache (__ldg)
// in a coarsened entry's body, where cj_nc is true, so the compiler may issue it ahead of the body's stores; a
// plain load everywhere else (config.h's cj_nc is false). T: a scalar of 1, 2, 4 or 8 bytes.
template <bool NC, class T> CJ_INLINE T ld_nc(const T& r) {
#if defined(CJ_GPU)
    if constexpr (NC) return bit_cast<T>(__ldg(reinterpret_cast<const uint_like_t<T>*>(&r)));
#endif
    return r;
}

// Elements of T that fit in the launch's dynamic shared memory (the shape Numba gives cuda.shared.array(0, T)).
template <class T> CJ_INLINE int64_t dynamic_shared_count() {
    return int64_t(dynamic_shared_bytes() / sizeof(T));  // thread.h: the launch's size on both targets
}

// CUDA vector types (cuda.float32x4 ...): N components x, y, z, w, an aggregate built as cj::vec<float, 4>{...}.
template <class T, int N> struct vec;
template <class T> struct vec<T, 1> { T x; };
template <class T> struct vec<T, 2> { T x, y; };
template <class T> struct vec<T, 3> { T x, y, z; };
template <class T> struct vec<T, 4> { T x, y, z, w; };

// cuda.popc / brev / clz / ffs on 32- and 64-bit integers.
template <class T> CJ_INLINE T popc(T x) {
#if defined(CJ_GPU)
    return sizeof(T) == 8 ? T(__popcll((unsigned long long)x)) : T(__popc((unsigned)x));
#else
    return sizeof(T) == 8 ? T(__builtin_popcountll((unsigned long long)x)) : T(__builtin_popcount((unsigned)x));
#endif
}
// int.bit_count(): the set bits of |x|, as Python (the magnitude is taken in the unsigned type: INT_MIN has one).
template <class T> CJ_INLINE T bit_count(T x) {
    using U = uint_like_t<T>;
    const U magnitude = is_signed_v<T> && x < 0 ? U(0) - U(x) : U(x);
    return T(popc(magnitude));
}
template <class T> CJ_INLINE T clz(T x) {
#if defined(CJ_GPU)
    return sizeof(T) == 8 ? T(__clzll((long long)x)) : T(__clz((int)x));
#else
    if (x == 0) return T(8 * sizeof(T));
    return sizeof(T) == 8 ? T(__builtin_clzll((unsigned long long)x)) : T(__builtin_clz((unsigned)x));
#endif
}
template <class T> CJ_INLINE uint32_t ffs(T x) {
#if defined(CJ_GPU)
    return sizeof(T) == 8 ? uint32_t(__ffsll((long long)x)) : uint32_t(__ffs((int)x));
#else
    return sizeof(T) == 8 ? uint32_t(__builtin_ffsll((long long)x)) : uint32_t(__builtin_ffs((int)x));
#endif
}
template <class T> CJ_INLINE T brev(T x) {
#if defined(CJ_GPU)
    return sizeof(T) == 8 ? T(__brevll((unsigned long long)x)) : T(__brev((unsigned)x));
#else
    uint64_t v = uint64_t(x), r = 0;
    for (unsigned k = 0; k < 8 * sizeof(T); ++k, v >>= 1) r = (r << 1) | (v & 1);
    return T(r);
#endif
}

}  // namespace cj

#include "array.h"
#if !defined(CJ_LEAN) || defined(CJ_WANT_CMATH)
#include "cmathfuncs.h"
#endif
namespace cj {
// abs() of a signed integer keeps its type (Numba); abs(INT_MIN) wraps as in two's complement.
// (negated through the unsigned type: 0 - INT_MIN in the signed type is undefined, and NVRTC exploits that)
// A narrow int's abs is taken in int and wrapped by narrow_from_int (Numba: abs(int16(-32768)) is -32768): PTX
// abs.s16 of -32768 gave +32768 on the H200 (arith.h says why).
// On the GPU abs of a 32- or 64-bit integer is spelled out in inline PTX (sign mask, xor, subtract): for PTX abs.s32
// ptxas (CUDA 13.0 to 13.5) takes the result for non-negative and converts uint32(abs(INT_MIN)) to float as a
// signed number, -2147483648.0 (Numba: 2147483648.0; fuzzer seed 51, 37/86).
template <class T> CJ_INLINE T iabs(T x) {
    if constexpr (sizeof(T) < sizeof(int)) {
        const int w = static_cast<int>(x);
        return narrow_from_int<T>(w < 0 ? -w : w);
    } else {
#if defined(__CUDA_ARCH__)
        if constexpr (sizeof(T) == 4) {
            int32_t r;
            asm("{\n\t.reg .b32 m;\n\tshr.s32 m, %1, 31;\n\txor.b32 %0, %1, m;\n\tsub.s32 %0, %0, m;\n\t}"
                : "=r"(r) : "r"(int32_t(x)));
            return T(r);
        } else {
            int64_t r;
            asm("{\n\t.reg .b64 m;\n\tshr.s64 m, %1, 63;\n\txor.b64 %0, %1, m;\n\tsub.s64 %0, %0, m;\n\t}"
                : "=l"(r) : "l"(int64_t(x)));
            return T(r);
        }
#endif
        return x < T(0) ? wrap_neg(x) : x;
    }
}
// math.frexp / math.modf / cmath.polar return tuples in Python.
template <class T> CJ_INLINE Tuple<T, int32_t> frexp_tuple(T x) {
    int32_t e;
    T mant = m::frexp(x, &e);
    return make_tuple(mant, e);
}
template <class T> CJ_INLINE UniTuple<T, 2> modf_tuple(T x) {
    T ipart;
    T frac = m::modf(x, &ipart);
    return UniTuple<T, 2>{{frac, ipart}};
}
// A foreign device function in Numba's ABI (int f(R* result, P... args), cuda.declare_device): its result, the
// arguments converted to its own parameter types.
template <class R, class... P, class... A> CJ_INLINE R call_extern(int (*f)(R*, P...), A... a) {
    R r;
    f(&r, P(a)...);
    return r;
}
// ... and of one declared void (int f(void* result, P... args)), which stores nothing through its result pointer
template <class... P, class... A> CJ_INLINE void call_extern(int (*f)(void*, P...), A... a) {
    unsigned long long unused;
    f(&unused, P(a)...);
}
// How many arguments (after the result pointer) a function in Numba's ABI takes; -1 for any other function, so
// that the wrapper's static_assert, not a failed deduction of call_extern, reports the mismatch first.
template <class F> struct extern_arity { static constexpr int value = -1; };
template <class R, class... P> struct extern_arity<int (*)(R*, P...)> {
    static constexpr int value = int(sizeof...(P));
};

// The same for a foreign function in the C ABI (R f(P... args), declare_device(..., abi="c")): its arity.
template <class F> struct c_extern_arity { static constexpr int value = -1; };
template <class R, class... P> struct c_extern_arity<R (*)(P...)> {
    static constexpr int value = int(sizeof...(P));
};

// cuda.match_all_sync(mask, value) -> (mask of equal lanes, all equal)
template <class T> CJ_INLINE Tuple<int32_t, bool> match_all_tuple(uint32_t mask, T v CJ_CALLER) {
    int32_t pred;
    uint32_t m = match_all_sync(mask, v, &pred CJ_CALLER_ARGS);
    return make_tuple(int32_t(m), pred != 0);
}
#if !defined(CJ_LEAN) || defined(CJ_WANT_CMATH)
template <class T> CJ_INLINE UniTuple<T, 2> polar_tuple(complex<T> z) {
    T phi;
    T r = m::polar(z, &phi);
    return UniTuple<T, 2>{{r, phi}};
}
#endif
// Numba's Optional(T) for scalars: a value that may be None at run time (compiler/types.py, Optional). A value
// -initialised one ({}) is None. The compiler unwraps it with opt_value wherever a T is needed.
template <class T> struct Optional {
    T value;
    bool valid;
};
template <class T, class U> CJ_INLINE Optional<T> some(U v) { return Optional<T>{T(v), true}; }
// T? to U?: None stays None (numba's optional_to_optional).
template <class U, class T> CJ_INLINE Optional<U> opt_cast(const Optional<T>& o) {
    return o.valid ? Optional<U>{U(o.value), true} : Optional<U>{};
}

// The value of an Optional where a T is needed: None ends the thread (numba's TypeError "expected T, got None").
template <class T> CJ_INLINE T opt_value(const Optional<T>& o) {
    if (__builtin_expect(!o.valid, 0)) end_thread();
    return o.value;
}
#if defined(CJ_ERROR_RECORD)
// The same under debug=True: None raises that TypeError at error site `site` (debug.h).
template <class T> CJ_INLINE T opt_value(const Optional<T>& o, int32_t site) {
    if (__builtin_expect(!o.valid, 0)) debug_raise(site);
    return o.value;
}
#endif

// NumPy's fixed-width strings (compiler/types.py, CharSeq): N characters (bytes for 'S', UCS4 code points for
// 'U'), NUL-padded. A string constant stored into one is the aggregate of its characters, cut at N; the rest are
// zero (NumPy's assignment).
template <class C, int N> struct CharSeq {
    C c[N];
};
// == of two fixed-width strings of one kind, of any widths: NumPy's, where trailing NULs do not count.
template <class C, int N, int M> CJ_INLINE bool chars_eq(const CharSeq<C, N>& a, const CharSeq<C, M>& b) {
    for (int i = 0; i < (N > M ? N : M); ++i)
        if ((i < N ? a.c[i] : C(0)) != (i < M ? b.c[i] : C(0))) return false;
    return true;
}
}  // namespace cj

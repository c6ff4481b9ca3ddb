// cudajit runtime: cuda.atomic.* as cj::atomic_*(T* p, ...), each returning the old value.
//
// T is int32_t, uint32_t, int64_t, uint64_t, float or double (Numba's set; and_/or_/xor/inc/dec are integer-only,
// inc/dec unsigned-only). GPU: CUDA's atomic* functions where one exists for the type, else a compare-and-swap
// loop on the bit pattern. CPU: GCC/Clang __atomic builtins (sequentially consistent), CAS loops for floats.
//
// NaN rules (Numba's): atomic_max/min store max(old, v)/min(old, v) with Python's semantics, so a NaN already
// stored stays and a NaN v is ignored; atomic_nanmax/nanmin ignore a NaN v but replace a stored NaN.
#pragma once
#include "config.h"
#include "arith.h"

namespace cj {
namespace atomic_detail {

#if defined(CJ_GPU)
// The operand type of CUDA's overloads: 32-bit types as they are; 64-bit integers as long long for max/min/and/
// or/xor and as unsigned long long for add/exch/cas (the only 64-bit form; two's complement makes it exact).
template <class T> struct cu { using ord = T; using bits = T; };
template <> struct cu<int64_t> { using ord = long long; using bits = unsigned long long; };
template <> struct cu<uint64_t> { using ord = unsigned long long; using bits = unsigned long long; };
template <class T> using ord_t = typename cu<T>::ord;
template <class T> using bits_t = typename cu<T>::bits;

template <class U> CJ_INLINE U cas_word(U* p, U expected, U desired) {
    return U(atomicCAS(reinterpret_cast<bits_t<U>*>(p), bits_t<U>(expected), bits_t<U>(desired)));
}
template <class U> CJ_INLINE U load_word(U* p) { return *reinterpret_cast<volatile U*>(p); }
#else
template <class U> inline U cas_word(U* p, U expected, U desired) {
    __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return expected;  // the value found: equal to `expected` on success
}
template <class U> inline U load_word(U* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
#endif

// Atomically replaces *p by f(*p) with a CAS loop on the bit pattern and returns the old value. When f leaves
// the value unchanged nothing is written (the relaxed load was the atomic read).
template <class T, class F> CJ_INLINE T cas_loop(T* p, F f) {
    using U = uint_like_t<T>;
    U* up = reinterpret_cast<U*>(p);
    U old_bits = load_word(up);
    for (;;) {
        T old = bit_cast<T>(old_bits);
        U new_bits = bit_cast<U>(T(f(old)));
        if (new_bits == old_bits) return old;
        U seen = cas_word(up, old_bits, new_bits);
        if (seen == old_bits) return old;
        old_bits = seen;
    }
}

}  // namespace atomic_detail

template <class T> CJ_INLINE T atomic_add(T* p, T v) {
#if defined(CJ_GPU)
    using B = atomic_detail::bits_t<T>;  // sm_60+ has float and double atomicAdd
    return T(atomicAdd(reinterpret_cast<B*>(p), B(v)));
#else
    if constexpr (is_floating_v<T>) return atomic_detail::cas_loop(p, [v](T old) { return old + v; });
    else return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
#endif
}

template <class T> CJ_INLINE T atomic_sub(T* p, T v) {
#if defined(CJ_GPU)
    // CUDA's atomicSub is 32-bit only; elsewhere a - v == a + (-v), exactly (floats) or modulo 2^64 (integers).
    using B = atomic_detail::bits_t<T>;
    if constexpr (is_floating_v<T>) return atomicAdd(p, -v);
    else if constexpr (sizeof(T) == 4) return T(atomicSub(reinterpret_cast<B*>(p), B(v)));
    else return T(atomicAdd(reinterpret_cast<B*>(p), B(0) - B(v)));
#else
    if constexpr (is_floating_v<T>) return atomic_detail::cas_loop(p, [v](T old) { return old - v; });
    else return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);
#endif
}

// Bitwise operations: integers only.
#if defined(CJ_GPU)
#define CJ_ATOMIC_BITWISE(name, cuda_fn, gcc_builtin)                                   \
    template <class T> CJ_INLINE T name(T* p, T v) {                                    \
        using O = atomic_detail::ord_t<T>;                                              \
        return T(cuda_fn(reinterpret_cast<O*>(p), O(v)));                               \
    }
#else
#define CJ_ATOMIC_BITWISE(name, cuda_fn, gcc_builtin) \
    template <class T> inline T name(T* p, T v) { return gcc_builtin(p, v, __ATOMIC_SEQ_CST); }
#endif
CJ_ATOMIC_BITWISE(atomic_and_, atomicAnd, __atomic_fetch_and)
CJ_ATOMIC_BITWISE(atomic_or_, atomicOr, __atomic_fetch_or)
CJ_ATOMIC_BITWISE(atomic_xor, atomicXor, __atomic_fetch_xor)
CJ_ATOMIC_BITWISE(atomic_and, atomicAnd, __atomic_fetch_and)  // same, without Python's keyword-avoiding "_"
CJ_ATOMIC_BITWISE(atomic_or, atomicOr, __atomic_fetch_or)
#undef CJ_ATOMIC_BITWISE

// Integers: CUDA's atomicMax/Min (CPU: CAS loop). Floats: CAS loop with Python's max/min (see the NaN rules above).
template <class T> CJ_INLINE T atomic_max(T* p, T v) {
#if defined(CJ_GPU)
    if constexpr (!is_floating_v<T>)
        return T(atomicMax(reinterpret_cast<atomic_detail::ord_t<T>*>(p), atomic_detail::ord_t<T>(v)));
    else
#endif
    return atomic_detail::cas_loop(p, [v](T old) { return pymax(old, v); });
}
template <class T> CJ_INLINE T atomic_min(T* p, T v) {
#if defined(CJ_GPU)
    if constexpr (!is_floating_v<T>)
        return T(atomicMin(reinterpret_cast<atomic_detail::ord_t<T>*>(p), atomic_detail::ord_t<T>(v)));
    else
#endif
    return atomic_detail::cas_loop(p, [v](T old) { return pymin(old, v); });
}
template <class T> CJ_INLINE T atomic_nanmax(T* p, T v) {
    if constexpr (!is_floating_v<T>) return atomic_max(p, v);
    else return atomic_detail::cas_loop(p, [v](T old) { return (old < v || m::isnan(old)) && !m::isnan(v) ? v : old; });
}
template <class T> CJ_INLINE T atomic_nanmin(T* p, T v) {
    if constexpr (!is_floating_v<T>) return atomic_min(p, v);
    else return atomic_detail::cas_loop(p, [v](T old) { return (old > v || m::isnan(old)) && !m::isnan(v) ? v : old; });
}

// Exchange and compare-and-swap work on the bit pattern (for floats: cas compares bits, not values).
template <class T> CJ_INLINE T atomic_exch(T* p, T v) {
    using U = uint_like_t<T>;
#if defined(CJ_GPU)
    using B = atomic_detail::bits_t<U>;
    return bit_cast<T>(U(atomicExch(reinterpret_cast<B*>(p), B(bit_cast<U>(v)))));
#else
    return bit_cast<T>(__atomic_exchange_n(reinterpret_cast<U*>(p), bit_cast<U>(v), __ATOMIC_SEQ_CST));
#endif
}
template <class T> CJ_INLINE T atomic_cas(T* p, T expected, T desired) {
    using U = uint_like_t<T>;
    return bit_cast<T>(atomic_detail::cas_word(reinterpret_cast<U*>(p), bit_cast<U>(expected), bit_cast<U>(desired)));
}

// CUDA's wrapping counters (uint32/uint64): inc stores (old >= max) ? 0 : old + 1;
// dec stores (old == 0 || old > max) ? max : old - 1.
template <class T> CJ_INLINE T atomic_inc(T* p, T max) {
#if defined(CJ_GPU)
    if constexpr (sizeof(T) == 4) return T(atomicInc(reinterpret_cast<unsigned int*>(p), (unsigned int)max));
    else
#endif
    return atomic_detail::cas_loop(p, [max](T old) { return old >= max ? T(0) : T(old + 1); });
}
template <class T> CJ_INLINE T atomic_dec(T* p, T max) {
#if defined(CJ_GPU)
    if constexpr (sizeof(T) == 4) return T(atomicDec(reinterpret_cast<unsigned int*>(p), (unsigned int)max));
    else
#endif
    return atomic_detail::cas_loop(p, [max](T old) { return (old == T(0) || old > max) ? max : T(old - 1); });
}

}  // namespace cj

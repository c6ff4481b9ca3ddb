// cudajit runtime: numba.cuda's cache hints. cj::ld_<op>(const T* p) loads *p with PTX's ld.global.<op>
// (ca, cg, cs, lu, cv) and cj::st_<op>(T* p, T v) stores with st.global.<op> (cg, cs, wb, wt).
//
// T is an integer or real of 1, 2, 4 or 8 bytes (cj::half included). GPU: the PTX instruction on the unsigned
// integer of T's size (below). A hint names the global state space,
// so an address elsewhere (a shared or local array, constant memory) is loaded or stored plainly: __isGlobal
// decides, and folds away where the compiler knows the space. CPU: plain loads and stores (no caches to steer).
#pragma once
#include "config.h"

namespace cj {

#if defined(CJ_GPU)
// The PTX itself, as CUDA's __ld<op>/__st<op> write it (inline assembly) but typed .b<bits> as numba-cuda's NVVM
// spells it (its tests match `ld.global.ca.b8`): an 8-bit value travels in a 32-bit register. A load of .cv (fetch
// again) is volatile and after any earlier store; the others, like CUDA's, may be combined with equal loads.
#define CJ_LD_BITS(op, bits, U, R, c, qual, clobber)                                                  \
    CJ_INLINE U ld_bits_##op(const U* p) {                                                          \
        R r;                                                                                          \
        asm qual("ld.global." #op ".b" #bits " %0, [%1];" : "=" c(r) : "l"(p) clobber);               \
        return static_cast<U>(r);                                                                     \
    }
#define CJ_ST_BITS(op, bits, U, R, c)                                                                   \
    CJ_INLINE void st_bits_##op(U* p, U v) {                                                         \
        asm volatile("st.global." #op ".b" #bits " [%0], %1;" ::"l"(p), c(static_cast<R>(v)) : "memory"); \
    }
#define CJ_CACHE_LOAD_Q(op, qual, clobber)                                                              \
    CJ_LD_BITS(op, 8, uint8_t, unsigned, "r", qual, clobber)                                          \
    CJ_LD_BITS(op, 16, uint16_t, unsigned short, "h", qual, clobber)                                  \
    CJ_LD_BITS(op, 32, uint32_t, unsigned, "r", qual, clobber)                                        \
    CJ_LD_BITS(op, 64, uint64_t, unsigned long long, "l", qual, clobber)                              \
    template <class T> CJ_INLINE T ld_##op(const T* p) {                                            \
        using U = uint_like_t<T>;                                                                   \
        if (!__isGlobal(p)) return *p;                                                              \
        return bit_cast<T>(ld_bits_##op(reinterpret_cast<const U*>(p)));                            \
    }
#define CJ_CACHE_LOAD(op) CJ_CACHE_LOAD_Q(op, , )
#define CJ_CACHE_STORE(op)                                                                      \
    CJ_ST_BITS(op, 8, uint8_t, unsigned, "r")                                                   \
    CJ_ST_BITS(op, 16, uint16_t, unsigned short, "h")                                           \
    CJ_ST_BITS(op, 32, uint32_t, unsigned, "r")                                                 \
    CJ_ST_BITS(op, 64, uint64_t, unsigned long long, "l")                                       \
    template <class T> CJ_INLINE void st_##op(T* p, T v) {                                      \
        using U = uint_like_t<T>;                                                               \
        if (!__isGlobal(p)) {                                                                   \
            *p = v;                                                                             \
            return;                                                                             \
        }                                                                                       \
        st_bits_##op(reinterpret_cast<U*>(p), bit_cast<U>(v));                                  \
    }
#else
#define CJ_CACHE_LOAD(op) \
    template <class T> CJ_INLINE T ld_##op(const T* p) { return *p; }
#define CJ_CACHE_STORE(op) \
    template <class T> CJ_INLINE void st_##op(T* p, T v) { *p = v; }
#endif

CJ_CACHE_LOAD(ca)
CJ_CACHE_LOAD(cg)
CJ_CACHE_LOAD(cs)
CJ_CACHE_LOAD(lu)
#if defined(CJ_GPU)
CJ_CACHE_LOAD_Q(cv, volatile, : "memory")
#else
CJ_CACHE_LOAD(cv)
#endif
CJ_CACHE_STORE(cg)
CJ_CACHE_STORE(cs)
CJ_CACHE_STORE(wb)
CJ_CACHE_STORE(wt)
#undef CJ_CACHE_LOAD
#undef CJ_CACHE_STORE
#if defined(CJ_GPU)
#undef CJ_CACHE_LOAD_Q
#undef CJ_LD_BITS
#undef CJ_ST_BITS
#endif

}  // namespace cj

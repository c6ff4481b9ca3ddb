// cudajit runtime: numba.cuda's cache hints. cj::ld_<op>(const T* p) loads *p with PTX's ld.global.<op>
// (ca, cg, cs, lu, cv) and cj::st_<op>(T* p, T v) stores with st.global.<op> (cg, cs, wb, wt).
//
// T is an integer or real of 1, 2, 4 or 8 bytes (cj::half included). GPU: CUDA's __ld<op>/__st<op> on the unsigned
// integer of T's size, so every T takes the one overload set CUDA declares. A hint names the global state space,
// so an address elsewhere (a shared or local array, constant memory) is loaded or stored plainly: __isGlobal
// decides, and folds away where the compiler knows the space. CPU: plain loads and stores (no caches to steer).
#pragma once
#include "config.h"

namespace cj {

#if defined(CJ_GPU)
#define CJ_CACHE_LOAD(op)                                                                       \
    template <class T> CJ_INLINE T ld_##op(const T* p) {                                        \
        using U = uint_like_t<T>;                                                               \
        if (!__isGlobal(p)) return *p;                                                          \
        return bit_cast<T>(static_cast<U>(__ld##op(reinterpret_cast<const U*>(p))));            \
    }
#define CJ_CACHE_STORE(op)                                                                      \
    template <class T> CJ_INLINE void st_##op(T* p, T v) {                                      \
        using U = uint_like_t<T>;                                                               \
        if (!__isGlobal(p)) {                                                                   \
            *p = v;                                                                             \
            return;                                                                             \
        }                                                                                       \
        __st##op(reinterpret_cast<U*>(p), bit_cast<U>(v));                                      \
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
CJ_CACHE_LOAD(cv)
CJ_CACHE_STORE(cg)
CJ_CACHE_STORE(cs)
CJ_CACHE_STORE(wb)
CJ_CACHE_STORE(wt)
#undef CJ_CACHE_LOAD
#undef CJ_CACHE_STORE

}  // namespace cj

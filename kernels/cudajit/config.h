// cudajit runtime: target selection and the few macros in which the GPU and CPU targets differ.
//
// The generated source is identical for both targets. NVRTC (GPU) defines __CUDACC__ and __CUDACC_RTC__
// and offers no standard headers; the CPU build is plain g++/clang++ with the C++ standard library.
#pragma once

#if defined(__CUDACC__)
#define CJ_GPU 1
#else
#define CJ_CPU 1
#endif

#if defined(CJ_GPU)
#define CJ_INLINE __device__ __forceinline__
#define CJ_FORCEINLINE_DEVICE __device__ __forceinline__
#define CJ_DEVICE __device__ inline
#define CJ_GLOBAL extern "C" __global__
// __launch_bounds__(0, 0) emits no .maxntid/.minnctapersm (checked with CUDA 13), so "max 0 = no bound" and
// "min 0 = no minimum" need no preprocessor arithmetic.
#define CJ_LAUNCH_BOUNDS(max, min) __launch_bounds__(max, min)
#define CJ_CONSTANT __constant__
#define CJ_HD __host__ __device__  // usable in device code and in constant initialisers
// A kernel whose checked indices include cuda.grid's (CJ_ENTRY_FITS, cpu_exec.h): one kernel, every check kept.
#define CJ_FITS_TEMPLATE
static constexpr bool cj_fits = false;
template <class T> using cj_param = T;
#define CJ_PARAM(...) cj_param<__VA_ARGS__>
#else
#define CJ_INLINE inline
#define CJ_FORCEINLINE_DEVICE inline __attribute__((always_inline))
#define CJ_DEVICE static inline
#define CJ_GLOBAL static inline __attribute__((always_inline))  // into the block loop (thread.h, run_threads)
#define CJ_LAUNCH_BOUNDS(max, min)
#define CJ_CONSTANT static const
#define CJ_HD
// Two instantiations: cj_fits true skips the checks the block loop proved for a whole block (thread.h, run_fits).
#define CJ_FITS_TEMPLATE template <bool cj_fits>
// A kernel's parameter: by value on the GPU; on the CPU a reference to the block loop's copy (thread.h, Entry), so
// that no per-thread copy ends in a clobber that keeps GCC from sinking the loop's threadIdx store and vectorising
// it. The compiler copies a parameter the kernel assigns into a variable of its own (translator.py, _finish).
template <class T> using cj_param = const T&;
#define CJ_PARAM(...) cj_param<__VA_ARGS__>
#endif
// The CPU's barriers and warp collectives take their caller's place as defaulted parameters (the #line directives
// make it the user's .py file and line), to name it in their errors (thread.h); CJ_CALLER_ARGS passes it on from a
// wrapper. Nothing on the GPU.
// CJ_CALLER_ONLY: the same for a function without other parameters.
#if defined(CJ_CPU)
#define CJ_CALLER_ONLY \
    const char *cj_file = __builtin_FILE(), int cj_line = __builtin_LINE(), const char *cj_function = __builtin_FUNCTION()
#define CJ_CALLER , CJ_CALLER_ONLY
#define CJ_CALLER_ARGS , cj_file, cj_line, cj_function
#else
#define CJ_CALLER_ONLY
#define CJ_CALLER
#define CJ_CALLER_ARGS
#endif
// A read-only parameter's loads (lang.h, ld_nc) are plain but in a coarsened body, a template on its own cj_nc.
static constexpr bool cj_nc = false;

// ---- fixed-width integers and their limits ----
#if defined(__CUDACC_RTC__)
#if defined(__has_include) && defined(CJ_LINKED_SOURCES)
#if __has_include(<cuda/std/cstdint>)
// The user's CUDA C++ follows (it may include CUB) and CCCL is on the include path: take CCCL's definitions so that
// a later CCCL include does not redefine the limit macros differently. Without linked sources our own typedefs
// below serve: parsing CCCL's costs about 15 ms of every compile.
#include <cuda/std/cstdint>
#define CJ_HAVE_STDINT 1
#endif
#endif
#if !defined(CJ_HAVE_STDINT)
// Same types as CCCL's NVRTC branch (int64_t = long long), so a later CCCL include redeclares them identically.
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef long long intptr_t;
typedef unsigned long long uintptr_t;
#ifndef INT8_MIN
#define INT8_MIN (-128)
#define INT16_MIN (-32767 - 1)
#define INT32_MIN (-2147483647 - 1)
#define INT64_MIN (-9223372036854775807LL - 1)
#define INT8_MAX 127
#define INT16_MAX 32767
#define INT32_MAX 2147483647
#define INT64_MAX 9223372036854775807LL
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 0xffffffffU
#define UINT64_MAX 0xffffffffffffffffULL
#endif
#endif
// size_t and ptrdiff_t are NVRTC built-ins.
#else
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstddef>
#endif

namespace cj {

// Quiet NaN and +infinity as constants (no <limits> under NVRTC; __builtin_bit_cast works in NVRTC and g++ >= 11).
template <class T> CJ_HD constexpr T nan();
template <> CJ_HD constexpr float nan<float>() { return __builtin_bit_cast(float, 0x7fc00000u); }
template <> CJ_HD constexpr double nan<double>() { return __builtin_bit_cast(double, 0x7ff8000000000000ull); }
template <class T> CJ_HD constexpr T inf();
template <> CJ_HD constexpr float inf<float>() { return __builtin_bit_cast(float, 0x7f800000u); }
template <> CJ_HD constexpr double inf<double>() { return __builtin_bit_cast(double, 0x7ff0000000000000ull); }

// The literal -0.0. On the GPU its value is hidden from NVVM, whose value tracking counts -0.0 as "not below zero"
// and so took x / -0.0 (-inf) for non-negative: `su % (ic[k] / -0.0)` lost the sign fix of Python's % (fuzzer
// seed 23). Not constexpr; constant-array initializers spell -0.0 directly.
template <class T> CJ_HD inline T neg_zero() {
#if defined(__CUDA_ARCH__)
    if constexpr (sizeof(T) == 4) {
        float r;
        asm("mov.b32 %0, 0x80000000;" : "=f"(r));
        return r;
    } else {
        double r;
        asm("mov.b64 %0, 0x8000000000000000;" : "=d"(r));
        return r;
    }
#else
    return -T(0);
#endif
}

// Small type utilities (no <type_traits> under NVRTC).
template <class T> struct is_floating { static constexpr bool value = false; };
template <> struct is_floating<float> { static constexpr bool value = true; };
template <> struct is_floating<double> { static constexpr bool value = true; };
template <class T> constexpr bool is_floating_v = is_floating<T>::value;
template <class T> constexpr bool is_signed_v = T(-1) < T(0);  // also true for float/double

// The unsigned integer of N bytes: wrapping arithmetic, shifts and CAS on bit patterns.
template <int N> struct uint_of;
template <> struct uint_of<1> { using type = uint8_t; };
template <> struct uint_of<2> { using type = uint16_t; };
template <> struct uint_of<4> { using type = uint32_t; };
template <> struct uint_of<8> { using type = uint64_t; };
template <class T> using uint_like_t = typename uint_of<sizeof(T)>::type;

template <class To, class From> CJ_HD constexpr To bit_cast(const From& x) { return __builtin_bit_cast(To, x); }

// Most negative value of a signed integer type (two's complement).
template <class T> CJ_HD constexpr T int_min() { return T(uint_like_t<T>(1) << (8 * sizeof(T) - 1)); }

#if defined(CJ_GPU)
// Abort the kernel; the launch then fails with an error the host reports.
CJ_INLINE void trap() { __trap(); }
#else
// CPU: no exceptions cross the kernel. The CPU backend may install a hook (e.g. one that records the error and
// unwinds the block with longjmp); it must not return. Without a hook, or if it returns, the process aborts.
// The hook is an inline variable: one per loaded kernel library (each .so has its own copy).
inline void (*cpu_trap_hook)() = nullptr;
[[noreturn]] inline void trap() {
    if (cpu_trap_hook) cpu_trap_hook();
    std::abort();
}
#endif

}  // namespace cj

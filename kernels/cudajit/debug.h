// cudajit: what a kernel compiled with debug=True or boundscheck reports to the host (owned by the compiler and
// the launcher).
//
// Such a compilation unit defines CJ_ERROR_RECORD before including runtime.h. It then has one error record: the
// first thread that raises (a `raise`/`assert` in a debug kernel, or an out-of-range index) claims it with a CAS
// and writes where it was; the launcher reads it after the kernel and raises the Python exception of that site
// (src/launch.cpp, struct DebugRecord: the layout below is shared with it).
#pragma once
#include "config.h"
#include "thread.h"

namespace cj {

constexpr int kRecordDims = 4;  // an index error reports the array's shape up to this many dimensions

struct ErrorRecord {
    int32_t code;       // 0: no error; else 1 + the index of the raise site (the compiler's table)
    int32_t tid[3];
    int32_t ctaid[3];
    int32_t ndim;       // index errors: the array's (or tuple's) number of dimensions
    int64_t value[3];   // index errors: the index, the axis, the extent
    int64_t shape[kRecordDims];
    alignas(16) unsigned char scratch[16];  // what an out-of-range access reads or writes instead of memory
};

}  // namespace cj

#if defined(CJ_ERROR_RECORD)
#if defined(CJ_GPU)
extern "C" {
__device__ cj::ErrorRecord cj_error_record;
}
#define CJ_COLD __device__ __noinline__
#else
static cj::ErrorRecord cj_error_record;
extern "C" __attribute__((visibility("default"), used)) cj::ErrorRecord* cj_error_record_cpu() {
    return &cj_error_record;
}
#define CJ_COLD __attribute__((noinline, cold)) inline
#endif

namespace cj {

// Claims the record for this thread: true for the first thread that raised since the last launch.
CJ_INLINE bool debug_claim(int32_t site) {
#if defined(CJ_GPU)
    bool first = atomicCAS(&cj_error_record.code, 0, site + 1) == 0;
#else
    int32_t expected = 0;
    bool first = __atomic_compare_exchange_n(&cj_error_record.code, &expected, site + 1, false, __ATOMIC_SEQ_CST,
                                             __ATOMIC_SEQ_CST);
#endif
    if (first) {
        cj_error_record.tid[0] = tid_x();
        cj_error_record.tid[1] = tid_y();
        cj_error_record.tid[2] = tid_z();
        cj_error_record.ctaid[0] = ctaid_x();
        cj_error_record.ctaid[1] = ctaid_y();
        cj_error_record.ctaid[2] = ctaid_z();
    }
    return first;
}

// A raise in a debug kernel (raise, a failed assert, a zero divisor, ...): records it, then ends the thread right
// there, as numba-cuda's kernel returns as soon as the exception's status is set. Nothing after the raise in
// Python's order runs: the statement's store, the rest of the expression, the callers of a device function. GPU:
// PTX `exit` (also in cooperative kernels: a raise ends the thread in numba-cuda too); CPU: EndThread. Out of
// line: a check's failure path stays one call.
[[noreturn]] CJ_COLD void debug_raise(int32_t site, int64_t v0 = 0, int64_t v1 = 0, int64_t v2 = 0) {
    if (debug_claim(site)) {
        cj_error_record.value[0] = v0;
        cj_error_record.value[1] = v1;
        cj_error_record.value[2] = v2;
    }
    end_thread(true);
}

// debug=True: a zero divisor raises ZeroDivisionError (numba-cuda's 'python' error model) before the division.
template <class T> CJ_INLINE T check_divisor(int32_t site, T b) {
    if (__builtin_expect(b == T{}, 0)) debug_raise(site);
    return b;
}

// debug=True: range()'s run-time step of zero raises ValueError (Python's, Numba's 'python' error model).
template <class T> CJ_INLINE T check_nonzero(int32_t site, T v) {
    if (__builtin_expect(v == T{}, 0)) debug_raise(site);
    return v;
}

// Where an out-of-range access goes after index_error. On the GPU the thread ends there, as a raised exception
// ends it in numba-cuda (its error is recorded; PTX's `exit` releases a CTA barrier that waits only for exited
// threads): no scratch address joins the array's, so the compiler keeps shared arrays in ld/st.shared (a scratch
// cell in global memory made every checked shared access generic and cost 1.65x on the tiled matmul). A
// cooperative kernel's thread runs on (CJ_INDEX_ERROR_RUNS_ON): the grid barrier waits for thread 0 of every
// block; it touches scratch memory instead. On the CPU index_error itself ended the thread.
template <class T> CJ_INLINE T& to_nowhere() {
#if defined(CJ_CPU)
    __builtin_unreachable();
#elif !defined(CJ_INDEX_ERROR_RUNS_ON)
    asm volatile("exit;");
    __builtin_unreachable();
#else
    return *reinterpret_cast<T*>(cj_error_record.scratch);
#endif
}

// The failure path of a checked index, out of line so that the check itself stays one compare and a branch:
// records the index, the axis, its extent and the shape (the host raises IndexError after the kernel). On the
// CPU it then ends the thread (cpu_detail::EndThread): never returning keeps the failure path out of the
// block's loop of threads, whose loads the compiler can then keep in registers (thread.h, run_threads).
#if defined(CJ_GPU)
#define CJ_INDEX_ERROR CJ_COLD void
#else
#define CJ_INDEX_ERROR [[noreturn]] CJ_COLD void
#endif
CJ_INDEX_ERROR index_error(int32_t site, int64_t index, int32_t axis, int64_t extent, int32_t ndim, int64_t s0,
                           int64_t s1, int64_t s2, int64_t s3) {
    if (debug_claim(site)) {
        cj_error_record.ndim = ndim;
        cj_error_record.value[0] = index;
        cj_error_record.value[1] = axis;
        cj_error_record.value[2] = extent;
        cj_error_record.shape[0] = s0;
        cj_error_record.shape[1] = s1;
        cj_error_record.shape[2] = s2;
        cj_error_record.shape[3] = s3;
    }
#if defined(CJ_CPU)
    throw cpu_detail::EndThread{};
#endif
}

}  // namespace cj
#endif

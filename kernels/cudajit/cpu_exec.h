// cudajit runtime: the entry point through which the CPU launcher runs a compiled kernel.
//
// CJ_ENTRY(name, P0, P1, ...) / CJ_ENTRY0(name) follow the kernel in the generated source. On the GPU
// they expand to nothing (the __global__ function is the entry). On the CPU they define
//
//     extern "C" void name_cpu(cj_cpu_state* S);     // exported; everything else in the .so is hidden
//
// which runs either the threads of block S->ctaid from S->tid to the block's end as a plain loop (S->run_block != 0),
// or only the CUDA thread S->tid (a fiber of the launcher's, which switches fibers at barriers through S->sync).
//
// The struct below is the whole C ABI between a kernel library and the launcher (src/cpu_launch.cpp
// includes this file). Change it only together with the launcher; the header hash in the cache key
// makes libraries built against an older layout recompile.
#pragma once

#if defined(__CUDACC__)

#define CJ_ENTRY(name, ...)
#define CJ_ENTRY0(name)
#define CJ_ENTRY_FITS(name, fits, ...)

#else  // CPU

#include <stdint.h>

extern "C" {

// Barrier operations passed to cj_cpu_state::sync.
enum {
    CJ_SYNC_THREADS = 0,  // syncthreads(); also _count/_and/_or below, all one block-wide barrier
    CJ_SYNC_COUNT = 1,    // arg: predicate; result: number of threads whose predicate was non-zero
    CJ_SYNC_AND = 2,      // result: 1 if every predicate was non-zero
    CJ_SYNC_OR = 3,       // result: 1 if any predicate was non-zero
    CJ_SYNC_WARP = 4,     // syncwarp(arg = lane mask)
    CJ_SYNC_GRID = 5,     // grid.sync() of cuda.cg: every thread of the grid (cooperative launches only)
    CJ_SYNC_CONVERGE = 6, // activemask() (arg: its call site): waits until each lane of the warp waits somewhere or
                          // has exited; warp->converged[thread] then holds the lanes that wait at the same site
    CJ_SYNC_YIELD = 7,    // not a barrier: a while loop that spins lets the other threads of its block run (the GPU's
                          // threads progress independently, so one may wait for a flag another sets); in a block
                          // run as a loop, the first yield of a loop hands the block's later threads to a fiber
};

// Per-block scratch for warp collectives (shfl, vote, match): each thread publishes its value (16 bytes at most)
// in its slot, then waits at syncwarp(mask). When the launcher releases a group of lanes there, it copies the slots
// of the lanes waiting at that syncwarp into a buffer of its own and points view[thread] of each released lane at
// it (32 slots of 16 bytes, by lane): a lane reads what the others published for this collective even after they
// went on to publish for the next one, however the groups of a warp differ from one collective to the next
// (partial masks, activemask groups). The buffer is the launcher's until each of its readers reaches its next
// barrier or exits.
struct cj_cpu_warp_exchange {
    unsigned char slot[1024][16];
    const unsigned char* view[1024];
    uint32_t converged[1024];  // what CJ_SYNC_CONVERGE gave each thread: its warp's lanes at the same call site
};

// Where a barrier or warp collective was called: the intrinsic's name and the caller's file, line and C function
// (the generated code's #line directives make them the user's .py file and line). The launcher names them in its
// errors (a mask without the calling lane, a deadlock).
struct cj_cpu_where {
    const char* what;
    const char* file;
    const char* function;
    int32_t line;
};

struct cj_cpu_state {
    // What the intrinsics of the running CUDA thread read (threadIdx, blockIdx, blockDim, gridDim).
    // The launcher writes ctaid/ntid/nctaid per block and tid per fiber; the loop entry writes tid.
    int32_t tid[3];
    int32_t ctaid[3];
    int32_t ntid[3];
    int32_t nctaid[3];
    void** params;            // params[i] points at a 16-byte aligned copy of parameter i
    void* dynamic_smem;       // this block's dynamic shared memory (16-byte aligned)
    uint64_t dynamic_smem_bytes;  // its size, as the launch gave it
    struct cj_cpu_warp_exchange* warp;
    // 1: run the block's threads as a loop, from thread `tid` (the launcher sets it per block) to the block's end;
    // 0: run thread `tid` only.
    int32_t run_block;
    // Barrier: parks the calling fiber until the barrier completes; returns the reduction result
    // (0 for plain barriers), or -1 when the launch is being aborted (the kernel must unwind). `where` names the
    // call (null for CJ_SYNC_YIELD).
    int32_t (*sync)(struct cj_cpu_state* s, int32_t op, uint32_t arg, const struct cj_cpu_where* where);
    // Records that the running thread failed (trap): the launch raises KernelRuntimeError(what).
    void (*fail)(struct cj_cpu_state* s, const char* what);
    void* launcher;           // private to the launcher
    // The launch's control word, one per process: non-zero while the launch is aborting (an error,
    // Ctrl-C) or wants the launching thread to look for signals. Kernels read it at loop back-edges
    // (CJ_LOOP_POLL) and then call poll, which returns non-zero when the running thread must unwind.
    const int32_t* control;
    int32_t (*poll)(struct cj_cpu_state* s);
    // Threads of this launch that ended at an index error or a debug raise on this OS thread (the launcher
    // zeroes it per launch). Past CJ_CPU_MAX_ENDED_THREADS the OS thread runs no more of the launch's blocks: its
    // exception is due anyway, and each ended thread costs an exception's unwinding.
    int32_t ended;
    // print() of the running thread: the launch keeps the text and writes it to Python's sys.stdout (print.h).
    void (*print)(struct cj_cpu_state* s, const char* text, uint32_t len);
    // A block run as a loop whose thread spun in a while loop (CJ_SYNC_YIELD) hands the rest of its threads over
    // to a new loop on a fiber of the launcher's (cpu_launch.cpp, "segments"); the loop that handed over sees this
    // set while it runs and stops after its running thread.
    int32_t last_thread;
    // The stack guard of recursive device functions (thread.h, RecursionGuard): the lowest address a guarded call may
    // take its frame at (the running CUDA thread's stack, a fiber's or its OS thread's, less a margin for the calls
    // below it), and how many guarded calls the running thread is inside. The launcher sets the limit whenever
    // another stack becomes current; the kernel keeps the depth (saved across every switch, thread.h).
    uintptr_t stack_limit;
    int32_t depth;
    // A guarded call would pass stack_limit: the launch raises KernelRecursionError naming the call and the depth.
    void (*stack_overflow)(struct cj_cpu_state* s, const struct cj_cpu_where* where, int32_t depth);
};
#define CJ_CPU_MAX_ENDED_THREADS 1024

typedef void (*cj_cpu_entry_fn)(struct cj_cpu_state*);

}  // extern "C"

#define CJ_CPU_EXPORT extern "C" __attribute__((visibility("default"), used))

// The explicit parameter types make a kernel whose signature disagrees with CJ_ENTRY fail to compile.
#define CJ_ENTRY(name, ...) \
    CJ_CPU_EXPORT void name##_cpu(cj_cpu_state* s) { ::cj::cpu_detail::Entry<__VA_ARGS__>::run<&name>(s); }
#define CJ_ENTRY0(name) \
    CJ_CPU_EXPORT void name##_cpu(cj_cpu_state* s) { ::cj::cpu_detail::Entry<>::run<&name>(s); }
// A kernel with checked indices from cuda.grid: its body is a template on `bool cj_fits` (CJ_FITS_TEMPLATE,
// config.h) and `fits`, a parenthesised list of CJ_FIT(parameter, axis, grid component), names the axes so
// indexed. A block whose every thread's grid index lies inside them runs name<true>, which skips those
// checks; any other block name<false> (thread.h, Entry::run_fits).
#define CJ_UNPAREN(...) __VA_ARGS__
#define CJ_FIT(param, axis, grid) ::cj::cpu_detail::Fit<param, axis, grid>
#define CJ_ENTRY_FITS(name, fits, ...)                                                                  \
    CJ_CPU_EXPORT void name##_cpu(cj_cpu_state* s) {                                                    \
        using F = ::cj::cpu_detail::Fits<CJ_UNPAREN fits>;                                              \
        ::cj::cpu_detail::Entry<__VA_ARGS__>::run_fits<&name<false>, &name<true>, F>(s);               \
    }

#endif

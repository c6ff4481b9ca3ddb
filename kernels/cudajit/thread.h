// cudajit runtime: thread/block indices, barriers, fences and shared memory, for both targets.
//
// GPU (NVRTC): thin wrappers of CUDA's builtins. CPU: the launcher (src/cpu_launch.cpp) runs the
// blocks of a grid on a pool of OS threads; the threads of one block run on one OS thread, either as
// a plain loop (kernels without barriers) or as fibers switched at syncthreads*/syncwarp. The
// intrinsics read the running CUDA thread from a cj_cpu_state (cpu_exec.h) that the loop or the fiber
// switch keeps current.
#pragma once
#include "config.h"

#if defined(CJ_GPU)

#define CJ_SHARED __shared__
// Recursion on the GPU uses the thread's stack, whose size the driver sets (cudaLimitStackSize, 1 KiB by default
// with recursion); a call past it faults the context (docs/SUPPORTED.md). No guard: a check per call is not free.
#define CJ_RECURSION_GUARD()
#define CJ_LOOP_POLL()
#define CJ_SPIN_COUNTER(c)
#define CJ_SPIN_POLL(c)

namespace cj {

CJ_INLINE int32_t tid_x() { return (int32_t)threadIdx.x; }
CJ_INLINE int32_t tid_y() { return (int32_t)threadIdx.y; }
CJ_INLINE int32_t tid_z() { return (int32_t)threadIdx.z; }
CJ_INLINE int32_t ctaid_x() { return (int32_t)blockIdx.x; }
CJ_INLINE int32_t ctaid_y() { return (int32_t)blockIdx.y; }
CJ_INLINE int32_t ctaid_z() { return (int32_t)blockIdx.z; }
CJ_INLINE int32_t ntid_x() { return (int32_t)blockDim.x; }
CJ_INLINE int32_t ntid_y() { return (int32_t)blockDim.y; }
CJ_INLINE int32_t ntid_z() { return (int32_t)blockDim.z; }
CJ_INLINE int32_t nctaid_x() { return (int32_t)gridDim.x; }
CJ_INLINE int32_t nctaid_y() { return (int32_t)gridDim.y; }
CJ_INLINE int32_t nctaid_z() { return (int32_t)gridDim.z; }
CJ_INLINE int32_t laneid() {
    uint32_t lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return (int32_t)lane;
}
CJ_INLINE int32_t warpsize() { return 32; }

CJ_INLINE void syncthreads() { __syncthreads(); }
CJ_INLINE int32_t syncthreads_count(int32_t pred) { return __syncthreads_count(pred); }
CJ_INLINE int32_t syncthreads_and(int32_t pred) { return __syncthreads_and(pred); }
CJ_INLINE int32_t syncthreads_or(int32_t pred) { return __syncthreads_or(pred); }
CJ_INLINE void syncwarp(uint32_t mask = 0xffffffffu) { __syncwarp(mask); }

CJ_INLINE void threadfence() { __threadfence(); }
CJ_INLINE void threadfence_block() { __threadfence_block(); }
CJ_INLINE void threadfence_system() { __threadfence_system(); }

// The launch's dynamic shared memory (sharedmem bytes of the launch) and its size.
template <class T> CJ_INLINE T* dynamic_shared() {
    extern __shared__ __align__(16) unsigned char cj_dynamic_smem[];
    return reinterpret_cast<T*>(cj_dynamic_smem);
}
CJ_INLINE uint32_t dynamic_shared_bytes() {
    uint32_t bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
    return bytes;
}

// Warp collectives, as Numba's cuda.*_sync (width 32). T: 32/64-bit ints, float, double.
CJ_INLINE uint32_t activemask(uint32_t /*site: the CPU backend's*/) { return __activemask(); }
CJ_INLINE uint32_t lanemask_lt() {
    uint32_t m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}
CJ_INLINE int32_t all_sync(uint32_t mask, int32_t pred) { return __all_sync(mask, pred); }
CJ_INLINE int32_t any_sync(uint32_t mask, int32_t pred) { return __any_sync(mask, pred); }
CJ_INLINE int32_t eq_sync(uint32_t mask, int32_t pred) { return __uni_sync(mask, pred); }
CJ_INLINE uint32_t ballot_sync(uint32_t mask, int32_t pred) { return __ballot_sync(mask, pred); }
template <class T> CJ_INLINE T shfl_sync(uint32_t mask, T v, int32_t src_lane) { return __shfl_sync(mask, v, src_lane); }
template <class T> CJ_INLINE T shfl_up_sync(uint32_t mask, T v, uint32_t delta) { return __shfl_up_sync(mask, v, delta); }
template <class T> CJ_INLINE T shfl_down_sync(uint32_t mask, T v, uint32_t delta) {
    return __shfl_down_sync(mask, v, delta);
}
template <class T> CJ_INLINE T shfl_xor_sync(uint32_t mask, T v, int32_t lane_mask) {
    return __shfl_xor_sync(mask, v, lane_mask);
}
template <class T> CJ_INLINE uint32_t match_any_sync(uint32_t mask, T v) { return __match_any_sync(mask, v); }
// Numba returns (mask, pred); *pred receives the second.
template <class T> CJ_INLINE uint32_t match_all_sync(uint32_t mask, T v, int32_t* pred) {
    int p;
    uint32_t m = __match_all_sync(mask, v, &p);
    *pred = p;
    return m;
}
CJ_INLINE void nanosleep(uint32_t ns) { __nanosleep(ns); }

// cuda.cg: the grid group of a cooperative launch. grid_sync returns 0, as Numba's GridGroup.sync().
struct grid_group {};
CJ_INLINE grid_group this_grid() { return grid_group{}; }
// The grid barrier: arrivals and a generation count in module memory, zeroed by the launcher before each
// cooperative launch (src/launch.cpp). One thread per block arrives; the last one to arrive resets the count and
// advances the generation, which the others wait for. A cooperative launch guarantees that every block is
// resident, so the wait ends. (Not the driver's own workspace: its layout is not documented.)
extern "C" __device__ unsigned int cj_grid_barrier[2];
CJ_INLINE int32_t grid_sync(grid_group) {
    __syncthreads();
    if (threadIdx.x + threadIdx.y + threadIdx.z == 0) {
        volatile unsigned int* generation = &cj_grid_barrier[1];
        const unsigned int seen = *generation;
        const unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
        __threadfence();
        if (atomicAdd(&cj_grid_barrier[0], 1u) == blocks - 1) {
            atomicExch(&cj_grid_barrier[0], 0u);
            __threadfence();
            atomicAdd(&cj_grid_barrier[1], 1u);
        } else {
            while (*generation == seen) {
            }
        }
        __threadfence();
    }
    __syncthreads();
    return 0;
}

}  // namespace cj

#else  // CJ_CPU

#include <sched.h>
#include <string.h>

#include <utility>

#include "cpu_exec.h"
#include "print.h"

// One instance per block that all threads of the block see. The launcher runs every thread (fiber)
// of a block on one OS thread, and the blocks given to one OS thread one after another, so a
// thread_local is exactly "this block's" copy; it is reused, uninitialised, by the next block, as on
// the GPU. (The kernel is static, so the variable stays private to its library.)
#define CJ_SHARED static thread_local
#define CJ_LOOP_POLL() ::cj::cpu_detail::loop_poll()
// Every while loop counts its iterations (CJ_SPIN_COUNTER before it, CJ_SPIN_POLL in its body) and every 1024th
// lets the other fibers of its block run: a thread spinning on a flag that another thread of the block sets (a
// lock, a ready flag) waits for it as on the GPU, where the threads of a block progress independently.
#define CJ_SPIN_COUNTER(c) uint32_t c = 0
#define CJ_SPIN_POLL(c) \
    do { if (__builtin_expect((++(c) & 1023u) == 0, 0)) ::cj::cpu_detail::spin_yield(c); } while (0)

namespace cj {
namespace cpu_detail {

// The CUDA thread running on this OS thread. static: every kernel library (one translation unit)
// has its own, so no symbol is shared between loaded libraries. Global-dynamic TLS, not the local-dynamic model GCC
// picks for a static: GCC 12 -O2 stopped with "internal compiler error: output_operand: '%&' used without any local
// dynamic TLS references" where dead code (a spinning while loop whose result is unused) was the only reader (fuzz
// seed 61, 19/44). One variable, so the same one __tls_get_addr per function as local-dynamic.
static thread_local cj_cpu_state* state __attribute__((tls_model("global-dynamic")));

// Thrown to unwind the running CUDA thread back to its entry point (trap, aborted launch). Caught
// in run_entry, inside the fiber, so it never crosses into the launcher.
struct Abort {};

[[noreturn]] inline void trap_hook() {
    if (state) state->fail(state, "trap (cj::trap(): an assertion or an out-of-range access failed)");
    throw Abort{};
}

// config.h's cj::trap() calls this library's hook; install it when the library is loaded.
static const bool trap_hook_installed = (cj::cpu_trap_hook = &trap_hook, true);

// print.h's cj::cpu_printf hands its text to the running launch (false outside one: C's stdout then).
inline bool print_hook(const char* text, unsigned len) {
    cj_cpu_state* s = state;
    if (!s || !s->print) return false;
    s->print(s, text, len);
    return true;
}
static const bool print_hook_installed = (cj::cpu_print_hook = &print_hook, true);

// The launcher's control word (cj_cpu_state::control). A plain static rather than the thread_local
// state, so that a loop reads it with two loads and no TLS call; every launch stores the same address.
static const int32_t no_control = 0;
static const int32_t* control = &no_control;

// Every call into the launcher that may switch to another CUDA thread (poll, sync) keeps the running thread's
// recursion depth (cj_cpu_state::depth) across it: the threads that run meanwhile count their own.
[[gnu::noinline, gnu::cold]] inline void poll_launcher() {
    cj_cpu_state* s = state;
    const int32_t depth = s->depth;
    const int32_t r = s->poll(s);
    s->depth = depth;
    if (r) throw Abort{};
}

// CJ_LOOP_POLL(): at the top of every loop body that may run long, so that Ctrl-C or another thread's
// trap stops a thread that loops (the GPU has no equivalent: the macro is empty there).
inline void loop_poll() {
    if (__builtin_expect(__atomic_load_n(__atomic_load_n(&control, __ATOMIC_RELAXED), __ATOMIC_RELAXED) != 0, 0))
        poll_launcher();
}

inline int32_t sync(int32_t op, uint32_t arg, const cj_cpu_where* where) {
    cj_cpu_state* s = state;
    const int32_t depth = s->depth;
    int32_t r = s->sync(s, op, arg, where);
    s->depth = depth;
    if (r < 0) throw Abort{};
    return r;
}

// The running stack's lowest address in use (the caller's frame is allocated whole by its prologue).
inline uintptr_t stack_pointer() {
    uintptr_t sp;
#if defined(__x86_64__)
    asm volatile("movq %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
    asm volatile("mov %0, sp" : "=r"(sp));
#else
    sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
#endif
    return sp;
}

[[noreturn, gnu::noinline, gnu::cold]] inline void stack_overflow(cj_cpu_state* s, const cj_cpu_where* where) {
    s->stack_overflow(s, where, s->depth);
    --s->depth;  // this call's guard never finished constructing: its destructor will not undo the count
    throw Abort{};
}

// CJ_RECURSION_GUARD: the first statement of a recursive device function (the compiler's: a function reached again
// while it was translated; every cycle of calls has one). Counts the call and refuses it when its frame lies below
// the running stack's limit, so that recursion too deep for the stack (a fiber's $CUDAJIT_CPU_STACK, or its OS
// thread's) raises KernelRecursionError, as Python's RecursionError, instead of overflowing it (SIGSEGV).
class RecursionGuard {
public:
    explicit RecursionGuard(const cj_cpu_where* where) : s_(state) {
        ++s_->depth;
        if (__builtin_expect(stack_pointer() < s_->stack_limit, 0)) stack_overflow(s_, where);
    }
    ~RecursionGuard() { --s_->depth; }
    RecursionGuard(const RecursionGuard&) = delete;
    RecursionGuard& operator=(const RecursionGuard&) = delete;

private:
    cj_cpu_state* const s_;  // the OS thread's state, which every fiber of the block shares: fibers never migrate
};
#define CJ_RECURSION_GUARD()                                                                                   \
    static const cj_cpu_where cj_recursion_where = {"recursion", __FILE__, __func__, __LINE__};               \
    const ::cj::cpu_detail::RecursionGuard cj_recursion_guard(&cj_recursion_where)

// A barrier's or collective's call (CJ_CALLER's parameters) as the launcher reads it.
#define CJ_WHERE(name) const cj_cpu_where cj_where = {name, cj_file, cj_function, cj_line}

// The unit has while loops (the compiler's CJ_CPU_SPINS): a thread of a block run as a loop that spins in one may
// hand the block's later threads over to another loop (spin_yield), so each loop checks after each thread whether
// it still runs the rest of its block (Entry::run_threads). Other units skip the check.
#if defined(CJ_CPU_SPINS)
constexpr bool may_spin = true;
#else
constexpr bool may_spin = false;
#endif

// CJ_SPIN_POLL's slow path, every 1024th iteration `count` of a while loop: a fiber hands over to the next runnable
// one of its block; in a block run as a loop, a thread that has spun a while hands the block's later threads over
// to a loop on a fiber of their own, then takes turns with it (cpu_launch.cpp, Worker::yield_segment). Without
// CJ_CPU_SPINS a loop cannot stop early: its threads run one after another, as before.
[[gnu::noinline, gnu::cold]] inline void spin_yield(uint32_t count) {
    if (may_spin || !state->run_block) sync(CJ_SYNC_YIELD, count, nullptr);
}

// Thrown by a failed index check (debug.h, index_error) or a raise in a debug kernel (debug_raise) after it
// recorded the error: ends the running CUDA thread only, as PTX `exit` ends it on the GPU. Its block goes on (Entry::run_box; a fiber exits).
// `counted`: false for an end that raises nothing (end_thread below: a raise without debug, an Optional that was None).
struct EndThread {
    bool counted = true;
};

// A kernel's parameters as locals, parameter I in base Slot<I, P_I> (std::tuple without <tuple>'s compile time).
template <size_t I, class T> struct Slot {
    T value;
};
template <class Indices, class... P> struct Params;
template <size_t... I, class... P> struct Params<std::index_sequence<I...>, P...> : Slot<I, P>... {};

// The axes a block must fit for a kernel's unchecked instantiation (CJ_ENTRY_FITS): parameter L's axis A is
// indexed by cuda.grid's component D (0 x, 1 y, 2 z).
template <size_t L, int A, int D> struct Fit {};
template <class... F> struct Fits {};

// The body of every name_cpu entry point (cpu_exec.h): Entry<P...>::run<&kernel>. The kernel is a template
// argument, so its one call (run_threads) is direct and inlined (CJ_GLOBAL is always_inline on the CPU). It takes
// each P by const reference (the compiler's CJ_PARAM, config.h) or by value (a unit written by hand): the call
// passes the block's copies of the parameters either way.
template <class... P> struct Entry {
    using Indices = std::index_sequence_for<P...>;
    using Args = Params<Indices, P...>;

    // Runs the threads of block s->ctaid from s->tid to the block's end (a kernel without barriers: the launcher
    // sets s->tid to (0,0,0) per block), or in a fiber the one thread s->tid: the same loop, over the block or
    // over a box of one thread.
    template <auto Kernel> static void run(cj_cpu_state* s) { run_fits<Kernel, Kernel, Fits<>>(s); }

    // The same, where the block runs Fast when every axis of F holds the whole block's grid index (Fast is
    // the kernel without those axes' checks: CJ_ENTRY_FITS). Decided per block: it depends only on the block's
    // coordinates and the parameters, so every thread of a block runs the same instantiation.
    template <auto Kernel, auto Fast, class F> static void run_fits(cj_cpu_state* s) {
        (void)trap_hook_installed;
        if (__atomic_load_n(&control, __ATOMIC_RELAXED) != s->control)
            __atomic_store_n(&control, s->control, __ATOMIC_RELAXED);
        state = s;
        s->depth = 0;  // a thread starts outside every recursive call (a fiber's start included)
        if (s->ended > CJ_CPU_MAX_ENDED_THREADS) return;
        int32_t from[3], end[3];
        for (int k = 0; k < 3; ++k) {
            from[k] = s->tid[k];
            end[k] = s->run_block ? s->ntid[k] : s->tid[k] + 1;
        }
        try {
            const Args args = unpack(s->params, Indices{});
            if (fits(args, F{}))
                run_box<Fast>(args, from, end);
            else
                run_box<Kernel>(args, from, end);
        } catch (const Abort&) {
            // The failure is recorded (fail) or the launch is aborting; the launcher raises the error.
        }
    }

    // Every thread of this block indexes axis A of parameter L by a grid index along D in range: that index is
    // ctaid[D] * ntid[D] + tid[D] with 0 <= tid[D] < ntid[D], so (ctaid[D] + 1) * ntid[D] <= shape[A] suffices.
    template <class... Each> static bool fits(const Args& args, Fits<Each...>) { return (fits_one(args, Each{}) && ...); }
    template <size_t L, int A, int D> static bool fits_one(const Args& args, Fit<L, A, D>) {
        const cj_cpu_state* s = state;
        return (int64_t(s->ctaid[D]) + 1) * int64_t(s->ntid[D]) <= slot<L>(args).shape[A];
    }
    template <size_t I, class T> static const T& slot(const Slot<I, T>& s) { return s.value; }

    template <size_t... I> static Args unpack(void** params, std::index_sequence<I...>) {
        return Args{{*static_cast<P*>(params[I])}...};
    }

    // A thread that ends early (EndThread, after an index error or a debug raise) leaves the loops; the others go on from the
    // next thread, unless so many have ended that the launch stops (cpu_exec.h, CJ_CPU_MAX_ENDED_THREADS), or this
    // loop handed the rest of its block over to another (last_thread).
    template <auto Kernel> static void run_box(const Args& args, int32_t from[3], const int32_t end[3]) {
        for (;;) {
            try {
                return run_threads<Kernel>(args, from, end, Indices{});
            } catch (const EndThread& e) {
                if ((e.counted && ++state->ended > CJ_CPU_MAX_ENDED_THREADS) || state->last_thread) return;
                for (int k = 0; k < 3; ++k) from[k] = state->tid[k];
                ++from[0];  // the loops carry an x past the end of its row over to the next row
            }
        }
    }

    // The threads from `from` to `end` (exclusive), threadIdx.x innermost. threadIdx is stored through `state`
    // as the intrinsics read it, so the compiler forwards each store to their reads: threadIdx.x is the loop's
    // counter in a register, and the parameters (read once per block) stay in registers. The only way out of
    // the loops other than their end is a throw, so no failure path joins the loop again and the block's
    // indices are not reloaded from memory per thread. Not inlined into run_box: a function with a landing
    // pad keeps values live across the kernel's calls in memory (the naive matmul's float accumulator: 1.8x).
    // In a unit with while loops (may_spin), a thread that spun in one may have handed the block's later threads
    // over to another loop (spin_yield): this one then stops after it (one predictable branch per thread).
    template <auto Kernel, size_t... I>
    [[gnu::noinline]] static void run_threads(const Args& args, const int32_t from[3], const int32_t end[3],
                                              std::index_sequence<I...>) {
        cj_cpu_state* const s = state;
        const int32_t nx = end[0], ny = end[1], nz = end[2];  // locals: the stores of threadIdx cannot change them
        int32_t x0 = from[0], y0 = from[1];
        for (int32_t z = from[2]; z < nz; ++z, y0 = 0) {
            s->tid[2] = z;
            for (int32_t y = y0; y < ny; ++y, x0 = 0) {
                s->tid[1] = y;
                for (int32_t x = x0; x < nx; ++x) {
                    s->tid[0] = x;
                    Kernel(static_cast<const Slot<I, P>&>(args).value...);
                    if (may_spin && __builtin_expect(s->last_thread != 0, 0)) return;
                }
            }
        }
    }
};

}  // namespace cpu_detail

inline int32_t tid_x() { return cpu_detail::state->tid[0]; }
inline int32_t tid_y() { return cpu_detail::state->tid[1]; }
inline int32_t tid_z() { return cpu_detail::state->tid[2]; }
inline int32_t ctaid_x() { return cpu_detail::state->ctaid[0]; }
inline int32_t ctaid_y() { return cpu_detail::state->ctaid[1]; }
inline int32_t ctaid_z() { return cpu_detail::state->ctaid[2]; }
inline int32_t ntid_x() { return cpu_detail::state->ntid[0]; }
inline int32_t ntid_y() { return cpu_detail::state->ntid[1]; }
inline int32_t ntid_z() { return cpu_detail::state->ntid[2]; }
inline int32_t nctaid_x() { return cpu_detail::state->nctaid[0]; }
inline int32_t nctaid_y() { return cpu_detail::state->nctaid[1]; }
inline int32_t nctaid_z() { return cpu_detail::state->nctaid[2]; }
// A warp is 32 consecutive linear thread ids, as on the GPU.
inline int32_t laneid() {
    const cj_cpu_state* s = cpu_detail::state;
    return (s->tid[0] + s->ntid[0] * (s->tid[1] + s->ntid[1] * s->tid[2])) & 31;
}
inline int32_t warpsize() { return 32; }

inline void syncthreads(CJ_CALLER_ONLY) {
    CJ_WHERE("syncthreads");
    cpu_detail::sync(CJ_SYNC_THREADS, 0, &cj_where);
}
inline int32_t syncthreads_count(int32_t pred CJ_CALLER) {
    CJ_WHERE("syncthreads_count");
    return cpu_detail::sync(CJ_SYNC_COUNT, pred != 0, &cj_where);
}
inline int32_t syncthreads_and(int32_t pred CJ_CALLER) {
    CJ_WHERE("syncthreads_and");
    return cpu_detail::sync(CJ_SYNC_AND, pred != 0, &cj_where);
}
inline int32_t syncthreads_or(int32_t pred CJ_CALLER) {
    CJ_WHERE("syncthreads_or");
    return cpu_detail::sync(CJ_SYNC_OR, pred != 0, &cj_where);
}
inline void syncwarp(uint32_t mask = 0xffffffffu CJ_CALLER) {
    CJ_WHERE("syncwarp");
    cpu_detail::sync(CJ_SYNC_WARP, mask, &cj_where);
}

// Threads of one block share an OS thread, so the block fence only has to stop the compiler from
// moving memory accesses across it; device and system fences order against other OS threads.
inline void threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
inline void threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

template <class T> inline T* dynamic_shared() { return static_cast<T*>(cpu_detail::state->dynamic_smem); }
inline uint32_t dynamic_shared_bytes() { return uint32_t(cpu_detail::state->dynamic_smem_bytes); }

// Warp collectives. Each thread publishes its value in the block's exchange slots, waits at
// syncwarp(mask) (a fiber switch), then reads the lanes it needs. Reading a lane outside the mask
// is undefined, as on the GPU; a mask without the calling lane (undefined on the GPU) is an error the launcher
// raises, naming the collective and its caller (cj_cpu_where).
namespace cpu_detail {

inline int32_t linear_tid(const cj_cpu_state* s) {
    return s->tid[0] + s->ntid[0] * (s->tid[1] + s->ntid[1] * s->tid[2]);
}

// Publishes v for the warp, waits for the lanes of mask, returns the warp's 32 slots (16 bytes each) as they were
// when this thread's group was released (cpu_exec.h, cj_cpu_warp_exchange).
template <class T> inline const unsigned char* warp_exchange(uint32_t mask, const T& v, const cj_cpu_where* where) {
    static_assert(sizeof(T) <= 16, "warp collectives take values of at most 16 bytes");
    cj_cpu_state* s = state;
    int32_t t = linear_tid(s);
    memcpy(s->warp->slot[t], &v, sizeof(T));
    sync(CJ_SYNC_WARP, mask, where);
    return s->warp->view[t];
}

template <class T> inline T slot_value(const unsigned char* slots, int32_t lane) {
    T v;
    memcpy(&v, slots + 16 * lane, sizeof(T));
    return v;
}

inline uint32_t existing_lanes();

inline uint32_t ballot(uint32_t mask, int32_t pred, const cj_cpu_where* where) {
    const unsigned char* slots = warp_exchange(mask, int32_t(pred != 0), where);
    uint32_t bits = 0;
    for (uint32_t rest = mask & existing_lanes(); rest; rest &= rest - 1) {     // lanes past the block's end: no votes
        int32_t lane = __builtin_ctz(rest);
        if (slot_value<int32_t>(slots, lane)) bits |= 1u << lane;
    }
    return bits;
}

// The lanes of this thread's warp that exist in the block (exited lanes are not tracked).
inline uint32_t existing_lanes() {
    const cj_cpu_state* s = state;
    int32_t left = s->ntid[0] * s->ntid[1] * s->ntid[2] - (linear_tid(s) & ~31);
    return left >= 32 ? 0xffffffffu : (1u << left) - 1;
}

}  // namespace cpu_detail

// cuda.activemask(): the lanes of the warp executing this call together, as on the GPU, where the lanes that took
// another branch, or exited, are not active. The lanes of the warp run until each waits at an activemask, waits at
// another barrier or has exited; those waiting at the same call (`site`, a number the compiler gives each call in
// the source) form the mask.
inline uint32_t activemask(uint32_t site CJ_CALLER) {
    cj_cpu_state* s = cpu_detail::state;
    CJ_WHERE("activemask");
    cpu_detail::sync(CJ_SYNC_CONVERGE, site, &cj_where);
    return s->warp->converged[cpu_detail::linear_tid(s)];
}
inline uint32_t lanemask_lt() { return (1u << laneid()) - 1; }
inline uint32_t ballot_sync(uint32_t mask, int32_t pred CJ_CALLER) {
    CJ_WHERE("ballot_sync");
    return cpu_detail::ballot(mask, pred, &cj_where);
}
inline int32_t all_sync(uint32_t mask, int32_t pred CJ_CALLER) {
    CJ_WHERE("all_sync");
    return cpu_detail::ballot(mask, pred, &cj_where) == (mask & cpu_detail::existing_lanes());
}
inline int32_t any_sync(uint32_t mask, int32_t pred CJ_CALLER) {
    CJ_WHERE("any_sync");
    return cpu_detail::ballot(mask, pred, &cj_where) != 0;
}
inline int32_t eq_sync(uint32_t mask, int32_t pred CJ_CALLER) {
    CJ_WHERE("eq_sync");
    uint32_t bits = cpu_detail::ballot(mask, pred, &cj_where);
    return bits == 0 || bits == (mask & cpu_detail::existing_lanes());
}
template <class T> inline T shfl_sync(uint32_t mask, T v, int32_t src_lane CJ_CALLER) {
    CJ_WHERE("shfl_sync");
    return cpu_detail::slot_value<T>(cpu_detail::warp_exchange(mask, v, &cj_where), src_lane & 31);
}
template <class T> inline T shfl_up_sync(uint32_t mask, T v, uint32_t delta CJ_CALLER) {
    CJ_WHERE("shfl_up_sync");
    int32_t lane = laneid();
    const unsigned char* slots = cpu_detail::warp_exchange(mask, v, &cj_where);
    return delta <= uint32_t(lane) ? cpu_detail::slot_value<T>(slots, lane - int32_t(delta)) : v;
}
template <class T> inline T shfl_down_sync(uint32_t mask, T v, uint32_t delta CJ_CALLER) {
    CJ_WHERE("shfl_down_sync");
    int32_t lane = laneid();
    const unsigned char* slots = cpu_detail::warp_exchange(mask, v, &cj_where);
    return delta <= uint32_t(31 - lane) ? cpu_detail::slot_value<T>(slots, lane + int32_t(delta)) : v;
}
template <class T> inline T shfl_xor_sync(uint32_t mask, T v, int32_t lane_mask CJ_CALLER) {
    CJ_WHERE("shfl_xor_sync");
    uint32_t src = uint32_t(laneid()) ^ uint32_t(lane_mask);
    const unsigned char* slots = cpu_detail::warp_exchange(mask, v, &cj_where);
    return src < 32 ? cpu_detail::slot_value<T>(slots, int32_t(src)) : v;
}
namespace cpu_detail {
template <class T> inline uint32_t match(uint32_t mask, const T& v, const cj_cpu_where* where) {
    const unsigned char* slots = warp_exchange(mask, v, where);
    uint32_t same = 0;
    for (uint32_t rest = mask & existing_lanes(); rest; rest &= rest - 1) {    // as the GPU: lanes that exist
        int32_t lane = __builtin_ctz(rest);
        if (memcmp(slots + 16 * lane, &v, sizeof(T)) == 0) same |= 1u << lane;
    }
    return same;
}
}  // namespace cpu_detail
template <class T> inline uint32_t match_any_sync(uint32_t mask, T v CJ_CALLER) {
    CJ_WHERE("match_any_sync");
    return cpu_detail::match(mask, v, &cj_where);
}
template <class T> inline uint32_t match_all_sync(uint32_t mask, T v, int32_t* pred CJ_CALLER) {
    CJ_WHERE("match_all_sync");
    uint32_t same = cpu_detail::match(mask, v, &cj_where);
    *pred = same == (mask & cpu_detail::existing_lanes());
    return *pred ? same : 0;
}
// Blocks run in parallel, but a block that spins waiting for another should let the OS run it.
inline void nanosleep(uint32_t) { sched_yield(); }

// cuda.cg: a cooperative launch runs every block at once (cpu_launch.cpp), so grid_sync is a barrier
// of the whole grid's fibers.
struct grid_group {};
inline grid_group this_grid() { return grid_group{}; }
inline int32_t grid_sync(grid_group CJ_CALLER) {
    CJ_WHERE("grid.sync");
    cpu_detail::sync(CJ_SYNC_GRID, 0, &cj_where);
    return 0;
}

}  // namespace cj

#endif

namespace cj {
// Ends the running CUDA thread. GPU: PTX `exit`. CPU: cpu_detail::EndThread, `counted` against the launch's
// CJ_CPU_MAX_ENDED_THREADS when the end reports an error (debug.h's debug_raise), not when it reports nothing (a
// raise without debug, an Optional unwrapped as None: lang.h), where numba-cuda's error status makes every caller
// return and the kernel with them.
#if defined(CJ_GPU)
[[noreturn]] CJ_INLINE void end_thread(bool = false) {
    asm volatile("exit;");
    __builtin_unreachable();
}
#else
[[noreturn]] [[gnu::cold, gnu::noinline]] inline void end_thread(bool counted = false) {
    throw cpu_detail::EndThread{counted};
}
#endif
}  // namespace cj

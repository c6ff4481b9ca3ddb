// The CPU launcher: a pool of OS threads takes blocks from an atomic counter; each block runs its
// CUDA threads either as one loop inside the kernel library (no barriers) or as fibers that this
// file switches at syncthreads*/syncwarp. See cpu_launch.h and kernels/cudajit/cpu_exec.h.
#include "cpu_launch.h"

#include <pthread.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "../kernels/cudajit/cpu_exec.h"
#include "disk_cache.h"
#include "errors.h"
#include "fork_safety.h"
#include "host_compiler.h"

// CJ_FIBER_UCONTEXT forces the portable fiber switch (to test it on x86-64).
#if defined(__x86_64__) && !defined(CJ_FIBER_UCONTEXT)
#define CJ_FIBER_ASM 1
#else
#include <ucontext.h>
#endif

namespace cj::cpu {
namespace {

// ---------------------------------------------------------------------------------------------
// Fiber contexts. x86-64: our own switch, which saves only the callee-saved registers (the call
// itself tells the compiler every other register is clobbered) and so costs a few nanoseconds.
// Elsewhere: ucontext, correct but slower (swapcontext makes a signal-mask system call).
// The floating-point control words are not switched: every fiber of a block shares one OS thread
// and kernels never change rounding modes.

#if defined(CJ_FIBER_ASM)

extern "C" void cj_fiber_switch(void** save_sp, void* next_sp);
extern "C" void cj_fiber_start();

__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl cj_fiber_switch\n"
    ".hidden cj_fiber_switch\n"
    ".type cj_fiber_switch, @function\n"
    "cj_fiber_switch:\n"  // rdi: where to save this context's sp; rsi: the sp to resume
    "  pushq %rbp\n"
    "  pushq %rbx\n"
    "  pushq %r12\n"
    "  pushq %r13\n"
    "  pushq %r14\n"
    "  pushq %r15\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  popq %r15\n"
    "  popq %r14\n"
    "  popq %r13\n"
    "  popq %r12\n"
    "  popq %rbx\n"
    "  popq %rbp\n"
    "  ret\n"
    ".size cj_fiber_switch, .-cj_fiber_switch\n"
    ".p2align 4\n"
    ".globl cj_fiber_start\n"
    ".hidden cj_fiber_start\n"
    ".type cj_fiber_start, @function\n"
    "cj_fiber_start:\n"  // first resume of a fiber: call r12(rbx); the function never returns
    "  movq %rbx, %rdi\n"
    "  callq *%r12\n"
    "  ud2\n"
    ".size cj_fiber_start, .-cj_fiber_start\n");

struct Context {
    void* sp = nullptr;
};

// Lays out a fresh stack so that the first switch to it "returns" into cj_fiber_start with
// r12 = fn and rbx = arg, and the stack 16-byte aligned at the call, as the ABI requires.
void context_init(Context& c, char* stack_top, void (*fn)(void*), void* arg) {
    auto top = reinterpret_cast<uintptr_t>(stack_top) & ~uintptr_t(15);
    auto** sp = reinterpret_cast<void**>(top - 72);
    sp[0] = nullptr;                                         // r15
    sp[1] = nullptr;                                         // r14
    sp[2] = nullptr;                                         // r13
    sp[3] = reinterpret_cast<void*>(fn);                     // r12
    sp[4] = arg;                                             // rbx
    sp[5] = nullptr;                                         // rbp
    sp[6] = reinterpret_cast<void*>(&cj_fiber_start);        // return address
    sp[7] = sp[8] = nullptr;
    c.sp = sp;
}

inline void context_switch(Context& from, Context& to) { cj_fiber_switch(&from.sp, to.sp); }

#else

struct Context {
    ucontext_t uc;
};

// makecontext passes int arguments only: each pointer travels as two halves.
void context_trampoline(unsigned fn_hi, unsigned fn_lo, unsigned arg_hi, unsigned arg_lo) {
    auto fn = reinterpret_cast<void (*)(void*)>((uintptr_t(fn_hi) << 32) | fn_lo);
    fn(reinterpret_cast<void*>((uintptr_t(arg_hi) << 32) | arg_lo));
}

void context_init(Context& c, char* stack_top, void (*fn)(void*), void* arg, size_t stack_size) {
    getcontext(&c.uc);
    c.uc.uc_stack.ss_sp = stack_top - stack_size;
    c.uc.uc_stack.ss_size = stack_size;
    c.uc.uc_link = nullptr;
    auto f = reinterpret_cast<uintptr_t>(fn), a = reinterpret_cast<uintptr_t>(arg);
    makecontext(&c.uc, reinterpret_cast<void (*)()>(&context_trampoline), 4, unsigned(uint64_t(f) >> 32),
                unsigned(f), unsigned(uint64_t(a) >> 32), unsigned(a));
}

inline void context_switch(Context& from, Context& to) { swapcontext(&from.uc, &to.uc); }

#endif

// ---------------------------------------------------------------------------------------------
// Fiber stacks: one mapping per worker holding all its stacks, reused by every block and launch.
// Each stack has a guard page below it where the kernel can afford one (a process may hold only
// so many mappings; without a guard an overflow is undetected, as in any C program).

size_t stack_bytes() {
    static const size_t bytes = [] {
        size_t n = 64 * 1024;
        // Digits with an optional k/K or m/M suffix, at least 16 KiB; anything else keeps the default (Python's
        // cudajit._backend warns about it when the CPU backend starts).
        const char* s = std::getenv("CUDAJIT_CPU_STACK");
        if (s && std::isdigit(static_cast<unsigned char>(*s))) {
            char* end = nullptr;
            unsigned long long v = std::strtoull(s, &end, 10);
            if (*end == 'k' || *end == 'K') v <<= 10, ++end;
            else if (*end == 'm' || *end == 'M') v <<= 20, ++end;
            if (*end == '\0' && v >= 16 * 1024) n = size_t(v);
        }
        size_t page = size_t(sysconf(_SC_PAGESIZE));
        return (n + page - 1) / page * page;
    }();
    return bytes;
}

class StackArena {
public:
    ~StackArena() { release(); }

    // Top (highest address) of stack i; valid for i < capacity after reserve. The tops are staggered
    // by a cache line per stack: page-aligned tops would put every fiber's live frames in the same
    // cache sets, and a barrier touches all of them in turn.
    char* top(size_t i) const { return base_ + (i + 1) * stride_ - (i % 64) * 64; }
    // Lowest usable address of stack i (above its guard page).
    char* bottom(size_t i) const { return base_ + i * stride_ + size_t(sysconf(_SC_PAGESIZE)); }

    size_t stack_size() const { return stride_ - size_t(sysconf(_SC_PAGESIZE)); }

    // Makes room for n stacks of at least `bytes` each. Called between blocks only: growing moves every stack.
    void reserve(size_t n, size_t bytes) {
        size_t page = size_t(sysconf(_SC_PAGESIZE));
        if (n <= count_ && bytes + page <= stride_) return;
        release();
        stride_ = (bytes + page - 1) / page * page + page;
        size_t count = (n + 31) / 32 * 32;
        void* p = mmap(nullptr, count * stride_, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
        if (p == MAP_FAILED)
            throw KernelRuntimeError("cannot map " + std::to_string(count) + " fiber stacks of " +
                                     std::to_string(stride_ - page) + " bytes (lower CUDAJIT_CPU_STACK)");
        base_ = static_cast<char*>(p);
        count_ = count;
        for (size_t i = 0; i < count; ++i) mprotect(base_ + i * stride_, page, PROT_NONE);  // best effort
    }

private:
    void release() {
        if (base_) munmap(base_, count_ * stride_);
        base_ = nullptr;
        count_ = 0;
    }
    char* base_ = nullptr;
    size_t count_ = 0;
    size_t stride_ = 0;
};

// ---------------------------------------------------------------------------------------------
// A launch, shared by the workers that run its blocks.

// The running launch's control word (cj_cpu_state::control; one launch runs at a time). kAbort: stop
// taking blocks and unwind running threads. kPollRequest: the launch has run a while; the launching
// thread should look for signals (Ctrl-C) at its next chance.
constexpr int32_t kAbort = 1, kPollRequest = 2;
std::atomic<int32_t> g_control{0};
static_assert(sizeof(g_control) == sizeof(int32_t), "kernels read the control word as a plain int32_t");

void (*g_interrupt_check)() = nullptr;  // set_interrupt_check
void (*g_print_sink)(const char*, size_t) = nullptr;  // set_print_sink

// print() text a launch keeps before it asks its launching thread to write it out (at the next poll), so that a
// kernel that prints much neither waits for its end nor holds all of it.
constexpr size_t kPrintFlushBytes = size_t{1} << 16;

constexpr auto kTick = std::chrono::milliseconds(20);

struct Job {
    cj_cpu_entry_fn fn;
    const std::string* name;
    Dim3 grid, block;
    size_t dynamic_shared;
    void** params;
    bool fibers;
    bool cooperative;  // every block runs at once, on its own OS thread, so that grid.sync() can wait for all
    size_t fiber_stack;          // bytes of each fiber's stack
    size_t stack_margin;         // what the recursion guard keeps free below a guarded call (kStackMargin + locals)
    uint64_t nblocks;
    std::atomic<uint64_t> next_block{0};
    // Blocks a worker takes at a time: one shared counter bumped per block of a few hundred cheap threads cost
    // more than the block (2 OS threads ran a 10^7 vector add slower than 1); a run of blocks per bump keeps
    // the counter's cache line from bouncing, with enough runs per worker to balance the load.
    uint64_t chunk = 1;
    std::mutex error_mu;
    std::string error;           // the first failure; raised by launch()
    bool recursion = false;      // ... was recursion too deep for a stack: KernelRecursionError
    std::exception_ptr interrupt;  // what the interrupt check threw (KeyboardInterrupt); rethrown by launch()
    std::mutex print_mu;
    std::string printed;         // print() text of the launch's threads not yet written out (drain_prints)
    // The grid barrier of a cooperative launch: blocks whose live threads all wait at grid.sync(), blocks that
    // have finished (they no longer hold the others back, as exited threads at syncthreads()), and a generation
    // that each release advances.
    std::mutex grid_mu;
    std::condition_variable grid_cv;
    uint64_t grid_arrived = 0, grid_exited = 0, grid_generation = 0;

    static bool aborted() { return g_control.load(std::memory_order_relaxed) & kAbort; }

    void fail(const std::string& what, bool too_deep = false) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (error.empty()) error = "kernel " + *name + ": " + what, recursion = too_deep;
        g_control.fetch_or(kAbort, std::memory_order_relaxed);
    }

    // A block's scheduler, once every live thread of its block waits at grid.sync(): waits for the other blocks.
    // False when the launch aborts meanwhile. The launching thread answers poll requests while it waits.
    bool grid_wait(bool launching) {
        std::unique_lock<std::mutex> lock(grid_mu);
        const uint64_t generation = grid_generation;
        if (++grid_arrived + grid_exited == nblocks) release_grid();
        while (grid_generation == generation) {
            if (aborted()) return false;
            if (launching && (g_control.load(std::memory_order_relaxed) & kPollRequest)) {
                lock.unlock();
                check_interrupt();
                lock.lock();
                continue;
            }
            grid_cv.wait_for(lock, kTick);
        }
        return true;
    }

    void block_exited() {
        std::lock_guard<std::mutex> lock(grid_mu);
        ++grid_exited;
        if (grid_arrived && grid_arrived + grid_exited == nblocks) release_grid();
    }

    void release_grid() {
        grid_arrived = 0;
        ++grid_generation;
        grid_cv.notify_all();
    }

    // Any thread of the launch: keeps one print()'s text, in the order the threads printed.
    void print(const char* text, size_t len) {
        bool full;
        {
            std::lock_guard<std::mutex> lock(print_mu);
            printed.append(text, len);
            full = printed.size() >= kPrintFlushBytes;
        }
        if (full) g_control.fetch_or(kPollRequest, std::memory_order_relaxed);
    }

    // On the launching thread only (or after the launch): writes out what the threads printed so far, through the
    // print sink (Python's sys.stdout), else to C's stdout.
    void drain_prints() {
        std::string text;
        {
            std::lock_guard<std::mutex> lock(print_mu);
            text.swap(printed);
        }
        if (text.empty()) return;
        if (g_print_sink) {
            g_print_sink(text.data(), text.size());
        } else {
            std::fwrite(text.data(), 1, text.size(), stdout);
            std::fflush(stdout);
        }
    }

    // On the launching thread only: writes out what was printed, then runs the interrupt check; if it throws,
    // the launch aborts.
    void check_interrupt() {
        g_control.fetch_and(~kPollRequest, std::memory_order_relaxed);
        drain_prints();
        if (!g_interrupt_check || aborted()) return;
        try {
            g_interrupt_check();
        } catch (...) {
            interrupt = std::current_exception();
            g_control.fetch_or(kAbort, std::memory_order_relaxed);
        }
    }
};

enum class FiberState : uint8_t { Ready, Running, AtBarrier, AtWarp, AtGrid, AtConverge, Exited };

// The lanes of one warp, for syncwarp: which wait there, which have exited (or do not exist), and
// whether every waiting lane gave the same mask.
struct Warp {
    uint32_t arrived = 0, gone = 0, mask = 0;
    bool uniform = true;      // every waiting lane gave the same mask at the same kind of call
    const char* kind = nullptr;  // that call's kind (cj_cpu_where::what: "syncwarp", "shfl_down_sync", ...)
    uint32_t converging = 0;  // lanes waiting at an activemask (CJ_SYNC_CONVERGE)
};

// Whether two lanes wait at calls that complete together: a syncwarp() with syncwarp()s (bar.warp.sync pairs with
// any other on sm_70+), a collective with the same collective (shfl.sync with shfl.sync of the same mode, ...). On
// the GPU a lane at a shuffle does not go on because another lane of its mask reached a syncwarp or a vote.
inline bool same_kind(const char* a, const char* b) {
    return a == b || (a && b && std::strcmp(a, b) == 0);
}

struct Fiber {
    Context ctx;
    int32_t tid[3];
    FiberState state;
    bool last_thread = false;  // a segment (loop mode) that handed the rest of its block over: cj_cpu_state's
    int32_t op;       // CJ_SYNC_* it waits at
    uint32_t arg;     // predicate (block barrier) or lane mask (syncwarp)
    int32_t result;
    int32_t view = -1;  // the warp buffer (WarpViews) it reads since its last syncwarp released it, or -1
    uintptr_t stack_limit = 0;  // cj_cpu_state::stack_limit while it runs: its stack's bottom plus the margin
    // The barrier or collective it waits at, for a deadlock's report: the caller's frame holds it while it waits.
    const cj_cpu_where* where = nullptr;
};

// The copies of one warp's exchange slots that released groups read (cj_cpu_warp_exchange::view): a lane holds
// at most one until its next barrier, so 32 buffers always leave one free when a group is released.
struct WarpViews {
    unsigned char data[32][32][16];
    int32_t readers[32];
    uint32_t free = ~0u;
};

std::string dim3_text(const int32_t* v) {
    return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) + ")";
}

// "[1, 0, 0]": a thread's or block's index as the IndexError of a bounds check writes it (tid=[..] ctaid=[..]).
std::string list_text(const int32_t* v) {
    return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + "]";
}

std::string hex_mask(uint32_t mask) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", mask);
    return text;
}

// "In function 'k', file /abs/k.py, line 12" for a call the kernel library reported (cj_cpu_where: the #line
// directives make its file and line the user's; its function is the C name, cj_k_k_0 or cj_dev_f_0<...>), as the
// IndexError of a bounds check names its place (compiler/program.py, ErrorSite).
std::string python_function_name(const char* c_name) {
    std::string fn = c_name ? c_name : "?";
    fn = fn.substr(0, fn.find('<'));
    if (fn.rfind("cj_dev_", 0) == 0) fn = "cj_k_" + fn.substr(7);
    return python_kernel_name(fn);
}

std::string where_text(const cj_cpu_where& w) {
    std::string fn = python_function_name(w.function);
    std::string file = w.file ? w.file : "?";
    if (!file.empty() && file[0] != '/' && file[0] != '<') {  // a relative path, as os.path.abspath makes it absolute
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd)) file = std::string(cwd) + "/" + file;
    }
    return "In function '" + fn + "', file " + file + ", line " + std::to_string(w.line);
}

// What the recursion guard keeps free below a guarded call, besides the kernel's local arrays: the frames of
// the calls that do not recurse, the guard's own report and the unwinding of its exception.
constexpr size_t kStackMargin = 16 * 1024;

// The calling OS thread's stack (glibc's pthread_getattr_np: the main thread's from its rlimit), found once per
// thread; {0, 0} when unknown (its recursion is then unguarded).
struct OsStack {
    uintptr_t bottom = 0;
    size_t bytes = 0;
};
const OsStack& os_stack() {
    static thread_local const OsStack stack = [] {
        OsStack s;
        pthread_attr_t attr;
        if (pthread_getattr_np(pthread_self(), &attr) != 0) return s;
        void* low = nullptr;
        size_t bytes = 0;
        if (pthread_attr_getstack(&attr, &low, &bytes) == 0) s = {reinterpret_cast<uintptr_t>(low), bytes};
        pthread_attr_destroy(&attr);
        return s;
    }();
    return stack;
}

// One OS thread's resources: its cj_cpu_state, fibers, stacks, dynamic shared memory and warp
// exchange slots, all reused from block to block and launch to launch.
class Worker {
public:
    // launching: this worker runs on the thread that launches (worker 0), which polls for signals.
    explicit Worker(bool launching) : launching_(launching) {
        state_.sync = &Worker::sync_callback;
        state_.fail = &Worker::fail_callback;
        state_.poll = &Worker::poll_callback;
        state_.print = &Worker::print_callback;
        state_.stack_overflow = &Worker::stack_overflow_callback;
        state_.control = reinterpret_cast<const int32_t*>(&g_control);
        state_.launcher = this;
        state_.warp = warp_exchange_.get();
    }
    ~Worker() { std::free(smem_); }

    // Takes blocks from the job until none is left or the launch aborts.
    void run(Job& job) {
        job_ = &job;
        state_.ntid[0] = int32_t(job.block.x);
        state_.ntid[1] = int32_t(job.block.y);
        state_.ntid[2] = int32_t(job.block.z);
        state_.nctaid[0] = int32_t(job.grid.x);
        state_.nctaid[1] = int32_t(job.grid.y);
        state_.nctaid[2] = int32_t(job.grid.z);
        state_.params = job.params;
        state_.run_block = job.fibers ? 0 : 1;
        state_.ended = 0;
        const OsStack& os = os_stack();
        os_limit_ = os.bottom ? os.bottom + job.stack_margin : 0;
        try {
            state_.dynamic_smem = shared_memory(job.dynamic_shared);
            state_.dynamic_smem_bytes = job.dynamic_shared;
            uint64_t plane = uint64_t(job.grid.x) * job.grid.y;
            uint64_t b = 0, end = 0;
            int32_t* const ctaid = state_.ctaid;
            while (!between_blocks()) {
                if (b == end) {  // a run of blocks: its first block's coordinates by division, then by steps
                    b = job.next_block.fetch_add(job.chunk, std::memory_order_relaxed);
                    if (b >= job.nblocks) break;
                    end = std::min(b + job.chunk, job.nblocks);
                    ctaid[0] = int32_t(b % job.grid.x);
                    ctaid[1] = int32_t(b % plane / job.grid.x);
                    ctaid[2] = int32_t(b / plane);
                } else if (++ctaid[0] == int32_t(job.grid.x)) {
                    ctaid[0] = 0;
                    if (++ctaid[1] == int32_t(job.grid.y)) {
                        ctaid[1] = 0;
                        ++ctaid[2];
                    }
                }
                ++b;
                if (job.fibers) {
                    run_fibers();
                } else {
                    state_.tid[0] = state_.tid[1] = state_.tid[2] = 0;  // the loop starts at the first thread
                    state_.stack_limit = os_limit_;  // the block's loop runs on this OS thread's stack
                    job.fn(&state_);
                    if (segments_) finish_segments();
                }
                if (job.cooperative) job.block_exited();
            }
        } catch (const std::exception& e) {
            job.fail(e.what());
        }
        job_ = nullptr;
    }

private:
    void* shared_memory(size_t bytes) {
        bytes = (bytes + 15) / 16 * 16 + 16;
        if (bytes > smem_bytes_) {
            std::free(smem_);
            smem_ = std::aligned_alloc(16, bytes);
            smem_bytes_ = smem_ ? bytes : 0;
            if (!smem_) throw KernelRuntimeError("cannot allocate " + std::to_string(bytes) + " bytes of dynamic shared memory");
        }
        return smem_;
    }

    // Runs the current block's threads as fibers. A fiber that parks at a barrier hands over straight
    // to the next runnable fiber, and the last to arrive releases the barrier and goes on itself, so a
    // barrier costs one switch per thread. This scheduler context only starts the block, takes the
    // exits, and completes barriers when no fiber can (syncwarp across exits, deadlock).
    void run_fibers() {
        Job& job = *job_;
        const int32_t bx = int32_t(job.block.x), by = int32_t(job.block.y);
        const size_t n = size_t(job.block.x) * job.block.y * job.block.z;
        if (fibers_.size() < n) fibers_.resize(n);
        stacks_.reserve(n, job.fiber_stack);
        for (size_t i = 0; i < n; ++i) {
            Fiber& f = fibers_[i];
            f.tid[0] = int32_t(i % bx);
            f.tid[1] = int32_t(i / bx % by);
            f.tid[2] = int32_t(i / (size_t(bx) * by));
            f.state = FiberState::Ready;
            f.stack_limit = reinterpret_cast<uintptr_t>(stacks_.bottom(i)) + job.stack_margin;
#if defined(CJ_FIBER_ASM)
            context_init(f.ctx, stacks_.top(i), &Worker::fiber_main, this);
#else
            context_init(f.ctx, stacks_.top(i), &Worker::fiber_main, this, stacks_.stack_size());
#endif
        }
        n_ = n;
        live_ = n;
        at_barrier_ = at_warp_ = at_grid_ = 0;
        warps_.assign((n + 31) / 32, Warp{});
        if (views_.size() < warps_.size()) views_.resize(warps_.size());
        for (size_t w = 0; w < warps_.size(); ++w) views_[w].free = ~0u;
        for (size_t i = 0; i < n; ++i) fibers_[i].view = -1;
        if (n % 32) warps_.back().gone = ~0u << (n % 32);  // lanes past the end of the block
        for (;;) {
            if (Fiber* next = next_ready(0)) {
                resume(scheduler_, *next);
                if (between_blocks()) return;  // aborted: abandon the parked fibers
                continue;
            }
            if (live_ == 0) return;
            if (release_converging()) continue;
            if (at_barrier_ == live_) {
                release_barrier();
                continue;
            }
            if (at_grid_ == live_) {
                if (!job.grid_wait(launching_)) return;  // aborted: abandon the parked fibers
                release_grid_waiters();
                continue;
            }
            bool released = false;
            for (size_t w = 0; w * 32 < n; ++w) released |= release_warp(w);
            if (!released) return report_deadlock();
        }
    }

    // The first runnable fiber at or after index `from`, wrapping around.
    Fiber* next_ready(size_t from) {
        for (size_t k = 0; k < n_; ++k) {
            size_t i = from + k < n_ ? from + k : from + k - n_;
            if (fibers_[i].state == FiberState::Ready) return &fibers_[i];
        }
        return nullptr;
    }

    void resume(Context& from, Fiber& to) {
        current_ = &to;
        to.state = FiberState::Running;
        std::memcpy(state_.tid, to.tid, sizeof to.tid);
        state_.last_thread = to.last_thread;
        state_.stack_limit = to.stack_limit;
        context_switch(from, to.ctx);
    }

    static void fiber_main(void* self) {
        auto* w = static_cast<Worker*>(self);
        w->job_->fn(&w->state_);  // runs the CUDA thread w->state_.tid; traps unwind to here
        Fiber* f = w->current_;
        f->state = FiberState::Exited;
        --w->live_;
        size_t index = size_t(f - w->fibers_.data());
        w->drop_view(*f, index);
        w->warps_[index / 32].gone |= 1u << (index & 31);
        context_switch(f->ctx, w->scheduler_);  // never resumed
        std::abort();
    }

    // All live threads wait at syncthreads*: give each its reduction and let them all go.
    void release_barrier() {
        int32_t count = 0;
        for (size_t i = 0; i < n_; ++i)
            if (fibers_[i].state == FiberState::AtBarrier) count += fibers_[i].arg != 0;
        for (size_t i = 0; i < n_; ++i) {
            Fiber& f = fibers_[i];
            if (f.state != FiberState::AtBarrier) continue;
            f.result = f.op == CJ_SYNC_COUNT ? count
                     : f.op == CJ_SYNC_AND   ? int32_t(count == int32_t(at_barrier_))
                     : f.op == CJ_SYNC_OR    ? int32_t(count > 0)
                                             : 0;
            f.state = FiberState::Ready;
        }
        at_barrier_ = 0;
    }

    // The grid barrier completed: every thread of the block that waits at grid.sync() goes on.
    void release_grid_waiters() {
        for (size_t i = 0; i < n_; ++i)
            if (fibers_[i].state == FiberState::AtGrid) fibers_[i].state = FiberState::Ready, fibers_[i].result = 0;
        at_grid_ = 0;
    }

    // Releases the threads of warp w waiting at syncwarp(mask) whose mask's lanes have all arrived at
    // syncwarp or exited. True if any was. Usually every waiting lane gave the same mask: one test.
    bool release_warp(size_t w) {
        Warp& warp = warps_[w];
        const uint32_t done = warp.arrived | warp.gone;
        uint32_t go = 0;
        if (warp.uniform) {
            if (!(warp.mask & ~done)) go = warp.arrived;
        } else {
            // each lane's mask must be met by lanes that exited or wait at the same kind of call (same_kind)
            for (uint32_t rest = warp.arrived; rest; rest &= rest - 1) {
                uint32_t lane = uint32_t(__builtin_ctz(rest));
                const Fiber& f = fibers_[w * 32 + lane];
                uint32_t met = warp.gone;
                for (uint32_t other = warp.arrived; other; other &= other - 1) {
                    uint32_t o = uint32_t(__builtin_ctz(other));
                    if (same_kind(kind_of(f), kind_of(fibers_[w * 32 + o]))) met |= 1u << o;
                }
                if (!(f.arg & ~met)) go |= 1u << lane;
            }
        }
        if (!go) return false;
        // What the lanes waiting here published, as the released lanes will read it (they may read a lane that
        // still waits: its slot does not change until it is released).
        WarpViews& views = views_[w];
        const int32_t b = __builtin_ctz(views.free);
        views.free &= ~(1u << b);
        views.readers[b] = __builtin_popcount(go);
        for (uint32_t rest = warp.arrived; rest; rest &= rest - 1) {
            uint32_t lane = uint32_t(__builtin_ctz(rest));
            std::memcpy(views.data[b][lane], warp_exchange_->slot[w * 32 + lane], 16);
        }
        // A lane that exited (or waits elsewhere) reads as zeros: undefined on the GPU, but not another block's or
        // another collective's value left in the buffer (a reduction over a warp whose tail exited adds nothing).
        for (uint32_t rest = ~warp.arrived; rest; rest &= rest - 1)
            std::memset(views.data[b][__builtin_ctz(rest)], 0, 16);
        for (uint32_t rest = go; rest; rest &= rest - 1) {
            const size_t i = w * 32 + uint32_t(__builtin_ctz(rest));
            Fiber& f = fibers_[i];
            f.state = FiberState::Ready;
            f.result = 0;
            f.view = b;
            warp_exchange_->view[i] = views.data[b][0];
        }
        warp.arrived &= ~go;
        at_warp_ -= size_t(__builtin_popcount(go));
        return true;
    }

    // activemask: once no fiber of the block can run, the lanes of each warp waiting at an activemask go on, each
    // with the lanes waiting at the same call (its site, in arg): the rest of its warp waits elsewhere or has
    // exited, as the GPU's lanes that took another branch. True if any lane was released.
    bool release_converging() {
        bool any = false;
        for (size_t w = 0; w < warps_.size(); ++w) {
            uint32_t& waiting = warps_[w].converging;
            any |= waiting != 0;
            while (waiting) {
                const uint32_t site = fibers_[w * 32 + uint32_t(__builtin_ctz(waiting))].arg;
                uint32_t same = 0;
                for (uint32_t rest = waiting; rest; rest &= rest - 1) {
                    uint32_t lane = uint32_t(__builtin_ctz(rest));
                    if (fibers_[w * 32 + lane].arg == site) same |= 1u << lane;
                }
                for (uint32_t rest = same; rest; rest &= rest - 1) {
                    size_t i = w * 32 + uint32_t(__builtin_ctz(rest));
                    warp_exchange_->converged[i] = same;
                    fibers_[i].state = FiberState::Ready;
                    fibers_[i].result = 0;
                }
                waiting &= ~same;
            }
        }
        return any;
    }

    // No fiber of the block can run and no barrier can complete: the launch fails, saying which threads wait
    // where (grouped by the call they wait at, with its file and line) and, for lanes at a warp collective, which
    // lane of their mask keeps them waiting and where that one waits.
    void report_deadlock() {
        static const cj_cpu_where unknown = {"a barrier", "?", "?", 0};
        auto at = [&](const Fiber& f) -> const cj_cpu_where& { return f.where ? *f.where : unknown; };
        auto place = [&](const Fiber& f) { return std::string(at(f).what) + "() (" + where_text(at(f)) + ")"; };
        std::string msg = "deadlock in block " + dim3_text(state_.ctaid) + ": of its " + std::to_string(n_) +
                          " threads, ";
        std::vector<std::string> counts;
        if (at_barrier_) counts.push_back(std::to_string(at_barrier_) + " wait at syncthreads()");
        if (at_warp_) counts.push_back(std::to_string(at_warp_) + " at warp collectives");
        if (at_grid_) counts.push_back(std::to_string(at_grid_) + " at grid.sync()");
        counts.push_back(std::to_string(n_ - live_) + " have exited");
        for (size_t k = 0; k < counts.size(); ++k)
            msg += (k == 0 ? "" : k + 1 == counts.size() ? " and " : ", ") + counts[k];
        msg += "; none can go on:";
        // One line per call waited at, in thread order.
        std::vector<bool> told(n_, false);
        size_t lines = 0;
        for (size_t i = 0; i < n_; ++i) {
            const Fiber& f = fibers_[i];
            if (told[i] || f.state == FiberState::Exited || f.state == FiberState::Ready) continue;
            if (++lines > 8) {
                msg += "\n  ... (more threads wait elsewhere)";
                break;
            }
            std::vector<size_t> group;
            for (size_t j = i; j < n_; ++j) {
                const Fiber& g = fibers_[j];
                if (!told[j] && g.state == f.state && at(g).what == at(f).what && at(g).file == at(f).file &&
                    at(g).line == at(f).line)
                    group.push_back(j), told[j] = true;
            }
            msg += "\n  " + std::to_string(group.size()) + (group.size() == 1 ? " thread waits at " : " threads wait at ") +
                   place(f) + ": ";
            for (size_t k = 0; k < group.size() && k < 4; ++k)
                msg += (k ? ", " : "") + dim3_text(fibers_[group[k]].tid);
            if (group.size() > 4) msg += ", ...";
            if (f.state == FiberState::AtWarp) {
                const Warp& warp = warps_[i / 32];
                const uint32_t missing = f.arg & ~(warp.arrived | warp.gone);
                msg += "; the first with mask " + hex_mask(f.arg);
                if (missing) {
                    const Fiber& other = fibers_[i / 32 * 32 + size_t(__builtin_ctz(missing))];
                    msg += ", for lane " + std::to_string(__builtin_ctz(missing)) + " (thread " +
                           dim3_text(other.tid) + "), which waits at " + place(other);
                }
            }
        }
        msg += "\nEvery thread of a block that has not exited must reach a syncthreads(), and every lane named in a "
               "warp collective's mask a collective with that mask";
        job_->fail(msg);
    }

    // cj_cpu_state::sync: parks the running fiber at a barrier, completes the barrier if it was the
    // last to arrive (then runs on), else switches to the next runnable fiber.
    static int32_t sync_callback(cj_cpu_state* s, int32_t op, uint32_t arg, const cj_cpu_where* where) {
        auto* w = static_cast<Worker*>(s->launcher);
        if (Job::aborted()) return -1;
        if (op == CJ_SYNC_YIELD) return w->job_->fibers ? w->yield_fiber() : w->yield_segment(arg);
        if (op == CJ_SYNC_WARP && !(arg >> (w->linear_tid() & 31) & 1)) return w->lane_not_in_mask(arg, *where);
        if (!w->job_->fibers) return w->sync_without_fibers(op, arg);
        Fiber* f = w->current_;
        size_t index = size_t(f - w->fibers_.data());
        w->drop_view(*f, index);  // it read its last collective's values before coming here
        f->op = op;
        f->arg = arg;
        f->where = where;
        if (op == CJ_SYNC_WARP) {
            f->state = FiberState::AtWarp;
            ++w->at_warp_;
            Warp& warp = w->warps_[index / 32];
            if (!warp.arrived) warp.uniform = true, warp.mask = f->arg, warp.kind = kind_of(*f);
            else if (f->arg != warp.mask || !same_kind(kind_of(*f), warp.kind)) warp.uniform = false;
            warp.arrived |= 1u << (index & 31);
            w->release_warp(index / 32);
        } else if (op == CJ_SYNC_CONVERGE) {
            f->state = FiberState::AtConverge;  // released by the scheduler (release_converging)
            w->warps_[index / 32].converging |= 1u << (index & 31);
        } else if (op == CJ_SYNC_GRID) {
            if (!w->job_->cooperative) {
                w->job_->fail("grid.sync() in a launch that is not cooperative");
                return -1;
            }
            f->state = FiberState::AtGrid;
            ++w->at_grid_;
        } else {
            f->state = FiberState::AtBarrier;
            if (++w->at_barrier_ == w->live_) w->release_barrier();
        }
        if (f->state == FiberState::Ready) {
            f->state = FiberState::Running;
            return f->result;
        }
        Fiber* next = w->next_ready(index + 1 < w->n_ ? index + 1 : 0);
        if (next)
            w->resume(f->ctx, *next);
        else
            context_switch(f->ctx, w->scheduler_);
        return f->result;  // resumed: whoever switched here made this fiber current again
    }

    static const char* kind_of(const Fiber& f) { return f.where ? f.where->what : nullptr; }

    // The fiber no longer reads the warp buffer its last syncwarp gave it; the last reader frees it.
    void drop_view(Fiber& f, size_t index) {
        if (f.view < 0) return;
        WarpViews& views = views_[index / 32];
        if (--views.readers[f.view] == 0) views.free |= 1u << f.view;
        f.view = -1;
    }

    // A spinning while loop (CJ_SPIN_POLL): the running fiber stays runnable and the next runnable fiber of the
    // block runs, so the thread it waits for gets to set its flag. Nothing to do in a block run as a loop.
    int32_t yield_fiber() {
        if (!job_->fibers) return 0;
        Fiber* f = current_;
        size_t index = size_t(f - fibers_.data());
        Fiber* next = next_ready(index + 1 < n_ ? index + 1 : 0);
        if (!next || next == f) return 0;
        f->state = FiberState::Ready;
        resume(f->ctx, *next);
        return 0;  // resumed: whoever switched here made this fiber current again
    }

    size_t linear_tid() const {
        return size_t(state_.tid[0]) + job_->block.x * (size_t(state_.tid[1]) + size_t(job_->block.y) * state_.tid[2]);
    }

    // A warp collective whose mask leaves out the calling lane: undefined on the GPU (CUDA's programming guide: each
    // calling thread must have its own bit set in the mask); here its lanes would wait for each other in ways no
    // mask describes, often for good. The launch fails, naming the call.
    __attribute__((noinline, cold)) int32_t lane_not_in_mask(uint32_t mask, const cj_cpu_where& where) {
        const int32_t lane = int32_t(linear_tid() & 31);
        job_->fail(where_text(where) + ", tid=[" + std::to_string(state_.tid[0]) + ", " + std::to_string(state_.tid[1]) +
                   ", " + std::to_string(state_.tid[2]) + "] ctaid=[" + std::to_string(state_.ctaid[0]) + ", " +
                   std::to_string(state_.ctaid[1]) + ", " + std::to_string(state_.ctaid[2]) + "]: " + where.what +
                   "(mask=" + hex_mask(mask) + ") called by lane " + std::to_string(lane) + ", whose bit " +
                   hex_mask(1u << lane) + " is not set in the mask: each thread that calls a warp collective must "
                   "have its own bit set in the mask (the result is undefined on the GPU): pass a mask that names every "
                   "lane taking part (0xffffffff for the whole warp) and mask the result afterwards");
        return -1;
    }

    // Segments: a block run as a loop (no barriers) whose thread spins in a while loop, waiting perhaps for a later
    // thread of its block to set a flag (the GPU runs that thread meanwhile), hands the block's later threads over
    // to a new loop on a fiber, a segment, and from then on takes turns with it. Every thread of the block still
    // runs in a loop, on its segment's stack; a block whose threads never spin never leaves the OS thread's stack.
    // fibers_[0] is the block's first loop, on this OS thread's stack; fibers_[k] the segment started at the k-th
    // handover. The segment that handed over stops after its running thread (cj_cpu_state::last_thread).
    // The first thread of a block hands over after kSegmentStart iterations of a loop (`count`: Mandelbrot's escape
    // loop of a few thousand iterations never does; one of 20000 runs 0.7% slower for it, handing over at 1024
    // cost 3.4%). Once its block has segments, every 1024 iterations (as fibers do) a thread hands over, or lets
    // the segment before it run: the one that handed over to it, which is where a thread waiting for a later one is, so that a chain of threads each
    // waiting for the next resolves in one pass back (1024 threads: 24 ms; in a random order 1.7 s).
    static constexpr uint32_t kSegmentStart = 8192;
    int32_t yield_segment(uint32_t count) {
        if (!segments_ && count % kSegmentStart) return 0;
        const size_t n = size_t(job_->block.x) * job_->block.y * job_->block.z;
        if (!segments_) {
            if (linear_tid() + 1 == n) return 0;  // the block's last thread: nothing to hand over
            if (fibers_.size() < n) fibers_.resize(n);
            stacks_.reserve(n, job_->fiber_stack);  // no segment of this worker runs now
            Fiber& first = fibers_[0];
            first.state = FiberState::Running;
            first.last_thread = false;
            first.stack_limit = os_limit_;  // the block's first loop, on this OS thread's stack
            current_ = &first;
            segments_ = 1;
        }
        Fiber* f = current_;
        std::memcpy(f->tid, state_.tid, sizeof f->tid);
        if (!f->last_thread && linear_tid() + 1 < n) {
            // This segment runs the block's last threads: a new one takes them over from the next thread.
            Fiber& next = fibers_[segments_];
            const int32_t bx = int32_t(job_->block.x), by = int32_t(job_->block.y);
            next.tid[0] = f->tid[0] + 1, next.tid[1] = f->tid[1], next.tid[2] = f->tid[2];
            if (next.tid[0] == bx) next.tid[0] = 0, ++next.tid[1];
            if (next.tid[1] == by) next.tid[1] = 0, ++next.tid[2];
            next.state = FiberState::Ready;
            next.last_thread = false;
            next.stack_limit = reinterpret_cast<uintptr_t>(stacks_.bottom(segments_)) + job_->stack_margin;
#if defined(CJ_FIBER_ASM)
            context_init(next.ctx, stacks_.top(segments_), &Worker::segment_main, this);
#else
            context_init(next.ctx, stacks_.top(segments_), &Worker::segment_main, this, stacks_.stack_size());
#endif
            ++segments_;
            f->last_thread = true;
            f->state = FiberState::Ready;
            resume(f->ctx, next);
            return 0;  // resumed: whoever switched here made this segment current again
        }
        Fiber* next = next_segment(f);
        if (!next) return 0;
        f->state = FiberState::Ready;
        resume(f->ctx, *next);
        return 0;
    }

    // The segment before f (wrapping around to the last) that can run, or null.
    Fiber* next_segment(const Fiber* f) {
        const size_t at = size_t(f - fibers_.data());
        for (size_t k = 1; k <= segments_; ++k) {
            Fiber& g = fibers_[(at + segments_ - k) % segments_];
            if (g.state == FiberState::Ready) return &g;
        }
        return nullptr;
    }

    // A segment's fiber: runs the block's threads from its first to the end (or to where it handed over), then
    // lets another segment run; the last one to finish goes back to the block's first loop, which has finished
    // and waits in finish_segments.
    static void segment_main(void* self) {
        auto* w = static_cast<Worker*>(self);
        w->job_->fn(&w->state_);
        Fiber* f = w->current_;
        f->state = FiberState::Exited;
        Fiber* next = w->next_segment(f);
        if (next)
            w->resume(f->ctx, *next);
        else
            context_switch(f->ctx, w->scheduler_);  // never resumed
        std::abort();
    }

    // The block's first loop has returned: run the other segments to their end, on this OS thread's stack as the
    // scheduler (an aborted launch abandons them, as parked fibers).
    void finish_segments() {
        fibers_[0].state = FiberState::Exited;
        while (Fiber* next = next_segment(&fibers_[0])) {
            resume(scheduler_, *next);
            if (between_blocks()) break;
        }
        segments_ = 0;
        state_.last_thread = 0;
    }

    // A barrier in a kernel launched as a loop: fine for a one-thread block, else the compiler
    // should have asked for fibers (uses_barriers); abort rather than give wrong results.
    __attribute__((noinline, cold)) int32_t sync_without_fibers(int32_t op, uint32_t arg) {
        if (job_->block.x * job_->block.y * job_->block.z == 1) {
            warp_exchange_->view[0] = warp_exchange_->slot[0];  // a one-thread warp reads what it published
            if (op == CJ_SYNC_CONVERGE) warp_exchange_->converged[0] = 1;
            return op == CJ_SYNC_WARP || op == CJ_SYNC_CONVERGE ? 0 : int32_t(arg != 0);
        }
        job_->fail("thread " + dim3_text(state_.tid) + " of block " + dim3_text(state_.ctaid) +
                   " reached a barrier, but the kernel was launched without barrier support "
                   "(uses_barriers=False)");
        return -1;
    }

    // True when the launch aborts. The launching thread answers a poll request by checking for signals
    // (between blocks, and between fiber switches on the scheduler's own stack).
    bool between_blocks() {
        if (launching_ && (g_control.load(std::memory_order_relaxed) & kPollRequest)) job_->check_interrupt();
        return Job::aborted();
    }

    // cj_cpu_state::poll (a kernel loop saw the control word set): non-zero when the launch aborts. A
    // fiber does not check for signals on its small stack (Python's handlers may run there): it hands
    // over to the scheduler, which checks and resumes it later.
    static int32_t poll_callback(cj_cpu_state* s) {
        auto* w = static_cast<Worker*>(s->launcher);
        if (!w->job_->fibers && w->segments_ && w->current_ != &w->fibers_[0]) {
            // A segment on a fiber's stack: the block's first loop (on this OS thread's stack) or, once it has
            // finished, finish_segments answers the poll request; this segment runs on later.
            if (w->launching_ && (g_control.load(std::memory_order_relaxed) & kPollRequest) && !Job::aborted()) {
                Fiber* f = w->current_;
                std::memcpy(f->tid, w->state_.tid, sizeof f->tid);
                f->state = FiberState::Ready;
                if (w->fibers_[0].state == FiberState::Exited)
                    context_switch(f->ctx, w->scheduler_);  // resume() makes it current again
                else
                    w->resume(f->ctx, w->fibers_[0]);
            }
            return Job::aborted();
        }
        if (!w->job_->fibers) return w->between_blocks();
        if (w->launching_ && (g_control.load(std::memory_order_relaxed) & kPollRequest) && !Job::aborted()) {
            Fiber* f = w->current_;
            f->state = FiberState::Ready;
            context_switch(f->ctx, w->scheduler_);  // resume() makes it current again
        }
        return Job::aborted();
    }

    static void print_callback(cj_cpu_state* s, const char* text, uint32_t len) {
        static_cast<Worker*>(s->launcher)->job_->print(text, len);
    }

    // cj_cpu_state::stack_overflow: a guarded call of a recursive device function would take its frame below the
    // running stack's limit. The launch raises KernelRecursionError, as Python raises RecursionError.
    static void stack_overflow_callback(cj_cpu_state* s, const cj_cpu_where* where, int32_t depth) {
        auto* w = static_cast<Worker*>(s->launcher);
        const bool fiber = w->job_->fibers || (w->segments_ && w->current_ != &w->fibers_[0]);
        const std::string stack =
            fiber ? "a fiber's stack of " + std::to_string(w->stacks_.stack_size()) +
                        " bytes: set CUDAJIT_CPU_STACK higher (e.g. CUDAJIT_CPU_STACK=1M) to allow deeper recursion"
                  : "its OS thread's stack of " + std::to_string(os_stack().bytes) +
                        " bytes (the launching thread's: `ulimit -s` or threading.stack_size())";
        w->job_->fail(where_text(*where) + ", tid=" + list_text(s->tid) + " ctaid=" + list_text(s->ctaid) +
                          ": maximum recursion depth exceeded: the call of recursive device function '" +
                          python_function_name(where->function) + "' at depth " + std::to_string(depth) +
                          " would overflow this CUDA thread's stack (" + stack + "); recurse less deeply",
                      true);
    }

    static void fail_callback(cj_cpu_state* s, const char* what) {
        auto* w = static_cast<Worker*>(s->launcher);
        w->job_->fail("thread " + dim3_text(s->tid) + " of block " + dim3_text(s->ctaid) + ": " + what);
    }

    cj_cpu_state state_{};
    const bool launching_;
    Job* job_ = nullptr;
    std::vector<Fiber> fibers_;
    std::vector<Warp> warps_;
    StackArena stacks_;
    Context scheduler_;
    Fiber* current_ = nullptr;
    uintptr_t os_limit_ = 0;  // this launch's stack limit on this OS thread's stack (0: unguarded)
    size_t segments_ = 0;  // a block run as a loop: its segments (yield_segment), or 0 while it is one plain loop
    size_t n_ = 0, live_ = 0, at_barrier_ = 0, at_warp_ = 0, at_grid_ = 0;  // threads of the block, not exited, parked
    void* smem_ = nullptr;
    size_t smem_bytes_ = 0;
    std::unique_ptr<cj_cpu_warp_exchange> warp_exchange_ = std::make_unique<cj_cpu_warp_exchange>();
    std::vector<WarpViews> views_;  // per warp of the block: the copies released groups read
};

// ---------------------------------------------------------------------------------------------
// The pool. The launching thread is worker 0; helpers sleep on a condition variable between
// launches. One launch runs at a time (blocks of one launch already fill every core).
//
// Ctrl-C: only the launching thread can run Python's signal handlers, and it is busy running blocks.
// A watchdog thread raises kPollRequest every tick while one launch lasts longer than a tick; the
// launching thread answers it between blocks, inside kernel loops (CJ_LOOP_POLL) and while it waits
// for the helpers. Short launches never see the watchdog: they cost a few atomic stores.

constexpr int kIdleTicks = 50;  // the watchdog sleeps for good after this many ticks without a launch

// Forks this process has gone through, counted in the child (pthread_atfork): a pool made before the last one lost
// its helper threads. (getpid() per launch was a system call on every CPU launch, about a tenth of an empty one's.)
std::atomic<unsigned> g_forks{0};

class Pool {
public:
    explicit Pool(unsigned n) : forks_(g_forks.load()) {
        for (unsigned i = 0; i < n; ++i) workers_.push_back(std::make_unique<Worker>(i == 0));
        for (unsigned i = 1; i < n; ++i) std::thread([this, i] { helper(i); }).detach();
        std::thread([this] { watchdog(); }).detach();
    }

    // The process's pool; a forked child (whose helpers did not survive the fork) makes a new one.
    // Never destroyed: helpers may still sleep in it at exit.
    static Pool& get() {
        static std::mutex& mu = remade_after_fork(*new std::mutex);
        static std::atomic<Pool*> pool{nullptr};
        static const int counting = pthread_atfork(nullptr, nullptr, [] { g_forks.fetch_add(1); });
        (void)counting;
        Pool* p = pool.load(std::memory_order_acquire);
        if (p && p->forks_ == g_forks.load(std::memory_order_relaxed)) return *p;
        std::lock_guard<std::mutex> lock(mu);
        p = pool.load(std::memory_order_relaxed);
        if (!p || p->forks_ != g_forks.load()) {
            p = new Pool(num_threads());
            pool.store(p, std::memory_order_release);
        }
        return *p;
    }

    void run(Job& job) {
        // A Python signal handler run by the interrupt check may launch: that would wait for itself.
        static thread_local bool inside = false;
        if (inside)
            throw LaunchError("kernel " + *job.name + " was launched from a signal handler while this thread's "
                              "launch was running; launch it after that launch returns");
        inside = true;
        struct Leave {
            ~Leave() { inside = false; }
        } leave;
        std::lock_guard<std::mutex> one_launch(launch_mu_);
        g_control.store(0, std::memory_order_relaxed);
        launch_seq_.fetch_add(1, std::memory_order_relaxed);
        launching_.store(true);
        if (watchdog_parked_.load()) {
            std::lock_guard<std::mutex> lock(watchdog_mu_);
            watchdog_parked_ = false;
            watchdog_wake_.notify_one();
        }
        if (job.cooperative) {
            run_cooperative(job);
            launching_.store(false, std::memory_order_relaxed);
            return;
        }
        unsigned helpers = unsigned(std::min<uint64_t>(workers_.size() - 1, job.nblocks - 1));
        job.chunk = std::clamp<uint64_t>(job.nblocks / (uint64_t{helpers + 1} * 32), 1, 64);
        if (helpers) {
            std::lock_guard<std::mutex> lock(mu_);
            job_ = &job;
            wanted_ = helpers;
            running_ = helpers;
            ++generation_;
            wake_.notify_all();
        }
        workers_[0]->run(job);
        if (helpers) {
            std::unique_lock<std::mutex> lock(mu_);
            while (!done_.wait_for(lock, kTick, [&] { return running_ == 0; })) {
                lock.unlock();
                job.check_interrupt();
                lock.lock();
            }
            job_ = nullptr;
        }
        launching_.store(false, std::memory_order_relaxed);
    }

private:
    // A cooperative launch: every block at once, each on an OS thread of its own (a block's shared arrays are
    // its thread's thread_locals), so that grid.sync() can wait for all of them. The launching thread runs one
    // block; the others start threads for this launch, whose Workers (stacks, scratch) are kept for the next.
    void run_cooperative(Job& job) {
        const size_t extra = size_t(job.nblocks - 1);
        while (coop_workers_.size() < extra) coop_workers_.push_back(std::make_unique<Worker>(false));
        std::mutex mu;
        std::condition_variable done;
        size_t running = 0;
        std::vector<std::thread> threads;
        threads.reserve(extra);
        try {
            for (size_t i = 0; i < extra; ++i) {
                {
                    std::lock_guard<std::mutex> lock(mu);
                    ++running;
                }
                threads.emplace_back([&, i] {
                    coop_workers_[i]->run(job);
                    std::lock_guard<std::mutex> lock(mu);
                    if (--running == 0) done.notify_one();
                });
            }
        } catch (const std::system_error& e) {
            {
                std::lock_guard<std::mutex> lock(mu);
                --running;  // the thread that failed to start
            }
            job.fail("cannot start " + std::to_string(extra) + " threads for a cooperative launch of " +
                     std::to_string(job.nblocks) + " blocks (" + e.what() + "): launch fewer blocks");
        }
        workers_[0]->run(job);
        {
            std::unique_lock<std::mutex> lock(mu);
            while (!done.wait_for(lock, kTick, [&] { return running == 0; })) {
                lock.unlock();
                job.check_interrupt();
                lock.lock();
            }
        }
        for (std::thread& t : threads) t.join();
    }

    void helper(unsigned i) {
        uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(mu_);
        for (;;) {
            wake_.wait(lock, [&] { return generation_ != seen; });
            seen = generation_;
            if (i > wanted_) continue;
            Job* job = job_;
            lock.unlock();
            workers_[i]->run(*job);
            lock.lock();
            if (--running_ == 0) done_.notify_one();
        }
    }

    // Asks for a poll when the same launch is still running a tick later. Parks after a while without
    // launches; run() wakes it (watchdog_parked_ and launching_ are seq_cst, so one of the two sides
    // always sees the other's store: no launch is missed).
    void watchdog() {
        uint64_t seen = 0;
        int idle = 0;
        std::unique_lock<std::mutex> lock(watchdog_mu_);
        for (;;) {
            watchdog_wake_.wait_for(lock, kTick);
            uint64_t seq = launch_seq_.load(std::memory_order_relaxed);
            bool running = launching_.load();
            if (running && seq == seen) g_control.fetch_or(kPollRequest, std::memory_order_relaxed);
            idle = running || seq != seen ? 0 : idle + 1;
            seen = seq;
            if (idle < kIdleTicks) continue;
            watchdog_parked_ = true;
            if (launching_.load()) watchdog_parked_ = false;
            watchdog_wake_.wait(lock, [&] { return !watchdog_parked_.load(); });
            idle = 0;
        }
    }

    unsigned forks_;  // g_forks when made
    std::vector<std::unique_ptr<Worker>> workers_;
    std::vector<std::unique_ptr<Worker>> coop_workers_;  // the extra blocks of cooperative launches
    std::mutex launch_mu_;
    std::mutex mu_;
    std::condition_variable wake_, done_;
    Job* job_ = nullptr;
    uint64_t generation_ = 0;
    unsigned wanted_ = 0, running_ = 0;
    std::atomic<uint64_t> launch_seq_{0};
    std::atomic<bool> launching_{false}, watchdog_parked_{false};
    std::mutex watchdog_mu_;
    std::condition_variable watchdog_wake_;
};

// ---------------------------------------------------------------------------------------------

// dlopen of a private copy of the library at `path`, or null when no private copy can be made (no writable
// temporary directory; the caller then loads it in place). A library in the disk cache may be truncated or rewritten
// by another process while it is mapped, and the next page fault in a truncated mapping raises SIGBUS: the copy
// lives in a fresh directory of its own (0700) only until it is mapped. A disk-cache entry is copied only when its
// checksum holds (it may have changed since the compile verified it: CompileError, and the caller compiles again).
void* open_private_copy(const std::string& path) {
    std::optional<std::string> data = cache::read_regular_file(path);
    if (!data)
        throw CompileError("the compiled kernel library " + path + " was removed or changed while it was loaded "
                           "(cannot read it): compile again");
    std::optional<std::string> payload = cache::payload_if_entry(path, *data);
    if (!payload)
        throw CompileError("the compiled kernel library " + path + " was removed or changed while it was loaded "
                           "(another process truncated or rewrote the cache entry; it was removed): compile again");
    for (const char* base : std::initializer_list<const char*>{std::getenv("TMPDIR"), "/tmp", "/dev/shm"}) {
        if (!base || !*base) continue;
        std::string dir = std::string(base) + "/cudajit-load-XXXXXX";
        if (!mkdtemp(dir.data())) continue;
        std::string copy = dir + path.substr(path.rfind('/'));  // its own name, for debuggers' and maps' sake
        int fd = ::open(copy.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
        bool written = fd >= 0;
        for (size_t at = 0; written && at < payload->size();) {
            ssize_t n = ::write(fd, payload->data() + at, payload->size() - at);
            if (n < 0 && errno == EINTR) continue;
            written = n > 0;
            at += written ? size_t(n) : 0;
        }
        if (fd >= 0) written = (::close(fd) == 0) && written;
        void* handle = written ? dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
        std::string why = handle || !written ? std::string() : std::string(dlerror());
        ::unlink(copy.c_str());
        ::rmdir(dir.c_str());
        if (handle) return handle;
        if (!why.empty()) throw CompileError("cannot load the compiled kernel library " + path + ": " + why);
    }
    return nullptr;
}

// One dlopen handle per path, shared by every CpuKernel of that library.
std::shared_ptr<void> open_library(const std::string& path) {
    static std::mutex& mu = remade_after_fork(*new std::mutex);  // never destroyed (interpreter exit)
    static auto& open = *new std::map<std::string, std::weak_ptr<void>>;
    std::lock_guard<std::mutex> lock(mu);
    if (auto h = open[path].lock()) return h;
    // Under a sanitizer the report names the library's file, which must stay: it is loaded in place.
    const char* sanitize = std::getenv("CUDAJIT_CPU_SANITIZE");
    void* handle = sanitize && *sanitize ? nullptr : open_private_copy(path);
    if (handle && host::is_own_output(path)) ::unlink(path.c_str());  // built outside the cache: loaded, not kept
    if (!handle) handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        std::string why = std::string("cannot load the compiled kernel library: ") + dlerror();
        if (const char* s = std::getenv("CUDAJIT_CPU_SANITIZE"); s && *s)
            why += " (CUDAJIT_CPU_SANITIZE is set: start Python with the sanitizer runtime loaded first, "
                   "e.g. LD_PRELOAD=$(g++ -print-file-name=libasan.so))";
        throw CompileError(why);
    }
    std::shared_ptr<void> h(handle, [](void* p) { dlclose(p); });
    open[path] = h;
    return h;
}


void check_config(Dim3 grid, Dim3 block) {
    auto text = [](Dim3 d) {
        return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
    };
    uint64_t threads = uint64_t(block.x) * block.y * block.z;
    if (threads == 0 || threads > 1024 || block.x > 1024 || block.y > 1024 || block.z > 64)
        throw LaunchError("block " + text(block) + " is invalid: each dimension must be at least 1, at most "
                          "(1024, 1024, 64), with at most 1024 threads per block");
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535)
        throw LaunchError("grid " + text(grid) + " is invalid: each dimension must be at least 1, at most "
                          "(2147483647, 65535, 65535)");
}

}  // namespace

void set_interrupt_check(void (*check)()) { g_interrupt_check = check; }
void set_print_sink(void (*sink)(const char*, size_t)) { g_print_sink = sink; }

// "cj_k_saxpy_3" -> "saxpy": the Python name, for messages.
std::string python_kernel_name(const std::string& entry) {
    std::string name = entry;
    if (name.rfind("cj_k_", 0) == 0) name = name.substr(5);
    size_t us = name.find_last_of('_');
    if (us != std::string::npos && us + 1 < name.size() &&
        name.find_first_not_of("0123456789", us + 1) == std::string::npos)
        name.resize(us);
    return name.empty() ? entry : name;
}

unsigned num_threads() {
    static const unsigned n = [] {
        const char* s = std::getenv("CUDAJIT_NUM_THREADS");  // a positive integer, else the default (as above)
        if (s && std::isdigit(static_cast<unsigned char>(*s))) {
            char* end = nullptr;
            long v = std::strtol(s, &end, 10);
            if (*end == '\0' && v > 0) return unsigned(std::min(v, 1024L));
        }
        return std::max(1u, std::thread::hardware_concurrency());
    }();
    return n;
}

CpuKernel::CpuKernel(const std::string& so_path, const std::string& entry, bool uses_barriers, size_t local_bytes)
    : library_(open_library(so_path)), entry_(entry), name_(python_kernel_name(entry)), uses_barriers_(uses_barriers),
      // the local arrays on top of the usual stack ($CUDAJIT_CPU_STACK), which stays the margin for frames
      fiber_stack_(stack_bytes() + local_bytes), local_bytes_(local_bytes) {
    std::string symbol = entry + "_cpu";
    fn_ = reinterpret_cast<void (*)(cj_cpu_state*)>(dlsym(library_.get(), symbol.c_str()));
    if (!fn_) throw CompileError("kernel library " + so_path + " has no entry point " + symbol + " (CJ_ENTRY missing?)");
}

void* CpuKernel::symbol(const std::string& name) const { return dlsym(library_.get(), name.c_str()); }

unsigned max_cooperative_blocks(uint64_t threads_per_block) {
    return unsigned(std::max<uint64_t>(1, std::min<uint64_t>(kMaxCooperativeBlocks,
                                                              kMaxCooperativeThreads / std::max<uint64_t>(1, threads_per_block))));
}

void CpuKernel::launch(Dim3 grid, Dim3 block, size_t dynamic_shared_bytes, void** params, bool cooperative) const {
    check_config(grid, block);
    Job job;
    job.fn = fn_;
    job.name = &name_;
    job.grid = grid;
    job.block = block;
    job.dynamic_shared = dynamic_shared_bytes;
    job.params = params;
    job.fibers = uses_barriers_ || cooperative;
    job.cooperative = cooperative;
    job.fiber_stack = fiber_stack_;
    job.stack_margin = kStackMargin + local_bytes_;
    job.nblocks = uint64_t(grid.x) * grid.y * grid.z;
    if (cooperative && job.nblocks > max_cooperative_blocks(uint64_t(block.x) * block.y * block.z))
        throw LaunchError("kernel " + name_ + ": a cooperative grid of " + std::to_string(job.nblocks) +
                          " blocks exceeds the CPU backend's limit of " +
                          std::to_string(max_cooperative_blocks(uint64_t(block.x) * block.y * block.z)));
    try {
        Pool::get().run(job);
    } catch (...) {
        job.drain_prints();
        throw;
    }
    job.drain_prints();  // before any error of the launch is raised: what the threads printed first comes first
    if (job.interrupt) std::rethrow_exception(job.interrupt);
    if (job.recursion) throw KernelRecursionError(job.error);
    if (!job.error.empty()) throw KernelRuntimeError(job.error);
}

}  // namespace cj::cpu

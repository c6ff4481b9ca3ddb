// A launch shared by the workers that run its blocks: the control word, Job, warps, fibers, messages.
// A private part of cpu_launch.cpp, which alone includes it, inside its anonymous namespace in cj::cpu (its own
// includes come first there): the CPU launcher is one translation unit, split by subject (fibers.h, job.h, worker.h,
// then the pool and the kernel in cpu_launch.cpp).
#pragma once

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

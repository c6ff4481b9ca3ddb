// The CPU launcher: a pool of OS threads takes blocks from an atomic counter; each block runs its
// CUDA threads either as one loop inside the kernel library (no barriers) or as fibers that this
// file switches at syncthreads*/syncwarp. See cpu_launch.h and kernels/cudajit/cpu_exec.h. By subject: cpu/fibers.h
// (contexts, stacks), cpu/job.h (a launch shared by its workers), cpu/worker.h (one thread of the pool), and here the
// pool, the kernel library and the public functions.
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
#include "settings.h"

// CJ_FIBER_UCONTEXT forces the portable fiber switch (to test it on x86-64).
#if defined(__x86_64__) && !defined(CJ_FIBER_UCONTEXT)
#define CJ_FIBER_ASM 1
#else
#include <ucontext.h>
#endif

namespace cj::cpu {
namespace {

#include "cpu/fibers.h"
#include "cpu/job.h"
#include "cpu/worker.h"

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
// Registered when the library loads, never destroyed: a first use's registration, cut by another thread's fork, left
// its function-local static's guard taken in the child for ever (fork_safety.h); glibc's atfork lock is the fork's.
const int g_counting_forks = pthread_atfork(nullptr, nullptr, [] { g_forks.fetch_add(1); });
std::mutex& g_pool_mutex = remade_after_fork(*new std::mutex);

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
        static std::atomic<Pool*> pool{nullptr};       // constant-initialised: no guard
        std::mutex& mu = g_pool_mutex;
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

// Made when the library loads, never destroyed (interpreter exit): a function-local static's first use, cut by
// another thread's fork, leaves its guard taken in the child for ever (fork_safety.h).
std::mutex& g_open_mutex = remade_after_fork(*new std::mutex);
auto& g_open = *new std::map<std::string, std::weak_ptr<void>>;

// One dlopen handle per path, shared by every CpuKernel of that library.
std::shared_ptr<void> open_library(const std::string& path) {
    std::mutex& mu = g_open_mutex;
    auto& open = g_open;
    std::lock_guard<std::mutex> lock(mu);
    if (auto h = open[path].lock()) return h;
    // Under a sanitizer the report names the library's file, which must stay: it is loaded in place.
    const bool sanitized = !settings::current().cpu_sanitize.empty();
    void* handle = sanitized ? nullptr : open_private_copy(path);
    if (handle && host::is_own_output(path)) ::unlink(path.c_str());  // built outside the cache: loaded, not kept
    if (!handle) handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        std::string why = std::string("cannot load the compiled kernel library: ") + dlerror();
        if (sanitized)
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
        if (unsigned v = settings::current().num_threads) return std::min(v, 1024u);  // CUDAJIT_NUM_THREADS
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

// The CPU backend's launcher: loads a kernel library built by host_compiler and runs a grid on a
// pool of OS threads. Blocks run in parallel; the threads of a block run on one OS thread, as a plain
// loop, or as fibers switched at barriers when the kernel uses syncthreads*/syncwarp. A cooperative launch
// (cuda.cg grid sync) runs every block at once, each on its own OS thread.
// The ABI between a kernel library and this launcher is kernels/cudajit/cpu_exec.h.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

struct cj_cpu_state;

namespace cj::cpu {

struct Dim3 {
    unsigned x, y, z;
};

// One loaded entry point; the library stays loaded while any CpuKernel uses it.
class CpuKernel {
public:
    // entry: the kernel's extern "C" name ("cj_k_add_0"); the library exports entry + "_cpu".
    // uses_barriers: the kernel calls syncthreads*/syncwarp, so its threads must run as fibers.
    // local_bytes: what its local arrays take per thread (the compiler's bound); each fiber's stack gets
    // that much on top of $CUDAJIT_CPU_STACK.
    // Throws CompileError when the library cannot be loaded or lacks the entry point.
    CpuKernel(const std::string& so_path, const std::string& entry, bool uses_barriers, size_t local_bytes = 0);

    // Runs the whole grid and returns when every block has finished (call without the GIL).
    // params[i] points at parameter i (16-byte aligned). Throws LaunchError for a configuration a
    // GPU would refuse, KernelRuntimeError when a thread traps or a block deadlocks at a barrier, and
    // what the interrupt check threw (set_interrupt_check) when it stopped the launch.
    // cooperative: every block runs at once (each on its own OS thread, its threads as fibers), so that
    // grid.sync() works; the grid may have at most max_cooperative_blocks blocks.
    void launch(Dim3 grid, Dim3 block, size_t dynamic_shared_bytes, void** params, bool cooperative = false) const;

    const std::string& entry() const { return entry_; }
    void* symbol(const std::string& name) const;  // an exported symbol of the library, or null
    bool uses_barriers() const { return uses_barriers_; }
    size_t fiber_stack_bytes() const { return fiber_stack_; }

private:
    std::shared_ptr<void> library_;  // the dlopen handle
    void (*fn_)(cj_cpu_state*) = nullptr;
    std::string entry_;
    std::string name_;  // for messages: the kernel's Python name where the entry reveals it
    bool uses_barriers_;
    size_t fiber_stack_;
    size_t local_bytes_;
};

// "cj_k_saxpy_3" -> "saxpy": a kernel's Python name from its entry point, for messages.
std::string python_kernel_name(const std::string& entry);

// Installs what a running launch calls on its launching thread every ~20 ms (without the GIL): it
// throws to stop the launch (Ctrl-C), which then unwinds its threads and rethrows from launch().
void set_interrupt_check(void (*check)());

// Installs where a launch writes what its threads print() (print.h): called on the launching thread without the GIL,
// every ~64 KiB of text while the launch runs and once when it ends. Without one, C's stdout.
void set_print_sink(void (*sink)(const char* text, size_t len));

// The most blocks a cooperative launch may have on the CPU backend: each is an OS thread for the launch and
// each of its threads a fiber, so at most kMaxCooperativeBlocks blocks and kMaxCooperativeThreads threads.
constexpr unsigned kMaxCooperativeBlocks = 256, kMaxCooperativeThreads = 16384;
unsigned max_cooperative_blocks(uint64_t threads_per_block);

// The number of OS threads that run blocks: $CUDAJIT_NUM_THREADS, else every core.
unsigned num_threads();

}  // namespace cj::cpu

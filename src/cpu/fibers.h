// Fiber contexts and their stacks: the switch (x86-64 assembly or ucontext), the stack arena, the OS stack.
// A private part of cpu_launch.cpp, which alone includes it, inside its anonymous namespace in cj::cpu (its own
// includes come first there): the CPU launcher is one translation unit, split by subject (fibers.h, job.h, worker.h,
// then the pool and the kernel in cpu_launch.cpp).
#pragma once

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
        // CUDAJIT_CPU_STACK (at least 16 KiB: python/cudajit/settings.py warns of anything else and passes 64 KiB)
        size_t n = std::max<size_t>(settings::current().cpu_stack, 16 * 1024);
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

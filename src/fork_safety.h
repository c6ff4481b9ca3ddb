// os.fork() while another thread compiles or loads a kernel: the child has only the forking thread, so a lock
// another thread held at the fork stays held for ever there, and the child's first compile waited on it (issue 37).
// A lock registered here is made anew, unlocked, in every child (pthread_atfork). What it guards is left as the
// fork found it: each such lock guards lookups and inserts of a registry or cache that are whole between any two
// instructions that matter (a std::map insert is not, but the child only ever reads the key it would insert again).
#pragma once
#include <atomic>
#include <mutex>

namespace cj {

// Registers `m` (a lock that is never destroyed) and returns it: `std::mutex& m = remade_after_fork(*new std::mutex);`.
std::mutex& remade_after_fork(std::mutex& m);

// Registers `m` (never destroyed) to be taken before every fork and released after it in parent and child: a fork
// waits until no thread holds it. For a lock around a library's calls whose own state a fork mid-call would leave
// locked in the child (NVRTC): the child then finds the library between calls. Its holders must never wait for the
// GIL (the forking thread holds it) nor fork.
std::mutex& held_across_fork(std::mutex& m);

// What a function-local static would hold, made once a process by `make()` (never destroyed), but safe across a fork:
// a static's guard, taken by a thread that was still making the value when another thread forked, stays taken for
// ever in the child, whose first use then waits for ever (a child's NVRTC load, issue 37). `m` is either
// held_across_fork (a fork waits until the making is done, for a library whose half-done load a child cannot use:
// NVRTC; its maker must not register an atfork handler, which would deadlock on glibc's lock that a fork holds
// while it waits) or remade_after_fork (a value whole before the fork is the child's too, one still being made is
// made again by the child's first use: the CUDA driver, whose load registers atfork handlers). A `make()` that throws
// leaves nothing made: the next call tries again, as a static's initialisation does.
template <class T, class Make>
const T& made_once(std::atomic<const T*>& slot, std::mutex& m, Make make) {
    if (const T* v = slot.load(std::memory_order_acquire)) return *v;
    std::lock_guard<std::mutex> lock(m);
    if (const T* v = slot.load(std::memory_order_relaxed)) return *v;
    const T* v = new T(make());
    slot.store(v, std::memory_order_release);
    return *v;
}

}  // namespace cj

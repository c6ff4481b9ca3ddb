// os.fork() while another thread compiles or loads a kernel: the child has only the forking thread, so a lock
// another thread held at the fork stays held for ever there, and the child's first compile waited on it (issue 37).
// A lock registered here is made anew, unlocked, in every child (pthread_atfork). What it guards is left as the
// fork found it: each such lock guards lookups and inserts of a registry or cache that are whole between any two
// instructions that matter (a std::map insert is not, but the child only ever reads the key it would insert again).
#pragma once
#include <mutex>

namespace cj {

// Registers `m` (a lock that is never destroyed) and returns it: `std::mutex& m = remade_after_fork(*new std::mutex);`.
std::mutex& remade_after_fork(std::mutex& m);

// Registers `m` (never destroyed) to be taken before every fork and released after it in parent and child: a fork
// waits until no thread holds it. For a lock around a library's calls whose own state a fork mid-call would leave
// locked in the child (NVRTC): the child then finds the library between calls. Its holders must never wait for the
// GIL (the forking thread holds it) nor fork.
std::mutex& held_across_fork(std::mutex& m);

}  // namespace cj

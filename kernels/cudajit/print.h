// cudajit runtime: print() as CJ_PRINTF(fmt, ...). The compiler builds the format string (%lld, %f, ...).
#pragma once
#include "config.h"

#if defined(CJ_GPU)
// CUDA's device printf: the output appears when the host synchronises.
#define CJ_PRINTF(...) printf(__VA_ARGS__)
#else
#include <cstdarg>
namespace cj {
// One printf and fflush under stdout's own lock: lines of concurrent threads never interleave, and the lock
// is process-wide (shared by every loaded kernel library, unlike a mutex defined in this header).
__attribute__((format(printf, 1, 2))) inline void cpu_printf(const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    flockfile(stdout);
    std::vprintf(fmt, args);
    std::fflush(stdout);
    funlockfile(stdout);
    va_end(args);
}
}  // namespace cj
#define CJ_PRINTF(...) ::cj::cpu_printf(__VA_ARGS__)
#endif

// cudajit runtime: print() as CJ_PRINTF(fmt, ...). The compiler builds the format string (%lld, %f, ...).
#pragma once
#include "config.h"

#if defined(CJ_GPU)
// CUDA's device printf: the output appears when the host synchronises.
#define CJ_PRINTF(...) printf(__VA_ARGS__)
#else
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
namespace cj {
// Where the CPU backend's print() text goes: thread.h installs one per kernel library that hands it to the running
// launch (which writes it to Python's sys.stdout, as the simulator's print() does). Without a hook (this header
// alone, or no launch running on this thread) the text goes to C's stdout.
inline bool (*cpu_print_hook)(const char* text, unsigned len) = nullptr;

// One call of the hook (or one fwrite under stdout's own lock) per print(): lines of concurrent threads never
// interleave.
__attribute__((format(printf, 1, 2))) inline void cpu_printf(const char* fmt, ...) {
    char small[512];
    char* text = small;
    va_list args, again;
    va_start(args, fmt);
    va_copy(again, args);
    int n = std::vsnprintf(small, sizeof small, fmt, args);
    if (n >= int(sizeof small)) {  // longer: format it again into a buffer of its size (or print it cut short)
        char* big = static_cast<char*>(std::malloc(size_t(n) + 1));
        if (big && std::vsnprintf(big, size_t(n) + 1, fmt, again) == n) text = big;
        else std::free(big), n = int(sizeof small) - 1;
    }
    va_end(again);
    va_end(args);
    if (n > 0 && !(cpu_print_hook && cpu_print_hook(text, unsigned(n)))) {
        flockfile(stdout);
        std::fwrite(text, 1, size_t(n), stdout);
        std::fflush(stdout);
        funlockfile(stdout);
    }
    if (text != small) std::free(text);
}
}  // namespace cj
#define CJ_PRINTF(...) ::cj::cpu_printf(__VA_ARGS__)
#endif

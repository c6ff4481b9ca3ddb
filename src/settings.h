// The CUDAJIT_* settings the core uses, as python/cudajit/settings.py read them from the environment and passed them
// (_core.set_settings, whenever their variables change): the core reads no environment variable of its own. Until
// Python passes them they hold the values of an empty environment, caching off (no folder is known yet).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace cj::settings {

struct Values {
    std::string cache_dir;                     // CUDAJIT_CACHE_DIR, or its default folder; "": no disk cache
    uint64_t cache_max = uint64_t{1} << 30;    // CUDAJIT_CACHE_MAX, bytes
    bool cpu_pch = true;                       // CUDAJIT_CPU_PCH
    unsigned num_threads = 0;                  // CUDAJIT_NUM_THREADS; 0: one per core
    size_t cpu_stack = 64 * 1024;              // CUDAJIT_CPU_STACK, bytes
    std::string cpu_sanitize;                  // CUDAJIT_CPU_SANITIZE: -fsanitize= names, "" for none
    bool ipc_pool = true;                      // CUDAJIT_IPC_POOL
    bool per_thread_default_stream = false;    // cudajit.config.CUDA_PER_THREAD_DEFAULT_STREAM (read at driver load)
};

// A copy of the values now (another thread may set new ones at any time: read each once per use).
Values current();
void set(Values values);

}  // namespace cj::settings

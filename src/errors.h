// C++ exceptions of the core. module.cpp translates each into the Python class of the same
// role defined in cudajit/errors.py, so Python code catches one hierarchy whatever raised it.
#pragma once
#include <stdexcept>
#include <string>

namespace cj {

// A driver call failed: CudaAPIError(call, code, name).
struct DriverError : std::runtime_error {
    std::string call;
    int code;
    std::string name;
    DriverError(std::string call_, int code_, std::string name_, const std::string& what)
        : std::runtime_error(what), call(std::move(call_)), code(code_), name(std::move(name_)) {}
};

// No driver, no device, or a GPU-only call under the CPU backend: CudaSupportError.
struct SupportError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// NVRTC or the host compiler rejected a source: CompileError (message holds the log).
struct CompileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A launch configuration the device cannot run: LaunchError.
struct LaunchError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A kernel failed while it ran (CPU backend: barrier deadlock, trap): KernelRuntimeError.
struct KernelRuntimeError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A recursive device function went deeper than its thread's stack holds (CPU backend): KernelRecursionError.
struct KernelRecursionError : KernelRuntimeError {
    using KernelRuntimeError::KernelRuntimeError;
};

// An operation that cannot be recorded into a CUDA graph while a stream is being captured: StreamCaptureError.
struct CaptureError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// An allocation the system or the device cannot satisfy: MemoryError naming the bytes asked for
// (what std::bad_alloc cannot say).
struct OutOfMemory : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace cj

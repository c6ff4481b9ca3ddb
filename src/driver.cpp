#include "driver.h"
#include "fork_safety.h"
#include "gil.h"
#include "settings.h"

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>

namespace cj::drv {
namespace {

struct Loaded {
    Api api;
    bool ok = false;
    std::string why;   // set when !ok
    std::string path;  // the libcuda file loaded, when one was
};

// Set in a process forked after this one initialised the driver: CUDA does not survive fork(), its calls in the
// child fail (or worse), so none is made there. The pid of the process that initialised it, for the message.
std::atomic<bool> g_forked{false};
pid_t g_init_pid = 0;

#define CJ_DECLARE_GET_PROC(name, symbol, params) using GetProcAddressFn = CUresult(*) params;
CJ_DRIVER_GET_PROC_ADDRESS(CJ_DECLARE_GET_PROC)
#undef CJ_DECLARE_GET_PROC

Loaded load() {
    Loaded L;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (lib) drain_native_calls_at_exit();  // before libcuda's destructors (gil.h)
    if (!lib) {
        L.why = "the CUDA driver (libcuda.so.1) was not found: no NVIDIA driver is installed on this machine";
        return L;
    }
    auto get_version = reinterpret_cast<CUresult (*)(int*)>(dlsym(lib, "cuDriverGetVersion"));
    auto get_proc = reinterpret_cast<GetProcAddressFn>(dlsym(lib, "cuGetProcAddress_v2"));
    if (get_version) {
        Dl_info info;
        if (dladdr(reinterpret_cast<void*>(get_version), &info) && info.dli_fname)
            L.path = info.dli_fname;
    }
    if (!get_version || !get_proc || get_version(&L.api.driver_version) != CUDA_SUCCESS) {
        L.why = "the CUDA driver found is too old: cudajit needs a driver for CUDA 12.0 or newer";
        return L;
    }
    // Ask for the entry points of the API version cuda_api.h describes, or the driver's if older.
    int version = std::min(L.api.driver_version, CJ_CUDA_API_VERSION);
    bool all = true;
    std::string missing;
    // Each entry point is taken by the exact symbol cuda_api.h names (cuMemAlloc → "cuMemAlloc_v2"),
    // so its ABI matches the pointer type. cuGetProcAddress(name, version) is only the fallback:
    // it hands back the newest ABI of that version, which can differ from the declared one
    // (CUDA 13.0 answers "cuCtxSynchronize" with cuCtxSynchronize_v2(CUcontext)).
    // numba-cuda's per-thread default stream mode (cudajit.config.CUDA_PER_THREAD_DEFAULT_STREAM, from its
    // NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM or cuda-python's CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM, passed in
    // the settings): what nvcc --default-stream per-thread does, the driver's _ptsz (stream argument) and _ptds
    // (implicit default stream) variant of each entry point that has one.
    L.api.per_thread_default_stream = settings::current().per_thread_default_stream;
    const bool ptds = L.api.per_thread_default_stream;
#define CJ_LOAD_DRIVER_FN(name, symbol, params)                                               \
    {                                                                                         \
        void* p = ptds ? dlsym(lib, #symbol "_ptsz") : nullptr;                               \
        if (!p && ptds) p = dlsym(lib, #symbol "_ptds");                                      \
        if (!p) p = dlsym(lib, #symbol);                                                      \
        CUdriverProcAddressQueryResult status;                                                \
        if (!p && (get_proc(#name, &p, version, CU_GET_PROC_ADDRESS_DEFAULT, &status) !=      \
                       CUDA_SUCCESS ||                                                        \
                   !p)) {                                                                     \
            if (missing.empty()) missing = #symbol;                                           \
            all = false;                                                                      \
        }                                                                                     \
        L.api.name = reinterpret_cast<decltype(L.api.name)>(p);                               \
    }
    CJ_DRIVER_API(CJ_LOAD_DRIVER_FN)
#undef CJ_LOAD_DRIVER_FN
    if (!all) {
        L.why = "the CUDA driver lacks " + missing + " (driver version " +
                std::to_string(L.api.driver_version) + "): update the NVIDIA driver";
        return L;
    }
    CUresult r = L.api.cuInit(0);
    if (r != CUDA_SUCCESS) {
        const char* name = nullptr;
        L.api.cuGetErrorName(r, &name);
        L.why = std::string("cuInit failed with ") + (name ? name : "an unknown error") +
                (r == CUDA_ERROR_NO_DEVICE ? ": no CUDA-capable GPU is visible" : "");
        return L;
    }
    int count = 0;
    if (L.api.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
        L.why = "the CUDA driver is installed but reports no GPU";
        return L;
    }
    L.ok = true;
    g_init_pid = getpid();
    pthread_atfork(nullptr, nullptr, [] { g_forked.store(true, std::memory_order_relaxed); });
    return L;
}

[[noreturn]] void refuse_forked() {
    // numba-cuda's CudaDriverError says the same (its test looks for these words).
    throw DriverError("fork", 3, "CUDA_ERROR_NOT_INITIALIZED",
                      "CUDA initialized before forking: process " + std::to_string(getpid()) +
                          " was forked from process " + std::to_string(g_init_pid) +
                          " after that one had initialised CUDA, and CUDA does not work in a forked child. "
                          "Start worker processes with multiprocessing's 'spawn' (or 'forkserver') method, or "
                          "fork before the first use of the GPU");
}

// The driver's load and cuInit, once (made_once, fork_safety.h: a child forked during them does them again).
std::mutex& g_load_mutex = remade_after_fork(*new std::mutex);
std::atomic<const Loaded*> g_loaded{nullptr};

const Loaded& loaded() { return made_once(g_loaded, g_load_mutex, load); }  // never destroyed (interpreter exit)

}  // namespace

const Api& api() {
    const Loaded& L = loaded();
    if (!L.ok) throw SupportError("CUDA is not available: " + L.why);
    if (g_forked.load(std::memory_order_relaxed)) refuse_forked();
    return L.api;
}

Info info() {
    const Loaded& L = loaded();
    return {!L.path.empty(), L.ok, L.path, L.api.driver_version, L.why};
}

bool per_thread_default_stream() {
    const Loaded& L = loaded();
    return L.ok && L.api.per_thread_default_stream;
}

bool available(std::string* why) {
    const Loaded& L = loaded();
    if (!L.ok && why) *why = L.why;
    if (L.ok && g_forked.load(std::memory_order_relaxed)) {
        // What a forked child holds of its parent's GPU objects is dropped without a driver call.
        if (why) *why = "this process was forked after its parent had initialised CUDA";
        return false;
    }
    return L.ok;
}

void check(CUresult r, const char* call) {
    if (r == CUDA_SUCCESS) return;
    const char* name = nullptr;
    const char* text = nullptr;
    const Api& a = loaded().api;
    if (a.cuGetErrorName) a.cuGetErrorName(r, &name);
    if (a.cuGetErrorString) a.cuGetErrorString(r, &text);
    std::string n = name ? name : "CUDA_ERROR_UNKNOWN";
    throw DriverError(call, static_cast<int>(r), n,
                      std::string(call) + " failed: [" + std::to_string(static_cast<int>(r)) + "] " +
                          n + (text ? std::string(": ") + text : std::string()));
}

bool host_memory_known(const void* host) {
    return pointer_info(reinterpret_cast<CUdeviceptr>(host)).memory_type != 0;
}

PointerInfo pointer_info(CUdeviceptr ptr) {
    PointerInfo info;
    CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                        CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                        CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    void* data[] = {&info.memory_type, &info.managed, &info.device, &info.start, &info.size};
    if (api().cuPointerGetAttributes(5, attributes, data, ptr) != CUDA_SUCCESS || info.memory_type == 0)
        return PointerInfo{};
    return info;
}

}  // namespace cj::drv

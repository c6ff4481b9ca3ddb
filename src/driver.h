// The CUDA driver, loaded at run time (dlopen libcuda.so.1; entry points declared in cuda_api.h),
// so that the module imports and the CPU backend works on machines with no driver at all.
#pragma once
#include <string>

#include "cuda_api.h"
#include "errors.h"

namespace cj::drv {

struct Api {
// One pointer per entry point of cuda_api.h, named as the API names it (api().cuMemAlloc).
#define CJ_DECLARE_DRIVER_FN(name, symbol, params) CUresult(*name) params = nullptr;
    CJ_DRIVER_API(CJ_DECLARE_DRIVER_FN)
#undef CJ_DECLARE_DRIVER_FN
    int driver_version = 0;
    // The entry points are the driver's per-thread default stream variants (cuLaunchKernel_ptsz, ...): stream 0
    // means the calling thread's default stream (numba-cuda's NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM=1).
    bool per_thread_default_stream = false;
};

// Loads the driver and calls cuInit on first use. Throws SupportError saying why it cannot.
const Api& api();

// What the loader found, for reports (python -m cudajit): never throws.
struct Info {
    bool found = false;      // a libcuda was loaded
    bool usable = false;     // ... and it initialised and reports a GPU
    std::string path;        // the libcuda file, when found
    int version = 0;         // cuDriverGetVersion, e.g. 13000; 0 when unknown
    std::string why;         // why it is not usable
};
Info info();

// Whether stream 0 is the per-thread default stream (false when no driver is loaded). Never throws.
bool per_thread_default_stream();

// True when a driver loads, initialises and reports at least one device; else false and *why.
bool available(std::string* why);

// Throws DriverError("cuXxx", code, "CUDA_ERROR_...") unless r == CUDA_SUCCESS.
void check(CUresult r, const char* call);

// True for host memory CUDA knows (pinned, registered, mapped, managed: the DMA reads it directly, and a copy of it
// can be asynchronous or captured); false for pageable memory. A context must be current.
bool host_memory_known(const void* host);

// What the driver knows of an address, from one cuPointerGetAttributes call. Unlike cuPointerGetAttribute, that
// call answers for any address (zeros for memory CUDA does not know) instead of failing: classifying a pageable
// host pointer must not provoke a CUDA error, which compute-sanitizer reports in the user's program. All zeros
// (device -1) for memory CUDA does not know, or when the call fails. A context must be current.
struct PointerInfo {
    unsigned memory_type = 0;  // CU_MEMORYTYPE_*: 1 host, 2 device, 3 array, 4 unified; 0 unknown to CUDA
    unsigned managed = 0;      // nonzero for managed memory
    int device = -1;           // the device ordinal
    CUdeviceptr start = 0;     // the allocation's range [start, start + size)
    size_t size = 0;
};
PointerInfo pointer_info(CUdeviceptr ptr);

}  // namespace cj::drv

// CJ_CU(cuMemAlloc, &p, n): look the entry point up in the loaded table, call it, check it.
#define CJ_CU(fn, ...) ::cj::drv::check(::cj::drv::api().fn(__VA_ARGS__), #fn)

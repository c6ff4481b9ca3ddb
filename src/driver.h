// The CUDA driver, loaded at run time (dlopen libcuda.so.1 + cuGetProcAddress), so that the
// module imports and the CPU backend works on machines with no driver at all.
#pragma once
#include <cuda.h>
#include <string>

#include "errors.h"

// Every driver entry point the core uses. Add one here and it is loaded with the rest.
#define CJ_DRIVER_FUNCTIONS(X)                                                                  \
    X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString)                       \
    X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute)               \
    X(cuDeviceTotalMem) X(cuDeviceGetUuid) X(cuDeviceGetPCIBusId)                               \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuDevicePrimaryCtxReset)         \
    X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuCtxSynchronize) X(cuCtxGetDevice)                 \
    X(cuMemGetInfo) X(cuMemAlloc) X(cuMemFree) X(cuMemAllocAsync) X(cuMemFreeAsync)             \
    X(cuDeviceGetDefaultMemPool) X(cuMemPoolSetAttribute) X(cuMemPoolTrimTo)                    \
    X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemHostGetDevicePointer)                             \
    X(cuMemHostRegister) X(cuMemHostUnregister) X(cuMemAllocManaged)                            \
    X(cuMemcpyAsync) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync)             \
    X(cuMemcpy2DAsync) X(cuMemsetD8Async) X(cuPointerGetAttribute)                              \
    X(cuStreamCreate) X(cuStreamCreateWithPriority) X(cuStreamDestroy) X(cuStreamSynchronize)   \
    X(cuStreamQuery) X(cuStreamWaitEvent) X(cuLaunchHostFunc)                                   \
    X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize) X(cuEventQuery)   \
    X(cuEventElapsedTime)                                                                       \
    X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction) X(cuModuleGetGlobal)        \
    X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuLaunchKernel) X(cuLaunchCooperativeKernel)   \
    X(cuOccupancyMaxPotentialBlockSize) X(cuOccupancyMaxActiveBlocksPerMultiprocessor)

namespace cj::drv {

struct Api {
#define CJ_DECLARE_DRIVER_FN(fn) decltype(&::fn) fn = nullptr;
    CJ_DRIVER_FUNCTIONS(CJ_DECLARE_DRIVER_FN)
#undef CJ_DECLARE_DRIVER_FN
    int driver_version = 0;
};

// Loads the driver and calls cuInit on first use. Throws SupportError saying why it cannot.
const Api& api();

// True when a driver loads, initialises and reports at least one device; else false and *why.
bool available(std::string* why);

// Throws DriverError("cuXxx", code, "CUDA_ERROR_...") unless r == CUDA_SUCCESS.
void check(CUresult r, const char* call);

}  // namespace cj::drv

// CJ_CU(cuMemAlloc, &p, n): look the entry point up in the loaded table, call it, check it.
#define CJ_CU(fn, ...) ::cj::drv::check(::cj::drv::api().fn(__VA_ARGS__), #fn)

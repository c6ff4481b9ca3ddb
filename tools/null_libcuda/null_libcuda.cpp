// A null CUDA driver (libcuda.so.1) for timing cudajit's own host path without a GPU: device memory is host memory,
// copies are memcpy, launches do nothing. benchmarks/host_path.py builds and uses it; never for correctness.
#include "../../src/cuda_api.h"
#include <chrono>
#include <cstdlib>
#include <cstring>
extern "C" {
static thread_local CUcontext t_ctx = nullptr;
CUresult cuDriverGetVersion(int* v) { *v = 13000; return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult, const char** n) { *n = "CUDA_ERROR_NULL"; return CUDA_SUCCESS; }
CUresult cuGetErrorString(CUresult, const char** n) { *n = "null driver"; return CUDA_SUCCESS; }
CUresult cuDeviceGetCount(int* n) { *n = 1; return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice* d, int o) { *d = o; return CUDA_SUCCESS; }
CUresult cuDeviceGetName(char* name, int cap, CUdevice) { std::strncpy(name, "Null GPU", cap); return CUDA_SUCCESS; }
CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice) {
    switch (a) {
        case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
        case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *v = 1024; break;
        case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *v = 64; break;
        case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 2147483647; break;
        case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *v = 65535; break;
        case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 49152; break;
        case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
        case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
        case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
        case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = 2048; break;
        default: *v = 1;
    }
    return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem_v2(size_t* b, CUdevice) { *b = size_t{80} << 30; return CUDA_SUCCESS; }
CUresult cuDeviceGetUuid_v2(CUuuid* u, CUdevice) { std::memset(u, 0, sizeof *u); return CUDA_SUCCESS; }
CUresult cuDeviceGetPCIBusId(char* s, int cap, CUdevice) { std::strncpy(s, "0000:00:00.0", cap); return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice) { *c = reinterpret_cast<CUcontext>(0x1000); return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { t_ctx = c; return CUDA_SUCCESS; }
CUresult cuCtxGetCurrent(CUcontext* c) { *c = t_ctx; return CUDA_SUCCESS; }
CUresult cuCtxGetDevice(CUdevice* d) { *d = 0; return CUDA_SUCCESS; }
CUresult cuMemGetInfo_v2(size_t* f, size_t* t) { *f = size_t{70} << 30; *t = size_t{80} << 30; return CUDA_SUCCESS; }
static CUresult alloc(CUdeviceptr* p, size_t n) { *p = reinterpret_cast<CUdeviceptr>(std::aligned_alloc(256, (n + 255) / 256 * 256 + 256)); return CUDA_SUCCESS; }
CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t n) { return alloc(p, n); }
CUresult cuMemAllocAsync(CUdeviceptr* p, size_t n, CUstream) { return alloc(p, n); }
CUresult cuMemAllocManaged(CUdeviceptr* p, size_t n, unsigned) { return alloc(p, n); }
CUresult cuMemAllocFromPoolAsync(CUdeviceptr* p, size_t n, CUmemoryPool, CUstream) { return alloc(p, n); }
CUresult cuMemFree_v2(CUdeviceptr p) { std::free(reinterpret_cast<void*>(p)); return CUDA_SUCCESS; }
CUresult cuMemFreeAsync(CUdeviceptr p, CUstream) { std::free(reinterpret_cast<void*>(p)); return CUDA_SUCCESS; }
CUresult cuMemHostAlloc(void** p, size_t n, unsigned) { *p = std::aligned_alloc(4096, (n + 4095) / 4096 * 4096 + 4096); return CUDA_SUCCESS; }
CUresult cuMemFreeHost(void* p) { std::free(p); return CUDA_SUCCESS; }
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* d, void* h, unsigned) { *d = reinterpret_cast<CUdeviceptr>(h); return CUDA_SUCCESS; }
CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream) { std::memcpy((void*)d, (void*)s, n); return CUDA_SUCCESS; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void* s, size_t n, CUstream) { std::memcpy((void*)d, s, n); return CUDA_SUCCESS; }
CUresult cuMemcpyDtoHAsync_v2(void* d, CUdeviceptr s, size_t n, CUstream) { std::memcpy(d, (void*)s, n); return CUDA_SUCCESS; }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream) { std::memmove((void*)d, (void*)s, n); return CUDA_SUCCESS; }
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream) { std::memset((void*)d, v, n); return CUDA_SUCCESS; }
CUresult cuPointerGetAttribute(void*, CUpointer_attribute, CUdeviceptr) { return static_cast<CUresult>(1); }
static long g_handles = 0x10000;
CUresult cuStreamCreate(CUstream* s, unsigned) { *s = reinterpret_cast<CUstream>(g_handles += 16); return CUDA_SUCCESS; }
CUresult cuStreamCreateWithPriority(CUstream* s, unsigned, int) { *s = reinterpret_cast<CUstream>(g_handles += 16); return CUDA_SUCCESS; }
CUresult cuStreamIsCapturing(CUstream, CUstreamCaptureStatus* st) { *st = CU_STREAM_CAPTURE_STATUS_NONE; return CUDA_SUCCESS; }
CUresult cuEventCreate(CUevent* e, unsigned) { *e = reinterpret_cast<CUevent>(new double(0)); return CUDA_SUCCESS; }
CUresult cuEventDestroy_v2(CUevent e) { delete reinterpret_cast<double*>(e); return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent e, CUstream) {
    *reinterpret_cast<double*>(e) = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
    return CUDA_SUCCESS;
}
CUresult cuEventElapsedTime_v2(float* ms, CUevent s, CUevent e) { *ms = float(*reinterpret_cast<double*>(e) - *reinterpret_cast<double*>(s)); return CUDA_SUCCESS; }
CUresult cuModuleLoadDataEx(CUmodule* m, const void*, unsigned, CUjit_option*, void**) { *m = reinterpret_cast<CUmodule>(g_handles += 16); return CUDA_SUCCESS; }
CUresult cuModuleGetFunction(CUfunction* f, CUmodule, const char*) { *f = reinterpret_cast<CUfunction>(g_handles += 16); return CUDA_SUCCESS; }
CUresult cuModuleGetGlobal_v2(CUdeviceptr* p, size_t* b, CUmodule, const char*) { alloc(p, 4096); std::memset((void*)*p, 0, 4096); if (b) *b = 4096; return CUDA_SUCCESS; }
CUresult cuFuncGetAttribute(int* v, CUfunction_attribute a, CUfunction) { *v = a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024 : 0; return CUDA_SUCCESS; }
CUresult cuOccupancyMaxPotentialBlockSize(int* g, int* b, CUfunction, CUoccupancyB2DSize, size_t, int) { *g = 264; *b = 1024; return CUDA_SUCCESS; }
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, CUfunction, int, size_t) { *n = 2; return CUDA_SUCCESS; }
// NVRTC opens libcuda.so.1 too and asks for this; "not supported" sends it down its path without a driver.
CUresult cuGetExportTable(const void** t, const void*) { *t = nullptr; return static_cast<CUresult>(801); }
}

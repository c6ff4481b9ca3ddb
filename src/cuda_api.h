// The part of the CUDA driver API and of NVRTC that the core calls, declared here so that the
// build needs no CUDA toolkit: both libraries are loaded with dlopen at run time (driver.cpp,
// nvrtc.cpp). Written from NVIDIA's API reference; a toolkit's cuda.h/nvrtc.h are never
// included, so a build with and without a toolkit is the same. tests/test_install.py compiles
// this header against the toolkit's, where one is present, and checks every value and signature.
//
// Each function is listed once, as X(name, symbol, (parameters)): `name` is what the core calls
// (api().cuMemAlloc), `symbol` the library's exported name with the ABI these parameters
// describe (cuMemAlloc's 64-bit ABI is exported as cuMemAlloc_v2). All return CUresult
// (driver) or nvrtcResult (NVRTC).
#pragma once
#include <cstddef>
#include <cstdint>

// The CUDA version whose driver ABI the signatures below follow (CUDA 13.0). The loader asks
// cuGetProcAddress for this version (or the driver's, if older) when a symbol is not exported.
#define CJ_CUDA_API_VERSION 13000

// ---- driver: handles and scalar types ----
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;  // 64-bit device address (the _v2 ABI)
typedef uint64_t cuuint64_t;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;
typedef struct CUevent_st* CUevent;
typedef struct CUmemPoolHandle_st* CUmemoryPool;
typedef struct CUgraph_st* CUgraph;
typedef struct CUgraphExec_st* CUgraphExec;
typedef struct CUgraphNode_st* CUgraphNode;
typedef struct CUuuid_st {
    char bytes[16];
} CUuuid;
typedef struct CUipcMemHandle_st {  // a legacy IPC handle (cuIpcGetMemHandle), passed by value
    char reserved[64];
} CUipcMemHandle;
typedef struct CUmemPoolPtrExportData_st {  // one pool allocation, as cuMemPoolExportPointer describes it
    unsigned char reserved[64];
} CUmemPoolPtrExportData;
typedef void (*CUhostFn)(void* user_data);
typedef size_t (*CUoccupancyB2DSize)(int block_size);

// ---- driver: result codes (only those the core tests for; any other value passes through) ----
typedef enum CUresult_enum : int {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
    CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
    CUDA_ERROR_UNKNOWN = 999,
} CUresult;

// ---- driver: enumerations passed to the API ----
// Device attributes (CU_DEVICE_ATTRIBUTE_<name> = value) that the core reads or exposes.
#define CJ_CU_DEVICE_ATTRIBUTES(X)                                                                 \
    X(MAX_THREADS_PER_BLOCK, 1) X(MAX_BLOCK_DIM_X, 2) X(MAX_BLOCK_DIM_Y, 3)                        \
    X(MAX_BLOCK_DIM_Z, 4) X(MAX_GRID_DIM_X, 5) X(MAX_GRID_DIM_Y, 6) X(MAX_GRID_DIM_Z, 7)           \
    X(MAX_SHARED_MEMORY_PER_BLOCK, 8) X(TOTAL_CONSTANT_MEMORY, 9) X(WARP_SIZE, 10)                 \
    X(MAX_PITCH, 11) X(MAX_REGISTERS_PER_BLOCK, 12) X(CLOCK_RATE, 13)                              \
    X(MULTIPROCESSOR_COUNT, 16) X(KERNEL_EXEC_TIMEOUT, 17) X(INTEGRATED, 18)                       \
    X(CAN_MAP_HOST_MEMORY, 19) X(COMPUTE_MODE, 20) X(CONCURRENT_KERNELS, 31) X(ECC_ENABLED, 32)    \
    X(PCI_BUS_ID, 33) X(PCI_DEVICE_ID, 34) X(TCC_DRIVER, 35) X(MEMORY_CLOCK_RATE, 36)              \
    X(GLOBAL_MEMORY_BUS_WIDTH, 37) X(L2_CACHE_SIZE, 38) X(MAX_THREADS_PER_MULTIPROCESSOR, 39)      \
    X(ASYNC_ENGINE_COUNT, 40) X(UNIFIED_ADDRESSING, 41) X(PCI_DOMAIN_ID, 50)                       \
    X(COMPUTE_CAPABILITY_MAJOR, 75) X(COMPUTE_CAPABILITY_MINOR, 76)                                \
    X(STREAM_PRIORITIES_SUPPORTED, 78) X(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 81)                 \
    X(MAX_REGISTERS_PER_MULTIPROCESSOR, 82) X(MANAGED_MEMORY, 83) X(MULTI_GPU_BOARD, 84)           \
    X(SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO, 87) X(PAGEABLE_MEMORY_ACCESS, 88)                     \
    X(CONCURRENT_MANAGED_ACCESS, 89) X(COMPUTE_PREEMPTION_SUPPORTED, 90)                           \
    X(COOPERATIVE_LAUNCH, 95) X(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 97)                             \
    X(MAX_BLOCKS_PER_MULTIPROCESSOR, 106) X(MEMORY_POOLS_SUPPORTED, 115) X(MEMPOOL_SUPPORTED_HANDLE_TYPES, 119)     \
    X(CLUSTER_LAUNCH, 120)
typedef enum CUdevice_attribute_enum : int {
#define CJ_CU_DEVICE_ATTRIBUTE_ENUMERATOR(name, value) CU_DEVICE_ATTRIBUTE_##name = value,
    CJ_CU_DEVICE_ATTRIBUTES(CJ_CU_DEVICE_ATTRIBUTE_ENUMERATOR)
#undef CJ_CU_DEVICE_ATTRIBUTE_ENUMERATOR
} CUdevice_attribute;

typedef enum CUfunction_attribute_enum : int {
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
} CUfunction_attribute;

typedef enum CUjit_option_enum : int {
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
} CUjit_option;

typedef enum CUpointer_attribute_enum : int {
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
    CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
    CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
    CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE = 17,
} CUpointer_attribute;

typedef enum CUmemPool_attribute_enum : int {
    CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
} CUmemPool_attribute;

// Memory pools with IPC (cuMemPoolCreate's properties; the rest of each enumeration is not used).
typedef enum CUmemAllocationType_enum : int {
    CU_MEM_ALLOCATION_TYPE_PINNED = 1,
} CUmemAllocationType;
typedef enum CUmemAllocationHandleType_enum : int {
    CU_MEM_HANDLE_TYPE_NONE = 0,
    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1,
} CUmemAllocationHandleType;
typedef enum CUmemLocationType_enum : int {
    CU_MEM_LOCATION_TYPE_DEVICE = 1,
} CUmemLocationType;
typedef enum CUmemAccess_flags_enum : int {
    CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3,
} CUmemAccess_flags;
typedef struct CUmemLocation_st {
    CUmemLocationType type;
    int id;
} CUmemLocation;
typedef struct CUmemAccessDesc_st {
    CUmemLocation location;
    CUmemAccess_flags flags;
} CUmemAccessDesc;
typedef struct CUmemPoolProps_st {
    CUmemAllocationType allocType;
    CUmemAllocationHandleType handleTypes;
    CUmemLocation location;
    void* win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
} CUmemPoolProps;

typedef enum CUstreamCaptureStatus_enum : int {
    CU_STREAM_CAPTURE_STATUS_NONE = 0,
    CU_STREAM_CAPTURE_STATUS_ACTIVE = 1,
    CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2,
} CUstreamCaptureStatus;

typedef enum CUstreamCaptureMode_enum : int {
    CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
    CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
    CU_STREAM_CAPTURE_MODE_RELAXED = 2,
} CUstreamCaptureMode;

typedef enum CUgraphNodeType_enum : int {
    CU_GRAPH_NODE_TYPE_KERNEL = 0,     // the rest are compared, never named (graph.cpp: an update's precondition)
} CUgraphNodeType;

typedef enum CUgraphExecUpdateResult_enum : int {
    CU_GRAPH_EXEC_UPDATE_SUCCESS = 0,
} CUgraphExecUpdateResult;
typedef struct CUgraphExecUpdateResultInfo_st {
    CUgraphExecUpdateResult result;
    CUgraphNode errorNode;
    CUgraphNode errorFromNode;
} CUgraphExecUpdateResultInfo;

typedef enum CUdriverProcAddressQueryResult_enum : int {
    CU_GET_PROC_ADDRESS_SUCCESS = 0,
} CUdriverProcAddressQueryResult;

// Flags (plain unsigned int parameters in the API).
enum : unsigned int {
    CU_GET_PROC_ADDRESS_DEFAULT = 0,
    CU_EVENT_DEFAULT = 0,
    CU_EVENT_DISABLE_TIMING = 2,
    CU_MEM_ATTACH_GLOBAL = 1,
    CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1,
};
#define CU_MEMHOSTALLOC_PORTABLE 1u
#define CU_MEMHOSTALLOC_DEVICEMAP 2u
#define CU_MEMHOSTREGISTER_PORTABLE 1u
#define CU_MEMHOSTREGISTER_DEVICEMAP 2u
// The two special stream handles: the legacy default stream and the per-thread default stream.
#define CU_STREAM_LEGACY (reinterpret_cast<CUstream>(uintptr_t{1}))
#define CU_STREAM_PER_THREAD (reinterpret_cast<CUstream>(uintptr_t{2}))

// ---- driver: the entry points the core uses ----
#define CJ_DRIVER_API(X)                                                                         \
    X(cuInit, cuInit, (unsigned int flags))                                                      \
    X(cuDriverGetVersion, cuDriverGetVersion, (int* version))                                    \
    X(cuGetErrorName, cuGetErrorName, (CUresult error, const char** name))                       \
    X(cuGetErrorString, cuGetErrorString, (CUresult error, const char** text))                   \
    X(cuDeviceGetCount, cuDeviceGetCount, (int* count))                                          \
    X(cuDeviceGet, cuDeviceGet, (CUdevice* device, int ordinal))                                 \
    X(cuDeviceGetName, cuDeviceGetName, (char* name, int capacity, CUdevice device))             \
    X(cuDeviceGetAttribute, cuDeviceGetAttribute,                                                \
      (int* value, CUdevice_attribute attribute, CUdevice device))                               \
    X(cuDeviceTotalMem, cuDeviceTotalMem_v2, (size_t* bytes, CUdevice device))                   \
    X(cuDeviceGetUuid, cuDeviceGetUuid_v2, (CUuuid* uuid, CUdevice device))                      \
    X(cuDeviceGetPCIBusId, cuDeviceGetPCIBusId, (char* bus_id, int capacity, CUdevice device))   \
    X(cuDeviceCanAccessPeer, cuDeviceCanAccessPeer, (int* can, CUdevice device, CUdevice peer))  \
    X(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, (CUcontext* context, CUdevice device)) \
    X(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2, (CUdevice device))                \
    X(cuDevicePrimaryCtxReset, cuDevicePrimaryCtxReset_v2, (CUdevice device))                    \
    X(cuCtxSetCurrent, cuCtxSetCurrent, (CUcontext context))                                     \
    X(cuCtxGetCurrent, cuCtxGetCurrent, (CUcontext* context))                                    \
    X(cuCtxSynchronize, cuCtxSynchronize, ())                                                    \
    X(cuCtxGetDevice, cuCtxGetDevice, (CUdevice* device))                                        \
    X(cuMemGetInfo, cuMemGetInfo_v2, (size_t* free_bytes, size_t* total_bytes))                  \
    X(cuMemAlloc, cuMemAlloc_v2, (CUdeviceptr* ptr, size_t bytes))                               \
    X(cuMemFree, cuMemFree_v2, (CUdeviceptr ptr))                                                \
    X(cuMemAllocAsync, cuMemAllocAsync, (CUdeviceptr* ptr, size_t bytes, CUstream stream))       \
    X(cuMemFreeAsync, cuMemFreeAsync, (CUdeviceptr ptr, CUstream stream))                        \
    X(cuDeviceGetDefaultMemPool, cuDeviceGetDefaultMemPool,                                      \
      (CUmemoryPool* pool, CUdevice device))                                                     \
    X(cuMemPoolSetAttribute, cuMemPoolSetAttribute,                                              \
      (CUmemoryPool pool, CUmemPool_attribute attribute, void* value))                           \
    X(cuMemPoolTrimTo, cuMemPoolTrimTo, (CUmemoryPool pool, size_t keep_bytes))                  \
    X(cuMemPoolCreate, cuMemPoolCreate, (CUmemoryPool* pool, const CUmemPoolProps* props))       \
    X(cuMemPoolDestroy, cuMemPoolDestroy, (CUmemoryPool pool))                                   \
    X(cuMemAllocFromPoolAsync, cuMemAllocFromPoolAsync,                                          \
      (CUdeviceptr* ptr, size_t bytes, CUmemoryPool pool, CUstream stream))                      \
    X(cuMemPoolExportToShareableHandle, cuMemPoolExportToShareableHandle,                        \
      (void* handle, CUmemoryPool pool, CUmemAllocationHandleType type, unsigned long long flags)) \
    X(cuMemPoolImportFromShareableHandle, cuMemPoolImportFromShareableHandle,                    \
      (CUmemoryPool* pool, void* handle, CUmemAllocationHandleType type, unsigned long long flags)) \
    X(cuMemPoolExportPointer, cuMemPoolExportPointer, (CUmemPoolPtrExportData* data, CUdeviceptr ptr)) \
    X(cuMemPoolImportPointer, cuMemPoolImportPointer,                                            \
      (CUdeviceptr* ptr, CUmemoryPool pool, CUmemPoolPtrExportData* data))                       \
    X(cuMemPoolGetAccess, cuMemPoolGetAccess,                                                    \
      (CUmemAccess_flags* flags, CUmemoryPool pool, CUmemLocation* location))                    \
    X(cuMemPoolSetAccess, cuMemPoolSetAccess,                                                    \
      (CUmemoryPool pool, const CUmemAccessDesc* access, size_t count))                          \
    X(cuMemGetAddressRange, cuMemGetAddressRange_v2, (CUdeviceptr* base, size_t* bytes, CUdeviceptr ptr)) \
    X(cuIpcGetMemHandle, cuIpcGetMemHandle, (CUipcMemHandle* handle, CUdeviceptr ptr))           \
    X(cuIpcOpenMemHandle, cuIpcOpenMemHandle_v2,                                                 \
      (CUdeviceptr* ptr, CUipcMemHandle handle, unsigned int flags))                             \
    X(cuIpcCloseMemHandle, cuIpcCloseMemHandle, (CUdeviceptr ptr))                               \
    X(cuMemHostAlloc, cuMemHostAlloc, (void** ptr, size_t bytes, unsigned int flags))            \
    X(cuMemFreeHost, cuMemFreeHost, (void* ptr))                                                 \
    X(cuMemHostGetDevicePointer, cuMemHostGetDevicePointer_v2,                                   \
      (CUdeviceptr* device_ptr, void* host_ptr, unsigned int flags))                             \
    X(cuMemHostRegister, cuMemHostRegister_v2, (void* ptr, size_t bytes, unsigned int flags))    \
    X(cuMemHostUnregister, cuMemHostUnregister, (void* ptr))                                     \
    X(cuMemAllocManaged, cuMemAllocManaged,                                                      \
      (CUdeviceptr* ptr, size_t bytes, unsigned int flags))                                      \
    X(cuMemcpyAsync, cuMemcpyAsync,                                                              \
      (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream))                         \
    X(cuMemcpyPeer, cuMemcpyPeer,                                                                \
      (CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src, CUcontext src_context, size_t bytes)) \
    X(cuMemcpyPeerAsync, cuMemcpyPeerAsync,                                                      \
      (CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src, CUcontext src_context, size_t bytes, \
       CUstream stream))                                                                         \
    X(cuMemcpyHtoDAsync, cuMemcpyHtoDAsync_v2,                                                   \
      (CUdeviceptr dst, const void* src, size_t bytes, CUstream stream))                         \
    X(cuMemcpyDtoHAsync, cuMemcpyDtoHAsync_v2,                                                   \
      (void* dst, CUdeviceptr src, size_t bytes, CUstream stream))                               \
    X(cuMemcpyDtoDAsync, cuMemcpyDtoDAsync_v2,                                                   \
      (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream))                         \
    X(cuMemsetD8Async, cuMemsetD8Async,                                                          \
      (CUdeviceptr dst, unsigned char value, size_t count, CUstream stream))                     \
    X(cuPointerGetAttribute, cuPointerGetAttribute,                                              \
      (void* value, CUpointer_attribute attribute, CUdeviceptr ptr))                             \
    X(cuPointerGetAttributes, cuPointerGetAttributes,                                            \
      (unsigned int count, CUpointer_attribute* attributes, void** data, CUdeviceptr ptr))       \
    X(cuStreamCreate, cuStreamCreate, (CUstream* stream, unsigned int flags))                    \
    X(cuStreamCreateWithPriority, cuStreamCreateWithPriority,                                    \
      (CUstream* stream, unsigned int flags, int priority))                                      \
    X(cuStreamDestroy, cuStreamDestroy_v2, (CUstream stream))                                    \
    X(cuStreamSynchronize, cuStreamSynchronize, (CUstream stream))                               \
    X(cuStreamQuery, cuStreamQuery, (CUstream stream))                                           \
    X(cuStreamWaitEvent, cuStreamWaitEvent, (CUstream stream, CUevent event, unsigned int flags)) \
    X(cuLaunchHostFunc, cuLaunchHostFunc, (CUstream stream, CUhostFn fn, void* user_data))      \
    X(cuStreamBeginCapture, cuStreamBeginCapture_v2, (CUstream stream, CUstreamCaptureMode mode)) \
    X(cuStreamEndCapture, cuStreamEndCapture, (CUstream stream, CUgraph* graph))                 \
    X(cuStreamIsCapturing, cuStreamIsCapturing, (CUstream stream, CUstreamCaptureStatus* status)) \
    X(cuGraphInstantiate, cuGraphInstantiateWithFlags,                                           \
      (CUgraphExec* exec, CUgraph graph, unsigned long long flags))                              \
    X(cuGraphExecUpdate, cuGraphExecUpdate_v2,                                                   \
      (CUgraphExec exec, CUgraph graph, CUgraphExecUpdateResultInfo* result))                    \
    X(cuGraphLaunch, cuGraphLaunch, (CUgraphExec exec, CUstream stream))                         \
    X(cuGraphGetNodes, cuGraphGetNodes, (CUgraph graph, CUgraphNode* nodes, size_t* count))      \
    X(cuGraphNodeGetType, cuGraphNodeGetType, (CUgraphNode node, CUgraphNodeType* type))          \
    X(cuGraphExecDestroy, cuGraphExecDestroy, (CUgraphExec exec))                                \
    X(cuGraphDestroy, cuGraphDestroy, (CUgraph graph))                                           \
    X(cuEventCreate, cuEventCreate, (CUevent* event, unsigned int flags))                        \
    X(cuEventDestroy, cuEventDestroy_v2, (CUevent event))                                        \
    X(cuEventRecord, cuEventRecord, (CUevent event, CUstream stream))                            \
    X(cuEventSynchronize, cuEventSynchronize, (CUevent event))                                   \
    X(cuEventQuery, cuEventQuery, (CUevent event))                                               \
    X(cuEventElapsedTime, cuEventElapsedTime_v2, (float* ms, CUevent start, CUevent end))        \
    X(cuModuleLoadDataEx, cuModuleLoadDataEx,                                                    \
      (CUmodule* module, const void* image, unsigned int num_options, CUjit_option* options,     \
       void** option_values))                                                                    \
    X(cuModuleUnload, cuModuleUnload, (CUmodule module))                                         \
    X(cuModuleGetFunction, cuModuleGetFunction,                                                  \
      (CUfunction* function, CUmodule module, const char* name))                                 \
    X(cuModuleGetGlobal, cuModuleGetGlobal_v2,                                                   \
      (CUdeviceptr* ptr, size_t* bytes, CUmodule module, const char* name))                      \
    X(cuFuncGetAttribute, cuFuncGetAttribute,                                                    \
      (int* value, CUfunction_attribute attribute, CUfunction function))                         \
    X(cuFuncSetAttribute, cuFuncSetAttribute,                                                    \
      (CUfunction function, CUfunction_attribute attribute, int value))                          \
    X(cuLaunchKernel, cuLaunchKernel,                                                            \
      (CUfunction function, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,       \
       unsigned int block_x, unsigned int block_y, unsigned int block_z,                         \
       unsigned int shared_bytes, CUstream stream, void** params, void** extra))                 \
    X(cuLaunchCooperativeKernel, cuLaunchCooperativeKernel,                                      \
      (CUfunction function, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,       \
       unsigned int block_x, unsigned int block_y, unsigned int block_z,                         \
       unsigned int shared_bytes, CUstream stream, void** params))                               \
    X(cuOccupancyMaxPotentialBlockSize, cuOccupancyMaxPotentialBlockSize,                        \
      (int* min_grid_size, int* block_size, CUfunction function,                                 \
       CUoccupancyB2DSize shared_bytes_of_block_size, size_t shared_bytes, int block_size_limit)) \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, cuOccupancyMaxActiveBlocksPerMultiprocessor,  \
      (int* blocks, CUfunction function, int block_size, size_t shared_bytes))

// The driver's symbol lookup, taken with dlsym before anything else (driver.cpp).
#define CJ_DRIVER_GET_PROC_ADDRESS(X)                                                            \
    X(cuGetProcAddress, cuGetProcAddress_v2,                                                     \
      (const char* symbol, void** function, int cuda_version, cuuint64_t flags,                  \
       CUdriverProcAddressQueryResult* status))

// ---- NVRTC ----
typedef struct _nvrtcProgram* nvrtcProgram;
typedef enum : int {
    NVRTC_SUCCESS = 0,
} nvrtcResult;

#define CJ_NVRTC_API(X)                                                                          \
    X(nvrtcVersion, nvrtcVersion, (int* major, int* minor))                                      \
    X(nvrtcGetNumSupportedArchs, nvrtcGetNumSupportedArchs, (int* count))                        \
    X(nvrtcGetSupportedArchs, nvrtcGetSupportedArchs, (int* archs))                              \
    X(nvrtcCreateProgram, nvrtcCreateProgram,                                                    \
      (nvrtcProgram* program, const char* source, const char* name, int num_headers,            \
       const char* const* headers, const char* const* header_names))                             \
    X(nvrtcDestroyProgram, nvrtcDestroyProgram, (nvrtcProgram* program))                         \
    X(nvrtcCompileProgram, nvrtcCompileProgram,                                                  \
      (nvrtcProgram program, int num_options, const char* const* options))                       \
    X(nvrtcGetPTXSize, nvrtcGetPTXSize, (nvrtcProgram program, size_t* bytes))                   \
    X(nvrtcGetPTX, nvrtcGetPTX, (nvrtcProgram program, char* ptx))                               \
    X(nvrtcGetCUBINSize, nvrtcGetCUBINSize, (nvrtcProgram program, size_t* bytes))               \
    X(nvrtcGetCUBIN, nvrtcGetCUBIN, (nvrtcProgram program, char* cubin))                         \
    X(nvrtcGetProgramLogSize, nvrtcGetProgramLogSize, (nvrtcProgram program, size_t* bytes))     \
    X(nvrtcGetProgramLog, nvrtcGetProgramLog, (nvrtcProgram program, char* log))

// nvrtcGetErrorString returns the message itself, not a result code.
typedef const char* (*CJ_nvrtcGetErrorString_fn)(nvrtcResult result);

// Compiled by tests/test_install.py (with -iquote src) where a CUDA toolkit is present: checks src/cuda_api.h (our
// declarations) against the toolkit's cuda.h and nvrtc.h, value by value and signature by
// signature. Ours are put in namespace `ours` first; the toolkit's headers then define the
// global names.
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace ours {
#include "cuda_api.h"
// Each entry point's pointer type, with our types (names resolve in `ours` first).
#define OUR_DRIVER_FN(name, symbol, params) using symbol##_fn = CUresult(*) params;
CJ_DRIVER_API(OUR_DRIVER_FN)
CJ_DRIVER_GET_PROC_ADDRESS(OUR_DRIVER_FN)
#define OUR_NVRTC_FN(name, symbol, params) using symbol##_fn = nvrtcResult(*) params;
CJ_NVRTC_API(OUR_NVRTC_FN)
// Our macros, captured before cuda.h defines its own of the same names.
constexpr unsigned kOurHostAllocPortable = CU_MEMHOSTALLOC_PORTABLE;
constexpr unsigned kOurHostAllocDeviceMap = CU_MEMHOSTALLOC_DEVICEMAP;
constexpr unsigned kOurHostRegisterPortable = CU_MEMHOSTREGISTER_PORTABLE;
constexpr unsigned kOurHostRegisterDeviceMap = CU_MEMHOSTREGISTER_DEVICEMAP;
const std::uintptr_t our_stream_legacy = reinterpret_cast<std::uintptr_t>(CU_STREAM_LEGACY);
const std::uintptr_t our_stream_per_thread = reinterpret_cast<std::uintptr_t>(CU_STREAM_PER_THREAD);
}  // namespace ours
#undef CU_MEMHOSTALLOC_PORTABLE
#undef CU_MEMHOSTALLOC_DEVICEMAP
#undef CU_MEMHOSTREGISTER_PORTABLE
#undef CU_MEMHOSTREGISTER_DEVICEMAP
#undef CU_STREAM_LEGACY
#undef CU_STREAM_PER_THREAD

#include <cuda.h>
#include <nvrtc.h>

static_assert(ours::kOurHostAllocPortable == CU_MEMHOSTALLOC_PORTABLE);
static_assert(ours::kOurHostAllocDeviceMap == CU_MEMHOSTALLOC_DEVICEMAP);
static_assert(ours::kOurHostRegisterPortable == CU_MEMHOSTREGISTER_PORTABLE);
static_assert(ours::kOurHostRegisterDeviceMap == CU_MEMHOSTREGISTER_DEVICEMAP);
static_assert(CJ_CUDA_API_VERSION <= CUDA_VERSION, "signatures newer than this toolkit");

// Same value for every enumerator and flag of ours.
#define SAME_VALUE(name) static_assert(static_cast<long long>(ours::name) == static_cast<long long>(::name), #name);
SAME_VALUE(CUDA_SUCCESS) SAME_VALUE(CUDA_ERROR_INVALID_VALUE) SAME_VALUE(CUDA_ERROR_INVALID_CONTEXT) SAME_VALUE(CUDA_ERROR_OUT_OF_MEMORY) SAME_VALUE(CUDA_ERROR_NO_DEVICE) SAME_VALUE(CUDA_ERROR_NOT_FOUND) SAME_VALUE(CUDA_ERROR_NOT_READY)
SAME_VALUE(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED) SAME_VALUE(CUDA_ERROR_UNKNOWN)
SAME_VALUE(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) SAME_VALUE(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
SAME_VALUE(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES) SAME_VALUE(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
SAME_VALUE(CU_FUNC_ATTRIBUTE_NUM_REGS) SAME_VALUE(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
SAME_VALUE(CU_JIT_ERROR_LOG_BUFFER) SAME_VALUE(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
SAME_VALUE(CU_POINTER_ATTRIBUTE_MEMORY_TYPE) SAME_VALUE(CU_POINTER_ATTRIBUTE_IS_MANAGED) SAME_VALUE(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
SAME_VALUE(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR) SAME_VALUE(CU_POINTER_ATTRIBUTE_RANGE_SIZE) SAME_VALUE(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
SAME_VALUE(CU_GET_PROC_ADDRESS_SUCCESS) SAME_VALUE(CU_GET_PROC_ADDRESS_DEFAULT)
SAME_VALUE(CU_EVENT_DEFAULT) SAME_VALUE(CU_EVENT_DISABLE_TIMING) SAME_VALUE(CU_MEM_ATTACH_GLOBAL)
SAME_VALUE(NVRTC_SUCCESS) SAME_VALUE(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
SAME_VALUE(CU_STREAM_CAPTURE_STATUS_NONE) SAME_VALUE(CU_STREAM_CAPTURE_STATUS_ACTIVE)
SAME_VALUE(CU_STREAM_CAPTURE_STATUS_INVALIDATED) SAME_VALUE(CU_STREAM_CAPTURE_MODE_GLOBAL)
SAME_VALUE(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) SAME_VALUE(CU_STREAM_CAPTURE_MODE_RELAXED)
SAME_VALUE(CU_GRAPH_EXEC_UPDATE_SUCCESS) SAME_VALUE(CU_GRAPH_NODE_TYPE_KERNEL)
SAME_VALUE(CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE) SAME_VALUE(CU_MEM_ALLOCATION_TYPE_PINNED)
SAME_VALUE(CU_MEM_HANDLE_TYPE_NONE) SAME_VALUE(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
SAME_VALUE(CU_MEM_LOCATION_TYPE_DEVICE) SAME_VALUE(CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
SAME_VALUE(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
#define SAME_ATTRIBUTE(name, value) SAME_VALUE(CU_DEVICE_ATTRIBUTE_##name)
CJ_CU_DEVICE_ATTRIBUTES(SAME_ATTRIBUTE)

// Handles and records: same size and alignment.
#define SAME_LAYOUT(type) \
    static_assert(sizeof(ours::type) == sizeof(::type) && alignof(ours::type) == alignof(::type), #type);
SAME_LAYOUT(CUdevice) SAME_LAYOUT(CUdeviceptr) SAME_LAYOUT(cuuint64_t) SAME_LAYOUT(CUcontext)
SAME_LAYOUT(CUmodule) SAME_LAYOUT(CUfunction) SAME_LAYOUT(CUstream) SAME_LAYOUT(CUevent)
SAME_LAYOUT(CUmemoryPool) SAME_LAYOUT(CUuuid) SAME_LAYOUT(CUresult) SAME_LAYOUT(CUdevice_attribute)
SAME_LAYOUT(CUfunction_attribute) SAME_LAYOUT(CUjit_option) SAME_LAYOUT(CUpointer_attribute)
SAME_LAYOUT(CUmemPool_attribute) SAME_LAYOUT(nvrtcProgram) SAME_LAYOUT(nvrtcResult)
SAME_LAYOUT(CUgraph) SAME_LAYOUT(CUgraphExec) SAME_LAYOUT(CUgraphNode) SAME_LAYOUT(CUstreamCaptureStatus)
SAME_LAYOUT(CUstreamCaptureMode) SAME_LAYOUT(CUgraphExecUpdateResultInfo) SAME_LAYOUT(CUgraphNodeType)
SAME_LAYOUT(CUipcMemHandle) SAME_LAYOUT(CUmemPoolPtrExportData) SAME_LAYOUT(CUmemLocation) SAME_LAYOUT(CUmemAccessDesc)
SAME_LAYOUT(CUmemPoolProps) SAME_LAYOUT(CUmemAllocationType) SAME_LAYOUT(CUmemAllocationHandleType)
SAME_LAYOUT(CUmemLocationType) SAME_LAYOUT(CUmemAccess_flags)
static_assert(std::is_unsigned_v<ours::CUdeviceptr> && std::is_unsigned_v<::CUdeviceptr>);

// Functions: the symbol exists in the toolkit's header, with as many parameters as ours, each of
// the same size and kind (pointer, floating, integer), pointing at things of the same size.
template <class T, class = void>
struct size_or_zero : std::integral_constant<std::size_t, 0> {};  // void, incomplete structs
template <class T>
struct size_or_zero<T, std::void_t<decltype(sizeof(T))>> : std::integral_constant<std::size_t, sizeof(T)> {};

template <class A, class B>
constexpr bool same_kind() {
    using PA = std::remove_pointer_t<A>;
    using PB = std::remove_pointer_t<B>;
    return sizeof(A) == sizeof(B) && std::is_pointer_v<A> == std::is_pointer_v<B> &&
           std::is_floating_point_v<A> == std::is_floating_point_v<B> &&
           size_or_zero<std::remove_cv_t<PA>>::value == size_or_zero<std::remove_cv_t<PB>>::value;
}

template <class A, class B>
struct same_abi : std::false_type {};
template <class RA, class... A, class RB, class... B>
struct same_abi<RA (*)(A...), RB (*)(B...)>
    : std::bool_constant<sizeof...(A) == sizeof...(B) && same_kind<RA, RB>() &&
                         (same_kind<A, B>() && ...)> {};

#define SAME_FN(name, symbol, params) \
    static_assert(same_abi<ours::symbol##_fn, decltype(&::symbol)>::value, #symbol);
CJ_DRIVER_API(SAME_FN)
CJ_DRIVER_GET_PROC_ADDRESS(SAME_FN)
CJ_NVRTC_API(SAME_FN)
static_assert(same_abi<ours::CJ_nvrtcGetErrorString_fn, decltype(&::nvrtcGetErrorString)>::value);

int main() {
    return ours::our_stream_legacy == reinterpret_cast<std::uintptr_t>(CU_STREAM_LEGACY) &&
                   ours::our_stream_per_thread == reinterpret_cast<std::uintptr_t>(CU_STREAM_PER_THREAD)
               ? 0 : 1;
}

#include "streams.h"

#include <cstdio>

#include "context.h"
#include "driver.h"
#include "graph_capture.h"

// Device attributes exposed by name, as Numba spells them (CU_DEVICE_ATTRIBUTE_ less prefix).
#define CJ_DEVICE_ATTRIBUTES(X)                                                               \
    X(MAX_THREADS_PER_BLOCK) X(MAX_BLOCK_DIM_X) X(MAX_BLOCK_DIM_Y) X(MAX_BLOCK_DIM_Z)         \
    X(MAX_GRID_DIM_X) X(MAX_GRID_DIM_Y) X(MAX_GRID_DIM_Z) X(MAX_SHARED_MEMORY_PER_BLOCK)      \
    X(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) X(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)              \
    X(TOTAL_CONSTANT_MEMORY) X(WARP_SIZE) X(MAX_PITCH) X(MAX_REGISTERS_PER_BLOCK)             \
    X(MAX_REGISTERS_PER_MULTIPROCESSOR) X(CLOCK_RATE) X(MEMORY_CLOCK_RATE)                    \
    X(GLOBAL_MEMORY_BUS_WIDTH) X(L2_CACHE_SIZE) X(MULTIPROCESSOR_COUNT)                       \
    X(MAX_THREADS_PER_MULTIPROCESSOR) X(MAX_BLOCKS_PER_MULTIPROCESSOR)                        \
    X(KERNEL_EXEC_TIMEOUT) X(INTEGRATED) X(CAN_MAP_HOST_MEMORY) X(COMPUTE_MODE)               \
    X(CONCURRENT_KERNELS) X(ECC_ENABLED) X(PCI_BUS_ID) X(PCI_DEVICE_ID) X(PCI_DOMAIN_ID)      \
    X(TCC_DRIVER) X(ASYNC_ENGINE_COUNT) X(UNIFIED_ADDRESSING) X(COMPUTE_CAPABILITY_MAJOR)     \
    X(COMPUTE_CAPABILITY_MINOR) X(STREAM_PRIORITIES_SUPPORTED) X(MANAGED_MEMORY)              \
    X(MULTI_GPU_BOARD) X(SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO) X(PAGEABLE_MEMORY_ACCESS)     \
    X(CONCURRENT_MANAGED_ACCESS) X(COMPUTE_PREEMPTION_SUPPORTED) X(COOPERATIVE_LAUNCH)        \
    X(MEMORY_POOLS_SUPPORTED) X(CLUSTER_LAUNCH)

namespace cj {
namespace {

CUdevice get_device(int ordinal) {
    int n = device_count();
    if (ordinal < 0 || ordinal >= n)
        throw SupportError("device " + std::to_string(ordinal) + " does not exist: there are " +
                           std::to_string(n) + " CUDA devices");
    CUdevice dev;
    CJ_CU(cuDeviceGet, &dev, ordinal);
    return dev;
}

// Destructors run at interpreter exit too, possibly after the driver is torn down: they check
// that the driver loaded and ignore the result, never throw.
template <class F>
void quietly(F&& f) noexcept {
    try {
        if (drv::available(nullptr)) f(drv::api());
    } catch (...) {
    }
}

}  // namespace

int device_count() {
    int n = 0;
    CJ_CU(cuDeviceGetCount, &n);
    return n;
}

int driver_version() { return drv::api().driver_version; }

bool device_can_access_peer(int device, int peer) {
    int can = 0;
    CJ_CU(cuDeviceCanAccessPeer, &can, get_device(device), get_device(peer));
    return can != 0;
}

const std::vector<DeviceAttribute>& device_attributes() {
    static const auto& table = *new std::vector<DeviceAttribute> {
#define CJ_ATTRIBUTE_ENTRY(name) {#name, CU_DEVICE_ATTRIBUTE_##name},
        CJ_DEVICE_ATTRIBUTES(CJ_ATTRIBUTE_ENTRY)
#undef CJ_ATTRIBUTE_ENTRY
    };
    return table;
}

Device::Device(int ordinal) : ordinal_(ordinal), dev_(get_device(ordinal)) {}

std::string Device::name() const {
    char buf[256] = {0};
    CJ_CU(cuDeviceGetName, buf, sizeof(buf) - 1, dev_);
    return buf;
}

std::pair<int, int> Device::compute_capability() const {
    return {attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
            attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)};
}

std::string Device::uuid() const {
    CUuuid u;
    CJ_CU(cuDeviceGetUuid, &u, dev_);
    const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
    char s[64];
    std::snprintf(s, sizeof(s),
                  "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                  b[14], b[15]);
    return s;
}

std::string Device::pci_bus_id() const {
    char buf[64] = {0};
    CJ_CU(cuDeviceGetPCIBusId, buf, sizeof(buf) - 1, dev_);
    return buf;
}

size_t Device::total_memory() const {
    size_t bytes = 0;
    CJ_CU(cuDeviceTotalMem, &bytes, dev_);
    return bytes;
}

int Device::attribute(int attr) const {
    int v = 0;
    CJ_CU(cuDeviceGetAttribute, &v, static_cast<CUdevice_attribute>(attr), dev_);
    return v;
}

void Device::reset() const {
    // Release the retained primary contexts first so that the next use retains a fresh one.
    ctx::close();
    CJ_CU(cuDevicePrimaryCtxReset, dev_);
}

std::pair<size_t, size_t> mem_info() {
    ctx::ensure();
    size_t free_b = 0, total_b = 0;
    CJ_CU(cuMemGetInfo, &free_b, &total_b);
    return {free_b, total_b};
}

void synchronize() {
    ctx::ensure();
    graph::refuse_wait(0, -1);  // while this device captures, the legacy stream (and the context) must not be waited on
    CJ_CU(cuCtxSynchronize);
}

// ---- streams --------------------------------------------------------------------------------

Stream::Stream(unsigned flags, int priority) : handle_(nullptr), owned_(true), device_(ctx::current_device()) {
    ctx::ensure();
    CJ_CU(cuStreamCreateWithPriority, &handle_, flags, priority);
}

Stream Stream::external(uintptr_t handle, int device) {
    return Stream(reinterpret_cast<CUstream>(handle), false, device);
}

Stream::~Stream() {
    if (!owned_ || !handle_) return;
    quietly([&](const drv::Api& a) { a.cuStreamDestroy(handle_); });
}

void Stream::synchronize() const {
    ctx::DeviceScope scope(device_);
    graph::refuse_wait(reinterpret_cast<uintptr_t>(handle_), device_);
    CJ_CU(cuStreamSynchronize, handle_);
}

bool Stream::query() const {
    ctx::DeviceScope scope(device_);
    graph::refuse_wait(reinterpret_cast<uintptr_t>(handle_), device_);
    CUresult r = drv::api().cuStreamQuery(handle_);
    if (r == CUDA_ERROR_NOT_READY) return false;
    drv::check(r, "cuStreamQuery");
    return true;
}

void Stream::wait_event(const Event& e) const { e.wait(handle_); }

void Stream::launch_host_func(void (*fn)(void*), void* data) const {
    ctx::DeviceScope scope(device_);
    CJ_CU(cuLaunchHostFunc, handle_, fn, data);
}

// ---- events ---------------------------------------------------------------------------------

Event::Event(bool timing) : device_(ctx::current_device()) {
    ctx::ensure();
    CJ_CU(cuEventCreate, &handle_, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING);
}

Event::~Event() {
    if (!handle_) return;
    quietly([&](const drv::Api& a) { a.cuEventDestroy(handle_); });
}

void Event::record(CUstream stream) const {
    ctx::DeviceScope scope(device_);
    CJ_CU(cuEventRecord, handle_, stream);
}

void Event::synchronize() const {
    ctx::DeviceScope scope(device_);
    CJ_CU(cuEventSynchronize, handle_);
}

bool Event::query() const {
    ctx::DeviceScope scope(device_);
    CUresult r = drv::api().cuEventQuery(handle_);
    if (r == CUDA_ERROR_NOT_READY) return false;
    drv::check(r, "cuEventQuery");
    return true;
}

void Event::wait(CUstream stream) const {
    ctx::DeviceScope scope(device_);
    CJ_CU(cuStreamWaitEvent, stream, handle_, 0);
}

float event_elapsed_ms(const Event& start, const Event& end) {
    ctx::DeviceScope scope(start.device());
    float ms = 0.0f;
    CJ_CU(cuEventElapsedTime, &ms, start.handle(), end.handle());
    return ms;
}

}  // namespace cj

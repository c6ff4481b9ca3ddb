#include "memory.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "block_cache.h"
#include "context.h"
#include "driver.h"
#include "errors.h"
#include "external_alloc.h"
#include "fork_safety.h"
#include "graph_capture.h"
#include "ipc.h"
#include "staging.h"

namespace cj {
namespace {

Backend g_backend = Backend::Gpu;

// The CPU backend's allocations (device arrays, pinned and mapped arrays are host memory there), by address:
// what a foreign description (CAI, DLPack) of memory inside one may span (check_span_is_memory), as the driver
// knows a GPU allocation's range. Never destroyed (interpreter exit).
std::mutex& allocations_mutex = remade_after_fork(*new std::mutex);
std::map<uintptr_t, size_t>& allocations = *new std::map<uintptr_t, size_t>;

void* host_alloc(size_t n) {
    // 64-byte alignment: what NumPy and vector loads like; a zero-size request still gets a pointer.
    size_t rounded = ((n ? n : 1) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded);
    if (!p) throw OutOfMemory("cannot allocate " + std::to_string(n) + " bytes of host memory");
    std::lock_guard<std::mutex> lock(allocations_mutex);
    allocations[reinterpret_cast<uintptr_t>(p)] = n;
    return p;
}

void host_free(void* p) {
    {
        std::lock_guard<std::mutex> lock(allocations_mutex);
        allocations.erase(reinterpret_cast<uintptr_t>(p));
    }
    std::free(p);
}

// Checks an allocating driver call: running out of memory names the bytes asked for (MemoryError).
void check_alloc(CUresult r, const char* call, size_t n, const char* what) {
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
        throw OutOfMemory(std::string(call) + ": cannot allocate " + std::to_string(n) + " bytes of " + what);
    drv::check(r, call);
}

CUstream as_stream(uintptr_t s) { return reinterpret_cast<CUstream>(s); }

// The current device's total memory, asked once per device (0: unknown). An allocation larger than it is refused
// without the driver call, which could only fail: compute-sanitizer's memcheck reports every failing API call, and a
// program that asks for more than the device has is told so (MemoryError) either way. No lock: racing threads store
// the same value, and a lock held by another thread across fork() would stay held in the child.
size_t device_total_bytes(int device) {
    static std::atomic<size_t> totals[64];
    if (device < 0 || device >= 64) return 0;
    size_t bytes = totals[device].load(std::memory_order_relaxed);
    if (bytes == 0 && drv::api().cuDeviceTotalMem(&bytes, ctx::current_cu_device()) == CUDA_SUCCESS)
        totals[device].store(bytes, std::memory_order_relaxed);
    return bytes;
}

}  // namespace

Backend current_backend() { return g_backend; }
void set_current_backend(Backend b) { g_backend = b; }

DeviceBuffer::DeviceBuffer(size_t nbytes, uintptr_t stream) : nbytes_(nbytes), backend_(g_backend) {
    graph::check_allocation(stream);
    if (backend_ == Backend::Gpu) {
        ctx::ensure();
        device_ = ctx::current_device();
    }
    if (nbytes && external_alloc::active()) {  // cuda.set_memory_manager: the plugin's memory, freed by the plugin
        ptr_ = external_alloc::allocate(nbytes, device_, &external_);
        return;
    }
    if (backend_ == Backend::Cpu) {
        ptr_ = reinterpret_cast<uintptr_t>(host_alloc(nbytes));
        return;
    }
    epoch_ = block_cache::epoch();
    size_t bytes = block_cache::allocation_size(nbytes);
    ptr_ = block_cache::take(device_, bytes, stream);
    if (ptr_) return;
    if (size_t total = device_total_bytes(device_); total && bytes > total) {
        block_cache::release(device_);  // as any out-of-memory does: the cached blocks go back to the driver
        throw OutOfMemory("cannot allocate " + std::to_string(nbytes) + " bytes of device memory: the device has " +
                          std::to_string(total));
    }
    CUmemoryPool pool = ipc::pool(device_);  // exportable: arrays can be shared with other processes (ipc.h)
    CUdeviceptr p = 0;
    CUresult r = drv::api().cuMemAllocFromPoolAsync(&p, bytes, pool, as_stream(stream));
    if (r == CUDA_ERROR_OUT_OF_MEMORY && block_cache::release(device_))
        r = drv::api().cuMemAllocFromPoolAsync(&p, bytes, pool, as_stream(stream));
    check_alloc(r, "cuMemAllocFromPoolAsync", nbytes, "device memory");
    ptr_ = static_cast<uintptr_t>(p);
}

DeviceBuffer::~DeviceBuffer() {
    if (external_) {
        external_alloc::release(external_);
        return;
    }
    if (!ptr_) return;
    if (backend_ == Backend::Cpu) {
        host_free(reinterpret_cast<void*>(ptr_));
        return;
    }
    if (block_cache::give(device_, ptr_, block_cache::allocation_size(nbytes_), epoch_)) return;
    // Allocated before cuda.close() / Device.reset(): its context was released and its memory with it (unless
    // another library keeps the primary context, where it stays until that context ends); the address may now
    // belong to a new allocation, which a free here would take away.
    if (epoch_ != block_cache::epoch()) return;
    // Never throw from a destructor: at interpreter exit the context may already be gone.
    std::string why;
    if (!drv::available(&why)) return;
    const auto& a = drv::api();
    CUcontext cur = nullptr;
    if (a.cuCtxGetCurrent(&cur) != CUDA_SUCCESS) return;
    try {
        if (graph::defer_free(device_, ptr_)) return;  // its device is capturing a graph: freed when that ends
        ctx::DeviceScope scope(device_);  // the legacy stream of the device the memory is on
        a.cuMemFreeAsync(static_cast<CUdeviceptr>(ptr_), CU_STREAM_LEGACY);  // named: 0 may be per-thread
    } catch (...) {
    }
}

bool cpu_allocation_containing(uintptr_t address, uintptr_t* base, size_t* bytes) {
    std::lock_guard<std::mutex> lock(allocations_mutex);
    auto it = allocations.upper_bound(address);
    if (it == allocations.begin()) return false;
    --it;
    if (address >= it->first + it->second) return false;
    *base = it->first;
    *bytes = it->second;
    return true;
}

uintptr_t host_device_pointer(uintptr_t host_ptr) {
    if (g_backend == Backend::Cpu) return host_ptr;
    ctx::ensure();
    CUdeviceptr p = 0;
    CJ_CU(cuMemHostGetDevicePointer, &p, reinterpret_cast<void*>(host_ptr), 0);
    return static_cast<uintptr_t>(p);
}

HostBuffer::HostBuffer(size_t nbytes, HostKind kind) : nbytes_(nbytes), kind_(kind), backend_(g_backend) {
    if (backend_ == Backend::Cpu) {
        host_ = host_alloc(nbytes);
        device_ = reinterpret_cast<uintptr_t>(host_);
        return;
    }
    ctx::ensure();
    epoch_ = block_cache::epoch();
    size_t n = nbytes ? nbytes : 1;
    if (kind == HostKind::Managed) {
        CUdeviceptr p = 0;
        check_alloc(drv::api().cuMemAllocManaged(&p, n, CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged", nbytes,
                    "managed memory");
        host_ = reinterpret_cast<void*>(p);
        device_ = static_cast<uintptr_t>(p);
        return;
    }
    unsigned flags = CU_MEMHOSTALLOC_PORTABLE | (kind == HostKind::Mapped ? CU_MEMHOSTALLOC_DEVICEMAP : 0);
    // Page-locked memory beyond the machine's RAM can only fail: refused without the call (as device memory beyond
    // the device's, device_total_bytes: a failing call is an error report under compute-sanitizer's memcheck).
    if (long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE); pages > 0 && page > 0 &&
                                                                          n / size_t(page) >= size_t(pages))
        throw OutOfMemory("cannot allocate " + std::to_string(nbytes) + " bytes of pinned host memory: the machine "
                          "has " + std::to_string(size_t(pages) * size_t(page)) + " bytes of RAM");
    check_alloc(drv::api().cuMemHostAlloc(&host_, n, flags), "cuMemHostAlloc", nbytes, "pinned host memory");
    if (kind == HostKind::Mapped) {
        CUdeviceptr p = 0;
        CJ_CU(cuMemHostGetDevicePointer, &p, host_, 0);
        device_ = static_cast<uintptr_t>(p);
    } else {
        device_ = reinterpret_cast<uintptr_t>(host_);
    }
}

HostRegistration::HostRegistration(uintptr_t ptr, size_t nbytes, bool mapped)
    : host_(reinterpret_cast<void*>(ptr)), device_(ptr) {
    if (g_backend == Backend::Cpu || nbytes == 0) return;
    ctx::ensure();
    unsigned flags = CU_MEMHOSTREGISTER_PORTABLE | (mapped ? CU_MEMHOSTREGISTER_DEVICEMAP : 0);
    // Memory CUDA knows already (pinned, registered by someone else) is not registered again: the driver would
    // refuse, and compute-sanitizer reports the refusal in the user's program. A range that only overlaps such
    // memory past its first byte is still refused, and taken as registered too.
    CUresult r = drv::pointer_info(ptr).memory_type != 0 ? CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
                                                         : drv::api().cuMemHostRegister(host_, nbytes, flags);
    if (r == CUDA_SUCCESS) {
        registered_ = true;
    } else if (r != CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED) {
        drv::check(r, "cuMemHostRegister");
    }
    if (mapped) {
        CUdeviceptr p = 0;
        CUresult g = drv::api().cuMemHostGetDevicePointer(&p, host_, 0);
        if (g != CUDA_SUCCESS) {
            release();
            drv::check(g, "cuMemHostGetDevicePointer (memory pinned without mapping?)");
        }
        device_ = static_cast<uintptr_t>(p);
    }
}

void HostRegistration::release() {
    if (!registered_) return;
    registered_ = false;
    if (drv::available(nullptr)) drv::api().cuMemHostUnregister(host_);
}

HostBuffer::~HostBuffer() {
    if (!host_) return;
    if (backend_ == Backend::Cpu) {
        host_free(host_);
        return;
    }
    if (!drv::available(nullptr) || epoch_ != block_cache::epoch()) return;  // a closed context's: as DeviceBuffer
    try {
        ctx::ensure();
    } catch (...) {
        return;
    }
    const auto& a = drv::api();
    if (kind_ == HostKind::Managed)
        a.cuMemFree(static_cast<CUdeviceptr>(device_));
    else
        a.cuMemFreeHost(host_);
}

void copy_htod(uintptr_t dst, const void* src, size_t n, uintptr_t stream, Backend b, int device) {
    if (!n) return;
    if (b == Backend::Cpu) {
        std::memcpy(reinterpret_cast<void*>(dst), src, n);
        return;
    }
    ctx::DeviceScope scope(device);
    if (staging::copy_htod(static_cast<CUdeviceptr>(dst), src, n, as_stream(stream))) return;
    CJ_CU(cuMemcpyHtoDAsync, static_cast<CUdeviceptr>(dst), src, n, as_stream(stream));
}

void copy_dtoh(void* dst, uintptr_t src, size_t n, uintptr_t stream, Backend b, int device) {
    if (!n) return;
    if (b == Backend::Cpu) {
        std::memcpy(dst, reinterpret_cast<const void*>(src), n);
        return;
    }
    ctx::DeviceScope scope(device);
    if (staging::copy_dtoh(dst, static_cast<CUdeviceptr>(src), n, as_stream(stream))) return;
    CJ_CU(cuMemcpyDtoHAsync, dst, static_cast<CUdeviceptr>(src), n, as_stream(stream));
}

namespace {

// A batch the staging slot does not take (more than 64 KiB all pinned, or more than a slot) goes range by range; a pinned
// range's copy is then asynchronous, so the batch waits for its stream: as the staged batch, it returns with every
// host range read (htod) or written (dtoh), which a kernel's NumPy arguments rely on (pinned ones too).
void copy_batch(bool to_device, const std::vector<HostRange>& ranges, uintptr_t stream, Backend b, int device,
                staging::Scratch scratch) {
    auto one_by_one = [&] {
        for (const HostRange& r : ranges) {
            if (to_device)
                copy_htod(r.device, r.host, r.n, stream, b, device);
            else
                copy_dtoh(r.host, r.device, r.n, stream, b, device);
        }
    };
    if (b == Backend::Cpu) return one_by_one();
    ctx::DeviceScope scope(device);
    CUstream s = as_stream(stream);
    if (to_device ? staging::copy_htod_batch(ranges, s, scratch) : staging::copy_dtoh_batch(ranges, s, scratch)) return;
    one_by_one();
    CJ_CU(cuStreamSynchronize, s);
}

}  // namespace

void copy_htod_batch(const std::vector<HostRange>& ranges, uintptr_t stream, Backend b, int device,
                     staging::Scratch scratch) {
    copy_batch(true, ranges, stream, b, device, scratch);
}

void copy_dtoh_batch(const std::vector<HostRange>& ranges, uintptr_t stream, Backend b, int device,
                     staging::Scratch scratch) {
    copy_batch(false, ranges, stream, b, device, scratch);
}

void copy_dtod(uintptr_t dst, uintptr_t src, size_t n, uintptr_t stream, Backend b, int dst_device,
               int src_device) {
    if (!n) return;
    if (b == Backend::Cpu) {
        std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n);
        return;
    }
    ctx::DeviceScope scope(dst_device >= 0 ? dst_device : src_device);
    if (dst_device >= 0 && src_device >= 0 && dst_device != src_device) {
        CUcontext from = ctx::primary(src_device);
        if (stream == 0)
            CJ_CU(cuMemcpyPeer, static_cast<CUdeviceptr>(dst), scope.context(), static_cast<CUdeviceptr>(src), from, n);
        else
            CJ_CU(cuMemcpyPeerAsync, static_cast<CUdeviceptr>(dst), scope.context(), static_cast<CUdeviceptr>(src),
                  from, n, as_stream(stream));
        return;
    }
    CJ_CU(cuMemcpyDtoDAsync, static_cast<CUdeviceptr>(dst), static_cast<CUdeviceptr>(src), n,
          as_stream(stream));
}

void memset_d8(uintptr_t dst, uint8_t value, size_t n, uintptr_t stream, Backend b, int device) {
    if (!n) return;
    if (b == Backend::Cpu) {
        std::memset(reinterpret_cast<void*>(dst), value, n);
        return;
    }
    ctx::DeviceScope scope(device);
    CJ_CU(cuMemsetD8Async, static_cast<CUdeviceptr>(dst), value, n, as_stream(stream));
}

int pointer_device(uintptr_t ptr) {
    if (!ptr || !drv::available(nullptr)) return -1;
    ctx::ensure();
    constexpr unsigned kDeviceMemory = 2;  // CU_MEMORYTYPE_DEVICE
    const drv::PointerInfo info = drv::pointer_info(static_cast<CUdeviceptr>(ptr));
    return info.memory_type == kDeviceMemory && !info.managed ? info.device : -1;
}

}  // namespace cj

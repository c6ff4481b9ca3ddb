// Memory: device buffers from CUDA's stream-ordered pool, pinned/mapped/managed host buffers,
// and copies between them. Under the CPU backend "device" memory is ordinary host memory and
// every copy is a memcpy, so the rest of the package has one code path.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "staging.h"

namespace cj {

enum class Backend : uint8_t { Gpu = 0, Cpu = 1 };

// The backend new allocations and launches use; set from Python (cudajit._backend).
Backend current_backend();
void set_current_backend(Backend b);

// An owning allocation. GPU: cuMemAllocFromPoolAsync on the stream given, from the pool of this thread's device
// (device(); ipc::pool: cudajit's own, which can be shared with other processes); freed with cuMemFreeAsync on that device's legacy default stream (which orders after work on
// every blocking stream of it), whichever device is current when the last reference goes. Blocks of at most
// 1 MiB go through the device's block cache (block_cache.h) both ways; running out of memory returns the
// cached blocks to the pool and tries once more.
class DeviceBuffer {
 public:
    DeviceBuffer(size_t nbytes, uintptr_t stream);
    ~DeviceBuffer();
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    uintptr_t ptr() const { return ptr_; }
    size_t nbytes() const { return nbytes_; }
    Backend backend() const { return backend_; }
    int device() const { return device_; }  // the GPU's ordinal; -1 on the CPU backend
    void* external() const { return external_; }  // the EMM plugin's object (a PyObject*), or null

 private:
    uintptr_t ptr_ = 0;
    size_t nbytes_ = 0;
    Backend backend_;
    int device_ = -1;
    unsigned epoch_ = 0;  // block_cache::epoch() at allocation
    void* external_ = nullptr;  // an EMM plugin's allocation (external_alloc.h): the object that owns the memory
};

using HostRange = staging::Range;  // {device address, host address, bytes}

enum class HostKind : uint8_t { Pinned, Mapped, Managed };

// The device address of mapped page-locked host memory (cuMemHostGetDevicePointer; CudaAPIError for memory that
// is not mapped); the host address itself on the CPU backend.
uintptr_t host_device_pointer(uintptr_t host_ptr);

// CPU backend: the allocation of this process's device, pinned or mapped arrays that holds `address` (its base
// and its bytes as asked for), if any.
bool cpu_allocation_containing(uintptr_t address, uintptr_t* base, size_t* bytes);

// Page-locked host memory (pinned), the same mapped into the device's address space (mapped:
// kernels read and write it directly), or managed memory. CPU backend: plain aligned memory.
class HostBuffer {
 public:
    HostBuffer(size_t nbytes, HostKind kind);
    ~HostBuffer();
    HostBuffer(const HostBuffer&) = delete;
    HostBuffer& operator=(const HostBuffer&) = delete;
    void* host_ptr() const { return host_; }
    uintptr_t device_ptr() const { return device_; }  // mapped/managed: the address kernels use
    size_t nbytes() const { return nbytes_; }
    HostKind kind() const { return kind_; }
    Backend backend() const { return backend_; }

 private:
    void* host_ = nullptr;
    uintptr_t device_ = 0;
    size_t nbytes_ = 0;
    HostKind kind_;
    Backend backend_;
    unsigned epoch_ = 0;  // block_cache::epoch() at allocation: a buffer of a closed context is not freed
};

// Existing host memory page-locked for a while (cuda.pinned / cuda.mapped): cuMemHostRegister on construction,
// cuMemHostUnregister on release() or destruction. mapped: kernels may address it (device_ptr). Memory already
// registered (another array on the same pages) is left as it is. CPU backend: nothing to do.
class HostRegistration {
 public:
    HostRegistration(uintptr_t ptr, size_t nbytes, bool mapped);
    ~HostRegistration() { release(); }
    HostRegistration(const HostRegistration&) = delete;
    HostRegistration& operator=(const HostRegistration&) = delete;
    uintptr_t device_ptr() const { return device_; }
    bool registered() const { return registered_; }
    void release();

 private:
    void* host_ = nullptr;
    uintptr_t device_ = 0;
    bool registered_ = false;
};

// Copies; stream 0 is the legacy default stream. A copy to pageable host memory returns when
// the data is there (as cuMemcpyDtoHAsync does for pageable memory); pinned copies are async.
// `device` is the GPU whose memory is copied (its context is current for the copy, so stream 0 is its legacy
// stream); -1: the thread's device, or memory every device reaches (managed, mapped).
void copy_htod(uintptr_t dst, const void* src, size_t n, uintptr_t stream, Backend b, int device = -1);
void copy_dtoh(void* dst, uintptr_t src, size_t n, uintptr_t stream, Backend b, int device = -1);
// Pageable memory goes through pinned staging slots (staging.h). The batches copy several ranges (kernel
// arguments) with one slot: htod without waiting, dtoh with one wait for all. Either returns with every host range
// read (htod) or written (dtoh): a batch the slot does not take (pinned ranges, more than a slot) waits for its stream.
// `scratch`: device memory around the ranges that the copy may overwrite (staging::Scratch), or none.
void copy_htod_batch(const std::vector<HostRange>& ranges, uintptr_t stream, Backend b, int device = -1,
                     staging::Scratch scratch = {});
void copy_dtoh_batch(const std::vector<HostRange>& ranges, uintptr_t stream, Backend b, int device = -1,
                     staging::Scratch scratch = {});
// Between two devices (both >= 0 and different) a peer copy: on stream 0 cuMemcpyPeer, which the driver
// orders after all work pending on both devices; on another stream cuMemcpyPeerAsync on it.
void copy_dtod(uintptr_t dst, uintptr_t src, size_t n, uintptr_t stream, Backend b, int dst_device = -1,
               int src_device = -1);
void memset_d8(uintptr_t dst, uint8_t value, size_t n, uintptr_t stream, Backend b, int device = -1);
// The device a GPU pointer's memory is on; -1 when every device reaches it (managed, host memory) or the
// driver does not know the pointer.
int pointer_device(uintptr_t ptr);

}  // namespace cj

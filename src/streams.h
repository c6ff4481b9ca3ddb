// Devices, streams and events over the run-time-loaded driver (driver.h). Every call that needs
// a context calls ctx::ensure() first; device queries need only cuInit.
#pragma once
#include "cuda_api.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cj {

int device_count();
// cuDeviceCanAccessPeer of two device ordinals (CudaSupportError for one that does not exist).
bool device_can_access_peer(int device, int peer);
int driver_version();  // cuDriverGetVersion, e.g. 12040

// Numba's attribute names (CU_DEVICE_ATTRIBUTE_ without the prefix) and their enum values.
struct DeviceAttribute {
    const char* name;
    CUdevice_attribute value;
};
const std::vector<DeviceAttribute>& device_attributes();

// A device by ordinal; reads from the driver on each query (all are cheap).
class Device {
public:
    explicit Device(int ordinal);
    int id() const { return ordinal_; }
    std::string name() const;
    std::pair<int, int> compute_capability() const;
    std::string uuid() const;        // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi -L
    std::string pci_bus_id() const;  // "0000:65:00.0"
    size_t total_memory() const;
    int attribute(int attr) const;
    // Destroys all state of the device's primary context (Numba: Device.reset()).
    void reset() const;

private:
    int ordinal_;
    CUdevice dev_;
};

std::pair<size_t, size_t> mem_info();  // (free, total) of the current device
void synchronize();                    // cuCtxSynchronize

class Event;

// A CUDA stream. Owns its CUstream unless made with external(); the special handles 0 (legacy
// default), CU_STREAM_LEGACY and CU_STREAM_PER_THREAD are never owned. A stream belongs to the device current
// when it was made (device()); its calls run in that device's context. External streams: -1, the thread's.
class Stream {
public:
    static constexpr uintptr_t kLegacy = 0x1;     // CU_STREAM_LEGACY
    static constexpr uintptr_t kPerThread = 0x2;  // CU_STREAM_PER_THREAD

    Stream(unsigned flags, int priority);
    // device: the one whose context its calls run in (a special handle, 1 or 2, means that device's); -1 current
    static Stream external(uintptr_t handle, int device = -1);
    ~Stream();  // never throws
    Stream(Stream&& o) noexcept : handle_(o.handle_), owned_(o.owned_), device_(o.device_) { o.owned_ = false; }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    CUstream handle() const { return handle_; }
    bool owned() const { return owned_; }
    int device() const { return device_; }
    void synchronize() const;
    bool query() const;  // true when all work queued so far has finished
    void wait_event(const Event& e) const;
    // fn(data) runs on a driver thread once the work queued so far has finished.
    void launch_host_func(void (*fn)(void*), void* data) const;

private:
    Stream(CUstream h, bool owned, int device) : handle_(h), owned_(owned), device_(device) {}
    CUstream handle_;
    bool owned_;
    int device_;
};

// An event of the device current when it was made (device()); its calls run in that device's context.
class Event {
public:
    explicit Event(bool timing);
    int device() const { return device_; }
    ~Event();  // never throws
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;

    CUevent handle() const { return handle_; }
    void record(CUstream stream) const;
    void synchronize() const;
    bool query() const;
    void wait(CUstream stream) const;  // work later queued on `stream` waits for this event

private:
    CUevent handle_ = nullptr;
    int device_ = -1;
};

float event_elapsed_ms(const Event& start, const Event& end);

}  // namespace cj

// Devices and their primary contexts. The selected device is per thread (Numba: "the context is
// associated with the current thread"); 0 until select() chooses another. Driver calls run on
// whatever OS thread Python calls from, and a CUDA context is current per thread, so every entry
// point that talks to the driver calls ensure() first (one cuCtxGetCurrent when already current),
// or opens a DeviceScope for memory that belongs to one device.
#pragma once
#include "cuda_api.h"

namespace cj::ctx {

// Makes this thread's selected device's primary context current; returns it.
CUcontext ensure();
// This thread's selected device ordinal.
int current_device();
CUdevice current_cu_device();
// Selects the device for this thread (Numba: cuda.select_device). Retains its primary context.
void select(int ordinal);
// The primary context of a device, retained on first use; SupportError naming a device that does not exist.
CUcontext primary(int ordinal);
// Releases the primary contexts this process retained (Numba: cuda.close()).
void close();

// For one scope, the primary context of `ordinal` is current on this thread (work on memory of that device:
// copies, frees, its streams); the thread's previous context is current again afterwards. ordinal < 0 means
// the thread's own device (ensure()).
class DeviceScope {
 public:
    explicit DeviceScope(int ordinal);
    ~DeviceScope();
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;
    CUcontext context() const { return context_; }

 private:
    CUcontext context_ = nullptr;
    CUcontext saved_ = nullptr;
    bool switched_ = false;
};

}  // namespace cj::ctx

// CUDA IPC: sharing device memory with another process on the same machine (numba.cuda's get_ipc_handle and
// open_ipc_array).
//
// cudajit's device memory comes from a stream-ordered pool, which legacy IPC handles (cuIpcGetMemHandle) cannot
// name. So each device's allocations come from a pool of cudajit's own that can be exported as a POSIX file
// descriptor (pool()), and a handle to its memory is the pool's description of the allocation
// (cuMemPoolExportPointer) plus the name of a Unix socket on which this process hands the pool's descriptor to
// processes of the same user (SCM_RIGHTS). Memory that is not pool memory (an EMM plugin's cuMemAlloc, another
// library's) gets a legacy handle. ipc.cpp describes the handle's bytes.
#pragma once
#include <cstdint>
#include <string>
#include <utility>

#include "cuda_api.h"

namespace cj::ipc {

// The pool DeviceBuffer allocates from on `device`, whose primary context is current: cudajit's exportable pool
// where the device and driver allow one (and CUDAJIT_IPC_POOL is not "0"), else the device's default pool. Made
// once per device and epoch; its release threshold is the largest (freed memory stays in the pool).
CUmemoryPool pool(int device);

// A handle to the allocation holding `ptr` on `device` (GPU backend): {handle bytes, offset of ptr in the
// allocation}. `base`: the allocation's start where the caller knows it (a DeviceBuffer of cudajit's pool), else 0
// (the driver is asked). Waits for the device first, so that the allocation and the work before it are complete.
std::pair<std::string, uint64_t> export_handle(uintptr_t ptr, int device, uintptr_t base);

// The address of the allocation a handle names, opened on `device` (which must be the device the memory is on);
// opening a handle this process already holds open returns the same address (counted). In the process that
// exported it, the allocation's own address.
uintptr_t open(const std::string& handle, int device);

// Gives back one open() of `handle` on `device`; the last closes the mapping.
void close(const std::string& handle, int device);

// True when the handle bytes are a legacy CUipcMemHandle (64 bytes) rather than one of cudajit's pool handles.
bool is_legacy(const std::string& handle);

}  // namespace cj::ipc

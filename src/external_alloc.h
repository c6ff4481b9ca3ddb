// Device memory from an external memory manager (numba.cuda's EMM plugins, cuda.set_memory_manager): while one is
// set, every DeviceBuffer asks the Python allocator cuda/emm.py registers here, and keeps the object it returns
// (the plugin's MemoryPointer) until the buffer's last owner goes; dropping that object is the plugin's free.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace cj::external_alloc {

// Whether an allocator is set: one relaxed load, on every DeviceBuffer's way.
bool active();

// allocator(nbytes, device) -> (address, keep); raises what the plugin raises. *keep: a new reference.
uintptr_t allocate(size_t nbytes, int device, void** keep);

// Drops the reference allocate() gave (takes the GIL; nothing during interpreter exit, when the memory goes with
// the process).
void release(void* keep);

}  // namespace cj::external_alloc

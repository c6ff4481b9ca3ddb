// A free list of small device blocks per device, in front of CUDA's stream-ordered pool: a freed block of at
// most kMaxCachedBlock bytes is kept (up to kMaxCachedBytes per device) and handed to a later allocation of its
// size class without cuMemAllocAsync/cuMemFreeAsync (one fence serves 8 blocks: block_cache.cpp). DeviceBuffer
// (memory.cpp) is its only user; see "Device memory: allocation and the block cache" in docs/INTERNALS.md for why reuse is safe.
#pragma once
#include <cstddef>
#include <cstdint>

namespace cj::block_cache {

constexpr size_t kMaxCachedBlock = size_t{1} << 20;
constexpr size_t kMaxCachedBytes = size_t{128} << 20;

// The bytes a request of `nbytes` is allocated with: up to kMaxCachedBlock, the next power of two of at least
// 512 (its size class, so that a freed block serves every request of the class); beyond, nbytes (at least 1).
size_t allocation_size(size_t nbytes);

// The epoch live buffers are tagged with; close() moves to the next one, so a buffer of a released context
// is never cached.
unsigned epoch();

// A cached block of allocation_size `bytes` for an allocation on `stream` of `device`, whose primary context is
// current; 0 when there is none that a fence covers yet (the caller allocates from the pool). The work that uses
// it is ordered after the work that used it before (a fence on the device's legacy stream, recorded once for a
// batch of blocks; a wait on it for streams other than the legacy one).
uintptr_t take(int device, size_t bytes, uintptr_t stream);

// Keeps a block whose last owner is gone; false when it is not kept (larger than kMaxCachedBlock, the cache is
// full, or `buffer_epoch` is not the current epoch): then the caller frees it. Makes no driver call.
bool give(int device, uintptr_t ptr, size_t bytes, unsigned buffer_epoch);

// Returns the cached blocks of `device` to the pool (cuMemFreeAsync on its legacy stream); the bytes returned.
// Called when an allocation runs out of memory, before it is tried again.
size_t release(int device);

// Returns every device's blocks and starts a new epoch; ctx::close() calls it while the contexts still live.
void release_all_for_close();

// Bytes cached on `device` (for tests: cudajit._core.cached_device_bytes).
size_t cached_bytes(int device);

}  // namespace cj::block_cache

// Pageable host memory <-> device memory through reused page-locked (pinned) staging buffers.
//
// The driver copies pageable memory through its own small staging buffers, one host thread at a time
// (8.6 GB/s host->device, 3.6 GB/s device->host on an H100 whose pinned copies reach 54). Here a copy is cut
// into pieces; the host memcpy of one piece (by several threads when it is large) overlaps the DMA of the
// previous one, each piece in its own pinned slot of a per-context pool. Semantics stay the driver's:
// host->device returns once the source may be reused (the DMA may still run, ordered on the copy's stream);
// device->host returns when the data is in the destination; both order after earlier work on the stream.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda_api.h"

namespace cj::staging {

// Each returns false, having done nothing, when the driver's own path must copy: host memory CUDA already
// knows (pinned, registered, managed: the DMA reads it directly) or a stream under graph capture (a captured
// copy would read a staging slot that later copies overwrite). The context of the device is current.
bool copy_htod(CUdeviceptr dst, const void* src, size_t n, CUstream stream);
bool copy_dtoh(void* dst, CUdeviceptr src, size_t n, CUstream stream);

// One host range of a batch of small copies (kernel arguments).
struct Range {
    CUdeviceptr device;
    void* host;
    size_t n;
};
// Device memory whose bytes outside a batch's ranges may be overwritten (one allocation holding the arrays of a
// launch, args.py): a batch within it is copied by one DMA over the ranges' whole extent instead of one per range.
struct Scratch {
    CUdeviceptr base = 0;
    size_t n = 0;  // 0: none
};
// A batch whose bytes fit one slot goes through it: one memcpy per range, one async copy per range (or one for
// all, within `scratch`) and, for device->host, one wait for all; same semantics as the single copies. False,
// having done nothing, for a batch larger than a slot, of more than 64 KiB all in memory the driver knows (pinned:
// its ranges DMA directly), or on a stream under capture: copy range by range then.
bool copy_htod_batch(const std::vector<Range>& ranges, CUstream stream, Scratch scratch = {});
bool copy_dtoh_batch(const std::vector<Range>& ranges, CUstream stream, Scratch scratch = {});

// Frees every idle slot and forgets the pools: called before the primary contexts are released
// (ctx::close), which frees their pinned memory. Slots in use meanwhile are forgotten when their copy ends.
void forget_pools();

// How many copies went through staging and how many took the driver's path (tests, benchmarks).
struct Counts {
    uint64_t staged = 0, direct = 0;
};
Counts counts();

}  // namespace cj::staging

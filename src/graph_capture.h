// Stream capture bookkeeping shared by launches, copies and allocations (cuda.graph, src/graph.h).
// While cudajit captures a stream, the calls that would otherwise run work must either join the capture
// (a launch or an async copy on the captured stream), or raise CaptureError naming what cannot be captured:
// anything on the legacy default stream of that device (the legacy stream waits for every blocking stream,
// so enqueueing there while one is capturing invalidates the capture), copies through pageable or temporary
// host memory, allocations on the captured stream. The CPU backend follows the same rules, so a program
// that captures on the CPU captures on the GPU too; there the recording holds the work itself.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cuda_api.h"
#include "driver.h"

namespace cj::graph {

// One capture in progress on one stream (made by Graph::begin; called with the GIL held).
struct Recording {
    uintptr_t stream = 0;
    int device = -1;                                      // the GPU; -1 on the CPU backend
    bool cpu = false;
    std::vector<std::function<void()>> steps;             // CPU: the launches and copies, in order
    std::vector<std::function<void(uintptr_t)>> checks;   // GPU: after each replay on a stream (debug kernels)
    std::vector<std::shared_ptr<void>> keep;              // what the captured work reads and writes
};

void register_recording(Recording* r);
void unregister_recording(Recording* r);  // then frees what was deferred while its device was capturing

// The cudajit recording of `stream`, or null (one atomic load while nothing is captured). Throws CaptureError
// when `stream` is the legacy default stream and `device` is capturing; `what` and `name` name the operation.
Recording* on_stream_use(uintptr_t stream, int device, const char* what, const std::string& name = {});

// True when `stream` is being captured: by cudajit, or (GPU, a stream other than the default ones) by
// another library, as the driver reports (cuStreamIsCapturing); also for the legacy stream of a capturing device.
bool is_capturing(uintptr_t stream, int device);

// Waiting for `stream` (synchronize, query, a synchronous copy) while it, or for the legacy stream its device,
// is being captured: CaptureError, since the wait would invalidate the capture.
void refuse_wait(uintptr_t stream, int device);

// A copy that reads or writes host memory at `host` (null: device to device). Throws CaptureError when it
// cannot be captured (pageable host memory on the GPU); returns true when a CPU recording took `run` instead.
bool capture_copy(uintptr_t stream, int device, const void* host, const std::function<void()>& run);
// A copy through a temporary host buffer (different layouts, no destination array): never capturable.
void refuse_staged_copy(uintptr_t stream, int device);
// An allocation ordered on `stream`: refused on the captured stream (the graph would own the memory) and on
// the legacy stream of a capturing device.
void check_allocation(uintptr_t stream);
// A device buffer released while its device is capturing: freed when the capture ends (its free would go to
// the legacy stream). Returns false when it may be freed now.
bool defer_free(int device, uintptr_t ptr);

// The handles of the legacy default stream (0 and CU_STREAM_LEGACY).
// The legacy default stream: CU_STREAM_LEGACY, or 0 unless stream 0 is the per-thread default stream.
inline bool is_legacy_stream(uintptr_t s) {
    return s == reinterpret_cast<uintptr_t>(CU_STREAM_LEGACY) || (s == 0 && !drv::per_thread_default_stream());
}

}  // namespace cj::graph

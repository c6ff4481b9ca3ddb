#include "graph_capture.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>

#include "context.h"
#include "driver.h"
#include "errors.h"
#include "memory.h"

namespace cj::graph {
namespace {

std::mutex& g_mutex = *new std::mutex;  // never destroyed (interpreter exit)
std::vector<Recording*>& g_recordings = *new std::vector<Recording*>;
std::vector<std::pair<int, uintptr_t>>& g_deferred_frees = *new std::vector<std::pair<int, uintptr_t>>;
std::atomic<int> g_active{0};  // g_recordings.size(), read without the lock by the fast paths

bool on_cpu() { return current_backend() == Backend::Cpu; }

// The device an operation's memory is on: -1 on the CPU backend, else `device` or the thread's own.
int resolve_device(int device) { return on_cpu() ? -1 : device >= 0 ? device : ctx::current_device(); }

std::string stream_name(uintptr_t s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(s));
    return buf;
}

// Host memory the driver copies asynchronously: page-locked (pinned, registered, mapped) or managed.
bool page_locked(const void* host, int device) {
    ctx::DeviceScope scope(device);
    return drv::host_memory_known(host);
}

Recording* recording_locked(uintptr_t stream, bool cpu) {
    for (Recording* r : g_recordings)
        if (r->stream == stream && r->cpu == cpu) return r;
    return nullptr;
}

// The capture that forbids using `stream` when it is the legacy stream of a capturing device, else null.
const Recording* legacy_blocker_locked(uintptr_t stream, int device, bool cpu) {
    if (!is_legacy_stream(stream)) return nullptr;
    for (const Recording* r : g_recordings)
        if (r->cpu == cpu && r->device == device) return r;
    return nullptr;
}

}  // namespace

void register_recording(Recording* r) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_recordings.push_back(r);
    g_active.store(static_cast<int>(g_recordings.size()), std::memory_order_release);
}

void unregister_recording(Recording* r) {
    std::vector<uintptr_t> frees;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_recordings.erase(std::remove(g_recordings.begin(), g_recordings.end(), r), g_recordings.end());
        g_active.store(static_cast<int>(g_recordings.size()), std::memory_order_release);
        bool still_capturing = std::any_of(g_recordings.begin(), g_recordings.end(), [&](const Recording* o) {
            return !o->cpu && o->device == r->device;
        });
        if (r->cpu || still_capturing) return;
        auto mine = [&](const std::pair<int, uintptr_t>& f) { return f.first == r->device; };
        for (const auto& f : g_deferred_frees)
            if (mine(f)) frees.push_back(f.second);
        g_deferred_frees.erase(std::remove_if(g_deferred_frees.begin(), g_deferred_frees.end(), mine),
                               g_deferred_frees.end());
    }
    if (frees.empty()) return;
    ctx::DeviceScope scope(r->device);  // the legacy stream orders the frees after the work that used the memory
    for (uintptr_t p : frees) drv::api().cuMemFreeAsync(static_cast<CUdeviceptr>(p), CU_STREAM_LEGACY);
}

Recording* on_stream_use(uintptr_t stream, int device, const char* what, const std::string& name) {
    if (g_active.load(std::memory_order_acquire) == 0) return nullptr;
    std::lock_guard<std::mutex> lock(g_mutex);
    bool cpu = on_cpu();
    if (Recording* r = recording_locked(stream, cpu)) return r;
    const Recording* blocked = legacy_blocker_locked(stream, resolve_device(device), cpu);
    if (!blocked) return nullptr;
    throw CaptureError(std::string(what) + (name.empty() ? "" : " '" + name + "'") + " on the default stream while stream " +
                       stream_name(blocked->stream) + " is being captured into a CUDA graph (cuda.graph): the legacy "
                       "default stream waits for the capturing stream, which would invalidate the capture; use the "
                       "captured stream, or do it before or after the capture");
}

bool is_capturing(uintptr_t stream, int device) {
    if (g_active.load(std::memory_order_acquire) != 0) {
        std::lock_guard<std::mutex> lock(g_mutex);
        bool cpu = on_cpu();
        if (recording_locked(stream, cpu) || legacy_blocker_locked(stream, resolve_device(device), cpu)) return true;
    }
    if (on_cpu() || is_legacy_stream(stream)) return false;
    ctx::DeviceScope scope(resolve_device(device));
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    CJ_CU(cuStreamIsCapturing, reinterpret_cast<CUstream>(stream), &status);
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool capture_copy(uintptr_t stream, int device, const void* host, const std::function<void()>& run) {
    Recording* r = on_stream_use(stream, device, "a copy");
    bool cpu = on_cpu();
    if (!r && (cpu || !host || is_legacy_stream(stream) || !is_capturing(stream, device))) return false;
    if (host && !cpu && !page_locked(host, resolve_device(device)))
        throw CaptureError("a copy between device memory and pageable host memory cannot be captured into a "
                           "CUDA graph (the driver copies pageable memory synchronously): use a page-locked "
                           "host array (cuda.pinned_array, cuda.pinned)");
    if (!r || !r->cpu) return false;
    r->steps.push_back(run);
    return true;
}

void refuse_wait(uintptr_t stream, int device) {
    if (!is_capturing(stream, device)) return;
    throw CaptureError("waiting for " + (is_legacy_stream(stream) ? std::string("the default stream") : "stream " + stream_name(stream)) +
                       " (synchronize(), query() or a synchronous copy) while it or a stream of its device is being "
                       "captured into a CUDA graph would invalidate the capture: wait after the capture");
}

void refuse_staged_copy(uintptr_t stream, int device) {
    if (!is_capturing(stream, device)) return;
    throw CaptureError("this copy goes through a temporary host buffer (the host and device arrays' layouts "
                       "differ, or no destination array was given), which cannot be captured into a CUDA graph: "
                       "copy into an existing host array of the same shape and strides (page-locked on the GPU: "
                       "cuda.pinned_array)");
}

void check_allocation(uintptr_t stream) {
    if (on_stream_use(stream, -1, "allocating device memory"))
        throw CaptureError("allocating device memory on stream " + stream_name(stream) +
                           " while it is being captured into a CUDA graph (cuda.graph) is not supported: "
                           "allocate the arrays before the capture");
}

bool defer_free(int device, uintptr_t ptr) {
    if (g_active.load(std::memory_order_acquire) == 0) return false;
    std::lock_guard<std::mutex> lock(g_mutex);
    for (const Recording* r : g_recordings) {
        if (!r->cpu && r->device == device) {
            g_deferred_frees.emplace_back(device, ptr);
            return true;
        }
    }
    return false;
}

}  // namespace cj::graph

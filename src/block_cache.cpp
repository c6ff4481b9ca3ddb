#include "block_cache.h"

#include <atomic>
#include <deque>
#include <mutex>
#include <vector>

#include "context.h"
#include "driver.h"
#include "graph_capture.h"

// Why reuse without the pool is safe (also docs/INTERNALS.md, "Device memory: the block cache").
//
// Without the cache a DeviceBuffer is freed with cuMemFreeAsync on its device's legacy default stream. That
// stream waits for all earlier work of every blocking stream, and work issued later on a blocking stream waits
// for it, so the free is ordered after every kernel or copy that used the memory on the legacy stream or a
// blocking stream, and the pool hands the memory only to work ordered after the free.
//
// A cached block skips both driver calls, so that ordering must come from elsewhere. Work that used the block
// was issued before it was given back (the array was alive then). A fence, one cuEventRecord on the legacy
// stream issued after the give, is ordered after all of that work, as the free was; and every operation issued
// after the fence on the legacy stream or a blocking stream waits for it. So a block given back before the
// latest fence may serve any allocation whose work runs on the legacy stream or on blocking streams. A record
// costs about what the pool's alloc and free do together, so fences are batched: take() hands out only blocks
// given back before the latest fence (the oldest of the class first), records a new fence once kFenceBatch
// blocks of the device wait for one, and until then leaves the allocation to the pool. For an allocation on any other stream (one made
// non-blocking, the per-thread default stream, an external stream) take() also makes that stream wait for the
// fence (cuStreamWaitEvent), as the pool orders a cross-stream reuse. What the fence does not cover, work on a
// non-blocking stream that used the old array, the legacy-stream free did not cover either.
//
// While the device captures a graph (cuda.graph) nothing here touches the legacy stream: take() and release()
// leave the work to the pool; give() makes no driver call, so a block may still come back then.
//
// A block belongs to the context it was allocated in: close() (and Device.reset, which calls it) returns every
// block to the pool while the contexts still live and starts a new epoch; buffers of an older epoch are never
// cached, so a pointer of a released context is never handed out.

namespace cj::block_cache {
namespace {

constexpr size_t kMinClass = 512;
constexpr int kClasses = 12;        // 512 B ... 1 MiB
constexpr uint64_t kFenceBatch = 8;  // blocks given back that one fence makes reusable

struct Block {
    uintptr_t ptr;
    uint64_t given_at;  // the device's give count when it came back
};

struct DeviceCache {
    std::deque<Block> free[kClasses];  // oldest first
    size_t bytes = 0;
    uint64_t gives = 0;    // blocks given back so far
    uint64_t fenced = 0;   // `gives` when the last fence was recorded: blocks given at or before it are safe
    CUevent fence = nullptr;
};

std::mutex& g_mutex = *new std::mutex;                            // never destroyed (interpreter exit)
std::vector<DeviceCache>& g_devices = *new std::vector<DeviceCache>;
std::atomic<unsigned> g_epoch{0};  // read without the lock by every allocation

int size_class(size_t bytes) {
    int c = 0;
    for (size_t s = kMinClass; s < bytes; s <<= 1) ++c;
    return c;
}

DeviceCache& cache_of(int device) {
    if (device >= static_cast<int>(g_devices.size())) g_devices.resize(device + 1);
    return g_devices[device];
}

// Frees the blocks of one device in its context; the caller holds g_mutex.
size_t release_locked(int device, DeviceCache& c) {
    if (!c.bytes) return 0;
    size_t returned = c.bytes;
    ctx::DeviceScope scope(device);
    const auto& a = drv::api();
    for (auto& list : c.free) {
        for (const Block& b : list) a.cuMemFreeAsync(static_cast<CUdeviceptr>(b.ptr), CU_STREAM_LEGACY);
        list.clear();
    }
    c.bytes = 0;
    return returned;
}

}  // namespace

size_t allocation_size(size_t nbytes) {
    if (nbytes > kMaxCachedBlock) return nbytes;
    size_t s = kMinClass;
    while (s < nbytes) s <<= 1;
    return s;
}

unsigned epoch() { return g_epoch.load(std::memory_order_acquire); }

uintptr_t take(int device, size_t bytes, uintptr_t stream) {
    // While the device captures a graph a fence would invalidate the capture (the legacy stream waits for the
    // captured one): the pool serves, in the stream order the capture allows.
    const auto legacy = reinterpret_cast<uintptr_t>(CU_STREAM_LEGACY);  // named: stream 0 may be per-thread
    if (bytes > kMaxCachedBlock || graph::is_capturing(legacy, device)) return 0;
    std::lock_guard<std::mutex> lock(g_mutex);
    DeviceCache& c = cache_of(device);
    auto& list = c.free[size_class(bytes)];
    if (list.empty()) return 0;
    Block b = list.front();
    if (b.given_at > c.fenced) {
        if (c.gives - c.fenced < kFenceBatch) return 0;
        if (!c.fence) CJ_CU(cuEventCreate, &c.fence, CU_EVENT_DISABLE_TIMING);
        CJ_CU(cuEventRecord, c.fence, CU_STREAM_LEGACY);  // after the work of every blocking stream
        c.fenced = c.gives;
    }
    if (!graph::is_legacy_stream(stream)) CJ_CU(cuStreamWaitEvent, reinterpret_cast<CUstream>(stream), c.fence, 0);
    list.pop_front();  // only now: a failed driver call above leaves the block cached
    c.bytes -= bytes;
    return b.ptr;
}

bool give(int device, uintptr_t ptr, size_t bytes, unsigned buffer_epoch) {
    if (bytes > kMaxCachedBlock) return false;
    std::lock_guard<std::mutex> lock(g_mutex);
    if (buffer_epoch != g_epoch.load(std::memory_order_relaxed)) return false;
    DeviceCache& c = cache_of(device);
    if (c.bytes + bytes > kMaxCachedBytes) return false;
    c.free[size_class(bytes)].push_back({ptr, ++c.gives});
    c.bytes += bytes;
    return true;
}

size_t release(int device) {
    if (graph::is_capturing(0, device)) return 0;  // its frees would go to the legacy stream
    std::lock_guard<std::mutex> lock(g_mutex);
    if (device < 0 || device >= static_cast<int>(g_devices.size())) return 0;
    return release_locked(device, g_devices[device]);
}

void release_all_for_close() {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (size_t d = 0; d < g_devices.size(); ++d) {
        DeviceCache& c = g_devices[d];
        try {
            release_locked(static_cast<int>(d), c);
            if (c.fence) {
                ctx::DeviceScope scope(static_cast<int>(d));
                drv::api().cuEventDestroy(c.fence);
            }
        } catch (...) {
            // A context that cannot be made current any more took its memory with it.
        }
        c = DeviceCache{};
    }
    g_epoch.fetch_add(1, std::memory_order_acq_rel);
}

size_t cached_bytes(int device) {
    std::lock_guard<std::mutex> lock(g_mutex);
    return device >= 0 && device < static_cast<int>(g_devices.size()) ? g_devices[device].bytes : 0;
}

}  // namespace cj::block_cache

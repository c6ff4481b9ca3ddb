#include "staging.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "driver.h"
#include "errors.h"
#include "graph_capture.h"

namespace cj::staging {
namespace {

// A slot holds one piece. 16 MiB: its DMA (~300 us at 54 GB/s) dwarfs the ~5 us of an async copy and an event
// record and the wake-up of the copy threads; four slots per copy (64 MiB) keep the DMA busy while the host copies.
// Measured on the H100 (1 GiB each way, sweeping 4/8/16 MiB pieces, 2/3/4/6 slots, 4/8/12/16 threads): 16 MiB x 4
// slots x 16 threads copied 51 GB/s host->device and 50 device->host (pinned DMA: 54 and 55), where the earlier
// 8 MiB x 3 x 8 reached 30 and 28 (18 and 12 in the benchmark table's run).
constexpr size_t kSlotBytes = size_t{16} << 20;
constexpr size_t kDepth = 4;
// Up to 1 MiB a copy is one piece: splitting it would save at most the DMA of a piece (20 us at 54 GB/s)
// while adding an enqueue per piece; the whole copy is one memcpy, one async copy and (device->host) one wait.
constexpr size_t kOnePiece = size_t{1} << 20;
// One thread's memcpy from pageable memory peaks at 8-12 GB/s; parts of at least 256 KiB keep the wake-up of a
// helper thread (~10 us) small against its share of the work.
constexpr size_t kMinPart = size_t{256} << 10;
constexpr unsigned kMaxCopyThreads = 16;
// Slots a context keeps (128 MiB pinned: two threads' large copies); past this a copy takes the oldest idle slot,
// waiting for its DMA, instead of pinning more memory. Only when copies in flight hold every slot is another
// made: waiting then could deadlock copies that each hold some of their slots and wait for more.
constexpr int kMaxSlotsPerContext = 8;
// Batches up to this many bytes are staged even when their host memory is pinned (batch_layout).
constexpr size_t kAlwaysStage = size_t{64} << 10;
// Batched ranges start at this alignment in their slot (the DMA engines' preferred one).
constexpr size_t kRangeAlign = 256;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

std::atomic<uint64_t> g_staged{0}, g_direct{0};

// Host memcpy spread over a few threads, which start on first use and then wait for work. One large copy at
// a time uses them; a copy that finds them busy (another Python thread's) copies alone.
class CopyThreads {
 public:
    static CopyThreads& get() {
        static CopyThreads* t = new CopyThreads;  // never destroyed: workers may be waiting at exit
        return *t;
    }

    void copy(void* dst, const void* src, size_t n) {
        size_t parts = std::min<size_t>(n / kMinPart, wanted_threads());
        std::unique_lock<std::mutex> use(use_, std::try_to_lock);
        if (parts < 2 || !use.owns_lock()) {
            std::memcpy(dst, src, n);
            return;
        }
        start_workers();
        parts = std::min<size_t>(parts, workers_ + 1);
        size_t part = round_up((n + parts - 1) / parts, 4096);
        {
            std::lock_guard<std::mutex> lock(m_);
            dst_ = static_cast<char*>(dst);
            src_ = static_cast<const char*>(src);
            n_ = n;
            part_ = part;
            parts_ = parts;
            pending_ = parts - 1;
            ++job_;
        }
        wake_.notify_all();
        std::memcpy(dst, src, std::min(part, n));  // part 0 on the calling thread
        std::unique_lock<std::mutex> lock(m_);
        done_.wait(lock, [&] { return pending_ == 0; });
    }

 private:
    static size_t wanted_threads() {
        unsigned hw = std::thread::hardware_concurrency();
        return std::max(1u, std::min(hw ? hw : 1u, kMaxCopyThreads));
    }

    // Workers are per process: a forked child starts its own (threads do not survive fork).
    void start_workers() {
        if (pid_ == getpid()) return;
        pid_ = getpid();
        // Only the workers that started take parts (a part no thread copies would be waited for forever), and
        // they start at the current job, not at one a parent process published before a fork.
        size_t started = 0;
        uint64_t now;
        {
            std::lock_guard<std::mutex> lock(m_);
            now = job_;
        }
        try {
            for (; started + 1 < wanted_threads(); ++started)
                std::thread([this, index = started + 1, now] { work(index, now); }).detach();
        } catch (const std::system_error&) {  // no more threads (limits): copy with those there are
        }
        workers_ = started;
    }

    void work(size_t index, uint64_t seen) {
        for (;;) {
            std::unique_lock<std::mutex> lock(m_);
            wake_.wait(lock, [&] { return job_ != seen; });
            seen = job_;
            if (index >= parts_) continue;
            size_t begin = index * part_, len = begin < n_ ? std::min(part_, n_ - begin) : 0;
            char* dst = dst_ + begin;
            const char* src = src_ + begin;
            lock.unlock();
            std::memcpy(dst, src, len);
            lock.lock();
            if (--pending_ == 0) done_.notify_one();
        }
    }

    std::mutex use_, m_;
    std::condition_variable wake_, done_;
    uint64_t job_ = 0;
    char* dst_ = nullptr;
    const char* src_ = nullptr;
    size_t n_ = 0, part_ = 0, parts_ = 0, pending_ = 0, workers_ = 0;
    pid_t pid_ = 0;
};

void host_copy(void* dst, const void* src, size_t n) { CopyThreads::get().copy(dst, src, n); }

// One pinned slot and the event recorded after the last DMA that reads or writes it.
struct Slot {
    void* host = nullptr;
    CUevent done = nullptr;
    unsigned generation = 0;
};

void free_slot(Slot* s) {
    const auto& a = drv::api();
    a.cuEventSynchronize(s->done);  // no DMA may still use the memory
    a.cuEventDestroy(s->done);
    a.cuMemFreeHost(s->host);
    delete s;
}

// Idle slots per context (pinned memory belongs to the context that allocated it).
struct Pools {
    std::mutex m;
    unsigned generation = 0;
    std::unordered_map<CUcontext, std::vector<Slot*>> idle;
    std::unordered_map<CUcontext, int> made;
};

Pools& pools() {
    static Pools* p = new Pools;  // never destroyed: the driver may be gone at exit
    return *p;
}

Slot* new_slot(unsigned generation) {
    const auto& a = drv::api();
    auto* s = new Slot;
    s->generation = generation;
    if (a.cuMemHostAlloc(&s->host, kSlotBytes, 0) != CUDA_SUCCESS) {
        delete s;
        return nullptr;
    }
    if (a.cuEventCreate(&s->done, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) {
        a.cuMemFreeHost(s->host);
        delete s;
        return nullptr;
    }
    return s;
}

// An idle slot whose last DMA has finished, else a new one; nullptr when no pinned memory can be had.
Slot* acquire(CUcontext context) {
    Pools& p = pools();
    std::unique_lock<std::mutex> lock(p.m);
    auto& idle = p.idle[context];
    for (size_t i = 0; i < idle.size(); ++i) {
        if (drv::api().cuEventQuery(idle[i]->done) == CUDA_ERROR_NOT_READY) continue;
        Slot* s = idle[i];
        idle.erase(idle.begin() + static_cast<std::ptrdiff_t>(i));
        return s;
    }
    int& made = p.made[context];
    if (made >= kMaxSlotsPerContext && !idle.empty()) {
        Slot* s = idle.front();
        idle.erase(idle.begin());
        lock.unlock();
        drv::check(drv::api().cuEventSynchronize(s->done), "cuEventSynchronize");
        return s;
    }
    ++made;
    unsigned generation = p.generation;
    lock.unlock();
    Slot* s = new_slot(generation);
    if (!s) {
        std::lock_guard<std::mutex> again(p.m);
        if (p.generation == generation) --p.made[context];
    }
    return s;
}

void release(CUcontext context, Slot* s) {
    Pools& p = pools();
    std::unique_lock<std::mutex> lock(p.m);
    if (s->generation == p.generation) {
        p.idle[context].push_back(s);
        return;
    }
    lock.unlock();
    // Its context's pool was forgotten meanwhile: ctx::close released the context, and its pinned memory and
    // event with it. Those handles are dead (or already another context's): only the bookkeeping is left. (Where
    // another library still holds the primary context, its 16 MiB stay pinned until that library lets go, as a
    // DeviceBuffer of an older epoch does.)
    delete s;
}

// The slots one copy holds; handed back (with their DMA maybe still running) when the copy returns or throws.
class Slots {
 public:
    explicit Slots(size_t want) {
        drv::check(drv::api().cuCtxGetCurrent(&context_), "cuCtxGetCurrent");
        for (size_t i = 0; i < want; ++i) {
            Slot* s = acquire(context_);
            if (!s) break;
            held_.push_back(s);
        }
    }
    ~Slots() {
        for (Slot* s : held_) release(context_, s);
    }
    Slots(const Slots&) = delete;
    Slots& operator=(const Slots&) = delete;
    size_t size() const { return held_.size(); }
    Slot& operator[](size_t i) const { return *held_[i % held_.size()]; }

 private:
    CUcontext context_ = nullptr;
    std::vector<Slot*> held_;
};

// Staging pays off for pageable memory only: pinned, registered or managed memory is known to CUDA.
bool pageable(const void* host) { return !drv::host_memory_known(host); }

// A stream under capture (or one whose capture state cannot be read) keeps the driver's path. The legacy default
// stream is never captured (work there during another stream's capture fails in the driver whichever path copies).
bool capturing(CUstream stream) {
    if (graph::is_legacy_stream(reinterpret_cast<uintptr_t>(stream))) return false;
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    return drv::api().cuStreamIsCapturing(stream, &status) != CUDA_SUCCESS || status != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool should_stage(const void* host, CUstream stream) { return pageable(host) && !capturing(stream); }

bool use_driver() {
    ++g_direct;
    return false;
}

// The piece size of an n-byte copy: one piece up to kOnePiece, else about a quarter (so even a few-MiB copy
// overlaps memcpy with DMA), between kOnePiece and a slot.
size_t piece_bytes(size_t n) {
    if (n <= kOnePiece) return n;
    return std::clamp(round_up(n / 4, size_t{64} << 10), kOnePiece, kSlotBytes);
}

}  // namespace

bool copy_htod(CUdeviceptr dst, const void* src, size_t n, CUstream stream) {
    if (!should_stage(src, stream)) return use_driver();
    const size_t piece = piece_bytes(n), pieces = (n + piece - 1) / piece;
    Slots slots(std::min(kDepth, pieces));
    if (!slots.size()) return use_driver();
    const auto* from = static_cast<const char*>(src);
    for (size_t i = 0; i < pieces; ++i) {
        size_t off = i * piece, len = std::min(piece, n - off);
        Slot& s = slots[i];
        if (i >= slots.size()) CJ_CU(cuEventSynchronize, s.done);  // the DMA of its previous piece has read it
        host_copy(s.host, from + off, len);
        CJ_CU(cuMemcpyHtoDAsync, dst + off, s.host, len, stream);
        CJ_CU(cuEventRecord, s.done, stream);
    }
    ++g_staged;
    return true;
}

bool copy_dtoh(void* dst, CUdeviceptr src, size_t n, CUstream stream) {
    if (!should_stage(dst, stream)) return use_driver();
    const size_t piece = piece_bytes(n), pieces = (n + piece - 1) / piece;
    Slots slots(std::min(kDepth, pieces));
    if (!slots.size()) return use_driver();
    auto* to = static_cast<char*>(dst);
    auto issue = [&](size_t i) {
        size_t off = i * piece;
        CJ_CU(cuMemcpyDtoHAsync, slots[i].host, src + off, std::min(piece, n - off), stream);
        CJ_CU(cuEventRecord, slots[i].done, stream);
    };
    for (size_t i = 0; i < slots.size(); ++i) issue(i);
    for (size_t i = 0; i < pieces; ++i) {
        size_t off = i * piece;
        CJ_CU(cuEventSynchronize, slots[i].done);
        host_copy(to + off, slots[i].host, std::min(piece, n - off));  // the next pieces' DMA runs meanwhile
        if (i + slots.size() < pieces) issue(i + slots.size());
    }
    ++g_staged;
    return true;
}

namespace {

// Where a batch's ranges go in its slot.
struct Layout {
    std::vector<size_t> offsets;  // each range's offset in the slot; empty: the batch does not go through one
    CUdeviceptr lo = 0;           // span > 0: the ranges lie in [lo, lo + span) of a Scratch, at lo + offset,
    size_t span = 0;              // and that whole extent is copied by one DMA
};

Layout batch_layout(const std::vector<Range>& ranges, CUstream stream, Scratch scratch) {
    Layout l;
    size_t end = 0, total = 0;
    CUdeviceptr lo = ~CUdeviceptr{0}, hi = 0;
    for (const Range& r : ranges) {
        l.offsets.push_back(end);
        end = round_up(end + r.n, kRangeAlign);
        total += r.n;
        if (!r.n) continue;
        lo = std::min(lo, r.device);
        hi = std::max(hi, r.device + r.n);
    }
    // A small batch goes through the slot whatever its host memory: copying a few KiB costs less than asking the
    // driver what each range is. A larger one only when some range is pageable (pinned ones DMA directly).
    bool stage = total && (total <= kAlwaysStage ||
                           std::any_of(ranges.begin(), ranges.end(), [](const Range& r) { return r.n && pageable(r.host); }));
    if (!stage || capturing(stream)) {
        l.offsets.clear();
        return l;
    }
    // One DMA over the extent only when the ranges fill it but for their alignment padding: the extent of a copy
    // back must not drag along arrays between the ranges that are not copied back (read-only ones, say).
    size_t used = std::count_if(ranges.begin(), ranges.end(), [](const Range& r) { return r.n != 0; });
    if (scratch.n && lo >= scratch.base && hi <= scratch.base + scratch.n && hi - lo <= kSlotBytes &&
        hi - lo <= total + used * kRangeAlign) {
        for (size_t i = 0; i < ranges.size(); ++i) l.offsets[i] = ranges[i].n ? ranges[i].device - lo : 0;
        l.lo = lo;
        l.span = hi - lo;
        return l;
    }
    if (end > kSlotBytes) l.offsets.clear();
    return l;
}

}  // namespace

bool copy_htod_batch(const std::vector<Range>& ranges, CUstream stream, Scratch scratch) {
    Layout l = batch_layout(ranges, stream, scratch);
    Slots slots(l.offsets.empty() ? 0 : 1);
    if (!slots.size()) return false;
    auto* block = static_cast<char*>(slots[0].host);
    for (size_t i = 0; i < ranges.size(); ++i) {
        if (!ranges[i].n) continue;
        std::memcpy(block + l.offsets[i], ranges[i].host, ranges[i].n);
        if (!l.span) CJ_CU(cuMemcpyHtoDAsync, ranges[i].device, block + l.offsets[i], ranges[i].n, stream);
    }
    if (l.span) CJ_CU(cuMemcpyHtoDAsync, l.lo, block, l.span, stream);  // the gaps are the scratch's own bytes
    CJ_CU(cuEventRecord, slots[0].done, stream);
    ++g_staged;
    return true;
}

bool copy_dtoh_batch(const std::vector<Range>& ranges, CUstream stream, Scratch scratch) {
    Layout l = batch_layout(ranges, stream, scratch);
    Slots slots(l.offsets.empty() ? 0 : 1);
    if (!slots.size()) return false;
    auto* block = static_cast<char*>(slots[0].host);
    if (l.span)
        CJ_CU(cuMemcpyDtoHAsync, block, l.lo, l.span, stream);
    else
        for (size_t i = 0; i < ranges.size(); ++i)
            if (ranges[i].n) CJ_CU(cuMemcpyDtoHAsync, block + l.offsets[i], ranges[i].device, ranges[i].n, stream);
    CJ_CU(cuEventRecord, slots[0].done, stream);
    CJ_CU(cuEventSynchronize, slots[0].done);  // one wait for the whole batch
    for (size_t i = 0; i < ranges.size(); ++i)
        if (ranges[i].n) std::memcpy(ranges[i].host, block + l.offsets[i], ranges[i].n);
    ++g_staged;
    return true;
}

void forget_pools() {
    Pools& p = pools();
    std::unordered_map<CUcontext, std::vector<Slot*>> idle;
    {
        std::lock_guard<std::mutex> lock(p.m);
        ++p.generation;
        idle.swap(p.idle);
        p.made.clear();
    }
    const auto& a = drv::api();
    CUcontext saved = nullptr;
    a.cuCtxGetCurrent(&saved);
    for (auto& [context, slots] : idle) {
        a.cuCtxSetCurrent(context);  // each slot is freed in the context that allocated it
        for (Slot* s : slots) free_slot(s);
    }
    a.cuCtxSetCurrent(saved);
}

Counts counts() { return {g_staged.load(), g_direct.load()}; }

}  // namespace cj::staging

#include "context.h"

#include <atomic>
#include <mutex>
#include <vector>

#include "block_cache.h"
#include "driver.h"
#include "staging.h"

namespace cj::ctx {
namespace {

std::mutex& g_mutex = *new std::mutex;  // never destroyed: see INTERNALS, interpreter exit
std::vector<CUcontext>& g_primary = *new std::vector<CUcontext>;  // per ordinal; null until retained
std::atomic<unsigned> g_generation{0};  // bumped by close(): every thread's cached context is stale

thread_local int t_device = 0;
thread_local CUcontext t_context = nullptr;  // the primary context of t_device, once looked up
thread_local unsigned t_generation = 0;

CUcontext primary_locked(int ordinal) {
    const auto& a = drv::api();
    if (g_primary.empty()) {
        int n = 0;
        CJ_CU(cuDeviceGetCount, &n);
        g_primary.assign(n, nullptr);
    }
    if (ordinal < 0 || ordinal >= static_cast<int>(g_primary.size()))
        throw SupportError("device " + std::to_string(ordinal) + " does not exist: there are " +
                           std::to_string(g_primary.size()) + " CUDA devices");
    if (!g_primary[ordinal]) {
        CUdevice dev;
        drv::check(a.cuDeviceGet(&dev, ordinal), "cuDeviceGet");
        drv::check(a.cuDevicePrimaryCtxRetain(&g_primary[ordinal], dev), "cuDevicePrimaryCtxRetain");
    }
    return g_primary[ordinal];
}

}  // namespace

CUcontext primary(int ordinal) {
    std::lock_guard<std::mutex> lock(g_mutex);
    return primary_locked(ordinal);
}

CUcontext ensure() {
    const auto& a = drv::api();
    unsigned generation = g_generation.load(std::memory_order_acquire);
    if (!t_context || t_generation != generation) {
        t_context = primary(t_device);
        t_generation = generation;
    }
    CUcontext cur = nullptr;
    a.cuCtxGetCurrent(&cur);
    if (cur != t_context) CJ_CU(cuCtxSetCurrent, t_context);
    return t_context;
}

int current_device() { return t_device; }

CUdevice current_cu_device() {
    CUdevice dev;
    CJ_CU(cuDeviceGet, &dev, t_device);
    return dev;
}

void select(int ordinal) {
    CUcontext c = primary(ordinal);
    CJ_CU(cuCtxSetCurrent, c);
    t_device = ordinal;
    t_context = c;
    t_generation = g_generation.load(std::memory_order_acquire);
}

void close() {
    block_cache::release_all_for_close();  // while the contexts its blocks belong to still live
    std::lock_guard<std::mutex> lock(g_mutex);
    const auto& a = drv::api();
    staging::forget_pools();  // their pinned memory goes with the contexts
    for (size_t i = 0; i < g_primary.size(); ++i) {
        if (!g_primary[i]) continue;
        CUdevice dev;
        if (a.cuDeviceGet(&dev, static_cast<int>(i)) == CUDA_SUCCESS) a.cuDevicePrimaryCtxRelease(dev);
        g_primary[i] = nullptr;
    }
    g_generation.fetch_add(1, std::memory_order_acq_rel);
    a.cuCtxSetCurrent(nullptr);
}

DeviceScope::DeviceScope(int ordinal) {
    if (ordinal < 0 || ordinal == t_device) {
        context_ = ensure();
        return;
    }
    context_ = primary(ordinal);
    CJ_CU(cuCtxGetCurrent, &saved_);
    if (saved_ != context_) {
        CJ_CU(cuCtxSetCurrent, context_);
        switched_ = true;
    }
}

DeviceScope::~DeviceScope() {
    if (switched_) drv::api().cuCtxSetCurrent(saved_);
}

}  // namespace cj::ctx

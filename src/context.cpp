#include "context.h"

#include <mutex>
#include <vector>

#include "driver.h"

namespace cj::ctx {
namespace {

std::mutex& g_mutex = *new std::mutex;  // never destroyed: see INTERNALS, interpreter exit
int g_device = 0;
std::vector<CUcontext>& g_primary = *new std::vector<CUcontext>;  // per ordinal; null until retained

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

CUcontext ensure() {
    const auto& a = drv::api();
    thread_local CUcontext t_last = nullptr;
    CUcontext cur = nullptr;
    a.cuCtxGetCurrent(&cur);
    if (cur && cur == t_last) return cur;
    CUcontext want;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        want = primary_locked(g_device);
    }
    if (cur != want) CJ_CU(cuCtxSetCurrent, want);
    t_last = want;
    return want;
}

int current_device() { return g_device; }

CUdevice current_cu_device() {
    CUdevice dev;
    CJ_CU(cuDeviceGet, &dev, g_device);
    return dev;
}

void select(int ordinal) {
    std::lock_guard<std::mutex> lock(g_mutex);
    primary_locked(ordinal);
    g_device = ordinal;
    CJ_CU(cuCtxSetCurrent, g_primary[ordinal]);
}

void close() {
    std::lock_guard<std::mutex> lock(g_mutex);
    const auto& a = drv::api();
    for (size_t i = 0; i < g_primary.size(); ++i) {
        if (!g_primary[i]) continue;
        CUdevice dev;
        if (a.cuDeviceGet(&dev, static_cast<int>(i)) == CUDA_SUCCESS) a.cuDevicePrimaryCtxRelease(dev);
        g_primary[i] = nullptr;
    }
    a.cuCtxSetCurrent(nullptr);
}

}  // namespace cj::ctx

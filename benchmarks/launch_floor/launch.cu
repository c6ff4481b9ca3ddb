// benchmarks/launch_floor: is any driver launch path cheaper per launch than cuLaunchKernel on the legacy stream?
// (µs per launch: 20000 launches of an empty kernel then a synchronisation, median of 5; 3 rounds)
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>
__global__ void empty0() {}
__global__ void empty3(float*, float*, float*) {}
static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static double per(std::function<void()> f) {
    std::vector<double> r;
    for (int k = 0; k < 5; ++k) {
        cuCtxSynchronize();
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 20000; ++i) {
            f();
        }
        cuCtxSynchronize();
        r.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 20000 * 1e6);
    }
    return median(r);
}
int main() {
    cudaFree(nullptr);
    CUfunction f0, f3;
    cudaGetFuncBySymbol(&f0, (const void*)empty0);
    cudaGetFuncBySymbol(&f3, (const void*)empty3);
    float* p; cudaMalloc(&p, 4096);
    void* args3[] = {&p, &p, &p};
    unsigned char buf[24]; std::memcpy(buf, &p, 8); std::memcpy(buf + 8, &p, 8); std::memcpy(buf + 16, &p, 8);
    size_t bsz = 24;
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &bsz, CU_LAUNCH_PARAM_END};
    CUstream sb, snb; cuStreamCreate(&sb, 0); cuStreamCreate(&snb, CU_STREAM_NON_BLOCKING);
    CUlaunchConfig cfg{}; cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1; cfg.blockDimX = 32; cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.hStream = nullptr;
    struct V { const char* name; std::function<void()> f; };
    std::vector<V> vs = {
        {"legacy f0", [&] { cuLaunchKernel(f0, 1,1,1, 32,1,1, 0, nullptr, nullptr, nullptr); }},
        {"legacy f3 params", [&] { cuLaunchKernel(f3, 1,1,1, 32,1,1, 0, nullptr, args3, nullptr); }},
        {"legacy f3 extra", [&] { cuLaunchKernel(f3, 1,1,1, 32,1,1, 0, nullptr, nullptr, extra); }},
        {"per-thread f0", [&] { cuLaunchKernel(f0, 1,1,1, 32,1,1, 0, CU_STREAM_PER_THREAD, nullptr, nullptr); }},
        {"blocking stream f0", [&] { cuLaunchKernel(f0, 1,1,1, 32,1,1, 0, sb, nullptr, nullptr); }},
        {"nonblocking stream f0", [&] { cuLaunchKernel(f0, 1,1,1, 32,1,1, 0, snb, nullptr, nullptr); }},
        {"legacy f0 LaunchKernelEx", [&] { cuLaunchKernelEx(&cfg, f0, nullptr, nullptr); }},
        {"runtime <<<>>> f0", [&] { empty0<<<1, 32>>>(); }},
    };
    for (int round = 0; round < 3; ++round)
        for (auto& v : vs) std::printf("%d %-28s %.3f us\n", round, v.name, per(v.f));
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("done %s\n", cudaGetErrorString(e));
}

// benchmarks/launch_floor: cuLaunchKernel of an empty kernel in a C loop, as a C++ program (-DMAIN) or a library for
// processes.py (a bare Python process, one with NumPy, one with cudajit).
#include <cuda.h>
#include <chrono>
#include <cstdio>
#include <algorithm>
#include <vector>
static CUmodule mod; static CUfunction f0; static CUcontext own;
extern "C" int init(const char* cubin, int make_ctx) {
    if (make_ctx) {
        if (cuInit(0)) return 3;
        CUdevice d; cuDeviceGet(&d, 0);
        if (cuDevicePrimaryCtxRetain(&own, d)) return 4;
        cuCtxSetCurrent(own);
    }
    CUcontext c = nullptr;
    if (cuCtxGetCurrent(&c) != CUDA_SUCCESS || !c) return 2;
    if (cuModuleLoad(&mod, cubin)) return 1;
    if (cuModuleGetFunction(&f0, mod, "empty0")) return 5;
    return 0;
}
extern "C" double loop(int n) {
    std::vector<double> r;
    for (int k = 0; k < 5; ++k) {
        cuCtxSynchronize();
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) cuLaunchKernel(f0, 1,1,1, 32,1,1, 0, nullptr, nullptr, nullptr);
        cuCtxSynchronize();
        r.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n * 1e6);
    }
    std::sort(r.begin(), r.end());
    return r[2];
}
#ifdef MAIN
int main(int argc, char** argv) {
    if (int e = init(argv[1], 1)) { std::printf("init %d\n", e); return 1; }
    for (int round = 0; round < 3; ++round) std::printf("%s round %d C++ process loop %.3f us\n", argc > 2 ? argv[2] : "", round, loop(20000));
}
#endif

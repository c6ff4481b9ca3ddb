// benchmarks/launch_floor: cuLaunchKernel in a C loop, for inproc.py (ctypes) in a process where cudajit made the context current.
#include <cuda.h>
#include <chrono>
static CUmodule mod; static CUfunction f0, f3; static CUdeviceptr p; static void* args3[3] = {&p, &p, &p};
extern "C" int init(const char* cubin) {  // in the context current on this thread (cudajit's)
    CUcontext c = nullptr;
    if (cuCtxGetCurrent(&c) != CUDA_SUCCESS || !c) return 2;
    if (cuModuleLoad(&mod, cubin)) return 1;
    cuModuleGetFunction(&f0, mod, "empty0"); cuModuleGetFunction(&f3, mod, "empty3");
    cuMemAlloc(&p, 4096);
    return 0;
}
extern "C" double loop(int which, int n) {   // us per launch, n launches then sync
    cuCtxSynchronize();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i)
        cuLaunchKernel(which ? f3 : f0, 1,1,1, 32,1,1, 0, nullptr, which ? args3 : nullptr, nullptr);
    cuCtxSynchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n * 1e6;
}
extern "C" void one(int which) { cuLaunchKernel(which ? f3 : f0, 1,1,1, 32,1,1, 0, nullptr, which ? args3 : nullptr, nullptr); }

// What the hardware and the driver allow, measured without Python, for bench_table.py's rows (built there with
// `nvcc -O2 floor.cu -lcuda`; prints one JSON line). Launch rows as bench_common.per_launch measures them: 20000
// launches of an empty kernel on the legacy default stream then a synchronisation, median of 5 rounds; and as
// bench_common.queued_us measures them: the host's own time per cuLaunchKernel and the GPU's own time per empty
// kernel, 500 launches queued behind a busy kernel (-1: the launches outlasted it). saxpy as
// the benchmark's kernel (one element per thread, 256 threads per block, 2^26 float32 of random data) and, for
// contrast, with two elements per thread; CUDA events, median of 50: one launch between two events, and (the
// "kernel" figure) each timed launch queued behind an identical one, as bench_common.event_ms(behind=True).
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

__global__ void empty0() {}
__global__ void spin(double* out, long long n) {  // one thread busy for a while: launches issued meanwhile queue up
    double acc = 0;
    for (long long i = 0; i < n; ++i) acc = acc * 0.9999999 + 1.0;
    out[0] = acc;
}
__global__ void empty3(float*, float*, float*) {}

__global__ void saxpy1(float a, const float* x, const float* y, float* out, long long n) {
    long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}

__global__ void saxpy2(float a, const float2* x, const float2* y, float2* out, long long n2) {
    long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n2) {
        float2 u = x[i], v = y[i];
        out[i] = make_float2(a * u.x + v.x, a * u.y + v.y);
    }
}

// Uniform [0, 1) floats from a hash of the index: real data to time on (zeros can run faster than real data).
__global__ void fill_random(float* p, long long n, unsigned seed) {
    long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
        h ^= h >> 16;
        h *= 0x7feb352du;
        h ^= h >> 15;
        p[i] = static_cast<float>(h >> 8) * (1.0f / 16777216.0f);
    }
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static double per_launch_us(CUfunction f, void** args) {
    std::vector<double> rounds;
    for (int r = 0; r < 5; ++r) {
        cuCtxSynchronize();
        auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < 20000; ++k) cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr);
        cuCtxSynchronize();
        rounds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 20000 * 1e6);
    }
    return median(rounds);
}

// As bench_common.queued_us: {host us per launch, GPU us per kernel}, medians of 7 rounds of 500 launches issued
// while a ~70 ms kernel keeps the GPU busy; {-1, -1} when the launches outlasted it (the GPU waited for the host).
static std::pair<double, double> queued_us(CUfunction f, void** args, double* out) {
    cudaEvent_t s, e;
    cudaEventCreate(&s);
    cudaEventCreate(&e);
    const int n = 500;
    const long long spin_n = 16000000;
    cudaDeviceSynchronize();
    cudaEventRecord(s);
    spin<<<1, 1>>>(out, spin_n);
    cudaEventRecord(e);
    cudaEventSynchronize(e);
    float busy_ms = 0;
    cudaEventElapsedTime(&busy_ms, s, e);
    std::vector<double> hosts, gpus;
    for (int r = 0; r < 7; ++r) {
        cudaDeviceSynchronize();
        spin<<<1, 1>>>(out, spin_n);
        cudaEventRecord(s);
        auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < n; ++k) cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr);
        double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        cudaEventRecord(e);
        cudaEventSynchronize(e);
        if (host > 0.8e-3 * busy_ms) return {-1, -1};
        float ms = 0;
        cudaEventElapsedTime(&ms, s, e);
        hosts.push_back(host / n * 1e6);
        gpus.push_back(ms * 1e3 / n);
    }
    return {median(hosts), median(gpus)};
}

template <class Launch>
static double event_ms(Launch launch, int reps, bool behind = false) {
    cudaEvent_t s, e;
    cudaEventCreate(&s);
    cudaEventCreate(&e);
    launch();
    cudaDeviceSynchronize();
    std::vector<double> ts;
    for (int r = 0; r < reps; ++r) {
        if (behind) launch();
        cudaEventRecord(s);
        launch();
        cudaEventRecord(e);
        cudaEventSynchronize(e);
        float ms = 0;
        cudaEventElapsedTime(&ms, s, e);
        ts.push_back(ms);
    }
    return median(ts);
}

int main() {
    if (cudaFree(nullptr) != cudaSuccess) {
        std::printf("{\"error\": \"no CUDA device\"}\n");
        return 1;
    }
    CUfunction f0, f3;
    cudaGetFuncBySymbol(&f0, reinterpret_cast<const void*>(empty0));
    cudaGetFuncBySymbol(&f3, reinterpret_cast<const void*>(empty3));
    float* p = nullptr;
    cudaMalloc(&p, 4096);
    void* args3[] = {&p, &p, &p};
    cuLaunchKernel(f0, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr);
    double launch0 = per_launch_us(f0, nullptr);
    double launch3 = per_launch_us(f3, args3);
    double* busy_out = nullptr;
    cudaMalloc(&busy_out, 8);
    auto q3 = queued_us(f3, args3, busy_out);
    auto q0 = queued_us(f0, nullptr, busy_out);

    const long long n = 1LL << 26;
    float *x, *y, *o;
    cudaMalloc(&x, n * 4);
    cudaMalloc(&y, n * 4);
    cudaMalloc(&o, n * 4);
    fill_random<<<(n + 255) / 256, 256>>>(x, n, 1u);
    fill_random<<<(n + 255) / 256, 256>>>(y, n, 2u);
    const double bytes = 3.0 * 4 * n;
    auto one = [&] { saxpy1<<<(n + 255) / 256, 256>>>(2.5f, x, y, o, n); };
    double s1 = event_ms(one, 50);
    double s1_kernel = event_ms(one, 50, true);
    double s2 = event_ms([&] {
        saxpy2<<<(n / 2 + 255) / 256, 256>>>(2.5f, reinterpret_cast<float2*>(x), reinterpret_cast<float2*>(y),
                                              reinterpret_cast<float2*>(o), n / 2);
    }, 50);
    if (cudaDeviceSynchronize() != cudaSuccess) {
        std::printf("{\"error\": \"%s\"}\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    one();                                          // the timed kernel's result, checked against the host's
    std::vector<float> hx(n), hy(n), ho(n);
    cudaMemcpy(hx.data(), x, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(hy.data(), y, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(ho.data(), o, n * 4, cudaMemcpyDeviceToHost);
    for (long long i = 0; i < n; ++i) {
        float want = 2.5f * hx[i] + hy[i];
        if (std::fabs(ho[i] - want) > 1e-6f * (1.0f + std::fabs(want))) {
            std::printf("{\"error\": \"saxpy wrong at %lld: %g, want %g\"}\n", i, ho[i], want);
            return 1;
        }
    }
    std::printf("{\"launch0_us\": %.4f, \"launch3_us\": %.4f, \"launch3_host_us\": %.4f, \"launch0_host_us\": %.4f, "
                "\"gpu_empty_kernel_us\": %.4f, \"saxpy_GBps\": %.1f, \"saxpy_kernel_GBps\": %.1f, "
                "\"saxpy2_GBps\": %.1f}\n", launch0, launch3, q3.first, q0.first, q0.second, bytes / s1 / 1e6,
                bytes / s1_kernel / 1e6, bytes / s2 / 1e6);
    return 0;
}

"""Why is the seeds' naive matmul at 4096² a hair slower than numba-cuda's? Variants of the generated C++ and of the
NVRTC flags, timed against numba-cuda's build of the same Python kernel in one process (CUDA events, medians of
interleaved repetitions). Run on the device: ``python3 benchmarks/bench_naive_mm_variants.py``."""
import os
import sys

import numpy as np

np.row_stack = np.vstack          # numba-cuda 0.30 under NumPy 2.5
sys.path.insert(0, os.path.dirname(__file__))
import seeds_kernels                                     # noqa: E402
from cudajit import _backend, _core, cuda                        # noqa: E402
from cudajit.compiler import CompileOptions, compile_kernel, types as T  # noqa: E402
from cudajit.cuda import build                           # noqa: E402

N, REPS = 4096, 7
LOOP = "        for (int64_t k = 0; k < A.shape[1]; ++k) {\n            tmp += A(row, k) * B(k, col);"
UNROLLED = """        int64_t K = A.shape[1]; int64_t k = 0;
        for (; k + 4 <= K; k += 4) {
            float a0 = A(row, k), a1 = A(row, k + 1), a2 = A(row, k + 2), a3 = A(row, k + 3);
            float b0 = B(k, col), b1 = B(k + 1, col), b2 = B(k + 2, col), b3 = B(k + 3, col);
            tmp += a0 * b0; tmp += a1 * b1; tmp += a2 * b2; tmp += a3 * b3;
        }
        for (; k < K; ++k) {
            tmp += A(row, k) * B(k, col);"""
HOISTED = ("        const float* ap = &A(row, 0); const float* bp = &B(0, col); int64_t ldb = B.shape[1];\n"
           "        for (int64_t k = 0; k < A.shape[1]; ++k) {\n            tmp += ap[k] * bp[k * ldb];")


def variants(src):
    assert LOOP in src
    flags = build.nvrtc_options(CompileOptions())
    yield "as generated", src, flags
    yield "#pragma unroll 4", src.replace(LOOP, "#pragma unroll 4\n" + LOOP), flags
    yield "__ldg loads", src.replace("tmp += A(row, k) * B(k, col);",
                                     "tmp += __ldg(&A(row, k)) * __ldg(&B(k, col));"), flags
    yield "hoisted row pointers", src.replace(LOOP, HOISTED), flags
    yield "strided (layout A) addressing", src.replace("cj::C>", "cj::A>"), flags
    yield "hand-unrolled by 4", src.replace(LOOP, UNROLLED), flags
    yield "--extra-device-vectorization", src, flags + ["--extra-device-vectorization"]
    yield "-Xptxas expensive optimizations", src, flags + ["-Xptxas=--allow-expensive-optimizations=true"]
    yield "-Xptxas -O2", src, flags + ["-Xptxas=-O2"]


def main():
    cj = seeds_kernels.load("cudajit")
    nb = seeds_kernels.load("numba")
    import numba.cuda as ncuda
    ks = compile_kernel(cj.naive_mm.py_func, (T.float32[:, ::1], T.float32[:, ::1], T.float64[:, ::1]))
    params = [(p.kind, p.code, p.ndim) for p in ks.params]
    kernels = {name: _core.Kernel(ks.entry, params,
                                  _core.GpuModule(_core.nvrtc_compile(src, "k.cu", flags, _backend.GPU.arch(), True)))
               for name, src, flags in variants(ks.source)}
    rng = np.random.default_rng(0)
    A = cuda.to_device(rng.normal(size=(N, N)).astype(np.float32))
    B = cuda.to_device(rng.normal(size=(N, N)).astype(np.float32))
    C, Cn = cuda.device_array((N, N)), ncuda.device_array((N, N))
    An, Bn = ncuda.as_cuda_array(A), ncuda.as_cuda_array(B)
    C_as_numba, Cn_as_cudajit = ncuda.as_cuda_array(C), cuda.as_cuda_array(Cn)   # same memory, other wrapper
    grid, block = ((N + 15) // 16, (N + 15) // 16), (16, 16)

    def timed(launch, lib):
        e0, e1 = lib.event(), lib.event()
        e0.record()
        launch()
        e1.record()
        e1.synchronize()
        return lib.event_elapsed_time(e0, e1)

    runs = {f"cudajit, {name}": (lambda k=k: k.launch(grid, block, 0, 0, A, B, C), cuda) for name, k in kernels.items()}
    runs["cudajit, as generated, into numba-cuda's output array"] = (
        lambda: kernels["as generated"].launch(grid, block, 0, 0, A, B, Cn_as_cudajit), cuda)
    runs["numba-cuda"] = (lambda: nb.naive_mm[grid, block](An, Bn, Cn), ncuda)
    runs["numba-cuda, into cudajit's output array"] = (lambda: nb.naive_mm[grid, block](An, Bn, C_as_numba), ncuda)
    times = {name: [] for name in runs}
    for rep in range(REPS + 1):                 # the first round warms up (module load, numba compile)
        for name, (launch, lib) in runs.items():
            t = timed(launch, lib)
            if rep:
                times[name].append(t)
    print(f"| naive matmul {N}², float32 | median ms | min ms |\n| --- | --- | --- |")
    for name, xs in times.items():
        print(f"| {name} | {np.median(xs):.3f} | {min(xs):.3f} |")


if __name__ == "__main__":
    main()

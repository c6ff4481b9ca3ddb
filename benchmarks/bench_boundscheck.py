"""The cost of bounds checks: the seeds' tiled matmul (``cuda_fast_matmul``, tests/test_seeds.py) compiled with
``boundscheck=False`` and ``boundscheck=True``, median of repeated runs.

CPU backend at 256² (sizes must be multiples of the tile: the seed's kernel has no edge checks), and, when a GPU
is present, the GPU at 4096² timed with CUDA events. Target: checked ≤ 1.3× unchecked on both.

    PYTHONPATH=python python3 benchmarks/bench_boundscheck.py [--cpu-n 256] [--gpu-n 4096] [--reps 7]
"""
import argparse
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import emit, med                      # noqa: E402
from cudajit import _backend, cuda, float32             # noqa: E402

TPB = 16


def cuda_fast_matmul(A, B, C):
    # The seed's kernel, verbatim (tests/test_seeds.py).
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)

    x, y = cuda.grid(2)

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x    # blocks per grid

    if x >= C.shape[0] and y >= C.shape[1]:
        # Quit if (x, y) is outside of valid C boundary
        return

    tmp = 0.
    for i in range(bpg):
        sA[tx, ty] = A[x, ty + i * TPB]
        sB[tx, ty] = B[tx + i * TPB, y]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[tx, j] * sB[j, ty]
        cuda.syncthreads()

    C[x, y] = tmp


KERNELS = {checked: cuda.jit(boundscheck=checked)(cuda_fast_matmul) for checked in (False, True)}


def _inputs(n):
    rng = np.random.default_rng(0)
    A = rng.standard_normal((n, n)).astype(np.float32)
    B = rng.standard_normal((n, n)).astype(np.float32)
    return A, B


def _grid(n):
    return (math.ceil(n / TPB), math.ceil(n / TPB)), (TPB, TPB)


def time_cpu(n, reps):
    """Seconds per launch on the CPU backend for each setting (wall clock; a CPU launch is synchronous)."""
    A, B = _inputs(n)
    out = {}
    with _backend.use("cpu"):
        dA, dB, dC = cuda.to_device(A), cuda.to_device(B), cuda.device_array((n, n), np.float32)
        grid, block = _grid(n)
        for checked, k in KERNELS.items():
            k[grid, block](dA, dB, dC)                  # compile and warm up
            np.testing.assert_allclose(dC.copy_to_host(), A @ B, rtol=1e-3, atol=1e-3)
            ts = []
            for _ in range(reps):
                t0 = time.perf_counter()
                k[grid, block](dA, dB, dC)
                ts.append(time.perf_counter() - t0)
            out[checked] = med(ts)
    return out


def time_gpu(n, reps):
    """Seconds per launch on the GPU for each setting (CUDA events around each launch)."""
    A, B = _inputs(n)
    out = {}
    with _backend.use("gpu"):
        dA, dB, dC = cuda.to_device(A), cuda.to_device(B), cuda.device_array((n, n), np.float32)
        grid, block = _grid(n)
        start, stop = cuda.event(), cuda.event()
        for checked, k in KERNELS.items():
            k[grid, block](dA, dB, dC)
            cuda.synchronize()
            ts = []
            for _ in range(reps):
                start.record()
                k[grid, block](dA, dB, dC)
                stop.record()
                stop.synchronize()
                ts.append(cuda.event_elapsed_time(start, stop) / 1e3)
            out[checked] = med(ts)
    return out


def _report(backend, n, times):
    off, on = times[False], times[True]
    emit(bench="boundscheck", kernel="cuda_fast_matmul", backend=backend, n=n, unchecked_ms=round(off * 1e3, 3),
         checked_ms=round(on * 1e3, 3), overhead=round(on / off, 3))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cpu-n", type=int, default=256)
    p.add_argument("--gpu-n", type=int, default=4096)
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--skip-cpu", action="store_true")
    args = p.parse_args()
    for n in (args.cpu_n, args.gpu_n):
        if n % TPB:
            p.error(f"sizes must be multiples of {TPB} (the seed's kernel has no edge checks), got {n}")
    if not args.skip_cpu:
        _report("cpu", args.cpu_n, time_cpu(args.cpu_n, args.reps))
    ok, reason = _backend.gpu_status()
    if ok:
        _report("gpu", args.gpu_n, time_gpu(args.gpu_n, args.reps))
    else:
        print(f"# GPU rows skipped: {reason}", flush=True)


if __name__ == "__main__":
    main()

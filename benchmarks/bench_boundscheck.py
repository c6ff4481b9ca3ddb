"""The cost of bounds checks: the seeds' tiled matmul (``cuda_fast_matmul``, tests/test_seeds.py) compiled with
``boundscheck=False`` and ``boundscheck=True``, median of repeated runs.

CPU backend at 256² (sizes must be multiples of the tile: the seed's kernel has no edge checks), and, when a GPU
is present, the GPU at 4096² timed with CUDA events. Target: checked ≤ 1.3× unchecked on both.

    PYTHONPATH=python python3 benchmarks/bench_boundscheck.py [--cpu-n 256] [--gpu-n 4096] [--reps 11]
"""
import argparse
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from bench_common import emit, med                      # noqa: E402
from cudajit import _backend, cuda                      # noqa: E402
from test_seeds import TPB, cuda_fast_matmul            # noqa: E402  (the seed's kernel, verbatim)

KERNELS = {checked: cuda.jit(boundscheck=checked)(cuda_fast_matmul.py_func) for checked in (False, True)}


def _cpu_seconds(launch):
    t0 = time.perf_counter()
    launch()                                            # a CPU launch is synchronous
    return time.perf_counter() - t0


def _gpu_seconds(launch):
    start, stop = cuda.event(), cuda.event()
    start.record()
    launch()
    stop.record()
    stop.synchronize()
    return cuda.event_elapsed_time(start, stop) / 1e3


def time_launches(backend, n, reps):
    """Median seconds per launch of each setting on ``backend``, after a checked warm-up run. The settings take
    turns within each repetition, so a busy machine slows both alike."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((n, n)).astype(np.float32)
    B = rng.standard_normal((n, n)).astype(np.float32)
    grid, block = (math.ceil(n / TPB), math.ceil(n / TPB)), (TPB, TPB)
    seconds = _cpu_seconds if backend == "cpu" else _gpu_seconds
    with _backend.use(backend):
        dA, dB, dC = cuda.to_device(A), cuda.to_device(B), cuda.device_array((n, n), np.float32)
        for k in KERNELS.values():
            k[grid, block](dA, dB, dC)                  # compile and warm up
            np.testing.assert_allclose(dC.copy_to_host(), A @ B, rtol=1e-3, atol=1e-2)
        times = {checked: [] for checked in KERNELS}
        for _ in range(reps):
            for checked, k in KERNELS.items():
                times[checked].append(seconds(lambda: k[grid, block](dA, dB, dC)))
    return {checked: med(ts) for checked, ts in times.items()}


def _report(backend, n, times):
    off, on = times[False], times[True]
    emit(bench="boundscheck", kernel="cuda_fast_matmul", backend=backend, n=n, unchecked_ms=round(off * 1e3, 3),
         checked_ms=round(on * 1e3, 3), overhead=round(on / off, 3))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cpu-n", type=int, default=256)
    p.add_argument("--gpu-n", type=int, default=4096)
    p.add_argument("--reps", type=int, default=11)
    p.add_argument("--skip-cpu", action="store_true")
    args = p.parse_args()
    for n in (args.cpu_n, args.gpu_n):
        if n % TPB:
            p.error(f"sizes must be multiples of {TPB} (the seed's kernel has no edge checks), got {n}")
    if not args.skip_cpu:
        _report("cpu", args.cpu_n, time_launches("cpu", args.cpu_n, args.reps))
    ok, reason = _backend.gpu_status()
    if ok:
        _report("gpu", args.gpu_n, time_launches("gpu", args.gpu_n, args.reps))
    else:
        print(f"# GPU rows skipped: {reason}", flush=True)


if __name__ == "__main__":
    main()

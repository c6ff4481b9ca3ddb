"""cuda.reduce in numba-cuda's fold order: time against numba-cuda's reduce and cp.sum (CUDA events, medians),
with pass 1's producer warps (sm_90+, the default) and without (numba-cuda's 128 threads, each loading 32
elements ahead), and the bits against numba-cuda's result. Every time is a whole call (one launch, whose last block
folds the tail and the partials, and the wait for the result) unless the row says otherwise.

Run on the device:  python3 benchmarks/bench_reduce.py
"""
import os
import sys

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack  # numba-cuda 0.30.4 still names it; NumPy 2.5 removed it

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cupy as cp  # noqa: E402
from numba import cuda as ncuda  # noqa: E402

from cudajit import cuda  # noqa: E402
from cudajit.cuda import reduction  # noqa: E402

from bench_common import emit, event_ms  # noqa: E402


def gpu_ms(fn, reps=20):
    return event_ms(cuda.event, cuda.event_elapsed_time, cuda.synchronize, fn, reps)


def add(a, b):
    return a + b


rng = np.random.default_rng(7)
nsum = ncuda.reduce(add)
for N in (1 << 20, 1 << 27):
    A = rng.standard_normal(N).astype(np.float32)
    dA, nA, cA = cuda.to_device(A), ncuda.to_device(A), cp.asarray(A)
    want = nsum(nA)
    row = {"N": N, "numba_cuda_ms": gpu_ms(lambda: nsum(nA)), "cupy_sum_ms": gpu_ms(lambda: cp.sum(cA))}
    red = cuda.reduce(add)
    shape = reduction._pass1_shape
    for label, force_plain in (("cudajit", False), ("cudajit_plain", True)):
        if force_plain:
            reduction._pass1_shape = lambda dev: (reduction._BLOCK, 0)
        got = red(dA)
        row[f"{label}_ms"] = gpu_ms(lambda: red(dA))
        row[f"{label}_same_bits"] = np.float32(got).tobytes() == np.float32(want).tobytes()
        reduction._pass1_shape = shape
    dres = cuda.device_array(1, np.float32)           # the result left on the device, as cp.sum leaves it
    row["cudajit_res_ms"] = gpu_ms(lambda: red(dA, res=dres))
    kernel = red._kernel(np.dtype(np.float32))          # the launch alone, as a call makes it (buffers kept)
    n_full = N // reduction._BLOCK * reduction._BLOCK
    blocks = min(n_full // reduction._BLOCK, reduction._MAX_BLOCKS)
    threads, ring = reduction._pass1_shape(dA)
    _, scratch = reduction._scratch(dA, np.dtype(np.float32), 0)
    row["pass1_threads"] = threads
    row["launch_alone_ms"] = gpu_ms(lambda: kernel[blocks, threads, 0, ring](
        dA, scratch.partials, n_full, N - n_full, np.float32(0), scratch.done, dres))
    row["cudajit_vs_cupy"] = round(row["cudajit_ms"] / row["cupy_sum_ms"], 3)
    row["cudajit_res_vs_cupy"] = round(row["cudajit_res_ms"] / row["cupy_sum_ms"], 3)
    emit(what="reduce_sum", **row)

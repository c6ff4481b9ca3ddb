"""Foundation benchmarks on the GPU, side by side with numba-cuda and CuPy in the same run.

Measures: raw-kernel launch overhead (no arguments, 3 device arrays), pinned and pageable
host<->device copies of 1 GiB, a 4 KiB device allocation, and checks a raw vector add against
NumPy and CuPy/PyTorch zero-copy interop. Prints one JSON object per line, then a table.

Run on the device:  python3 benchmarks/bench_foundation.py
"""
import time

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack  # numba-cuda 0.30.4 still names it; NumPy 2.5 removed it

from cudajit import cuda

import os, sys  # noqa: E401
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import emit, med, per_launch, rows  # noqa: E402




# --- correctness: raw vector add, interop ------------------------------------------------
SRC = r'''
extern "C" __global__ void vadd(const float* a, const float* b, float* c, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void e3(float* a, float* b, float* c) {}
extern "C" __global__ void e0() {}
'''
mod = cuda.RawModule(SRC)
vadd, e3, e0 = mod.get_function("vadd"), mod.get_function("e3"), mod.get_function("e0")
n = 1 << 20
rng = np.random.default_rng(0)
a = rng.standard_normal(n).astype(np.float32)
b = rng.standard_normal(n).astype(np.float32)
da, db, dc = cuda.to_device(a), cuda.to_device(b), cuda.device_array(n, np.float32)
vadd[(n + 255) // 256, 256](da, db, dc, n)
emit(what="raw_vector_add_equals_numpy", ok=bool(np.array_equal(dc.copy_to_host(), a + b)))

import cupy as cp
x = cp.asarray(a)
ok_cupy = cuda.as_cuda_array(x)._ptr == x.data.ptr and cp.asarray(dc).data.ptr == dc._ptr
import torch
t = torch.from_numpy(a).cuda()
ok_torch = cuda.as_cuda_array(t)._ptr == t.data_ptr() and torch.from_dlpack(dc).data_ptr() == dc._ptr
emit(what="zero_copy_interop", cupy_same_pointer=bool(ok_cupy), torch_same_pointer=bool(ok_torch))

# --- launch overhead ---------------------------------------------------------------------
e3[1, 32](da, db, dc)
e0[1, 32]()
cuda.synchronize()
emit(what="launch_us", lib="cudajit RawKernel", args="3 device arrays",
     us=per_launch(lambda: e3[1, 32](da, db, dc), cuda.synchronize))
emit(what="launch_us", lib="cudajit RawKernel", args="none", us=per_launch(lambda: e0[1, 32](), cuda.synchronize))
launcher = e3[1, 32]
emit(what="launch_us", lib="cudajit RawKernel (configured once)", args="3 device arrays",
     us=per_launch(lambda: launcher(da, db, dc), cuda.synchronize))

rk = cp.RawKernel(r'extern "C" __global__ void e3(float* a, float* b, float* c) {}', "e3")
ca, cb, cc = cp.empty(n, cp.float32), cp.empty(n, cp.float32), cp.empty(n, cp.float32)
rk((1,), (32,), (ca, cb, cc))
emit(what="launch_us", lib="cupy RawKernel", args="3 arrays",
     us=per_launch(lambda: rk((1,), (32,), (ca, cb, cc)), cp.cuda.Device().synchronize))

from numba import cuda as ncuda


@ncuda.jit
def n_empty3(a, b, c):
    pass


na, nb, nc = ncuda.device_array(n, np.float32), ncuda.device_array(n, np.float32), ncuda.device_array(n, np.float32)
n_empty3[1, 32](na, nb, nc)
emit(what="launch_us", lib="numba-cuda", args="3 device arrays",
     us=per_launch(lambda: n_empty3[1, 32](na, nb, nc), ncuda.synchronize, n=5000))

# --- transfers: 1 GiB --------------------------------------------------------------------
N = 1 << 28
h = rng.random(N, dtype=np.float32)
d = cuda.device_array(N, np.float32)


def bw(fn, reps=3):
    ts = []
    for _ in range(reps):
        cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        cuda.synchronize()
        ts.append(time.perf_counter() - t0)
    return N * 4 / med(ts) / 1e9


p = cuda.pinned_array(N, np.float32)
p[:] = h
out = np.empty_like(h)
res = dict(h2d_pageable=bw(lambda: d.copy_to_device(h)), d2h_pageable=bw(lambda: d.copy_to_host(out)),
           h2d_pinned=bw(lambda: d.copy_to_device(p)), d2h_pinned=bw(lambda: d.copy_to_host(p)))
emit(what="transfer_GBps", lib="cudajit", **res)
ok = np.array_equal(p, h)
emit(what="pinned_round_trip_ok", ok=bool(ok))
with cuda.pinned(h, out):          # existing NumPy arrays page-locked for a block (cuMemHostRegister)
    res = dict(h2d_in_pinned_block=bw(lambda: d.copy_to_device(h)), d2h_in_pinned_block=bw(lambda: d.copy_to_host(out)))
emit(what="transfer_GBps", lib="cudajit cuda.pinned(h, out)", **res)
nd = ncuda.device_array(N, np.float32)
np_ = ncuda.pinned_array(N, np.float32)
np_[:] = h


def nbw(fn, reps=3):
    ts = []
    for _ in range(reps):
        ncuda.synchronize()
        t0 = time.perf_counter()
        fn()
        ncuda.synchronize()
        ts.append(time.perf_counter() - t0)
    return N * 4 / med(ts) / 1e9


emit(what="transfer_GBps", lib="numba-cuda", h2d_pageable=nbw(lambda: nd.copy_to_device(h)),
     d2h_pageable=nbw(lambda: nd.copy_to_host(out)), h2d_pinned=nbw(lambda: nd.copy_to_device(np_)),
     d2h_pinned=nbw(lambda: nd.copy_to_host(np_)))
with ncuda.pinned(h, out):
    emit(what="transfer_GBps", lib="numba-cuda cuda.pinned(h, out)",
         h2d_in_pinned_block=nbw(lambda: nd.copy_to_device(h)), d2h_in_pinned_block=nbw(lambda: nd.copy_to_host(out)))
del d, p, nd, np_

# --- allocation --------------------------------------------------------------------------
ts = []
for _ in range(2000):
    t0 = time.perf_counter()
    x = cuda.device_array(1024, np.float32)
    ts.append(time.perf_counter() - t0)
    del x
emit(what="alloc_4KiB_us", lib="cudajit", us=med(ts) * 1e6)
ts = []
for _ in range(2000):
    t0 = time.perf_counter()
    x = ncuda.device_array(1024, np.float32)
    ts.append(time.perf_counter() - t0)
    del x
emit(what="alloc_4KiB_us", lib="numba-cuda", us=med(ts) * 1e6)

print("\n| what | lib | value |\n| --- | --- | --- |")
for r in rows:
    r = dict(r)
    what, lib = r.pop("what"), r.pop("lib", "")
    print(f"| {what} | {lib} | {', '.join(f'{k}={v:.3g}' if isinstance(v, float) else f'{k}={v}' for k, v in r.items())} |")

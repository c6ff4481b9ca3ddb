"""The seeds' kernels on the GPU, cudajit and numba-cuda side by side in one run (CUDA events,
medians): naive and shared-memory matmul (1000², 4096²), jit launch overhead, first-compile time
in a fresh process, and cuda.reduce against numba-cuda's and cp.sum.

Run on the device:  python3 benchmarks/bench_gpu_kernels.py
"""
import os
import subprocess
import sys

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack  # numba-cuda 0.30.4 still names it; NumPy 2.5 removed it

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seeds_kernels  # noqa: E402

import cudajit  # noqa: E402
from cudajit import cuda  # noqa: E402
from numba import cuda as ncuda  # noqa: E402

from bench_common import emit, event_ms, med, per_launch, rows  # noqa: E402


def gpu_ms(lib, fn, reps=10):
    return event_ms(lib.event, lib.event_elapsed_time, lib.synchronize, fn, reps)


_cj, _nb = seeds_kernels.load("cudajit"), seeds_kernels.load("numba")
cj = (_cj.add, _cj.naive_mm, _cj.tiled_mm, _cj.empty3)
nb = (_nb.add, _nb.naive_mm, _nb.tiled_mm, _nb.empty3)

# --- cold start in a fresh process (import, first compile of vector add, then tiled matmul) ---
COLD = '''
import time, numpy as np, sys, os
sys.path.insert(0, {here!r})
t0 = time.perf_counter()
{imp}
t1 = time.perf_counter()
import seeds_kernels
m = seeds_kernels.load({lib!r})
add, tiled = m.add, m.tiled_mm
a = cuda.to_device(np.ones(1024, np.float32)); c = cuda.device_array_like(a); cuda.synchronize()
t2 = time.perf_counter(); add[4, 256](a, a, c); cuda.synchronize(); t3 = time.perf_counter()
A = cuda.to_device(np.ones((64, 64), np.float32)); C = cuda.device_array_like(A)
tiled[(4, 4), (16, 16)](A, A, C); cuda.synchronize(); t4 = time.perf_counter()
print(t1 - t0, t3 - t2, t4 - t3)
'''
here = os.path.dirname(os.path.abspath(__file__))
for lib, mod, imp, env in (
        ("cudajit (disk cache empty)", "cudajit", "from cudajit import cuda", {"CUDAJIT_CACHE_DIR": "/tmp/cj-cold-%d"}),
        ("cudajit (disk cache warm)", "cudajit", "from cudajit import cuda", {"CUDAJIT_CACHE_DIR": "/tmp/cj-warm"}),
        ("numba-cuda", "numba", "import numpy as np; np.row_stack = np.vstack\nfrom numba import cuda", {})):
    rs = []
    for k in range(3):
        e = dict(os.environ)
        e.update({key: val % k if "%d" in val else val for key, val in env.items()})
        out = subprocess.run([sys.executable, "-c", COLD.format(here=here, imp=imp, lib=mod)], capture_output=True, text=True, env=e)
        if out.returncode:
            emit(what="cold_start", lib=lib, error=out.stderr[-1500:])
            break
        rs.append([float(x) for x in out.stdout.split()[-3:]])
    if rs:
        emit(what="cold_start_s", lib=lib, import_s=med([r[0] for r in rs]), first_add_s=med([r[1] for r in rs]),
             first_tiled_mm_s=med([r[2] for r in rs]))

# --- launch overhead of a jit kernel with 3 device arrays ---
n = 1 << 20
da, db, dc = (cuda.device_array(n, np.float32) for _ in range(3))
na, nb_, nc = (ncuda.device_array(n, np.float32) for _ in range(3))




cj[3][1, 32](da, db, dc)
nb[3][1, 32](na, nb_, nc)
emit(what="launch_us", lib="cudajit @cuda.jit", args="3 device arrays",
     us=per_launch(lambda: cj[3][1, 32](da, db, dc), cuda.synchronize, n=20000))
emit(what="launch_us", lib="numba-cuda @cuda.jit", args="3 device arrays",
     us=per_launch(lambda: nb[3][1, 32](na, nb_, nc), ncuda.synchronize, n=5000))
ha = np.ones(1024, np.float32)
cj[3][1, 32](ha, ha, ha)
emit(what="launch_us", lib="cudajit @cuda.jit", args="3 numpy arrays of 4KB (copied in and out)",
     us=per_launch(lambda: cj[3][1, 32](ha, ha, ha), cuda.synchronize, n=2000))

# --- matmul: naive and tiled, 1000² and 4096² ---
rng = np.random.default_rng(0)
for size in (1000, 4096):
    A = rng.standard_normal((size, size)).astype(np.float32)
    B = rng.standard_normal((size, size)).astype(np.float32)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    bpg = ((size + 15) // 16, (size + 15) // 16)
    res = {}
    for lib_name, lib, kernels in (("cudajit", cuda, cj), ("numba-cuda", ncuda, nb)):
        dA, dB = lib.to_device(A), lib.to_device(B)
        dC = lib.device_array((size, size), np.float32)
        for kname, k in (("naive", kernels[1]), ("tiled16", kernels[2])):
            t = gpu_ms(lib, lambda: k[bpg, (16, 16)](dA, dB, dC), reps=5)
            err = float(np.linalg.norm(dC.copy_to_host() - ref) / np.linalg.norm(ref))
            res[f"{lib_name}_{kname}_ms"] = t
            res[f"{lib_name}_{kname}_relerr"] = err
    emit(what="matmul", n=size, **res)

# --- cuda.reduce (the seeds' sum_reduce) ---
import cupy as cp  # noqa: E402


@cuda.reduce
def sum_reduce(a, b):
    return a + b


@ncuda.reduce
def nsum_reduce(a, b):
    return a + b


for N in (1 << 20, 1 << 27):
    A = rng.standard_normal(N).astype(np.float32)
    dA, nA, cA = cuda.to_device(A), ncuda.to_device(A), cp.asarray(A)
    got = sum_reduce(dA)
    want = float(A.astype(np.float64).sum())
    t_cj = gpu_ms(cuda, lambda: sum_reduce(dA), reps=10)
    t_nb = gpu_ms(ncuda, lambda: nsum_reduce(nA), reps=10)
    t_cp = gpu_ms(cuda, lambda: cp.sum(cA), reps=10)
    emit(what="reduce_sum_ms", N=N, cudajit=t_cj, numba_cuda=t_nb, cupy_sum=t_cp,
         relerr=abs(float(got) - want) / max(abs(want), 1.0))

print("\n| what | details |\n| --- | --- |")
for r in rows:
    r = dict(r)
    what = r.pop("what")
    print(f"| {what} | {', '.join(f'{k}={v:.4g}' if isinstance(v, float) else f'{k}={v}' for k, v in r.items())} |")

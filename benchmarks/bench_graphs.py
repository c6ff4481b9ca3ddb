"""CUDA graphs: 100 small kernels launched one by one against the same captured once and replayed.

Two tiny kernels alternate over 3 device arrays of 4 KiB (1024 float32), 100 launches a round. Each round is
timed with CUDA events on its stream (first record before the first launch, last after the last; the launches
are issued as fast as the host can) and by the host clock from the first issue to the end of the work; medians
of ROUNDS rounds. Measured in the same run: cudajit one by one and replayed (cuda.graph), numba-cuda one by one
(it has no graphs), CuPy one by one and replayed (Stream.begin_capture) with RawKernels of the same C++.
The results of the four sequences are checked against NumPy. Prints one JSON object per line.

Run on the device:  python3 benchmarks/bench_graphs.py
"""
import os
import sys
import time

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack  # numba-cuda 0.30.4 still names it; NumPy 2.5 removed it

from cudajit import cuda

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import emit, med  # noqa: E402

N = 1024            # 4 KiB of float32 per array
LAUNCHES = 100
ROUNDS = 200
BLOCK = 128
GRID = N // BLOCK


def mix(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] * 0.5 + b[i]


def fold(a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = c[i] - b[i] * 0.25


CXX = r'''
extern "C" __global__ void mix(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] * 0.5f + b[i];
}
extern "C" __global__ void fold(float* a, const float* b, const float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = c[i] - b[i] * 0.25f;
}
'''


def expected(a, b, c):
    a, c = a.copy(), c.copy()
    for k in range(LAUNCHES):
        if k % 2 == 0:
            c = a * np.float32(0.5) + b
        else:
            a = c - b * np.float32(0.25)
    return a, c


def timed_rounds(issue, record_start, record_end, elapsed_ms, sync):
    """(event µs, host µs) per round of `issue()`: medians over ROUNDS rounds after a warm-up."""
    issue()
    sync()
    events, host = [], []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        record_start()
        issue()
        record_end()
        sync()
        host.append((time.perf_counter() - t0) * 1e6)
        events.append(elapsed_ms() * 1e3)
    return med(events), med(host)


def report(lib, how, event_us, host_us):
    emit(what="100_small_kernels", lib=lib, how=how, event_us=round(event_us, 1), host_us=round(host_us, 1),
         us_per_kernel=round(event_us / LAUNCHES, 3))


def check(lib, a, c, a0, b0, c0):
    # A round starts from the previous round's arrays, so compare one more sequence from fresh copies.
    ea, ec = expected(a0, b0, c0)
    ok = bool(np.allclose(a, ea, rtol=1e-5, atol=1e-5) and np.allclose(c, ec, rtol=1e-5, atol=1e-5))
    emit(what="100_small_kernels_equal_numpy", lib=lib, ok=ok)


rng = np.random.default_rng(0)
a0, b0, c0 = (rng.standard_normal(N).astype(np.float32) for _ in range(3))

# --- cudajit -------------------------------------------------------------------------------------------
k_mix, k_fold = cuda.jit(mix), cuda.jit(fold)
s = cuda.stream()
da, db, dc = cuda.to_device(a0), cuda.to_device(b0), cuda.to_device(c0)
mix_s, fold_s = k_mix[GRID, BLOCK, s], k_fold[GRID, BLOCK, s]


def cudajit_one_by_one():
    for _ in range(LAUNCHES // 2):
        mix_s(da, db, dc)
        fold_s(da, db, dc)


cudajit_one_by_one()
s.synchronize()
with cuda.graph(s) as g:
    cudajit_one_by_one()
e0, e1 = cuda.event(), cuda.event()
timing = (lambda: e0.record(s), lambda: e1.record(s), lambda: cuda.event_elapsed_time(e0, e1), s.synchronize)
one_ev, one_host = timed_rounds(cudajit_one_by_one, *timing)
report("cudajit", "one by one", one_ev, one_host)
graph_ev, graph_host = timed_rounds(g.launch, *timing)
report("cudajit", "cuda.graph replay", graph_ev, graph_host)
emit(what="100_small_kernels_graph_speedup", lib="cudajit", event=round(one_ev / graph_ev, 2),
     host=round(one_host / graph_host, 2), target=3.0)
da.copy_to_device(a0)
dc.copy_to_device(c0)
g.launch()
s.synchronize()
check("cudajit", da.copy_to_host(), dc.copy_to_host(), a0, b0, c0)

# --- numba-cuda ----------------------------------------------------------------------------------------
try:
    from numba import cuda as ncuda
except ImportError as e:  # pragma: no cover - the device has it
    emit(what="100_small_kernels", lib="numba-cuda", skipped=str(e))
else:
    n_mix, n_fold = ncuda.jit(mix), ncuda.jit(fold)
    ns = ncuda.stream()
    na, nb, nc = ncuda.to_device(a0, stream=ns), ncuda.to_device(b0, stream=ns), ncuda.to_device(c0, stream=ns)
    nmix_s, nfold_s = n_mix[GRID, BLOCK, ns], n_fold[GRID, BLOCK, ns]

    def numba_one_by_one():
        for _ in range(LAUNCHES // 2):
            nmix_s(na, nb, nc)
            nfold_s(na, nb, nc)

    n0, n1 = ncuda.event(), ncuda.event()
    ev, host = timed_rounds(numba_one_by_one, lambda: n0.record(ns), lambda: n1.record(ns),
                            lambda: ncuda.event_elapsed_time(n0, n1), ns.synchronize)
    report("numba-cuda", "one by one", ev, host)
    na.copy_to_device(a0, stream=ns)
    nc.copy_to_device(c0, stream=ns)
    numba_one_by_one()
    check("numba-cuda", na.copy_to_host(stream=ns), nc.copy_to_host(stream=ns), a0, b0, c0)

# --- CuPy ----------------------------------------------------------------------------------------------
try:
    import cupy as cp
except ImportError as e:  # pragma: no cover - the device has it
    emit(what="100_small_kernels", lib="CuPy", skipped=str(e))
else:
    module = cp.RawModule(code=CXX)
    c_mix, c_fold = module.get_function("mix"), module.get_function("fold")
    cs = cp.cuda.Stream(non_blocking=True)
    ca, cb, cc = cp.asarray(a0), cp.asarray(b0), cp.asarray(c0)
    n32 = np.int32(N)

    def cupy_one_by_one():
        with cs:
            for _ in range(LAUNCHES // 2):
                c_mix((GRID,), (BLOCK,), (ca, cb, cc, n32))
                c_fold((GRID,), (BLOCK,), (ca, cb, cc, n32))

    cupy_one_by_one()
    cs.synchronize()
    cs.begin_capture()
    cupy_one_by_one()
    cupy_graph = cs.end_capture()
    c0e, c1e = cp.cuda.Event(), cp.cuda.Event()
    timing = (lambda: c0e.record(cs), lambda: c1e.record(cs), lambda: cp.cuda.get_elapsed_time(c0e, c1e),
              cs.synchronize)
    ev, host = timed_rounds(cupy_one_by_one, *timing)
    report("CuPy", "one by one", ev, host)
    ev_g, host_g = timed_rounds(lambda: cupy_graph.launch(cs), *timing)
    report("CuPy", "Graph replay", ev_g, host_g)
    emit(what="100_small_kernels_graph_speedup", lib="CuPy", event=round(ev / ev_g, 2), host=round(host / host_g, 2))
    emit(what="100_small_kernels_cudajit_graph_vs_cupy_graph", event=round(graph_ev / ev_g, 2),
         host=round(graph_host / host_g, 2))
    ca.set(a0, stream=cs)
    cc.set(c0, stream=cs)
    cupy_graph.launch(cs)
    cs.synchronize()
    check("CuPy", ca.get(), cc.get(), a0, b0, c0)

"""Dask's speed-up over workers (issue 42): the same Dask array work with 1 worker and with N, side by side.

    python3 benchmarks/bench_dask.py [--workers 1,2] [--n N] [--chunk C] [--iters K] [--repeat R] [--json F]

A Dask array of ``n`` float32 in chunks of ``chunk`` is persisted on the cluster's workers; a cudajit kernel runs on
every chunk through ``map_blocks`` (``iters`` multiply-adds per element: compute-bound, so that a chunk's kernel
takes long beside Dask's scheduling of it), and the chunks' sums come back. Each worker count is timed on a cluster
of its own: warm-up first (each worker compiles the kernel once), then ``repeat`` runs, median wall time. The
results are checked against NumPy every run.

On GPUs (cudajit's GPU backend, dask-cuda and CuPy installed): dask_cuda's LocalCUDACluster, one worker per GPU,
CuPy chunks (``--workers`` counts GPUs; the default is 1 and every GPU). Without them: Dask's LocalCluster of
worker processes, one thread each, NumPy chunks on the CPU backend (default 1 and every core, at most 4).
Prints a table: workers, seconds, speed-up against 1 worker, GB/s of chunk data.
"""
import argparse
import json
import os
import warnings
import statistics
import sys
import time

import numpy as np

from cudajit import cuda

HERE = os.path.dirname(os.path.abspath(__file__))


@cuda.jit
def relax(out, x, iters):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        for _ in range(iters):              # contracting: FMA or not, the results agree far below rtol
            v = v * np.float32(0.999) + np.float32(0.001) * x[i]
        out[i] = v


def relax_chunk(chunk, iters):
    """One chunk through the kernel: a new chunk of the same kind (CuPy on a GPU worker, NumPy on the CPU)."""
    out = chunk.copy()
    relax.forall(chunk.size)(out, chunk, iters)
    return out


def chunk_sum(chunk):
    s = chunk.sum(dtype=np.float64)
    return np.array([float(s)])          # a host value whatever the chunk's kind (CuPy: one device-to-host copy)


def expected(host, iters):
    """NumPy's answer, float32 as the kernel computes it."""
    v = host.copy()
    a, b = np.float32(0.999), np.float32(0.001) * host
    for _ in range(iters):
        v = v * a + b
    return v


def on_gpus():
    import importlib.util
    import cudajit
    return cudajit.backend() == "gpu" and all(importlib.util.find_spec(m) for m in ("dask_cuda", "cupy"))


def gpu_count():
    from cudajit import cuda
    return len(cuda.gpus)


def start(gpu, workers):
    from distributed import LocalCluster
    if gpu:
        from dask_cuda import LocalCUDACluster
        return LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(map(str, range(workers))), dashboard_address=None)
    # a CPU-backend worker runs a kernel's blocks on one OS thread (CUDAJIT_NUM_THREADS=1, inherited by the worker
    # processes): so a worker is a core, and N workers N cores
    os.environ["CUDAJIT_NUM_THREADS"] = "1"
    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)


def measure(gpu, workers, host, chunk, iters, repeat, want_sum):
    # the functions by reference to this module (imported in each worker: it compiles the kernel once), not by value
    import bench_dask as mod
    import dask
    import dask.array as da
    from distributed import Client, wait
    warnings.filterwarnings("ignore", message=".*Sending large graph.*")   # the array itself, once per cluster
    with start(gpu, workers) as cluster, Client(cluster) as client:
        x = da.from_array(host, chunks=chunk, asarray=False)    # (sent with the graph: ~1 GB at most here)
        if gpu:
            import cupy
            x = x.map_blocks(cupy.asarray, meta=cupy.empty((0,), host.dtype))
        x = client.persist(x)
        wait(x)

        def once():
            y = x.map_blocks(mod.relax_chunk, iters, dtype=host.dtype)
            sums = [dask.delayed(mod.chunk_sum)(b) for b in y.to_delayed().ravel()]
            return float(np.concatenate(dask.compute(*sums)).sum())
        got = once()                                  # warm-up: every worker compiles the kernel
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            got = once()
            times.append(time.perf_counter() - t0)
            if not np.isclose(got, want_sum, rtol=1e-5):
                raise AssertionError(f"{workers} workers: sum {got!r}, NumPy {want_sum!r}")
        # one chunk's values too, element by element
        first = x.blocks[0].map_blocks(mod.relax_chunk, iters, dtype=host.dtype).compute()
        first = first.get() if gpu else first
        np.testing.assert_allclose(first, expected(host[:chunk], iters), rtol=1e-5)
        return statistics.median(times), len(cluster.workers)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workers", default=None, help="worker counts, comma-separated (default: 1 and all)")
    p.add_argument("--n", type=int, default=None, help="elements (default: 2**28 on GPUs, 2**22 on the CPU)")
    p.add_argument("--chunk", type=int, default=None, help="elements per chunk (default: n / 16)")
    p.add_argument("--iters", type=int, default=None, help="multiply-adds per element (default 2000 GPU, 50 CPU)")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--json", default=None, help="write the figures there too")
    args = p.parse_args(argv)
    gpu = on_gpus()
    most = gpu_count() if gpu else min(os.cpu_count() or 1, 4)
    counts = [int(w) for w in args.workers.split(",")] if args.workers else sorted({1, most})
    n = args.n or (2**28 if gpu else 2**22)
    chunk = args.chunk or n // 16
    iters = args.iters or (2000 if gpu else 50)
    host = np.random.default_rng(42).random(n, dtype=np.float32)
    want_sum = float(expected(host, iters).sum(dtype=np.float64))
    where = "GPU workers (LocalCUDACluster, CuPy chunks)" if gpu else "CPU-backend workers (LocalCluster, processes)"
    print(f"{n} float32 in chunks of {chunk}, {iters} multiply-adds per element, on {where}; median of "
          f"{args.repeat}")
    rows = []
    for w in counts:
        seconds, started = measure(gpu, w, host, chunk, iters, args.repeat, want_sum)
        rows.append({"workers": started, "seconds": seconds, "GB/s": 2 * host.nbytes / seconds / 1e9})
    base = rows[0]["seconds"] if rows[0]["workers"] == 1 else None
    print("| workers | seconds | speed-up vs 1 | GB/s |\n| --- | --- | --- | --- |")
    for r in rows:
        r["speedup"] = base / r["seconds"] if base else None
        print(f"| {r['workers']} | {r['seconds']:.4f} | {r['speedup']:.2f}× | {r['GB/s']:.1f} |" if base else
              f"| {r['workers']} | {r['seconds']:.4f} | | {r['GB/s']:.1f} |")
    print("results equal NumPy's (every run's sum, the first chunk element by element)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gpu": gpu, "n": n, "chunk": chunk, "iters": iters, "rows": rows}, f, indent=1)
    return rows


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    # the workers find this module too (LocalCluster's processes and dask-cuda's inherit the environment)
    os.environ["PYTHONPATH"] = os.pathsep.join([HERE] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    main()

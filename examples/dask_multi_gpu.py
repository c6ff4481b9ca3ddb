"""cudajit kernels on Dask, over every GPU: ``python examples/dask_multi_gpu.py [--n N] [--chunk C]``.

On GPUs: dask_cuda's LocalCUDACluster starts one worker per GPU (each worker sees its GPU as device 0). A Dask
array of CuPy chunks is spread over them; a cudajit kernel runs on each chunk through ``map_blocks``, taking the
CuPy chunk as it is (zero-copy, through ``__cuda_array_interface__``), and a ``cuda.reduce`` per chunk gives
partial sums that Dask adds up. Without a GPU the same code runs on cudajit's CPU backend, on Dask's LocalCluster
(threads, or worker processes with ``--processes``) with NumPy chunks. Both check the results against NumPy.

Needs ``pip install "cudajit[dask]"`` (dask[array], distributed); on GPUs also dask-cuda and CuPy.
"""
import argparse

import numpy as np

import cudajit
from cudajit import cuda

SCALE = 0.5


@cuda.jit
def scaled_square(out, x, scale):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = scale * x[i] * x[i]


add = cuda.reduce(lambda a, b: a + b)


def square_chunk(chunk, scale=SCALE):
    """One chunk through the kernel: a new chunk of the same kind (CuPy on a GPU worker, NumPy on the CPU)."""
    out = chunk.copy()                      # cupy.ndarray.copy / np.ndarray.copy: same kind, device and layout
    scaled_square.forall(chunk.size)(out, chunk, scale)
    return out


def chunk_sum(chunk):
    """``cuda.reduce`` of one chunk, as a 1-element NumPy array that Dask concatenates and adds up."""
    return np.array([add(chunk)])


def on_gpus():
    """True when cudajit runs kernels on GPUs here and dask_cuda and CuPy are installed."""
    import importlib.util
    return cudajit.backend() == "gpu" and all(importlib.util.find_spec(m) for m in ("dask_cuda", "cupy"))


def start_cluster(gpu, processes=False, workers=2):
    """A local cluster: one worker per GPU on GPUs, else ``workers`` CPU workers (threads unless ``processes``)."""
    from distributed import LocalCluster
    if gpu:
        from dask_cuda import LocalCUDACluster
        return LocalCUDACluster()
    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes, dashboard_address=None)


def run(client, n, chunk, gpu, seed=0):
    """The kernel and the reduction over a Dask array of ``n`` float64 in chunks of ``chunk``; returns the
    results next to NumPy's: ((squares, expected squares), (sum, expected sum))."""
    import dask
    import dask.array as da
    host = np.random.default_rng(seed).random(n)
    x = da.from_array(host, chunks=chunk, asarray=False)
    if gpu:
        import cupy
        x = x.map_blocks(cupy.asarray, meta=cupy.empty((0,), host.dtype))    # chunks move to the workers' GPUs
    x = client.persist(x)
    squares = x.map_blocks(square_chunk, dtype=host.dtype)
    partials = [dask.delayed(chunk_sum)(block) for block in x.to_delayed().ravel()]
    total = dask.delayed(sum)(partials)
    got_squares, got_total = dask.compute(squares, total)
    if gpu:
        got_squares = got_squares.get()
    return (got_squares, SCALE * host * host), (float(got_total[0]), float(host.sum()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000, help="elements of the Dask array (default 1e7)")
    parser.add_argument("--chunk", type=int, default=1_000_000, help="elements per chunk (default 1e6)")
    parser.add_argument("--workers", type=int, default=2, help="CPU workers without GPUs (default 2)")
    parser.add_argument("--processes", action="store_true", help="CPU workers as processes (default threads)")
    args = parser.parse_args()
    gpu = on_gpus()
    from distributed import Client
    with start_cluster(gpu, args.processes, args.workers) as cluster, Client(cluster) as client:
        (squares, want_squares), (total, want_total) = run(client, args.n, args.chunk, gpu)
        where = f"{len(cluster.workers)} GPU workers" if gpu else f"{len(cluster.workers)} CPU-backend workers"
        print(f"{args.n} elements in chunks of {args.chunk} on {where}")
        np.testing.assert_allclose(squares, want_squares, rtol=1e-12)
        np.testing.assert_allclose(total, want_total, rtol=1e-9)
        print(f"kernel per chunk: equal to NumPy; cuda.reduce per chunk summed by Dask: {total:.6f} "
              f"(NumPy {want_total:.6f})")


if __name__ == "__main__":
    main()

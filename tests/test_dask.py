"""cudajit kernels on Dask (issue 8): examples/dask_multi_gpu.py on the CPU backend with Dask's LocalCluster, and on
GPUs with dask_cuda's LocalCUDACluster (one worker per GPU, CuPy chunks)."""
import importlib.util
import os
import sys

import numpy as np
import pytest

from cudajit import _backend, cuda

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


@pytest.fixture(scope="module")
def example():
    pytest.importorskip("dask.array", reason="needs dask[array] (pip install 'cudajit[dask]')")
    pytest.importorskip("distributed", reason="needs distributed (pip install 'cudajit[dask]')")
    spec = importlib.util.spec_from_file_location("dask_multi_gpu", os.path.join(EXAMPLES, "dask_multi_gpu.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["dask_multi_gpu"] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("dask_multi_gpu", None)


def _check(results):
    (squares, want_squares), (total, want_total) = results
    np.testing.assert_allclose(squares, want_squares, rtol=1e-12)
    assert total == pytest.approx(want_total, rel=1e-9)


def test_kernel_and_reduce_per_chunk_on_cpu_cluster(example):
    from distributed import Client
    with _backend.use("cpu"):
        with example.start_cluster(gpu=False, processes=False, workers=2) as cluster, Client(cluster) as client:
            _check(example.run(client, n=100_003, chunk=25_000, gpu=False, seed=7))


def test_kernels_pickle_for_worker_processes(rng):
    """Dask ships tasks to worker processes by pickling: a kernel and a cuda.reduce travel as their Python
    functions and compile again where they land."""
    cloudpickle = pytest.importorskip("cloudpickle", reason="needs cloudpickle (a dependency of dask)")
    k = cloudpickle.loads(cloudpickle.dumps(_triple))
    add = cloudpickle.loads(cloudpickle.dumps(cuda.reduce(lambda a, b: a + b)))
    x = rng.random(1000)
    with _backend.use("cpu"):
        out = np.zeros_like(x)
        k[4, 256](out, x)
        np.testing.assert_allclose(out, 3 * x)
        assert add(x) == pytest.approx(x.sum(), rel=1e-12)


@cuda.jit
def _triple(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = 3 * x[i]


def _run_example(backend, n, chunk, *flags):
    """examples/dask_multi_gpu.py as a user runs it, in its own process (its tasks name functions of its __main__,
    which Dask pickles by value; a module imported here would have to be importable in the worker processes), with
    a time limit: Dask waits for ever for a worker that cannot run a task. The example checks against NumPy."""
    import subprocess
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, "dask_multi_gpu.py"), "--n", str(n), "--chunk",
                        str(chunk), *flags], capture_output=True, text=True, timeout=240,
                       env=dict(os.environ, CUDAJIT_BACKEND=backend))
    assert r.returncode == 0, r.stdout + r.stderr[-4000:]
    assert "kernel per chunk: equal to NumPy" in r.stdout, r.stdout
    return r.stdout


def test_kernel_and_reduce_per_chunk_in_cpu_worker_processes(example):
    out = _run_example("cpu", 100_003, 25_000, "--processes", "--workers", "2")
    assert "100003 elements in chunks of 25000 on 2 CPU-backend workers" in out, out


@pytest.mark.gpu
def test_kernel_and_reduce_per_chunk_on_gpu_cluster(example):
    pytest.importorskip("dask_cuda", reason="needs dask-cuda (Linux with NVIDIA GPUs)")
    pytest.importorskip("cupy", reason="needs CuPy: the Dask array's chunks are CuPy arrays")
    gpus, n = len(cuda.gpus), 2_000_003
    chunk = -(-n // (2 * gpus))
    out = _run_example("gpu", n, chunk)
    assert f"{n} elements in chunks of {chunk} on {gpus} GPU workers" in out, out


def test_the_scaling_benchmark_runs_on_the_cpu_backend(example):
    """benchmarks/bench_dask.py (issue 42) as CI runs it: 1 and 2 CPU-backend worker processes, its results checked
    against NumPy by the script itself (a mismatch raises); the figures are not asserted (two shared cores)."""
    import json
    import subprocess
    out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"bench_dask_{os.getpid()}.json")
    script = os.path.join(os.path.dirname(EXAMPLES), "benchmarks", "bench_dask.py")
    r = subprocess.run([sys.executable, script, "--workers", "1,2", "--n", str(2**20), "--chunk", str(2**17),
                        "--iters", "20", "--repeat", "2", "--json", out], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ, CUDAJIT_BACKEND="cpu"))
    assert r.returncode == 0, r.stdout + r.stderr[-4000:]
    assert "results equal NumPy's" in r.stdout, r.stdout
    figures = json.load(open(out))
    os.remove(out)
    assert [row["workers"] for row in figures["rows"]] == [1, 2] and not figures["gpu"]
    assert all(row["seconds"] > 0 for row in figures["rows"]) and figures["rows"][0]["speedup"] == 1.0

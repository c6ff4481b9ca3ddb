"""The CPU backend against what a CPU user would pick (issue 11): the seeds' vector add and naive matmul as cudajit
kernels on the CPU backend, and the same loops written with ``numba.njit(parallel=True)`` (``prange``), on this
machine's cores. Medians of repeated runs; compile time excluded (each runs once first); results checked against
NumPy. Needs numba (``pip install numba``).

    PYTHONPATH=python python3 benchmarks/bench_cpu_vs_njit.py [--n-add 10000000] [--n-mm 512] [--reps 11]
"""
import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_common import emit, seconds  # noqa: E402

import numba  # noqa: E402

from cudajit import _backend, cuda  # noqa: E402
import seeds_kernels  # noqa: E402

K = seeds_kernels.load("cudajit")


@numba.njit(parallel=True)
def njit_add(a, b, c):
    for i in numba.prange(c.size):
        c[i] = a[i] + b[i]


@numba.njit(parallel=True)
def njit_naive_mm(A, B, C):
    for row in numba.prange(C.shape[0]):
        for col in range(C.shape[1]):
            tmp = np.float32(0.0)            # the seed's kernel accumulates in float32
            for k in range(A.shape[1]):
                tmp += A[row, k] * B[k, col]
            C[row, col] = tmp


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n-add", type=int, default=10_000_000)
    p.add_argument("--n-mm", type=int, default=512)
    p.add_argument("--reps", type=int, default=11)
    args = p.parse_args()
    rng = np.random.default_rng(0)
    with _backend.use("cpu"):
        n = args.n_add
        a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        da, db, dc = cuda.to_device(a), cuda.to_device(b), cuda.device_array(n, np.float32)
        c = np.empty_like(a)
        grid = (n + seeds_kernels.BLOCK - 1) // seeds_kernels.BLOCK
        t_cj = seconds(lambda: K.add[grid, seeds_kernels.BLOCK](da, db, dc), args.reps)
        t_nb = seconds(lambda: njit_add(a, b, c), args.reps)
        assert np.array_equal(dc.copy_to_host(), a + b) and np.array_equal(c, a + b)
        emit(bench="cpu_vs_njit", kernel="vector_add", n=n, cudajit_ms=round(t_cj * 1e3, 3),
             njit_parallel_ms=round(t_nb * 1e3, 3), ratio=round(t_cj / t_nb, 2), threads=numba.get_num_threads())

        m = args.n_mm
        A, B = rng.random((m, m), dtype=np.float32), rng.random((m, m), dtype=np.float32)
        dA, dB, dC = cuda.to_device(A), cuda.to_device(B), cuda.device_array((m, m), np.float32)
        C = np.empty((m, m), np.float32)
        tpb = seeds_kernels.TPB
        grid2 = ((m + tpb - 1) // tpb, (m + tpb - 1) // tpb)
        t_cj = seconds(lambda: K.naive_mm[grid2, (tpb, tpb)](dA, dB, dC), max(3, args.reps // 3))
        t_nb = seconds(lambda: njit_naive_mm(A, B, C), max(3, args.reps // 3))
        np.testing.assert_allclose(dC.copy_to_host(), A @ B, rtol=1e-4)
        np.testing.assert_allclose(C, A @ B, rtol=1e-4)
        emit(bench="cpu_vs_njit", kernel="naive_matmul", n=m, cudajit_ms=round(t_cj * 1e3, 3),
             njit_parallel_ms=round(t_nb * 1e3, 3), ratio=round(t_cj / t_nb, 2), threads=numba.get_num_threads())


if __name__ == "__main__":
    main()

"""CPU backend against Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) on the seeds' kernels:
vector add (10^5), tiled matmul (128²), shared-memory reduction (1024). Compile time is excluded
(each kernel runs once first) and reported separately. Each library runs in its own process.

Run on a machine without a GPU:  python3 benchmarks/bench_cpu_vs_sim.py   (needs `pip install numba`)
"""
import json
import os
import subprocess
import sys

WORKER = r'''
import json, os, sys, time
import numpy as np
sys.path.insert(0, {here!r})
import seeds_kernels
seeds = seeds_kernels.load("numba" if {sim} else "cudajit")
cuda, add, tiled, block_sum = seeds.cuda, seeds.add, seeds.tiled_mm, seeds.block_sum
rng = np.random.default_rng(0)

def run(name, launch, check, reps):
    t0 = time.perf_counter(); launch(); cuda.synchronize(); first = time.perf_counter() - t0
    ok = check()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter(); launch(); cuda.synchronize(); ts.append(time.perf_counter() - t0)
    ts.sort()
    print(json.dumps(dict(kernel=name, first_call_s=first, run_s=ts[len(ts) // 2], ok=bool(ok))), flush=True)

n = 100_000
a = rng.standard_normal(n).astype(np.float32); b = rng.standard_normal(n).astype(np.float32)
da, db, dc = cuda.to_device(a), cuda.to_device(b), cuda.device_array(n, np.float32)
run("vector_add_1e5", lambda: add[(n + 255) // 256, 256](da, db, dc),
    lambda: np.allclose(dc.copy_to_host(), a + b), {reps})
m = 128
A = rng.standard_normal((m, m)).astype(np.float32); B = rng.standard_normal((m, m)).astype(np.float32)
dA, dB, dC = cuda.to_device(A), cuda.to_device(B), cuda.device_array((m, m), np.float32)
run("tiled_matmul_128", lambda: tiled[(m // 16, m // 16), (16, 16)](dA, dB, dC),
    lambda: np.allclose(dC.copy_to_host(), A @ B, rtol=1e-4, atol=1e-3), {reps})
k = 1024
r = rng.standard_normal(k).astype(np.float32)
dr = cuda.to_device(r)
out = cuda.to_device(np.zeros(1, np.float32))
def reduce_once():
    out.copy_to_device(np.zeros(1, np.float32)); block_sum[k // 256, 256](dr, out)
run("shared_reduction_1024", reduce_once, lambda: np.isclose(out.copy_to_host()[0], r.sum(), rtol=1e-4), {reps})
'''


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    results = {}
    for lib, sim, reps in (("cudajit-cpu", False, 20), ("numba-cudasim", True, 3)):
        env = dict(os.environ)
        if sim:
            env["NUMBA_ENABLE_CUDASIM"] = "1"
        else:
            env["CUDAJIT_BACKEND"] = "cpu"
        out = subprocess.run([sys.executable, "-c", WORKER.format(here=here, sim=sim, reps=reps)],
                             capture_output=True, text=True, env=env)
        if out.returncode:
            print(lib, "failed:\n", out.stderr[-3000:])
            sys.exit(1)
        for line in out.stdout.splitlines():
            if line.startswith("{"):
                r = json.loads(line)
                results[(lib, r["kernel"])] = r
                print(json.dumps(dict(lib=lib, **r)))
    print("\n| kernel | cudajit CPU run | Numba simulator run | speed-up | cudajit first call (compile) | results match NumPy |")
    print("| --- | --- | --- | --- | --- | --- |")
    for kernel in ("vector_add_1e5", "tiled_matmul_128", "shared_reduction_1024"):
        c, s = results[("cudajit-cpu", kernel)], results[("numba-cudasim", kernel)]
        print(f"| {kernel} | {c['run_s'] * 1e3:.3f} ms | {s['run_s'] * 1e3:.1f} ms | {s['run_s'] / c['run_s']:.0f}x "
              f"| {c['first_call_s']:.2f} s | {c['ok'] and s['ok']} |")


if __name__ == "__main__":
    main()

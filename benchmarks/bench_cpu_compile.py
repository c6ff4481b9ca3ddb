"""Cold compiles on the CPU backend: a fresh process with an empty disk cache compiles N small kernels that differ
(so none is a cache hit), with the precompiled runtime header (GCC's .gch, src/host_compiler.cpp) and without it
(CUDAJIT_CPU_PCH=0). Prints the median seconds per kernel of each, the first kernel and the rest apart: the first
compile starts the header's build and goes on without it. Wall time of the first launch, Python front end included.

    PYTHONPATH=python python3 benchmarks/bench_cpu_compile.py [--kernels 12] [--rounds 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time
import numpy as np
from cudajit import cuda, _core
times = []
a = np.random.default_rng(0).random(1000).astype(np.float32)
for k in range(int(sys.argv[1])):
    src = f'''
def kern(a, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] * {k + 2} + {k}
'''
    ns = {"cuda": cuda}
    exec(src, ns)
    kern = cuda.jit(ns["kern"])
    out = np.zeros_like(a)
    t = time.perf_counter()
    kern.forall(a.size)(a, out)
    times.append(time.perf_counter() - t)
    assert np.array_equal(out, (a.astype(np.float64) * (k + 2) + k).astype(np.float32))  # int constants: float64
print(json.dumps({"times": times, "pch_uses": _core.host_pch_uses()}))
"""


def one_round(n, pch):
    env = dict(os.environ, CUDAJIT_CPU_PCH="1" if pch else "0")
    env.pop("CUDAJIT_CHECK_NVRTC", None)
    with tempfile.TemporaryDirectory() as cache:
        env["CUDAJIT_CACHE_DIR"] = cache
        out = subprocess.run([sys.executable, "-c", CHILD, str(n)], env=env, capture_output=True, text=True,
                             check=True).stdout
    return json.loads(out.splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    from cudajit import _backend, _core
    if _backend.name() != "cpu":
        sys.exit("bench_cpu_compile.py times the CPU backend: run it where there is no GPU (or CUDAJIT_BACKEND=cpu)")
    print(f"host compiler: {_core.host_compiler_identity()}; {args.kernels} kernels, {args.rounds} rounds")
    print("| precompiled header | first kernel (s) | each later kernel (s) | compiles that used it |")
    print("| --- | --- | --- | --- |")
    for pch in (False, True):
        firsts, rest, uses = [], [], []
        for _ in range(args.rounds):
            r = one_round(args.kernels, pch)
            firsts.append(r["times"][0])
            rest += r["times"][1:]
            uses.append(r["pch_uses"])
        print(f"| {'on' if pch else 'off (CUDAJIT_CPU_PCH=0)'} | {statistics.median(firsts):.3f} "
              f"| {statistics.median(rest):.3f} | {statistics.median(uses):.0f} of {args.kernels} |")


if __name__ == "__main__":
    main()

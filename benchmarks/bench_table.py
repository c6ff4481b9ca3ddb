"""Issue 11's table in one command: every row for cudajit, numba-cuda and CuPy side by side, medians.

    python3 benchmarks/bench_table.py gpu [--before DIR] --out gpu.json     # on the device
    python3 benchmarks/bench_table.py cpu --out cpu.json                     # here (needs numba)
    python3 benchmarks/bench_table.py write gpu.json [cpu.json]              # a dated section of RESULTS.md

``gpu`` measures each library in its own fresh process (cudajit as installed; with ``--before DIR``, also the
cudajit installed in DIR, e.g. ``pip install --target DIR`` of an older commit, in the same run), then prints
the table. GPU times are CUDA events (device work) or ``perf_counter`` around a synchronising call (host-facing
rows), medians of repeated rounds. ``cpu`` runs ``bench_cpu_vs_njit.py`` (the CPU backend against
``numba.njit(parallel=True)`` on this machine's cores).
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_common import event_ms, med, per_launch, queued_us, seconds  # noqa: E402

# (key, what, unit, higher is better, issue 11's target): a target is (rule, value), rule "limit" (cudajit's figure
# against the value), "CuPy" / "numba-cuda" (against value times that library's figure), "faster than seq100" (the
# graph row: one by one takes value times as long), or None.
ROWS = [
    ("alloc_us", "allocate a 4 KiB device array", "µs", False, ("limit", 3)),
    ("launch3_us", "launch, 3 device arrays", "µs", False, ("limit", 4)),
    ("launch0_us", "launch, no arguments", "µs", False, ("limit", 3.5)),
    ("launch3_stream_us", "launch on a stream object, 3 device arrays: `k[1, 32, s](a, b, c)` (CuPy: inside `with s:`)",
     "µs", False, None),
    ("launch3_2d_us", "launch with a 2-d configuration, 3 device arrays: `k[(1, 1), (32, 1)](a, b, c)`", "µs", False,
     None),
    ("launch_floor_us", "the driver's floor: cuLaunchKernel of an empty kernel through CuPy's thinnest wrapper "
     "(`cupy.cuda.driver.launchKernel`), no arguments", "µs", False, None),
    ("launch3_host_us", "launch, 3 device arrays: the host's own time, 500 launches queued behind a busy kernel",
     "µs", False, None),
    ("launch0_host_us", "launch, no arguments: the host's own time, the same way", "µs", False, None),
    ("gpu_empty_kernel_us", "the GPU's own time per empty kernel: those 500 between an event after the busy kernel "
     "and one after the last (no arguments)", "µs", False, None),
    ("launch_numpy_us", "launch with 3 NumPy 4 KB arrays, copied in and back", "µs", False, ("limit", 60)),
    ("reduce20_ms", "`cuda.reduce` sum, 2^20 float32 on the device (CuPy: `cp.sum`)", "ms", False, ("CuPy", 1.5)),
    ("reduce27_ms", "`cuda.reduce` sum, 2^27 float32 on the device (CuPy: `cp.sum`)", "ms", False, ("CuPy", 1.1)),
    ("reduce27_numpy_ms", "`cuda.reduce` sum, 2^27 float32 from a NumPy array", "ms", False, ("limit", 25)),
    ("h2d_GBps", "host→device 1 GiB pageable", "GB/s", True, ("numba-cuda", 1.5)),
    ("d2h_GBps", "device→host 1 GiB pageable", "GB/s", True, ("numba-cuda", 1.5)),
    ("cold_s", "first launch in a fresh process, empty disk cache", "s", False, ("limit", 0.08)),
    ("warm_s", "first launch in a fresh process, warm disk cache", "s", False, ("limit", 0.01)),
    ("saxpy_GBps", "saxpy 2^26 float32, one element per thread (CuPy: a device-to-device copy of 1 GiB)", "GB/s",
     True, ("limit", 2750)),
    ("saxpy_kernel_GBps", "the same saxpy (CuPy: the same copy), the kernel's own time: each timed launch queued "
     "behind an identical one, so the host's time to issue it (the launch rows) is not counted", "GB/s", True, None),
    ("saxpy2_GBps", "the same saxpy written with two elements per thread", "GB/s", True, None),
    ("seq100_us", "100 small kernels launched one by one (CuPy: RawKernel)", "µs", False, None),
    ("graph100_us", "the same 100 captured once, replayed (`cuda.graph`; CuPy: its stream capture)", "µs", False,
     ("faster than seq100", 3)),
]


def target_text(target, higher):
    if target is None:
        return ""
    rule, value = target
    sign = "≥" if higher else "≤"
    if rule == "limit":
        return f"{sign} {value:,}" if value >= 1000 else f"{sign} {value}"
    if rule == "faster than seq100":
        return f"≥ {value}× faster"
    return f"{sign} {value}× " + ("`cp.sum`" if rule == "CuPy" else rule)


COLD = '''
import sys, time, numpy as np
{imp}
sys.path.insert(0, {here!r})
import seeds_kernels
ns = seeds_kernels.load({lib!r})
a = cuda.to_device(np.ones(1024, np.float32)); c = cuda.device_array_like(a); cuda.synchronize()
t0 = time.perf_counter(); ns.bump[4, 256](a, a, c); cuda.synchronize(); print(time.perf_counter() - t0)
'''


def import_lib(lib):
    import numpy as np
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack  # numba-cuda 0.30.4 still names it; NumPy 2.5 removed it
    if lib == "numba":
        from numba import cuda
        return cuda, "import numpy as np; np.row_stack = np.vstack\nfrom numba import cuda"
    from cudajit import cuda
    return cuda, "from cudajit import cuda"


SPIN = 16_000_000      # seeds_kernels.spin's loop: about 70 ms of one GPU thread, the busy kernel of queued_us


def events_ms(cuda, fn, reps, behind=False):
    return event_ms(cuda.event, cuda.event_elapsed_time, cuda.synchronize, fn, reps, behind)


def wall_s(fn, reps, sync):
    return seconds(lambda: (fn(), sync()), reps)


def measure_numba_api(lib):
    """Every row for cudajit or numba-cuda (the same Python API)."""
    import numpy as np
    cuda, imp = import_lib(lib)
    import seeds_kernels
    K = seeds_kernels.load(lib)
    empty3, empty0, saxpy, bump, mix = K.empty3, K.empty0, K.saxpy, K.bump, K.mix
    rng = np.random.default_rng(0)
    out = {"module": cuda.__file__ if hasattr(cuda, "__file__") else str(cuda)}
    many = 20000 if lib == "cudajit" else 5000
    out["alloc_us"] = per_launch(lambda: cuda.device_array(1024, np.float32), cuda.synchronize, n=many)
    a, b, c = (cuda.to_device(rng.random(1024, dtype=np.float32)) for _ in range(3))
    empty3[1, 32](a, b, c)
    empty0[1, 32]()
    out["launch3_us"] = per_launch(lambda: empty3[1, 32](a, b, c), cuda.synchronize, n=many)
    out["launch0_us"] = per_launch(lambda: empty0[1, 32](), cuda.synchronize, n=many)
    s = cuda.stream()
    empty3[1, 32, s](a, b, c)
    out["launch3_stream_us"] = per_launch(lambda: empty3[1, 32, s](a, b, c), s.synchronize, n=many)
    empty3[(1, 1), (32, 1)](a, b, c)
    out["launch3_2d_us"] = per_launch(lambda: empty3[(1, 1), (32, 1)](a, b, c), cuda.synchronize, n=many)
    busy_out = cuda.device_array(1, np.float64)

    def busy():
        K.spin[1, 1](busy_out, SPIN)
    out["launch3_host_us"], _ = queued_us(cuda.event, cuda.event_elapsed_time, cuda.synchronize, busy,
                                          lambda: empty3[1, 32](a, b, c))
    out["launch0_host_us"], out["gpu_empty_kernel_us"] = queued_us(
        cuda.event, cuda.event_elapsed_time, cuda.synchronize, busy, lambda: empty0[1, 32]())
    ha, hb, hc = (rng.random(1024, dtype=np.float32) for _ in range(3))
    out["launch_numpy_us"] = per_launch(lambda: empty3[1, 32](ha, hb, hc), cuda.synchronize, n=2000)

    def add(x, y):
        return x + y
    red = cuda.reduce(add)
    for key, n in (("reduce20_ms", 1 << 20), ("reduce27_ms", 1 << 27)):
        x = rng.standard_normal(n).astype(np.float32)
        dx = cuda.to_device(x)
        out[key] = events_ms(cuda, lambda: red(dx), reps=50)
        out[key.replace("_ms", "_relerr")] = abs(float(red(dx)) - float(x.sum(dtype=np.float64))) / float(np.abs(x).sum())
    out["reduce27_numpy_ms"] = 1e3 * wall_s(lambda: red(x), 5, cuda.synchronize)
    del dx

    h = rng.random(1 << 28, dtype=np.float32)          # 1 GiB, pageable
    back = np.empty_like(h)
    d = cuda.device_array(h.shape, h.dtype)
    out["h2d_GBps"] = h.nbytes / wall_s(lambda: d.copy_to_device(h), 5, cuda.synchronize) / 1e9
    out["d2h_GBps"] = h.nbytes / wall_s(lambda: d.copy_to_host(back), 5, cuda.synchronize) / 1e9
    out["copies_equal"] = bool(np.array_equal(back, h))
    del d, h, back

    n = 1 << 26
    x, y = (cuda.to_device(rng.random(n, dtype=np.float32)) for _ in range(2))
    o = cuda.device_array(n, np.float32)
    grid = (n + 255) // 256
    out["saxpy_GBps"] = 3 * 4 * n / events_ms(cuda, lambda: saxpy[grid, 256](np.float32(2.5), x, y, o), 50) / 1e6
    out["saxpy_kernel_GBps"] = 3 * 4 * n / events_ms(
        cuda, lambda: saxpy[grid, 256](np.float32(2.5), x, y, o), 50, behind=True) / 1e6
    out["saxpy2_GBps"] = 3 * 4 * n / events_ms(cuda, lambda: K.saxpy2[(n // 2 + 255) // 256, 256](
        np.float32(2.5), x, y, o), 50) / 1e6
    xh, yh = x.copy_to_host(), y.copy_to_host()
    out["saxpy_equals_numpy"] = bool(np.allclose(o.copy_to_host(), np.float32(2.5) * xh + yh))
    del x, y, o

    s = cuda.stream()

    def seq():
        for k in range(50):
            bump[4, 256, s](a, b, c)
            mix[4, 256, s](a, b, c)
    out["seq100_us"] = 1e3 * events_ms(cuda, seq, reps=30)
    if hasattr(cuda, "graph"):
        with cuda.graph(s) as g:
            seq()
        out["graph100_us"] = 1e3 * events_ms(cuda, lambda: g.launch(), reps=30)
        a0, b0 = a.copy_to_host(), b.copy_to_host()
        g.launch()
        s.synchronize()
        want = a0.copy()
        for _ in range(50):
            want = want + b0
        out["graph_equals_numpy"] = bool(np.allclose(a.copy_to_host(), want, rtol=1e-5))

    for label, cache in (("cold_s", None), ("warm_s", f"/tmp/bench-table-warm-{os.getpid()}")):
        env = dict(os.environ)
        times = []
        for k in range((4 if label == "warm_s" else 3) if lib == "cudajit" or label == "cold_s" else 0):
            env["CUDAJIT_CACHE_DIR"] = cache or f"/tmp/bench-table-cold-{os.getpid()}-{k}"
            r = subprocess.run([sys.executable, "-c", COLD.format(imp=imp, here=HERE, lib=lib)], env=env,
                               capture_output=True, text=True)
            if r.returncode:
                out[label + "_error"] = r.stderr[-800:]
                break
            times.append(float(r.stdout.split()[-1]))
        if times:
            out[label] = med(times[1:] if label == "warm_s" else times)   # the first warm run fills the cache
    return out


def measure_cupy():
    import cupy as cp
    import numpy as np
    out = {}
    dev = cp.cuda.Device()
    out["alloc_us"] = per_launch(lambda: cp.empty(1024, cp.float32), dev.synchronize, n=20000)
    src = r'''extern "C" __global__ void e3(float* a, float* b, float* c) {}
extern "C" __global__ void e0() {}
extern "C" __global__ void bump(float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = a[i] + b[i]; }
extern "C" __global__ void mix(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] * 0.5f + b[i]; }
extern "C" __global__ void spin(double* out, long long n) {
    double acc = 0; for (long long i = 0; i < n; ++i) acc = acc * 0.9999999 + 1.0; out[0] = acc; }'''
    mod = cp.RawModule(code=src)
    e3, e0, bump, mix, spin = (mod.get_function(k) for k in ("e3", "e0", "bump", "mix", "spin"))
    a, b, c = (cp.random.random(1024, dtype=cp.float32) for _ in range(3))
    e3((1,), (32,), (a, b, c))
    e0((1,), (32,), ())
    out["launch3_us"] = per_launch(lambda: e3((1,), (32,), (a, b, c)), dev.synchronize)
    out["launch0_us"] = per_launch(lambda: e0((1,), (32,), ()), dev.synchronize)
    s = cp.cuda.Stream(non_blocking=False)
    with s:
        e3((1,), (32,), (a, b, c))
        out["launch3_stream_us"] = per_launch(lambda: e3((1,), (32,), (a, b, c)), s.synchronize)
    out["launch3_2d_us"] = per_launch(lambda: e3((1, 1), (32, 1), (a, b, c)), dev.synchronize)
    busy_out = cp.empty(1, cp.float64)

    def busy():
        spin((1,), (1,), (busy_out, np.int64(SPIN)))
    out["launch3_host_us"], _ = queued_us(cp.cuda.Event, cp.cuda.get_elapsed_time, dev.synchronize, busy,
                                          lambda: e3((1,), (32,), (a, b, c)))
    out["launch0_host_us"], out["gpu_empty_kernel_us"] = queued_us(
        cp.cuda.Event, cp.cuda.get_elapsed_time, dev.synchronize, busy, lambda: e0((1,), (32,), ()))
    from cupy.cuda import driver
    fn = e0.kernel.ptr
    out["launch_floor_us"] = per_launch(lambda: driver.launchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, 0, 0), dev.synchronize)

    def ms(fn, reps=50, behind=False):
        return event_ms(cp.cuda.Event, cp.cuda.get_elapsed_time, dev.synchronize, fn, reps, behind)
    for key, n in (("reduce20_ms", 1 << 20), ("reduce27_ms", 1 << 27)):
        x = cp.random.standard_normal(n, dtype=cp.float32)
        out[key] = ms(lambda: cp.sum(x))
    del x
    g1, g2 = cp.random.random(1 << 28, dtype=cp.float32), cp.empty(1 << 28, cp.float32)
    out["saxpy_GBps"] = 2 * g1.nbytes / ms(lambda: cp.copyto(g2, g1), 20) / 1e6
    out["saxpy_kernel_GBps"] = 2 * g1.nbytes / ms(lambda: cp.copyto(g2, g1), 20, behind=True) / 1e6
    del g1, g2
    s = cp.cuda.Stream(non_blocking=True)
    n = np.int32(1024)

    def seq():
        for k in range(50):
            bump((4,), (256,), (a, b, c, n))
            mix((4,), (256,), (a, b, c, n))
    with s:
        out["seq100_us"] = 1e3 * ms(seq, 30)
        s.begin_capture()
        seq()
        graph = s.end_capture()
        out["graph100_us"] = 1e3 * ms(lambda: graph.launch(s), 30)
    return out


# The column of what the hardware and the driver allow without Python (benchmarks/floor.cu, built with nvcc): the
# launch rows as a C++ loop of cuLaunchKernel, the saxpy rows as hand-written CUDA C++.
FLOOR = "C++ (floor.cu)"


def measure_floor():
    """floor.cu's figures, built here with nvcc; an error entry when there is no nvcc or it fails."""
    import shutil
    import tempfile
    nvcc = shutil.which("nvcc") or (os.path.join(os.environ["CUDA_HOME"], "bin", "nvcc")
                                    if os.environ.get("CUDA_HOME") else None)
    if not nvcc or not os.path.exists(nvcc):
        return {"error": "no nvcc to build benchmarks/floor.cu"}
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "floor")
        r = subprocess.run([nvcc, "-O2", "-arch=native", os.path.join(HERE, "floor.cu"), "-o", exe, "-lcuda"],
                           capture_output=True, text=True)
        if r.returncode:
            return {"error": r.stderr[-2000:]}
        r = subprocess.run([exe], capture_output=True, text=True)
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        return {"error": (r.stderr or r.stdout)[-2000:]}
    # -1: a queued measurement whose launches outlasted the busy kernel (None, as bench_common.queued_us says)
    return {k: (None if isinstance(v, (int, float)) and v < 0 else v) for k, v in json.loads(lines[-1]).items()}


def run_gpu(args):
    """Each library in a fresh process of its own; the cudajit of --before with that folder first on the path."""
    runs = [("cudajit", "cudajit", None), ("numba-cuda", "numba", None), ("CuPy", "cupy", None)]
    if args.before:
        runs.insert(1, ("cudajit before", "cudajit", args.before))
    result = {"date": datetime.date.today().isoformat(), "device": _device_name(), "libs": {}}
    t0 = time.perf_counter()
    result["libs"][FLOOR] = measure_floor()
    print(f"{FLOOR}: {time.perf_counter() - t0:.0f} s", json.dumps(result["libs"][FLOOR]), flush=True)
    for label, lib, path in runs:
        env = dict(os.environ)
        if path:
            env["PYTHONPATH"] = os.pathsep.join([path] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "measure", lib], env=env, capture_output=True,
                           text=True)
        lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
        if r.returncode or not lines:
            result["libs"][label] = {"error": (r.stderr or r.stdout)[-2000:]}
        else:
            result["libs"][label] = json.loads(lines[-1])
        print(f"{label}: {time.perf_counter() - t0:.0f} s", json.dumps(result["libs"][label]), flush=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(table(result))


def _device_name():
    r = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                       capture_output=True, text=True)
    return r.stdout.strip().splitlines()[0] if r.returncode == 0 and r.stdout.strip() else "unknown"


def fmt(v):
    if v is None:
        return ""
    return f"{v:.3g}" if abs(v) < 100 else f"{v:,.0f}"


def table(result):
    libs = result["libs"]
    order = [k for k in ("numba-cuda", "CuPy", FLOOR, "cudajit before", "cudajit") if k in libs]
    head = "| what | unit | " + " | ".join(order) + " | target | met |\n|" + " --- |" * (len(order) + 4)
    lines = [head]
    for key, what, unit, higher, target in ROWS:
        vals = [libs[k].get(key) for k in order]
        lines.append(f"| {what} | {unit} | " + " | ".join(fmt(v) for v in vals) + f" | {target_text(target, higher)} | "
                     + verdict(key, target, libs, higher) + " |")
    return "\n".join(lines)


def verdict(key, target, libs, higher):
    """Whether cudajit's figure meets issue 11's target for the row ("" where there is none or nothing to compare)."""
    v = libs.get("cudajit", {}).get(key)
    if v is None or target is None:
        return ""
    rule, value = target
    if rule == "limit":
        bound = value
    elif rule == "faster than seq100":
        one_by_one = libs["cudajit"].get("seq100_us")
        return _yes(one_by_one >= value * v) if one_by_one else ""
    else:
        theirs = libs.get(rule, {}).get(key)
        if not theirs:
            return ""
        bound = value * theirs
    return _yes(v >= bound if higher else v <= bound)


def _yes(ok):
    return "yes" if ok else "**no**"


def run_cpu(args):
    r = subprocess.run([sys.executable, os.path.join(HERE, "bench_cpu_vs_njit.py"), "--reps", str(args.reps)],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "python")))
    rows = [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith("{")]
    if r.returncode or not rows:
        sys.exit("bench_cpu_vs_njit.py failed:\n" + r.stderr[-2000:])
    result = {"date": datetime.date.today().isoformat(), "machine": f"{os.cpu_count()} cores, no GPU", "rows": rows}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(cpu_table(result))


def cpu_table(result):
    lines = ["| kernel (CPU backend) | cudajit (ms) | `njit(parallel=True)` (ms) | ratio | target |",
             "| --- | ---: | ---: | ---: | --- |"]
    for r in result["rows"]:
        target = "≤ 1.5×" if r["kernel"] == "vector_add" else "< 1× (stay ahead)"
        lines.append(f"| {r['kernel']} n={r['n']} | {r['cudajit_ms']} | {r['njit_parallel_ms']} | {r['ratio']}× | {target} |")
    return "\n".join(lines)


def write(args):
    with open(args.gpu) as f:
        gpu = json.load(f)
    parts = [f"\n## Issue 11's table, one command — {gpu['date']}\n",
             f"Device: {gpu['device']}. Command (on the device): `python3 benchmarks/bench_table.py gpu --before DIR "
             f"--out gpu.json` (`DIR`: the commit before this work, installed with `pip install --target`), then "
             f"`python3 benchmarks/bench_table.py write gpu.json cpu.json` here. Each library in its own process, "
             f"medians; \"cudajit before\" and \"cudajit\" from the same run.\n", table(gpu), ""]
    if args.cpu:
        with open(args.cpu) as f:
            cpu = json.load(f)
        parts += [f"CPU rows ({cpu['machine']}, {cpu['date']}, `python3 benchmarks/bench_table.py cpu --out "
                  f"cpu.json` with numba installed):\n", cpu_table(cpu), ""]
    with open(os.path.join(HERE, "RESULTS.md"), "a") as f:
        f.write("\n".join(parts))
    print("\n".join(parts))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gpu")
    g.add_argument("--before", help="a folder holding an older cudajit to measure in the same run")
    g.add_argument("--out", default="bench_table_gpu.json")
    m = sub.add_parser("measure")
    m.add_argument("lib", choices=["cudajit", "numba", "cupy"])
    c = sub.add_parser("cpu")
    c.add_argument("--out", default="bench_table_cpu.json")
    c.add_argument("--reps", type=int, default=11)
    w = sub.add_parser("write")
    w.add_argument("gpu")
    w.add_argument("cpu", nargs="?")
    args = p.parse_args()
    if args.cmd == "measure":
        print(json.dumps(measure_cupy() if args.lib == "cupy" else measure_numba_api(args.lib)), flush=True)
    else:
        {"gpu": run_gpu, "cpu": run_cpu, "write": write}[args.cmd](args)


if __name__ == "__main__":
    main()

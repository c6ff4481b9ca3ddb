"""Multi-GPU scaling of a bandwidth-bound kernel (issue 8): ``python benchmarks/bench_multi_gpu.py``.

A STREAM triad ``a = b + s * c`` (float64, grid-stride loop) runs ``--passes`` times over three arrays that fill
``--fill`` of each GPU's free memory. One GPU alone does its share (timed), then every GPU does its own share at
once, one Python thread per GPU, each launching on its own device. Medians of ``--repeats``. The speed-up is
``GPUs x t(one GPU) / t(all GPUs)``: the same work per GPU, so perfect scaling gives the number of GPUs (the issue's
target on 2 GPUs: >= 1.8x). On the CPU backend it runs as a smoke test on its one pseudo-device (``--n`` small).
Each GPU's result is checked against NumPy on its first and last elements.
"""
import argparse
import os
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import emit, med  # noqa: E402

from cudajit import cuda  # noqa: E402

SCALE = 3.0
BLOCK = 256
CHECK = 1 << 16          # elements compared with NumPy at each end of each GPU's arrays


@cuda.jit
def triad(a, b, c, s):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < a.size:
        a[i] = b[i] + s * c[i]
        i += stride


class Share:
    """One GPU's arrays (made with that device current) and its launch shape."""

    def __init__(self, device, n, seed):
        self.device = device
        with cuda.gpus[device]:
            rng = np.random.default_rng(seed)
            self.a = cuda.device_array(n)
            self.b = cuda.device_array(n)
            self.c = cuda.device_array(n)
            for arr in (self.b, self.c):        # random ends for the check, the middle filled on the device
                arr[:min(n, CHECK)] = rng.random(min(n, CHECK))
                arr[-min(n, CHECK):] = rng.random(min(n, CHECK))
            sms = cuda.gpus[device].MULTIPROCESSOR_COUNT
            self.grid = max(1, min(-(-n // BLOCK), 32 * sms))
            self.start, self.end = cuda.event(), cuda.event()

    def run(self, passes):
        """Launch the passes on this GPU (the calling thread selects it) and wait; returns the event time in ms."""
        cuda.select_device(self.device)
        self.start.record()
        for _ in range(passes):
            triad[self.grid, BLOCK](self.a, self.b, self.c, SCALE)
        self.end.record()
        self.end.synchronize()
        return cuda.event_elapsed_time(self.start, self.end)

    def check(self):
        with cuda.gpus[self.device]:
            k = min(self.a.size, CHECK)
            for part in (slice(0, k), slice(self.a.size - k, self.a.size)):
                want = self.b[part].copy_to_host() + SCALE * self.c[part].copy_to_host()
                np.testing.assert_allclose(self.a[part].copy_to_host(), want, rtol=1e-15)


def elements_for(device, fill):
    """float64 elements per array such that three arrays take ``fill`` of the device's free memory."""
    free = cuda.gpus[device].get_primary_context().get_memory_info().free
    return int(free * fill) // (3 * 8)


def concurrently(shares, passes):
    """Wall seconds for every share's passes at once, one thread per GPU, started together."""
    barrier = threading.Barrier(len(shares) + 1)
    errors = []

    def work(share):
        try:
            cuda.select_device(share.device)
            barrier.wait()
            share.run(passes)
        except Exception as e:      # re-raised below: a thread's exception is otherwise lost
            errors.append(e)
            barrier.abort()
    threads = [threading.Thread(target=work, args=(s,)) for s in shares]
    for t in threads:
        t.start()
    try:
        barrier.wait()
    except threading.BrokenBarrierError:    # a thread failed before the start: its exception is raised below
        pass
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    if errors:
        raise errors[0]
    return elapsed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fill", type=float, default=0.8, help="fraction of each GPU's free memory (default 0.8)")
    parser.add_argument("--n", type=int, default=None, help="elements per array per GPU (overrides --fill)")
    parser.add_argument("--passes", type=int, default=10, help="triad passes per timing (default 10)")
    parser.add_argument("--repeats", type=int, default=5, help="timings per configuration; medians (default 5)")
    args = parser.parse_args(argv)
    devices = list(range(len(cuda.gpus)))
    shares = []
    for d in devices:
        n = args.n if args.n is not None else elements_for(d, args.fill)
        shares.append(Share(d, n, seed=d))
        shares[-1].run(1)                       # compile for the device, touch the memory
        cuda.select_device(0)
    one, every = [], []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        shares[0].run(args.passes)
        one.append(time.perf_counter() - t0)
        every.append(concurrently(shares, args.passes))
    cuda.select_device(0)
    for s in shares:
        s.check()
    t_one, t_all = med(one), med(every)
    bytes_per_gpu = [3 * 8 * s.a.size * args.passes for s in shares]
    speedup = len(shares) * t_one / t_all
    emit(bench="multi_gpu_triad", gpus=len(shares), elements_per_gpu=[s.a.size for s in shares],
         passes=args.passes, repeats=args.repeats, t_one_gpu_s=t_one, t_all_gpus_s=t_all,
         one_gpu_gbs=bytes_per_gpu[0] / t_one / 1e9, all_gpus_gbs=sum(bytes_per_gpu) / t_all / 1e9,
         speedup=speedup, device=str(cuda.gpus[0].name))
    print(f"triad on {len(shares)} GPU(s), {shares[0].a.size * 24 / 2**30:.1f} GiB per GPU: one GPU "
          f"{bytes_per_gpu[0] / t_one / 1e9:.0f} GB/s, all GPUs {sum(bytes_per_gpu) / t_all / 1e9:.0f} GB/s, "
          f"speed-up {speedup:.2f}x over {len(shares)} GPU(s)" +
          (f" (target >= 1.8x on 2 GPUs: {'met' if speedup >= 1.8 else 'NOT met'})" if len(shares) == 2 else ""))
    return speedup


if __name__ == "__main__":
    main()

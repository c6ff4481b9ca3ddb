"""Ctrl-C stops a running CPU-backend kernel: a launch of very many blocks, and threads that loop for a long
time (as a plain loop and as fibers, on the launching thread and on the pool's helpers). Each case runs in a
subprocess that sends itself SIGINT from a timer thread, measures the time to KeyboardInterrupt, and then
launches again to show the process is still usable."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import cudajit

PYTHON_DIR = str(Path(cudajit.__file__).resolve().parents[1])   # the cudajit this test imports: in place or installed

SCRIPT = textwrap.dedent("""
    import json, os, signal, sys, threading, time
    import numpy as np
    from cudajit import cuda, _backend

    @cuda.jit
    def many_blocks(out):
        acc = 0.0
        for k in range(200):                      # short and constant: no poll inside, blocks are the unit
            acc += k * 0.5
        out[cuda.blockIdx.x % out.size] = acc

    @cuda.jit
    def long_while(out, n):
        i = 0
        while i < n:
            i += 1
        out[cuda.threadIdx.x] = i

    @cuda.jit
    def long_for_with_barrier(out, n):
        acc = 0
        cuda.syncthreads()
        for i in range(n):
            acc += i & 1
        cuda.syncthreads()
        out[cuda.threadIdx.x] = acc

    @cuda.jit
    def add_one(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    def interrupted_after(launch, delay=0.3):
        sent = []
        timer = threading.Timer(delay, lambda: (sent.append(time.perf_counter()), os.kill(os.getpid(), signal.SIGINT)))
        timer.start()
        try:
            launch()
        except KeyboardInterrupt:
            return time.perf_counter() - sent[0]
        finally:
            timer.cancel()
        raise AssertionError("the launch finished: not interrupted")

    def still_usable():
        a = np.arange(1000, dtype=np.float32)
        d = cuda.to_device(a)
        add_one[8, 128](d)
        return bool(np.array_equal(d.copy_to_host(), a + 1))

    # A suite started in the background (`cmd &` in a script) passes SIGINT on ignored, and Python then keeps
    # it ignored: the test is about cudajit, not the shell, so take Python's own handler.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with _backend.use("cpu"):
        out = cuda.to_device(np.zeros(64))
        n = np.int64(10**15)
        cases = {
            "many_blocks": lambda: many_blocks[10**7, 64](out),
            "loop_one_thread": lambda: long_while[1, 1](out, n),
            "loop_many_blocks": lambda: long_while[16, 64](out, n),
            "fibers_one_block": lambda: long_for_with_barrier[1, 64](out, n),
            "fibers_many_blocks": lambda: long_for_with_barrier[8, 64](out, n),
        }
        for fn in (many_blocks, long_while, long_for_with_barrier):   # compile before timing
            fn.compile(fn is many_blocks and "void(float64[:])" or "void(float64[:], int64)")
        def handler_that_launches():
            # a SIGINT handler that launches runs inside the running launch's interrupt check
            def handler(signum, frame):
                add_one[1, 32](cuda.to_device(np.zeros(32, np.float32)))
            previous = signal.signal(signal.SIGINT, handler)
            try:
                long_while[1, 1](out, n)
            except Exception as e:   # LaunchError from the handler's launch stops the running one
                if "launched from a signal handler" not in str(e):
                    raise
                raise KeyboardInterrupt
            finally:
                signal.signal(signal.SIGINT, previous)
        cases["handler_launches"] = handler_that_launches

        result = {}
        for name in sys.argv[1].split(","):
            latency = interrupted_after(cases[name])
            result[name] = [latency, still_usable()]
        print(json.dumps(result))
""")


def _run(tmp_path, cases):
    script = tmp_path / "interrupted.py"   # kernels need a source file
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, CUDAJIT_NUM_THREADS="2")
    proc = subprocess.run([sys.executable, str(script), ",".join(cases)], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("cases", [("many_blocks", "loop_one_thread", "loop_many_blocks"),
                                   ("fibers_one_block", "fibers_many_blocks", "handler_launches")])
def test_ctrl_c_stops_a_running_kernel(tmp_path, cases):
    result = _run(tmp_path, cases)
    assert set(result) == set(cases)
    for name, (latency, usable) in result.items():
        assert latency < 0.5, f"{name}: KeyboardInterrupt came {latency:.3f} s after SIGINT"
        assert usable, f"{name}: the next launch gave a wrong result"

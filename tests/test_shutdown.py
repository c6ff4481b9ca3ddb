"""Interpreter exit while daemon threads are inside cudajit (launching kernels, copying arrays, compiling)
ends cleanly: exit status 0 and no "terminate called" abort (src/gil.h says why that happened). Each run is a
subprocess whose main thread returns while the threads are busy; repeated, since the timing varies."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import cudajit

PYTHON_DIR = str(Path(cudajit.__file__).resolve().parents[1])   # the cudajit this test imports: in place or installed

SCRIPT = textwrap.dedent("""
    import itertools, sys, threading, time
    import numpy as np
    from cudajit import cuda, _core
    from cudajit._paths import include_dir

    backend = sys.argv[1]   # also in $CUDAJIT_BACKEND

    @cuda.jit
    def scale(a, f):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= f

    @cuda.jit
    def barrier_sum(a, out):
        s = cuda.shared.array(64, np.float32)
        s[cuda.threadIdx.x] = a[cuda.threadIdx.x]
        cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            t = 0.0
            for k in range(64):
                t += s[k]
            out[0] = t

    a = np.random.default_rng(0).random(1 << 16).astype(np.float32)
    started = threading.Barrier(5)

    def launching():
        d = cuda.to_device(a)
        started.wait()
        while True:
            scale[256, 256](d, np.float32(1.0))

    def barriers():
        d, out = cuda.to_device(a[:64]), cuda.device_array(1, np.float32)
        started.wait()
        while True:
            barrier_sum[1, 64](d, out)

    def copying():
        started.wait()
        while True:
            d = cuda.to_device(a)
            d.copy_to_host()

    def compiling():
        started.wait()
        for n in itertools.count():
            if backend == "cpu":   # a real compiler run each time: a new source
                src = "#include <cudajit/runtime.h>\\nCJ_GLOBAL void cj_k_f_0(int64_t n) { (void)(n + %d); }\\n" \\
                      "CJ_ENTRY(cj_k_f_0, int64_t)\\n" % (time.time_ns() + n)
                _core.compile_host(src, [], include_dir())
            else:
                _recompile(n)

    def _recompile(n):
        # NVRTC each time: a fresh dispatcher of the same kernel with an option that changes the key
        cuda.jit("void(float32[:], float32)", lineinfo=bool(n & 1), fastmath=bool(n & 2))(scale.py_func)

    for fn in (launching, barriers, copying, compiling):
        threading.Thread(target=fn, daemon=True).start()
    started.wait()
    time.sleep(float(sys.argv[2]))
    print("main thread exits")
""")


def _exit_cleanly(tmp_path, backend):
    script = tmp_path / "daemon_exit.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, CUDAJIT_BACKEND=backend)
    if backend == "cpu" and cudajit._core.nvrtc_available()[0]:
        env["CUDAJIT_CHECK_NVRTC"] = "1"   # NVRTC compiles in flight at exit: what crashed (src/gil.h)
    for delay in ("0.2", "0.5", "0.05", "1.0"):
        env["CUDAJIT_CACHE_DIR"] = str(tmp_path / f"cache-{delay}")   # cold: the first launches compile
        proc = subprocess.run([sys.executable, str(script), backend, delay], env=env, capture_output=True,
                              text=True, timeout=120)
        assert "main thread exits" in proc.stdout, proc.stderr[-3000:]
        assert proc.returncode == 0 and "terminate" not in proc.stderr, \
            f"exit after {delay} s: status {proc.returncode}\n{proc.stderr[-3000:]}"


def test_exit_with_daemon_threads_inside_cpu_backend(tmp_path):
    _exit_cleanly(tmp_path, "cpu")


@pytest.mark.gpu
def test_exit_with_daemon_threads_inside_gpu_backend(tmp_path):
    _exit_cleanly(tmp_path, "gpu")

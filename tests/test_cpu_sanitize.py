"""The CPU backend's generated code under AddressSanitizer and UndefinedBehaviorSanitizer
(CUDAJIT_CPU_SANITIZE=address,undefined): a representative set of kernels (shared memory, barriers run as
fibers, atomics, warp shuffles, local arrays, device functions, debug=True's checked indexing) runs clean, and
a planted out-of-bounds write in raw generated C++ is reported, so the check can fail. Each run is a subprocess
started with g++'s libasan (and libstdc++) preloaded (Python itself is not instrumented; its leaks are not ours)."""
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

KERNELS = textwrap.dedent("""
    import numpy as np
    from cudajit import cuda

    @cuda.jit(device=True)
    def clamp(v, lo, hi):
        return min(max(v, lo), hi)

    @cuda.jit
    def block_sums(x, sums, total):
        tile = cuda.shared.array(128, np.float64)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        tile[t] = x[i] if i < x.size else 0.0
        cuda.syncthreads()
        stride = 64
        while stride > 0:
            if t < stride:
                tile[t] += tile[t + stride]
            cuda.syncthreads()
            stride //= 2
        if t == 0:
            sums[cuda.blockIdx.x] = tile[0]
            cuda.atomic.add(total, 0, tile[0])

    @cuda.jit
    def warp_and_local(x, out):
        i = cuda.grid(1)
        scratch = cuda.local.array(4, np.float64)
        for k in range(4):
            scratch[k] = clamp(x[i] * k, 0.0, 2.0) if i < x.size else 0.0
        v = scratch[0] + scratch[1] + scratch[2] + scratch[3]
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(0xffffffff, v, offset)
            offset //= 2
        if cuda.laneid == 0:
            out[i // 32] = v

    @cuda.jit(debug=True)
    def checked(x, idx):
        i = cuda.grid(1)
        if i < idx.size:
            x[idx[i]] += 1.0

    rng = np.random.default_rng(0)
    x = rng.random(1000)
    sums, total = np.zeros(8), np.zeros(1)
    block_sums[8, 128](x, sums, total)
    assert np.allclose(sums, np.add.reduceat(np.r_[x, np.zeros(24)], np.arange(0, 1024, 128)))
    assert np.isclose(total[0], x.sum())

    out = np.zeros(32)
    warp_and_local[8, 128](x, out)
    per = np.clip(np.r_[x, np.zeros(24)][:, None] * np.arange(4), 0, 2).sum(axis=1)
    assert np.allclose(out, per.reshape(32, 32).sum(axis=1))

    y = np.zeros(10)
    checked[1, 32](y, np.arange(10) % 10)
    assert np.array_equal(y, np.ones(10))
    try:
        checked[1, 32](y, np.array([3, 10]))
    except IndexError:
        pass
    else:
        raise AssertionError("debug=True did not catch the out-of-range index")

    # a trap inside a fiber unwinds (a C++ exception) on the fiber's own stack
    import struct
    from cudajit import _core
    from cudajit.errors import KernelRuntimeError
    from cudajit._paths import include_dir
    src = '''#include <cudajit/runtime.h>
    CJ_GLOBAL void cj_k_trapping_0(int64_t bad) {
        cj::syncthreads();
        if (cj::tid_x() == bad) cj::trap();
        cj::syncthreads();
    }
    CJ_ENTRY(cj_k_trapping_0, int64_t)
    '''
    k = _core.CpuKernel(_core.compile_host(src, [], include_dir()), "cj_k_trapping_0", True)
    try:
        k.launch((4, 1, 1), (64, 1, 1), 0, [struct.pack("<q", 5)])
    except KernelRuntimeError as e:
        assert "trap" in str(e)
    else:
        raise AssertionError("the trap was not reported")
    k.launch((4, 1, 1), (64, 1, 1), 0, [struct.pack("<q", -1)])
    print("kernels ran")
""")

PLANTED = textwrap.dedent("""
    import struct
    import numpy as np
    from cudajit import _core
    from cudajit._paths import include_dir

    src = '''#include <cudajit/runtime.h>
    CJ_GLOBAL void cj_k_planted_0(float* p, int64_t n) { p[n + cj::tid_x()] = 1.0f; }
    CJ_ENTRY(cj_k_planted_0, float*, int64_t)
    '''
    a = np.zeros(1024, np.float32)
    k = _core.CpuKernel(_core.compile_host(src, [], include_dir()), "cj_k_planted_0", False)
    k.launch((1, 1, 1), (1, 1, 1), 0, [struct.pack("<Q", a.ctypes.data), struct.pack("<q", a.size)])
    print("no report")
""")


def _preload():
    """g++'s libasan, then libstdc++ (loaded at start, so that ASan's __cxa_throw interceptor finds it)."""
    if shutil.which("g++") is None:
        return None
    paths = [subprocess.run(["g++", f"-print-file-name={lib}"], capture_output=True, text=True).stdout.strip()
             for lib in ("libasan.so", "libstdc++.so")]
    return " ".join(paths) if all(os.path.isabs(p) and os.path.exists(p) for p in paths) else None


def _run_sanitized(tmp_path, name, source):
    script = tmp_path / f"{name}.py"
    script.write_text(source)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDAJIT_")}
    env.update(PYTHONPATH=str(ROOT / "python"), CUDAJIT_BACKEND="cpu", CUDAJIT_CPU_SANITIZE="address,undefined",
               CUDAJIT_CACHE_DIR=os.environ.get("CUDAJIT_CACHE_DIR", str(tmp_path / "cache")),
               CUDAJIT_NUM_THREADS="2", LD_PRELOAD=_preload(),
               ASAN_OPTIONS="detect_leaks=0", UBSAN_OPTIONS="print_stacktrace=1")
    return subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)


needs_asan = pytest.mark.skipif(_preload() is None, reason="needs g++ with libasan")


@needs_asan
def test_kernels_run_clean_under_asan_and_ubsan(tmp_path):
    proc = _run_sanitized(tmp_path, "kernels", KERNELS)
    report = proc.stderr
    assert proc.returncode == 0 and "kernels ran" in proc.stdout, report[-4000:]
    assert "AddressSanitizer" not in report and "runtime error" not in report, report[-4000:]


@needs_asan
def test_planted_out_of_bounds_write_is_reported(tmp_path):
    proc = _run_sanitized(tmp_path, "planted", PLANTED)
    assert "no report" not in proc.stdout
    assert "ERROR: AddressSanitizer: heap-buffer-overflow" in proc.stderr, proc.stderr[-4000:]
    assert "cj_k_planted_0" in proc.stderr   # the report points into the kernel


def test_bad_sanitizer_list_is_a_clear_error(monkeypatch):
    from cudajit import _core
    from cudajit._paths import include_dir
    monkeypatch.setenv("CUDAJIT_CPU_SANITIZE", "address;rm -rf")
    with pytest.raises(ValueError, match="CUDAJIT_CPU_SANITIZE='address;rm -rf' is not a list of sanitizers"):
        _core.compile_host("int x;", [], include_dir())

"""The CPU backend's runtime on its own: hand-written kernels in the ABI form of generated code
(docs/INTERNALS.md, "The kernel ABI"), built by ``_core.compile_host`` and run by ``_core.CpuKernel``.

Kernels take raw pointers here so that these tests need only thread.h and cpu_exec.h (not the
compiler's array.h); parameters are passed as their raw bytes, as the launcher packs them.
"""
import os
import struct
import time
from pathlib import Path

import numpy as np
import pytest

from cudajit import _core
from cudajit.errors import CompileError, KernelRuntimeError, LaunchError


def _include_dir():
    installed = Path(_core.__file__).parent / "include"
    if (installed / "cudajit" / "thread.h").exists():
        return str(installed)
    return str(Path(__file__).resolve().parents[1] / "kernels")


INCLUDE = _include_dir()
HEADER = "#include <cudajit/thread.h>\n#include <cudajit/cpu_exec.h>\n"


@pytest.fixture(autouse=True, scope="module")
def _private_cache(tmp_path_factory):
    old = os.environ.get("CUDAJIT_CACHE_DIR")
    os.environ["CUDAJIT_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if old is None:
        del os.environ["CUDAJIT_CACHE_DIR"]
    else:
        os.environ["CUDAJIT_CACHE_DIR"] = old


def kernel(body, entry, uses_barriers, options=()):
    path = _core.compile_host(HEADER + body, list(options), INCLUDE)
    return _core.CpuKernel(path, entry, uses_barriers)


def ptr(a):
    return struct.pack("<Q", a.ctypes.data)


def i64(v):
    return struct.pack("<q", v)


def i32(v):
    return struct.pack("<i", v)


VECADD = """
CJ_GLOBAL void cj_k_add_0(const float* a, const float* b, float* c, int64_t n) {
    int64_t i = (int64_t)cj::ctaid_x() * cj::ntid_x() + cj::tid_x();
    if (i < n) c[i] = a[i] + b[i];
}
CJ_ENTRY(cj_k_add_0, const float*, const float*, float*, int64_t)
"""


def test_compiler_identity():
    ident = _core.host_compiler_identity()
    assert ident and ("g++" in ident or "clang" in ident or "c++" in ident.lower())


@pytest.mark.parametrize("n", [1, 1000, 1 << 20])
def test_vector_add(rng, n):
    k = kernel(VECADD, "cj_k_add_0", False)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    c = np.zeros_like(a)
    k.launch(((n + 255) // 256, 1, 1), (256, 1, 1), 0, [ptr(a), ptr(b), ptr(c), i64(n)])
    np.testing.assert_array_equal(c, a + b)


def test_compile_is_cached():
    # A compile returns the library it built (its loader removes it), a later call the cache entry (issue 37: an
    # entry another process's cudajit.cache.clear() removed before this one loaded it failed the launch).
    _core.CpuKernel(_core.compile_host(HEADER + VECADD, [], INCLUDE), "cj_k_add_0", False)
    first = _core.compile_host(HEADER + VECADD, [], INCLUDE)
    t = time.perf_counter()
    again = _core.compile_host(HEADER + VECADD, [], INCLUDE)
    assert again == first and time.perf_counter() - t < 0.05
    assert _core.compile_host(HEADER + VECADD, ["-O1"], INCLUDE) != first  # options are in the key


def test_compile_error_has_log():
    with pytest.raises(CompileError, match="undeclared|not declared"):
        kernel("CJ_GLOBAL void cj_k_bad_0() { undeclared_name = 1; }\nCJ_ENTRY0(cj_k_bad_0)\n", "cj_k_bad_0", False)


INDICES = """
CJ_GLOBAL void cj_k_idx_0(int32_t* out) {
    int32_t block = cj::ctaid_x() + cj::nctaid_x() * (cj::ctaid_y() + cj::nctaid_y() * cj::ctaid_z());
    int32_t t = cj::tid_x() + cj::ntid_x() * (cj::tid_y() + cj::ntid_y() * cj::tid_z());
    int32_t* o = out + 12 * (block * cj::ntid_x() * cj::ntid_y() * cj::ntid_z() + t);
    o[0] = cj::tid_x(); o[1] = cj::tid_y(); o[2] = cj::tid_z();
    o[3] = cj::ctaid_x(); o[4] = cj::ctaid_y(); o[5] = cj::ctaid_z();
    o[6] = cj::ntid_x(); o[7] = cj::ntid_y(); o[8] = cj::nctaid_z();
    o[9] = cj::laneid(); o[10] = cj::warpsize();
    if (USE_BARRIER) cj::syncthreads();
    o[11] = 7;
}
CJ_ENTRY(cj_k_idx_0, int32_t*)
"""


@pytest.mark.parametrize("fibers", [False, True])
def test_indices(fibers):
    grid, block = (3, 2, 2), (5, 4, 3)
    k = kernel(INDICES, "cj_k_idx_0", fibers, [f"-DUSE_BARRIER={int(fibers)}"])
    nb, nt = np.prod(grid), np.prod(block)
    out = np.zeros((nb * nt, 12), np.int32)
    k.launch(grid, block, 0, [ptr(out)])
    bz, by, bx, tz, ty, tx = np.meshgrid(*(np.arange(d) for d in grid[::-1] + block[::-1]), indexing="ij")
    want = np.stack([tx, ty, tz, bx, by, bz] + [np.full_like(tx, v) for v in (5, 4, 2)]
                    + [(tx + 5 * (ty + 4 * tz)) % 32, np.full_like(tx, 32), np.full_like(tx, 7)], -1)
    np.testing.assert_array_equal(out, want.reshape(-1, 12))


REDUCE = """
CJ_GLOBAL void cj_k_sum_0(const float* x, float* out) {
    CJ_SHARED float s[256];
    int32_t t = cj::tid_x();
    s[t] = x[cj::ctaid_x() * 256 + t];
    cj::syncthreads();
    for (int32_t stride = 128; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        cj::syncthreads();
    }
    if (t == 0) out[cj::ctaid_x()] = s[0];
}
CJ_ENTRY(cj_k_sum_0, const float*, float*)
"""


def test_block_reduction(rng):
    k = kernel(REDUCE, "cj_k_sum_0", True)
    blocks = 64
    x = rng.random(blocks * 256, dtype=np.float32)
    out = np.zeros(blocks, np.float32)
    k.launch((blocks, 1, 1), (256, 1, 1), 0, [ptr(x), ptr(out)])
    np.testing.assert_allclose(out, x.reshape(blocks, 256).sum(1, dtype=np.float64), rtol=1e-5)


MATMUL = """
CJ_GLOBAL void cj_k_mm_0(const float* A, const float* B, float* C, int64_t n) {
    CJ_SHARED float sA[16][16];
    CJ_SHARED float sB[16][16];
    int32_t tx = cj::tid_x(), ty = cj::tid_y();
    int64_t row = (int64_t)cj::ctaid_y() * 16 + ty, col = (int64_t)cj::ctaid_x() * 16 + tx;
    float acc = 0;
    for (int64_t t = 0; t < n / 16; ++t) {
        sA[ty][tx] = A[row * n + t * 16 + tx];
        sB[ty][tx] = B[(t * 16 + ty) * n + col];
        cj::syncthreads();
        for (int32_t k = 0; k < 16; ++k) acc += sA[ty][k] * sB[k][tx];
        cj::syncthreads();
    }
    C[row * n + col] = acc;
}
CJ_ENTRY(cj_k_mm_0, const float*, const float*, float*, int64_t)
"""


def _matmul(k, a, b):
    n = a.shape[0]
    c = np.zeros_like(a)
    k.launch((n // 16, n // 16, 1), (16, 16, 1), 0, [ptr(a), ptr(b), ptr(c), i64(n)])
    return c


def test_tiled_matmul(rng):
    k = kernel(MATMUL, "cj_k_mm_0", True)
    for n in (16, 128):
        a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
        np.testing.assert_allclose(_matmul(k, a, b), a @ b, rtol=1e-5)


def test_tiled_matmul_time(rng):
    """Numba's CUDA simulator needs 45 s for this grid (2-core VM); the CPU path must be >= 100x faster."""
    k = kernel(MATMUL, "cj_k_mm_0", True)
    a, b = rng.random((128, 128), dtype=np.float32), rng.random((128, 128), dtype=np.float32)
    _matmul(k, a, b)
    best = min(_timed(lambda: _matmul(k, a, b)) for _ in range(5))
    print(f"\ntiled matmul 128x128 on {_core.cpu_num_threads()} threads: {best * 1e3:.2f} ms")
    assert best < 0.2


def _timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


SYNC_REDUCE = """
CJ_GLOBAL void cj_k_votes_0(const int32_t* pred, int32_t* out) {
    int32_t t = cj::ctaid_x() * cj::ntid_x() + cj::tid_x();
    int32_t p = pred[t];
    out[3 * t + 0] = cj::syncthreads_count(p);
    out[3 * t + 1] = cj::syncthreads_and(p);
    out[3 * t + 2] = cj::syncthreads_or(p);
}
CJ_ENTRY(cj_k_votes_0, const int32_t*, int32_t*)
"""


def test_syncthreads_count_and_or(rng):
    k = kernel(SYNC_REDUCE, "cj_k_votes_0", True)
    pred = (rng.random((4, 96)) < 0.3).astype(np.int32) * rng.integers(1, 9, (4, 96), dtype=np.int32)
    pred[1] = 0
    pred[2] = 5
    out = np.zeros((4, 96, 3), np.int32)
    k.launch((4, 1, 1), (96, 1, 1), 0, [ptr(pred), ptr(out)])
    nz = pred != 0
    np.testing.assert_array_equal(out[:, :, 0], np.repeat(nz.sum(1, keepdims=True), 96, 1))
    np.testing.assert_array_equal(out[:, :, 1], np.repeat(nz.all(1, keepdims=True), 96, 1))
    np.testing.assert_array_equal(out[:, :, 2], np.repeat(nz.any(1, keepdims=True), 96, 1))


EARLY_RETURN = """
CJ_GLOBAL void cj_k_early_0(float* x, int32_t keep) {
    CJ_SHARED float s[128];
    int32_t t = cj::tid_x();
    if (t >= keep) return;           // exited threads no longer count for the barriers below
    s[t] = x[t];
    cj::syncthreads();
    float v = s[(t + 1) % keep];
    cj::syncthreads();
    x[t] = v;
}
CJ_ENTRY(cj_k_early_0, float*, int32_t)
"""


def test_exited_threads_leave_barriers(rng):
    k = kernel(EARLY_RETURN, "cj_k_early_0", True)
    x = rng.random(128, dtype=np.float32)
    want = x.copy()
    want[:100] = np.roll(x[:100], -1)
    k.launch((1, 1, 1), (128, 1, 1), 0, [ptr(x), i32(100)])
    np.testing.assert_array_equal(x, want)


WARP_ROTATE = """
CJ_GLOBAL void cj_k_rot_0(int32_t* x) {
    CJ_SHARED int32_t s[64];
    int32_t t = cj::tid_x();
    for (int32_t step = 0; step < 3; ++step) {   // three rotations by one lane inside each warp
        s[t] = x[t];
        cj::syncwarp(0xffffffffu);
        int32_t v = s[(t & ~31) | ((cj::laneid() + 1) & 31)];
        cj::syncwarp(0xffffffffu);
        x[t] = v;
    }
}
CJ_ENTRY(cj_k_rot_0, int32_t*)
"""


def test_syncwarp():
    k = kernel(WARP_ROTATE, "cj_k_rot_0", True)
    x = np.arange(64, dtype=np.int32)
    k.launch((1, 1, 1), (64, 1, 1), 0, [ptr(x)])
    np.testing.assert_array_equal(x, np.roll(np.arange(64).reshape(2, 32), -3, 1).ravel())


DEADLOCK = """
CJ_GLOBAL void cj_k_stuck_0(int32_t* x) {
    int32_t t = cj::tid_x();
    if (t == 0) cj::syncthreads();        // lane 0 waits for the block ...
    else if (t < 32) cj::syncwarp();      // ... while lanes 1..31 wait for lane 0 at syncwarp
    else cj::syncthreads();
    x[t] = 1;
}
CJ_ENTRY(cj_k_stuck_0, int32_t*)
"""


def test_deadlock_raises(rng):
    k = kernel(DEADLOCK, "cj_k_stuck_0", True)
    x = np.zeros(64, np.int32)
    with pytest.raises(KernelRuntimeError, match=r"kernel stuck: deadlock in block \(0,0,0\): of its 64 threads, 33 "
                                                 r"wait at syncthreads\(\), 31 at warp collectives and 0 have "
                                                 r"exited; none can go on:\n  1 thread waits at syncthreads\(\)"):
        k.launch((1, 1, 1), (64, 1, 1), 0, [ptr(x)])
    # The pool survives: the next launch runs normally.
    test_block_reduction(rng)


DYNAMIC = """
CJ_GLOBAL void cj_k_rev_0(float* x) {
    float* s = cj::dynamic_shared<float>();
    int32_t t = cj::tid_x(), n = cj::ntid_x();
    float* base = x + (int64_t)cj::ctaid_x() * n;
    s[t] = base[t];
    cj::syncthreads();
    base[t] = s[n - 1 - t];
}
CJ_ENTRY(cj_k_rev_0, float*)
"""


@pytest.mark.parametrize("threads", [32, 1024])
def test_dynamic_shared(rng, threads):
    k = kernel(DYNAMIC, "cj_k_rev_0", True)
    x = rng.random((16, threads), dtype=np.float32)
    want = x[:, ::-1].copy()
    k.launch((16, 1, 1), (threads, 1, 1), threads * 4, [ptr(x)])
    np.testing.assert_array_equal(x, want)


ATOMICS = """
CJ_GLOBAL void cj_k_hist_0(const int32_t* x, int64_t n, int32_t* hist, int64_t* total) {
    for (int64_t i = (int64_t)cj::ctaid_x() * cj::ntid_x() + cj::tid_x(); i < n;
         i += (int64_t)cj::nctaid_x() * cj::ntid_x()) {
        __atomic_fetch_add(&hist[x[i]], 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(total, (int64_t)x[i], __ATOMIC_RELAXED);
    }
}
CJ_ENTRY(cj_k_hist_0, const int32_t*, int64_t, int32_t*, int64_t*)
"""


def test_atomics_across_blocks(rng):
    k = kernel(ATOMICS, "cj_k_hist_0", False)
    x = rng.integers(0, 16, 200_000, dtype=np.int32)
    hist, total = np.zeros(16, np.int32), np.zeros(1, np.int64)
    k.launch((64, 1, 1), (128, 1, 1), 0, [ptr(x), i64(len(x)), ptr(hist), ptr(total)])
    np.testing.assert_array_equal(hist, np.bincount(x, minlength=16))
    assert total[0] == x.sum()


TRAP = """
CJ_GLOBAL void cj_k_trap_0(int32_t* x, int32_t bad) {
    int32_t t = cj::ctaid_x() * cj::ntid_x() + cj::tid_x();
    if (USE_BARRIER) cj::syncthreads();
    if (t == bad) cj::trap();
    x[t] = 1;
}
CJ_ENTRY(cj_k_trap_0, int32_t*, int32_t)
"""


@pytest.mark.parametrize("fibers", [False, True])
def test_trap_raises(fibers):
    k = kernel(TRAP, "cj_k_trap_0", fibers, [f"-DUSE_BARRIER={int(fibers)}"])
    x = np.zeros(4 * 64, np.int32)
    with pytest.raises(KernelRuntimeError, match=r"kernel trap: thread \(5,0,0\) of block \(2,0,0\): trap"):
        k.launch((4, 1, 1), (64, 1, 1), 0, [ptr(x), i32(2 * 64 + 5)])
    k.launch((4, 1, 1), (64, 1, 1), 0, [ptr(x), i32(-1)])
    assert x.all()


def test_barrier_without_fibers_raises():
    k = kernel(REDUCE, "cj_k_sum_0", False)  # the compiler said "no barriers", wrongly
    x, out = np.ones(256, np.float32), np.zeros(1, np.float32)
    with pytest.raises(KernelRuntimeError, match="uses_barriers=False"):
        k.launch((1, 1, 1), (256, 1, 1), 0, [ptr(x), ptr(out)])


def test_bad_launch_config():
    k = kernel(VECADD, "cj_k_add_0", False)
    z = np.zeros(1, np.float32)
    with pytest.raises(LaunchError, match="1024 threads"):
        k.launch((1, 1, 1), (2048, 1, 1), 0, [ptr(z), ptr(z), ptr(z), i64(0)])
    with pytest.raises(LaunchError, match="grid"):
        k.launch((0, 1, 1), (1, 1, 1), 0, [ptr(z), ptr(z), ptr(z), i64(0)])


def test_missing_entry():
    path = _core.compile_host(HEADER + VECADD, [], INCLUDE)
    with pytest.raises(CompileError, match="cj_k_nope_0_cpu"):
        _core.CpuKernel(path, "cj_k_nope_0", False)


def local_frame_kernel(entry, ctype, count):
    """A kernel with `count` elements of `ctype` on each thread's stack, used across a barrier (fibers)."""
    return f"""
CJ_GLOBAL void {entry}({ctype}* x) {{
    volatile {ctype} local[{count}];
    int32_t t = cj::tid_x();
    for (int32_t i = 0; i < {count}; ++i) local[i] = ({ctype})(t + i);
    cj::syncthreads();
    {ctype} s = 0;
    for (int32_t i = 0; i < {count}; ++i) s += local[i];
    x[t] = s;
}}
CJ_ENTRY({entry}, {ctype}*)
"""


def test_large_locals_on_fiber_stacks():
    k = kernel(local_frame_kernel("cj_k_deep_0", "float", 4096), "cj_k_deep_0", True)   # 16 KiB per fiber
    x = np.zeros(256, np.float32)
    k.launch((3, 1, 1), (256, 1, 1), 0, [ptr(x)])
    t = np.arange(256, dtype=np.float64)[:, None]
    np.testing.assert_allclose(x, (t + np.arange(4096)).sum(1), rtol=1e-6)


def test_fiber_stacks_grow_by_the_kernels_local_bytes():
    # 400 KiB per thread: more than a default fiber stack (64 KiB); the compiler reports it as local_bytes
    path = _core.compile_host(HEADER + local_frame_kernel("cj_k_bigframe_0", "double", 51200), [], INCLUDE)
    plain = _core.CpuKernel(path, "cj_k_bigframe_0", True)
    k = _core.CpuKernel(path, "cj_k_bigframe_0", True, local_bytes=51200 * 8)
    assert k.fiber_stack_bytes == plain.fiber_stack_bytes + 51200 * 8
    x = np.zeros(64)
    k.launch((2, 1, 1), (64, 1, 1), 0, [ptr(x)])
    np.testing.assert_array_equal(x, (np.arange(64)[:, None] + np.arange(51200)).sum(1))


WARP_OPS = """
CJ_GLOBAL void cj_k_warp_0(const double* x, const int32_t* p, double* out, int64_t* iout) {
    int32_t t = cj::tid_x(), lane = cj::laneid();
    double v = x[t];
    double sum = v;                                    // butterfly: every lane gets the warp's sum
    for (int32_t m = 16; m > 0; m /= 2) sum += cj::shfl_xor_sync(0xffffffffu, sum, m);
    double down = v;                                   // tree: lane 0 gets the warp's sum
    for (uint32_t d = 16; d > 0; d /= 2) down += cj::shfl_down_sync(0xffffffffu, down, d);
    double scan = v;                                   // inclusive prefix sum
    for (uint32_t d = 1; d < 32; d *= 2) {
        double up = cj::shfl_up_sync(0xffffffffu, scan, d);
        if (uint32_t(lane) >= d) scan += up;
    }
    out[4 * t + 0] = sum;
    out[4 * t + 1] = down;
    out[4 * t + 2] = scan;
    out[4 * t + 3] = cj::shfl_sync(0xffffffffu, v, 31 - lane);
    int32_t q = p[t];
    int64_t key = (int64_t)(q % 3) << 40;
    iout[8 * t + 0] = cj::ballot_sync(0xffffffffu, q);
    iout[8 * t + 1] = cj::all_sync(0xffffffffu, q);
    iout[8 * t + 2] = cj::any_sync(0xffffffffu, q);
    iout[8 * t + 3] = cj::eq_sync(0xffffffffu, q);
    iout[8 * t + 4] = cj::match_any_sync(0xffffffffu, key);
    iout[8 * t + 5] = cj::lanemask_lt();
    iout[8 * t + 6] = cj::activemask(1u);
    iout[8 * t + 7] = cj::dynamic_shared_bytes();
}
CJ_ENTRY(cj_k_warp_0, const double*, const int32_t*, double*, int64_t*)
"""


def test_warp_collectives(rng):
    k = kernel(WARP_OPS, "cj_k_warp_0", True)
    n = 96
    x = rng.random(n)
    p = (rng.random(n) < 0.5).astype(np.int32)
    p[32:64] = 1                         # warp 1: all set
    out, iout = np.zeros((n, 4)), np.zeros((n, 8), np.int64)
    k.launch((1, 1, 1), (n, 1, 1), 48, [ptr(x), ptr(p), ptr(out), ptr(iout)])
    w = x.reshape(3, 32)
    np.testing.assert_allclose(out[:, 0], np.repeat(w.sum(1), 32))
    np.testing.assert_allclose(out[::32, 1], w.sum(1))
    np.testing.assert_allclose(out[:, 2], np.cumsum(w, 1).ravel())
    np.testing.assert_array_equal(out[:, 3], w[:, ::-1].ravel())
    pw = p.reshape(3, 32).astype(np.int64)
    ballot = (pw << np.arange(32)).sum(1)
    np.testing.assert_array_equal(iout[:, 0], np.repeat(ballot, 32))
    np.testing.assert_array_equal(iout[:, 1], np.repeat(pw.all(1), 32))
    np.testing.assert_array_equal(iout[:, 2], np.repeat(pw.any(1), 32))
    np.testing.assert_array_equal(iout[:, 3], np.repeat(pw.all(1) | ~pw.any(1), 32))
    keys = (p % 3).reshape(3, 32)
    match = [sum(1 << j for j in range(32) if keys[b, j] == keys[b, i]) for b in range(3) for i in range(32)]
    np.testing.assert_array_equal(iout[:, 4], match)
    np.testing.assert_array_equal(iout[:, 5], np.tile((1 << np.arange(32)) - 1, 3))
    np.testing.assert_array_equal(iout[:, 6], 0xFFFFFFFF)
    np.testing.assert_array_equal(iout[:, 7], 48)


def test_concurrent_launches(rng):
    """Launches from several Python threads (the binding releases the GIL) run one after another."""
    import threading
    k = kernel(REDUCE, "cj_k_sum_0", True)
    xs = [rng.random(32 * 256, dtype=np.float32) for _ in range(4)]
    outs = [np.zeros(32, np.float32) for _ in range(4)]

    def work(i):
        for _ in range(5):
            k.launch((32, 1, 1), (256, 1, 1), 0, [ptr(xs[i]), ptr(outs[i])])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for x, out in zip(xs, outs):
        np.testing.assert_allclose(out, x.reshape(32, 256).sum(1, dtype=np.float64), rtol=1e-5)

"""Kernels that hung the CPU backend, or could: warp collectives whose mask leaves out the calling lane, threads
that wait for each other at barriers no one can complete, and threads spinning on a flag that a later thread of their
block sets in a kernel without barriers (a block run as a plain loop). Each case runs in a child process with a
timeout, so that a regression fails instead of hanging the suite. Where the GPU's behaviour is defined (spins with
atomics, exited threads at barriers) the cases run on every backend; the errors are the CPU backend's (on the GPU the
result is undefined or the kernel hangs)."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import cudajit

PYTHON_DIR = str(Path(cudajit.__file__).resolve().parents[1])   # the cudajit this test imports: in place or installed
CPU_ONLY = "the CPU backend's error: on the GPU the result is undefined (CUDA's programming guide) or the kernel hangs"

PRELUDE = """\
import json, sys
import numpy as np
from cudajit import cuda

def outcome(launch):
    try:
        launch()
    except Exception as e:
        return {"error": type(e).__name__, "message": str(e)}
    return {"error": None}
"""


def run_child(tmp_path, backend, body, timeout=180):
    """Runs PRELUDE + body in a fresh interpreter on `backend` (kernels need a source file: the script's lines are
    what the errors name); returns the script's path and the JSON its last line printed."""
    script = tmp_path / "case.py"
    script.write_text(PRELUDE + textwrap.dedent(body))
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, CUDAJIT_BACKEND=backend, CUDAJIT_NUM_THREADS="2")
    try:
        proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the kernel did not finish within {timeout} s (a hang):\n{script.read_text()}")
    assert proc.returncode == 0, proc.stderr[-4000:]
    return script, json.loads(proc.stdout.strip().splitlines()[-1])


def line_of(script, marker):
    """The 1-based line of `script` that holds `marker` (a comment next to the call an error must name)."""
    lines = script.read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if marker in text)


# ---- 1. a warp collective whose mask leaves out the calling lane --------------------------------------------------

# name -> the call, with `m` the mask and `v` an int32 value
COLLECTIVES = {
    "syncwarp": "cuda.syncwarp(m); r = v",
    "shfl_sync": "r = cuda.shfl_sync(m, v, 0)",
    "shfl_up_sync": "r = cuda.shfl_up_sync(m, v, 1)",
    "shfl_down_sync": "r = cuda.shfl_down_sync(m, v, 1)",
    "shfl_xor_sync": "r = cuda.shfl_xor_sync(m, v, 1)",
    "all_sync": "r = cuda.all_sync(m, v)",
    "any_sync": "r = cuda.any_sync(m, v)",
    "eq_sync": "r = cuda.eq_sync(m, v)",
    "ballot_sync": "r = cuda.ballot_sync(m, v)",
    "match_any_sync": "r = cuda.match_any_sync(m, v)",
    "match_all_sync": "r, p = cuda.match_all_sync(m, v)",
}


def test_mask_without_the_calling_lane_raises_for_every_collective(tmp_path, rng):
    """Every lane but lane 5 calls with a mask that names every lane but lane 5; lane 5 calls with it too. The launch
    raises, naming the collective, the mask, lane 5 (thread 37 of the second warp) and the call's file and line."""
    body = "results = {}\n"
    for name, call in COLLECTIVES.items():
        body += textwrap.dedent(f"""
            @cuda.jit
            def k_{name}(vals, masks, out):
                t = cuda.threadIdx.x
                m = masks[t]
                v = vals[t]
                {call}  # CALL {name}
                out[t] = r
            vals = np.array({rng.integers(0, 3, 64).tolist()}, np.int32)
            masks = np.full(64, 0xffffffff, np.uint32)
            masks[32:] = 0xffffffff ^ (1 << 5)
            out = np.zeros(64, np.int64)
            results["{name}"] = outcome(lambda: k_{name}[1, 64](vals, masks, out))
        """)
    body += "print(json.dumps(results))\n"
    script, results = run_child(tmp_path, "cpu", body)
    for name in COLLECTIVES:
        got = results[name]
        assert got["error"] == "KernelRuntimeError", (name, got)
        msg = got["message"]
        assert f"{name}(mask=0xffffffdf) called by lane 5" in msg, (name, msg)
        assert f"file {script}, line {line_of(script, f'# CALL {name}')}" in msg, (name, msg)
        assert "In function 'k_" + name + "'" in msg and "tid=[37, 0, 0]" in msg, (name, msg)
        assert "must have its own bit set in the mask" in msg, msg


def test_prefix_mask_ballot_of_a_stream_compaction_raises(tmp_path):
    """The pattern of a real stream-compaction program: ballot_sync(~(~0 << lane), p), whose mask never names the
    calling lane (lane 0's is 0). Its fix, ballot_sync(~0, p) & prefix_mask, gives each lane the count before it."""
    body = """
        @cuda.jit
        def compact_bad(pred, out):
            lane = cuda.threadIdx.x % 32
            prefix_mask = ~(~0 << lane)
            out[cuda.threadIdx.x] = cuda.popc(cuda.ballot_sync(prefix_mask, pred[cuda.threadIdx.x]))  # BAD
            cuda.syncthreads()

        @cuda.jit
        def compact_good(pred, out):
            lane = cuda.threadIdx.x % 32
            prefix_mask = ~(~0 << lane)
            out[cuda.threadIdx.x] = cuda.popc(cuda.ballot_sync(~0, pred[cuda.threadIdx.x]) & prefix_mask)
            cuda.syncthreads()

        pred = np.random.default_rng(3).integers(0, 2, 64).astype(np.int32)
        out = np.zeros(64, np.int64)
        bad = outcome(lambda: compact_bad[1, 64](pred, out))
        compact_good[1, 64](pred, out)
        want = [int(pred[t // 32 * 32: t].sum()) for t in range(64)]
        print(json.dumps({"bad": bad, "good": out.tolist() == want}))
    """
    script, got = run_child(tmp_path, "cpu", body)
    assert got["good"]
    assert got["bad"]["error"] == "KernelRuntimeError"
    msg = got["bad"]["message"]
    assert "ballot_sync(mask=0x00000000) called by lane 0" in msg, msg
    assert f"file {script}, line {line_of(script, '# BAD')}" in msg, msg


# ---- 2. threads that wait where no one can release them (fibers) --------------------------------------------------

def test_deadlocks_name_who_waits_where(tmp_path):
    """Lanes at a syncwarp or a shuffle whose mask names a lane that waits at syncthreads: no thread can go on. The
    error names the block, what each group of threads waits at (file and line), and which lane keeps the lanes at
    the collective waiting."""
    body = """
        @cuda.jit
        def warp_vs_block(out):
            t = cuda.threadIdx.x
            if t == 0:
                cuda.syncthreads()  # AT_SYNCTHREADS
            else:
                cuda.syncwarp()  # AT_SYNCWARP
            out[t] = t

        @cuda.jit
        def shuffle_vs_block(out):
            t = cuda.threadIdx.x
            if t == 35:
                cuda.syncthreads()  # LANE3_WAITS
            else:
                out[t] = cuda.shfl_sync(0xffffffff, t, 3)  # SHUFFLE
                cuda.syncthreads()

        out = np.zeros(64, np.int64)
        print(json.dumps({"warp": outcome(lambda: warp_vs_block[1, 32](out)),
                          "shfl": outcome(lambda: shuffle_vs_block[1, 64](out))}))
    """
    script, got = run_child(tmp_path, "cpu", body)
    where = {m: f"file {script}, line {line_of(script, '# ' + m)}" for m in
             ("AT_SYNCTHREADS", "AT_SYNCWARP", "LANE3_WAITS", "SHUFFLE")}
    warp = got["warp"]
    assert warp["error"] == "KernelRuntimeError", warp
    lines = warp["message"].splitlines()
    assert lines[0] == ("kernel warp_vs_block: deadlock in block (0,0,0): of its 32 threads, 1 wait at "
                        "syncthreads(), 31 at warp collectives and 0 have exited; none can go on:"), lines[0]
    assert lines[1].startswith("  1 thread waits at syncthreads() (In function 'warp_vs_block', " +
                               where["AT_SYNCTHREADS"] + "): (0,0,0)"), lines[1]
    assert lines[2].startswith("  31 threads wait at syncwarp() (In function 'warp_vs_block', " + where["AT_SYNCWARP"] +
                               "): (1,0,0), (2,0,0), (3,0,0), (4,0,0), ...; the first with mask 0xffffffff, for lane "
                               "0 (thread (0,0,0)), which waits at syncthreads()"), lines[2]
    shfl = got["shfl"]
    assert shfl["error"] == "KernelRuntimeError", shfl
    msg = shfl["message"]
    assert "deadlock in block (0,0,0): of its 64 threads, 33 wait at syncthreads(), 31 at warp collectives" in msg, msg
    assert "threads wait at shfl_sync() (In function 'shuffle_vs_block', " + where["SHUFFLE"] in msg, msg
    assert "for lane 3 (thread (35,0,0)), which waits at syncthreads() (In function 'shuffle_vs_block', " + \
        where["LANE3_WAITS"] in msg, msg


def test_barriers_that_cuda_releases_still_complete_on_the_cpu(tmp_path, rng):
    """What cudajit did before the deadlock report, kept: threads of a block that reach different numbers of
    syncthreads() before they exit (released once every thread that has not exited waits at one, as GPUs of sm_70 and
    later behave; CUDA leaves it undefined), and lanes at collectives with different masks."""
    body = """
        @cuda.jit
        def uneven(x, out):
            t = cuda.threadIdx.x
            for i in range(t % 3):
                cuda.syncthreads()
            out[t] = x[t] + t % 3

        @cuda.jit
        def two_masks(out):
            t = cuda.threadIdx.x
            if t < 16:
                v = cuda.shfl_sync(0x0000ffff, t * 2, 0)
            else:
                v = cuda.shfl_sync(0xffff0000, t * 3, 16)
            out[t] = v

        x = np.random.default_rng(5).integers(0, 100, 96)
        out = np.zeros(96, np.int64)
        uneven[1, 96](x, out)
        ok1 = out.tolist() == [int(x[t]) + t % 3 for t in range(96)]
        out2 = np.zeros(32, np.int64)
        two_masks[1, 32](out2)
        print(json.dumps({"uneven": ok1, "two_masks": out2.tolist()}))
    """
    _, got = run_child(tmp_path, "cpu", body)
    assert got["uneven"]
    assert got["two_masks"] == [0] * 16 + [48] * 16


def test_exited_threads_do_not_hold_back_barriers(tmp_path, backend):
    """Defined on the GPU: a thread that has exited is not waited for at syncthreads(), nor a lane named in a
    syncwarp or shuffle mask."""
    body = """
        @cuda.jit
        def k(x, out):
            t = cuda.threadIdx.x
            if t >= 40:
                return
            cuda.syncthreads()
            lane = t % 32
            cuda.syncwarp(0xffffffff)
            out[t] = cuda.shfl_sync(0xffffffff, x[t], (lane + 1) % 8)

        x = np.random.default_rng(7).integers(0, 1000, 64)
        out = np.full(64, -1, np.int64)
        k[1, 64](x, out)
        print(json.dumps(out.tolist()))
    """
    _, out = run_child(tmp_path, backend, body)
    x = np.random.default_rng(7).integers(0, 1000, 64)
    want = [int(x[t // 32 * 32 + (t % 32 + 1) % 8]) for t in range(40)] + [-1] * 24
    assert out == want


# ---- 3. a thread spinning on a flag set by a later thread of its block --------------------------------------------

def test_spin_on_a_later_thread_with_atomics(tmp_path, backend):
    """Thread 0 waits until thread 31 has set a flag (atomics and a fence, as CUDA's memory model asks), in a kernel
    without barriers: on the CPU the block runs as a loop, and thread 0 hands the rest of its block over instead of
    spinning for ever. Also a chain in which each thread waits for the next one (the worst order for a loop), over
    two blocks, and a random order over a 3-D block."""
    body = """
        @cuda.jit
        def wait_for_last(flag, x, out):
            t = cuda.threadIdx.x
            if t == 0:
                while cuda.atomic.add(flag, 0, 0) == 0:
                    pass
                out[0] = cuda.atomic.add(x, 31, 0) * 2
            if t == 31:
                x[31] = 21
                cuda.threadfence()
                cuda.atomic.exch(flag, 0, 1)

        @cuda.jit
        def reverse_chain(flags, out):
            t = cuda.threadIdx.x
            b = cuda.blockIdx.x
            last = cuda.blockDim.x - 1
            v = 1
            if t < last:
                while cuda.atomic.add(flags, (b, t + 1), 0) == 0:
                    pass
                v = cuda.atomic.add(out, (b, t + 1), 0) + 1
            cuda.atomic.exch(out, (b, t), v)
            cuda.threadfence()
            cuda.atomic.exch(flags, (b, t), 1)

        @cuda.jit
        def ordered(rank, flags, out):
            t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
            r = rank[t]
            if r > 0:
                while cuda.atomic.add(flags, r - 1, 0) == 0:
                    pass
            out[r] = t
            cuda.threadfence()
            cuda.atomic.exch(flags, r, 1)

        flag = np.zeros(1, np.int32); x = np.zeros(32, np.int64); out = np.zeros(1, np.int64)
        wait_for_last[1, 32](flag, x, out)
        flags = np.zeros((2, 256), np.int32); chain = np.zeros((2, 256), np.int32)
        reverse_chain[2, 256](flags, chain)
        perm = np.random.default_rng(11).permutation(8 * 4 * 2)
        rank = np.empty(64, np.int64); rank[perm] = np.arange(64)
        flags = np.zeros(64, np.int32); order = np.zeros(64, np.int64)
        ordered[1, (8, 4, 2)](rank, flags, order)
        print(json.dumps({"first": int(out[0]), "chain": chain.tolist(), "order": order.tolist(),
                          "perm": perm.tolist()}))
    """
    _, got = run_child(tmp_path, backend, body)
    assert got["first"] == 42
    assert got["chain"] == [list(range(256, 0, -1))] * 2
    assert got["order"] == got["perm"]


@pytest.mark.parametrize("threads", [32, 256])
def test_spin_on_a_later_thread_with_plain_loads(tmp_path, threads):
    """The same with plain loads and stores, in a device function, and while another thread fails an index check
    (the CPU only: on the GPU a plain load in a spin loop is a data race the compiler may hoist)."""
    body = f"""
        @cuda.jit(device=True)
        def wait(flag, i):
            while flag[i] == 0:
                pass

        @cuda.jit
        def k(flag, out):
            t = cuda.threadIdx.x
            if t == 0:
                wait(flag, 0)
                out[0] = out[{threads} - 1] + 1
            if t == 7:
                out[1000] = 1
            if t == {threads} - 1:
                out[t] = 5
                flag[0] = 1
            if t > 0 and t < {threads} - 1:
                out[t] = t

        flag = np.zeros(1, np.int32); out = np.zeros({threads}, np.int64)
        err = outcome(lambda: k[2, {threads}](flag, out))
        print(json.dumps({{"err": err, "out": out.tolist()}}))
    """
    _, got = run_child(tmp_path, "cpu", body)
    assert got["err"]["error"] == "IndexError" and "index 1000 is out of bounds" in got["err"]["message"]
    want = [6] + list(range(1, threads - 1)) + [5]
    want[7] = 0
    assert got["out"] == want


def test_kernels_without_while_loops_keep_the_plain_loop(backend):
    """A kernel without a while loop has no per-thread check in its CPU block loop (CJ_CPU_SPINS); one with a while
    loop, even over local values only, has (its blocks still run as a loop until a thread spins)."""
    from cudajit import cuda

    @cuda.jit
    def add(a, b, c):
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]

    @cuda.jit
    def collatz(out):
        i = cuda.grid(1)
        n = i + 1
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        out[i] = steps

    a = np.arange(300, dtype=np.float32)
    c = np.zeros_like(a)
    add[3, 128](a, a, c)
    steps = np.zeros(256, np.int64)
    collatz[2, 128](steps)

    def collatz_py(n):
        s = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            s += 1
        return s
    np.testing.assert_array_equal(c, a + a)
    assert steps.tolist() == [collatz_py(i + 1) for i in range(256)]
    assert "CJ_CPU_SPINS" not in next(iter(add.inspect_source().values()))
    assert "#define CJ_CPU_SPINS 1" in next(iter(collatz.inspect_source().values()))

"""``cuda.reduce`` folds in numba-cuda's order: its results equal, bit for bit, a NumPy model of numba-cuda's
partition and trees (numba-cuda's kernels/reduction.py), also for operators that are neither associative nor
commutative. tests/test_vs_numba_cuda.py checks the same against numba-cuda itself on a GPU."""
import numpy as np
import pytest

from cudajit import cuda


def add(a, b):
    return a + b


def abs_add(a, b):            # seed 003's absolute-value reduction
    if b < 0:
        return a - b
    return a + b


def lopsided(a, b):           # neither associative nor commutative (and no a*b+c for the GPU to fuse)
    return a - b


VECTOR = {add: np.add, abs_add: lambda a, b: np.where(b < 0, a - b, a + b),
          lopsided: np.subtract}


def numba_cuda_order(op, x, init):
    """numba-cuda's fold of ``x`` with ``init``, in NumPy (each stored value rounded to x.dtype, as its arrays are)."""
    vop, t = VECTOR[op], x.dtype.type
    block, warp = 128, 32

    def tree(vals):                   # one warp's halving tree; returns lane 0
        v = vals.copy()
        width = warp // 2
        while width:
            v[:width] = vop(v[:width], v[width:2 * width]).astype(x.dtype)
            width //= 2
        return v[0]

    def small(vals, init_or_none):    # a block of len(vals) < 128 threads
        size, heads = len(vals), []
        for w in range((size + warp - 1) // warp):
            part = vals[w * warp:(w + 1) * warp]
            if (w + 1) * warp < size:
                heads.append(tree(part))
            else:
                acc = part[0]
                for v in part[1:]:
                    acc = t(vop(np.array([acc]), np.array([v]))[0])
                heads.append(acc)
        acc = heads[0]
        for h in heads[1:]:
            acc = t(vop(np.array([acc]), np.array([h]))[0])
        if init_or_none is not None:
            acc = t(vop(np.array([acc]), np.array([init_or_none]))[0])
        return acc

    n = len(x)
    n_full = n // block * block
    blocks = min(n_full // block, 2 * warp)
    partials = []
    if blocks:
        s = block * blocks
        acc = x[:s].copy()
        for k in range(s, n_full, s):
            m = min(s, n_full - k)
            acc[:m] = vop(acc[:m], x[k:k + m])
        acc = acc.astype(x.dtype)
        for b in range(blocks):
            heads = [tree(acc[b * block + w * warp:b * block + (w + 1) * warp]) for w in range(4)]
            s0 = t(vop(np.array([heads[0]]), np.array([heads[2]]))[0])
            s1 = t(vop(np.array([heads[1]]), np.array([heads[3]]))[0])
            partials.append(t(vop(np.array([s0]), np.array([s1]))[0]))
        partials[0] = t(vop(np.array([partials[0]]), np.array([init]))[0])
    if n > n_full:
        partials.append(small(x[n_full:], None if blocks else init))
    if len(partials) > 1:
        return small(np.array(partials, dtype=x.dtype), None)
    return partials[0]


SIZES = [1, 5, 31, 32, 33, 64, 127, 128, 129, 255, 1000, 4096, 8192, 8192 * 3 + 77, 100_003]


@pytest.mark.parametrize("op", [add, abs_add, lopsided], ids=lambda f: f.__name__)
def test_reduce_equals_numba_cuda_order(backend, rng, op):
    red = cuda.reduce(op)
    for n in SIZES:
        x = rng.normal(0, 10, n).astype(np.float32)
        init = np.float32(rng.normal())
        got = red(x, init=init)
        want = numba_cuda_order(op, x, init)
        assert got.dtype == np.float32
        assert got.tobytes() == np.float32(want).tobytes(), (op.__name__, n, got, want)


def test_reduce_int_and_device_result(backend, rng):
    red = cuda.reduce(add)
    x = rng.integers(-1000, 1000, 70_001).astype(np.int32)
    d = cuda.to_device(x)
    res = cuda.to_device(np.full(3, -1, np.int32))          # (unwritten memory copied back: an initcheck report)
    assert red(d, res=res, init=7) is None
    assert res.copy_to_host().tolist() == [x.sum() + 7, -1, -1]   # the result in res[0], the rest untouched
    assert red(d, size=1000) == x[:1000].sum()
    assert red(d, size=10 ** 9) == x.sum()
    with pytest.raises(ValueError, match="size"):
        red(d, size=-1)
    assert red(x[:0], init=5) == 5


def test_reduce_refuses_2d(backend):
    red = cuda.reduce(add)
    with pytest.raises(TypeError, match="1-d"):
        red(np.ones((4, 4), np.float32))


# Rows per block beyond several ring chunks (a chunk is 128 rows of float32, 32 of complex128): pass 1's producer
# warps on sm_90+ (kernels/cudajit/reduce_ring.h), the stages reused many times, a partial last chunk, a tail.
RING_CASES = [(np.float32, 8192 * (1 + 128 * 5) + 4096 + 77, lopsided),
              (np.float64, 8192 * (1 + 64 * 3) + 128 * 5 + 3, abs_add),
              (np.int16, 8192 * 300 + 129, add),
              (np.complex128, 8192 * (1 + 32 * 4) + 31, lopsided)]


@pytest.mark.parametrize("dtype,n,op", RING_CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_reduce_long_rows_equal_numba_cuda_order(backend, rng, dtype, n, op):
    from cudajit.cuda import reduction
    if np.dtype(dtype).kind == "c":
        x = (rng.normal(0, 10, n) + 1j * rng.normal(0, 10, n)).astype(dtype)
    elif np.dtype(dtype).kind == "i":
        x = rng.integers(-30000, 30000, n).astype(dtype)
    else:
        x = rng.normal(0, 10, n).astype(dtype)
    init = x[:1][0]
    want = np.array(numba_cuda_order(op, x, init), dtype=dtype)
    d = cuda.to_device(x)
    red = cuda.reduce(op)
    got = np.array(red(d, init=init), dtype=dtype)
    assert got.tobytes() == want.tobytes(), (dtype, n, got, want)
    if backend == "gpu":
        threads, ring = reduction._pass1_shape(d)
        if cuda.get_current_device().compute_capability >= (9, 0):
            assert threads > 128 and ring > 0, "pass 1 must use its producer warps on sm_90+"
        # a view whose data is not 16-byte aligned takes numba-cuda's plain loop: the same bits
        if x.itemsize < 16:
            view = d[1:]
            assert reduction._pass1_shape(view) == (128, 0)
            want_view = np.array(numba_cuda_order(op, x[1:], init), dtype=dtype)
            assert np.array(red(view, init=init), dtype=dtype).tobytes() == want_view.tobytes()


# One launch a call: the last block to finish folds the tail and the partials, counting finished blocks in a ticket
# counter that a thread's buffers for one stream keep between calls (cudajit/cuda/reduction.py, _Scratch).
def test_reduce_calls_on_streams_and_threads_stay_apart(backend, rng):
    import threading
    red = cuda.reduce(lopsided)
    xs = [rng.normal(0, 10, n).astype(np.float32) for n in (100_003, 8192 * 3 + 77, 129, 5)]
    wants = [np.float32(numba_cuda_order(lopsided, x, np.float32(0))) for x in xs]
    streams = [cuda.stream(), cuda.stream(), 0]
    devs = [cuda.to_device(x) for x in xs]
    for rep in range(3):           # calls alternate between streams; every result is its own input's
        for k, (d, want) in enumerate(zip(devs, wants)):
            got = red(d, stream=streams[(k + rep) % 3])
            assert got.tobytes() == want.tobytes(), (rep, k)
    res = [cuda.device_array(1, np.float32) for _ in streams]
    for d, r, s in zip(devs, res, streams):
        red(d, res=r, stream=s)    # left on the device, no synchronisation in between
    cuda.synchronize()
    assert [r.copy_to_host()[0].tobytes() for r in res] == [w.tobytes() for w in wants[:3]]

    errors = []

    def worker(k):
        try:
            for _ in range(5):
                got = red(devs[k])
                assert got.tobytes() == wants[k].tobytes(), k
        except BaseException as e:  # noqa: BLE001 (reported below)
            errors.append(e)
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(len(xs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_reduce_after_an_interrupted_call(backend, rng):
    """Ctrl-C during a call (CPU backend: the launch unwinds part way) leaves some blocks' tickets drawn; the next
    call on the same thread and stream must not inherit them."""
    import signal
    if backend != "cpu":
        pytest.skip("the GPU finishes a kernel whatever the host does")
    # A suite started in the background (`cmd &`) inherits SIGINT ignored, and interrupt_main() then does nothing:
    # the test is about cudajit, so it takes Python's own handler for its duration.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _interrupted_call(rng)
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupted_call(rng):
    import _thread
    import threading
    import time

    def slow(a, b):
        for _ in range(30000):            # about 40 s for the whole input on 2 cores: the interrupt comes first
            b = b * np.float32(1.0000001)
        return a + b

    x = rng.normal(0, 10, 1 << 22).astype(np.float32)
    red_slow, red_add = cuda.reduce(slow), cuda.reduce(add)
    red_slow(x[:1000])                     # compiled before the clock starts
    timer = threading.Timer(0.2, _thread.interrupt_main)
    t0 = time.perf_counter()
    finished = False
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        red_slow(x)
        finished = True
        time.sleep(10)                     # the interrupt is still due: take it here, not in the next test
    assert not finished, "the reduction ended before the interrupt: give slow() more work"
    assert time.perf_counter() - t0 < 5
    assert red_add(x).tobytes() == np.float32(numba_cuda_order(add, x, np.float32(0))).tobytes()


def test_reduce_result_array_must_match(backend, rng):
    red = cuda.reduce(add)
    d = cuda.to_device(rng.normal(size=1000).astype(np.float32))
    with pytest.raises(TypeError, match="res has dtype float64"):
        red(d, res=cuda.device_array(1, np.float64))
    with pytest.raises(TypeError, match="res must be a device array"):
        red(d, res=np.zeros(1, np.float32))


CLOSE_PROGRAM = r"""
import numpy as np
from cudajit import cuda
import test_reduce_order as t
red = cuda.reduce(t.lopsided)
x = np.random.default_rng(4).normal(0, 10, 100_003).astype(np.float32)
want = np.float32(t.numba_cuda_order(t.lopsided, x, np.float32(0))).tobytes()
first = red(x).tobytes()
cuda.close()
print(first == want, red(x).tobytes() == want, red(cuda.to_device(x)).tobytes() == want)
"""


def test_reduce_after_the_context_closes(backend):
    """cuda.close() ends the context that a thread's kept buffers (partials, counter, mapped result) live in: the
    next call makes new ones. In a child process: close() also ends the context every kernel loaded so far lives in."""
    import os
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.pathsep.join([here, os.path.dirname(os.path.dirname(cuda.__file__)), os.environ.get("PYTHONPATH", "")])
    r = subprocess.run([sys.executable, "-c", CLOSE_PROGRAM], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, CUDAJIT_BACKEND=backend, PYTHONPATH=path))
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["True", "True", "True"], r.stdout + r.stderr[-2000:]


def test_reduce_scratch_goes_with_its_stream(backend, rng):
    """cuda.reduce keeps buffers per stream for the next call: they go when the stream goes, a stream object that
    merely has the handle of another (as a new stream may be given a destroyed one's) never receives its buffers,
    and the legacy stream keeps one set whatever object names it."""
    import gc
    from cudajit.cuda import reduction
    red = cuda.reduce(lambda a, b: a + b)
    x = rng.standard_normal(5000)
    s = cuda.stream()
    assert red(x, stream=s) == pytest.approx(x.sum())
    streams = reduction._SCRATCH.streams
    (first,) = streams[s].values()
    assert red(x[::-1].copy(), stream=s) == pytest.approx(x.sum())
    assert list(streams[s].values()) == [first]            # the same stream reuses its buffers
    alias = cuda.external_stream(s.handle)                 # the same handle, another stream object
    assert red(x, stream=alias) == pytest.approx(x.sum())
    (other,) = streams[alias].values()
    assert other is not first and other.partials.device_ctypes_pointer.value != first.partials.device_ctypes_pointer.value
    held = len(streams)
    del alias, other
    gc.collect()
    assert len(streams) == held - 1                        # an object's buffers go with it
    assert list(streams[s].values()) == [first]            # and only its own
    del s, first
    gc.collect()
    assert len(streams) == held - 2
    red(x, stream=cuda.default_stream())
    legacy = dict(reduction._SCRATCH.legacy)
    assert red(x, stream=cuda.default_stream()) == pytest.approx(x.sum())
    assert reduction._SCRATCH.legacy == legacy

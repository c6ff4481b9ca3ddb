"""Devices, streams and events (python/cudajit/cuda/{devices,streams}.py) on both backends.

On the CPU backend every stream operation is complete when issued and events read the host
clock; GPU tests (marked ``gpu``) check the same API against the driver."""
import asyncio
import ctypes
import io
import threading
import time

import numpy as np
import pytest

from cudajit import _backend, _core, cuda
from cudajit.cuda import devices, streams
from cudajit.errors import CudaAPIError, CudaSupportError


@pytest.fixture
def cpu():
    with _backend.use("cpu"):
        yield


@pytest.fixture
def gpu():
    with _backend.use("gpu"):
        yield


# ---- stream_handle: the one place the package turns "a stream" into an int ----------------

class _Ptr:  # CuPy
    ptr = 0x1234


class _TorchLike:
    cuda_stream = 0x5678


class _NumbaLike:
    handle = ctypes.c_void_p(0x9ABC)


class _NumbaDefault:
    handle = ctypes.c_void_p(0)  # .value is None for the default stream


class _CudaCore:
    def __cuda_stream__(self):
        return (0, 0x4242)


def test_stream_handle_accepts_other_libraries_streams(cpu):
    assert streams.stream_handle(None) == 0
    assert streams.stream_handle(0) == 0
    assert streams.stream_handle(77) == 77
    assert streams.stream_handle(_Ptr()) == 0x1234
    assert streams.stream_handle(_TorchLike()) == 0x5678
    assert streams.stream_handle(_NumbaLike()) == 0x9ABC
    assert streams.stream_handle(_NumbaDefault()) == 0
    assert streams.stream_handle(_CudaCore()) == 0x4242
    s = streams.stream()
    assert streams.stream_handle(s) == s.handle == int(s)
    with pytest.raises(TypeError):
        streams.stream_handle("stream")
    with pytest.raises(TypeError):
        streams.stream_handle(True)


# ---- CPU backend ----------------------------------------------------------------------------

def test_cpu_streams_are_always_done(cpu):
    a, b = streams.stream(), streams.stream()
    assert a.handle != b.handle and a.handle > streams.CU_STREAM_PER_THREAD
    assert a.query() is True
    a.synchronize()
    with a.auto_synchronize() as s:
        assert s is a
    assert "CUDA stream" in repr(a)


def test_cpu_default_streams(cpu):
    assert streams.default_stream().handle == 0
    assert streams.legacy_default_stream().handle == streams.CU_STREAM_LEGACY == 1
    assert streams.per_thread_default_stream().handle == streams.CU_STREAM_PER_THREAD == 2
    assert "Default CUDA stream" in repr(streams.default_stream())
    assert "Per-thread" in repr(streams.per_thread_default_stream())


def test_cpu_external_stream(cpu):
    s = streams.external_stream(0xDEAD)
    assert s.handle == 0xDEAD and s.external
    assert "External" in repr(s)
    with pytest.raises(TypeError):
        streams.external_stream(1.5)


def test_cpu_callbacks_run_at_once(cpu):
    s = streams.stream()
    seen = []
    s.add_callback(lambda stream, status, arg: seen.append((stream, status, arg)), "x")
    assert seen == [(s, 0, "x")]
    assert asyncio.run(_await_done(s)) is s


async def _await_done(s):
    return await s.async_done()


def test_cpu_events_time_the_host(cpu):
    start, end = streams.event(), streams.event()
    s = streams.stream()
    start.record(s)
    time.sleep(0.05)
    end.record(s)
    end.synchronize()
    assert start.query() and end.query()
    ms = streams.event_elapsed_time(start, end)
    assert 40.0 <= ms < 5000.0
    assert start.elapsed_time(end) == ms
    end.wait(s)
    s.wait_event(end)


def test_cpu_event_errors_like_the_driver(cpu):
    recorded, unrecorded, untimed = streams.event(), streams.event(), streams.event(timing=False)
    recorded.record()
    untimed.record()
    with pytest.raises(CudaAPIError, match="not been recorded"):
        streams.event_elapsed_time(recorded, unrecorded)
    with pytest.raises(CudaAPIError, match="timing=False"):
        streams.event_elapsed_time(recorded, untimed)


def test_cpu_pseudo_device(cpu):
    assert len(devices.gpus) == 1
    dev = devices.gpus[0]
    assert dev.id == 0
    assert isinstance(dev.name, bytes) and dev.name == b"cudajit CPU"
    assert str(dev.name) == "cudajit CPU" and f"{dev.name}" == "cudajit CPU"
    assert dev.compute_capability == (9, 0)
    assert dev.WARP_SIZE == 32 and dev.MAX_THREADS_PER_BLOCK == 1024
    assert dev.get_attribute(_core.DEVICE_ATTRIBUTES["WARP_SIZE"]) == 32
    assert dev.COMPUTE_CAPABILITY_MAJOR == 9
    for name, code in _core.DEVICE_ATTRIBUTES.items():     # every name the GPU answers, the CPU answers too
        assert isinstance(getattr(dev, name), int) and dev.get_attribute(code) == getattr(dev, name), name
    assert dev.CLOCK_RATE > 0 and dev.L2_CACHE_SIZE > 0
    with pytest.raises(AttributeError):
        dev.NOT_AN_ATTRIBUTE
    assert devices.get_current_device() == dev == devices.gpus.current
    assert devices.list_devices() == [dev]
    assert devices.select_device(0) == dev
    with pytest.raises(CudaSupportError):
        devices.select_device(1)
    with devices.gpus[0]:
        assert devices.get_current_device().id == 0
    assert "cudajit CPU" in repr(dev)
    devices.synchronize()
    devices.close()
    dev.reset()


def test_cpu_context_memory_info(cpu):
    ctx = devices.current_context()
    assert ctx.device.id == 0 and ctx.id == 0
    info = ctx.get_memory_info()
    assert 0 < info.free <= info.total
    assert info == (info.free, info.total)
    ctx.synchronize()


def test_cpu_context_has_no_pending_deallocations(cpu):
    """``cuda.current_context().deallocations.clear()`` (numba-cuda's flush of deferred frees): memory goes back
    when its last reference goes, so there is nothing to flush and arrays still alive are untouched."""
    ctx = devices.current_context()
    data = np.random.default_rng(0).random(1000)
    kept, dropped = cuda.to_device(data), cuda.to_device(data)
    del dropped
    ctx.deallocations.clear()
    assert len(ctx.deallocations) == 0 and not ctx.deallocations.is_disabled
    with ctx.deallocations.disable():
        x = cuda.to_device(data[::-1].copy())
    np.testing.assert_array_equal(kept.copy_to_host(), data)
    np.testing.assert_array_equal(x.copy_to_host(), data[::-1])


def test_cpu_detect_says_cpu(cpu):
    out = io.StringIO()
    assert devices.detect(file=out) is True
    assert "CPU backend" in out.getvalue()


# ---- the driver part of the core, with no GPU ----------------------------------------------

def test_driver_status_never_raises():
    ok, why = _core.driver_status()
    assert isinstance(ok, bool) and isinstance(why, str)
    if not ok:
        assert why
        with pytest.raises(CudaSupportError):
            _core.device_count()
        with pytest.raises(CudaSupportError):
            _core.Stream()


def test_device_attribute_table():
    table = _core.DEVICE_ATTRIBUTES
    assert table["MAX_THREADS_PER_BLOCK"] == 1
    assert table["WARP_SIZE"] == 10
    assert table["COMPUTE_CAPABILITY_MAJOR"] == 75
    assert hasattr(_core.Device, "MULTIPROCESSOR_COUNT")


# ---- GPU ------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_gpu_devices(gpu):
    assert _core.driver_status() == (True, "")
    assert len(devices.gpus) == _core.device_count() >= 1
    dev = devices.get_current_device()
    assert isinstance(dev.name, bytes) and len(dev.name) > 0
    assert dev.uuid.startswith("GPU-") and len(dev.uuid) == 40
    major, minor = dev.compute_capability
    assert (major, minor) == (dev.COMPUTE_CAPABILITY_MAJOR, dev.COMPUTE_CAPABILITY_MINOR)
    assert dev.WARP_SIZE == 32 and dev.MAX_THREADS_PER_BLOCK >= 1024
    assert dev.MULTIPROCESSOR_COUNT > 0
    assert devices.select_device(0) == devices.gpus[0]
    free, total = devices.current_context().get_memory_info()
    assert 0 < free <= total and _core.Device(0).total_memory > 0
    assert _core.driver_version() >= 12000
    out = io.StringIO()
    assert devices.detect(file=out) is True
    assert "devices are supported" in out.getvalue()


@pytest.mark.gpu
def test_gpu_streams(gpu):
    s = streams.stream()
    assert s.handle not in (0, 1, 2)
    assert s.query() is True
    s.synchronize()
    for special in (streams.default_stream(), streams.legacy_default_stream(),
                    streams.per_thread_default_stream()):
        special.synchronize()
        assert special.query() in (True, False)
    ext = streams.external_stream(s.handle)
    ext.synchronize()
    del ext  # not owned: s still works
    s.synchronize()
    devices.synchronize()


@pytest.mark.gpu
def test_gpu_callback_runs_after_work(gpu):
    s = streams.stream()
    done = threading.Event()
    seen = []

    def callback(stream, status, arg):
        seen.append((stream, status, arg))
        done.set()

    s.add_callback(callback, 7)
    s.synchronize()
    assert done.wait(5)
    assert seen == [(s, 0, 7)]


@pytest.mark.gpu
def test_gpu_events(gpu):
    s = streams.stream()
    start, end = streams.event(), streams.event()
    start.record(s)
    end.record(s)
    end.synchronize()
    assert start.query() and end.query()
    assert streams.event_elapsed_time(start, end) >= 0.0
    other = streams.stream()
    end.wait(other)
    other.wait_event(end)
    other.synchronize()
    # refused before the driver is asked (a failing call is an error under compute-sanitizer), as the driver would
    with pytest.raises(CudaAPIError, match="timing=False"):
        streams.event_elapsed_time(start, streams.event(timing=False))
    with pytest.raises(CudaAPIError, match="not been recorded"):
        streams.event_elapsed_time(streams.event(), end)


def test_a_launcher_keeps_its_stream_alive(backend):
    """``l = kern[g, b, cuda.stream()]``: the stream lives as long as the launcher (numba-cuda's holds it too);
    before, it was destroyed at once and the launch, and its NumPy arguments' copies, used a dead handle."""
    import gc
    import weakref

    import numpy as np

    from cudajit import cuda

    @cuda.jit
    def twice(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= 2

    s = cuda.stream()
    ref = weakref.ref(s)
    launch = twice[4, 32, s]
    del s
    gc.collect()
    assert ref() is not None
    x = np.random.default_rng(3).standard_normal(100)
    want = x * 2
    launch(x)                          # a NumPy argument: copied in and back on the launcher's stream
    assert np.array_equal(x, want)
    del launch
    gc.collect()
    assert ref() is None


class _CUstreamLike:  # cuda-python's CUstream: int() gives the handle
    def __int__(self):
        return 0x7777


class _Both:  # __cuda_stream__ wins over the attributes, as in cuda.core's protocol
    ptr = 0x1111

    def __cuda_stream__(self):
        return (0, 0x2222)


class _BadProtocol:
    def __cuda_stream__(self):
        return 0x3333


class _NumbaCUstream:
    handle = _CUstreamLike()


def test_one_stream_normaliser_for_python_and_launches(backend):
    """cuda.streams.stream_handle and a launch configuration read a stream through one normaliser (the core's):
    the same handle for every kind of stream, the same refusal for what is not one (issue 39: the two disagreed on
    __cuda_stream__, on bools and on the order of the attributes)."""
    @cuda.jit
    def nothing(a):
        pass
    s = cuda.stream()
    good = [(None, 0), (0, 0), (77, 77), (np.int64(88), 88), (np.uint32(5), 5), (s, s.handle), (_Ptr(), 0x1234),
            (_TorchLike(), 0x5678), (_NumbaLike(), 0x9ABC), (_NumbaDefault(), 0), (_CudaCore(), 0x4242),
            (_Both(), 0x2222), (_NumbaCUstream(), 0x7777), (2**64 - 1, 2**64 - 1)]
    for obj, handle in good:
        assert streams.stream_handle(obj) == handle, obj
        assert nothing[1, 32, obj].stream == handle, obj
    bad = [(True, TypeError, "a stream cannot be a bool"), (False, TypeError, "a stream cannot be a bool"),
           ("stream", TypeError, "cannot use str as a CUDA stream"),
           (np.array([1, 2]), TypeError, "cannot use ndarray as a CUDA stream"),
           (1.5, TypeError, "cannot use float as a CUDA stream"),
           (-1, ValueError, r"stream handle -1 is not a pointer value in \[0, 2\*\*64\)"),
           (2**64, ValueError, "is not a pointer value"),
           (_BadProtocol(), TypeError, r"__cuda_stream__\(\) must return a \(version, handle\) tuple")]
    for obj, exc, message in bad:
        with pytest.raises(exc, match=message):
            streams.stream_handle(obj)
        with pytest.raises(exc, match=message):
            nothing[1, 32, obj]


class _RaisingHandle:
    @property
    def handle(self):
        raise RuntimeError("this stream was closed")


def test_launch_configurations_read_every_kind_of_stream(backend):
    """``kern[g, b, stream]`` is configured in the core (src/bind_launch.cpp): a cudajit Stream's handle is read
    directly, other libraries' streams through .handle(.value), .ptr or .cuda_stream, as stream_handle reads them."""
    @cuda.jit
    def nothing(a):
        pass

    s = cuda.stream()
    assert nothing[1, 32, s].stream == s.handle
    assert nothing[(2, 2), (8, 4), s, 128].sharedmem == 128
    for other, handle in ((_Ptr(), 0x1234), (_TorchLike(), 0x5678), (_NumbaLike(), 0x9ABC), (_NumbaDefault(), 0),
                          (77, 77), (0, 0), (None, 0)):
        launcher = nothing[1, 32, other]
        assert (launcher.stream, launcher.griddim, launcher.blockdim) == (handle, (1, 1, 1), (32, 1, 1))
    with pytest.raises(RuntimeError, match="this stream was closed"):   # the property's own error, unchanged
        nothing[1, 32, _RaisingHandle()]
    with pytest.raises(TypeError, match="cannot use str as a CUDA stream"):
        nothing[1, 32, "stream"]
    with pytest.raises(cuda.LaunchError, match="launch configuration"):
        nothing[1, 32, 0, 0, 0]
    with pytest.raises(cuda.LaunchError, match="launch configuration"):
        nothing[1]


def test_stream_launches_are_made_afresh_and_int_ones_kept(backend):
    """kern[g, b] of ints is kept (at most 64 configurations), with an int stream handle and shared-memory size too;
    kern[g, b, s] of a stream object is not: a kept launcher would keep its stream alive after the user dropped it."""
    import gc
    import weakref

    @cuda.jit
    def add_one(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    assert add_one[2, 32] is add_one[2, 32]
    assert add_one[2, np.int64(32)] is not add_one[2, np.int64(32)]     # only exact ints are kept
    assert add_one[(2, 1), (32, 1, 1), 0, 64] is add_one[(2, 1), (32, 1, 1), 0, 64]
    assert add_one[2, 32, None, None] is add_one[2, 32, None, None] is not add_one[2, 32]
    assert add_one[2, (32, True)] is not add_one[2, (32, True)]
    launcher = add_one[(2, 1), (32, 1, 1), 0, 64]
    assert launcher.griddim == (2, 1, 1) and launcher.blockdim == (32, 1, 1) and launcher.sharedmem == 64
    for g in range(1, 70):
        add_one[g, 32]
    assert 0 < len(add_one._launchers) <= 64
    x = np.random.default_rng(5).standard_normal(64)
    d = cuda.to_device(x)
    s = cuda.stream()
    ref = weakref.ref(s)
    assert add_one[2, 32, s] is not add_one[2, 32, s]
    add_one[2, 32, s](d)
    s.synchronize()
    del s
    gc.collect()
    assert ref() is None
    assert np.array_equal(d.copy_to_host(), x + 1)


# ---- the per-thread default stream (numba-cuda's NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM) ------------------------

_PTDS_PROGRAM = r"""
import sys, threading
import numpy as np
from cudajit import cuda, config, _core

@cuda.jit
def busy(out, n):                 # one thread, n dependent steps: long enough (~0.3 s) to be running below
    acc = out[0]
    for i in range(n):
        acc = acc * 0.999999 + 1.0
    out[0] = acc

@cuda.jit
def scale(a, f):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= f

rng = np.random.default_rng(int(sys.argv[1]))
# everything the threads do once first: a kernel's first launch loads its module, a first copy makes pinned staging
# memory, and either may wait for the whole device
warm = cuda.to_device(rng.random(10_000))
scale[40, 256](warm, 1.0)
busy[1, 1](cuda.to_device(np.ones(1)), 1)
warm.copy_to_host()
cuda.synchronize()
launched = threading.Event()
seen = {}

def thread_a():
    out = cuda.to_device(np.ones(1))
    busy[1, 1](out, 200_000_000)      # on this thread's default stream
    seen["a_event"] = cuda.event(timing=False)
    seen["a_event"].record()          # after busy, on the same default stream
    launched.set()
    cuda.synchronize()

def thread_b():
    launched.wait()
    for _ in range(3):                # allocate, copy in, launch, copy back, drop
        host = rng.random(10_000)
        d = cuda.to_device(host)      # the copies and the launch on the default stream, given none
        scale[40, 256](d, 3.0)
        got = d.copy_to_host()
        seen["b_right"] = seen.get("b_right", True) and bool(np.allclose(got, host * 3.0))
        del d
    cuda.default_stream().synchronize()
    seen["busy_done_when_b_synced"] = seen["a_event"].query()

ta, tb = threading.Thread(target=thread_a), threading.Thread(target=thread_b)
ta.start(); tb.start(); tb.join(); ta.join()
print(config.CUDA_PER_THREAD_DEFAULT_STREAM, _core.driver_info()["per_thread_default_stream"], seen["b_right"],
      seen["busy_done_when_b_synced"])
"""


@pytest.mark.gpu
@pytest.mark.parametrize("env", [{}, {"NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM": "1"},
                                 {"CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM": "1"}])
def test_gpu_per_thread_default_stream(gpu, env, rng, tmp_path):
    # With the variable set, stream 0 is each thread's own default stream: thread B's copies, launches and
    # synchronisation on its default stream do not wait for the long kernel thread A launched on A's (on the legacy
    # stream they do), and B's results are right.
    import os
    import subprocess
    import sys
    (tmp_path / "ptds.py").write_text(_PTDS_PROGRAM)
    e = {k: v for k, v in os.environ.items()
         if k not in ("NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM", "CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM")}
    e.update(env, CUDAJIT_BACKEND="gpu")
    out = subprocess.run([sys.executable, str(tmp_path / "ptds.py"), str(int(rng.integers(1 << 30)))],
                         capture_output=True, text=True, env=e, timeout=300)
    assert out.returncode == 0, out.stderr
    ptds = bool(env)
    assert out.stdout.split() == [str(int(ptds)), str(ptds), "True", str(not ptds)], out.stdout


def test_per_thread_default_stream_setting_reads_like_numba(monkeypatch):
    import importlib

    from cudajit import config
    try:
        for value, want in (("1", 1), ("0", 0), ("", 0), (" 2 ", 1), ("yes", 0)):
            monkeypatch.setenv("NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM", value)
            assert importlib.reload(config).CUDA_PER_THREAD_DEFAULT_STREAM == want, value
        monkeypatch.delenv("NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM")
        monkeypatch.setenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", "1")
        assert importlib.reload(config).CUDA_PER_THREAD_DEFAULT_STREAM == 1
    finally:
        monkeypatch.undo()
        importlib.reload(config)

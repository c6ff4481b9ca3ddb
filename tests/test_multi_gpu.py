"""Devices (issue 8): the device API on every backend, and correctness across two or more GPUs.

The multi-GPU tests are marked ``gpu`` and skip with fewer than two GPUs; ``--gpu`` on a 2-GPU machine runs them.
"""
import importlib.util
import os
import threading

import numpy as np
import pytest

from cudajit import _backend, _core, cuda
from cudajit.errors import CudaSupportError


def _gpu_count():
    return _core.device_count() if _backend.gpu_status()[0] else 0


def needs_two_gpus(test):
    return pytest.mark.gpu(pytest.mark.skipif(_gpu_count() < 2, reason="needs at least 2 GPUs")(test))


@cuda.jit
def axpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def _blocks(n):
    return (n + 255) // 256


def _axpy_on_current_device(x, y, a=2.5):
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    out = cuda.device_array_like(dx)
    axpy[_blocks(x.size), 256](out, a, dx, dy)
    assert out.device.id == dx.device.id == cuda.get_current_device().id
    return out.copy_to_host()


# --- the device API on every backend ------------------------------------------------------------------------------

def test_current_device_is_selected_per_thread(backend, rng):
    x, y = rng.random(1000), rng.random(1000)
    with cuda.gpus[0]:
        np.testing.assert_allclose(_axpy_on_current_device(x, y), 2.5 * x + y)
    seen = []
    worker = threading.Thread(target=lambda: seen.append(cuda.get_current_device().id))
    worker.start()
    worker.join()
    assert seen == [0]          # a new thread starts on device 0, as Numba's
    assert cuda.gpus.current.id == 0


def test_cpu_backend_has_one_device():
    with _backend.use("cpu"):
        assert len(cuda.gpus) == 1 and len(cuda.list_devices()) == 1
        assert cuda.select_device(0) is cuda.gpus[0]
        with pytest.raises(CudaSupportError, match="device 1 does not exist"):
            cuda.select_device(1)
        with pytest.raises(TypeError, match="device_id must be an int"):
            cuda.select_device("0")
        d = cuda.to_device(np.arange(4.0))
        assert d.device.id == 0 and d.__dlpack_device__() == (1, 0)


# --- two or more GPUs ---------------------------------------------------------------------------------------------

@pytest.fixture
def gpus2():
    """The GPU backend, with device 0 current again afterwards (the selection outlives a test otherwise)."""
    with _backend.use("gpu"):
        cuda.select_device(0)
        try:
            yield
        finally:
            cuda.select_device(0)


@needs_two_gpus
def test_device_list(gpus2):
    assert len(cuda.gpus) == _core.device_count() >= 2
    assert [d.id for d in cuda.gpus] == list(range(len(cuda.gpus)))
    with pytest.raises(CudaSupportError, match=f"device {len(cuda.gpus)} does not exist"):
        cuda.select_device(len(cuda.gpus))
    assert cuda.select_device(1).id == 1 and cuda.get_current_device().id == 1


@needs_two_gpus
def test_kernel_on_device_0_then_1(gpus2, rng):
    """The issue's program: one kernel launched on device 0, then on device 1 (`with` and select_device)."""
    n = 100_003
    x, y = rng.random(n), rng.random(n)
    expected = 2.5 * x + y
    np.testing.assert_allclose(_axpy_on_current_device(x, y), expected)
    with cuda.gpus[1]:
        assert cuda.get_current_device().id == 1
        np.testing.assert_allclose(_axpy_on_current_device(x, y), expected)
        out = np.zeros(n)
        axpy[_blocks(n), 256](out, 2.5, x, y)           # NumPy arguments: copied to device 1 and back
        np.testing.assert_allclose(out, expected)
    assert cuda.get_current_device().id == 0
    cuda.select_device(1)
    np.testing.assert_allclose(_axpy_on_current_device(x, y), expected)
    cuda.select_device(0)
    np.testing.assert_allclose(_axpy_on_current_device(x, y), expected)


@needs_two_gpus
def test_one_thread_per_gpu(gpus2, rng):
    xs = [rng.random(50_000) for _ in cuda.gpus]
    results, errors = {}, []

    def work(i):
        try:
            cuda.select_device(i)
            results[i] = (cuda.get_current_device().id, _axpy_on_current_device(xs[i], xs[i], a=float(i)))
        except Exception as e:          # reported below: an exception in a thread is otherwise lost
            errors.append(e)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(cuda.gpus))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert cuda.get_current_device().id == 0        # the other threads' selections are theirs
    for i, x in enumerate(xs):
        assert results[i][0] == i
        np.testing.assert_allclose(results[i][1], i * x + x)


@needs_two_gpus
def test_array_of_another_device_is_refused(gpus2, rng):
    x = rng.random(1000)
    on_0 = cuda.to_device(x)
    with cuda.gpus[1]:
        out = cuda.device_array(x.size)
        with pytest.raises(ValueError, match=r"kernel 'axpy': argument 2 \(x\): the array is on device 0, but the "
                                             r"kernel runs on device 1"):
            axpy[_blocks(x.size), 256](out, 2.5, on_0, out)
        np.testing.assert_allclose(_axpy_on_current_device(x, x), 3.5 * x)   # the device still works


@needs_two_gpus
def test_copies_between_devices(gpus2, rng):
    h = rng.random((64, 33))
    on_0 = cuda.to_device(h)
    with cuda.gpus[1]:
        on_1 = cuda.device_array_like(on_0)
        on_1.copy_to_device(on_0)                       # peer copy on stream 0: synchronous
        assert on_1.device.id == 1
        np.testing.assert_array_equal(on_1.copy_to_host(), h)
        moved = cuda.to_device(on_0)                    # another device's array: copied here
        assert moved is not on_0 and moved.device.id == 1
        np.testing.assert_array_equal(moved.copy_to_host(), h)
        s = cuda.stream()
        on_1_async = cuda.device_array_like(on_0, stream=s)
        on_1_async.copy_to_device(on_0, stream=s)       # peer copy on a stream of device 1
        s.synchronize()
        np.testing.assert_array_equal(on_1_async.copy_to_host(), h)
        assert on_1.__dlpack_device__() == (2, 1)
    np.testing.assert_array_equal(on_1.copy_to_host(), h)   # device 1's array read while device 0 is current
    back = cuda.device_array_like(on_1)
    back.copy_to_device(on_1)
    assert back.device.id == 0
    np.testing.assert_array_equal(back.copy_to_host(), h)
    h2 = rng.random((64, 33))
    on_1.copy_to_device(h2)                             # host to device 1 while device 0 is current
    np.testing.assert_array_equal(on_1.copy_to_host(), h2)


@needs_two_gpus
def test_foreign_array_knows_its_device(gpus2, rng):
    class Foreign:                                      # a CAI exporter (as CuPy's arrays) of device 1 memory
        def __init__(self, owner):
            self.owner = owner
            self.__cuda_array_interface__ = owner.__cuda_array_interface__

    with cuda.gpus[1]:
        on_1 = cuda.to_device(rng.random(100))
    view = cuda.as_cuda_array(Foreign(on_1))
    assert view.device.id == 1
    out = cuda.device_array(100)
    with pytest.raises(ValueError, match="argument 2 .*device 1, but the kernel runs on device 0"):
        axpy[1, 128](out, 1.0, view, out)


@needs_two_gpus
def test_reduce_on_device_1(gpus2, rng):
    total = cuda.reduce(lambda a, b: a + b)
    data = rng.random(300_001)
    expect = data.sum()
    assert total(data) == pytest.approx(expect, rel=1e-12)          # device 0 first: its kernels compile there
    with cuda.gpus[1]:
        assert total(data) == pytest.approx(expect, rel=1e-12)
        on_1 = cuda.to_device(data)
        res = cuda.device_array(1)
        total(on_1, res=res)
        assert res.copy_to_host()[0] == pytest.approx(expect, rel=1e-12)


@needs_two_gpus
def test_streams_and_events_per_device(gpus2, rng):
    x = rng.random(20_000)
    with cuda.gpus[1]:
        s1 = cuda.stream()
        d = cuda.to_device(x, stream=s1)
        out = cuda.device_array_like(d, stream=s1)
        axpy[_blocks(x.size), 256, s1](out, 2.0, d, d)
        done = cuda.event()
        done.record(s1)
    assert "device 1" in repr(s1)
    done.synchronize()                                  # device 0 current: the event and stream are device 1's
    s1.synchronize()
    np.testing.assert_allclose(out.copy_to_host(), 3.0 * x)
    s0 = cuda.stream()
    assert "device 0" in repr(s0)
    d0 = cuda.to_device(x, stream=s0)
    out0 = cuda.device_array_like(d0, stream=s0)
    axpy[_blocks(x.size), 256, s0](out0, 1.0, d0, d0)
    s0.synchronize()
    np.testing.assert_allclose(out0.copy_to_host(), 2.0 * x)


def test_scaling_benchmark_runs_on_the_cpu_backend(capsys):
    """benchmarks/bench_multi_gpu.py at a tiny size (it checks its results against NumPy itself)."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks",
                        "bench_multi_gpu.py")
    spec = importlib.util.spec_from_file_location("bench_multi_gpu", path)
    bench = importlib.util.module_from_spec(spec)
    with _backend.use("cpu"):
        spec.loader.exec_module(bench)
        speedup = bench.main(["--n", "70000", "--passes", "2", "--repeats", "2"])
    assert speedup > 0
    assert "speed-up" in capsys.readouterr().out


def test_context_can_access_peer(backend):
    """numba-cuda's Context.can_access_peer (issue 40): the driver's answer for every pair of devices (checked
    against CuPy's runtime call where CuPy is installed); a device that does not exist is named; no peers on the CPU."""
    with _backend.use(backend):
        ctx = cuda.current_context()
        n = len(cuda.gpus)
        with pytest.raises(CudaSupportError, match=rf"device {n} does not exist"):
            ctx.can_access_peer(n)
        with pytest.raises(TypeError, match="peer_device must be a device ordinal"):
            ctx.can_access_peer(1.0)
        if backend == "cpu":
            assert ctx.can_access_peer(0) is False
            return
        cupy = pytest.importorskip("cupy") if importlib.util.find_spec("cupy") else None
        for a in range(n):
            with cuda.gpus[a]:
                here = cuda.current_context()
                for b in range(n):
                    got = here.can_access_peer(b)
                    assert isinstance(got, bool)
                    if cupy is not None:
                        assert got == bool(cupy.cuda.runtime.deviceCanAccessPeer(a, b)), (a, b)

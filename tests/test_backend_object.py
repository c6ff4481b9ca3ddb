"""The backend as an object (issue 39): each backend's rules answered by _backend.GPU / _backend.CPU, and the user
API's answers following the backend in use."""
import numpy as np
import pytest

from cudajit import _backend, cuda
from cudajit.errors import CudaSupportError
from cudajit.jitoptions import compile_options


def test_the_two_backends_and_their_core_numbers():
    assert _backend.BACKENDS == {"gpu": _backend.GPU, "cpu": _backend.CPU}
    assert (_backend.GPU.core_id, _backend.CPU.core_id) == (0, 1)
    assert _backend.BY_CORE_ID[0] is _backend.GPU and _backend.BY_CORE_ID[1] is _backend.CPU
    assert _backend.CPU.is_cpu and not _backend.CPU.is_gpu
    assert _backend.GPU.is_gpu and not _backend.GPU.is_cpu
    assert repr(_backend.CPU) == "<cudajit cpu backend>"


def test_current_follows_use(backend):
    with _backend.use(backend):
        assert _backend.current() is _backend.BACKENDS[backend]
        assert _backend.name() == backend
        assert _backend.is_gpu() == (backend == "gpu")


def test_the_cpu_backends_device_rules():
    cpu = _backend.CPU
    assert (cpu.device(), cpu.device_count(), cpu.arch(), cpu.compute_capability(), cpu.target()) == \
        (0, 1, 90, (9, 0), "cpu")
    assert cpu.check_device(0) == 0
    for bad in (1, -1, 7):
        with pytest.raises(CudaSupportError, match=rf"device {bad} does not exist: the CPU backend has one device, 0"):
            cpu.check_device(bad)


@pytest.mark.gpu
def test_the_gpu_backends_device_rules():
    gpu = _backend.GPU
    with _backend.use("gpu"):
        n = gpu.device_count()
        assert n >= 1 and gpu.device() == cuda.get_current_device().id
        assert gpu.compute_capability() == cuda.get_current_device().compute_capability
        assert gpu.target() == ("gpu", gpu.device())
        with pytest.raises(CudaSupportError, match=rf"device {n} does not exist: there are {n} GPU\(s\)"):
            gpu.check_device(n)


def test_index_checks_by_default_are_the_backends():
    o = compile_options({})
    assert o.for_backend(_backend.CPU).boundscheck is True
    assert o.for_backend(_backend.GPU).boundscheck is False
    assert o.for_backend("gpu").target == "gpu" and o.for_backend("cpu").target == "cpu"
    assert compile_options({"debug": True}).for_backend(_backend.GPU).boundscheck is True
    assert compile_options({"boundscheck": False}).for_backend(_backend.CPU).boundscheck is False


def test_the_user_api_follows_the_backend(backend):
    """The answers that differ by backend come from its object: devices, the array's owner, the compiled target."""
    with _backend.use(backend):
        b = _backend.current()
        assert len(cuda.gpus) == b.device_count()
        assert cuda.gpus.current.id == b.device()
        rng = np.random.default_rng(3)
        a = rng.standard_normal(64).astype(np.float32)
        d = cuda.to_device(a)
        assert d._backend == b.core_id

        @cuda.jit
        def double(x):
            i = cuda.grid(1)
            if i < x.size:
                x[i] *= 2
        double[2, 32](d)
        np.testing.assert_array_equal(d.copy_to_host(), a * 2)
        assert [k[0] for k in double._specs] == [b.target()]
        assert cuda.is_bfloat16_supported() == (b.is_cpu or cuda.get_current_device().supports_bfloat16)


def test_an_array_of_the_other_backend_is_refused_by_name():
    if "gpu" not in _backend.available():
        pytest.skip("needs both backends")
    with _backend.use("gpu"):
        d = cuda.to_device(np.arange(4.0))
    with _backend.use("cpu"):
        with pytest.raises(Exception, match="belongs to the GPU backend, but the cpu backend is in use"):
            d.copy_to_host()

"""numba-cuda's driver-level import paths (``numba.cuda.cudadrv.*``) name cudajit's own objects."""
import numpy as np
import pytest

from cudajit import cuda, errors
from cudajit.cuda.cudadrv import devicearray, devices, driver, error, linkable_code, runtime


def test_classes_are_cudajits_own():
    assert devicearray.DeviceNDArray is cuda.DeviceNDArray
    assert driver.Stream is type(cuda.stream()) and driver.Event is type(cuda.event())
    assert driver.CudaAPIError is errors.CudaAPIError and error.CudaDriverError is errors.CudaAPIError
    assert error.CudaSupportError is errors.CudaSupportError and error.NvrtcError is errors.CompileError
    assert driver.MemoryPointer is cuda.MemoryPointer and linkable_code.CUSource is cuda.CUSource
    assert devices.gpus is cuda.gpus and runtime.runtime is cuda.runtime


def test_isinstance_checks_see_cudajits_arrays(backend, rng):
    d = cuda.to_device(rng.standard_normal(5))
    assert isinstance(d, cuda.cudadrv.devicearray.DeviceNDArray)
    assert isinstance(cuda.mapped_array(3), devicearray.MappedNDArray)


def test_from_array_like_keeps_shape_strides_and_dtype(backend, rng):
    host = rng.standard_normal((4, 6)).astype(np.float32)[:, ::2]
    d = devicearray.from_array_like(host)
    assert (d.shape, d.strides, d.dtype) == (host.shape, host.strides, host.dtype)
    d.copy_to_device(host)
    np.testing.assert_array_equal(d.copy_to_host(), host)


def test_get_context_names_a_device(backend):
    assert devices.get_context().device.id == cuda.get_current_device().id
    assert devices.get_context(0).id == 0


def test_have_nvjitlink_is_a_bool_and_the_paths_load_on_first_use():
    """numba-cuda's ``driver._have_nvjitlink()`` is a bool (a tuple would always be true), and ``import
    cudajit.cuda`` does not load these paths, nor the nvJitLink probe they use."""
    import subprocess
    import sys
    from cudajit.cuda import nvjitlink
    assert driver._have_nvjitlink() is nvjitlink.available()[0]
    code = ("import sys; from cudajit import cuda; "
            "print(sorted(m for m in sys.modules if 'cudadrv' in m or m.endswith('nvjitlink')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out

def test_auto_device_copies_host_data_and_passes_device_memory_through(backend, rng):
    x = rng.standard_normal((3, 5))
    d, copied = devicearray.auto_device(x)
    assert copied and isinstance(d, cuda.DeviceNDArray)
    np.testing.assert_array_equal(d.copy_to_host(), x)
    assert devicearray.auto_device(d) == (d, False)
    assert cuda.devicearray.auto_device is devicearray.auto_device          # numba-cuda's cuda.devicearray
    empty, copied = devicearray.auto_device(x, copy=False)
    assert copied and empty.shape == x.shape
    scalar, _ = devicearray.auto_device(7)
    assert scalar.shape == () and scalar.copy_to_host() == 7
    rec = np.zeros(3, [("a", np.int32), ("b", np.float64)])
    rec["a"], rec["b"] = rng.integers(0, 9, 3), rng.standard_normal(3)
    np.testing.assert_array_equal(devicearray.auto_device(rec)[0].copy_to_host(), rec)
    m = cuda.mapped_array(4)
    m[:] = rng.standard_normal(4)
    view, copied = devicearray.auto_device(m)                                  # mapped memory: no copy
    assert not copied and view.__cuda_array_interface__["data"][0] == m.__cuda_array_interface__["data"][0]
    with pytest.raises(ValueError, match="non-contiguous"):
        devicearray.auto_device(x[:, ::2])


def test_numba_array_helpers(backend, rng):
    x = rng.standard_normal((4, 6))
    d = cuda.to_device(x)
    assert devicearray.is_cuda_ndarray(d) and devicearray.is_cuda_ndarray(cuda.mapped_array(2))
    assert not devicearray.is_cuda_ndarray(x)
    devicearray.verify_cuda_ndarray_interface(d)
    with pytest.raises(ValueError, match="ndarray"):
        devicearray.require_cuda_ndarray(x)
    b = np.broadcast_to(x[0], (5, 6))
    assert devicearray.array_core(b).shape == (6,)
    devicearray.sentry_contiguous(b)                       # its core is contiguous
    assert devicearray.is_contiguous(x) and devicearray.is_contiguous(x[:1]) and not devicearray.is_contiguous(x[:, ::2])
    devicearray.check_array_compatibility(x, d)
    with pytest.raises(TypeError, match="dtype"):
        devicearray.check_array_compatibility(x.astype(np.float32), d)
    with pytest.raises(ValueError, match="shape"):
        devicearray.check_array_compatibility(x[:2], d)
    with pytest.raises(ValueError, match="strides"):
        devicearray.check_array_compatibility(np.asfortranarray(x), d)
    assert d.gpu_data.device_pointer == d.gpu_data.device_pointer_value == d.__cuda_array_interface__["data"][0]
    assert int(d.gpu_data.device_pointer) == d.device_ctypes_pointer.value

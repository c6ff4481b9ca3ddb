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
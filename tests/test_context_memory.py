"""numba-cuda's context memory API and raw byte copies (``numba.cuda.cudadrv.driver``): ``Context.memalloc``,
``memhostalloc``, ``mempin``, ``memallocmanaged``, ``create_stream``/``create_event``, and ``driver.host_to_device``,
``device_to_host``, ``device_to_device``, ``device_memset`` and the host/device pointer and size helpers. NumPy is
the oracle."""
import ctypes
import sys

import numpy as np
import pytest

from cudajit import cuda
from cudajit.cuda.cudadrv import driver


def test_memalloc_copies_and_memset(backend, rng):
    ctx = cuda.current_context()
    host = rng.integers(0, 2**32, 256, dtype=np.uint32)
    nbytes = host.nbytes
    dev = ctx.memalloc(nbytes)
    assert driver.is_device_memory(dev) and isinstance(dev.device_ctypes_pointer, ctypes.c_size_t)
    driver.require_device_memory(dev)
    driver.host_to_device(dev, host, nbytes)
    back = np.zeros_like(host)
    driver.device_to_host(back, dev, nbytes)
    np.testing.assert_array_equal(back, host)
    # a view is the memory at an offset: bytes 8..40 set, the rest kept
    driver.device_memset(dev.view(8), 0xAB, 32)
    want = host.copy()
    want.view(np.uint8)[8:40] = 0xAB
    driver.device_to_host(back, dev, nbytes)
    np.testing.assert_array_equal(back, want)
    other = ctx.memalloc(nbytes)
    driver.device_to_device(other, dev, nbytes)
    again = np.zeros_like(host)
    driver.device_to_host(again, other, nbytes)
    np.testing.assert_array_equal(again, want)
    # a device array is device memory too
    d = cuda.to_device(host)
    driver.device_to_device(d, dev, nbytes)
    np.testing.assert_array_equal(d.copy_to_host(), want)
    # on a stream
    s = ctx.create_stream()
    driver.device_memset(other, 1, nbytes, stream=s)
    driver.device_to_host(again, other, nbytes, stream=s)
    s.synchronize()
    assert (again == 0x01010101).all()


def test_sizes_are_checked_and_free_is_once(backend, rng):
    ctx = cuda.current_context()
    dev = ctx.memalloc(64)
    with pytest.raises(ValueError, match="size 128 is more than the 64 bytes of the destination"):
        driver.host_to_device(dev, np.zeros(16), 128)
    with pytest.raises(ValueError, match="size 64 is more than the 32 bytes of the destination"):
        driver.device_to_host(np.zeros(4), dev, 64)
    with pytest.raises(ValueError, match="non-negative int"):
        driver.device_memset(dev, 0, -1)
    with pytest.raises(TypeError, match="is not device memory"):
        driver.device_memset(np.zeros(8), 0, 8)
    with pytest.raises(TypeError, match="memalloc: size must be an int"):
        ctx.memalloc(1.5)
    dev.free()
    with pytest.raises(RuntimeError, match="Freeing dead memory"):
        dev.free()


def test_host_and_managed_memory(backend, rng):
    ctx = cuda.current_context()
    mapped = ctx.memhostalloc(128, mapped=True)
    pinned = ctx.memhostalloc(128)
    managed = ctx.memallocmanaged(128)
    values = rng.integers(0, 256, 128, dtype=np.uint8)
    np.asarray(pinned)[:] = values
    np.testing.assert_array_equal(np.asarray(pinned), values)
    for mem in (mapped, managed):             # the device reaches these: a device-to-host copy reads them
        assert driver.is_device_memory(mem)
        np.asarray(mem)[:] = values[::-1]
        copy = np.zeros(128, np.uint8)
        driver.device_to_host(copy, mem, 128)
        np.testing.assert_array_equal(copy, values[::-1])
    driver.device_memset(mapped, 0x5A, 128)
    assert (np.asarray(mapped) == 0x5A).all()
    if sys.version_info >= (3, 12):      # the buffer protocol of a Python class (PEP 688)
        ary = np.ndarray(shape=128, dtype=np.uint8, buffer=mapped)
        assert (ary == 0x5A).all()
    host = rng.standard_normal(16)
    pin = ctx.mempin(host, host.ctypes.data, host.nbytes, mapped=True)
    assert driver.is_device_memory(pin)
    pin.free()


def test_host_memory_extents():
    a = np.arange(100)
    start, end = driver.host_memory_extents(a)
    assert start == a.ctypes.data and end - start == a.nbytes
    f = np.asfortranarray(np.arange(100).reshape(2, 50))
    assert driver.host_memory_size(f) == f.nbytes
    assert driver.host_memory_size(a[::-3]) == (a[::-3].size - 1) * 24 + 8
    assert driver.host_memory_size(np.asarray(np.uint32(7))) == 4

    class Pair(ctypes.Structure):
        _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int)]
    assert driver.host_memory_size(Pair(1, 2)) == 8
    assert driver.host_memory_size(ctypes.c_double(1.0)) == 8
    assert driver.host_memory_size(bytearray(13)) == 13

"""The allocation path: device_array's C++ constructor and the device block cache (src/block_cache.h).

Blocks of at most 1 MiB are kept when their array goes and handed to the next allocation of their size class;
these tests check that reused memory never shows another array's data or races with work still running on it.
"""
import gc
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from cudajit import _core, cuda
from cudajit.cuda.devicearray import DeviceNDArray
from cudajit.cuda.streams import Stream

SIZES = [1, 7, 128, 129, 1000, 4096, 65536 + 3, 262144, 300000, (1 << 20) // 4 + 1]


@cuda.jit
def affine(src, dst, scale, shift):
    i = cuda.grid(1)
    if i < dst.size:
        dst[i] = src[i] * scale + shift


@cuda.jit
def slow_fill(x, value, spins):
    # Sleeps first, then writes: the write lands long after the launch returns.
    i = cuda.grid(1)
    for _ in range(spins):
        cuda.nanosleep(1000)
    if i < x.size:
        x[i] = value


@cuda.jit
def fill(x, value):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = value


def _blocks(n):
    return (n + 127) // 128, 128


def test_many_sizes_on_several_streams_round_trip(backend, rng):
    streams = [0, cuda.stream(), cuda.stream()]
    for round_ in range(3):
        kept = []
        for k, n in enumerate(SIZES):
            stream = streams[(k + round_) % len(streams)]
            host = rng.standard_normal(n).astype(np.float32)
            src = cuda.to_device(host, stream=stream)
            dst = cuda.device_array(n, np.float32, stream=stream)
            scale, shift = float(rng.uniform(1, 3)), float(rng.uniform(-5, 5))
            affine[_blocks(n)[0], 128, stream](src, dst, scale, shift)
            kept.append((dst, host * np.float32(scale) + np.float32(shift), stream))
            del src  # its block goes back to the cache while the kernel may still read it
        for dst, want, stream in kept:
            got = dst.copy_to_host(stream=stream)
            cuda.synchronize()
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_shapes_orders_and_dtypes_of_the_fast_path(backend):
    a = cuda.device_array((3, 5), np.int16, order="F")
    assert a.shape == (3, 5) and a.strides == (2, 6) and a.dtype == np.int16 and a.is_f_contiguous()
    b = cuda.device_array(np.int64(4), "f8")
    assert b.shape == (4,) and b.strides == (8,) and b.dtype == np.float64
    c = cuda.device_array((), np.complex64)
    assert c.shape == () and c.size == 1
    e = cuda.device_array((2, 0, 3), np.float32)
    assert e.size == 0 and e.strides == (0, 12, 4)   # as devicearray._c_strides has always made them
    host = np.arange(15, dtype=np.int16).reshape(3, 5)
    a.copy_to_device(np.asfortranarray(host))
    np.testing.assert_array_equal(a.copy_to_host(), host)
    assert a.gpu_data is a.gpu_data and a[:, :].gpu_data is a.gpu_data    # views of all of it: the allocation


@pytest.mark.parametrize("index", [np.s_[1:], np.s_[:, 1:4], np.s_[1, ::2], np.s_[::-1, ::-2], np.s_[2:3, 3]])
def test_gpu_data_of_a_view_spans_its_bytes_as_numba_cudas(backend, index):
    rng = np.random.default_rng(5)
    host = rng.standard_normal((4, 6))
    a = cuda.to_device(host)
    v = a[index]
    mem = v.gpu_data
    assert mem is v.gpu_data and mem.owner is a.gpu_data
    # the bytes the view spans, from its lowest element to past its highest (numba-cuda's MemoryPointer.view)
    elements = np.arange(host.size).reshape(host.shape)[index]
    lo, hi = 8 * int(elements.min()), 8 * (int(elements.max()) + 1)
    assert mem.device_pointer_value - a.gpu_data.ptr == lo and mem.size == hi - lo
    # an array made on it reads those bytes
    flat = DeviceNDArray((mem.size // 8,), (8,), np.float64, gpu_data=mem).copy_to_host()
    np.testing.assert_array_equal(flat, host.reshape(-1)[lo // 8:hi // 8])
    del a, v
    gc.collect()
    np.testing.assert_array_equal(DeviceNDArray((1,), (8,), np.float64, gpu_data=mem).copy_to_host(),
                                  host.reshape(-1)[lo // 8:lo // 8 + 1])   # the pointer keeps the memory alive


@pytest.mark.parametrize("shape, dtype, err, words", [
    (-1, np.float32, ValueError, "shape[0] = -1 is negative"),
    ((2, -3), np.float32, ValueError, "shape[1] = -3 is negative"),
    (True, np.float32, TypeError, "must be an int or a tuple of ints, not bool"),
    ((2, 1.5), np.float32, TypeError, "shape[1] must be an int, not float"),
    ("3", np.float32, TypeError, "must be an int or a tuple of ints, not str"),
    (4, object, TypeError, "cannot be stored in device memory"),
    (4, "not-a-dtype", TypeError, "dtype"),
    ((1 << 40, 1 << 40), np.float32, ValueError, "needs 4835703278458516698824704 bytes"),
])
def test_bad_arguments_name_what_is_wrong(backend, shape, dtype, err, words):
    with pytest.raises(err) as info:
        cuda.device_array(shape, dtype)
    assert words in str(info.value)


def test_out_of_memory_raises_memory_error_naming_the_bytes(backend):
    for _ in range(4):
        cuda.device_array(1000, np.float32)   # leaves blocks in the cache (GPU)
    with pytest.raises(MemoryError, match="1125899906842624 bytes"):
        cuda.device_array(1 << 50, np.uint8)
    x = cuda.device_array(1000, np.float32)   # still allocates afterwards
    fill[8, 128](x, 3.0)
    np.testing.assert_array_equal(x.copy_to_host(), np.full(1000, 3.0, np.float32))


@pytest.mark.gpu
def test_out_of_memory_returns_cached_blocks_first():
    with cuda.gpus[0]:
        for _ in range(4):
            cuda.device_array(1000, np.float32)
        assert _core.cached_device_bytes(0) > 0
        with pytest.raises(MemoryError):
            cuda.device_array(1 << 50, np.uint8)
        assert _core.cached_device_bytes(0) == 0


def _reuse_while_running(first, second, n, spins=20000):
    """A slow kernel on `first` writes 1 into an array that is dropped at once; later allocations of its size class
    on `second` get its block back (once a batch of blocks came back: block_cache.cpp fences in batches) and a
    kernel on `second` writes 2 into each. Those writes must land after the slow one. Each test uses a size class
    of its own, so the dropped block is among the first its class hands out."""
    old = cuda.device_array(n, np.float32, stream=first)
    ptr = old._ptr
    slow_fill[_blocks(n)[0], 128, first](old, 1.0, spins)
    del old
    others = [cuda.device_array(100, np.float32) for _ in range(8)]
    del others
    new = [cuda.device_array(n, np.float32, stream=second) for _ in range(4)]
    assert ptr in [x._ptr for x in new]   # the cached block, not fresh pool memory
    for x in new:
        fill[_blocks(n)[0], 128, second](x, 2.0)
    cuda.synchronize()
    for x in new:
        np.testing.assert_array_equal(x.copy_to_host(), np.full(n, 2.0, np.float32))


@pytest.mark.gpu
def test_reuse_on_the_same_stream_waits_for_the_slow_kernel():
    s = cuda.stream()
    _reuse_while_running(s, s, 2048)


@pytest.mark.gpu
def test_reuse_on_another_stream_waits_for_the_slow_kernel():
    _reuse_while_running(cuda.stream(), cuda.stream(), 8192)


@pytest.mark.gpu
def test_reuse_on_the_legacy_stream_waits_for_the_slow_kernel():
    _reuse_while_running(cuda.stream(), 0, 16384)


@pytest.mark.gpu
def test_reuse_on_a_non_blocking_stream_waits_for_the_slow_kernel():
    non_blocking = Stream(_core.Stream(1))   # CU_STREAM_NON_BLOCKING: the legacy stream does not order it
    _reuse_while_running(cuda.stream(), non_blocking, 32768)


@pytest.mark.gpu
def test_arrays_freed_after_close():
    # In a child process: close() releases the contexts that every earlier test's kernels were loaded into.
    script = textwrap.dedent("""
        import numpy as np
        from cudajit import _core, cuda

        host = np.random.default_rng(7).standard_normal(1000).astype(np.float32)
        kept = cuda.to_device(host)
        cuda.device_array(1000, np.float32)          # dropped: cached
        assert _core.cached_device_bytes(0) > 0
        cuda.close()
        assert _core.cached_device_bytes(0) == 0     # returned to the pool before the context went
        del kept                                      # of the released context: not cached
        assert _core.cached_device_bytes(0) == 0
        for _ in range(3):                            # the new context's memory, reused through the cache
            x = cuda.to_device(host[::-1].copy())
            assert (x.copy_to_host() == host[::-1]).all()
            del x
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


@pytest.mark.gpu
def test_allocations_during_a_graph_capture_leave_the_cache_alone(rng):
    # A fence on the legacy stream would invalidate the capture: allocations on another stream then come from the
    # pool, and the blocks cached before stay for later.
    n = 4000
    blocks = [cuda.device_array(n, np.float32) for _ in range(9)]
    del blocks                                      # enough cached blocks of the class for a fence
    host = rng.standard_normal(n).astype(np.float32)
    src, dst = cuda.to_device(host), cuda.device_array(n, np.float32)
    s, other = cuda.stream(), cuda.stream()
    with cuda.graph(s) as g:
        affine[_blocks(n)[0], 128, s](src, dst, 2.0, 1.0)
        side = cuda.device_array(n, np.float32, stream=other)
    cached = _core.cached_device_bytes(0)
    assert cached > 0
    g.launch()
    s.synchronize()
    np.testing.assert_allclose(dst.copy_to_host(), host * 2 + 1, rtol=1e-6)
    fill[_blocks(n)[0], 128, other](side, 4.0)
    got = side.copy_to_host(stream=other)
    other.synchronize()
    np.testing.assert_array_equal(got, np.full(n, 4.0, np.float32))
    again = cuda.device_array(n, np.float32)        # after the capture the cache serves again
    assert _core.cached_device_bytes(0) < cached
    del again

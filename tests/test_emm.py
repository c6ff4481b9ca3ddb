"""numba.cuda's External Memory Management plugins (``cuda.set_memory_manager``, cuda/emm.py): device arrays, kernel
temporaries and host memory come from the plugin and go back to it, on every backend."""
import ctypes
import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from cudajit import _backend, cuda


class _Memory:
    """Raw memory for the test plugins: the driver's cuMemAlloc on the GPU, 64-byte aligned NumPy bytes on the
    CPU backend (whose device memory is host memory)."""

    def __init__(self):
        self.live = {}       # address -> what to free it with
        self.freed = []

    def alloc(self, size):
        if _backend.is_gpu():
            lib = ctypes.CDLL("libcuda.so.1")
            ptr = ctypes.c_uint64()
            assert lib.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(size)) == 0
            address = ptr.value
            self.live[address] = lambda: lib.cuMemFree_v2(ctypes.c_uint64(address))
        else:
            raw = np.empty(size + 64, np.uint8)
            address = (raw.ctypes.data + 63) // 64 * 64
            self.live[address] = lambda: raw
        return address

    def free(self, address):
        self.live.pop(address)()
        self.freed.append(address)


class CountingManager(cuda.HostOnlyCUDAMemoryManager):
    """A plugin as a user writes one: every allocation recorded, freed by its MemoryPointer's finalizer."""

    def initialize(self):
        self.memory = _Memory()
        self.sizes = []
        self.cleanups = 0

    def memalloc(self, size):
        address = self.memory.alloc(size)
        self.sizes.append(size)
        free = self.memory.free
        return cuda.MemoryPointer(self.context, ctypes.c_void_p(address), size,
                                  finalizer=lambda: free(address))

    def get_memory_info(self):
        return cuda.MemoryInfo(free=12345, total=67890)

    def get_ipc_handle(self, memory):
        raise NotImplementedError

    def defer_cleanup(self):
        self.cleanups += 1
        return super().defer_cleanup()

    @property
    def interface_version(self):
        return 1


@pytest.fixture
def plugin(backend):
    cuda.set_memory_manager(CountingManager)
    try:
        yield cuda.current_context().memory_manager
    finally:
        cuda.synchronize()
        cuda.set_memory_manager(None)


@cuda.jit
def _axpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def test_device_arrays_come_from_the_plugin_and_go_back(plugin):
    rng = np.random.default_rng(7)
    x, y = rng.random(3000), rng.random(3000)
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    out = cuda.device_array_like(x)
    _axpy[12, 256](2.5, dx, dy, out)
    np.testing.assert_allclose(out.copy_to_host(), 2.5 * x + y)
    assert plugin.sizes == [x.nbytes] * 3
    assert isinstance(out.gpu_data, cuda.MemoryPointer)
    assert out.gpu_data.device_pointer_value == out.__cuda_array_interface__["data"][0]
    view = out[100:200]
    assert view.gpu_data.owner is out.gpu_data and view.gpu_data.size == 800      # numba-cuda's view of the plugin's
    live = set(plugin.memory.live)
    cuda.synchronize()
    del dx, dy, out
    gc.collect()
    assert len(plugin.memory.live) == 1 and set(plugin.memory.freed) < live   # the view keeps its array's memory
    np.testing.assert_allclose(view.copy_to_host(), (2.5 * x + y)[100:200])
    del view
    gc.collect()
    assert plugin.memory.live == {}


def test_numpy_arguments_are_staged_in_plugin_memory(plugin):
    rng = np.random.default_rng(8)
    x, y = rng.random(500).astype(np.float32), rng.random(500).astype(np.float32)
    out = np.zeros_like(x)
    _axpy[2, 256](np.float32(-1.5), x, y, out)
    np.testing.assert_allclose(out, np.float32(-1.5) * x + y, rtol=1e-6, atol=1e-7)   # the GPU fuses a multiply-add
    assert plugin.sizes and sum(plugin.sizes) >= 3 * x.nbytes
    gc.collect()
    assert plugin.memory.live == {}


def test_host_memory_and_context_calls_go_to_the_plugin(plugin, monkeypatch):
    rng = np.random.default_rng(9)
    pinned = cuda.pinned_array((40, 3), np.float32)
    pinned[:] = rng.random((40, 3))
    mapped = cuda.mapped_array(120, np.float64)
    mapped[:] = rng.random(120)
    d = cuda.to_device(pinned)
    np.testing.assert_array_equal(d.copy_to_host(), pinned)
    out = cuda.device_array(120)
    _axpy[1, 128](1.0, mapped, mapped, out)            # kernels read mapped host memory in place
    np.testing.assert_allclose(out.copy_to_host(), 2 * mapped)
    host = rng.random(64)
    with cuda.pinned(host):
        np.testing.assert_array_equal(cuda.to_device(host).copy_to_host(), host)
    before = host.copy()
    with cuda.mapped(host) as dev_host:
        _axpy[1, 64](3.0, dev_host, dev_host, dev_host)   # in place, through the plugin's mempin
        cuda.synchronize()
    np.testing.assert_allclose(host, 4 * before)
    assert cuda.current_context().get_memory_info() == (12345, 67890)
    with cuda.defer_cleanup():
        pass
    assert plugin.cleanups == 1
    resets = []
    monkeypatch.setattr(type(plugin), "reset", lambda self: resets.append("plugin"))
    monkeypatch.setattr(type(cuda.get_current_device()), "reset", lambda self: resets.append("device"))
    cuda.current_context().reset()
    assert resets == ["plugin", "device"]


def test_mapped_array_from_a_plugins_memhostalloc(backend):
    calls = []

    class HostCounting(CountingManager):
        def memhostalloc(self, size, mapped=False, portable=False, wc=False):
            calls.append((size, mapped))
            return super().memhostalloc(size, mapped, portable, wc)

    cuda.set_memory_manager(HostCounting)
    try:
        a = cuda.mapped_array(256, np.int32)
        a[:] = np.random.default_rng(3).integers(-1000, 1000, 256)
        expected = a * 2
        _double[1, 256](a)
        cuda.synchronize()
        np.testing.assert_array_equal(a, expected)
        assert calls == [(1024, True)]
    finally:
        cuda.set_memory_manager(None)


@cuda.jit
def _double(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= 2


def test_bad_plugins_are_refused_by_name(backend):
    class Version2(CountingManager):
        interface_version = 2

    with pytest.raises(RuntimeError, match="version 2 - version 1 required"):
        cuda.set_memory_manager(Version2)
    with pytest.raises(TypeError, match="needs a class"):
        cuda.set_memory_manager(CountingManager(context=None))

    class NoMemalloc(cuda.HostOnlyCUDAMemoryManager):
        interface_version = 1

    with pytest.raises(TypeError, match="abstract"):
        cuda.set_memory_manager(NoMemalloc)
    with pytest.raises(RuntimeError, match="requires a context"):
        CountingManager()


def test_a_failing_or_null_allocation_raises_and_cudajit_goes_on(backend):
    class Full(CountingManager):
        def memalloc(self, size):
            raise MemoryError(f"the pool has no {size} bytes")

    class Null(CountingManager):
        def memalloc(self, size):
            return cuda.MemoryPointer(self.context, 0, size)

    try:
        cuda.set_memory_manager(Full)
        with pytest.raises(MemoryError, match="the pool has no 800 bytes"):
            cuda.device_array(100)
        cuda.set_memory_manager(Null)
        with pytest.raises(MemoryError, match=r"Null.memalloc\(800\) returned .* device_pointer is null"):
            cuda.to_device(np.ones(100))
    finally:
        cuda.set_memory_manager(None)
    x = np.random.default_rng(4).random(100)
    np.testing.assert_array_equal(cuda.to_device(x).copy_to_host(), x)   # back to cudajit's own memory


def test_memory_pointer_numba_api(plugin):
    cuda.device_array(1)                    # the device's context current on this thread, as cudajit's calls make it
    mem = plugin.memalloc(256)
    assert mem.owner is mem and mem.own() is mem
    assert mem.device_ctypes_pointer.value == mem.device_pointer_value
    part = mem.view(64, 128)
    assert part.size == 64 and part.owner is mem
    assert part.device_pointer_value == mem.device_pointer_value + 64
    with pytest.raises(ValueError, match=r"view\(0, 512\) is outside this allocation of 256 bytes"):
        mem.view(0, 512)
    mem.memset(7)
    arr = cuda.from_cuda_array_interface({"shape": (256,), "typestr": "|u1", "data": (mem.device_pointer_value, False),
                                          "version": 3}, owner=mem)
    np.testing.assert_array_equal(arr.copy_to_host(), np.full(256, 7, np.uint8))
    del arr
    cuda.synchronize()
    address = mem.device_pointer_value
    mem.free()
    assert address in plugin.memory.freed
    with pytest.raises(RuntimeError, match="Freeing dead memory"):
        mem.free()


def test_numba_cuda_memory_manager_environment_variable(tmp_path):
    (tmp_path / "my_plugin.py").write_text(textwrap.dedent("""
        import numpy as np
        from cudajit import cuda

        class Plugin(cuda.HostOnlyCUDAMemoryManager):
            def initialize(self):
                self.sizes = []
                self.keep = {}
            def memalloc(self, size):
                raw = np.empty(size + 64, np.uint8)
                address = (raw.ctypes.data + 63) // 64 * 64
                self.keep[address] = raw
                self.sizes.append(size)
                return cuda.MemoryPointer(self.context, address, size,
                                          finalizer=lambda keep=self.keep: keep.pop(address))
            def get_memory_info(self):
                return cuda.MemoryInfo(1, 2)
            def get_ipc_handle(self, memory):
                raise NotImplementedError
            @property
            def interface_version(self):
                return 1

        _numba_memory_manager = Plugin
    """))
    program = textwrap.dedent("""
        import numpy as np
        from cudajit import cuda
        x = np.random.default_rng(5).random(1000)
        d = cuda.to_device(x)
        assert (d.copy_to_host() == x).all()
        print(type(cuda.current_context().memory_manager).__name__, cuda.current_context().memory_manager.sizes)
    """)
    env = dict(os.environ, NUMBA_CUDA_MEMORY_MANAGER="my_plugin", CUDAJIT_BACKEND="cpu",
               PYTHONPATH=os.pathsep.join([str(tmp_path), os.path.dirname(os.path.dirname(os.path.dirname(cuda.__file__)))]))
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["Plugin", "[8000]"]
    env["NUMBA_CUDA_MEMORY_MANAGER"] = "no_such_plugin_module"
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Failed to use memory manager from no_such_plugin_module" in done.stderr

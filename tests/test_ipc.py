"""CUDA IPC (numba.cuda's get_ipc_handle / open_ipc_array; cuda/ipc.py, src/ipc.cpp): device memory shared with
other processes. The GPU tests open handles in spawned processes, as numba-cuda's own tests do; the CPU backend has
no IPC and says so."""
import concurrent.futures
import multiprocessing as mp
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from cudajit import _backend, cuda
from cudajit.cuda.cudadrv.devicearray import IpcArrayHandle
from cudajit.cuda.cudadrv.driver import IpcHandle
from cudajit.errors import CudaSupportError

TIMEOUT = 120


# ---- what the spawned processes run (module level: spawn pickles them by name) ----
def _read_array(handle, parent_pid):
    assert os.getpid() != parent_pid
    with handle as darr:
        out = darr.copy_to_host()
        with pytest.raises(ValueError, match="IpcHandle is already opened"):
            with handle:
                pass
    return out


def _double_in_place(handle):
    @cuda.jit
    def double(a):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] *= 2

    with handle as darr:
        double[((darr.shape[0] + 15) // 16, (darr.shape[1] + 15) // 16), (16, 16)](darr)
        cuda.synchronize()
    return True


def _read_raw(raw, size, dtype, offset):
    with cuda.open_ipc_array(raw, shape=size // np.dtype(dtype).itemsize, dtype=dtype, offset=offset) as darr:
        return darr.copy_to_host()


def _read_handle(ipch, dtype):
    darr = ipch.open_array(cuda.current_context(), shape=ipch.size // np.dtype(dtype).itemsize, dtype=dtype)
    out = darr.copy_to_host()
    ipch.close()
    return out


def _read_staged(ipch, dtype):
    mem = ipch.open_staged(cuda.current_context())      # a copy, made through the memory's own device
    host = np.empty(ipch.size // np.dtype(dtype).itemsize, dtype)
    cuda.driver.device_to_host(host, mem, ipch.size)
    ipch.close()
    return host


def _export_and_exit(conn):
    d = cuda.to_device(np.arange(16, dtype=np.float32))
    conn.send(pickle.dumps(d.get_ipc_handle()))
    conn.close()


@pytest.fixture(scope="module")
def pool():
    exe = concurrent.futures.ProcessPoolExecutor(max_workers=2, mp_context=mp.get_context("spawn"))
    yield exe
    exe.shutdown()


class _Foreign:
    """Device memory seen only through __cuda_array_interface__ (another library's array)."""

    def __init__(self, darr):
        self._darr = darr
        self.__cuda_array_interface__ = darr.__cuda_array_interface__


# ---- the GPU ----
@pytest.mark.gpu
@pytest.mark.parametrize("index", [None, slice(3, None), slice(3, 8), slice(None, 8), slice(None, None, -2)])
@pytest.mark.parametrize("foreign", [False, True])
def test_array_handle_opens_in_another_process(pool, rng, index, foreign):
    with _backend.use("gpu"):
        host = rng.standard_normal(10)
        darr = cuda.to_device(host)
        if index is not None:
            darr = darr[index]
        if foreign:
            darr = cuda.as_cuda_array(_Foreign(darr))
        handle = darr.get_ipc_handle()
        assert isinstance(handle, IpcArrayHandle)
        out = pool.submit(_read_array, handle, os.getpid()).result(timeout=TIMEOUT)
        np.testing.assert_array_equal(out, host if index is None else host[index])


@pytest.mark.gpu
def test_memory_is_shared_not_copied(pool, rng):
    with _backend.use("gpu"):
        host = rng.standard_normal((64, 33)).astype(np.float32)
        darr = cuda.to_device(host)
        view = darr[5:40, 2:30]            # strided: only the bytes it spans are named
        assert pool.submit(_double_in_place, view.get_ipc_handle()).result(timeout=TIMEOUT)
        want = host.copy()
        want[5:40, 2:30] *= 2
        np.testing.assert_array_equal(darr.copy_to_host(), want)


@pytest.mark.gpu
def test_context_handle_raw_bytes_and_pickle(pool, rng):
    with _backend.use("gpu"):
        host = rng.integers(-2**40, 2**40, 1000)
        whole = cuda.to_device(host)
        darr = whole[100:]
        ipch = cuda.current_context().get_ipc_handle(darr.gpu_data)    # the view's bytes, as in numba-cuda
        assert isinstance(ipch, IpcHandle) and ipch.base is not None
        assert ipch.size == 900 * 8 and ipch.offset == 800
        again = pickle.loads(pickle.dumps(ipch))
        assert again.base is None and again.size == ipch.size and again.offset == ipch.offset
        assert again.handle.reserved == ipch.handle.reserved and again.source_info == ipch.source_info
        viewed = pool.submit(_read_handle, again, host.dtype).result(timeout=TIMEOUT)
        np.testing.assert_array_equal(viewed, host[100:])
        staged = pool.submit(_read_staged, again, host.dtype).result(timeout=TIMEOUT)
        np.testing.assert_array_equal(staged, host[100:])
        all_of_it = cuda.current_context().get_ipc_handle(whole.gpu_data)
        assert all_of_it.offset == 0 and all_of_it.handle.reserved == ipch.handle.reserved
        out = pool.submit(_read_handle, pickle.loads(pickle.dumps(all_of_it)), host.dtype).result(timeout=TIMEOUT)
        np.testing.assert_array_equal(out[:host.size], host)   # the allocation from its start
        raw = bytes(ipch.handle.reserved)
        part = pool.submit(_read_raw, raw, 900 * 8, host.dtype, 800).result(timeout=TIMEOUT)
        np.testing.assert_array_equal(part, host[100:])
        signed = tuple(b - 256 if b > 127 else b for b in raw)   # numba documents a tuple of ints too
        part = pool.submit(_read_raw, signed, 900 * 8, host.dtype, 800).result(timeout=TIMEOUT)
        np.testing.assert_array_equal(part, host[100:])


@pytest.mark.gpu
def test_context_handle_of_another_librarys_array(pool, rng):
    with _backend.use("gpu"):
        host = rng.standard_normal(40)
        darr = cuda.to_device(host)
        foreign = cuda.as_cuda_array(_Foreign(darr[8:]))      # gpu_data: the foreign object
        ipch = cuda.current_context().get_ipc_handle(foreign.gpu_data)
        assert ipch.size == 32 * 8
        out = pool.submit(_read_handle, pickle.loads(pickle.dumps(ipch)), host.dtype).result(timeout=TIMEOUT)
        np.testing.assert_array_equal(out, host[8:])


@pytest.mark.gpu
def test_open_in_the_exporting_process(rng):
    with _backend.use("gpu"):
        host = rng.standard_normal(50)
        darr = cuda.to_device(host)
        handle = darr[10:].get_ipc_handle()
        with pytest.raises(ValueError, match="opening IpcHandle from original process"):
            handle.open()
        same = pickle.loads(pickle.dumps(handle))   # unpickled here: the array's own memory, counted
        with same as view:
            np.testing.assert_array_equal(view.copy_to_host(), host[10:])
            view[0] = 99.0                         # a view of the very memory, not a copy
        assert darr.copy_to_host()[10] == 99.0
        with pytest.raises(ValueError, match="IpcHandle not opened"):
            same.close()


@pytest.mark.gpu
def test_exporter_gone_is_a_clear_error():
    with _backend.use("gpu"):
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        p = ctx.Process(target=_export_and_exit, args=(child,))
        p.start()
        handle = pickle.loads(parent.recv())
        p.join(TIMEOUT)
        with pytest.raises(RuntimeError, match=r"cannot reach the process that exported this handle \(pid \d+\)"):
            handle.open()


@pytest.mark.gpu
def test_malformed_handle_bytes():
    with _backend.use("gpu"):
        with pytest.raises(ValueError, match="neither a CUipcMemHandle"):
            with cuda.open_ipc_array(b"\x01" * 100, shape=4, dtype=np.float32):
                pass
        with pytest.raises(TypeError, match="IPC handle must be bytes"):
            with cuda.open_ipc_array(3.5, shape=4, dtype=np.float32):
                pass


@pytest.mark.gpu
def test_default_pool_cannot_export():
    # CUDAJIT_IPC_POOL=0: allocations come from CUDA's default pool, which cannot be shared; the error says so.
    code = textwrap.dedent("""
        import numpy as np
        from cudajit import cuda
        from cudajit.errors import CudaSupportError
        d = cuda.to_device(np.arange(8))
        try:
            d.get_ipc_handle()
        except CudaSupportError as e:
            print("REFUSED", e)
    """)
    env = dict(os.environ, CUDAJIT_IPC_POOL="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert "REFUSED" in out.stdout and "CUDAJIT_IPC_POOL=0" in out.stdout, out.stdout + out.stderr


@pytest.mark.gpu
def test_legacy_handles_of_another_library(pool, rng):
    cp = pytest.importorskip("cupy")
    with _backend.use("gpu"):
        host = rng.standard_normal(300).astype(np.float32)
        ptr = cp.cuda.runtime.malloc(host.nbytes)    # cudaMalloc memory: legacy IPC handles
        try:
            mem = cp.cuda.MemoryPointer(cp.cuda.UnownedMemory(ptr, host.nbytes, None), 0)
            x = cp.ndarray(host.shape, host.dtype, mem)
            x.set(host)
            raw = bytes(cp.cuda.runtime.ipcGetMemHandle(ptr))
            out = pool.submit(_read_raw, raw, host.nbytes, np.float32, 0).result(timeout=TIMEOUT)
            np.testing.assert_array_equal(out, host)
            handle = cuda.as_cuda_array(x[7:]).get_ipc_handle()     # cudajit's handle to CuPy's memory
            assert len(handle._ipc_handle.handle.reserved) == 64
            out = pool.submit(_read_array, handle, os.getpid()).result(timeout=TIMEOUT)
            np.testing.assert_array_equal(out, host[7:])
        finally:
            cp.cuda.runtime.free(ptr)


# ---- every machine ----
def test_handles_pickle_without_a_device():
    ipch = IpcHandle(None, bytes(range(64)), 80, {"pci_domain_id": 0, "pci_bus_id": 1, "pci_device_id": 0}, 16)
    again = pickle.loads(pickle.dumps(ipch))
    assert again.handle.reserved == bytes(range(64)) and again.size == 80 and again.offset == 16
    assert again.source_info == ipch.source_info and again.base is None
    arr = IpcArrayHandle(ipch, dict(shape=(10,), strides=(8,), dtype=np.dtype(np.float64)))
    arr2 = pickle.loads(pickle.dumps(arr))
    assert arr2._array_desc == arr._array_desc and arr2._ipc_handle.size == 80
    with pytest.raises(ValueError, match="IpcHandle not opened"):
        again.close()


def test_cpu_backend_has_no_ipc():
    with _backend.use("cpu"):
        darr = cuda.to_device(np.arange(4.0))
        with pytest.raises(CudaSupportError, match="CUDA IPC needs a GPU"):
            darr.get_ipc_handle()
        with pytest.raises(CudaSupportError, match="CUDA IPC needs a GPU"):
            cuda.current_context().get_ipc_handle(darr.gpu_data)
        with pytest.raises(CudaSupportError, match="CUDA IPC needs a GPU"):
            with cuda.open_ipc_array(bytes(64), shape=4, dtype=np.float64):
                pass


def test_devices_get_context(backend):
    # numba-cuda's tests open staged handles with cuda.devices.get_context()
    ctx = cuda.devices.get_context()
    assert ctx.device.id == cuda.get_current_device().id
    assert cuda.devices.get_context(0).device.id == 0
    # and copy with cuda.driver.device_to_host (numba.cuda.driver is numba.cuda.cudadrv.driver)
    from cudajit.cuda.cudadrv import driver
    assert cuda.driver is driver
    d = cuda.to_device(np.arange(6.0))
    host = np.zeros(6)
    cuda.driver.device_to_host(host, d, d.nbytes)
    np.testing.assert_array_equal(host, np.arange(6.0))

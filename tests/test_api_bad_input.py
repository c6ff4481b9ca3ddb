"""Bad input to the user API raises a clear Python exception naming what was wrong: never a crash, a pybind11
signature dump, a silent wrong result or a write through read-only or freed memory. Each test is one finding of the
API sweep (a fuzzer over every public entry point); the right input beside it still works, checked with NumPy."""
import numpy as np
import pytest

from cudajit import _backend, cuda
from cudajit.cuda.cudadrv import driver

DUMP = "incompatible function arguments|incompatible constructor arguments"


def _no_dump(excinfo):
    assert "incompatible" not in str(excinfo.value) and "Invoked with" not in str(excinfo.value)


# --- numba.cuda.cudadrv.driver: raw copies and memsets ----------------------------------------------------------

def test_raw_addresses_outside_memory_raise_on_the_cpu_backend(rng):
    # Under the CPU backend "device" memory is this process's: an int address that is not mapped (0, True as 1)
    # segfaulted the interpreter; out of [0, 2**64) it was a pybind11 dump.
    with _backend.use("cpu"):
        host = rng.standard_normal(16)
        d = cuda.to_device(host)
        for call in (lambda a: driver.host_to_device(a, host, 8), lambda a: driver.device_to_host(a, d, 8),
                     lambda a: driver.device_to_device(a, d, 8), lambda a: driver.device_to_device(d, a, 8),
                     lambda a: driver.device_memset(a, 0, 8)):
            with pytest.raises(ValueError, match="address 0x0 is not memory of this process"):
                call(0)
            with pytest.raises(TypeError, match="must be an int, not bool"):
                call(True)
            for bad in (-1, 2**70):
                with pytest.raises(ValueError, match=rf"pointer value in \[0, 2\*\*64\), not {bad}") as e:
                    call(bad)
                _no_dump(e)
        # a valid int address (a device array's) still copies
        out = np.zeros(16)
        driver.device_to_host(out.ctypes.data, d.device_ctypes_pointer.value, 128)
        np.testing.assert_array_equal(out, host)


def test_copies_stay_inside_negative_stride_views(backend, rng):
    # A view with negative strides starts below its data pointer: 128 bytes from t[::-1]'s pointer ran 120 bytes
    # past the end of the host buffer.
    host = rng.standard_normal(16)
    d = cuda.to_device(host)
    t = np.zeros(16)
    with pytest.raises(ValueError, match="size 128 is more than the 8 bytes of the destination"):
        driver.device_to_host(t[::-1], d, 128)
    with pytest.raises(ValueError, match="size 128 is more than the 8 bytes of the source"):
        driver.device_to_host(t, d[::-1], 128)
    start, end = driver.host_memory_extents(t[::-1])
    assert (start, end) == (t.ctypes.data, t.ctypes.data + 128)
    driver.device_to_host(t[::-1], d[::-1], 8)          # the one element each has from its pointer on
    assert t[15] == host[15] and not t[:15].any()


def test_read_only_destinations_are_refused(backend, rng):
    host = rng.standard_normal(16)
    d = cuda.to_device(host)
    ro = np.zeros(16)
    ro.flags.writeable = False
    with pytest.raises(TypeError, match="read-only array cannot be copied into"):
        driver.device_to_host(ro, d, 8)
    assert not ro.any()
    scalar = np.float64(2.5)
    with pytest.raises(TypeError, match="NumPy scalar cannot be copied into"):
        driver.device_to_host(scalar, d, 8)

    class ReadOnly:
        __cuda_array_interface__ = {"shape": (16,), "typestr": "<f8", "version": 3,
                                    "data": (d.device_ctypes_pointer.value, True)}
    view = cuda.as_cuda_array(ReadOnly())
    with pytest.raises(ValueError, match="device_memset: the destination is read-only"):
        driver.device_memset(view, 0, 8)
    with pytest.raises(ValueError, match="host_to_device: the destination is read-only"):
        driver.host_to_device(view, np.ones(16), 128)
    np.testing.assert_array_equal(d.copy_to_host(), host)


def test_memset_value_is_a_byte(backend):
    d = cuda.to_device(np.zeros(4))
    for bad in (2.5, None, "x", np.float64(1.0)):
        with pytest.raises(TypeError, match="device_memset: the value must be an int byte in \\[0, 255\\]") as e:
            driver.device_memset(d, bad, 8)
        _no_dump(e)
    for bad in (-1, 256, 2**70):
        with pytest.raises(ValueError, match=f"device_memset: the value must be a byte in \\[0, 255\\], not {bad}"):
            driver.device_memset(d, bad, 8)
    mem = cuda.current_context().memalloc(64)
    with pytest.raises(TypeError, match="memset: the value must be an int byte"):
        mem.memset(1.5)
    with pytest.raises(ValueError, match="memset: the value must be a byte in \\[0, 255\\], not 300"):
        mem.memset(300)
    driver.device_memset(d, 0x3F, 8)
    assert d.copy_to_host().view(np.uint8)[:9].tolist() == [0x3F] * 8 + [0]


def test_freed_memory_pointer_is_refused(backend):
    # After free() the bytes may belong to another allocation: a copy into them corrupted the heap.
    ctx = cuda.current_context()
    mem = ctx.memalloc(64)
    view = mem.view(8)
    mem.free()
    with pytest.raises(ValueError, match="memory was freed"):
        driver.device_memset(mem, 0, 64)
    with pytest.raises(ValueError, match="memory was freed"):
        driver.device_to_host(np.zeros(8), view, 8)
    with pytest.raises(ValueError, match="memset: this MemoryPointer's memory was freed"):
        mem.memset(0)
    with pytest.raises(ValueError, match="view: this MemoryPointer's memory was freed"):
        mem.view(0, 8)


def test_memory_pointer_view_takes_ints(backend):
    mem = cuda.current_context().memalloc(64)
    with pytest.raises(TypeError, match="view: start must be an int, not float"):
        mem.view(2.5)
    with pytest.raises(TypeError, match="view: stop must be an int, not str"):
        mem.view(0, "8")
    assert mem.view(8, 24).size == 16 and mem.view(8).device_pointer_value == mem.device_pointer_value + 8


def test_context_allocations_of_impossible_sizes(backend):
    ctx = cuda.current_context()
    for alloc in (ctx.memalloc, ctx.memhostalloc, ctx.memallocmanaged):
        with pytest.raises(ValueError, match="size 1180591620717411303424 is more bytes than any memory holds") as e:
            alloc(2**70)
        _no_dump(e)


def test_mempin_of_unmapped_memory_raises_on_the_cpu_backend(rng):
    with _backend.use("cpu"):
        host = rng.standard_normal(16)
        ctx = cuda.current_context()
        with pytest.raises(ValueError, match="mempin: pointer 0x0 with size 128: address 0x0 is not memory"):
            ctx.mempin(host, 0, 128)
        with pytest.raises(ValueError, match="mempin: .* is not memory of this process"):
            ctx.mempin(host, host.ctypes.data, 2**40)
        pin = ctx.mempin(host, host.ctypes.data, host.nbytes)
        out = np.zeros(16)
        driver.device_to_host(out, pin, host.nbytes)
        np.testing.assert_array_equal(out, host)


# --- DeviceNDArray's constructor (numba-cuda's) -----------------------------------------------------------------

def test_new_array_with_negative_strides_is_refused(backend, rng):
    # The data pointer is the allocation's start: strides (-8,) put three elements below it, and writing them
    # corrupted the heap on the CPU backend ("double free or corruption" at exit).
    with pytest.raises(ValueError, match=r"strides \(-8,\) reach 24 bytes below the first element"):
        cuda.device_array(4, strides=(-8,))
    with pytest.raises(ValueError, match=r"strides \(48, -8\) reach 40 bytes below"):
        cuda.DeviceNDArray((3, 6), (48, -8), np.float64)
    host = rng.standard_normal((3, 6))
    d = cuda.device_array((3, 6), strides=(8, 24))        # positive strides in any order still work
    d.copy_to_device(host)
    np.testing.assert_array_equal(d.copy_to_host(), host)


def test_gpu_data_must_hold_the_array(backend, rng):
    mem = cuda.current_context().memalloc(8)
    with pytest.raises(ValueError, match=r"spans bytes \[0, 8000\) from its first element, which gpu_data's 8 bytes"):
        cuda.DeviceNDArray((1000,), (8,), np.float64, gpu_data=mem)
    with pytest.raises(TypeError, match="gpu_data must be device memory with a .ptr .*not int"):
        cuda.DeviceNDArray((1,), (8,), np.float64, gpu_data=0)
    mem = cuda.current_context().memalloc(64)
    host = rng.standard_normal(8)
    d = cuda.DeviceNDArray((8,), (8,), np.float64, gpu_data=mem)
    d.copy_to_device(host)
    np.testing.assert_array_equal(d.copy_to_host(), host)


# --- kernels ----------------------------------------------------------------------------------------------------
import inspect  # noqa: E402
import os  # noqa: E402

from cudajit.errors import TypingError, UnsupportedError  # noqa: E402

HERE = os.path.basename(__file__)


def _line(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


def _where(fn, text):
    """The ``file:line`` (compile errors) and ``file <path>, line N`` (run-time errors) of ``text`` in ``fn``."""
    return rf"{HERE}:{_line(fn, text)}:", rf"file .*{HERE}, line {_line(fn, text)},"


def tuple_at(t, i, out):
    out[0] = t[i[0]]


def test_tuple_index_out_of_range_is_checked_with_bounds_checks(backend, rng):
    # Unchecked, a run-time index past a tuple read whatever followed it (a CPU thread's stack): a kernel given
    # (1, 2, 3, 4) where it indexes an array returned garbage. Bounds checks (the CPU default) now cover it.
    k = cuda.jit(boundscheck=True)(tuple_at)
    vals = tuple(float(v) for v in rng.standard_normal(3))
    out = cuda.device_array(1)
    for i in (0, 2, -1):
        k[1, 1](vals, np.array([i]), out)
        assert out.copy_to_host()[0] == vals[i]
    _, runtime = _where(tuple_at, "out[0] = t[i[0]]")
    with pytest.raises(IndexError, match=runtime + r".*tuple index out of range \(index 3, length 3\)"):
        k[1, 1](vals, np.array([3]), out)
    with pytest.raises(IndexError, match=r"tuple index out of range \(index -4, length 3\)"):
        k[1, 1](vals, np.array([-4]), out)


def matmul_operator(a):
    a[0] = a @ a


def matmul_augmented(a):
    x = a[0]
    x @= a[1]
    a[0] = x


def test_matmul_operator_is_unsupported_with_its_line(backend):
    # `a @ b` was a KeyError: 'MatMult' from the compiler's operator table, with no file or line.
    for fn, text in ((matmul_operator, "a[0] = a @ a"), (matmul_augmented, "x @= a[1]")):
        where, _ = _where(fn, text)
        with pytest.raises(UnsupportedError, match=where + " the @ operator is not supported in CUDA kernels"):
            cuda.jit(fn)[1, 1](np.zeros(4))


def huge_shared(a):
    s = cuda.shared.array(2**40, np.float32)
    a[0] = s[0]


def big_shared(a):
    s = cuda.shared.array((97, 64), np.float64)
    a[0] = s[0, 0]


def fits_shared(a):
    s = cuda.shared.array((96, 64), np.float64)        # 49152 bytes: the limit itself
    s[cuda.threadIdx.x, 63] = a[cuda.threadIdx.x]
    cuda.syncthreads()
    a[cuda.threadIdx.x] = 2 * s[cuda.threadIdx.x, 63]


def test_static_shared_array_over_48_kib_is_a_typing_error(backend, rng):
    # 2**40 float32 failed the CPU backend's link (a host compiler log, no line); over 48 KiB fails ptxas.
    where, _ = _where(huge_shared, "cuda.shared.array(2**40")
    with pytest.raises(TypingError, match=where + r" shared array 's' of shape \(1099511627776,\) and dtype float32 "
                                                  r"takes 4398046511104 bytes, more than CUDA's limit of 49152"):
        cuda.jit(huge_shared)[1, 1](np.zeros(4))
    where, _ = _where(big_shared, "cuda.shared.array((97, 64)")
    with pytest.raises(TypingError, match=where + r" shared array 's' of shape \(97, 64\) and dtype float64 takes "
                                                  r"49664 bytes[\s\S]*hint: use dynamic shared memory"):
        cuda.jit(big_shared)[1, 1](np.zeros(4))
    host = rng.standard_normal(32)
    d = cuda.to_device(host)
    cuda.jit(fits_shared)[1, 32](d)
    np.testing.assert_array_equal(d.copy_to_host(), 2 * host)


def launches_a_kernel(a):
    kernel_in_kernel[1, 1](a)


@cuda.jit
def kernel_in_kernel(a):
    a[0] = 1


def test_launching_a_kernel_from_a_kernel_says_so(backend):
    # was "subscripting 'devfunc' is not supported" (an internal name)
    where, _ = _where(launches_a_kernel, "kernel_in_kernel[1, 1](a)")
    with pytest.raises(UnsupportedError, match=where + " launching kernel 'kernel_in_kernel' from a kernel "
                                                       r"\(dynamic parallelism\) is not supported"):
        cuda.jit(launches_a_kernel)[1, 1](np.zeros(4))


def range_step(a, step):
    for i in range(0, 4, step):
        a[i] += 1


def test_range_step_zero_raises_value_error_under_debug(backend):
    # Python's range() and numba-cuda's debug kernels raise; the loop silently ran no iteration.
    k = cuda.jit(debug=True)(range_step)
    _, runtime = _where(range_step, "for i in range(0, 4, step)")
    d = cuda.to_device(np.zeros(4))
    with pytest.raises(ValueError, match=runtime + r".*range\(\) arg 3 must not be zero"):
        k[1, 1](d, 0)
    k[1, 1](d, 2)
    k[1, 1](d, -1)          # range(0, 4, -1) is empty
    np.testing.assert_array_equal(d.copy_to_host(), [1, 0, 1, 0])
    cuda.jit(range_step)[1, 1](d, 0)          # without debug: no iteration, as numba-cuda's thread that stops
    np.testing.assert_array_equal(d.copy_to_host(), [1, 0, 1, 0])


def stores_a_string(a):
    a[0] = 'x'


def range_of_string(a):
    for i in range('x'):
        a[0] = i


def test_string_constants_are_named_str_in_messages(backend):
    # was "cannot convert none to float64" (strings are kept as constants typed none)
    where, _ = _where(stores_a_string, "a[0] = 'x'")
    with pytest.raises(TypingError, match=where + " cannot convert str 'x' to float64"):
        cuda.jit(stores_a_string)[1, 1](np.zeros(4))
    where, _ = _where(range_of_string, "for i in range('x')")
    with pytest.raises(TypingError, match=where + " range\\(\\) takes integers, not str 'x'"):
        cuda.jit(range_of_string)[1, 1](np.zeros(4))


def star_params(*a):
    a[0][0] = 1


def star_kwargs(a, **kw):
    a[0] = 1


async def async_kernel(a):
    a[0] = 1


def test_star_params_and_async_def_are_refused_at_the_def(backend):
    # *args: "kernel takes 0 arguments, 1 given"; **kw: "takes 2 arguments (a, kw)"; async def: compiled as a def.
    for fn, text, what in ((star_params, "def star_params", r"\*args, \*\*kwargs, keyword-only"),
                           (star_kwargs, "def star_kwargs", r"\*args, \*\*kwargs, keyword-only"),
                           (async_kernel, "async def async_kernel", "async functions are not supported")):
        where, _ = _where(fn, text)
        with pytest.raises(UnsupportedError, match=where + " " + what):
            cuda.jit(fn)[1, 1](np.zeros(4))

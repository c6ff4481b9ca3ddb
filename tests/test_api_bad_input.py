"""Bad input to the user API raises a clear Python exception naming what was wrong: never a crash, a pybind11
signature dump, a silent wrong result or a write through read-only or freed memory. Each test is one finding of the
API sweep (a fuzzer over every public entry point); the right input beside it still works, checked with NumPy."""
import functools
import re

import numpy as np
import pytest

from cudajit import _backend, cuda
from cudajit.cuda.cudadrv import driver
from cudajit.errors import TypingError

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


# --- cuda.jit, cuda.compile, declare_device, cuda.reduce: what they are given -----------------------------------


def _add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


def test_jit_and_compile_take_python_functions(backend, rng):
    # A builtin, a class, a partial or an int was "AttributeError: ... has no attribute '__code__'" at launch.
    class NotAFunction:
        pass
    for bad, what in ((len, "builtin_function_or_method"), (NotAFunction, "class NotAFunction"),
                      (functools.partial(_add, 1), "functools.partial|partial"), (5, "int 5")):
        if callable(bad):          # cuda.jit(5) takes 5 as a signature (a TypingError once it decorates)
            with pytest.raises(TypeError, match=f"cuda.jit compiles a Python function \\(a def or a lambda\\), "
                                                f"not ({what})"):
                cuda.jit(bad)
        with pytest.raises(TypeError, match=f"cuda.jit compiles a Python function .*not ({what})"):
            cuda.jit("void(float64[:], float64[:], float64[:])")(bad)
        with pytest.raises(TypeError, match=f"cuda.compile compiles a Python function .*not ({what})"):
            cuda.compile_ptx(bad, "void(float64[:])")
    host = rng.standard_normal(16)
    out = cuda.device_array(16)
    cuda.jit(_add)[1, 16](host, host, out)
    np.testing.assert_array_equal(out.copy_to_host(), 2 * host)


def test_jit_options_out_of_range(backend):
    # launch_bounds=2**70 was a pybind11 dump from the core's Kernel constructor at the first launch
    with pytest.raises(ValueError, match=r"cuda.jit\(launch_bounds=...\) must be a positive int of at most "
                                         r"2\*\*31 - 1, not 1180591620717411303424") as e:
        cuda.jit(launch_bounds=2**70)(_add)
    _no_dump(e)
    with pytest.raises(ValueError, match=r"cuda.jit\(max_registers=...\) must be a positive int of at most 2\*\*31"):
        cuda.jit(max_registers=2**40)(_add)
    with pytest.raises(TypeError, match=r"cuda.jit\(launch_bounds=...\) must be a positive int, not array"):
        cuda.jit(launch_bounds=np.zeros(3))(_add)
    with pytest.raises(TypeError, match=r"cuda.jit\(lto=...\) must be True, False or None, not 'abc'"):
        cuda.jit(lto="abc")(_add)
    with pytest.raises(TypeError, match=r"cuda.jit\(link=...\) must be a list of file paths .*not float"):
        cuda.jit(link=2.5)(_add)
    with pytest.raises(TypeError, match=r"cuda.jit\(link=...\): 1 is not a file path or a code object"):
        cuda.jit(link=[1])(_add)


def _twice(x):
    return 2 * x


def _twice_kernel(a):
    a[0] = 2 * a[0]


def test_compile_ptx_validates_what_it_writes_into_the_source():
    # launch_bounds='abc' reached the generated C++ as __launch_bounds__(a, b) (an NVRTC error about 'a'); an
    # abi_name is the PTX symbol
    with pytest.raises(TypeError, match=r"cuda.compile\(launch_bounds=...\) must be an int or a tuple of 1 to 3 ints, "
                                        r"not 'abc'"):
        cuda.compile_ptx(_twice_kernel, "void(float64[:])", launch_bounds="abc")
    with pytest.raises(TypeError, match=r"cuda.compile\(abi_info=...\) must be a dict"):
        cuda.compile_ptx(_twice, "float64(float64)", device=True, abi="c", abi_info=5)
    with pytest.raises(ValueError, match=r"abi_info\['abi_name'\] must be a C identifier, not 'f\(\); int x'"):
        cuda.compile_ptx(_twice, "float64(float64)", device=True, abi="c", abi_info={"abi_name": "f(); int x"})
    with pytest.raises(NotImplementedError, match=r"cuda.compile\(abi=array"):
        cuda.compile(_twice, "float64(float64)", abi=np.zeros(2))
    ptx, ret = cuda.compile_ptx(_twice, "float64(float64)", device=True, abi="c", abi_info={"abi_name": "twice_c"})
    assert ".func  (.param .b64 func_retval0) twice_c(" in ptx or "twice_c" in ptx
    assert str(ret) == "float64"


def test_declare_device_name_is_a_c_identifier():
    # any object became the symbol written into the generated C++ ('not a name', 5, None ...)
    for bad in (5, None, b"f"):
        with pytest.raises(TypeError, match="declare_device: the name must be a str"):
            cuda.declare_device(bad, "float32(float32)")
    for bad in ("not a name", "", "f(); x"):
        with pytest.raises(ValueError, match=re.escape(f"declare_device: the name {bad!r} is not a C identifier")):
            cuda.declare_device(bad, "float32(float32)")
    with pytest.raises(TypeError, match=r"declare_device\('f'\) must be a list of file paths .*not ndarray"):
        cuda.declare_device("f", "float32(float32)", link=np.zeros(2))
    with pytest.raises(NotImplementedError, match=r"unsupported ABI array"):
        cuda.declare_device("f", "float32(float32)", abi=np.zeros(2))
    assert cuda.declare_device("scale_c", "float32(float32)").name == "scale_c"


def test_reduce_functor_and_init(backend, rng):
    with pytest.raises(TypeError, match=r"cuda.reduce compiles a Python function .*not int 5"):
        cuda.reduce(5)
    add = cuda.reduce(lambda a, b: a + b)
    host = rng.standard_normal(300)
    with pytest.raises(ValueError, match=r"reduce: init 'x' cannot be converted to the array's dtype float64"):
        add(host, init="x")
    with pytest.raises(TypeError, match=r"reduce: init must be a scalar, not tuple \(1, 2\)"):
        add(host, init=(1, 2))

    class ReadOnly:
        __cuda_array_interface__ = {"shape": (1,), "typestr": "<f8", "version": 3,
                                    "data": (cuda.device_array(1).device_ctypes_pointer.value, True)}
    with pytest.raises(ValueError, match="reduce: res: this device array is read-only"):
        add(host, res=cuda.as_cuda_array(ReadOnly()))
    np.testing.assert_allclose(add(host, init=1.5), host.sum() + 1.5, rtol=1e-12)


# --- DLPack -------------------------------------------------------------------------------------------------------

def test_dlpack_export_arguments_are_checked(backend, rng):
    # stream='abc', max_version='abc', dl_device of another device, copy='abc': all exported silently
    host = rng.standard_normal(8)
    d = cuda.to_device(host)
    with pytest.raises(TypeError, match="__dlpack__: stream must be an int or None, not str"):
        d.__dlpack__(stream="abc")
    with pytest.raises(TypeError, match=r"__dlpack__: max_version must be None or a \(major, minor\) tuple"):
        d.__dlpack__(max_version="abc")
    with pytest.raises(TypeError, match=r"__dlpack__: dl_device must be a \(device type, device id\) tuple"):
        d.__dlpack__(dl_device="abc")
    other = (2, 0) if d.__dlpack_device__()[0] == 1 else (1, 0)
    with pytest.raises(BufferError, match=rf"__dlpack__: cannot export to device \({other[0]}, 0\)"):
        d.__dlpack__(dl_device=other)
    with pytest.raises(TypeError, match="__dlpack__: copy must be True, False or None, not 'abc'"):
        d.__dlpack__(copy="abc")
    back = cuda.from_dlpack(d.__dlpack__(max_version=(1, 0), dl_device=d.__dlpack_device__(), copy=False))
    np.testing.assert_array_equal(back.copy_to_host(), host)


def test_dlpack_read_only_both_ways(backend, rng):
    # A read-only NumPy array came back writable through cuda.from_dlpack (its versioned capsule's read-only flag
    # was ignored) and a read-only CAI array went out writable through __dlpack__.
    host = rng.standard_normal(8)
    frozen = host.copy()
    frozen.flags.writeable = False
    if backend == "cpu":           # NumPy arrays are host memory: the GPU backend refuses them as DLPack input
        view = cuda.from_dlpack(frozen)
        with pytest.raises(ValueError, match="setitem: this device array is read-only"):
            view[0] = 1.0
        np.testing.assert_array_equal(frozen, host)
        np.testing.assert_array_equal(view.copy_to_host(), host)
        writable = cuda.from_dlpack(host)
        writable[0] = 5.0
        assert host[0] == 5.0
    d = cuda.to_device(host)

    class ReadOnly:
        __cuda_array_interface__ = {"shape": (8,), "typestr": "<f8", "version": 3,
                                    "data": (d.device_ctypes_pointer.value, True)}
    ro = cuda.as_cuda_array(ReadOnly())
    with pytest.raises(BufferError, match="__dlpack__: cannot export a read-only array"):
        ro.__dlpack__()


# --- cuda.random ----------------------------------------------------------------------------------------------------

def test_random_seed_and_subsequence_are_uint64(backend):
    # subsequence_start=-1 or 2**70 was a pybind11 dump; a negative or too large seed wrapped silently. numba-cuda
    # converts both with uint64(), which raises OverflowError on NumPy 2.
    from cudajit.cuda.random import create_xoroshiro128p_states
    for kw, bad in (("seed", -1), ("seed", 2**64), ("subsequence_start", -1), ("subsequence_start", 2**70)):
        args = {"seed": 1, **{kw: bad}}
        with pytest.raises(OverflowError, match=rf"init_xoroshiro128p_states: {kw} {bad} is out of range") as e:
            create_xoroshiro128p_states(4, **args)
        _no_dump(e)
    with pytest.raises(TypeError, match=r"seed must be an integer in \[0, 2\*\*64\), not \(1, 2\)"):
        create_xoroshiro128p_states(4, seed=(1, 2))
    a = create_xoroshiro128p_states(4, seed=2**64 - 1).copy_to_host()
    b = create_xoroshiro128p_states(4, seed=2.9).copy_to_host()            # NumPy's uint64(2.9) is 2, as numba-cuda
    assert (b == create_xoroshiro128p_states(4, seed=2).copy_to_host()).all() and not (a == b).any()


def test_random_subsequence_start_near_2_pow_64_is_fast():
    # 2**64 - 1 jumps ran in a loop without the GIL: a hang even Ctrl-C could not stop. The jump is linear, so the
    # core now raises its matrix to the power; the states must equal the jumps done one by one.
    import time
    from cudajit import _core
    from cudajit.cuda.random import init_xoroshiro128p_states_cpu, xoroshiro128p_dtype
    for k in (300, 1000):
        by_power = np.empty(2, xoroshiro128p_dtype)
        init_xoroshiro128p_states_cpu(by_power, 42, k)
        one_by_one = np.empty(1, xoroshiro128p_dtype)
        init_xoroshiro128p_states_cpu(one_by_one, 42, 0)
        for _ in range(k):
            _core.xoroshiro128p_jump(one_by_one, 0)
        assert by_power[0] == one_by_one[0]
    start = time.perf_counter()
    far = np.empty(2, xoroshiro128p_dtype)
    init_xoroshiro128p_states_cpu(far, 7, 2**63)
    farther = np.empty(1, xoroshiro128p_dtype)
    init_xoroshiro128p_states_cpu(farther, 7, 2**63 + 5)
    assert time.perf_counter() - start < 5
    for _ in range(5):
        _core.xoroshiro128p_jump(far, 0)
    assert far[0] == farther[0]
    near_end = np.empty(2, xoroshiro128p_dtype)
    init_xoroshiro128p_states_cpu(near_end, 7, 2**64 - 1)
    assert near_end[0] != near_end[1]


# --- device arrays: keys, streams, devices, mapped read-only arrays --------------------------------------------

def test_setitem_with_numpy_keys(backend, rng):
    # d[np.float64(2.0)] = 1 raised NumPy's "truth value of an empty array is ambiguous"; d[np.zeros(3)] = 1
    # "operands could not be broadcast" (the key was compared with ())
    host = rng.standard_normal(16)
    d = cuda.to_device(host)
    for key in (np.float64(2.0), np.zeros(3)):
        with pytest.raises(TypeError, match=f"device arrays support basic indexing only .*not {type(key).__name__}"):
            d[key] = 1.0
    d[np.int64(3)] = 7.0
    d[()] = d.copy_to_host()           # the whole array, as NumPy's a[()] = ...
    host[3] = 7.0
    np.testing.assert_array_equal(d.copy_to_host(), host)


def test_stream_arguments_of_array_methods_are_checked(backend, rng):
    # setitem(stream=...), ravel(stream=...), split(stream=...) and cuda.mapped(stream=...) ignored the stream
    host = rng.standard_normal(16)
    d = cuda.to_device(host)
    x = np.zeros(4)
    for call in (lambda: d.setitem(1, 2.0, stream="abc"), lambda: d.ravel(stream="abc"),
                 lambda: d.split(4, stream="abc"), lambda: cuda.mapped(x, stream="abc").__enter__()):
        with pytest.raises(TypeError, match="cannot use str as a CUDA stream"):
            call()
    with pytest.raises(TypeError, match="cannot use ndarray as a CUDA stream"):
        d.setitem(1, 2.0, stream=np.zeros(2))
    s = cuda.stream()
    d.setitem(1, 2.0, stream=s)
    s.synchronize()
    parts = d.split(4, stream=s)
    assert all(p.stream is s for p in parts) and d.ravel(stream=s).stream is s
    host[1] = 2.0
    np.testing.assert_array_equal(np.concatenate([p.copy_to_host() for p in parts]), host)


def test_slice_with_a_huge_step(backend, rng):
    # d[::2**62] (one element, as NumPy gives) raised "strides[0] = ... does not fit in int64"
    host = rng.standard_normal(16)
    d = cuda.to_device(host)
    for key in (slice(None, None, 2**62), slice(None, None, 2**70), slice(15, None, -2**62)):
        np.testing.assert_array_equal(d[key].copy_to_host(), host[key])


def test_device_indices_are_checked(backend):
    n = len(cuda.gpus)
    with pytest.raises(IndexError, match=rf"cuda.gpus\[{n}\]: there is no device {n}"):
        cuda.gpus[n]
    for bad in (2.5, "a", True):
        with pytest.raises(TypeError, match=f"cuda.gpus: a device is indexed by an int, not {type(bad).__name__}"):
            cuda.gpus[bad]
    from cudajit.errors import CudaSupportError
    with pytest.raises(CudaSupportError, match=f"device {n} does not exist"):
        driver.Device(n)
    with pytest.raises(TypeError, match="Device: devnum must be an int, not str 'abc'"):
        driver.Device("abc")                   # the CPU backend named a device 'abc'
    assert cuda.gpus[-1].id == n - 1 and driver.Device(0).id == 0


@cuda.jit
def _write_first(a, v):
    a[0] = v


@cuda.jit
def _copy_first(src, dst):
    dst[0] = src[0]


def test_mapped_read_only_array_stays_read_only(backend, rng):
    # a kernel wrote through cuda.mapped(x) into a non-writeable x (numba-cuda asks for a writable buffer)
    x = rng.standard_normal(4)
    keep = x.copy()
    x.flags.writeable = False
    with cuda.mapped(x) as m:
        with pytest.raises(TypingError, match="cannot write to read-only array 'a'"):
            _write_first[1, 1](m, 1.0)
        out = cuda.device_array(1)
        _copy_first[1, 1](m, out)
        assert out.copy_to_host()[0] == keep[0]
    np.testing.assert_array_equal(x, keep)
    y = np.zeros(4)
    with cuda.mapped(y) as m:
        _write_first[1, 1](m, 2.5)
        cuda.synchronize()
    assert y[0] == 2.5


# --- cuda.vectorize / cuda.guvectorize ------------------------------------------------------------------------------

def test_vectorize_signatures_and_out(backend, rng):
    # vectorize(5): "'int' object is not iterable"; out=5: "'int' object has no attribute 'shape'"; a device out of
    # another dtype was cast silently, one of another size a reshape error
    with pytest.raises(TypeError, match="cuda.vectorize takes a signature such as 'float32\\(float32\\)' or a list of "
                                        "them, not int 5"):
        cuda.vectorize(5)
    f = cuda.vectorize(["float64(float64)"])(lambda x: x + 1.5)
    host = rng.standard_normal(16)
    with pytest.raises(TypeError, match=r"<lambda>\(\): out must be a device or NumPy array, not int"):
        f(host, out=5)
    for bad in (cuda.device_array(16, np.int32), cuda.device_array(3)):
        with pytest.raises(ValueError, match=re.escape(f"out must have shape (16,) and dtype float64, not "
                                                      f"{bad.shape} and {bad.dtype}")):
            f(host, out=bad)
    out = cuda.device_array(16)
    f(host, out=out)
    np.testing.assert_array_equal(out.copy_to_host(), host + 1.5)


def test_guvectorize_layout_and_outputs(backend, rng):
    with pytest.raises(TypeError, match="cuda.guvectorize: the layout must be a str such as .*not int 5"):
        cuda.guvectorize(["void(float64[:], float64[:])"], 5)

    @cuda.guvectorize(["void(float64[:], float64[:])"], "(n)->(n)")
    def shift(a, o):
        for i in range(a.shape[0]):
            o[i] = a[i] + 0.5
    host = rng.standard_normal(4)
    with pytest.raises(TypeError, match=r"shift\(\): an output must be a device or NumPy array, not str"):
        shift(host, out="abc")
    with pytest.raises(ValueError, match=r"shift\(\): output dtype int32 should be float64"):
        shift(host, out=cuda.device_array(4, np.int32))
    out = cuda.device_array(4)
    shift(host, out=out)
    np.testing.assert_array_equal(out.copy_to_host(), host + 0.5)


def test_small_argument_checks(backend, rng):
    # each was a bare Python error naming nothing: "'int' object is not iterable", "invalid literal for int()"
    host = rng.standard_normal((2, 3))
    d = cuda.to_device(host)
    with pytest.raises(TypeError, match="transpose: axes must be a tuple of ints, not int 5"):
        d.transpose(5)
    with pytest.raises(ValueError, match=r"invalid axes \(1, 'a'\) for an array of 2 dimensions"):
        d.transpose((1, "a"))
    np.testing.assert_array_equal(d.transpose([1, 0]).copy_to_host(), host.T)
    k = cuda.jit("void(float64[:], float64)")(lambda a, s: None)
    with pytest.raises(TypeError, match="kernel '<lambda>': a signature is a str, a Signature or a tuple of argument "
                                        "types, not int 5"):
        k.inspect_asm(5)
    assert "void(array(float64, 1d, A), float64)" in str(k.signatures) or len(k.inspect_source()) == 1
    with pytest.raises(TypeError, match="an IPC handle must be bytes or a sequence of byte values, not str"):
        with cuda.open_ipc_array("abc", 4, np.float64):
            pass


@cuda.jit
def _scale_all(a, s):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= s


def test_forall_names_its_tasks(backend, rng):
    # forall(2**70) said "griddim.x = 4611686018427387904 exceeds CUDA's limit", a launch dimension the caller
    # never gave; the block count is an exact integer ceiling
    with pytest.raises(ValueError, match="Can.t create ForAll with negative task count: ntasks is -3"):   # numba-cuda's
        _scale_all.forall(-3)
    with pytest.raises(OverflowError, match="forall: 1180591620717411303424 tasks need 4611686018427387904 blocks "
                                            "of 256 threads"):
        _scale_all.forall(2**70, tpb=256)(np.zeros(4), 2.0)
    host = rng.standard_normal(1000)
    d = cuda.to_device(host)
    _scale_all.forall(1000, tpb=256)(d, 2.0)
    np.testing.assert_array_equal(d.copy_to_host(), 2 * host)


def test_more_small_argument_checks(backend):
    # each was an AttributeError or "'int' object is not iterable" naming nothing
    from cudajit.cuda.random import init_xoroshiro128p_states
    with pytest.raises(TypeError, match="init_xoroshiro128p_states: states must be a 1-d device array of "
                                        ".*xoroshiro128p_dtype, not int"):
        init_xoroshiro128p_states(0, 1)
    with pytest.raises(TypeError, match="RawModule: options must be a sequence of str flags, not 5"):
        cuda.RawKernel('extern "C" __global__ void k(double* a) { a[0] = 1; }', "k", options=5)
    with pytest.raises(TypeError, match=r"Context: device must be a Device \(cuda.gpus\[i\]\), not int 0"):
        driver.Context(0)
    assert driver.Context(cuda.gpus[0]).device is cuda.gpus[0]

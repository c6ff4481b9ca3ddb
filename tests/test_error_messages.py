"""Bad input to cudajit.cuda's public API raises a Python exception naming the argument and value:
no pybind11 signature dumps, no ``Unable to cast``, no silent nonsense."""
import os
import traceback

import numpy as np
import pytest

import cudajit
from cudajit import cuda
from cudajit.errors import LaunchError, TypingError

_PACKAGE = os.path.dirname(cudajit.__file__) + os.sep
_PYBIND_LEAKS = ("incompatible function arguments", "incompatible constructor arguments", "Unable to cast",
                 "C++ type", "SystemError")


def _raises(error, call, *words):
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    for leak in _PYBIND_LEAKS:
        assert leak not in message
    for w in words:
        assert w in message, f"{w!r} not in {message!r}"
    return info.value


@cuda.jit
def copy_kernel(src, dst, n):
    i = cuda.grid(1)
    if i < n:
        dst[i] = src[i]


@pytest.mark.parametrize("grid, block, shmem, error, words", [
    (2 ** 64, 32, 0, OverflowError, ["griddim.x", str(2 ** 64), "2147483647"]),
    ((1, 2 ** 20), 32, 0, OverflowError, ["griddim.y", "65535"]),
    (1, 2 ** 40, 0, OverflowError, ["blockdim.x", "1024"]),
    (1, (1, 1, 65), 0, OverflowError, ["blockdim.z", "64"]),
    (1.5, 32, 0, TypeError, ["griddim", "float"]),
    (1, (32, 2.0), 0, TypeError, ["blockdim.y", "float"]),
    ("4", 32, 0, TypeError, ["griddim", "str"]),
    (0, 32, 0, LaunchError, ["griddim.x", "positive", "0"]),
    (-3, 32, 0, LaunchError, ["griddim.x", "-3"]),
    (-2 ** 70, 32, 0, LaunchError, ["griddim.x", "negative"]),
    ((1, 1, 1, 1), 32, 0, LaunchError, ["griddim", "1, 2 or 3", "[1, 1, 1, 1]", "4 dimensions"]),
    ((), 32, 0, LaunchError, ["griddim", "1, 2 or 3", "[]", "0 dimensions"]),
    (1, 32, "x", TypeError, ["sharedmem", "str"]),
    (1, 32, -1, LaunchError, ["sharedmem", "-1"]),
    (1, 32, 2 ** 70, OverflowError, ["sharedmem", str(2 ** 70)]),
])
def test_launch_numbers(backend, grid, block, shmem, error, words):
    a = cuda.to_device(np.arange(4.0))
    _raises(error, lambda: copy_kernel[grid, block, 0, shmem](a, a, 4), *words)


@pytest.mark.parametrize("stream, error, words", [
    ("s", TypeError, ["stream", "str"]),
    (-1, ValueError, ["stream handle -1"]),
    (2 ** 64, ValueError, ["stream handle", str(2 ** 64)]),
])
def test_launch_streams(backend, stream, error, words):
    a = cuda.to_device(np.arange(4.0))
    _raises(error, lambda: copy_kernel[1, 4, stream](a, a, 4), *words)


@pytest.mark.parametrize("bad, error, words", [
    ([1.0, 2.0], TypeError, ["argument 0 (src)", "list", "np.asarray(x)"]),
    ("abc", TypeError, ["argument 0 (src)", "str", "strings"]),
    (None, TypeError, ["argument 0 (src)", "NoneType", "None"]),
    ({"a": 1}, TypeError, ["argument 0 (src)", "dict"]),
    (np.array([object()]), TypeError, ["argument 0 (src)", "dtype object"]),
    (np.zeros(2, np.longdouble), TypeError, ["argument 0 (src)", "float128", "long double"]),
    (np.zeros(2, [("a", "f8"), ("b", "O")]), TypeError, ["argument 0 (src)", "structured/record"]),  # an object field
    (cuda.In("abc"), TypeError, ["argument 0 (src)", "str", "strings"]),
])
def test_kernel_arguments_name_the_parameter(backend, bad, error, words):
    out = cuda.device_array(2)
    e = _raises(error, lambda: copy_kernel[1, 2](bad, out, 2), "kernel 'copy_kernel'", *words)
    assert isinstance(e, error)


def test_tuple_elements_are_named(backend):
    @cuda.jit
    def first(t, out):
        out[0] = t[0]

    out = cuda.device_array(1)
    _raises(TypeError, lambda: first[1, 1]((1.0, "x"), out), "argument 0 (t), element 1", "str")


def test_scalar_arguments_out_of_range(backend, rng):
    @cuda.jit("void(float64[:], int32)")
    def put(out, v):
        out[0] = v

    out = cuda.device_array(1)
    value = int(rng.integers(2 ** 31, 2 ** 40))
    _raises(OverflowError, lambda: put[1, 1](out, value), "kernel 'put'", "argument 1 (v)", str(value), "int32")
    put[1, 1](out, 2 ** 31 - 1)        # the limit itself fits
    assert out.copy_to_host()[0] == 2 ** 31 - 1


def test_python_ints_beyond_64_bits_name_the_parameter(backend):
    @cuda.jit
    def put_sum(out, t, v):
        out[0] = t[0] + t[1] + v

    out = cuda.device_array(1, np.float64)
    put_sum[1, 1](out, (1, 2), 3)          # compiles for (int64, int64), int64
    _raises(OverflowError, lambda: put_sum[1, 1](out, (1, 2), -2 ** 64), "argument 2 (v)", str(-2 ** 64))
    _raises(OverflowError, lambda: put_sum[1, 1](out, (1, 2 ** 70), 3), "argument 1 (t), element 1", str(2 ** 70))
    assert out.copy_to_host()[0] == 6


def test_unsupported_numpy_scalars_are_named(backend):
    @cuda.jit
    def put(out, v):
        out[0] = v

    out = cuda.device_array(1)
    _raises(TypeError, lambda: put[1, 1](out, np.longdouble(2)), "argument 1 (v)", "longdouble", "long double")


def test_keyword_arguments_are_refused(backend):
    src, dst = cuda.to_device(np.ones(4)), cuda.device_array(4)
    _raises(TypeError, lambda: copy_kernel[1, 4](src, dst=dst, n=4), "kernel 'copy_kernel'", "positional arguments only",
            "'dst', 'n'")
    copy_kernel[1, 4](src, dst, 4)
    np.testing.assert_array_equal(dst.copy_to_host(), np.ones(4))


@pytest.mark.parametrize("make", [lambda n: cuda.device_array(n, np.uint8), lambda n: cuda.pinned_array(n, np.uint8)])
def test_out_of_memory_names_the_bytes(backend, make):
    _raises(MemoryError, lambda: make(2 ** 60), str(2 ** 60) + " bytes")


@pytest.mark.parametrize("options, error, words", [
    (dict(max_registers="many"), TypeError, ["max_registers", "'many'"]),
    (dict(max_registers=0), ValueError, ["max_registers", "0"]),
    (dict(launch_bounds="x"), TypeError, ["launch_bounds", "'x'"]),
    (dict(launch_bounds=(128, 2, 1, 1)), ValueError, ["launch_bounds", "(128, 2, 1, 1)"]),
    (dict(launch_bounds=(128, -2)), ValueError, ["launch_bounds", "-2"]),
    (dict(fastmath="yes"), TypeError, ["fastmath", "'yes'"]),
    (dict(debug="on"), TypeError, ["debug", "'on'"]),
    (dict(opt=2), TypeError, ["opt", "2"]),
    (dict(lineinfo=[]), TypeError, ["lineinfo", "[]"]),
    (dict(inline="sometimes"), ValueError, ["inline", "'sometimes'"]),
    (dict(boundscheck="x"), TypeError, ["boundscheck", "'x'"]),
])
def test_jit_options_are_validated_when_jit_is_called(options, error, words):
    _raises(error, lambda: cuda.jit(**options), *words)


def test_valid_jit_options_are_accepted(backend, rng):
    @cuda.jit(max_registers=32, launch_bounds=(64, 1), fastmath=False, opt=True, lineinfo=True, inline="never")
    def twice(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= 2

    host = rng.standard_normal(50)
    a = cuda.to_device(host)
    twice[1, 64](a)
    np.testing.assert_array_equal(a.copy_to_host(), host * 2)


def test_raw_kernel_arguments(backend):
    kernel = cuda.RawKernel('extern "C" __global__ void f(float* a) {}', "f")
    _raises(TypeError, lambda: kernel[1, 1]([1.0]), "kernel 'f'", "argument 0", "list", "np.asarray")


@pytest.mark.parametrize("call, error, words", [
    (lambda: cuda.device_array(-1), ValueError, ["shape[0] = -1"]),
    (lambda: cuda.device_array((2, "x")), TypeError, ["shape[1]", "str"]),
    (lambda: cuda.device_array("x"), TypeError, ["shape", "str"]),
    (lambda: cuda.device_array(2 ** 62), ValueError, ["bytes"]),
    (lambda: cuda.device_array(3, dtype="foo"), TypeError, ["dtype", "foo"]),
    (lambda: cuda.device_array(3, dtype=object), TypeError, ["dtype object"]),
    (lambda: cuda.device_array(3, strides=(8, 8)), ValueError, ["strides has 2 entries"]),
    (lambda: cuda.device_array(3, order="X"), ValueError, ["order", "'X'"]),
    (lambda: cuda.device_array_like(None), TypeError, ["device_array_like", "NoneType"]),
    (lambda: cuda.pinned_array(-2), ValueError, ["shape[0] = -2"]),
    (lambda: cuda.pinned_array_like(3), TypeError, ["pinned_array_like", "int"]),
    (lambda: cuda.mapped_array("x"), TypeError, ["shape", "str"]),
    (lambda: cuda.mapped_array_like([1]), TypeError, ["mapped_array_like", "list"]),
    (lambda: cuda.to_device(np.zeros(3), stream="x"), TypeError, ["stream", "str"]),
    (lambda: cuda.to_device(np.zeros(3), to=5), TypeError, ["'to'", "int"]),
    (lambda: cuda.to_device([object()]).copy_to_host(), TypeError, ["Python objects"]),
    (lambda: cuda.event().record("x"), TypeError, ["stream", "str"]),
    (lambda: cuda.event().wait(-5), ValueError, ["stream handle -5"]),
    (lambda: cuda.stream().wait_event(3), TypeError, ["wait_event", "int"]),
    (lambda: cuda.event_elapsed_time(cuda.event(), 3), TypeError, ["Events", "int"]),
    (lambda: cuda.external_stream(-1), ValueError, ["-1"]),
    (lambda: cuda.external_stream("x"), TypeError, ["str"]),
    (lambda: cuda.reduce(lambda a, b: a + b)("x"), TypeError, ["reduce", "str"]),
    (lambda: cuda.reduce(lambda a, b: a + b)(np.array(["a", "b"])), TypeError, ["reduce", "<U1"]),
    (lambda: cuda.reduce(lambda a, b: a + b)(np.arange(4.0), size=-1), ValueError, ["size", "-1"]),
    (lambda: cuda.reduce(lambda a, b: a + b)(np.arange(4.0), size=2.5), TypeError, ["size", "float"]),
    (lambda: cuda.reduce(lambda a, b: a + b)(np.arange(4.0), res=3), TypeError, ["res", "int"]),
    (lambda: cuda.from_dlpack("x"), TypeError, ["from_dlpack", "str"]),
    (lambda: cuda.pinned("x").__enter__(), TypeError, ["pinned()", "argument 0", "str"]),
    (lambda: cuda.mapped(np.zeros(2), 5).__enter__(), TypeError, ["mapped()", "argument 1", "int"]),
    (lambda: cuda.stream().add_callback(5), TypeError, ["callback", "int"]),
    (lambda: cuda.RawModule(5), TypeError, ["code", "int"]),
    (lambda: cuda.RawModule("", options="-O3"), TypeError, ["options"]),
    (lambda: cuda.RawKernel("", 5), TypeError, ["name", "int"]),
    (lambda: copy_kernel.forall(-1), ValueError, ["ntasks", "-1"]),
    (lambda: copy_kernel.forall("x"), TypeError, ["ntasks", "str"]),
    (lambda: cuda.as_cuda_array(3), TypeError, ["int", "__cuda_array_interface__"]),
])
def test_public_api_errors(backend, call, error, words):
    _raises(error, call, *words)


@pytest.fixture
def dev(rng):
    return cuda.to_device(rng.standard_normal(10).astype(np.float32))


@pytest.mark.parametrize("call, error, words", [
    (lambda d: d.__setitem__(slice(None), None), TypeError, ["None"]),
    (lambda d: d.split(-3), ValueError, ["section", "-3"]),
    (lambda d: d.split(0), ValueError, ["section", "0"]),
    (lambda d: d.split(2.5), TypeError, ["section", "float"]),
    (lambda d: d.reshape(3), ValueError, ["size 10", "(3,)"]),
    (lambda d: d.reshape(-2, -5), ValueError, ["shape[0] = -2"]),
    (lambda d: d.reshape(-1, -1), ValueError, ["one unknown"]),
    (lambda d: d.reshape("x"), TypeError, ["str"]),
    (lambda d: d.reshape(2.5), TypeError, ["shape[0]", "float"]),
    (lambda d: d.__setitem__(0, "abc"), ValueError, ["'abc'", "float32"]),
    (lambda d: d.bind("x"), TypeError, ["stream", "str"]),
    (lambda d: d.reshape(10, order="K"), ValueError, ["order", "'K'"]),
    (lambda d: d.view(np.complex128), ValueError, ["40 bytes", "complex128"]),
    (lambda d: d.view(object), TypeError, ["object"]),
    (lambda d: d.copy_to_device(np.zeros(3, np.float32)), ValueError, ["(3,)", "(10,)"]),
    (lambda d: d.copy_to_device(np.zeros(10, np.int32)), TypeError, ["int32", "float32"]),
    (lambda d: d.copy_to_device(cuda.device_array(10, np.int64)), TypeError, ["int64", "float32"]),
    (lambda d: d.copy_to_host(np.zeros(3, np.float32)), ValueError, ["(3,)", "(10,)"]),
    (lambda d: d.copy_to_host(np.zeros(10, np.int32)), TypeError, ["int32", "float32"]),
    (lambda d: d.copy_to_host([0.0] * 10), TypeError, ["NumPy array", "list"]),
    (lambda d: d[::0], ValueError, ["step", "zero"]),
    (lambda d: d[10], IndexError, ["index 10", "size 10"]),
    (lambda d: d[-11], IndexError, ["index -11", "size 10"]),
    (lambda d: d[0, 0], IndexError, ["too many indices"]),
    (lambda d: d[1.5], TypeError, ["float"]),
    (lambda d: d[True], TypeError, ["bool"]),
    (lambda d: d[..., ...], IndexError, ["single ellipsis"]),
    (lambda d: d.transpose((1,)), ValueError, ["axis 1 is out of bounds for array of dimension 1"]),   # NumPy's
])
def test_device_array_errors(backend, dev, call, error, words):
    before = dev.copy_to_host()
    _raises(error, lambda: call(dev), *words)
    np.testing.assert_array_equal(dev.copy_to_host(), before)       # nothing was written


def test_integer_overflow_on_store_names_the_value(backend):
    d = cuda.to_device(np.arange(3, dtype=np.int64))
    _raises(OverflowError, lambda: d.__setitem__(0, 2 ** 100), str(2 ** 100), "int64")
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(3))


def test_read_only_interface_arrays_cannot_be_written(backend, dev, rng):
    desc = dict(dev.__cuda_array_interface__, data=(dev.__cuda_array_interface__["data"][0], True))
    view = cuda.from_cuda_array_interface(desc, owner=dev)
    before = dev.copy_to_host()
    values = rng.standard_normal(10).astype(np.float32)
    _raises(ValueError, lambda: view.copy_to_device(values), "copy_to_device", "read-only")
    _raises(ValueError, lambda: view.copy_to_device(cuda.to_device(values)), "read-only")
    _raises(ValueError, lambda: view.__setitem__(slice(2, 4), 1.0), "setitem", "read-only")
    _raises(ValueError, lambda: view[2:].reshape(2, 4).__setitem__(0, 1.0), "read-only")   # views stay read-only
    np.testing.assert_array_equal(dev.copy_to_host(), before)
    np.testing.assert_array_equal(view[3:].copy_to_host(), before[3:])                      # reading is fine


def test_copy_to_host_into_a_read_only_array(backend, dev):
    target = np.zeros(10, np.float32)
    target.setflags(write=False)
    _raises(ValueError, lambda: dev.copy_to_host(target), "read-only")


def test_device_array_methods_still_work(backend, dev, rng):
    host = dev.copy_to_host()
    parts = dev.split(3)
    assert [p.shape[0] for p in parts] == [3, 3, 3, 1]
    np.testing.assert_array_equal(np.concatenate([p.copy_to_host() for p in parts]), host)
    np.testing.assert_array_equal(dev.reshape(2, -1).copy_to_host(), host.reshape(2, -1))
    np.testing.assert_array_equal(dev.reshape((5, 2), order="F").copy_to_host(), host.reshape((5, 2), order="F"))
    values = rng.standard_normal(4).astype(np.float32)
    dev[2:6] = values
    host[2:6] = values
    np.testing.assert_array_equal(dev.copy_to_host(), host)
    assert dev[np.int64(3)] == host[3]


# --- compile errors: the user's frame, not cudajit's ---------------------------------------------

def _cudajit_frames(exc):
    return [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith(_PACKAGE)]


def _broken_kernel():
    @cuda.jit
    def broken(a):
        a[0] = not_defined_anywhere     # noqa: F821

    return broken


def test_compile_error_from_a_launch_hides_cudajit_frames(backend, monkeypatch):
    monkeypatch.delenv("CUDAJIT_FULL_TRACEBACK", raising=False)
    a = cuda.device_array(1)
    with pytest.raises(TypingError, match="not_defined_anywhere") as info:
        _broken_kernel()[1, 1](a)
    assert _cudajit_frames(info.value) == []
    frames = traceback.extract_tb(info.value.__traceback__)
    assert frames[0].filename == __file__ and "[1, 1](a)" in frames[0].line
    assert f"{__file__}:" in str(info.value)            # the kernel's own file:line is in the message


def test_full_traceback_on_request(backend, monkeypatch):
    monkeypatch.setenv("CUDAJIT_FULL_TRACEBACK", "1")
    a = cuda.device_array(1)
    with pytest.raises(TypingError) as info:
        _broken_kernel()[1, 1](a)
    assert len(_cudajit_frames(info.value)) > 3


def test_eager_compile_error_shows_the_decorated_line(backend, monkeypatch):
    monkeypatch.delenv("CUDAJIT_FULL_TRACEBACK", raising=False)
    with pytest.raises(TypingError, match="not_defined_anywhere") as info:
        @cuda.jit("void(float64[:])")
        def eager(a):
            a[0] = not_defined_anywhere     # noqa: F821
    inside = _cudajit_frames(info.value)
    assert len(inside) == 1 and inside[0].filename.endswith("errors.py")   # the re-raise, nothing below


# --- the CPU backend's environment: Numba's rule for a NUMBA_* value it cannot parse -------------------------------

@pytest.mark.parametrize("var, value", [
    ("CUDAJIT_NUM_THREADS", "abc"), ("CUDAJIT_NUM_THREADS", "-4"), ("CUDAJIT_NUM_THREADS", "0"),
    ("CUDAJIT_NUM_THREADS", "1.5"), ("CUDAJIT_CPU_STACK", "lots"), ("CUDAJIT_CPU_STACK", "1"),
    ("CUDAJIT_CPU_STACK", "64Q"),
])
def test_malformed_cpu_settings_warn(monkeypatch, var, value):
    from cudajit import settings
    monkeypatch.setenv(var, value)
    with pytest.warns(RuntimeWarning, match=f"Environment variable '{var}' .* value '{value}' could not be parsed"):
        assert settings.value(var) == settings.BY_NAME[var].default      # and the default is used


@pytest.mark.parametrize("var, value", [("CUDAJIT_NUM_THREADS", "3"), ("CUDAJIT_CPU_STACK", "128k"),
                                        ("CUDAJIT_CPU_STACK", "16M"), ("CUDAJIT_CPU_STACK", "")])
def test_valid_cpu_settings_do_not_warn(monkeypatch, recwarn, var, value):
    from cudajit import settings
    monkeypatch.setenv(var, value)
    settings.value(var)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_malformed_thread_count_uses_the_default():
    import subprocess
    import sys
    code = "from cudajit import _core; print(_core.cpu_num_threads())"
    env = dict(os.environ, CUDAJIT_NUM_THREADS="1.5", PYTHONPATH=os.pathsep.join(sys.path))
    got = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert int(got) == os.cpu_count()       # every core, not strtol's 1 from "1.5"

"""Calling C/C++ (numba-cuda's "Calling foreign functions from Python kernels"): cuda.CUSource, the C ABI,
CPointer and array parameters, carray/farray over returned pointers, and GPU code (PTX, objects, LTO-IR)
linked by nvJitLink."""
import ctypes
import os
import shutil
import subprocess

import numpy as np
import pytest

import cudajit
from cudajit import _backend, cuda, types
from cudajit.errors import TypingError, UnsupportedError

SOURCE = cuda.CUSource(r'''
extern "C" __device__ int axpy_numba(float* r, float a, float x, float y) { *r = a * x + y; return 0; }
extern "C" __device__ double cube_c(double x) { return x * x * x; }
extern "C" __device__ void scale_c(float* p, int n, float s) { for (int i = 0; i < n; ++i) p[i] *= s; }
extern "C" __device__ float* row_c(float* base, long long i, long long n) { return base + i * n; }
extern "C" __device__ double dot_c(const double* a, const double* b, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}
''', name="ffi_c_functions.cu")

f32p = types.CPointer(types.float32)
axpy = cuda.declare_device("axpy_numba", "float32(float32, float32, float32)", link=[SOURCE])
cube = cuda.declare_device("cube_c", "float64(float64)", abi="c", link=SOURCE)
scale = cuda.declare_device("scale_c", types.void(f32p, types.int32, types.float32), abi="c", link=[SOURCE])
row = cuda.declare_device("row_c", f32p(f32p, types.int64, types.int64), abi="c", link=[SOURCE])
dot = cuda.declare_device("dot_c", types.float64(types.float64[::1], types.float64[::1], types.int32), abi="c",
                          link=[SOURCE])


@cuda.jit
def scalars(a, x, y, xd, out, outd):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = axpy(a, x[i], y[i])            # Numba's ABI: the result through a pointer
        outd[i] = cube(xd[i])                   # the C ABI: the result returned


def test_cusource_numba_and_c_abi(backend, rng):
    x, y = rng.standard_normal((2, 200)).astype(np.float32)
    xd = rng.standard_normal(200)
    out, outd = np.zeros(200, np.float32), np.zeros(200)
    scalars[4, 64](np.float32(1.5), x, y, xd, out, outd)
    np.testing.assert_allclose(out, np.float32(1.5) * x + y, rtol=1e-6, atol=1e-6)   # NVRTC may fuse a*x+y (FMA)
    np.testing.assert_allclose(outd, xd ** 3, rtol=1e-15)


@cuda.jit
def pointers(m):
    i = cuda.grid(1)
    n = m.shape[1]
    if i < m.shape[0]:
        p = row(m, i, n)                        # an array argument passes its data pointer
        scale(p, n, 2.0)                        # a CPointer argument: the pointer itself
        r = cuda.carray(p, (1, n))
        r[0, n - 1] += 1.0


@cuda.jit
def whole(m, u, w, f_out, dots):
    dots[0] = dot(u, w, u.size)                 # parameters declared as arrays take arrays
    f = cudajit.farray(row(m, 0, 0), (m.shape[1], m.shape[0]), np.float32)
    for j in range(f_out.shape[0]):
        for k in range(f_out.shape[1]):
            f_out[j, k] = f[j, k]


def test_pointer_and_array_parameters_and_carray(backend, rng):
    m = rng.standard_normal((37, 5)).astype(np.float32)
    expect = m * np.float32(2)
    expect[:, -1] += 1
    pointers[1, 64](m)
    np.testing.assert_array_equal(m, expect)


def test_array_parameters_and_farray(backend, rng):
    m = rng.standard_normal((7, 5)).astype(np.float32)
    u, w = rng.standard_normal((2, 50))
    f_out, dots = np.zeros((5, 7), np.float32), np.zeros(1)
    whole[1, 1](m, u, w, f_out, dots)
    np.testing.assert_allclose(dots[0], u @ w, rtol=1e-12)
    # m's memory seen in Fortran order with the shape reversed is m transposed
    np.testing.assert_array_equal(f_out, m.T)


SUM_REDUCE = cuda.CUSource(r'''
extern "C" __device__ int sum_reduce(float* return_value, float* array, int n) {
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += array[i];
    *return_value = float(sum);
    return 0;
}
''')


def test_numba_cuda_from_buffer_example(backend, rng):
    """numba-cuda's documented example (test_ex_from_buffer): a CPointer in a signature string, cffi's from_buffer."""
    cffi = pytest.importorskip("cffi")
    sum_reduce = cuda.declare_device("sum_reduce", "float32(CPointer(float32), int32)", link=SUM_REDUCE)
    ffi = cffi.FFI()

    @cuda.jit
    def reduction_caller(result, array):
        array_ptr = ffi.from_buffer(array)
        result[()] = sum_reduce(array_ptr, len(array))

    x = rng.standard_normal(1000).astype(np.float32)
    r = np.ndarray((), dtype=np.float32)
    reduction_caller[1, 1](r, x)
    np.testing.assert_allclose(r[()], x.astype(np.float64).sum(), rtol=1e-6)


def test_declaration_errors():
    with pytest.raises(NotImplementedError, match="unsupported ABI 'fortran'"):
        cuda.declare_device("f", "float32(float32)", abi="fortran")
    with pytest.raises(TypeError, match="a number, a CPointer or void, not UniTuple"):
        cuda.declare_device("f", types.UniTuple(types.float32, 2)(types.float32), abi="c")
    with pytest.raises(TypeError, match="arguments must be numbers, CPointers or arrays"):
        cuda.declare_device("f", types.float32(types.UniTuple(types.float32, 2)), abi="c")
    assert str(types.CPointer(types.float32)) == "float32*" and cudajit.types.CPointer is cuda.types.CPointer


def test_wrong_pointer_and_carray_arguments():
    @cuda.jit
    def wrong_pointer(a):
        scale(a, 1, 2.0)                       # float64 array where float32* is declared

    with pytest.raises(TypingError, match=r"scale_c\(\) argument 1: cannot convert array\(float64, 1d, C\) to float32\*"):
        wrong_pointer[1, 1](np.zeros(4))

    @cuda.jit
    def carray_of_array(a):
        v = cuda.carray(a, 4)
        v[0] = 1

    with pytest.raises(TypingError, match=r"carray\(\) takes a CPointer as its first argument"):
        carray_of_array[1, 1](np.zeros(4))

    @cuda.jit
    def carray_wrong_dtype(a):
        v = cuda.carray(row(a, 0, 0), 4, np.float64)
        v[0] = 1

    with pytest.raises(TypingError, match=r"carray\(\): the dtype float64 does not match the pointer's element type float32"):
        carray_wrong_dtype[1, 1](np.zeros(4, np.float32))


# ---- GPU code linked by nvJitLink ----------------------------------------------------------------------------

DEVICE_SOURCE = 'extern "C" __device__ float twice_plus_c(float x, float y) { return 2.0f * x + y; }\n'
twice_plus = cuda.declare_device("twice_plus_c", "float32(float32, float32)", abi="c")


def _kernel_calling(ext):
    def kernel(x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = ext(x[i], y[i])
    return kernel


def _nvrtc_ptx(arch):
    from cudajit import _core
    return _core.nvrtc_compile(DEVICE_SOURCE, "device.cu", ["-rdc=true"], arch, False)


def _nvrtc_ltoir(arch):
    """LTO-IR of DEVICE_SOURCE from NVRTC (-dlto), through its C API: cudajit's core returns cubins and PTX only."""
    try:
        nvrtc = ctypes.CDLL("/usr/local/cuda/lib64/libnvrtc.so")
    except OSError:
        pytest.skip("libnvrtc.so of the CUDA toolkit is not installed: no LTO-IR to link")
    prog = ctypes.c_void_p()
    assert nvrtc.nvrtcCreateProgram(ctypes.byref(prog), DEVICE_SOURCE.encode(), b"device.cu", 0, None, None) == 0
    opts = [b"-dlto", b"-rdc=true", f"-arch=sm_{arch}".encode()]
    assert nvrtc.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts)) == 0
    size = ctypes.c_size_t()
    assert nvrtc.nvrtcGetLTOIRSize(prog, ctypes.byref(size)) == 0
    buf = ctypes.create_string_buffer(size.value)
    assert nvrtc.nvrtcGetLTOIR(prog, buf) == 0
    nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
    return buf.raw


def _nvcc_object(tmp_path, arch):
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if nvcc is None:
        pytest.skip("nvcc is not installed: no relocatable object to link")
    src, obj = tmp_path / "device.cu", tmp_path / "device.o"
    src.write_text(DEVICE_SOURCE)
    subprocess.run([nvcc, "-dc", f"-arch=sm_{arch}", str(src), "-o", str(obj)], check=True, capture_output=True)
    return str(obj)


def _needs_nvjitlink():
    from cudajit.cuda import nvjitlink
    ok, why = nvjitlink.available()
    if not ok:
        pytest.skip(why)


def _linked_cubin(link, arch=90):
    """The cubin cudajit builds for a kernel calling twice_plus with ``link``, built here without a GPU."""
    from cudajit.compiler.program import CompileOptions, compile_kernel
    from cudajit.cuda import build, ffi
    options = CompileOptions(link=ffi.check_link(link, "test"))
    arr = types.float32[::1]
    ks = compile_kernel(_kernel_calling(twice_plus), (arr, arr, arr), options)
    assert ks.link_objects
    return ffi.link_gpu(ks.source, build.nvrtc_options(options), ks.link_objects, arch)


@pytest.mark.parametrize("kind", ["ptx", "ltoir", "object"])
def test_link_step_makes_a_cubin(kind, tmp_path):
    """nvJitLink links the kernel (NVRTC PTX, relocatable) with each kind of GPU code into a cubin for sm_90."""
    _needs_nvjitlink()
    if kind == "ptx":
        link = [cuda.PTXSource(_nvrtc_ptx(90))]
    elif kind == "ltoir":
        link = [cuda.LTOIR(_nvrtc_ltoir(90))]
    else:
        link = [_nvcc_object(tmp_path, 90)]
    cubin = _linked_cubin(link)
    assert cubin[:4] == b"\x7fELF" and len(cubin) > 1000


def test_undefined_function_in_gpu_code_is_a_link_error():
    _needs_nvjitlink()
    from cudajit.errors import CompileError
    other = 'extern "C" __device__ float unrelated(float x) { return x; }\n'
    from cudajit import _core
    with pytest.raises(CompileError, match="nvJitLink"):
        _linked_cubin([cuda.PTXSource(_core.nvrtc_compile(other, "o.cu", ["-rdc=true"], 90, False))])


def test_cpu_backend_refuses_gpu_code_naming_it(tmp_path):
    from cudajit import _backend
    ptx = tmp_path / "device.ptx"
    ptx.write_text("// PTX")
    kernel = cuda.jit(link=[str(ptx)])(_kernel_calling(twice_plus))
    with _backend.use("cpu"), pytest.raises(UnsupportedError, match="cannot link GPU code: .*device.ptx"):
        kernel[1, 1](np.zeros(1, np.float32), np.zeros(1, np.float32), np.zeros(1, np.float32))


@pytest.mark.gpu
@pytest.mark.parametrize("kind", ["ptx", "ptx-file", "ltoir", "object"])
def test_kernel_linked_with_gpu_code_runs(kind, tmp_path, rng):
    _needs_nvjitlink()
    from cudajit.cuda import build
    arch = _backend.GPU.arch()
    if kind == "ptx":
        link = [cuda.PTXSource(_nvrtc_ptx(arch))]
    elif kind == "ptx-file":
        path = tmp_path / "device.ptx"
        path.write_bytes(_nvrtc_ptx(arch))
        link = [str(path)]
    elif kind == "ltoir":
        link = [cuda.LTOIR(_nvrtc_ltoir(arch))]
    else:
        link = [_nvcc_object(tmp_path, arch)]
    kernel = cuda.jit(link=link)(_kernel_calling(twice_plus))
    x, y = rng.standard_normal((2, 300)).astype(np.float32)
    out = np.zeros(300, np.float32)
    kernel[3, 128](x, y, out)
    np.testing.assert_array_equal(out, np.float32(2) * x + y)


def test_missing_nvjitlink_is_a_clear_error(monkeypatch):
    from cudajit.cuda import nvjitlink
    from cudajit.errors import CudaSupportError
    monkeypatch.setattr(nvjitlink, "_lib", None)
    monkeypatch.setattr(nvjitlink, "_why", None)
    monkeypatch.setattr(nvjitlink, "_candidates", lambda: ["/nonexistent/libnvJitLink.so"])
    assert not nvjitlink.available()[0]
    with pytest.raises(CudaSupportError, match="nvJitLink .*not found.*nvidia-nvjitlink"):
        nvjitlink.link([("ptx", "kernel.ptx", b"\0")], 90)


def test_cpointer_kernel_parameters_take_addresses(backend, rng):
    """numba-cuda's CPointer example: a kernel declared with CPointer(T) parameters, launched with the data
    addresses of device arrays (ints from __cuda_array_interface__)."""
    sig = types.void(types.CPointer(types.float32), types.CPointer(types.float32), types.uint32, types.float32)

    @cuda.jit(sig)
    def scaled_copy(dst, src, n, f):
        i = cuda.grid(1)
        if i < n:
            dst[i] = src[i] * f
            src[i] += 1

    x = rng.standard_normal(300).astype(np.float32)
    d_src, d_dst = cuda.to_device(x), cuda.device_array(300, np.float32)
    addr = lambda a: a.__cuda_array_interface__["data"][0]   # noqa: E731
    scaled_copy[3, 128](addr(d_dst), addr(d_src), 300, np.float32(2.5))
    np.testing.assert_array_equal(d_dst.copy_to_host(), x * np.float32(2.5))
    np.testing.assert_array_equal(d_src.copy_to_host(), x + np.float32(1))


def test_compile_all_gives_the_code_and_the_linked_objects(tmp_path):
    """numba-cuda's cuda.compile_all (issue 40): the function's PTX first, then each linked file that is not CUDA
    C++ as given; CUDA C++ links are compiled into the first (one unit). LTO-IR, its default, is refused."""
    from cudajit import _core
    if not _core.nvrtc_available()[0]:
        pytest.skip("NVRTC not found")
    ptx_obj = cuda.PTXSource(_nvrtc_ptx(90))
    ext = cuda.declare_device("twice_plus_c", "float32(float32, float32)", abi="c", link=[ptx_obj])
    codes, rt = cuda.compile_all(_kernel_calling(ext), "void(float32[::1], float32[::1], float32[::1])",
                                 device=False, abi="numba", output="ptx", cc=(8, 0))
    assert str(rt) == "none" and len(codes) == 2 and codes[1] is ptx_obj
    assert ".visible .entry" in codes[0] and ".target sm_80" in codes[0] and "twice_plus_c" in codes[0]

    cu = tmp_path / "device.cu"
    cu.write_text(DEVICE_SOURCE)
    from_cu = cuda.declare_device("twice_plus_c", "float32(float32, float32)", abi="c", link=[str(cu)])

    def plus(x, y):
        return from_cu(x, y) + 1
    codes, rt = cuda.compile_all(plus, "float32(float32, float32)", output="ptx", abi_info={"abi_name": "plus"})
    assert str(rt) == "float32" and len(codes) == 1
    assert ".visible .func  (.param .b32 func_retval0) plus(" in codes[0] and "twice_plus_c" in codes[0]
    with pytest.raises(NotImplementedError, match=r"cuda.compile_all\(output='ltoir'\): cudajit produces PTX only"):
        cuda.compile_all(plus, "float32(float32, float32)")

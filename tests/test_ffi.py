"""Foreign device functions (Numba's ``cuda.declare_device`` and ``cuda.jit(link=...)``): CUDA C++ sources in
Numba's ABI, compiled into the kernel's unit, called with arguments converted to the declared types."""
import os

import numpy as np
import pytest

from cudajit import cuda

DATA = os.path.join(os.path.dirname(__file__), "data")
FUNCTIONS = os.path.join(DATA, "ffi_functions.cu")
MORE = os.path.join(DATA, "ffi_more.cu")

mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)")
clamp = cuda.declare_device("clamp_i64", "int64(int64, int64, int64)")
hypot2 = cuda.declare_device("hypot2", "float64(float64, float64)", link=[MORE])   # carries its own source


@cuda.jit(link=[FUNCTIONS])
def use_foreign(x, y, n, out_f, out_i, out_d):
    i = cuda.grid(1)
    if i < x.size:
        out_f[i] = mul(x[i], y[i])
        out_i[i] = clamp(n[i], -5, 5)             # int literals convert to the declared int64
        out_d[i] = hypot2(x[i], y[i])             # float32 arguments convert to the declared float64


def test_foreign_functions(backend, rng):
    x = rng.standard_normal(100).astype(np.float32)
    y = rng.standard_normal(100).astype(np.float32)
    n = rng.integers(-20, 20, 100)
    out_f, out_i, out_d = np.zeros(100, np.float32), np.zeros(100, np.int64), np.zeros(100)
    use_foreign[2, 64](x, y, n, out_f, out_i, out_d)
    np.testing.assert_array_equal(out_f, x * y)
    np.testing.assert_array_equal(out_i, np.clip(n, -5, 5))
    np.testing.assert_allclose(out_d, x.astype(np.float64) ** 2 + y.astype(np.float64) ** 2, rtol=1e-15)


def test_foreign_function_errors(tmp_path):
    with pytest.raises(TypeError, match="return type must be a number, a CPointer or void, not array"):
        cuda.declare_device("f", "float32[:](float32)")
    # numba-cuda's words first (its test_bad_declare_device_string / _tuple), then what was given
    with pytest.raises(TypeError, match=r"^Return type must be provided for device declarations: "
                                        r"declare_device\('f1'\) got '\(float32\[:\],\)', argument types alone"):
        cuda.declare_device("f1", "(float32[:],)")
    with pytest.raises(TypeError, match=r"^Return type must be provided for device declarations: "
                                        r"declare_device\('f1'\) got \(array\(float32, 1d, A\),\)"):
        cuda.declare_device("f1", (cuda.float32[:],))
    with pytest.raises(TypeError, match=r"declare_device\('f'\): the signature must be a str such as "
                                        r"'float32\(float32\)' or a Signature, not int 12"):
        cuda.declare_device("f", 12)
    with pytest.raises(NotImplementedError, match="cannot link lib.xyz"):
        cuda.jit(link=["lib.xyz"])(lambda a: None)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        cuda.declare_device("g", "int32(int32)", link=[str(tmp_path / "missing.cu")])
    with pytest.raises(RuntimeError, match="only be called from a kernel"):
        mul(1.0, 2.0)


undefined = cuda.declare_device("not_in_any_file", "float32(float32)")


@cuda.jit
def calls_undefined(a):
    a[0] = undefined(a[0])


def test_foreign_function_without_its_source(backend):
    from cudajit.errors import TypingError
    with pytest.raises(TypingError, match="'not_in_any_file' .* is not defined in the linked sources"):
        calls_undefined[1, 1](np.zeros(1, np.float32))


def test_wrong_argument_names_the_foreign_function(tmp_path):
    from cudajit.errors import TypingError
    twice = cuda.declare_device("twice", "float64(float64)", link=[MORE])

    @cuda.jit
    def passes_an_array(a):
        a[0] = twice(a)

    with pytest.raises(TypingError) as info:
        passes_an_array[1, 1](np.ones(1))
    msg = str(info.value)
    assert "twice() argument 1: cannot convert array(float64, 1d, C) to float64" in msg
    assert "declared as float64(float64)" in msg and "test_ffi.py:" in msg


def test_definition_not_matching_the_declaration(backend, tmp_path):
    from cudajit.errors import CompileError
    source = tmp_path / "three.cu"
    source.write_text('extern "C" __device__ int three(int* r, int x, int y) { *r = x + y; return 0; }\n')
    three = cuda.declare_device("three", "float64(float64)", link=[str(source)])

    @cuda.jit
    def calls_three(a):
        a[0] = three(a[0])

    with pytest.raises(CompileError) as info:
        calls_three[1, 1](np.ones(1))
    first = str(info.value).splitlines()[0]
    assert first.startswith("cudajit: the foreign function 'three' declared as float64(float64) with "
                            "cuda.declare_device does not match its definition"), first
    assert 'extern "C" __device__ int three(double* result, double)' in first


CUB_SUM = r'''#include <cub/warp/warp_reduce.cuh>
extern "C" __device__ int warp_sum(float* result, float x) {
    using WarpReduce = cub::WarpReduce<float>;
    __shared__ typename WarpReduce::TempStorage temp;
    *result = WarpReduce(temp).Sum(x);   // lane 0's is the warp's sum
    return 0;
}
'''


def test_linked_source_including_cub(backend, rng, tmp_path):
    """The user's CUDA C++ may include CUB: the unit then takes CCCL's integer types (config.h) and compiles without
    NVRTC's -minimal (build.py). On the CPU (CUB needs NVCC or NVRTC) the unit is compiled for sm_90 only."""
    from cudajit.compiler import types
    from cudajit.compiler.program import LINKED_SOURCES_MARK, CompileOptions, compile_kernel
    from cudajit.cuda import build
    source = tmp_path / "warp_sum.cu"
    source.write_text(CUB_SUM)
    warp_sum = cuda.declare_device("warp_sum", "float32(float32)", link=[str(source)])

    def per_warp(x, out):
        s = warp_sum(x[cuda.grid(1)])
        if cuda.threadIdx.x == 0:
            out[cuda.blockIdx.x] = s

    options = CompileOptions()
    if not any(os.path.isdir(os.path.join(flag[2:], "cub")) for flag in build.nvrtc_options(options)
               if flag.startswith("-I")):
        pytest.skip("no CUB (CCCL) headers beside this NVRTC")
    x = rng.standard_normal(32 * 8).astype(np.float32)
    if backend == "gpu":
        out = np.zeros(8, np.float32)
        cuda.jit(per_warp)[8, 32](x, out)
        np.testing.assert_allclose(out, x.reshape(8, 32).sum(axis=1), rtol=1e-5, atol=1e-5)
        return
    from cudajit import _core
    if not _core.nvrtc_available()[0]:
        pytest.skip("no NVRTC")
    arr = types.float32[::1]
    text = compile_kernel(per_warp, (arr, arr), options).source
    assert LINKED_SOURCES_MARK in text
    assert _nvrtc_minimal_flags(lambda: build.check_nvrtc(text, options)) == [False]


def _nvrtc_minimal_flags(compile_):
    """The `minimal` argument of each NVRTC compile that ``compile_()`` makes (the real compile still runs)."""
    from cudajit import _core
    seen, real = [], _core.nvrtc_compile

    def spy(*args, **kwargs):
        seen.append(kwargs.get("minimal", args[5] if len(args) > 5 else False))
        return real(*args, **kwargs)
    _core.nvrtc_compile = spy
    try:
        compile_()
    finally:
        _core.nvrtc_compile = real
    return seen


def test_generated_units_without_linked_sources_compile_minimal(backend):
    """Without the user's CUDA C++ a unit carries no mark: NVRTC is asked for -minimal (and config.h then uses our
    own integer types); the kernel runs and equals NumPy."""
    from cudajit.compiler import types
    from cudajit.compiler.program import LINKED_SOURCES_MARK, CompileOptions, compile_kernel
    from cudajit.cuda import build

    def plain(x, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = x[i] * 2 + np.int64(9223372036854775807) // (i + 1)   # INT64-sized constants work

    arr = types.int64[::1]
    text = compile_kernel(plain, (arr, arr)).source
    assert LINKED_SOURCES_MARK not in text
    from cudajit import _core
    if _core.nvrtc_available()[0]:
        assert _nvrtc_minimal_flags(lambda: build.check_nvrtc(text, CompileOptions())) == [True]
    x = np.arange(100, dtype=np.int64)
    out = np.zeros(100, np.int64)
    cuda.jit(plain)[1, 128](x, out)
    np.testing.assert_array_equal(out, x * 2 + np.int64(9223372036854775807) // (x + 1))


_SCALE_BY_2 = cuda.CUSource('extern "C" __device__ int scale2(int* out, int a) { *out = a * 2; return 0; }')
_SCALE_BY_3 = cuda.CUSource('extern "C" __device__ int scale3(int* out, int a) { *out = a * 3; return 0; }')
_SCALE_BY_4 = cuda.CUSource('extern "C" __device__ int scale2(int* out, int a);\n'
                            'extern "C" __device__ int scale4(int* out, int a) { int t; scale2(&t, a); *out = 2 * t; return 0; }')


@pytest.mark.parametrize("container", [list, tuple, set])
def test_several_unnamed_sources_are_all_linked(backend, rng, container):
    """In-memory sources share a default name; each is still compiled in, whatever holds them."""
    scale3 = cuda.declare_device("scale3", "int32(int32)", link=_SCALE_BY_3)
    scale4 = cuda.declare_device("scale4", "int32(int32)", link=container([_SCALE_BY_2, _SCALE_BY_4]))

    @cuda.jit
    def kernel(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = scale3(x[i]) + scale4(x[i])

    x = rng.integers(-1000, 1000, 40).astype(np.int32)
    r = np.zeros_like(x)
    kernel[1, 64](r, x)
    np.testing.assert_array_equal(r, x * 7)


_ZERO_NEGATIVES = cuda.CUSource(
    'extern "C" __device__ int zero_negatives(void* unused, float* x, int n) {\n'
    '    for (int i = 0; i < n; ++i) if (x[i] < 0) x[i] = 0;\n'
    '    return 0;\n'
    '}\n')


def test_void_function_in_numbas_abi(backend, rng):
    """numba-cuda declares a foreign function returning nothing as ``int f(void* result, args...)`` too."""
    zero_negatives = cuda.declare_device("zero_negatives", "void(float32[:], int32)", link=_ZERO_NEGATIVES)

    @cuda.jit
    def rows(m):
        i = cuda.grid(1)
        if i < m.shape[0]:
            zero_negatives(m[i], m.shape[1])

    m = rng.standard_normal((37, 19)).astype(np.float32)
    d = cuda.to_device(m)
    rows[1, 64](d)
    np.testing.assert_array_equal(d.copy_to_host(), np.maximum(m, 0))

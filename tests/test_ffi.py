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
    with pytest.raises(TypeError, match="return type"):
        cuda.declare_device("f", "void(float32)")
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

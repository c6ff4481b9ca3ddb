"""The generated C++: structure a reader recognises, the kernel ABI of docs/INTERNALS.md, #line directives,
the type objects and signatures, and that the unit compiles with g++ and (where present) NVRTC's nvcc for sm_90.

Compile-only: compile_kernel + the system compilers; no kernel runs and the C++ core is not needed.
"""
import os
import shutil
import subprocess

import numpy as np
import pytest

from cudajit import cuda, float32
from cudajit.compiler import CompileOptions, compile_kernel, parse_signature, types, typeof
from cudajit.compiler.types import Array

KERNELS = os.path.join(os.path.dirname(__file__), "..", "kernels")
TPB = 16


def matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    tmp = float32(0.)
    for i in range(cuda.gridDim.x):
        sA[tx, 0] = A[x, i]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[tx, j] * B[j, y]
        cuda.syncthreads()
    if x < C.shape[0] and y < C.shape[1]:
        C[x, y] = tmp


def keywords_as_names(a):
    int = 3
    new = a[0] * int
    a[0] = new


M = types.float32[:, ::1]


def test_types_print_both_ways():
    t = types.float32[:, ::1]
    assert str(t) == "array(float32, 2d, C)"
    assert t.cpp == "cj::Array<float, 2, cj::C>"
    assert t.spec == "float32[:, ::1]"
    assert types.float64[::1, :].layout == "F"
    assert types.int32[:].layout == "A"
    assert Array(types.uint8, 3, "A").cpp == "cj::Array<uint8_t, 3, cj::A>"
    assert types.complex64.cpp == "cj::complex<float>"
    assert str(types.UniTuple(types.int64, 2)) == "UniTuple(int64 x 2)"
    assert types.f4 is types.float32 and types.intp is types.int64 and types.double is types.float64
    sig = types.void(types.float32[:], types.int32)
    assert str(sig) == "(array(float32, 1d, A), int32) -> none"
    assert types.float32(2.5) == np.float32(2.5) and isinstance(types.float32(2.5), np.float32)


def test_parse_signature_forms():
    s = parse_signature("void(float32[:], int32)")
    assert s.args == (types.float32[:], types.int32) and s.return_type == types.void
    assert parse_signature(["void(f8[::1])", "void(i4[::1])"])[1].args == (types.int32[::1],)
    assert parse_signature((types.float32[::1], types.int64)).args == (types.float32[::1], types.int64)
    assert parse_signature(types.void(types.float32[:])) == types.void(types.float32[:])


def test_typeof_rules():
    assert typeof(np.zeros((3, 4), np.float32)) == types.float32[:, ::1]
    assert typeof(np.zeros((3, 4), np.float32, order="F")) == types.float32[::1, :]
    assert typeof(np.zeros((3, 4))[:, 1]) == types.float64[:]
    assert typeof(np.zeros(5)[::2]) == types.float64[:]
    assert typeof(np.zeros(5, np.int16)) == types.int16[::1]
    assert typeof(3) == types.int64 and typeof(2.0) == types.float64 and typeof(True) == types.boolean
    assert typeof(1j) == types.complex128 and typeof(np.float32(1)) == types.float32
    assert typeof(np.uint8(1)) == types.uint8
    assert typeof((1, 2)) == types.UniTuple(types.int64, 2)

    class CAI:
        __cuda_array_interface__ = {"shape": (4, 5), "strides": None, "typestr": "<f4", "data": (0, False),
                                    "version": 3}
    assert typeof(CAI()) == types.float32[:, ::1]


def test_kernel_abi_and_structure():
    ks = compile_kernel(matmul, (M, M, M))
    src = ks.source
    assert src.count("#include <cudajit/runtime.h>") == 1
    # CJ_PARAM: by value on the GPU, a const reference on the CPU (config.h)
    assert "CJ_GLOBAL void cj_k_matmul_0(CJ_PARAM(cj::Array<float, 2, cj::C>) A_, " \
           "CJ_PARAM(cj::Array<float, 2, cj::C>) B_, CJ_PARAM(cj::Array<float, 2, cj::C>) C_) {" in src
    # the final `if x < C.shape[0] and y < C.shape[1]` is known true in a block the CPU proved (operators.py)
    assert "if ((cj_fits || x_ < C_.shape[0]) && (cj_fits || y_ < C_.shape[1])) {" in src
    assert "CJ_ENTRY_FITS(cj_k_matmul_0, (CJ_FIT(2, 0, 0), CJ_FIT(2, 1, 1)), cj::Array<float, 2, cj::C>, " \
           "cj::Array<float, 2, cj::C>, cj::Array<float, 2, cj::C>)" in src
    assert ks.entry == "cj_k_matmul_0"
    assert [p.kind for p in ks.params] == ["array"] * 3 and ks.params[0].code == "f4" and ks.params[0].layout == "C"
    assert ks.uses_barriers and not ks.uses_dynamic_shared
    assert "for (" in src and "if (" in src
    assert "CJ_SHARED float cj_sA_storage[16 * 16];" in src
    assert "float tmp_ = 0.0f;" in src                 # names kept (spelled x_), declared where first bound
    assert "tmp_ += sA_(tx_, j_) * B_(j_, y_);" in src        # simple index math, no casts where C++ agrees
    assert f'#line' in src and os.path.basename(__file__) in src
    assert str(ks.signature) == "(array(float32, 2d, C), array(float32, 2d, C), array(float32, 2d, C)) -> none"


def test_line_directives_point_at_python_lines():
    import inspect
    ks = compile_kernel(matmul, (M, M, M))
    lines, first = inspect.getsourcelines(matmul)
    want = first + next(k for k, l in enumerate(lines) if "C[x, y] = tmp" in l)
    out = ks.source.splitlines()
    idx = next(k for k, l in enumerate(out) if "C_(x_, y_) = tmp_;" in l)
    # the nearest #line above, plus the lines between, gives the Python line
    j = max(k for k in range(idx) if out[k].startswith("#line"))
    assert int(out[j].split()[1]) + (idx - j - 1) == want


def test_cpp_keywords_renamed():
    src = compile_kernel(keywords_as_names, (types.int64[::1],)).source
    assert "int64_t int_ = 3;" in src and "new_ = " in src


def test_typed_listing():
    ks = compile_kernel(matmul, (M, M, M))
    text = ks.typed_listing()
    assert "tmp :: float32" in text and "x :: int64" in text and "tx :: int32" in text


def test_launch_bounds_option():
    ks = compile_kernel(matmul, (M, M, M), CompileOptions(launch_bounds=(256, 2)))
    assert "CJ_LAUNCH_BOUNDS(256, 2)" in ks.source


def _all_test_kernels():
    """(name, pyfunc, argtypes) for a spread of kernels in this test suite."""
    import importlib
    import sys
    sys.path.insert(0, os.path.dirname(__file__))
    out = [("matmul", matmul, (M, M, M))]
    specs = {
        "test_seeds": [("tiled_mm", (M, M, M)), ("cuda_fast_matmul", (M, M, M)),
                       ("sum_of_squares", (types.float32[::1],) * 2)],
        "test_kernels_arith": [("int_ops", (types.int32[::1], types.int32[::1], types.int64[:, ::1])),
                               ("complex_ops", (types.complex128[::1],) * 2 + (types.complex128[:, ::1],))],
        "test_kernels_arrays": [("slicing", (types.int64[:, ::1], types.int64[:, ::1]))],
        "test_kernels_math": [("unary_math", (types.float32[::1], types.float32[:, ::1]))],
        "test_kernels_atomics": [("atomic_ops", (types.int64[::1], types.int64[::1], types.int64[:, ::1]))],
    }
    for mod, ks in specs.items():
        m = importlib.import_module(mod)
        for name, args in ks:
            out.append((name, getattr(m, name).py_func, args))
    return out


@pytest.mark.parametrize("name,fn,args", _all_test_kernels(), ids=lambda v: v if isinstance(v, str) else "")
def test_generated_source_compiles_with_gxx(tmp_path, name, fn, args):
    if not shutil.which("g++"):
        pytest.skip("no g++")
    src = tmp_path / "k.cpp"
    src.write_text(compile_kernel(fn, args).source)
    r = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Werror=return-type", "-I", KERNELS,
                        str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)


@pytest.mark.skipif(NVCC is None, reason="no CUDA toolkit")
def test_generated_source_compiles_for_sm90(tmp_path):
    src = tmp_path / "k.cu"
    text = "\n".join(compile_kernel(fn, args).source.replace("#include <cudajit/runtime.h>", "")
                     for _, fn, args in _all_test_kernels()[:4])
    src.write_text("#include <cudajit/runtime.h>\n" + text)
    r = subprocess.run([NVCC, "-std=c++17", "-arch=sm_90", "-cubin", "-I", KERNELS, "-o",
                        str(tmp_path / "k.cubin"), str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_declared_device_signature_converts_arguments_and_result():
    @cuda.jit(device=True)
    def half(x):
        return x / 2

    half.__cudajit_signatures__ = [types.float32(types.float32)]

    def k(a, out):
        out[0] = half(a[0])

    src = compile_kernel(k, (types.float64[::1],) * 2).source
    assert "cj_dev_half_0(float(a_(0)))" in src
    assert "double(float(cj_dev_half_0(" in src


def test_float32_compared_with_exact_constant_stays_float32():
    def k(a):
        if a[0] > 0:
            a[0] = 1
    src = compile_kernel(k, (types.float32[::1],)).source
    assert "if (a_(0) > 0.0f)" in src

"""NVRTC units with only the runtime header's parts their functions recorded as their code was emitted
(compiler/headers.py, kernels/cudajit/runtime.h).

A lean unit must compile to the same code as the whole one: the PTX of each kernel here, lean and whole, is compared
(less the header's unused constants and the debug file numbers, which shift with the files parsed). A unit the lean
compile rejects is compiled whole, and under CUDAJIT_CHECK_NVRTC=1 (CI) that is an error naming the flags.
"""
import cmath
import math
import re

import numpy as np
import pytest

from cudajit import _core, cuda, float32
from cudajit.compiler import CompileOptions, compile_kernel, headers, typeof
from cudajit.cuda import build
from cudajit.errors import CompileError
from cudajit.compiler.headers import LINKED_SOURCES_MARK

needs_nvrtc = pytest.mark.skipif(not _core.nvrtc_available()[0], reason="no NVRTC on this machine")

GPU = CompileOptions().for_backend("gpu")


def plain(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] // 3 + b[i] % 7 + round(a[i] * 0.5) + math.sqrt(abs(b[i]))


def with_complex(z, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = abs(z[i] * z[i] + 1j)


def with_cmath_of_reals(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = cmath.sqrt(x[i]).imag


def with_atomics(a, out):
    i = cuda.grid(1)
    if i < a.size:
        cuda.atomic.add(out, 0, a[i])
        cuda.atomic.max(out, 1, a[i])


def with_half(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = math.sqrt(a[i]) * a[i]


def with_shared_and_sync(a, out):
    tile = cuda.shared.array(32, float32)
    i = cuda.grid(1)
    tile[cuda.threadIdx.x] = a[i]
    cuda.syncthreads()
    out[i] = tile[31 - cuda.threadIdx.x]


def with_cache_hints(a, out):
    i = cuda.grid(1)
    if i < out.size:
        cuda.stcs(out, i, cuda.ldcs(a, i) + 1)


def with_array_sum(a, out):
    out[0] = a.sum()


def with_datetime(t, d, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = t[i] + d[i]


def arr(dtype, ndim=1):
    return typeof(np.zeros((2,) * ndim, dtype))


KERNELS = [
    (plain, (arr(np.float64), arr(np.int64), arr(np.float64)), set()),
    (with_complex, (arr(np.complex128), arr(np.float64)), {"CMATH"}),
    (with_cmath_of_reals, (arr(np.float64), arr(np.float64)), {"CMATH"}),
    (with_atomics, (arr(np.float32), arr(np.float32)), {"ATOMICS"}),
    (with_half, (arr(np.float16), arr(np.float16)), {"HALF"}),
    (with_shared_and_sync, (arr(np.float32), arr(np.float32)), set()),
    (with_cache_hints, (arr(np.float32), arr(np.float32)), {"CACHE_HINTS"}),
    (with_array_sum, (arr(np.float64, 2), arr(np.float64)), {"ARRAY_REDUCTIONS"}),
    (with_datetime, (arr("datetime64[s]"), arr("timedelta64[s]"), arr("datetime64[s]")), {"DATETIME"}),
]


def source_of(fn, argtypes):
    return compile_kernel(fn, argtypes, GPU).source


@pytest.mark.parametrize("fn, argtypes, parts", KERNELS, ids=[k[0].__name__ for k in KERNELS])
def test_parts_follow_the_code(fn, argtypes, parts):
    flags = headers.lean_flags(source_of(fn, argtypes))
    assert flags[0] == "-DCJ_LEAN=1"
    assert {f[len("-DCJ_WANT_"):-2] for f in flags[1:]} >= parts
    if not parts:
        assert flags == ["-DCJ_LEAN=1"]


def normalized_ptx(image):
    keep = []
    for line in image.decode().splitlines():
        t = line.strip()
        if not t or t.startswith("//") or t.startswith(".file") or ".global" in t.split()[:3]:
            continue
        keep.append(re.sub(r"^\.loc\s+\d+", ".loc", re.sub(r"_INTERNAL_[0-9a-f_]+", "", t)))
    return keep


@needs_nvrtc
@pytest.mark.parametrize("fn, argtypes, parts", KERNELS, ids=[k[0].__name__ for k in KERNELS])
def test_lean_units_compile_to_the_same_code(fn, argtypes, parts):
    src = source_of(fn, argtypes)
    flags = build.nvrtc_options(GPU)
    whole = _core.nvrtc_compile(src, "k.cu", flags, 90, False, True)
    lean = _core.nvrtc_compile(src, "k.cu", flags + headers.lean_flags(src), 90, False, True)
    assert normalized_ptx(lean) == normalized_ptx(whole)
    assert len(lean) <= len(whole)


def test_units_with_linked_sources_or_no_parts_line_get_the_whole_header():
    src = source_of(plain, KERNELS[0][1])
    assert headers.lean_flags(LINKED_SOURCES_MARK + "\n" + src) is None
    assert headers.lean_flags('extern "C" __global__ void k() {}') is None
    assert headers.lean_flags(headers.RUNTIME_INCLUDE + "\nint x;") is None       # text program.py did not write
    # the recorded line decides, not the names the code happens to contain
    line = headers.parts_line({"ATOMICS"})
    assert headers.lean_flags(f"{line}\n{headers.RUNTIME_INCLUDE}\n// complex xoro\n") == \
        ["-DCJ_LEAN=1", "-DCJ_WANT_ATOMICS=1"]


def user_identifiers_named_like_parts(atomic_add, complex_, out):
    i = cuda.grid(1)
    if i < out.size:
        xoro = atomic_add[i] + complex_[i]
        out[i] = xoro


def with_record(r, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = r[i].x + r[i].y


def with_half_temporary(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = float32(np.float16(a[i]) * np.float16(2))   # a half that no variable or argument holds


def test_parts_come_from_what_the_code_uses_not_from_its_names():
    f64 = arr(np.float64)
    src = source_of(user_identifiers_named_like_parts, (f64, f64, f64))
    assert headers.lean_flags(src) == ["-DCJ_LEAN=1"]
    rec = typeof(np.zeros(2, np.dtype([("x", np.float64), ("y", np.float16)])))
    assert set(headers.lean_flags(source_of(with_record, (rec, f64)))) >= {"-DCJ_WANT_RECORD=1", "-DCJ_WANT_HALF=1"}
    assert "-DCJ_WANT_HALF=1" in headers.lean_flags(source_of(with_half_temporary, (arr(np.float32),) * 2))


def test_every_part_has_its_header():
    import os
    here = os.path.join(os.path.dirname(__file__), "..", "kernels", "cudajit")
    runtime = open(os.path.join(here, "runtime.h")).read()
    for part, header in headers.PARTS.items():
        assert f"defined(CJ_WANT_{part})" in runtime and os.path.exists(os.path.join(here, header)), part


@needs_nvrtc
def test_a_unit_only_the_whole_header_compiles(monkeypatch):
    """With a part left unrecorded the lean compile fails: the unit is compiled whole (a user never sees it), and
    CI's CUDAJIT_CHECK_NVRTC=1 makes it an error that names the flags."""
    src = source_of(with_atomics, KERNELS[3][1])
    assert headers.parts_line({"ATOMICS"}) in src
    src = src.replace(headers.parts_line({"ATOMICS"}), headers.parts_line(()))     # a need left unrecorded
    flags = build.nvrtc_options(GPU)
    monkeypatch.setenv("CUDAJIT_CHECK_NVRTC", "1")
    with pytest.raises(CompileError, match=r"(?s)whole runtime header but not with \[.-DCJ_LEAN=1.\].*atomic_add"):
        build.nvrtc(src, "k.cu", flags, 90, False)
    monkeypatch.delenv("CUDAJIT_CHECK_NVRTC")
    ptx = build.nvrtc(src, "k.cu", flags, 90, False)
    assert b"atom.global.add.f32" in ptx or b"red.global.add.f32" in ptx


@needs_nvrtc
def test_a_unit_that_does_not_compile_reports_the_whole_compile(monkeypatch):
    src = source_of(plain, KERNELS[0][1]).replace("cj::grid_x()", "cj::no_such_helper()")
    monkeypatch.setenv("CUDAJIT_CHECK_NVRTC", "1")
    with pytest.raises(CompileError) as info:
        build.nvrtc(src, "k.cu", build.nvrtc_options(GPU), 90, False)
    assert "no_such_helper" in str(info.value) and "cudajit bug" not in str(info.value)


@pytest.mark.parametrize("fn, argtypes, parts", KERNELS[:2] + KERNELS[3:6], ids=lambda k: getattr(k, "__name__", ""))
def test_the_kernels_match_numpy(backend, rng, fn, argtypes, parts):
    """The kernels above run on every backend (on the GPU, lean) and agree with NumPy."""
    n = 64
    if fn is plain:
        a, b = rng.uniform(-50, 50, n), rng.integers(-1000, 1000, n)
        out = np.zeros(n)
        cuda.jit(fn)[2, 32](a, b, out)
        want = np.floor_divide(a, 3) + np.mod(b, 7) + np.round(a * 0.5) + np.sqrt(np.abs(b))
        np.testing.assert_allclose(out, want, rtol=1e-14)
    elif fn is with_complex:
        z = rng.standard_normal(n) + 1j * rng.standard_normal(n)
        out = np.zeros(n)
        cuda.jit(fn)[2, 32](z, out)
        np.testing.assert_allclose(out, np.abs(z * z + 1j), rtol=1e-14)
    elif fn is with_atomics:
        a = rng.uniform(0, 10, n).astype(np.float32)
        out = np.zeros(2, np.float32)
        cuda.jit(fn)[2, 32](a, out)
        np.testing.assert_allclose(out, [a.sum(dtype=np.float64), a.max()], rtol=1e-5)
    elif fn is with_half:
        a = rng.uniform(0, 8, n).astype(np.float16)
        out = np.zeros(n, np.float16)
        cuda.jit(fn)[2, 32](a, out)
        want = (np.sqrt(a.astype(np.float32)).astype(np.float16).astype(np.float32) * a).astype(np.float16)
        np.testing.assert_allclose(out.astype(np.float32), want.astype(np.float32), rtol=2e-3)
    else:
        a = rng.standard_normal(n).astype(np.float32)
        out = np.zeros(n, np.float32)
        cuda.jit(fn)[2, 32](a, out)
        np.testing.assert_array_equal(out, a.reshape(2, 32)[:, ::-1].ravel())

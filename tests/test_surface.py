"""numba.cuda's smaller surface (issue 12, item 7): array.reshape and int.bit_count in kernels, constants
(module-level and local) as shared/local array shapes, and the host-side names Numba programs use."""
import numpy as np
import pytest

from cudajit import cuda, float32, int64
from cudajit.cuda import libdevice
from cudajit.cuda.fp16 import hexp10
from cudajit.errors import CudaSupportError, TypingError

TILE = 16            # a module-level constant sizes shared arrays, as in Numba
SHAPE2 = (4, 8)


@cuda.jit
def reshape_rows(a, out):
    b = a.reshape(SHAPE2)              # a tuple
    c = a.reshape(-1, 8)               # integers, one of them inferred
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = b[i // 8, i % 8]
        out[i, 1] = c[i // 8, i % 8]
        out[i, 2] = b.shape[0] * 100 + c.shape[1]


def test_reshape_of_contiguous_array_matches_numpy(backend, rng):
    a = rng.standard_normal(32)
    out = np.zeros((32, 3))
    reshape_rows[1, 32](a, out)
    want = a.reshape(4, 8)
    idx = np.arange(32)
    np.testing.assert_array_equal(out[:, 0], want[idx // 8, idx % 8])
    np.testing.assert_array_equal(out[:, 1], want[idx // 8, idx % 8])
    np.testing.assert_array_equal(out[:, 2], 4 * 100 + 8)


def test_reshape_of_2d_array_writes_through(backend, rng):
    @cuda.jit
    def flatten_double(a):
        flat = a.reshape(a.size)
        i = cuda.grid(1)
        if i < flat.size:
            flat[i] *= 2

    a = rng.standard_normal((6, 5))
    want = a * 2
    flatten_double[1, 32](a)
    np.testing.assert_array_equal(a, want)


def test_reshape_to_wrong_size_raises_under_debug(backend):
    @cuda.jit(debug=True, opt=False)
    def bad(a, out):
        b = a.reshape(5, 7)
        out[0] = b.size

    with pytest.raises(ValueError, match="total size of new array must be unchanged"):
        bad[1, 1](np.zeros(32), np.zeros(1))


def test_reshape_of_non_contiguous_array_is_a_typing_error(backend):
    @cuda.jit
    def strided(a):
        b = a[::2].reshape(2, 8)
        b[0, 0] = 1

    with pytest.raises(TypingError, match="contiguous array only"):
        strided[1, 1](np.zeros(32))


@cuda.jit
def bit_counts(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i].bit_count()


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint32, np.uint64])
def test_int_bit_count_matches_python(backend, rng, dtype):
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, size=64, dtype=dtype, endpoint=True)
    a[:2] = info.min, info.max
    out = np.zeros(64, dtype)
    bit_counts[1, 64](a, out)
    np.testing.assert_array_equal(out, [int(x).bit_count() for x in a])


@cuda.jit
def reverse_in_shared(a, out):
    s = cuda.shared.array(TILE, float32)              # module-level constant
    n = 4
    t = cuda.local.array((n, TILE), int64)            # local constant in a tuple
    i = cuda.threadIdx.x
    s[i] = a[i]
    t[n - 1, i] = i
    cuda.syncthreads()
    out[i] = s[TILE - 1 - i] + t[3, i] * 0


def test_module_and_local_constants_size_arrays(backend, rng):
    a = rng.standard_normal(TILE).astype(np.float32)
    out = np.zeros(TILE, np.float32)
    reverse_in_shared[1, TILE](a, out)
    np.testing.assert_array_equal(out, a[::-1])


def test_a_reassigned_local_is_not_a_constant_shape(backend):
    @cuda.jit
    def varying(a):
        n = 4
        if a[0] > 0:
            n = 8
        s = cuda.local.array(n, float32)
        s[0] = 1

    with pytest.raises(TypingError, match="shape must be a constant"):
        varying[1, 1](np.ones(1))


# numba-cuda's documented cuda.fp16 functions ("16-bit Floating Point Intrinsics"), and the ones its fp16 module adds.
FP16_DOCUMENTED = ("hfma hadd hsub hmul hdiv hneg habs hsin hcos hlog hlog10 hlog2 hexp hexp10 hexp2 hfloor hceil "
                   "hsqrt hrsqrt hrcp hrint htrunc heq hne hge hgt hle hlt hmax hmin htanh htanh_approx "
                   "__hadd __hsub __hmul __hdiv __hneg __habs __hfma __heq __hne __hge __hgt __hle __hlt __hmax "
                   "__hmin __hisnan __hisinf __half2float __float2half __double2half").split()


def test_every_documented_fp16_function_exists_in_both_spellings():
    import cudajit.cuda.fp16 as fp16_module
    for name in FP16_DOCUMENTED:
        assert getattr(fp16_module, name) is getattr(cuda.fp16, name), name
        assert name in getattr(cuda.fp16, name).__doc__


@cuda.jit
def fp16_functions(a, out, flags):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = hexp10(a[i])
        out[i, 1] = cuda.fp16.htanh(a[i])
        out[i, 2] = cuda.fp16.hrcp(a[i])
        out[i, 3] = cuda.fp16.__hadd(a[i], a[i])
        out[i, 4] = cuda.fp16.__float2half(cuda.fp16.__half2float(a[i]) * float32(3.0))
        flags[i, 0] = cuda.fp16.__hisinf(a[i])
        flags[i, 1] = cuda.fp16.__hisnan(a[i])


def test_fp16_functions_match_numpy(backend, rng):
    a = (rng.standard_normal(64) * 2).astype(np.float16)
    a[:4] = [np.inf, -np.inf, np.nan, 0.5]
    out = np.zeros((64, 5), np.float16)
    flags = np.zeros((64, 2), np.int32)
    fp16_functions[1, 64](a, out, flags)
    f = a.astype(np.float32)
    with np.errstate(all="ignore"):
        want = [np.power(np.float32(10), f), np.tanh(f), np.float32(1) / f, f + f, f * np.float32(3)]
        want = [w.astype(np.float16).astype(np.float64) for w in want]
    for k, w in enumerate(want):
        got = out[:, k].astype(np.float64)
        if k < 2:   # exp10, tanh: computed in float, rounded once: within one float16 ulp of NumPy's
            finite = np.isfinite(w)
            assert np.all(np.abs(got[finite] - w[finite]) <= np.spacing(np.abs(w[finite]).astype(np.float16))), k
            np.testing.assert_array_equal(got[~finite], w[~finite])
        else:       # correctly rounded operations: exactly NumPy's
            np.testing.assert_array_equal(got, w, err_msg=str(k))
    np.testing.assert_array_equal(flags[:, 0], np.where(np.isinf(a), np.sign(a), 0))
    np.testing.assert_array_equal(flags[:, 1], np.isnan(a))


@cuda.jit
def libdevice_functions(x, n, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = libdevice.sinf(x[i])
        out[i, 1] = libdevice.pow(x[i], 3)
        out[i, 2] = libdevice.popcll(n[i])
        out[i, 3] = libdevice.brev(n[i])


def test_libdevice_functions_have_libdevices_types(backend, rng):
    x = rng.standard_normal(64)
    n = rng.integers(-2**40, 2**40, size=64)
    out = np.zeros((64, 4))
    libdevice_functions[1, 64](x, n, out)
    np.testing.assert_allclose(out[:, 0], np.sin(x.astype(np.float32)), rtol=2e-7)  # float32, not float64
    assert not np.array_equal(out[:, 0], np.sin(x))
    np.testing.assert_allclose(out[:, 1], x ** 3, rtol=1e-15)
    np.testing.assert_array_equal(out[:, 2], [(int(v) % 2**64).bit_count() for v in n])
    n32 = n.astype(np.int32).view(np.uint32)
    brev = [int(f"{int(v):032b}"[::-1], 2) for v in n32]
    np.testing.assert_array_equal(out[:, 3], np.array(brev, np.uint32).view(np.int32))


def test_libdevice_names_it_does_not_have():
    with pytest.raises(AttributeError, match="no function 'erfcinvv'"):
        libdevice.erfcinvv
    with pytest.raises(ImportError):
        from cudajit.cuda.libdevice import not_a_function  # noqa: F401
    from cudajit.cuda.libdevice import erfcinvf, fadd_rz  # noqa: F401  (all of numba-cuda's: test_libdevice.py)


def test_compile_ptx_of_a_kernel_and_of_a_device_function():
    from cudajit import _core
    if not _core.nvrtc_available()[0]:
        pytest.skip("NVRTC not found")

    def scale(r, a, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = a * x[i]

    def mul_add(x, y):
        return x * y + 1

    ptx, rt = cuda.compile_ptx(scale, "void(float32[:], float32, float32[:])", cc=(8, 0))
    assert str(rt) == "none" and ".target sm_80" in ptx and ".entry" in ptx
    ptx, rt = cuda.compile_ptx(mul_add, (float32, float32), device=True)       # Numba's ABI: int status
    assert str(rt) == "float64"           # float32 * float32 + int literal is float64 in Numba
    assert ".visible .func  (.param .b32 func_retval0) mul_add(" in ptx
    assert ".target sm_75" in ptx         # config.CUDA_DEFAULT_PTX_CC
    ptx, rt = cuda.compile(mul_add, "float32(float32, float32)", abi_info={"abi_name": "fused"})  # the C ABI
    assert str(rt) == "float32" and ".visible .func  (.param .b32 func_retval0) fused(" in ptx
    ptx, _ = cuda.compile_ptx_for_current_device(scale, "void(float32[:], float32, float32[:])")
    cc = cuda.get_current_device().compute_capability
    assert f".target sm_{cc[0]}{cc[1]}" in ptx
    with pytest.raises(NotImplementedError, match="PTX only"):
        cuda.compile(mul_add, "float32(float32, float32)", output="ltoir")
    with pytest.raises(TypeError, match="must return void"):
        cuda.compile_ptx(scale, "float32(float32[:], float32, float32[:])")
    oldest = min(_core.nvrtc_supported_archs())
    with pytest.raises(CudaSupportError,
                       match=rf"compute capability 5\.0 is not supported .*>= {oldest // 10}\.{oldest % 10}"):
        cuda.compile_ptx(mul_add, (float32, float32), device=True, cc=(5, 0))


def test_inspect_sass_and_ptx(backend):
    from cudajit import _core
    from cudajit.cuda import ptx as ptx_module
    from cudajit.errors import CudaSupportError

    @cuda.jit(lineinfo=True, cache=True, lto=True)        # options numba-cuda code passes are accepted
    def fill(a):
        a[cuda.grid(1)] = 7

    fill[1, 4](np.zeros(4))
    if not _core.nvrtc_available()[0]:
        pytest.skip("NVRTC not found")
    sig = next(iter(fill.signatures))
    assert ".entry" in fill.inspect_ptx(sig) and ".loc" in fill.inspect_ptx(sig)    # lineinfo reached NVRTC
    if ptx_module._sass_tool() is None:
        with pytest.raises(CudaSupportError, match="cuobjdump or nvdisasm"):
            fill.inspect_sass(sig)
    else:
        assert "STG" in fill.inspect_sass(sig) or "ST.E" in fill.inspect_sass(sig)


def test_nvrtc_extra_search_paths_reach_linked_sources(backend, tmp_path, monkeypatch):
    from cudajit import config
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "triple.h").write_text("#define CJ_TEST_TRIPLE(x) (3 * (x))\n")
    src = tmp_path / "triple.cu"
    src.write_text('#include "triple.h"\nextern "C" __device__ int triple(double* r, double x) '
                   '{ *r = CJ_TEST_TRIPLE(x); return 0; }\n')
    triple = cuda.declare_device("triple", "float64(float64)", link=[str(src)])

    @cuda.jit(link=[str(src)])
    def apply(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = triple(a[i])

    monkeypatch.setattr(config, "CUDA_NVRTC_EXTRA_SEARCH_PATHS", str(tmp_path / "inc"))
    a = np.arange(8.0)
    apply[1, 8](a)
    np.testing.assert_array_equal(a, np.arange(8.0) * 3)


def test_host_names_numba_programs_use(backend, rng):
    assert cuda.is_available() is bool(__import__("cudajit")._backend.gpu_status()[0])   # a driver and a GPU
    cuda.profile_start()
    with cuda.defer_cleanup(), cuda.profiling():
        d = cuda.to_device(rng.standard_normal(16))
        del d
    cuda.profile_stop()
    assert cuda.config is __import__("cudajit.config").config
    from cudajit.core.errors import LiteralTypingError, NumbaError, RequireLiteralValueError
    from cudajit.core.errors import TypingError as CoreTypingError
    assert CoreTypingError is TypingError and issubclass(LiteralTypingError, TypingError)
    assert issubclass(RequireLiteralValueError, NumbaError)


def test_c_named_type_aliases(backend, rng):
    """numba.size_t, ssize_t, char, uchar, int_ and uint (a RANSAC kernel's cuda.local.array(n, nb.size_t)), as
    dtypes and in signature strings; Numba's values on 64-bit Linux."""
    import cudajit as nb
    assert (nb.size_t, nb.ssize_t, nb.char, nb.uchar, nb.int_, nb.uint) == \
        (nb.uint64, nb.int64, nb.int8, nb.uint8, nb.int64, nb.uint64)

    @cuda.jit("void(float64[:], size_t[:], ssize_t)")
    def pick(x, out, shift):
        i = cuda.grid(1)
        idx = cuda.local.array(3, dtype=nb.size_t)
        small = cuda.local.array(1, dtype=nb.char)
        if i < out.size:
            for k in range(3):
                idx[k] = nb.int32(x[i] * (k + 1))
            small[0] = -3
            out[i] = idx[0] + idx[1] + idx[2] + shift + small[0]

    x = rng.random(50) * 100
    out = np.zeros(50, np.uint64)
    pick[1, 64](x, out, 11)
    expect = sum((x * (k + 1)).astype(np.int32).astype(np.int64) for k in range(3)) + 11 - 3
    np.testing.assert_array_equal(out, expect.astype(np.uint64))


def test_device_array_stream_and_cuda_array_interface(backend, rng):
    s = cuda.stream()
    a = rng.standard_normal(8)
    d = cuda.to_device(a, stream=s)
    s.synchronize()
    assert d.stream is s and d.__cuda_array_interface__["stream"] == (s.handle or None)
    d0 = cuda.to_device(a)
    assert d0.stream == 0 and d0.__cuda_array_interface__["stream"] is None
    np.testing.assert_array_equal(d.copy_to_host(), a)


def test_device_array_like_follows_the_stride_order_of_a_view(backend, rng):
    f = np.asfortranarray(rng.standard_normal((4, 6)))
    view = f[:, ::2]                        # F-ordered, not contiguous
    twisted = np.zeros((3, 4, 5)).transpose(2, 0, 1)[:, :, ::2]
    for host in (f, view, view.T, twisted, np.zeros((4, 6))[::2]):
        want = np.empty_like(host)
        for like in (cuda.device_array_like, cuda.pinned_array_like, cuda.mapped_array_like):   # numba-cuda's rule
            got = like(host)
            assert got.shape == host.shape and got.strides == want.strides, (like.__name__, host.strides)


def test_forall_checks_its_arguments(backend):
    @cuda.jit
    def inc(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    a = np.zeros(100)
    inc.forall(a.size)(a)
    inc.forall(a.size, tpb=32)(a)
    np.testing.assert_array_equal(a, 2)
    with pytest.raises(TypeError, match="ntasks"):
        inc.forall(1.5)
    with pytest.raises(ValueError, match="ntasks"):
        inc.forall(-1)
    with pytest.raises(TypeError, match="tpb"):
        inc.forall(10, tpb=-4)


def test_numba_cuda_030_host_names(backend):
    # numba-cuda 0.30's cuda.runtime (NVRTC's version), the feature queries and require_context
    from cudajit import _core
    assert cuda.runtime.get_version() == tuple(_core.nvrtc_version()) and len(cuda.runtime.get_version()) == 2
    assert cuda.runtime.is_supported_version() is (cuda.runtime.get_version()[0] in (12, 13))
    assert cuda.is_float16_supported() is True
    want_bf16 = backend == "cpu" or cuda.get_current_device().compute_capability >= (8, 0)
    assert cuda.is_bfloat16_supported() is want_bf16                                    # numba-cuda's answer
    want_fp8 = backend == "cpu" or cuda.get_current_device().compute_capability >= (8, 9)
    assert cuda.is_fp8_supported() is want_fp8                                          # numba-cuda's answer
    from cudajit.cuda import api                                                        # numba.cuda.api
    assert api.is_fp8_supported is cuda.is_fp8_supported and api.to_device is cuda.to_device

    @cuda.require_context
    def doubled(x, *, by=2):
        """Its docstring."""
        return x * by
    assert doubled(21) == 42 and doubled(2, by=5) == 10
    assert doubled.__name__ == "doubled" and doubled.__doc__ == "Its docstring."
    with pytest.raises(TypeError, match=r"set_memory_manager\(NotAPlugin\): not an EMM plugin class"):
        cuda.set_memory_manager(type("NotAPlugin", (), {}))
    # IPC: tests/test_ipc.py


@cuda.jit
def unrolled_sum(out):
    # cuda.literal_unroll, numba-cuda 0.30's spelling, over a tuple of mixed types
    acc = 0.0
    for v in cuda.literal_unroll((1, 2.5, np.float32(0.25), True)):
        acc += v
    out[0] = acc


def test_cuda_literal_unroll_is_numbas(backend):
    from cudajit import literal_unroll
    assert cuda.literal_unroll is literal_unroll
    out = np.zeros(1)
    unrolled_sum[1, 1](out)
    assert out[0] == 1 + 2.5 + 0.25 + 1


def test_device_array_squeeze_and_getitem_match_numpy(backend, rng):
    a = rng.standard_normal((1, 5, 1, 3))
    d = cuda.to_device(a)
    for axis in (None, 0, 2, -2, (0, 2), (2, -4)):
        got = d.squeeze(axis)
        want = a.squeeze(axis)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.copy_to_host(), want)
    view = d[:, 1:, :, ::2].squeeze()                      # strided: a view of the same memory, no copy
    np.testing.assert_array_equal(view.copy_to_host(), a[:, 1:, :, ::2].squeeze())
    view[0, 0] = 7.0
    assert d.copy_to_host()[0, 1, 0, 0] == 7.0
    with pytest.raises(ValueError, match="cannot squeeze out axis 1, whose length is 5"):
        d.squeeze(1)
    with pytest.raises(np.exceptions.AxisError):
        d.squeeze(4)
    with pytest.raises(TypeError, match="axis must be an int"):
        d.squeeze(1.0)
    s = cuda.stream()
    assert d.squeeze(stream=s).stream is s
    a[0, 1, 0, 0] = 7.0
    assert d.getitem((0, 3, 0, 2), stream=s) == a[0, 3, 0, 2]
    assert d.getitem((0, 4, 0, 1)) == a[0, 4, 0, 1]
    part = d.getitem((0, slice(1, 4)), stream=s)
    assert part.stream is s
    np.testing.assert_array_equal(part.copy_to_host(), a[0, 1:4])


def test_dispatcher_and_overload_names_numba_programs_use(backend, rng):
    from test_arrays import _scaled_copy as scaled_copy    # out[i] = src[i] * factor
    a = rng.standard_normal(100)
    out = np.zeros_like(a)
    scaled_copy.configure(1, 128)(out, a, 3.0)              # Numba's older launch spelling
    np.testing.assert_array_equal(out, a * 3.0)
    s = cuda.stream()
    d_out = cuda.device_array_like(a)
    scaled_copy.configure((1,), (128,), s, 0)(d_out, cuda.to_device(a, stream=s), 0.5)
    s.synchronize()
    np.testing.assert_array_equal(d_out.copy_to_host(), a * 0.5)
    assert scaled_copy.enable_caching() is None
    assert scaled_copy.overloads                            # (test_arrays' launches may have added more)
    for sig, overload in scaled_copy.overloads.items():
        assert overload.regs_per_thread == scaled_copy.get_regs_per_thread(sig)
        assert overload.shared_mem_per_block == scaled_copy.get_shared_mem_per_block(sig) == 0
        assert overload.local_mem_per_thread == scaled_copy.get_local_mem_per_thread(sig)
        assert overload.const_mem_size == scaled_copy.get_const_mem_size(sig)
        assert overload.max_threads_per_block == scaled_copy.get_max_threads_per_block(sig) >= 128
    with pytest.raises(NotImplementedError, match="no LLVM IR.*inspect_source"):
        scaled_copy.inspect_llvm()
    with pytest.raises(RuntimeError, match="LTO is not enabled"):      # numba-cuda's words without lto=True
        scaled_copy.inspect_lto_ptx()


def test_inspect_lto_ptx_is_the_units_ptx(backend, rng):
    # numba-cuda's test_operator checks its half arithmetic this way: the f16 instructions in the PTX after LTO
    from cudajit import float16

    def halves(out, x, y):
        out[0] = x + y
        out[1] = x * y
        out[2] = -x
        out[3] = x < y

    k = cuda.jit("void(f2[:], f2, f2)", lto=True)(halves)
    ptx = k.inspect_lto_ptx(k.signatures[0])
    assert ptx == k.inspect_asm(k.signatures[0])
    for instr in ("add.f16", "mul.f16", "neg.f16", "setp.lt.f16"):
        assert instr in ptx, instr
    lazy = cuda.jit(lto=True)(halves).specialize(np.zeros(4, np.float16), float16(1), float16(2))
    [lazy_ptx] = lazy.inspect_lto_ptx().values()
    assert "add.f16" in lazy_ptx
    x, y = np.float16(rng.standard_normal()), np.float16(rng.standard_normal())
    out = np.zeros(4, np.float16)
    k[1, 1](out, x, y)
    np.testing.assert_array_equal(out, [x + y, x * y, -x, x < y])

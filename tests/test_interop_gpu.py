"""CuPy and PyTorch arrays pass to and from cudajit without copies (same pointer)."""
import numpy as np
import pytest

from cudajit import cuda

pytestmark = pytest.mark.gpu


@pytest.fixture
def gpu():
    from cudajit import _backend
    with _backend.use("gpu"):
        yield


def test_cupy_both_ways(gpu, rng):
    cp = pytest.importorskip("cupy")
    x = cp.asarray(rng.standard_normal((64, 32)).astype(np.float32))
    d = cuda.as_cuda_array(x)
    assert d._ptr == x.data.ptr and d.shape == x.shape and d.dtype == np.float32
    np.testing.assert_array_equal(d.copy_to_host(), cp.asnumpy(x))
    y = cp.asarray(d)                       # CuPy consumes our __cuda_array_interface__
    assert y.data.ptr == d._ptr
    z = cp.from_dlpack(d)                   # and our DLPack
    assert z.data.ptr == d._ptr
    w = cuda.from_dlpack(x)
    assert w._ptr == x.data.ptr


def test_torch_both_ways(gpu, rng):
    torch = pytest.importorskip("torch")
    t = torch.randn(128, 3, device="cuda")
    d = cuda.as_cuda_array(t)
    assert d._ptr == t.data_ptr()
    np.testing.assert_array_equal(d.copy_to_host(), t.cpu().numpy())
    u = torch.from_dlpack(d)
    assert u.data_ptr() == d._ptr
    v = torch.as_tensor(d, device="cuda")
    assert v.data_ptr() == d._ptr
    w = cuda.from_dlpack(t)
    assert w._ptr == t.data_ptr()
    tt = t.t()                              # a transposed (F-ordered) view keeps its strides
    dt = cuda.as_cuda_array(tt)
    np.testing.assert_array_equal(dt.copy_to_host(), tt.cpu().numpy())


def test_raw_kernel_on_cupy_array(gpu, rng):
    cp = pytest.importorskip("cupy")
    from cudajit.cuda import RawKernel
    k = RawKernel(r'''extern "C" __global__ void twice(float* x, long long n) {
        long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) x[i] *= 2.0f; }''', "twice")
    a = rng.standard_normal(1000).astype(np.float32)
    x = cp.asarray(a)
    k[4, 256](x, x.size)
    cp.cuda.Device().synchronize()
    np.testing.assert_allclose(cp.asnumpy(x), 2 * a)


@cuda.jit
def _bf16_axpy(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * cuda.bf16.float32_to_bfloat16(2.0) + b[i]


def test_cupy_bfloat16_arrays_in_kernels(gpu, rng):
    """CuPy 14's bfloat16 arrays (ml_dtypes) pass to kernels as numba-cuda 0.30's test_cupy_bfloat16_interop does,
    through their interface's '<V2' typestr; cudajit's pass back to CuPy."""
    cp = pytest.importorskip("cupy")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bf = ml_dtypes.bfloat16
    a_h = rng.standard_normal(300).astype(bf)
    b_h = rng.standard_normal(300).astype(bf)
    try:
        a = cp.asarray(a_h)
    except Exception as e:      # noqa: BLE001 - a CuPy without bfloat16
        pytest.skip(f"this CuPy has no bfloat16 arrays: {e}")
    b = cp.asarray(b_h)
    out = cp.empty(300, dtype=bf)
    assert a.__cuda_array_interface__["typestr"] == "<V2", a.__cuda_array_interface__
    _bf16_axpy[3, 128](a, b, out)
    np.testing.assert_array_equal(cp.asnumpy(out), (a_h.astype(np.float32) * 2 + b_h.astype(np.float32)).astype(bf))
    d = cuda.as_cuda_array(out)
    assert d.dtype == bf and d._ptr == out.data.ptr
    back = cp.asarray(cuda.to_device(a_h))         # CuPy 14.2 reads '<V2' as 2-byte void items: the same bits
    assert back.data.ptr and back.dtype.itemsize == 2
    np.testing.assert_array_equal(cp.asnumpy(back).view(np.uint16), a_h.view(np.uint16))


def test_torch_bfloat16_tensors_in_kernels(gpu, rng):
    """PyTorch's bfloat16 tensors have no __cuda_array_interface__ (reading it raises): kernels take them through
    DLPack, and torch.from_dlpack takes cudajit's bfloat16 arrays (kDLBfloat)."""
    torch = pytest.importorskip("torch")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bf = ml_dtypes.bfloat16
    a_h = rng.standard_normal(300).astype(bf)
    b_h = rng.standard_normal(300).astype(bf)
    a = torch.from_dlpack(cuda.to_device(a_h))
    assert a.dtype == torch.bfloat16 and a.is_cuda
    b = torch.from_dlpack(cuda.to_device(b_h))
    out = torch.empty(300, dtype=torch.bfloat16, device="cuda")
    _bf16_axpy[3, 128](a, b, out)
    got = cuda.from_dlpack(out).copy_to_host()
    np.testing.assert_array_equal(got, (a_h.astype(np.float32) * 2 + b_h.astype(np.float32)).astype(bf))

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

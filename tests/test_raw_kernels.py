"""Raw CUDA C++ kernels: NVRTC compiles them everywhere (sm_90 without a GPU); on a GPU they
launch with Numba's syntax and match NumPy; bad launch configurations fail before launching."""
import numpy as np
import pytest

from cudajit import cuda
from cudajit.cuda import RawKernel, RawModule
from cudajit.errors import CompileError, LaunchError

VECADD = r'''
extern "C" __global__ void vadd(const float* a, const float* b, float* c, long long n, float alpha) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) c[i] = alpha * a[i] + b[i];
}
'''


def test_compiles_to_sm90_cubin_and_ptx_without_gpu():
    m = RawModule(VECADD)
    cubin = m.compile(arch=90, cubin=True)
    assert cubin[:4] == b"\x7fELF"
    ptx = m.compile(arch=90, cubin=False).decode()
    assert ".target sm_90" in ptx and "vadd" in ptx


def test_compile_error_carries_nvrtc_log():
    with pytest.raises(CompileError) as e:
        RawModule("extern \"C\" __global__ void k() { undeclared_thing = 1; }").compile(arch=90)
    assert "undeclared_thing" in str(e.value)


@pytest.mark.gpu
def test_vector_add_matches_numpy(rng):
    from cudajit import _backend
    with _backend.use("gpu"):
        n = 100_003
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        da, db, dc = cuda.to_device(a), cuda.to_device(b), cuda.device_array(n, np.float32)
        k = RawKernel(VECADD, "vadd")
        k[(n + 255) // 256, 256](da, db, dc, n, np.float32(2.5))
        np.testing.assert_allclose(dc.copy_to_host(), 2.5 * a + b, rtol=1e-5, atol=1e-6)  # NVRTC contracts to an FMA
        s = cuda.stream()
        k[((n + 127) // 128,), (128,), s, 0](da, db, dc, n, np.float32(-1.0))
        s.synchronize()
        np.testing.assert_allclose(dc.copy_to_host(), -a + b, rtol=1e-6)


@pytest.mark.gpu
@pytest.mark.parametrize("grid,block", [(0, 32), (1, 0), (-1, 32), (1, 2048), ((1, 1, 1, 1), 32), (1, (32, 32, 2)),
                                        (1, (1, 1, 65)), ((), 32)])
def test_bad_launch_config_raises_before_launch(grid, block):
    from cudajit import _backend
    with _backend.use("gpu"):
        k = RawKernel(VECADD, "vadd")
        d = cuda.device_array(4, np.float32)
        with pytest.raises((LaunchError, ValueError, OverflowError)):   # OverflowError: beyond CUDA's limits
            k[grid, block](d, d, d, 4, np.float32(1))


@pytest.mark.gpu
def test_wrong_argument_count():
    from cudajit import _backend
    with _backend.use("gpu"):
        k = RawKernel(VECADD, "vadd")
        d = cuda.to_device(np.arange(4, dtype=np.float32))    # written: the kernel reads it (initcheck)
        k[1, 32](d, d, d, 4, np.float32(1))
        cuda.synchronize()

"""Non-ASCII identifiers (PEP 3131), as in stumpy's GPU kernels (μ_Q, σ_Q, Σ_T, ρ): the C++ spells them by code
point, since g++ takes UTF-8 identifiers but NVRTC does not. Parameters, locals, loop variables, a device function,
a kernel and a frozen global array of such names."""
import numpy as np

from cudajit import cuda

ΔT = np.array([0.5, 1.5, 2.5])


@cuda.jit(device=True)
def φ(x, β):
    return x * β


@cuda.jit
def ρ_kernel(μ_Q, σ_Q, out):
    i = cuda.grid(1)
    if i < out.size:
        ρ = 0.0
        for λ in range(3):
            ρ += φ(μ_Q[i], σ_Q[i]) * ΔT[λ]
        α, β = ρ, ρ * 2
        out[i] = α + β


def test_non_ascii_identifiers(backend, rng):
    μ = rng.standard_normal(40)
    σ = rng.random(40)
    out = np.zeros(40)
    ρ_kernel[1, 64](μ, σ, out)
    np.testing.assert_allclose(out, 3 * μ * σ * ΔT.sum(), rtol=1e-14)
    src = next(iter(ρ_kernel.inspect_source().values()))
    code = [line for line in src.splitlines() if not line.lstrip().startswith("//")]
    assert all(line.isascii() for line in code)            # the names only in comments

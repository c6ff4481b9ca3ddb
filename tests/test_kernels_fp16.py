"""float16 in kernels: arrays and scalars of NumPy's float16, arithmetic that stays in half precision (each
operation rounded once, as NumPy's), NumPy's result types when mixed, math functions and cuda.fp16.*."""
import math
import os
import sys

import numpy as np

from cudajit import cuda, float16

sys.path.insert(0, os.path.dirname(__file__))


@cuda.jit
def half_flags(a, b, flags):
    i = cuda.grid(1)
    if i < a.size:
        flags[i, 0] = a[i] < b[i]
        flags[i, 1] = cuda.fp16.heq(a[i], a[i])
        flags[i, 2] = math.isnan(a[i])
        flags[i, 3] = cuda.fp16.hmin(a[i], b[i]) == min(a[i], b[i])


def test_half_arithmetic_matches_numpy(backend, rng):
    # the kernel the numba-cuda parity test runs, here against NumPy's float16 (results stored as float64)
    from numba_parity_kernels import HALF_OPS, load
    n = 200
    a = (rng.standard_normal(n) * 4).astype(np.float16)
    b = (rng.standard_normal(n) * 4).astype(np.float16)
    b[b == 0] = np.float16(0.5)
    a[a == 0] = np.float16(0.25)
    a[-1] = np.nan
    out = np.zeros((n, len(HALF_OPS)))
    load("cudajit").half_ops[1, 256](a, b, out)
    col = {op: out[:, k] for k, op in enumerate(HALF_OPS)}
    with np.errstate(all="ignore"):
        exact = {"+": a + b, "-": a - b, "*": a * b, "/": a / b, "neg": -a, "abs": np.abs(a),
                 "hfma": (a.astype(np.float64) * b + a).astype(np.float16), "hmax": np.fmax(a, b),
                 "*int8": a * np.int8(3),                          # float16 op int8 stays float16 (NumPy)
                 "*f32": a * np.float32(1.1),                      # float16 op float32 is float32
                 "+i32": a.astype(np.float64) + 3,                 # float16 op int32 is float64
                 "<": a < b, "*2.5": a.astype(np.float64) * 2.5}
        for op, want in exact.items():
            np.testing.assert_array_equal(col[op], want.astype(np.float64), err_msg=op)
        twice_rounded = (a * b + a).astype(np.float64)
        if backend == "gpu":    # ptxas may fuse mul.f16 and add.f16 into fma.f16, as in numba-cuda's code
            fused = (a.astype(np.float64) * b + a).astype(np.float16).astype(np.float64)
            ok = (col["*+"] == twice_rounded) | (col["*+"] == fused) | (np.isnan(col["*+"]) & np.isnan(fused))
            assert ok.all(), col["*+"][~ok]
        else:
            np.testing.assert_array_equal(col["*+"], twice_rounded)
        # math in half: the float32 result rounded to half (within a half ulp or two of the exact value)
        for op, f in (("sqrt", lambda v: np.sqrt(np.abs(v))), ("exp", np.exp), ("log", lambda v: np.log(np.abs(v))),
                      ("sin", np.sin)):
            np.testing.assert_allclose(col[op][:-1], f(a[:-1].astype(np.float64)), rtol=1e-3, atol=6e-8,
                                       err_msg=op)     # half subnormals are spaced 6e-8 apart
    flags = np.zeros((n, 4), np.bool_)
    half_flags[1, 256](a, b, flags)
    np.testing.assert_array_equal(flags[:, 0], a < b)
    np.testing.assert_array_equal(flags[:, 1], a == a)
    np.testing.assert_array_equal(flags[:, 2], np.isnan(a))
    assert flags[:-1, 3].all()


@cuda.jit
def scale_half(a, s, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * s + float16(0.25)


def test_half_scalar_argument_and_typing(backend, rng):
    a = rng.standard_normal(50).astype(np.float16)
    out = np.zeros(50, np.float16)
    scale_half[1, 64](a, np.float16(1.5), out)
    twice_rounded = a * np.float16(1.5) + np.float16(0.25)
    if backend == "gpu":    # mul.f16 then add.f16, which ptxas may fuse into fma.f16 as numba-cuda's code is
        fused = (a.astype(np.float64) * 1.5 + 0.25).astype(np.float16)
        assert ((out == twice_rounded) | (out == fused)).all(), out[(out != twice_rounded) & (out != fused)]
    else:
        np.testing.assert_array_equal(out, twice_rounded)
    assert "float16" in str(scale_half.signatures[0])

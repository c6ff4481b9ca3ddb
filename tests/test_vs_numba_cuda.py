"""Differential tests against numba-cuda itself (GPU only, where numba-cuda is installed): one Python source per
kernel, typed and compiled by both, run on the same random inputs. Integer and real results must agree bit for
bit (Numba's typing rules: result types, wrap-around, Python's // and % and shifts, math functions); complex
results to a few ulps (which product NVVM fuses into an FMA depends on the surrounding code), with the same
precision (complex64 or complex128) for every function.

Where numba-cuda departs from Python, cudajit keeps Python's answer, and the tests check that instead:
- float ``%`` and ``//`` when the divisor is infinite or the quotient is beyond 2**20: NVVM lowers ``frem`` as
  ``x - trunc(x/y)*y``, so numba-cuda gives ``100.0 % inf == nan`` and inexact remainders of huge quotients;
- ``round(x, n)`` when ``x * 10**n`` is beyond 2**63: numba-cuda rounds through an int64 and saturates
  (cudajit scales, rounds and scales back in float64);
- ``x ** n`` for a float x and the integer n = -2**63: numba-cuda raises OverflowError, which silently ends the
  thread (no debug), where cudajit returns the float power."""
import math
import os
import re
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture(scope="module")
def both():
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack                         # numba-cuda 0.30 under NumPy 2.5
    pytest.importorskip("numba.cuda")
    from cudajit import _backend
    import numba_parity_kernels as K
    with _backend.use("gpu"):
        yield K.load("cudajit"), K.load("numba")


def _run_both(both, name, args, outs):
    """Run kernel ``name`` of each library on copies of ``outs``; returns (cudajit outputs, numba outputs)."""
    from numba import cuda as ncuda
    from cudajit import cuda
    cj, nb = both
    n = (args or outs)[0].shape[0]
    grid, block = (n + 127) // 128, 128
    res = []
    for lib, mod in ((cuda, cj), (ncuda, nb)):
        dev_args = [lib.to_device(a) for a in args]
        dev_outs = [lib.to_device(o.copy()) for o in outs]
        getattr(mod, name)[grid, block](*dev_args, *dev_outs)
        res.append([d.copy_to_host() for d in dev_outs])
    return res


def _same_bits(c, nb):
    return (c == nb) | (np.isnan(c) & np.isnan(nb))


def _assert_columns_agree(title, labels, agree, c, nb, inputs):
    """Fail listing, per column whose rows do not all agree, the first disagreeing row's inputs and outputs."""
    bad = []
    for k, label in enumerate(labels):
        ok = agree(k)
        if isinstance(ok, str):
            bad.append(f"{label}: {ok}")
        elif not ok.all():
            j = int(np.argmin(ok))
            args = " ".join(f"{name}={v[j]!r}" for name, v in inputs.items())
            bad.append(f"{label}: {args} cudajit={c[j, k]!r} numba={nb[j, k]!r} ({(~ok).sum()} rows)")
    assert not bad, f"{title}:\n" + "\n".join(bad)


def _random_ints(rng, dt, n):
    info = np.iinfo(dt)
    lo, hi = max(info.min, -2**62), min(info.max, 2**62)
    v = rng.integers(lo, hi, n, dtype=np.int64 if info.min < 0 else np.uint64, endpoint=True).astype(dt)
    v[:8] = np.array([0, 1, 2, 3, 5, 7, 100, 1000], dtype=np.int64).astype(dt)
    if info.min < 0:
        v[8:16] = np.array([-1, -2, -3, -7, -100, info.min, info.max, -5], dtype=np.int64).astype(dt)
    return v


INT_PAIRS = [("i1", "i1"), ("i1", "u1"), ("i2", "i4"), ("i4", "i4"), ("i4", "u4"), ("u4", "u4"), ("i8", "i8"),
             ("u8", "u8"), ("i8", "u8"), ("u8", "i4"), ("u2", "i8"), ("u1", "u1"), ("i4", "i8")]


@pytest.mark.parametrize("ta,tb", INT_PAIRS, ids=[f"{a}-{b}" for a, b in INT_PAIRS])
def test_integer_arithmetic_matches_numba_cuda(both, rng, ta, tb):
    from numba_parity_kernels import INT_OPS
    n = 512
    a = _random_ints(rng, np.dtype(ta), n)
    b = _random_ints(rng, np.dtype(tb), n)
    b[b == 0] = 3                                         # division by zero is checked separately
    outf, outi = np.zeros((n, len(INT_OPS))), np.zeros((n, len(INT_OPS)), np.int64)
    (cf, ci), (nf, ni) = _run_both(both, "int_ops", (a, b), (outf, outi))
    # -x and abs(x) of the most negative 8- or 16-bit x: Numba computes them in x's type, so they are x itself
    # (NumPy's wrap; numba.njit agrees). numba-cuda 0.30.4 on the H200 answers +2**15 in the int64 column (CUDA
    # 13.0's ptxas drops the sign extension after PTX neg.s16/abs.s16, see kernels/cudajit/arith.h): on those rows
    # cudajit is held to Numba's rule, not to numba-cuda's answer.
    edge = (a == np.iinfo(a.dtype).min) if a.dtype.kind == "i" and a.dtype.itemsize < 4 else np.zeros(n, bool)
    with np.errstate(over="ignore"):
        numba_rule = {INT_OPS.index("neg"): np.negative(a).astype(np.int64),
                      INT_OPS.index("abs"): np.abs(a).astype(np.int64)}

    def agree(k):
        same = (ci[:, k] == ni[:, k]) & _same_bits(cf[:, k], nf[:, k])
        if k in numba_rule:
            same |= edge & (ci[:, k] == numba_rule[k]) & (cf[:, k] == numba_rule[k])
        return same
    _assert_columns_agree(f"{ta} op {tb}", INT_OPS, agree, cf, nf, {"x": a, "y": b})


@pytest.mark.parametrize("ta,tb", [("i8", "i8"), ("u4", "u4"), ("f8", "f8"), ("f4", "f4"), ("i4", "f8")])
def test_division_by_zero_matches_numba_cuda(both, rng, ta, tb):
    from numba_parity_kernels import ZERO_DIV_OPS
    n = 64
    a = _random_floats(rng, ta, n)
    b = np.zeros(n, tb)
    out = np.full((n, len(ZERO_DIV_OPS)), -777.0)          # what a thread leaves unwritten stays -777
    (c,), (nb,) = _run_both(both, "zero_div", (a, b), (out,))
    _assert_columns_agree(f"{ta} op {tb} zero", ZERO_DIV_OPS, lambda k: _same_bits(c[:, k], nb[:, k]), c, nb, {"x": a})


@pytest.mark.parametrize("dt", ["i8", "u4", "f8", "f4"])
@pytest.mark.parametrize("op", [0, 1, 2], ids=["floordiv", "mod", "truediv"])
def test_division_by_zero_under_debug_raises_as_numba_cuda(both, dt, op):
    from numba import cuda as ncuda
    from cudajit import cuda
    a = np.arange(1, 65).astype(dt)
    b = np.ones(64, dt)
    b[37] = 0
    messages = []
    for lib, mod in ((cuda, both[0]), (ncuda, both[1])):
        out = lib.to_device(np.zeros(64))
        with pytest.raises(ZeroDivisionError) as info:
            mod.zero_div_debug[2, 32](lib.to_device(a), lib.to_device(b), out, op)
            lib.synchronize()
        messages.append(str(info.value))
    cj_msg, nb_msg = messages
    assert "tid=[5, 0, 0] ctaid=[1, 0, 0]" in cj_msg, cj_msg
    assert nb_msg.split(": ", 1)[-1].strip() in cj_msg, (cj_msg, nb_msg)
    # numba-cuda 0.30.4 says "tid=[0, 0, 5] ctaid=[0, 0, 1]: division by zero" here: no location (its division has
    # none to give) and the thread's coordinates as [z, y, x]. cudajit gives x, y, z and the place, in the words
    # numba-cuda uses for a raise that has one (test_userexc): In function 'f', file <absolute path>, line N, ...
    assert nb_msg.startswith("tid=[0, 0, 5] ctaid=[0, 0, 1]: "), nb_msg
    pattern = r"In function 'zero_div_debug', file /\S+\.py, line \d+, tid=\[5, 0, 0\] ctaid=\[1, 0, 0\]: "
    assert re.match(pattern, cj_msg), cj_msg


@pytest.mark.parametrize("dt", ["i8", "f8"])
@pytest.mark.parametrize("case", range(12))
def test_raising_statement_leaves_what_numba_cuda_leaves(both, rng, case, dt):
    """debug=True: the statement that raised stores nothing and the thread stops there, while what ran before the
    raise in the same expression (a device function's write, an atomic) is done: both leave the same arrays
    (tests/test_kernels_debug_halt.py checks the same kernel against Python on every backend)."""
    from numba import cuda as ncuda
    from cudajit import cuda
    from numba_parity_kernels import HALT_CASES
    n = 64
    x = (rng.integers(-9, 10, n) | 1).astype(dt) if dt == "i8" else rng.uniform(-4, 4, n)
    x[rng.choice(n, 6, replace=False)] = 0
    y = rng.integers(-1000, 1000, n).astype(dt) if dt == "i8" else rng.uniform(-100, 100, n)
    outs = [rng.uniform(1000, 2000, n) for _ in range(3)]
    expected = AssertionError if HALT_CASES[case].startswith("assert") else ZeroDivisionError
    results = []
    for lib, mod in ((cuda, both[0]), (ncuda, both[1])):
        dev = [lib.to_device(o.copy()) for o in outs]
        with pytest.raises(expected):
            mod.halt_debug[2, 32](*dev, lib.to_device(x), lib.to_device(y), case)
            lib.synchronize()
        results.append([d.copy_to_host() for d in dev])
    for name, c, nb in zip(("r", "s", "marks"), *results):
        if name == "r" and dt == "f8" and "%" in HALT_CASES[case]:
            # numba-cuda compiles this kernel with opt=False, where its float % is inexact (tens of ulps, on the H100
            # in session 16); cudajit's is Python's, exactly: NumPy's np.mod where the thread did not raise
            ok = x != 0
            np.testing.assert_array_equal(c[ok], np.mod(y, x)[ok], err_msg=HALT_CASES[case])
            np.testing.assert_array_equal(c[~ok], nb[~ok], err_msg=HALT_CASES[case])
            np.testing.assert_allclose(c, nb, rtol=1e-11, err_msg=HALT_CASES[case])
            continue
        np.testing.assert_array_equal(c, nb, err_msg=f"{HALT_CASES[case]}: {name}")


FLOAT_PAIRS = [("f4", "f4"), ("f8", "f8"), ("f4", "f8"), ("i4", "f4"), ("i8", "f8"), ("f4", "i8"), ("u8", "f4"),
               ("f8", "i2")]


def _random_floats(rng, dt, n):
    dt = np.dtype(dt)
    if dt.kind in "iu":
        return _random_ints(rng, dt, n)
    v = (rng.standard_normal(n) * 10 ** rng.uniform(-3, 3, n)).astype(dt)
    v[:10] = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan, 3.0]).astype(dt)
    return v


@pytest.mark.parametrize("ta,tb", FLOAT_PAIRS, ids=[f"{a}-{b}" for a, b in FLOAT_PAIRS])
def test_float_arithmetic_matches_numba_cuda(both, rng, ta, tb):
    from numba_parity_kernels import FLOAT_OPS
    n = 512
    x = _random_floats(rng, ta, n)
    y = _random_floats(rng, tb, n)
    out = np.zeros((n, len(FLOAT_OPS)))
    (c,), (nb,) = _run_both(both, "float_ops", (x, y), (out,))
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):
        python_divmod = np.isinf(yf) | (np.abs(xf / yf) > 2.0 ** 20)        # see the module's docstring
        python_round = np.abs(xf * 100.0) >= 2.0 ** 63
    overflow_pow = (y == np.iinfo(np.int64).min) if y.dtype.kind == "i" else np.zeros(n, bool)
    for k, op in enumerate(FLOAT_OPS):
        if op in ("//", "%"):
            rows = python_divmod & np.isfinite(xf) & (yf != 0)
            want = [float(a) // float(b) if op == "//" else float(a) % float(b) for a, b in zip(xf[rows], yf[rows])]
            np.testing.assert_array_equal(c[rows, k], np.array(want, np.float64), err_msg=f"{op} (Python's)")
            nb[rows, k] = c[rows, k]
        if op == "round2":
            rows = python_round & np.isfinite(xf)
            # Numba's algorithm (scale by 100, round, scale back) without the int64 on the way
            np.testing.assert_array_equal(c[rows, k], np.rint(xf[rows] * 100.0) / 100.0)
            nb[rows, k] = c[rows, k]
        nb[overflow_pow, k] = c[overflow_pow, k]
    _assert_columns_agree(f"{ta} op {tb}", FLOAT_OPS, lambda k: _same_bits(c[:, k], nb[:, k]), c, nb, {"x": x, "y": y})


@pytest.mark.parametrize("dt", ["c8", "c16"])
def test_complex_arithmetic_matches_numba_cuda(both, rng, dt):
    from numba_parity_kernels import COMPLEX_OPS
    n = 256
    z = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    w = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    out = np.zeros((n, len(COMPLEX_OPS)), np.complex128)
    (c,), (nb,) = _run_both(both, "complex_ops", (z, w), (out,))
    eps = np.finfo(np.float32 if dt == "c8" else np.float64).eps

    def narrow(v):
        # a complex64 result is exact in complex64; a complex128 one (log10, tanh, acosh) almost never is
        return (v.astype(np.complex64).astype(np.complex128) == v).all()

    def agree(k):
        if dt == "c8" and narrow(c[:, k]) != narrow(nb[:, k]):
            return f"result precision differs (cudajit complex64: {narrow(c[:, k])})"
        return np.abs(c[:, k] - nb[:, k]) <= 8 * eps * np.maximum(np.abs(nb[:, k]), 1e-30)
    _assert_columns_agree(dt, COMPLEX_OPS, agree, c, nb, {"z": z, "w": w})


@pytest.mark.parametrize("dt", ["i1", "i4", "i8", "u8", "f4", "f8"])
def test_mixed_typing_matches_numba_cuda(both, rng, dt):
    """Literals, NumPy scalar constructors, conditional expressions, accumulators: each result type shows in the
    value (float32 or float64 rounding, wrap-around), so bit-equal outputs mean equal typing."""
    from numba_parity_kernels import MIXED_EXPRS
    n = 256
    a = _random_floats(rng, dt, n)
    if a.dtype.kind == "f":
        a[:10] = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 7.0, -7.0, 3.0, 3.0]).astype(a.dtype)  # no inf/nan
    out = np.zeros((n, len(MIXED_EXPRS)))
    (c,), (nb,) = _run_both(both, "mixed_typing", (a,), (out,))
    _assert_columns_agree(dt, MIXED_EXPRS, lambda k: _same_bits(c[:, k], nb[:, k]), c, nb, {"x": a, "i": np.arange(n)})


@pytest.mark.parametrize("dt", ["i4", "i8", "f4", "f8"])
def test_warp_collectives_match_numba_cuda(both, rng, dt):
    from numba_parity_kernels import WARP_OPS
    n = 128
    a = _random_floats(rng, dt, n)
    if a.dtype.kind == "f":
        a[:10] = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 7.0, -7.0, 3.0, 3.0]).astype(a.dtype)
    outf, outi = np.zeros((n, len(WARP_OPS))), np.zeros((n, len(WARP_OPS)), np.int64)
    (cf, ci), (nf, ni) = _run_both(both, "warp_ops", (a,), (outf, outi))
    _assert_columns_agree(dt, WARP_OPS, lambda k: _same_bits(cf[:, k], nf[:, k]) & (ci[:, k] == ni[:, k]),
                          ci, ni, {"x": a})


def test_random_streams_match_numba_cuda(both):
    """Same seed, same generator states and the same numbers, bit for bit."""
    from numba import cuda as ncuda
    from numba.cuda.random import create_xoroshiro128p_states as nb_states
    from cudajit import cuda
    from cudajit.cuda.random import create_xoroshiro128p_states as cj_states
    cj, nb = both
    n, draws = 300, 16
    s_cj, s_nb = cj_states(n, seed=42, subsequence_start=3), nb_states(n, seed=42, subsequence_start=3)
    host_cj, host_nb = s_cj.copy_to_host(), s_nb.copy_to_host()
    assert (host_cj["s0"] == host_nb["s0"]).all() and (host_cj["s1"] == host_nb["s1"]).all()
    outs = []
    for lib, mod, states in ((cuda, cj, s_cj), (ncuda, nb, s_nb)):
        arrays = [lib.to_device(np.zeros((n, draws), dt)) for dt in (np.float32, np.float64, np.float32, np.float64)]
        mod.random_draws[(n + 127) // 128, 128](states, *arrays)
        outs.append([a.copy_to_host() for a in arrays])
    for name, c, nb_ in zip(["uniform_float32", "uniform_float64", "normal_float32", "normal_float64"], *outs):
        assert np.array_equal(c, nb_), f"{name}: {np.argwhere(c != nb_)[:3].tolist()}"


def test_float16_matches_numba_cuda(both, rng):
    """Half arithmetic and its result types bit for bit; half math functions (numba-cuda's h* intrinsics against
    float math rounded to half) within a half ulp or two."""
    from numba_parity_kernels import HALF_OPS
    n = 256
    a = (rng.standard_normal(n) * 4).astype(np.float16)
    b = (rng.standard_normal(n) * 4).astype(np.float16)
    b[b == 0] = np.float16(0.5)
    a[a == 0] = np.float16(0.25)
    (c,), (nb,) = _run_both(both, "half_ops", (a, b), (np.zeros((n, len(HALF_OPS))),))
    approx = {"sqrt", "exp", "log", "sin"}

    def agree(k):
        if HALF_OPS[k] in approx:
            return np.abs(c[:, k] - nb[:, k]) <= 2e-3 * np.abs(nb[:, k]) + 6e-8
        return _same_bits(c[:, k], nb[:, k])
    _assert_columns_agree("float16", HALF_OPS, agree, c, nb, {"x": a, "y": b})


@pytest.mark.parametrize("dt", ["f8", "f4", "i4", "i8"])
def test_array_reductions_match_numba_cuda(both, rng, dt):
    """np.sum, np.mean, np.var, np.std, the nan* forms and the rest over one row per thread: the same bits."""
    from numba.cuda import config as nconfig
    from numba_parity_kernels import REDUCTION_OPS
    n, m = 256, 37
    if dt[0] == "f":
        x = (rng.standard_normal((n, m)) * 10 ** rng.uniform(-2, 2, (n, 1))).astype(dt)
        x[::7, 3] = np.nan                                  # some rows hold a NaN
        x[::11, :] = np.nan                                 # and some nothing else
        x[5::13, 4] = 0.0
    else:
        x = rng.integers(-50, 50, (n, m)).astype(dt)
        x[::5, 2] = 0
    saved = nconfig.CUDA_ENABLE_NRT
    nconfig.CUDA_ENABLE_NRT = True                          # as numba-cuda's own tests of these functions
    try:
        (c,), (nb,) = _run_both(both, "array_reductions", (x,), (np.zeros((n, len(REDUCTION_OPS))),))
    finally:
        nconfig.CUDA_ENABLE_NRT = saved
    _assert_columns_agree(f"{dt} reductions", REDUCTION_OPS, lambda k: _same_bits(c[:, k], nb[:, k]), c, nb,
                          {"row": np.arange(n)})


def _sum_op(a, b):
    return a + b


def _abs_op(a, b):                    # seed 003's absolute-value reduction: not associative
    if b < 0:
        return a - b
    return a + b


def _sub_op(a, b):                    # neither associative nor commutative
    return a - b


@pytest.mark.parametrize("op", [_sum_op, _abs_op, _sub_op], ids=lambda f: f.__name__)
def test_reduce_matches_numba_cuda(both, rng, op):
    """cuda.reduce folds in numba-cuda's order: the same bits for every size class (tail only, full blocks only,
    more than 64 blocks, with and without a tail) and for init."""
    from numba import cuda as ncuda
    from cudajit import cuda
    ours, theirs = cuda.reduce(op), ncuda.reduce(op)
    for n in [1, 77, 128, 1000, 8192, 8192 * 5 + 3, 10 ** 6, 2 ** 22 + 17]:
        x = rng.normal(0, 10, n).astype(np.float32)
        init = np.float32(rng.normal())
        got, want = ours(cuda.to_device(x), init=init), theirs(ncuda.to_device(x), init=init)
        assert np.float32(got).tobytes() == np.float32(want).tobytes(), (op.__name__, n, got, want)
    xi = rng.integers(-10 ** 6, 10 ** 6, 3 * 10 ** 5).astype(np.int64)
    assert ours(xi) == theirs(xi)


def _ufunc_kernel_body(x, out):
    # No cuda.* names: the same function compiles under either library's cuda.jit.
    for i in range(x.size):
        out[i, 0] = np.sin(x[i]) + np.maximum(x[i], np.float32(0.25))
        out[i, 1] = np.exp(x[i]) * np.arctan2(x[i], np.float32(2))   # (numba-cuda 0.30.4 fails on np.add)


def _vectorize_body(a, b):
    # math.*, not np.*: numba-cuda 0.30.4 under NumPy 2.5 cannot lower NumPy ufuncs (test above)
    return a * b - math.sqrt(b) if a > 0 else b - a


def _vectorize_lin(a, b):
    return a * 0.75 - b


def _guvectorize_body(x, c, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * c + math.cos(x[i])


def test_ufuncs_in_kernels_match_numba_cuda(both, rng):
    from numba import cuda as ncuda
    from cudajit import cuda
    x = rng.normal(size=200).astype(np.float32)
    outs = [np.zeros((200, 2), np.float32) for _ in range(2)]
    cuda.jit(_ufunc_kernel_body)[1, 1](x, outs[0])
    try:
        ncuda.jit(_ufunc_kernel_body)[1, 1](x, outs[1])
    except Exception as e:     # numba-cuda 0.30.4 under NumPy 2.5 fails to lower NumPy ufuncs in kernels (seen here)
        pytest.skip(f"numba-cuda cannot compile NumPy ufuncs in kernels here: {type(e).__name__}")
    np.testing.assert_array_equal(outs[0], outs[1])


def test_vectorize_and_guvectorize_match_numba_cuda(both, rng):
    import numba
    from numba import cuda as ncuda
    import cudajit
    from cudajit import cuda
    x = rng.normal(size=200).astype(np.float32)
    y = rng.random(200).astype(np.float32)
    sigs = ["float32(float32, float32)", "float64(float64, float64)"]
    ours = cudajit.vectorize(sigs, target="cuda")(_vectorize_body)
    theirs = numba.vectorize(sigs, target="cuda")(_vectorize_body)
    np.testing.assert_array_equal(ours(x, y), theirs(x, y))
    for v in (x, y):                      # NaN from sqrt of a negative partial, propagated by both
        np.testing.assert_equal(ours.reduce(v), theirs.reduce(v))
    lin_ours = cudajit.vectorize(sigs, target="cuda")(_vectorize_lin)      # not associative, always finite
    lin_theirs = numba.vectorize(sigs, target="cuda")(_vectorize_lin)
    got = lin_ours.reduce(x)
    assert np.isfinite(got) and got.tobytes() == lin_theirs.reduce(x).tobytes()
    gsig, layout = ["void(float32[:], float32, float32[:])"], "(n),()->(n)"
    g_ours = cuda.guvectorize(gsig, layout)(_guvectorize_body)
    g_theirs = numba.guvectorize(gsig, layout, target="cuda")(_guvectorize_body)
    m = x.reshape(20, 10)
    np.testing.assert_array_equal(g_ours(m, y[:20]), g_theirs(m, y[:20]))


def test_grid_sync_matches_numba_cuda(both, rng):
    """One grid-sync kernel through both libraries (both launch it cooperatively): the same bits; each library's
    max_cooperative_grid_blocks admits the grid (the two may differ by the kernels' register counts)."""
    from numba import cuda as ncuda
    from cudajit import cuda
    cj, nb = both
    block, steps = 128, 12
    limits = []
    outs = []
    for lib, mod in ((cuda, cj), (ncuda, nb)):
        kernel = mod.grid_sync_rotate
        a = rng.standard_normal(block)                   # compile first with one block, to reach the overload
        kernel[1, block](lib.to_device(a), 1, lib.to_device(np.zeros(block)))
        (overload,) = kernel.overloads.values()
        limits.append(overload.max_cooperative_grid_blocks(block))
    grid = 64                                             # an H100 holds far more blocks of 128 at once
    assert min(limits) >= grid, limits
    a = rng.standard_normal(grid * block)
    for lib, mod in ((cuda, cj), (ncuda, nb)):
        out = lib.to_device(np.zeros_like(a))
        mod.grid_sync_rotate[grid, block](lib.to_device(a), steps, out)
        outs.append(out.copy_to_host())
    expected = a.copy()
    for _ in range(steps):
        expected = np.roll(expected, -(block + 1)) * 0.5 + expected
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_allclose(outs[0], expected, rtol=1e-12)


def test_record_kernel_matches_numba_cuda(both, rng):
    from numba_parity_kernels import PARTICLE
    n = 300
    a = np.zeros(n, PARTICLE)
    a["x"], a["tag"], a["n"], a["v"] = rng.random(n), rng.integers(-50, 50, n), rng.integers(-2**40, 2**40, n), \
        rng.random((n, 3))
    (c_rec, c_out), (n_rec, n_out) = _run_both(both, "record_fields", (), (a, np.zeros(n)))
    np.testing.assert_array_equal(c_out, n_out)
    np.testing.assert_array_equal(c_rec, n_rec)


def test_function_values_match_numba_cuda(both, rng):
    """Device functions, cuda.atomic.*, operator and math functions and NumPy types passed as arguments."""
    n = 300
    a, b = rng.uniform(0.1, 2.0, n), rng.uniform(0.1, 2.0, n)
    (c_out, c_counts), (n_out, n_counts) = _run_both(both, "function_values", (a, b),
                                                     (np.zeros((n, 8)), np.zeros(5, np.int64)))
    np.testing.assert_array_equal(c_out, n_out)
    np.testing.assert_array_equal(c_counts, n_counts)
    np.testing.assert_array_equal(c_counts, [75, 75, 75, 75, n - 1])


def test_cache_hints_match_numba_cuda(both, rng):
    """cuda.ldca ... cuda.stwt: the values loaded and stored, their conversion to the array's dtype, the wrapped
    negative index; and NumPy's answer, so that agreeing on a wrong answer fails too."""
    n = 300
    m = rng.integers(-2**20, 2**20, (n, 4)).astype(np.int32)
    x = rng.uniform(-1e6, 1e6, n)
    (c_i, c_f), (n_i, n_f) = _run_both(both, "cache_hints", (m, x), (np.zeros((n, 3), np.int32), np.zeros((n, 3))))
    np.testing.assert_array_equal(c_i, n_i)
    np.testing.assert_array_equal(c_f, n_f)
    np.testing.assert_array_equal(c_i, np.stack([m[:, -1], m[:, 0], (x * 3.7).astype(np.int32)], axis=1))
    np.testing.assert_array_equal(c_f, np.stack([m[:, 1] + x[::-1], x, 2.0 * np.arange(n)], axis=1))

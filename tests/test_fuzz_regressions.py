"""Minimal programs of the divergences the differential tester (tools/fuzz) found, each run on every backend
and compared with Python's result (or, where Numba's types decide it, the value Numba computes). One test per
divergence; tools/fuzz/README.md lists them."""
import math

import numpy as np
import pytest

from cudajit import boolean, complex64, cuda, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64


# ---- bool() and boolean() of a complex number (Numba: its truth; cudajit refused it: TypingError) ----------------
@cuda.jit
def complex_truth(z, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i, 0] = bool(z[i])
        out[i, 1] = boolean(z[i])
        out[i, 2] = bool(complex64(z[i]))


def test_bool_of_complex_is_its_truth(backend):
    z = np.array([0j, 1j, -0.0 + 0j, complex(np.nan, 0), 1 + 0j, -2j, 0.5 - 0.5j, complex(0, -0.0)])
    out = np.zeros((z.size, 3), np.bool_)
    complex_truth[1, 16](z, out)
    want = np.array([bool(x) for x in z])
    np.testing.assert_array_equal(out, np.stack([want] * 3, axis=1))


# ---- a def inside a while loop that has an else (the desugaring of while-else read .orelse of the def) -----------
@cuda.jit(device=True)
def def_in_while_else(t):
    w = 0
    while w < t:
        w += 1

        def g():
            return 2.0
        if w == 3:
            break
    else:
        w += 5
    return w


@cuda.jit
def run_def_in_while_else(out):
    t = cuda.grid(1)
    out[t] = def_in_while_else(t)


def test_def_inside_a_while_else_loop(backend):
    out = np.zeros(8, np.int64)
    run_def_in_while_else[1, 8](out)
    np.testing.assert_array_equal(out, [def_in_while_else.py_func(t) for t in range(8)])


# ---- integer literals keep their Numba type in C++ (a C++ int broke template calls: 'pymax(int16_t, int)',
# 'floordiv(int, int64_t)'; a tuple's element types were deduced from C++ expressions) ----------------------------
@cuda.jit(device=True)
def literal_int_types(t, ih, iw):
    a = ~(int16(-32768) | uint16(0)) // int8(-128)                 # int64: 32767 // -128
    b = max(int16(32767), int16(5) if t > 2 else int16(-7))        # int16 branches of a conditional
    c = min(uint16(7) if t > 3 else uint16(65535), uint16(9))
    tp = (abs(ih[t]) | uint32(4294967295), iw[t] * 0.5)             # (int64, float64)
    return a + b + c + tp[0] + int64(tp[1])


@cuda.jit
def run_literal_int_types(ih, iw, out):
    t = cuda.grid(1)
    out[t] = literal_int_types(t, ih, iw)


def test_integer_literals_keep_their_numba_types(backend, rng):
    ih = rng.integers(-32768, 32767, 8).astype(np.int16)
    iw = rng.integers(0, 2**32 - 1, 8).astype(np.uint32)
    ih[0] = -32768                      # abs(int16) stays int16 in Numba: abs(-32768) is -32768
    out = np.zeros(8, np.int64)
    run_literal_int_types[1, 8](ih, iw, out)

    def abs16(x):
        return x if x == -32768 else abs(x)
    # the same arithmetic on Python ints (no value here overflows int64)
    want = [(~(-32768 | 0) // -128) + max(32767, 5 if t > 2 else -7) + min(7 if t > 3 else 65535, 9)
            + (abs16(int(ih[t])) | 4294967295) + int(int(iw[t]) * 0.5) for t in range(8)]
    np.testing.assert_array_equal(out, want)


# ---- a 64-bit integer literal is an int64_t on both targets (4294967295ll was a long long on the host, which
# cj::pymin(T, T) did not unify with int64_t: 'no matching function for call to pymin(long long, int64_t)') ------
@cuda.jit(device=True)
def wide_literals(t):
    s = 0
    for i in range(max(min(-int8(127), 11), -4), max(min(uint32(4294967295) & (t > 3), 6), -4), -1):
        s += i
    return s + min(4294967296 * t, int64(-9223372036854775807 - 1) + t)


@cuda.jit
def run_wide_literals(out, out2):
    t = cuda.grid(1)
    out[t] = wide_literals(t)
    out2[t] = max(uint64(18446744073709551615) - uint64(t), uint64(5))


def test_wide_integer_literals_are_int64(backend):
    out, out2 = np.zeros(8, np.int64), np.zeros(8, np.uint64)
    run_wide_literals[1, 8](out, out2)
    want = [sum(range(max(min(-127, 11), -4), max(min(4294967295 & (t > 3), 6), -4), -1))
            + min(4294967296 * t, -2**63 + t) for t in range(8)]
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(out2, np.array([max(2**64 - 1 - t, 5) for t in range(8)], np.uint64))


# ---- -x of an integer constant is negated in x's type, then widened, as Numba does for any x (the folded constant
# was negated as a Python int: -uint16(1) gave -1, Numba 65535) -------------------------------------------------
@cuda.jit
def negated_constants(a, out):
    t = cuda.grid(1)
    out[t, 0] = -uint16(int8(1))
    out[t, 1] = -uint8(200)
    out[t, 2] = -int8(-128)
    out[t, 3] = -uint64(3)
    out[t, 4] = -uint16(a[t])            # the same rule for a value known only at run time
    out[t, 5] = -int8(a[t] - 129)


def test_negated_integer_constants_wrap_in_their_type(backend):
    a = np.array([1, 200, 0, 3], np.int64)
    out = np.zeros((4, 6), np.int64)
    negated_constants[1, 4](a, out)
    for t in range(4):
        want = [65535, 56, -128, 2**64 - 3 - 2**64, (-int(a[t])) % 2**16, ((-(int(a[t]) - 129) + 128) % 256) - 128]
        np.testing.assert_array_equal(out[t], want)


# ---- folded integer constants compute as Numba does: operands converted to the operation's types, the result
# wrapped in its type (uint32(4294967295) * uint32(4294967295) was left to C++ as a 32-bit unsigned product, which
# also failed to compile in 'min(..., uint64(6))'; uint64(2**64 - 1) // int64(2) folded as Python ints) ---------
@cuda.jit
def folded_constants(out, uout):
    t = cuda.grid(1)
    s = uint64(0)
    for i in range(max(min(uint32(4294967295) * uint32(4294967295), uint64(6)), uint64(0)), uint64(11)):
        s += i
    uout[t, 0] = s
    uout[t, 1] = uint32(4294967295) * uint32(4294967295)
    out[t, 0] = uint64(18446744073709551615) // int64(2)      # int64: -1 // 2
    out[t, 1] = uint64(18446744073709551615) % int64(7)       # int64: -1 % 7
    out[t, 2] = int64(9223372036854775807) + int64(1)         # wraps
    out[t, 3] = int32(-8) >> uint8(1)


def test_folded_integer_constants_wrap_as_numba(backend):
    out, uout = np.zeros((2, 4), np.int64), np.zeros((2, 2), np.uint64)
    folded_constants[1, 2](out, uout)
    np.testing.assert_array_equal(uout, [[sum(range(6, 11)), (4294967295 ** 2) % 2**64]] * 2)
    np.testing.assert_array_equal(out, [[-1 // 2, -1 % 7, -2**63, -8 >> 1]] * 2)


# ---- a bool argument of a math function ties every case of numba-cuda's table and takes its first: math.exp(True)
# is float64 (cudajit listed float16 first and computed e in half precision, 2.71875); math.modf(True) float64 ----
@cuda.jit(device=True)
def math_of_bool(flag):
    return math.exp(True), math.exp(flag), math.sqrt(flag), math.log(flag), math.sin(flag), math.modf(flag)[1]


@cuda.jit
def run_math_of_bool(flags, out):
    t = cuda.grid(1)
    if t < flags.size:
        r = math_of_bool(flags[t])
        out[t, 0], out[t, 1], out[t, 2], out[t, 3], out[t, 4], out[t, 5] = r


def test_math_of_a_bool_is_float64(backend, rng):
    flags = rng.random(16) < 0.5
    out = np.zeros((16, 6))
    run_math_of_bool[1, 16](flags, out)
    want = [[math.exp(True), math.exp(f), math.sqrt(f), math.log(f) if f else -math.inf, math.sin(f),
             math.modf(f)[1]] for f in flags]
    np.testing.assert_array_equal(out, want)          # float64 exactly: a float16 or float32 result differs


# ---- CPython folds `~(not False)` to the constant -2, and Numba types that constant (so the branch is taken);
# `~b` of a boolean variable is `not b` in Numba. The tester's oracle had wrapped `not False` before CPython folded
# it (a divergence of the oracle, not of cudajit: kept as the record of both rules) ------------------------------
@cuda.jit(device=True)
def inverted_bools(flag, x):
    a = x if ~(not False) else uint64(0)          # -2: true
    b = ~flag                                     # not flag
    return a, b


@cuda.jit
def run_inverted_bools(flags, xs, out, inv):
    t = cuda.grid(1)
    if t < flags.size:
        out[t], inv[t] = inverted_bools(flags[t], xs[t])


def test_inverted_booleans_as_numba(backend, rng):
    flags = rng.random(16) < 0.5
    xs = rng.integers(1, 2**63, 16, dtype=np.uint64)
    out, inv = np.zeros(16, np.uint64), np.zeros(16, np.bool_)
    run_inverted_bools[1, 16](flags, xs, out, inv)
    np.testing.assert_array_equal(out, xs)
    np.testing.assert_array_equal(inv, ~flags)


# ---- negation and abs() of 8- and 16-bit integers: Numba computes them in the operand's type, so -int16(-32768)
# and abs(int16(-32768)) are -32768. On the H200, CUDA 13.0's ptxas answered PTX neg.s16 / abs.s16 of -32768 followed
# by a sign extension with +32768 (it dropped the extension); the results are now wrapped by inline PTX ----------
@cuda.jit(device=True)
def stored_twice(outf, outi, i, k, r):
    outf[i, k] = r
    outi[i, k] = r


@cuda.jit
def narrow_neg_abs(x, outf, outi):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        stored_twice(outf, outi, i, 0, -v)
        stored_twice(outf, outi, i, 1, abs(v))
        outi[i, 2] = -v
        outi[i, 3] = abs(v)
        outf[i, 2] = -v
        outf[i, 3] = abs(v)


@pytest.mark.parametrize("dt", ["i1", "i2", "u1", "u2"])
def test_narrow_negation_and_abs_wrap_in_their_type(backend, rng, dt):
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, 64, endpoint=True).astype(dt)
    x[:6] = [info.min, info.max, 0, 1, info.min + 1, info.max - 1]
    outf, outi = np.zeros((64, 4)), np.zeros((64, 4), np.int64)
    narrow_neg_abs[1, 64](x, outf, outi)
    with np.errstate(over="ignore"):
        neg, ab = np.negative(x), np.abs(x)                # NumPy wraps in the type, as Numba does
    want = np.stack([neg, ab, neg, ab], axis=1).astype(np.int64)
    np.testing.assert_array_equal(outi, want)
    np.testing.assert_array_equal(outf, want.astype(np.float64))


# ---- an integer converted to an 8- or 16-bit type wraps (Numba), and stays wrapped when widened again: on the H200
# uint32(int16(0 - ih[t])) gave 32768 for ih[t] = -32768 (ptxas dropped the sign extension; fuzz seed 23 69/80) --
@cuda.jit
def narrow_casts(x, out):
    t = cuda.grid(1)
    if t < x.size:
        out[t, 0] = uint32(int16(uint8(0) - x[t]))
        out[t, 1] = int64(int8(x[t] * 3))
        out[t, 2] = uint32(uint16(x[t] - 7))
        out[t, 3] = int64(int16(uint16(x[t])))
        out[t, 4] = int64(uint8(int8(x[t])))


def test_narrow_integer_casts_wrap_and_widen(backend, rng):
    x = rng.integers(-2**40, 2**40, 64)
    x[:6] = [-32768, 32768, 32767, -129, 255, 65535]
    out = np.zeros((64, 5), np.int64)
    narrow_casts[1, 64](x, out)
    want = np.stack([(-x).astype(np.int16).astype(np.uint32), (x * 3).astype(np.int8),
                     (x - 7).astype(np.uint16).astype(np.uint32), x.astype(np.uint16).astype(np.int16),
                     x.astype(np.int8).astype(np.uint8)], axis=1).astype(np.int64)
    np.testing.assert_array_equal(out, want)


# ---- integer ** negative literal: numba-cuda lowers it with int_power_impl, which tests the base (0 -> the
# INT_MIN bit pattern, +-1 -> +-1, else 0); the tester's oracle had modelled static_power_impl, which inverts the
# wrapped power (uint32(2**31) ** -3 would wrap to 0 and give INT_MIN). Kept as the record of numba-cuda's rule ----
@cuda.jit
def negative_literal_powers(x, out):
    t = cuda.grid(1)
    if t < x.size:
        out[t, 0] = x[t] ** -3
        out[t, 1] = x[t] ** -2


def test_integer_power_of_a_negative_literal_tests_the_base(backend, rng):
    x = rng.integers(-2**40, 2**40, 32)
    x[:6] = [0, 1, -1, 2**31, 2**32, -2]
    out = np.zeros((32, 2), np.int64)
    negative_literal_powers[1, 32](x, out)
    base_rule = np.where(x == 0, np.iinfo(np.int64).min, np.where(np.abs(x) == 1, x, 0))
    even = np.where(x == 0, np.iinfo(np.int64).min, np.where(np.abs(x) == 1, 1, 0))
    np.testing.assert_array_equal(out, np.stack([base_rule, even], axis=1))


# ---- +0.0 - x where x converts an integer: GCC 12 folds `0.0 - double(i)` into `-double(i)` (even at -O0), which
# is -0.0 for i == 0; Python and Numba give 0.0 (CPU backend, fuzz seed 31, 6/14) ----------------------------------
@cuda.jit
def zero_minus_converted(ih, x, out):
    t = cuda.grid(1)
    if t < ih.size:
        out[t, 0] = uint64(0) - float64(ih[t])
        out[t, 1] = 0.0 - float64(ih[t])
        out[t, 2] = 0 - x[t]
        out[t, 3] = -0.0 - float64(ih[t])
        out[t, 4] = (0 - float32(ih[t])) // uint16(3)          # int - float32 is float64 (seed 32, 8/54)


def test_zero_minus_a_converted_integer_keeps_the_sign_of_zero(backend, rng):
    ih = rng.integers(-5, 5, 64).astype(np.int16)
    ih[:4] = 0
    x = rng.normal(size=64)
    x[:3] = [0.0, -0.0, np.inf]
    out = np.full((64, 5), 7.0)
    zero_minus_converted[1, 64](ih, x, out)
    f = ih.astype(np.float64)
    want = np.stack([0.0 - f, 0.0 - f, 0.0 - x, -0.0 - f, (0.0 - f) // 3], axis=1)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(np.signbit(out), np.signbit(want))


# ---- a statement that CPython folds to a constant is dropped (Numba never sees it): `2**62 << 2` alone compiles,
# although its value does not fit in 64 bits (cudajit raised "Int value is too large"; fuzz seed 31, 5/96) -------
@cuda.jit(device=True)
def folded_statement(t):
    4611686018427387904 << 2
    -(1 << 63) - 1
    return t + 1


@cuda.jit
def run_folded_statement(out):
    t = cuda.grid(1)
    if t < out.size:
        out[t] = folded_statement(t)


def test_a_folded_constant_statement_is_dropped(backend):
    out = np.zeros(16, np.int64)
    run_folded_statement[1, 16](out)
    np.testing.assert_array_equal(out, np.arange(1, 17))


# ---- float ** uint64 beyond int64: Numba types the exponent uint64 and, past 0x10000, takes pow; cudajit cast it to
# int64, where it was negative (float32(1.5) ** uint64(2**63) gave 0.0, not inf; fuzz seed 33, 17/7) ------------
@cuda.jit
def power_of_uint64(x, e, out):
    t = cuda.grid(1)
    if t < x.size:
        v = x[t]
        v **= e[t]
        out[t] = v


def test_float_power_of_a_huge_uint64_exponent(backend, rng):
    x = np.array([1.5, 0.5, -1.0, 2.0, 1.0, 1.5, -2.0, 0.99], np.float32)
    e = np.array([2**63, 2**63 + 5, 2**64 - 1, 3, 2**63, 70000, 7, 2**40], np.uint64)
    out = np.zeros(8, np.float32)
    power_of_uint64[1, 8](x, e, out)
    with np.errstate(over="ignore", under="ignore"):
        want = np.array([np.float32(xv) ** np.float32(ev) if ev > 0x10000 else np.float32(xv) ** int(ev)
                         for xv, ev in zip(x, e)], np.float32)
    np.testing.assert_array_equal(out, want)


# ---- complex64(z) of a complex128, widened again, keeps the float32 rounding: GCC 12 -O2 (SLP) folded the round trip
# of both parts away on the CPU backend (fuzz seed 33, 62/71) ------------------------------------------------------
@cuda.jit
def complex_round_trip(z, out):
    t = cuda.grid(1)
    if t < z.size:
        out[t] = complex64(z[t])


def test_complex64_of_complex128_rounds(backend, rng):
    z = (rng.normal(size=32) + 1j * rng.normal(size=32)).astype(np.complex128)
    out = np.zeros(32, np.complex128)
    complex_round_trip[1, 32](z, out)
    np.testing.assert_array_equal(out, z.astype(np.complex64).astype(np.complex128))


# ---- min/max of three floats with a -0.0 among zeros: NVVM rewrote `b < a ? b : a` into PTX min.f32, which orders
# -0.0 below +0.0: min(float32(0.0), -0.0, float32(0.0)) gave -0.0 on the GPU, Python 0.0 (fuzz seed 23, 47/19) ----
@cuda.jit
def three_way_extrema(x, out):
    t = cuda.grid(1)
    if t < x.size:
        out[t, 0] = min(float32(0.0), x[t], float32(0.0))
        out[t, 1] = max(float32(0.0), x[t], float32(0.0))
        out[t, 2] = min(float32(-0.0), x[t], float32(-0.0))
        out[t, 3] = max(float32(-0.0), x[t], float32(-0.0))
        out[t, 4] = min(x[t], float32(0.0), x[t])


def test_min_and_max_of_signed_zeros_keep_the_first(backend, rng):
    x = rng.normal(size=32).astype(np.float32)
    x[:4] = [-0.0, 0.0, -0.0, np.nan]
    out = np.full((32, 5), 7.0, np.float32)
    three_way_extrema[1, 32](x, out)
    z, nz = np.float32(0.0), np.float32(-0.0)
    want = np.array([[min(z, v, z), max(z, v, z), min(nz, v, nz), max(nz, v, nz), min(v, z, v)] for v in x],
                    np.float32)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(np.signbit(out), np.signbit(want))


# ---- a division by the literal -0.0: NVVM's value tracking took x / -0.0 (-inf) for "not below zero" and dropped
# the sign fix of Python's %: uint64 % (uint8 / float32(-0.0)) gave the dividend, Python -inf (fuzz seed 23,
# 130/18) ---------------------------------------------------------------------------------------------------------
@cuda.jit
def modulo_by_negative_zero_quotient(su, ic, out):
    t = cuda.grid(1)
    if t < ic.size:
        out[t, 0] = su[t] % (ic[t] / float32(-0.0))
        out[t, 1] = su[t] % (ic[t] / -0.0)
        out[t, 2] = (ic[t] / float32(-0.0)) < 0


def test_modulo_by_a_quotient_of_negative_zero(backend, rng):
    su = rng.integers(0, 2**40, 32, dtype=np.uint64)
    ic = rng.integers(0, 256, 32).astype(np.uint8)
    ic[:2] = [0, 5]
    out = np.zeros((32, 3))
    modulo_by_negative_zero_quotient[1, 32](su, ic, out)
    q = np.where(ic == 0, np.nan, -np.inf)         # Numba: uint8 / -0.0 is -inf, or nan for 0
    want_mod = np.array([math.nan if math.isnan(d) else float(s) % d for s, d in zip(su, q)])
    np.testing.assert_array_equal(out[:, 0], want_mod)
    np.testing.assert_array_equal(out[:, 1], want_mod)
    np.testing.assert_array_equal(out[:, 2], q < 0)


# ---- a boolean carried through a loop of four or more trips: the ptxas of NVRTC 13.0 to 13.3 unrolled
# `sb |= c; sb &= d` with the wrong truth table (PLOP3 0x70 for 0xe0) and gave 0 where Python gives 1; cudajit takes
# the newest NVRTC it finds, and 13.4 fixed it (fuzz seed 23, 90/94; docs/INSTALL.md) -----------------------------
@cuda.jit(device=True)
def boolean_recurrence(sk, su, sb, oz):
    for su in range(max(min(uint64(sk), uint64(6)), uint64(0)), max(min(su, uint64(10)), uint64(0))):
        sb |= cuda.blockIdx.x >= sk
        sb &= ~(float32(0.0) != oz[0, 0])
    return uint32(sb)


@cuda.jit
def run_boolean_recurrence(sk, su, sb, oz, out):
    t = cuda.grid(1)
    if t < out.shape[0]:
        out[t] = boolean_recurrence(sk[t], su[t], sb[t], oz)


def test_a_boolean_carried_through_an_unrolled_loop(backend, rng):
    n = 64
    sk = rng.integers(-2**31, 2**31, n).astype(np.int32)
    sk[:4] = [-1666418075, 0, 1, -1]
    su = rng.integers(0, 20, n).astype(np.uint64)
    su[:4] = [782608398835112639, 10, 10, 9]
    sb = rng.integers(0, 2, n).astype(np.bool_)
    sb[:4] = False
    oz = np.zeros((3, 32), np.complex128)
    out = np.zeros(n, np.int64)
    run_boolean_recurrence[1, n](sk, su, sb, oz, out)

    def python(k, u, b):                         # blockIdx.x is 0 here; ~ of a bool is `not` in Numba
        for _ in range(max(min(int(np.uint64(np.int64(k))), 6), 0), max(min(int(u), 10), 0)):
            b |= 0 >= k
            b &= not (0.0 != oz[0, 0])
        return int(b)
    np.testing.assert_array_equal(out, [python(k, u, b) for k, u, b in zip(sk, su, sb)])
    assert out[0] == 1


# ---- uint32(abs(int32(-2**31))) stored as a float: ptxas (CUDA 13.0 to 13.5) took PTX abs.s32's result for
# non-negative and converted it as signed: -2147483648.0, Numba 2147483648.0 (fuzz seed 51, 37/86) ---------------
@cuda.jit
def unsigned_abs_to_float(ia, ib, o4, o8):
    t = cuda.grid(1)
    if t < ia.size:
        o4[t, 0] = uint32(abs(ia[t]))
        o8[t, 0] = uint64(abs(ia[t]))
        o8[t, 1] = uint64(abs(ib[t]))
        o8[t, 2] = abs(ib[t])
        o4[t, 1] = abs(ia[t])


def test_abs_of_the_most_negative_integer_converted_to_float(backend, rng):
    ia = rng.integers(-2**31, 2**31, 32).astype(np.int32)
    ib = rng.integers(-2**63, 2**63 - 1, 32, dtype=np.int64)
    ia[:3] = [-2**31, -1, 0]
    ib[:3] = [-2**63, -1, 0]
    o4 = np.zeros((32, 2), np.float32)
    o8 = np.zeros((32, 3))
    unsigned_abs_to_float[1, 32](ia, ib, o4, o8)
    abs32 = np.where(ia == -2**31, ia, np.abs(ia)).astype(np.int32)    # Numba: abs wraps in the operand's type
    abs64 = np.where(ib == -2**63, ib, np.abs(ib)).astype(np.int64)
    np.testing.assert_array_equal(o4[:, 0], abs32.astype(np.uint32).astype(np.float32))
    np.testing.assert_array_equal(o8[:, 0], abs32.astype(np.int64).astype(np.uint64).astype(np.float64))
    np.testing.assert_array_equal(o8[:, 1], abs64.astype(np.uint64).astype(np.float64))
    np.testing.assert_array_equal(o8[:, 2], abs64.astype(np.float64))
    np.testing.assert_array_equal(o4[:, 1], abs32.astype(np.float32))
    assert o4[0, 0] == 2.0**31 and o8[0, 1] == 2.0**63


# ---- GCC 12 -O2 stopped with "internal compiler error: output_operand: '%&' used without any local dynamic TLS
# references": the only reader of the running CPU thread (cuda.threadIdx.x, thread-local) in a device function was
# dead code beside a spinning while loop (CPU backend, fuzz seed 61, 19/44). thread.h gives that variable the
# global-dynamic TLS model; host_compiler.cpp compiles again at -O1 after any internal compiler error -------------
@cuda.jit(device=True)
def tls_reader(a3, default, CJ_WANT_CMATH):
    return cuda.threadIdx.x


@cuda.jit(device=True)
def tls_dead_loop(a5, a6):
    v75 = (tls_reader(a5, int16(1), False) == complex64(1j) != float32(-19.0)) | (True | (float32(10.0) != uint32(23)))
    DBL_EPSILON = 0
    while bool(uint16(65535)) and DBL_EPSILON < 3:
        DBL_EPSILON += 1
    return int16(0)


@cuda.jit(device=True)
def tls_caller():
    v80 = float64(tls_reader(8 if True else 9, tls_dead_loop(8, uint8(1)), False == int16(-32768)))
    return True ^ ((False == uint8(0)) ^ True)


@cuda.jit
def run_tls_caller(iu, za, ba, su, sb, out):
    t = cuda.grid(1)
    if t < out.size:
        b = sb
        b ^= ba[su % 32] | ~tls_caller()
        for sn in range(max(min(int8(-72) // iu[4], 9), -1)):
            pass
        out[t] = za[1].real * float64(uint64(1)) + b


def test_a_dead_read_of_the_thread_index_compiles(backend, rng):
    iu = rng.integers(1, 100, 32).astype(np.uint64)
    za = rng.standard_normal(16) + 1j * rng.standard_normal(16)
    ba = rng.integers(0, 2, 32).astype(np.bool_)
    out = np.zeros(32)
    run_tls_caller[1, 32](iu, za, ba, np.uint64(7), True, out)
    b = True ^ bool(ba[7] | (not True))          # tls_caller() is True; ~ of a bool is `not` in Numba
    np.testing.assert_array_equal(out, np.full(32, za[1].real + b))


# ---- a conversion alone as a statement: `int64_t(cj::inf<double>());` is a declaration to C++, which NVRTC refuses
# ("qualified name is not allowed"; g++ took it): the whole unit failed to compile on the GPU (H100, fuzz seed 52,
# batch 58: `int64(1e309)` in a branch; 84 programs of the batch blamed) -------------------------------------------
@cuda.jit
def conversions_as_statements(x, out):
    t = cuda.grid(1)
    if t < out.size:
        if t < 0:
            int64(1e309)                 # never runs: the value would be undefined
        int32(x[t])
        complex64(x[t])
        float32(math.inf)
        uint8(t)
        float32(3.285) * 12              # begins with one: `(void)double(...) * 12.0` would not compile
        out[t] = x[t] * 2


def test_a_conversion_alone_as_a_statement_compiles(backend, rng):
    x = rng.standard_normal(16)
    out = np.zeros(16)
    conversions_as_statements[1, 16](x, out)
    np.testing.assert_array_equal(out, x * 2)
    assert "(void)(int32_t(" in next(iter(conversions_as_statements.inspect_source().values()))

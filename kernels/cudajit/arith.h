// cudajit runtime: arithmetic with Python semantics, as Numba's CUDA target implements it.
//
// The compiler unifies operand types first (Numba's typing), so a two-operand function takes one type T.
// Division by zero never raises: Numba's CUDA target uses the NumPy error model (integers give 0, floats inf/nan).
#pragma once
#include "config.h"
#include "mathfuncs.h"

namespace cj {

// Python's a // b. Integers: floor of the quotient; b == 0 gives 0 and INT_MIN // -1 gives 0 (Numba).
// Floats: CPython's float_divmod (floor of (a - a % b) / b, corrected to the nearest integer); b == 0 gives a / b.
template <class T> CJ_INLINE T floordiv(T a, T b) {
    if constexpr (is_floating_v<T>) {
        if (b == T(0)) return a / b;
        T mod = m::fmod(a, b);
        T div = (a - mod) / b;
        if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
        if (div == T(0)) return m::copysign(T(0), a / b);
        T fl = m::floor(div);
        return div - fl > T(0.5) ? fl + T(1) : fl;
    } else {
        if (b == T(0)) return T(0);
        if constexpr (is_signed_v<T>) {
            if (b == T(-1)) return a == int_min<T>() ? T(0) : T(-a);
            T q = T(a / b), r = T(a % b);
            return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? T(q - 1) : q;
        } else {
            return T(a / b);
        }
    }
}

// Python's a % b: the result has the sign of b. Integers: b == 0 gives 0. Floats: b == 0 gives nan (Numba).
template <class T> CJ_INLINE T pymod(T a, T b) {
    if constexpr (is_floating_v<T>) {
        if (b == T(0)) return nan<T>();
        T mod = m::fmod(a, b);
        if (mod != T(0)) return ((b < T(0)) != (mod < T(0))) ? mod + b : mod;
        return m::copysign(T(0), b);
    } else {
        if (b == T(0)) return T(0);
        if constexpr (is_signed_v<T>) {
            if (b == T(-1)) return T(0);  // also avoids INT_MIN % -1, which traps on x86
            T r = T(a % b);
            return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? T(r + b) : r;
        } else {
            return T(a % b);
        }
    }
}

// Python's a / b: integers divide as double (Numba's int / int -> float64); floats keep their type.
template <class T> CJ_INLINE auto truediv(T a, T b) {
    if constexpr (is_floating_v<T>) {
        return a / b;
    } else {
        return static_cast<double>(a) / static_cast<double>(b);
    }
}

// base ** e for an integer exponent, by repeated squaring (Numba's int_power). Integers wrap on overflow.
// e < 0 (the compiler normally routes that to m::pow): floats give 1 / base**-e; integers give Numba's
// answers: 0 ** -n -> INT_MIN bit pattern, 1 -> 1, -1 -> +-1, anything else -> 0.
template <class T> CJ_INLINE T ipow(T base, int64_t e) {
    uint64_t n = e < 0 ? uint64_t(0) - uint64_t(e) : uint64_t(e);
    if constexpr (is_floating_v<T>) {
        if (n > 0x10000) return m::pow(base, T(e));  // as Numba: large exponents use pow
        T r = T(1), b = base;
        for (; n != 0; n >>= 1, b *= b)
            if (n & 1) r *= b;
        return e < 0 ? T(1) / r : r;
    } else {
        if (e < 0) {
            if (base == T(0)) return T(uint_like_t<T>(1) << (8 * sizeof(T) - 1));
            if (base == T(1)) return T(1);
            if (is_signed_v<T> && base == T(-1)) return (n & 1) ? base : T(1);
            return T(0);
        }
        // Multiply in an unsigned type of at least 32 bits: wrapping and no promotion to (overflowing) int.
        using U = typename uint_of<(sizeof(T) < 4 ? 4 : sizeof(T))>::type;
        U r = 1, b = U(base);
        for (; n != 0; n >>= 1, b *= b)
            if (n & 1) r *= b;
        return T(r);
    }
}

// base ** e for a uint64 exponent (Numba types float ** uint64 so): one beyond int64 is still positive, and a float
// base then takes pow as any exponent past 0x10000 does (cast to int64 it was negative: 1.5 ** 2**63 gave 0.0).
template <class T> CJ_INLINE T ipow_u(T base, uint64_t e) {
    if constexpr (is_floating_v<T>) {
        if (e > uint64_t(0x10000)) return m::pow(base, T(e));
    }
    return ipow(base, static_cast<int64_t>(e));
}

// The sign bit of x (true for -0.0 and negative NaNs); integers: x < 0.
template <class T> CJ_INLINE bool sign_bit(T x) {
    if constexpr (is_floating_v<T>) return m::signbit(x);
    else if constexpr (is_signed_v<T>) return x < T(0);
    else return false;
}

// a << n and a >> n without C++'s undefined cases: n >= the bit width (or negative, read as huge) gives 0, and
// -1 for >> of a negative value; << of negative values wraps (two's complement), >> of signed values is arithmetic.
template <class T, class N> CJ_INLINE T shl(T a, N n) {
    if (uint64_t(n) >= 8 * sizeof(T)) return T(0);
    using W = typename uint_of<(sizeof(T) < 4 ? 4 : sizeof(T))>::type;  // no promotion to signed int
    return T(W(uint_like_t<T>(a)) << unsigned(n));
}
template <class T, class N> CJ_INLINE T shr(T a, N n) {
    if (uint64_t(n) >= 8 * sizeof(T)) return sign_bit(a) ? T(-1) : T(0);
    return T(a >> unsigned(n));
}

// An 8- or 16-bit result computed in int, wrapped to its type by inline PTX on the GPU. CUDA 13.0's ptxas (sm_90,
// NVRTC's cubin) answers PTX neg.s16 of -32768 followed by cvt.s64.s16 with +32768, and abs.s16 likewise: it keeps
// narrow values in 32-bit registers and drops the sign extension it believes redundant. LLVM folds any C++ spelling
// of the wrap (casts, shifts, masks) back into neg.s16/abs.s16; inline PTX it cannot see through.
template <class T> CJ_INLINE T narrow_from_int(int w) {
    static_assert(sizeof(T) < sizeof(int), "narrow_from_int: 8- and 16-bit types only");
#if defined(__CUDA_ARCH__)
    constexpr int bits = 8 * int(sizeof(T));
    if constexpr (is_signed_v<T>) {
        asm("shl.b32 %0, %0, %1;\n\tshr.s32 %0, %0, %1;" : "+r"(w) : "n"(32 - bits));
    } else {
        asm("and.b32 %0, %0, %1;" : "+r"(w) : "n"((1 << bits) - 1));
    }
#endif
    return static_cast<T>(w);
}

// An integer converted to an 8- or 16-bit integer type (Numba wraps: int16(32768) is -32768). On the GPU the same
// ptxas fault as above turned uint32(int16(32768)) into 32768.
template <class T, class S> CJ_INLINE T narrow_int(S x) { return narrow_from_int<T>(static_cast<int>(x)); }

// +0.0 - x, as IEEE computes it (+0.0 for x == +-0.0). Written out because GCC 12 folds the expression
// `0.0 - double(i)` into `-double(i)`, -0.0 for i == 0, even at -O0 (the fuzzer's uint64(0) - float64(ih[t])).
template <class T> CJ_INLINE T zero_minus(T x) { return x == T(0) ? T(0) : -x; }

// Numba's integer negation: in the operand's own type (wrapping: -int8(-128) is -128), widened afterwards.
template <class T> CJ_INLINE T wrap_neg(T x) {
    if constexpr (sizeof(T) < sizeof(int)) return narrow_from_int<T>(-static_cast<int>(x));
    else return T(uint_like_t<T>(0) - uint_like_t<T>(x));
}

// Python's two-argument min/max: the first argument unless the second compares strictly less/greater, so
// max(nan, 1.0) is nan and max(1.0, nan) is 1.0, and max(0.0, -0.0) is 0.0. The compiler uses these for
// integers, mixed int/float operands and three or more operands; min/max of exactly two floats is
// m::fmin/m::fmax, as numba-cuda lowers it.
//
// On the GPU the choice between two floats is made in inline PTX: NVVM rewrites `b < a ? b : a` into PTX
// min.f32, which orders -0.0 below +0.0, so min(0.0, x, 0.0) gave -0.0 for x = -0.0 (Python: 0.0; fuzzer seed 23).
template <class T> CJ_INLINE T pick(bool take_b, T a, T b) {
#if defined(__CUDA_ARCH__)
    if constexpr (is_floating_v<T> && sizeof(T) == 4) {
        asm("{\n\t.reg .pred p;\n\tsetp.ne.s32 p, %3, 0;\n\tselp.f32 %0, %2, %1, p;\n\t}"
            : "=f"(a) : "f"(a), "f"(b), "r"(int(take_b)));
        return a;
    } else if constexpr (is_floating_v<T>) {
        asm("{\n\t.reg .pred p;\n\tsetp.ne.s32 p, %3, 0;\n\tselp.f64 %0, %2, %1, p;\n\t}"
            : "=d"(a) : "d"(a), "d"(b), "r"(int(take_b)));
        return a;
    }
#endif
    return take_b ? b : a;
}
template <class T> CJ_INLINE T pymax(T a, T b) { return pick(b > a, a, b); }
template <class T> CJ_INLINE T pymin(T a, T b) { return pick(b < a, a, b); }

// Python's round(x): half to even. Returns T (a float for floats); the compiler converts to int64 as Numba does.
template <class T> CJ_INLINE T round_even(T x) {
    if constexpr (is_floating_v<T>) return m::rint(x);
    else return x;
}

// Python's round(x, ndigits) for floats as Numba computes it: scale by 10**ndigits in double, round half to even,
// scale back (not CPython's correctly rounded decimal algorithm; they differ only in rare last-digit cases).
template <class T> CJ_INLINE T round_ndigits(T x, int64_t ndigits) {
    static_assert(is_floating_v<T>, "round(x, ndigits) takes a float (as in Numba)");
    double v = static_cast<double>(x);
    if (m::isinf(v) || m::isnan(v)) return x;
    // Beyond a double's precision (CPython's limits) the scale factors would overflow to inf or underflow to 0.
    if (ndigits > 323) return x;
    if (ndigits < -308) return static_cast<T>(0.0 * v);
    if (ndigits >= 0) {
        // 10**ndigits for ndigits > 22 is not exact; split it so pow1 * pow2 never overflows.
        double pow1 = m::pow(10.0, double(ndigits > 22 ? ndigits - 22 : ndigits)), pow2 = ndigits > 22 ? 1e22 : 1.0;
        double y = (v * pow1) * pow2;
        if (m::isinf(y)) return x;
        return static_cast<T>((m::rint(y) / pow2) / pow1);
    }
    double pow1 = m::pow(10.0, double(-ndigits));
    return static_cast<T>(m::rint(v / pow1) * pow1);
}

// Python truthiness: nonzero numbers (NaN included) are true; a complex is true unless both parts are 0.
template <class T> CJ_INLINE bool py_bool(T x) { return x != T(0); }
template <class T> CJ_INLINE bool py_bool(complex<T> z) { return z.re != T(0) || z.im != T(0); }

}  // namespace cj

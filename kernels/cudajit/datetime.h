// cudajit runtime: NumPy's datetime64 / timedelta64 in kernels.
//
// A value is one int64 count of its unit; the unit is the template argument (Numba's unit codes: 0 Y, 1 M, 2 W,
// 4 D, 5 h, 6 m, 7 s, 8 ms, 9 us, 10 ns, 11 ps, 12 fs, 13 as), so arrays of them are NumPy's bytes. The compiler
// brings both operands to one unit first (cj::to_unit, only towards a finer linear unit: the compiler refuses the
// rest, as NumPy does), so every operator here takes one unit. NaT (INT64_MIN) propagates through arithmetic and
// compares unequal to everything, as in NumPy.
#pragma once
#include "config.h"
#include "arith.h"

namespace cj {

constexpr int64_t nat = -9223372036854775807ll - 1;

template <int U> struct datetime64 { int64_t v; };
template <int U> struct timedelta64 { int64_t v; };

// Ticks of unit `to` in one tick of the coarser unit `from`: Y to M, or linear units (W, D, h, m, s, ms, ... as).
CJ_HD constexpr int64_t unit_ratio(int from, int to) {
    int64_t r = 1;
    for (int u = from; u < to; ++u) r *= u == 0 ? 12 : u == 2 ? 7 : u == 3 ? 1 : u == 4 ? 24 : u <= 6 ? 60 : 1000;
    return r;
}

template <int To, int From> CJ_INLINE timedelta64<To> to_unit(timedelta64<From> x) {
    static_assert(To >= From, "timedelta64 converts only to a finer unit");
    return {x.v == nat ? nat : x.v * unit_ratio(From, To)};
}

template <int To, int From> CJ_INLINE datetime64<To> to_unit(datetime64<From> x) {
    static_assert(To >= From, "datetime64 converts only to a finer unit");
    return {x.v == nat ? nat : x.v * unit_ratio(From, To)};
}

CJ_INLINE int64_t nat_or(int64_t a, int64_t b, int64_t r) { return a == nat || b == nat ? nat : r; }

template <int U> CJ_INLINE timedelta64<U> operator-(datetime64<U> a, datetime64<U> b) { return {nat_or(a.v, b.v, a.v - b.v)}; }
template <int U> CJ_INLINE datetime64<U> operator+(datetime64<U> a, timedelta64<U> b) { return {nat_or(a.v, b.v, a.v + b.v)}; }
template <int U> CJ_INLINE datetime64<U> operator+(timedelta64<U> a, datetime64<U> b) { return {nat_or(a.v, b.v, a.v + b.v)}; }
template <int U> CJ_INLINE datetime64<U> operator-(datetime64<U> a, timedelta64<U> b) { return {nat_or(a.v, b.v, a.v - b.v)}; }
template <int U> CJ_INLINE timedelta64<U> operator+(timedelta64<U> a, timedelta64<U> b) { return {nat_or(a.v, b.v, a.v + b.v)}; }
template <int U> CJ_INLINE timedelta64<U> operator-(timedelta64<U> a, timedelta64<U> b) { return {nat_or(a.v, b.v, a.v - b.v)}; }
template <int U> CJ_INLINE timedelta64<U> operator-(timedelta64<U> a) { return {a.v == nat ? nat : -a.v}; }
template <int U> CJ_INLINE timedelta64<U> abs(timedelta64<U> a) { return {a.v == nat || a.v >= 0 ? a.v : -a.v}; }

// timedelta * int, int * timedelta.
template <int U> CJ_INLINE timedelta64<U> operator*(timedelta64<U> a, int64_t n) { return {a.v == nat ? nat : a.v * n}; }
template <int U> CJ_INLINE timedelta64<U> operator*(int64_t n, timedelta64<U> a) { return a * n; }

// A float result back to a count: truncated toward zero (NumPy's cast); nan and counts beyond int64 are NaT.
CJ_INLINE int64_t ticks_of(double r) { return r == r && r > -9.2233720368547758e18 && r < 9.2233720368547758e18 ? int64_t(r) : nat; }

template <int U> CJ_INLINE timedelta64<U> operator*(timedelta64<U> a, double f) { return {a.v == nat ? nat : ticks_of(double(a.v) * f)}; }
template <int U> CJ_INLINE timedelta64<U> operator*(double f, timedelta64<U> a) { return a * f; }

// timedelta / number (NumPy: truncated; a zero divisor gives NaT) and timedelta // int (the same, as NumPy).
template <int U> CJ_INLINE timedelta64<U> td_div(timedelta64<U> a, int64_t n) { return {a.v == nat || n == 0 ? nat : a.v / n}; }
template <int U> CJ_INLINE timedelta64<U> td_div(timedelta64<U> a, double f) { return {a.v == nat ? nat : ticks_of(double(a.v) / f)}; }

// timedelta / timedelta is a float (NaT: nan); // and % as Python's on the counts (NaT or a zero divisor: 0 and NaT).
template <int U> CJ_INLINE double td_truediv(timedelta64<U> a, timedelta64<U> b) {
    return a.v == nat || b.v == nat ? nan<double>() : double(a.v) / double(b.v);
}
template <int U> CJ_INLINE int64_t td_floordiv(timedelta64<U> a, timedelta64<U> b) {
    return a.v == nat || b.v == nat ? 0 : floordiv(a.v, b.v);
}
template <int U> CJ_INLINE timedelta64<U> td_mod(timedelta64<U> a, timedelta64<U> b) {
    return {a.v == nat || b.v == nat || b.v == 0 ? nat : pymod(a.v, b.v)};
}

// Comparisons: NaT is unequal to everything, itself included, and unordered.
#define CJ_DATETIME_COMPARE(op)                                                                                 \
    template <int U> CJ_INLINE bool operator op(datetime64<U> a, datetime64<U> b) {                           \
        return a.v != nat && b.v != nat && a.v op b.v;                                                          \
    }                                                                                                           \
    template <int U> CJ_INLINE bool operator op(timedelta64<U> a, timedelta64<U> b) {                         \
        return a.v != nat && b.v != nat && a.v op b.v;                                                          \
    }
CJ_DATETIME_COMPARE(==)
CJ_DATETIME_COMPARE(<)
CJ_DATETIME_COMPARE(<=)
CJ_DATETIME_COMPARE(>)
CJ_DATETIME_COMPARE(>=)
#undef CJ_DATETIME_COMPARE
template <int U> CJ_INLINE bool operator!=(datetime64<U> a, datetime64<U> b) { return !(a == b); }
template <int U> CJ_INLINE bool operator!=(timedelta64<U> a, timedelta64<U> b) { return !(a == b); }

}  // namespace cj

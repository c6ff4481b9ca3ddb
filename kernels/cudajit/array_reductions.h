// cudajit: NumPy's whole-array reductions in kernels (np.sum(a), a.max(), np.nanmean(a), np.count_nonzero(a)...),
// owned by the compiler: compiler/reductions.py picks the accumulator and result types (Numba's) and calls these.
//
// The calling thread folds every element itself, one after another in C order (NumPy's flat order), as
// numba-cuda's implementations loop over np.nditer(a) / a.flat: the same sums, the same first index of a tie.
// Plain loops, so one source serves NVRTC and the host compiler.
#pragma once
#include "config.h"
#include "complex.h"
#include "arith.h"
#include "array.h"

namespace cj {
namespace red {

template <class T> struct is_complex { static constexpr bool value = false; };
template <class T> struct is_complex<complex<T>> { static constexpr bool value = true; };

// An element converted to an accumulator type R (bool and integers to int64 or double, complex widening).
template <class R> struct conv {
    template <class T> static CJ_INLINE R from(T x) { return static_cast<R>(x); }
};
template <class U> struct conv<complex<U>> {
    template <class T> static CJ_INLINE complex<U> from(complex<T> z) { return complex<U>{U(z.re), U(z.im)}; }
};

// Integer accumulators wrap as Numba's do (through the unsigned type: never undefined C++).
template <class R> CJ_INLINE R add(R a, R b) {
    if constexpr (is_floating_v<R> || is_complex<R>::value) {
        return a + b;
    } else {
        return R(uint_like_t<R>(a) + uint_like_t<R>(b));
    }
}
template <class R> CJ_INLINE R mul(R a, R b) {
    if constexpr (is_floating_v<R> || is_complex<R>::value) {
        return a * b;
    } else {
        return R(uint_like_t<R>(a) * uint_like_t<R>(b));
    }
}

template <class R> CJ_INLINE R one() {
    if constexpr (is_complex<R>::value) {
        return R{1, 0};
    } else {
        return R(1);
    }
}

template <class T> CJ_INLINE bool is_nan(T x) { return x != x; }  // integers and bools: never
template <class T> CJ_INLINE bool is_nan(complex<T> z) { return z.re != z.re || z.im != z.im; }

// NumPy's order: complex numbers lexicographically (real part first).
template <class T> CJ_INLINE bool less(T a, T b) { return a < b; }
template <class T> CJ_INLINE bool less(complex<T> a, complex<T> b) {
    return a.re < b.re || (a.re == b.re && a.im < b.im);
}
template <bool Max, class T> CJ_INLINE bool better(T x, T best) { return Max ? less(best, x) : less(x, best); }

// |d|**2 as Numba's var computes it, np.real(d * np.conj(d)).
CJ_INLINE double abs2(double d) { return d * d; }
CJ_INLINE double abs2(complex<double> d) { return d.re * d.re + d.im * d.im; }

// What min/max/argmin/argmax of an empty array give without debug=True (NumPy and Numba raise ValueError, which a
// debug kernel reports through `site`): NaN for floats and complex, 0 for integers and bools.
template <class T> CJ_INLINE T no_value() {
    if constexpr (is_floating_v<T>) {
        return nan<T>();
    } else if constexpr (is_complex<T>::value) {
        return T{nan<decltype(T{}.re)>(), nan<decltype(T{}.re)>()};
    } else {
        return T{};
    }
}
CJ_INLINE void empty_array(int32_t site) {
#if defined(CJ_ERROR_RECORD)
    if (site >= 0) debug_raise(site);
#else
    (void)site;
#endif
}

// Calls f(x) on every element of `a` in C order until f returns false.
template <class T, int ND, class L, class F> CJ_INLINE void each(const Array<T, ND, L>& a, F f) {
    if constexpr (ND == 0) {
        f(*a.data);
    } else if constexpr (is_same_layout<L, C>::value) {
        const int64_t n = a.size();
        for (int64_t k = 0; k < n; ++k) {
            if (!f(a.data[k])) return;
        }
    } else {
        // F and A arrays: an odometer over the indices, the last moving fastest, carrying a byte offset.
        const int64_t n = a.size();
        int64_t ix[ND] = {};
        const char* p = reinterpret_cast<const char*>(a.data);
        for (int64_t k = 0; k < n; ++k) {
            if (!f(*reinterpret_cast<const T*>(p))) return;
            for (int d = ND - 1; d >= 0; --d) {
                p += a.strides[d];
                if (++ix[d] < a.shape[d]) break;
                p -= a.strides[d] * a.shape[d];
                ix[d] = 0;
            }
        }
    }
}

}  // namespace red

// np.sum / np.prod (SkipNan: np.nansum / np.nanprod) in the accumulator type R, from R's zero (one).
template <class R, bool SkipNan, class T, int ND, class L> CJ_INLINE R array_sum(const Array<T, ND, L>& a) {
    R acc{};
    red::each(a, [&](T x) {
        if (!(SkipNan && red::is_nan(x))) acc = red::add(acc, red::conv<R>::from(x));
        return true;
    });
    return acc;
}
template <class R, bool SkipNan, class T, int ND, class L> CJ_INLINE R array_prod(const Array<T, ND, L>& a) {
    R acc = red::one<R>();
    red::each(a, [&](T x) {
        if (!(SkipNan && red::is_nan(x))) acc = red::mul(acc, red::conv<R>::from(x));
        return true;
    });
    return acc;
}

// np.mean (SkipNan: np.nanmean, NaNs left out of the sum and the count): the sum in Acc, divided by the count as
// R (double or complex<double>). An empty array gives 0/0, NaN.
template <class Acc, class R, bool SkipNan, class T, int ND, class L>
CJ_INLINE R array_mean(const Array<T, ND, L>& a) {
    Acc acc{};
    int64_t count = 0;
    red::each(a, [&](T x) {
        if (!(SkipNan && red::is_nan(x))) {
            acc = red::add(acc, red::conv<Acc>::from(x));
            ++count;
        }
        return true;
    });
    return red::conv<R>::from(acc) / double(count);
}

// np.var (np.nanvar): the mean as array_mean, then the mean of |x - mean|**2 in double.
template <class Acc, class R, bool SkipNan, class T, int ND, class L>
CJ_INLINE double array_var(const Array<T, ND, L>& a) {
    const R m = array_mean<Acc, R, SkipNan>(a);
    double ssd = 0;
    int64_t count = 0;
    red::each(a, [&](T x) {
        if (!(SkipNan && red::is_nan(x))) {
            ssd += red::abs2(red::conv<R>::from(x) - m);
            ++count;
        }
        return true;
    });
    return ssd / double(count);
}

// np.min / np.max: the first NaN if there is one (NumPy's propagation), else the first extreme element.
template <bool Max, class T, int ND, class L> CJ_INLINE T array_extremum(int32_t site, const Array<T, ND, L>& a) {
    if (a.size() == 0) {
        red::empty_array(site);
        return red::no_value<T>();
    }
    T best = *a.data;  // the element at index (0, ..., 0), first in C order
    if (red::is_nan(best)) return best;
    red::each(a, [&](T x) {
        if (red::is_nan(x)) {
            best = x;
            return false;
        }
        if (red::better<Max>(x, best)) best = x;
        return true;
    });
    return best;
}

// np.nanmin / np.nanmax: NaNs ignored; all NaN gives NaN (the first element).
template <bool Max, class T, int ND, class L> CJ_INLINE T array_nanextremum(int32_t site, const Array<T, ND, L>& a) {
    if (a.size() == 0) {
        red::empty_array(site);
        return red::no_value<T>();
    }
    T best = *a.data;
    red::each(a, [&](T x) {
        if (!red::is_nan(x) && (red::is_nan(best) || red::better<Max>(x, best))) best = x;
        return true;
    });
    return best;
}

// np.argmin / np.argmax: the flat (C order) index of the first NaN, else of the first extreme element; -1 for an
// empty array without debug=True.
template <bool Max, class T, int ND, class L>
CJ_INLINE int64_t array_argextremum(int32_t site, const Array<T, ND, L>& a) {
    if (a.size() == 0) {
        red::empty_array(site);
        return -1;
    }
    T best = *a.data;
    int64_t at = 0, k = 0;
    red::each(a, [&](T x) {
        if (red::is_nan(x)) {
            at = k;
            return false;
        }
        if (red::better<Max>(x, best)) {
            best = x;
            at = k;
        }
        ++k;
        return true;
    });
    return at;
}

// np.all / np.any / np.count_nonzero: Python's truth of each element (NaN is true; complex: either part nonzero).
template <class T, int ND, class L> CJ_INLINE bool array_all(const Array<T, ND, L>& a) {
    bool all = true;
    red::each(a, [&](T x) { return all = py_bool(x); });
    return all;
}
template <class T, int ND, class L> CJ_INLINE bool array_any(const Array<T, ND, L>& a) {
    bool any = false;
    red::each(a, [&](T x) { return !(any = py_bool(x)); });
    return any;
}
template <class T, int ND, class L> CJ_INLINE int64_t array_count_nonzero(const Array<T, ND, L>& a) {
    int64_t count = 0;
    red::each(a, [&](T x) {
        count += py_bool(x) ? 1 : 0;
        return true;
    });
    return count;
}

}  // namespace cj

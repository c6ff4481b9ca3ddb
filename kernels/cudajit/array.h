// cudajit: arrays and tuples of the generated code (owned by the compiler).
//
// cj::Array<T, ND, L> is the kernel parameter type of a NumPy-style array: a POD of a data pointer, the shape and
// the strides in bytes (as NumPy). The layout tag L (cj::C, cj::F, cj::A) tells how an element is found: C and F
// arrays index through the shape (i*shape1 + j), so the compiler sees simple index math; A arrays go through the
// byte strides. Views (slicing) keep the same struct with an adjusted pointer, shape and strides.
#pragma once
#include "config.h"
#include "debug.h"

namespace cj {

struct C {};  // C-contiguous (row-major)
struct F {};  // Fortran-contiguous (column-major)
struct A {};  // any strides

template <class X, class Y> struct is_same_layout { static constexpr bool value = false; };
template <class X> struct is_same_layout<X, X> { static constexpr bool value = true; };

template <class T, int ND, class L> struct Array {
    using value_type = T;
    T* data;
    int64_t shape[ND];
    int64_t strides[ND];  // bytes

    CJ_INLINE int64_t size() const {
        int64_t n = 1;
        for (int k = 0; k < ND; ++k) n *= shape[k];
        return n;
    }
    // Element (i0, i1, ...): indices already wrapped (the compiler emits cj::wrap for possibly negative ones).
    template <class... I> CJ_INLINE T& operator()(I... idx) const {
        static_assert(sizeof...(I) == ND, "array indexed with the wrong number of indices");
        const int64_t ix[ND] = {static_cast<int64_t>(idx)...};
        return at(ix);
    }
#if defined(CJ_ERROR_RECORD)
    // Element with its indices checked (debug=True or boundscheck). Bit k of Wrap: index k may be negative and
    // wraps first, as Python's. Then one unsigned compare per axis; out of range, the failure is recorded out of
    // line and the access goes nowhere (debug.h, to_nowhere), and the host raises IndexError after the kernel.
    template <unsigned Wrap, class... I> CJ_INLINE T& checked(int32_t site, I... idx) const {
        return checked_in<Wrap, 0>(false, site, idx...);
    }
    // The same, where with `fits` (the kernel's cj_fits, a constant of each instantiation) the indices of the
    // axes in mask Grid are known in range: the CPU block loop proved them for the whole block (thread.h,
    // Entry::run_fits). `fits` is an argument, not a template argument, so that the call's type does not depend
    // on the kernel's template parameter.
    template <unsigned Wrap, unsigned Grid, class... I>
    CJ_INLINE T& checked_in(bool fits, int32_t site, I... idx) const {
        static_assert(sizeof...(I) == ND, "array indexed with the wrong number of indices");
        const int64_t raw[ND] = {static_cast<int64_t>(idx)...};
        int64_t ix[ND];
        for (int k = 0; k < ND; ++k) {
            ix[k] = ((Wrap >> k) & 1u) && raw[k] < 0 ? raw[k] + shape[k] : raw[k];
            if (fits && ((Grid >> k) & 1u)) continue;
            if (__builtin_expect(static_cast<uint64_t>(ix[k]) >= static_cast<uint64_t>(shape[k]), 0)) {
                index_error(site, raw[k], k, shape[k], ND, dim(0), dim(1), dim(2), dim(3));
                return to_nowhere<T>();
            }
        }
        return at(ix);
    }
#endif
    CJ_INLINE int64_t dim(int k) const { return k < ND ? shape[k < ND ? k : 0] : 0; }
    CJ_INLINE T& at(const int64_t* ix) const {
        if constexpr (is_same_layout<L, C>::value) {
            int64_t off = ix[0];
            for (int k = 1; k < ND; ++k) off = off * shape[k] + ix[k];
            return data[off];
        } else if constexpr (is_same_layout<L, F>::value) {
            int64_t off = ix[ND - 1];
            for (int k = ND - 2; k >= 0; --k) off = off * shape[k] + ix[k];
            return data[off];
        } else {
            int64_t off = 0;
            for (int k = 0; k < ND; ++k) off += ix[k] * strides[k];
            return *reinterpret_cast<T*>(reinterpret_cast<char*>(data) + off);
        }
    }
};

// 0-d arrays: just the pointer (the launcher packs 8 bytes).
template <class T, class L> struct Array<T, 0, L> {
    T* data;
    CJ_INLINE int64_t size() const { return 1; }
    CJ_INLINE T& operator()() const { return *data; }
};

// Python's negative index: i < 0 counts from the end (only emitted for signed indices that may be negative).
template <class I> CJ_INLINE int64_t wrap(I i, int64_t n) {
    return i < 0 ? static_cast<int64_t>(i) + n : static_cast<int64_t>(i);
}

// A contiguous array over `data`: C (the last index varies fastest) or F (the first does; farray).
template <class L, class T, class... N> CJ_INLINE Array<T, int(sizeof...(N)), L> contiguous_array(T* data, N... n) {
    constexpr int ND = int(sizeof...(N));
    Array<T, ND, L> a;
    a.data = data;
    const int64_t dims[ND] = {static_cast<int64_t>(n)...};
    int64_t stride = sizeof(T);
    for (int j = 0; j < ND; ++j) {
        const int k = is_same_layout<L, F>::value ? j : ND - 1 - j;
        a.shape[k] = dims[k];
        a.strides[k] = stride;
        stride *= dims[k];
    }
    return a;
}
// A C-contiguous array over storage the compiler declared (shared, local, constant memory) or a carray's pointer.
template <class T, class... N> CJ_INLINE Array<T, int(sizeof...(N)), C> c_array(T* data, N... n) {
    return contiguous_array<C>(data, n...);
}

// The same array seen with another layout tag (a variable holding C and A arrays is an A array).
template <class To, class T, int ND, class L> CJ_INLINE To array_cast(const Array<T, ND, L>& a) {
    To b;
    b.data = a.data;
    if constexpr (ND > 0) {
        for (int k = 0; k < ND; ++k) {
            b.shape[k] = a.shape[k];
            b.strides[k] = a.strides[k];
        }
    }
    return b;
}

// ---- slicing: cj::view<Result>(array, index-or-slice, ...) ----
// A Python slice; a missing start/stop is flagged, a missing step is 1.
struct Slice {
    int64_t start, stop, step;
    bool has_start, has_stop;
};
CJ_INLINE Slice slice(int64_t start, bool has_start, int64_t stop, bool has_stop, int64_t step) {
    return Slice{start, stop, step, has_start, has_stop};
}

namespace detail {
// PySlice_AdjustIndices: clamp start/stop to the length, return the number of elements selected.
CJ_INLINE int64_t adjust_slice(const Slice& s, int64_t n, int64_t* start) {
    int64_t step = s.step == 0 ? 1 : s.step;
    int64_t lo, hi;
    if (step > 0) {
        lo = !s.has_start ? 0 : s.start < 0 ? (s.start + n < 0 ? 0 : s.start + n) : (s.start > n ? n : s.start);
        hi = !s.has_stop ? n : s.stop < 0 ? (s.stop + n < 0 ? 0 : s.stop + n) : (s.stop > n ? n : s.stop);
        *start = lo;
        return hi > lo ? (hi - lo - 1) / step + 1 : 0;       // (never hi - lo + step - 1: a huge step overflows)
    }
    lo = !s.has_start ? n - 1 : s.start < 0 ? (s.start + n < 0 ? -1 : s.start + n) : (s.start >= n ? n - 1 : s.start);
    hi = !s.has_stop ? -1 : s.stop < 0 ? (s.stop + n < 0 ? -1 : s.stop + n) : (s.stop >= n ? n - 1 : s.stop);
    *start = lo;
    // -step as unsigned: a step of INT64_MIN has no positive int64
    return lo > hi ? int64_t(uint64_t(lo - hi - 1) / (uint64_t(0) - uint64_t(step))) + 1 : 0;
}

// No more index specs: the remaining dimensions are kept whole.
template <class R, class T, int ND, class L>
CJ_INLINE void apply(R& r, const Array<T, ND, L>& a, char*&, int src_dim, int dst_dim) {
    for (; src_dim < ND; ++src_dim, ++dst_dim) {
        r.shape[dst_dim] = a.shape[src_dim];
        r.strides[dst_dim] = a.strides[src_dim];
    }
}
// (declared first: each overload calls the other for the next index)
template <class R, class Src, class... Rest>
CJ_INLINE void apply(R& r, const Src& a, char*& p, int src_dim, int dst_dim, Slice s, Rest... rest);
template <class R, class Src, class... Rest>
CJ_INLINE void apply(R& r, const Src& a, char*& p, int src_dim, int dst_dim, int64_t i, Rest... rest) {
    p += (i < 0 ? i + a.shape[src_dim] : i) * a.strides[src_dim];
    apply(r, a, p, src_dim + 1, dst_dim, rest...);
}
template <class R, class Src, class... Rest>
CJ_INLINE void apply(R& r, const Src& a, char*& p, int src_dim, int dst_dim, Slice s, Rest... rest) {
    int64_t start;
    int64_t len = adjust_slice(s, a.shape[src_dim], &start);
    p += start * a.strides[src_dim];
    r.shape[dst_dim] = len;
    r.strides[dst_dim] = a.strides[src_dim] * (s.step == 0 ? 1 : s.step);
    apply(r, a, p, src_dim + 1, dst_dim + 1, rest...);
}
}  // namespace detail

template <class R, class T, int ND, class L, class... S> CJ_INLINE R view(const Array<T, ND, L>& a, S... specs) {
    R r;
    char* p = reinterpret_cast<char*>(a.data);
    detail::apply(r, a, p, 0, 0, specs...);
    r.data = reinterpret_cast<T*>(p);
    return r;
}

#if defined(CJ_ERROR_RECORD)
namespace detail {
// One index spec of a checked view, for axis k: a slice always fits (clamped, as Python's); an integer is checked
// as an element's index is (bit k of Wrap: it may be negative and wraps first). A failure is index_error's, and the
// thread ends as at a checked element (GPU: exit; CPU: index_error threw), except in cooperative GPU kernels.
template <unsigned Wrap, class T, int ND, class L>
CJ_INLINE bool spec_fits(int32_t site, const Array<T, ND, L>&, int, Slice) { return true; }
template <unsigned Wrap, class T, int ND, class L>
CJ_INLINE bool spec_fits(int32_t site, const Array<T, ND, L>& a, int k, int64_t raw) {
    const int64_t i = ((Wrap >> k) & 1u) && raw < 0 ? raw + a.shape[k] : raw;
    if (__builtin_expect(static_cast<uint64_t>(i) >= static_cast<uint64_t>(a.shape[k]), 0)) {
        index_error(site, raw, k, a.shape[k], ND, a.dim(0), a.dim(1), a.dim(2), a.dim(3));
        (void)to_nowhere<char>();
        return false;
    }
    return true;
}
}  // namespace detail

// a[i], a[i, 2:], a[:, j] (an integer for some axes, a view of the rest) with bounds checks: each integer index is
// checked against its axis as an element's are (a row past the end was never a valid view: its writes corrupted
// whatever followed the array). Where the thread runs on (cooperative GPU kernels), the view is empty.
template <class R, unsigned Wrap, class T, int ND, class L, class... S>
CJ_INLINE R view_checked(int32_t site, const Array<T, ND, L>& a, S... specs) {
    int k = 0;
    bool ok = true;
    ((ok = detail::spec_fits<Wrap>(site, a, k++, specs) && ok), ...);
    R r = view<R>(a, specs...);
    if (!ok) r.shape[0] = 0;
    return r;
}

// a[i:j:s] with bounds checks: a step of zero raises ValueError (Python's "slice step cannot be zero").
CJ_INLINE int64_t check_step(int32_t site, int64_t step) {
    if (__builtin_expect(step == 0, 0)) debug_raise(site);
    return step;
}
#endif

// ---- tuples ----
// A homogeneous tuple (Numba's UniTuple): indexable by a run-time integer.
template <class T, int N> struct UniTuple {
    T v[N];
    // t[i] with a run-time index, without debug: out of range gives T{} rather than the memory past the tuple (a
    // CPU thread's stack). numba-cuda's thread stops at the IndexError it cannot report; here it goes on with 0.
    template <bool Wrap, class I> CJ_INLINE T get(I idx) const {
        const int64_t raw = static_cast<int64_t>(idx);
        const int64_t i = Wrap && raw < 0 ? raw + N : raw;
        return static_cast<uint64_t>(i) < static_cast<uint64_t>(N) ? v[i] : T{};
    }
#if defined(CJ_ERROR_RECORD)
    // t[i] with a run-time index, checked (debug=True): out of range records the error and ends the thread, as
    // an array's checked element does (a cooperative kernel's thread runs on with T{}: debug.h, to_nowhere).
    template <bool Wrap, class I> CJ_INLINE T checked(int32_t site, I idx) const {
        const int64_t raw = static_cast<int64_t>(idx);
        const int64_t i = Wrap && raw < 0 ? raw + N : raw;
        if (__builtin_expect(static_cast<uint64_t>(i) >= static_cast<uint64_t>(N), 0)) {
            index_error(site, raw, 0, N, 1, N, 0, 0, 0);
#if defined(CJ_INDEX_ERROR_RUNS_ON)
            return T{};
#else
            return to_nowhere<T>();
#endif
        }
        return v[i];
    }
#endif
};
// np.unravel_index(k, shape): the C-order index of flat position k (a.flat[k], np.ndenumerate).
template <int N> CJ_INLINE UniTuple<int64_t, N> unravel_index(int64_t k, const UniTuple<int64_t, N>& shape) {
    UniTuple<int64_t, N> ix{};
    for (int d = N - 1; d > 0; --d) {
        if (shape.v[d] == 0) continue;            // an empty axis: no element (a checked a.flat[k] raises on it)
        ix.v[d] = k % shape.v[d];
        k /= shape.v[d];
    }
    if (N > 0) ix.v[0] = k;                       // beyond the last element: out of axis 0's range (checked)
    return ix;
}
template <class T, int ND, class L> CJ_INLINE UniTuple<int64_t, ND> unravel_index(int64_t k, const Array<T, ND, L>& a) {
    UniTuple<int64_t, ND> shape;
    for (int d = 0; d < ND; ++d) shape.v[d] = a.shape[d];
    return unravel_index<ND>(k, shape);
}
// A heterogeneous tuple (Numba's Tuple): constant indices only, through cj::get<I>.
template <class... Ts> struct Tuple;
template <> struct Tuple<> {};
template <class T0, class... Ts> struct Tuple<T0, Ts...> {
    T0 head;
    Tuple<Ts...> tail;
};
CJ_INLINE Tuple<> make_tuple() { return Tuple<>{}; }
template <class T0, class... Ts> CJ_INLINE Tuple<T0, Ts...> make_tuple(T0 a, Ts... rest) {
    return Tuple<T0, Ts...>{a, make_tuple(rest...)};
}

template <int I> struct tuple_get {
    template <class T0, class... Ts> static CJ_INLINE auto& of(Tuple<T0, Ts...>& t) { return tuple_get<I - 1>::of(t.tail); }
    template <class T0, class... Ts> static CJ_INLINE const auto& of(const Tuple<T0, Ts...>& t) {
        return tuple_get<I - 1>::of(t.tail);
    }
};
template <> struct tuple_get<0> {
    template <class T0, class... Ts> static CJ_INLINE T0& of(Tuple<T0, Ts...>& t) { return t.head; }
    template <class T0, class... Ts> static CJ_INLINE const T0& of(const Tuple<T0, Ts...>& t) { return t.head; }
};
template <int I, class... Ts> CJ_INLINE auto& get(Tuple<Ts...>& t) { return tuple_get<I>::of(t); }
template <int I, class... Ts> CJ_INLINE const auto& get(const Tuple<Ts...>& t) { return tuple_get<I>::of(t); }
template <int I, class T, int N> CJ_INLINE T& get(UniTuple<T, N>& t) { return t.v[I]; }
template <int I, class T, int N> CJ_INLINE const T& get(const UniTuple<T, N>& t) { return t.v[I]; }

// tuple_cast<To>(t): a tuple converted element by element (values.cast: a tuple variable whose definitions were
// unified to a wider type, read back at one definition's type, e.g. (int32, int32) and then (int64, int64)).
template <class D, class S> CJ_INLINE void convert_into(D& d, const S& s) { d = static_cast<D>(s); }
template <int I, int N> struct tuple_each {
    template <class D, class S> static CJ_INLINE void convert(D& d, const S& s) {
        convert_into(get<I>(d), get<I>(s));
        tuple_each<I + 1, N>::convert(d, s);
    }
};
template <int N> struct tuple_each<N, N> {
    template <class D, class S> static CJ_INLINE void convert(D&, const S&) {}
};
template <class T, int N, class S> CJ_INLINE void convert_into(UniTuple<T, N>& d, const S& s) {
    tuple_each<0, N>::convert(d, s);
}
template <class... Ts, class S> CJ_INLINE void convert_into(Tuple<Ts...>& d, const S& s) {
    tuple_each<0, int(sizeof...(Ts))>::convert(d, s);
}
template <class To, class From> CJ_INLINE To tuple_cast(const From& from) {
    To to{};
    convert_into(to, from);
    return to;
}

}  // namespace cj

namespace cj {
// a.T of a 1-d or 2-d array: the same data with the axes swapped (C <-> F).
template <class R, class T, int ND, class L> CJ_INLINE R transpose(const Array<T, ND, L>& a) {
    R r;
    r.data = a.data;
    for (int k = 0; k < ND; ++k) {
        r.shape[k] = a.shape[ND - 1 - k];
        r.strides[k] = a.strides[ND - 1 - k];
    }
    return r;
}
// a.real, a.imag (offset = 0 or the component size; same strides) and a.view(dtype) (rescale: a different
// element size rescales the last axis, contiguous as the compiler checks, as NumPy's view): the same bytes seen
// as R's element type.
template <class R, class T, int ND, class L>
CJ_INLINE R reinterpret_view(const Array<T, ND, L>& a, int64_t offset, bool rescale) {
    using U = typename R::value_type;
    R r;
    r.data = reinterpret_cast<U*>(reinterpret_cast<char*>(a.data) + offset);
    for (int k = 0; k < ND; ++k) {
        r.shape[k] = a.shape[k];
        r.strides[k] = a.strides[k];
    }
    if (rescale && sizeof(U) != sizeof(T) && ND > 0) {
        r.shape[ND - 1] = a.shape[ND - 1] * int64_t(sizeof(T)) / int64_t(sizeof(U));
        r.strides[ND - 1] = int64_t(sizeof(U));
    }
    return r;
}
// a.reshape(n0, n1, ...) of a C-contiguous array: the same data under a new C-contiguous shape; one -1 is
// inferred, as NumPy. A shape whose size differs gives an empty array (nothing is touched); with the error record
// (debug=True) site >= 0 also raises NumPy's ValueError on the host.
template <class R, class T, int ND, class... N> CJ_INLINE R reshape(int32_t site, const Array<T, ND, C>& a, N... n) {
    constexpr int NN = int(sizeof...(N));
    const int64_t want[NN] = {static_cast<int64_t>(n)...};
    const int64_t size = a.size();
    int64_t known = 1;
    int inferred = -1;
    bool ok = true;
    for (int k = 0; k < NN; ++k) {
        if (want[k] == -1 && inferred < 0) inferred = k;
        else if (want[k] < 0) ok = false;
        else known *= want[k];
    }
    R r;
    r.data = a.data;
    int64_t stride = sizeof(T);
    for (int k = NN - 1; k >= 0; --k) {
        r.shape[k] = k != inferred ? want[k] : (known != 0 ? size / known : -1);
        r.strides[k] = stride;
        stride *= r.shape[k];
    }
    ok = ok && (inferred < 0 ? known == size : known != 0 && size % known == 0);
    if (!ok) {
        for (int k = 0; k < NN; ++k) r.shape[k] = 0;
#if defined(CJ_ERROR_RECORD)
        if (site >= 0) debug_raise(site);
#endif
    }
    return r;
}
// a[...] = scalar and a[...] = b on views: element by element, in C order.
template <class T, int ND, class L, class V, class F>
CJ_INLINE void for_each_index(const Array<T, ND, L>& a, F f, bool backward = false) {
    int64_t n = a.size();
    for (int64_t step = 0; step < n; ++step) {
        const int64_t flat = backward ? n - 1 - step : step;
        int64_t rest = flat, off = 0, ix[ND];
        for (int k = ND - 1; k >= 0; --k) {
            ix[k] = rest % a.shape[k];
            rest /= a.shape[k];
            off += ix[k] * a.strides[k];
        }
        f(*reinterpret_cast<T*>(reinterpret_cast<char*>(a.data) + off), ix);
    }
}
template <class T, int ND, class L, class V> CJ_INLINE void fill(const Array<T, ND, L>& a, V v) {
    for_each_index<T, ND, L, V>(a, [&](T& x, const int64_t*) { x = T(v); });
}
// The bytes [lo, hi) an array's elements cover (none: lo == hi).
template <class T, int ND, class L>
CJ_INLINE void byte_span(const Array<T, ND, L>& a, const char*& lo, const char*& hi) {
    lo = hi = reinterpret_cast<const char*>(a.data);
    if (a.size() == 0) return;
    for (int k = 0; k < ND; ++k) {
        const int64_t span = (a.shape[k] - 1) * a.strides[k];
        (span < 0 ? lo : hi) += span;
    }
    hi += sizeof(T);
}
// a[...] = b: b broadcasts to the view's shape as NumPy's and Numba's do (its axes align with the view's last ones;
// an axis of length 1 repeats). Another shape copies nothing (b's elements past its shape would be read): with the
// error record site >= 0 raises Numba's ValueError on the host. Where b's bytes overlap the view's (a[1:] = a[:-1])
// Numba copies b first; here b of the view's very layout is copied in the order that reads each element before
// it is overwritten (memmove's), and any other overlap raises overlap_site's ValueError (copying it in place
// would read elements already written).
template <class T, int ND, class L, class U, int ND2, class L2>
CJ_INLINE void copy_into(int32_t site, int32_t overlap_site, const Array<T, ND, L>& dst,
                         const Array<U, ND2, L2>& src) {
    static_assert(ND2 <= ND, "the compiler refuses a source of more dimensions than the view");
    constexpr int lead = ND - ND2;
    bool backward = false;
    if constexpr (ND2 > 0) {
        for (int k = 0; k < ND2; ++k) {
            if (src.shape[k] != dst.shape[k + lead] && src.shape[k] != 1) {
#if defined(CJ_ERROR_RECORD)
                if (site >= 0) debug_raise(site);
#endif
                return;
            }
        }
        const char *dlo, *dhi, *slo, *shi;
        byte_span(dst, dlo, dhi);
        byte_span(src, slo, shi);
        if (dlo < shi && slo < dhi && dst.data != reinterpret_cast<const T*>(src.data)) {
            bool same = ND2 == ND && sizeof(T) == sizeof(U);
            for (int k = 0; same && k < ND2; ++k)
                same = src.shape[k] == dst.shape[k] && src.strides[k] == dst.strides[k];
            if (!same) {
#if defined(CJ_ERROR_RECORD)
                if (overlap_site >= 0) debug_raise(overlap_site);
#endif
            }
            backward = reinterpret_cast<const char*>(dst.data) > reinterpret_cast<const char*>(src.data);
        }
    }
    for_each_index<T, ND, L, U>(dst, [&](T& x, const int64_t* ix) {
        int64_t off = 0;
        if constexpr (ND2 > 0) {
            for (int k = 0; k < ND2; ++k) off += (src.shape[k] == 1 ? 0 : ix[k + lead]) * src.strides[k];
        }
        x = T(*reinterpret_cast<const U*>(reinterpret_cast<const char*>(src.data) + off));
    }, backward);
}
}  // namespace cj

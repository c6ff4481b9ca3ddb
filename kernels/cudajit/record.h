// cudajit: records (NumPy structured dtypes), owned by the compiler.
//
// A record is its bytes, laid out exactly as NumPy's dtype says (offsets, padding, packing, itemsize): the compiler
// never relies on C++ struct layout. Record<Size, Align> is the element type of record arrays (kernel arguments,
// shared, local and constant arrays); RecordRef<Size, Align> is a record value in a kernel: a pointer to the bytes,
// as Numba's records are, so `r = a[i]; r.x = 1` writes a[i]. A single record kernel argument is a RecordRef to a
// device copy of it (the launcher packs its pointer, as for a 0-d array). Fields are read and written with memcpy
// at the field's offset, so a packed dtype's unaligned fields work on both targets.
#pragma once
#include "config.h"
#include "array.h"

namespace cj {

// A byte copy (NVRTC has no memcpy builtin); both compilers turn it into one load or store when aligned.
CJ_INLINE void copy_bytes(unsigned char* to, const unsigned char* from, int64_t n) {
    for (int64_t k = 0; k < n; ++k) to[k] = from[k];
}

template <int64_t Size, int64_t Align> struct RecordRef;

template <int64_t Size, int64_t Align> struct alignas(Align) Record {
    unsigned char b[Size];
    CJ_INLINE unsigned char* bytes() { return b; }
    CJ_INLINE const unsigned char* bytes() const { return b; }
    CJ_INLINE Record& operator=(const RecordRef<Size, Align>& r);
};

template <int64_t Size, int64_t Align> struct RecordRef {
    unsigned char* p;
    RecordRef() = default;
    CJ_INLINE RecordRef(Record<Size, Align>& r) : p(r.b) {}
    CJ_INLINE RecordRef(const Record<Size, Align>& r) : p(const_cast<unsigned char*>(r.b)) {}
    CJ_INLINE unsigned char* bytes() const { return p; }
};

template <int64_t Size, int64_t Align>
CJ_INLINE Record<Size, Align>& Record<Size, Align>::operator=(const RecordRef<Size, Align>& r) {
    copy_bytes(b, r.p, Size);
    return *this;
}

template <class T, int64_t Off, class R> CJ_INLINE T get_field(R&& r) {
    T v;
    copy_bytes(reinterpret_cast<unsigned char*>(&v), r.bytes() + Off, sizeof(T));
    return v;
}

template <class T, int64_t Off, class R> CJ_INLINE void set_field(R&& r, T v) {
    copy_bytes(r.bytes() + Off, reinterpret_cast<const unsigned char*>(&v), sizeof(T));
}

// A nested array field (`('v', np.float32, (3,))`): a C-contiguous view of the bytes in the record.
template <class T, int64_t Off, class R, class... N> CJ_INLINE Array<T, int(sizeof...(N)), C> field_array(R&& r, N... n) {
    return c_array(reinterpret_cast<T*>(r.bytes() + Off), int64_t(n)...);
}

}  // namespace cj

// ArrayCore: the C++ record of an array (device, host-mapped, or CPU-backend memory) that
// DeviceNDArray subclasses in Python. The launcher reads pointer, shape and strides straight
// from it, with no Python attribute look-ups on the launch path.
#pragma once
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>

#include "memory.h"

namespace cj {

constexpr int kMaxDims = 16;

enum class Layout : uint8_t { C = 0, F = 1, A = 2 };

// Dtypes a kernel can take, numbered for the dispatch key; 0 for any other dtype (copyable,
// not launchable).
enum DtypeId : uint8_t {
    kOther = 0, kBool, kI1, kI2, kI4, kI8, kU1, kU2, kU4, kU8, kF2, kF4, kF8, kC8, kC16
};
DtypeId dtype_id_of(const std::string& typestr);  // "<f4", "|b1", "f4" … (byte order ignored)

// Byte offsets [lo, hi) that the elements occupy relative to element [0, …, 0] ({0, 0} when
// empty). Raises ValueError naming `what` when a shape is negative or the span overflows int64.
std::pair<int64_t, int64_t> checked_extent(int ndim, const int64_t* shape, const int64_t* strides,
                                           int64_t itemsize, const std::string& what);
// Raises ValueError unless [ptr + lo, ptr + hi) is an address range memory can have: a null
// pointer only for an empty array, no wrap-around, below the 57-bit user address space.
void check_address_range(uintptr_t ptr, std::pair<int64_t, int64_t> extent, const std::string& what);
// Raises ValueError when the range is not memory where that is known: on the GPU, running past
// the end of the device allocation it starts in (the driver knows its own allocations; other
// memory is not judged); on the CPU, a first or last byte in a page the process has not mapped.
void check_span_is_memory(uintptr_t ptr, std::pair<int64_t, int64_t> extent, const std::string& what);

struct ArrayCore {
    uintptr_t ptr = 0;  // address of element [0, …, 0]
    int ndim = 0;
    int64_t shape[kMaxDims] = {};
    int64_t strides[kMaxDims] = {};  // bytes
    int64_t size = 1;
    int itemsize = 0;
    DtypeId dtype = kOther;
    Layout layout = Layout::C;
    Backend backend = Backend::Gpu;
    bool readonly = false;     // kernels may not write it (read-only CAI data, a non-writeable NumPy array's copy)
    int device = -1;           // GPU memory: the device it is on; -1: any device reaches it (managed, mapped) or CPU
    std::string typestr;       // as __array_interface__ writes it, e.g. "<f4"
    pybind11::object owner;    // keeps the memory alive (a buffer, another array, a foreign object)
    // A new allocation's buffer; `owner` becomes its Python object only when asked for (gpu_data, views), so
    // allocating and dropping an array creates no second Python object.
    std::shared_ptr<DeviceBuffer> buffer;

    ArrayCore(uintptr_t ptr, pybind11::tuple shape, pybind11::object strides, std::string typestr,
              pybind11::object owner, int backend, int device = -1);
    // A new compact array in memory of its own (device_array's common path): `shape` is an int or a tuple of
    // ints, none negative (devicearray._normalize_shape's result); C strides, or Fortran's when `fortran`;
    // the DeviceBuffer is allocated on `stream`. `dtype_name` only words the error for a size over 2**63 bytes.
    ArrayCore(pybind11::handle shape, std::string typestr, bool fortran, uintptr_t stream,
              pybind11::handle dtype_name);

    // A compact array at `ptr` of memory its caller keeps alive (sets `buffer`; a launch's NumPy arguments,
    // host_args.cpp): `ndim` extents (ValueError past kMaxDims or for a span over int64), C strides or Fortran's
    // when `fortran`.
    ArrayCore(uintptr_t ptr, int ndim, const Py_ssize_t* shape, bool fortran, std::string typestr, bool readonly,
              Backend backend, int device);

    // Byte offsets [lo, hi) relative to ptr that the elements occupy (for copies of views).
    std::pair<int64_t, int64_t> extent() const;
    char layout_char() const { return "CFA"[static_cast<int>(layout)]; }
    // Dispatch key part: dtype, ndim, layout, backend, read-only (a kernel compiles differently for it).
    uint64_t type_code() const {
        return (uint64_t{1} << 56) | (uint64_t{readonly} << 32) | (uint64_t{dtype} << 16) | (uint64_t(ndim) << 8) |
               (uint64_t(layout) << 4) | uint64_t(backend);
    }
};

void bind_array_core(pybind11::module_& m);

}  // namespace cj

#include "array_core.h"

#include <pybind11/stl.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "context.h"
#include "driver.h"
#include "errors.h"

namespace py = pybind11;

namespace cj {

DtypeId dtype_id_of(const std::string& typestr) {
    std::string t = typestr;
    if (!t.empty() && (t[0] == '<' || t[0] == '>' || t[0] == '|' || t[0] == '=')) t = t.substr(1);
    static const std::pair<const char*, DtypeId> table[] = {
        {"b1", kBool}, {"i1", kI1}, {"i2", kI2}, {"i4", kI4}, {"i8", kI8}, {"u1", kU1}, {"u2", kU2},
        {"u4", kU4}, {"u8", kU8}, {"f2", kF2}, {"f4", kF4}, {"f8", kF8}, {"c8", kC8}, {"c16", kC16}};
    for (const auto& [name, id] : table)
        if (t == name) return id;
    return kOther;
}

namespace {

// The item size a typestr ends with ("<f4" → 4; a datetime's unit follows it: "<M8[ms]" → 8); ValueError for a
// typestr without one.
int itemsize_of(const std::string& typestr_) {
    std::string typestr = typestr_;
    if (!typestr.empty() && typestr.back() == ']' && typestr.find('[') != std::string::npos)
        typestr.erase(typestr.find('['));
    size_t i = 0;
    while (i < typestr.size() && !(typestr[i] >= '0' && typestr[i] <= '9')) ++i;
    int64_t n = 0;
    size_t j = i;
    for (; j < typestr.size() && typestr[j] >= '0' && typestr[j] <= '9' && n <= 1 << 20; ++j) n = n * 10 + (typestr[j] - '0');
    if (i == typestr.size() || j != typestr.size() || n <= 0 || n > 1 << 20)
        throw py::value_error("typestr '" + typestr_ + "' does not end in a positive item size in bytes");
    return static_cast<int>(n);
}

// shape[d] / strides[d] as int64: TypeError for a non-integer, ValueError when it does not fit.
int64_t dim_value(py::handle h, const char* field, int d) {
    PyObject* idx = PyNumber_Index(h.ptr());
    if (!idx) {
        PyErr_Clear();
        throw py::type_error(std::string(field) + "[" + std::to_string(d) + "] must be an int, not " +
                             Py_TYPE(h.ptr())->tp_name);
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(idx, &overflow);
    if (overflow) {
        std::string text = py::str(idx);
        Py_DECREF(idx);
        throw py::value_error(std::string(field) + "[" + std::to_string(d) + "] = " + text + " does not fit in int64");
    }
    Py_DECREF(idx);
    return v;
}

std::string hex(uintptr_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

Layout classify(int ndim, const int64_t* shape, const int64_t* strides, int64_t itemsize, int64_t size) {
    if (size == 0 || ndim == 0) return Layout::C;
    bool c = true, f = true;
    int64_t expect = itemsize;
    for (int d = ndim - 1; d >= 0; --d) {
        if (shape[d] != 1 && strides[d] != expect) c = false;
        expect *= shape[d];
    }
    expect = itemsize;
    for (int d = 0; d < ndim; ++d) {
        if (shape[d] != 1 && strides[d] != expect) f = false;
        expect *= shape[d];
    }
    // Numba types a contiguous 1-d array as C, and a C-and-F array (all but one dim of size 1) as C.
    return c ? Layout::C : (f ? Layout::F : Layout::A);
}

}  // namespace

std::pair<int64_t, int64_t> checked_extent(int ndim, const int64_t* shape, const int64_t* strides,
                                           int64_t itemsize, const std::string& what) {
    int64_t size = 1;
    for (int d = 0; d < ndim; ++d) {
        if (shape[d] < 0)
            throw py::value_error(what + ": shape[" + std::to_string(d) + "] = " + std::to_string(shape[d]) +
                                  " is negative");
        if (__builtin_mul_overflow(size, shape[d], &size))
            throw py::value_error(what + ": the shape's element count overflows int64");
    }
    int64_t bytes;
    if (__builtin_mul_overflow(size, itemsize, &bytes))
        throw py::value_error(what + ": " + std::to_string(size) + " elements of " + std::to_string(itemsize) +
                              " bytes overflow int64");
    if (size == 0) return {0, 0};
    int64_t lo = 0, hi = itemsize;
    for (int d = 0; d < ndim; ++d) {
        int64_t span;
        bool bad = __builtin_mul_overflow(shape[d] - 1, strides[d], &span) ||
                   (span < 0 ? __builtin_add_overflow(lo, span, &lo) : __builtin_add_overflow(hi, span, &hi));
        if (bad)
            throw py::value_error(what + ": strides[" + std::to_string(d) + "] = " + std::to_string(strides[d]) +
                                  " over " + std::to_string(shape[d]) + " elements overflows int64");
    }
    return {lo, hi};
}

void check_address_range(uintptr_t ptr, std::pair<int64_t, int64_t> extent, const std::string& what) {
    constexpr uintptr_t kAddressLimit = uintptr_t{1} << 57;  // x86-64 with 5-level paging; ARM64 uses less
    auto [lo, hi] = extent;
    if (hi == 0) return;  // no elements: the pointer is never read
    if (ptr == 0) throw py::value_error(what + ": data is a null pointer, but the array has elements");
    if (ptr >= kAddressLimit || (lo < 0 && uintptr_t(-lo) > ptr) || uintptr_t(hi) > kAddressLimit - ptr)
        throw py::value_error(what + ": data " + hex(ptr) + " with the strides' byte range [" + std::to_string(lo) +
                              ", " + std::to_string(hi) + ") leaves the address space");
}

bool page_is_mapped(uintptr_t address) {
    static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    unsigned char resident;
    return mincore(reinterpret_cast<void*>(address & ~(page - 1)), 1, &resident) == 0 || errno != ENOMEM;
}

void check_span_is_memory(uintptr_t ptr, std::pair<int64_t, int64_t> extent, const std::string& what) {
    auto [lo, hi] = extent;
    if (hi == 0) return;
    uintptr_t first = ptr + lo, end = ptr + static_cast<uintptr_t>(hi);
    if (current_backend() == Backend::Cpu) {
        for (uintptr_t a : {first, end - 1})
            if (!page_is_mapped(a))
                throw py::value_error(what + ": address " + hex(a) + " is not memory of this process");
        // Inside one of this process's device arrays: within it, as the driver's range bounds a GPU allocation.
        uintptr_t base = 0;
        size_t bytes = 0;
        if (!cpu_allocation_containing(ptr, &base, &bytes) && !cpu_allocation_containing(first, &base, &bytes))
            return;
        const uintptr_t limit = base + bytes;
        if (first < base)
            throw py::value_error(what + ": the elements begin at " + hex(first) + ", " + std::to_string(base - first) +
                                  " bytes before the start of the allocation [" + hex(base) + ", " + hex(limit) +
                                  ") the data pointer " + hex(ptr) + " lies in");
        if (end > limit)
            throw py::value_error(what + ": the elements end at " + hex(end) + ", " + std::to_string(end - limit) +
                                  " bytes past the end of the allocation [" + hex(base) + ", " + hex(limit) +
                                  ") they start in");
        return;
    }
    if (!drv::available(nullptr)) return;
    ctx::ensure();
    // Memory the driver did not allocate (pinned host memory, some VMM mappings) has no known extent. The range is
    // the data pointer's (element 0, inside the allocation), else the first element's. cuPointerGetAttributes
    // answers for any address without a CUDA error (drv::pointer_info).
    drv::PointerInfo info = drv::pointer_info(ptr);
    if (info.size == 0) info = drv::pointer_info(first);
    if (info.size == 0) return;
    const CUdeviceptr base = info.start;
    const size_t bytes = info.size;
    uintptr_t limit = static_cast<uintptr_t>(base) + bytes;
    if (first < base)
        throw py::value_error(what + ": the elements begin at " + hex(first) + ", " + std::to_string(base - first) +
                              " bytes before the start of the device allocation [" + hex(base) + ", " + hex(limit) +
                              ") the data pointer " + hex(ptr) + " lies in");
    if (end > limit)
        throw py::value_error(what + ": the elements end at " + hex(end) + ", " + std::to_string(end - limit) +
                              " bytes past the end of the device allocation [" + hex(base) + ", " + hex(limit) +
                              ") they start in");
}

namespace {

// What every constructor ends with once shape and strides are known: the checks, size and layout.
void finish_array(ArrayCore& a) {
    auto span = checked_extent(a.ndim, a.shape, a.strides, a.itemsize, "array");
    check_address_range(a.ptr, span, "array");
    a.size = 1;
    for (int d = 0; d < a.ndim; ++d) a.size *= a.shape[d];
    a.layout = classify(a.ndim, a.shape, a.strides, a.itemsize, a.size);
}

// Compact strides in C order (or Fortran's), each the product of the item size and the extents inside it, as
// NumPy's; the bytes the array spans, or -1 when a stride or the span reaches 2**63.
int64_t compact_strides(ArrayCore& a, bool fortran) {
    int64_t s = a.itemsize;
    bool overflow = false;
    for (int k = 0; k < a.ndim; ++k) {
        int d = fortran ? k : a.ndim - 1 - k;
        a.strides[d] = s;
        overflow |= __builtin_mul_overflow(s, a.shape[d], &s);
    }
    return overflow ? -1 : s;
}

}  // namespace

ArrayCore::ArrayCore(uintptr_t ptr_, py::tuple shape_, py::object strides_, std::string typestr_,
                     py::object owner_, int backend_, int device_)
    : ptr(ptr_), device(device_), typestr(std::move(typestr_)), owner(std::move(owner_)) {
    ndim = static_cast<int>(shape_.size());
    if (ndim > kMaxDims)
        throw py::value_error("arrays of more than " + std::to_string(kMaxDims) + " dimensions are not supported, got " +
                              std::to_string(ndim));
    itemsize = itemsize_of(typestr);
    dtype = dtype_id_of(typestr);
    backend = static_cast<Backend>(backend_);
    for (int d = 0; d < ndim; ++d) shape[d] = dim_value(shape_[d], "shape", d);
    if (strides_.is_none()) {
        compact_strides(*this, false);  // a span that overflows is refused by finish_array
    } else {
        if (!py::isinstance<py::tuple>(strides_) && !py::isinstance<py::list>(strides_))
            throw py::type_error(std::string("strides must be a tuple of ints or None, not ") +
                                 Py_TYPE(strides_.ptr())->tp_name);
        py::sequence st = strides_;
        if (static_cast<int>(st.size()) != ndim)
            throw py::value_error("strides has " + std::to_string(st.size()) + " entries, but shape has " +
                                  std::to_string(ndim));
        for (int d = 0; d < ndim; ++d) strides[d] = dim_value(st[d], "strides", d);
    }
    finish_array(*this);
}

ArrayCore::ArrayCore(py::handle shape_, std::string typestr_, bool fortran, uintptr_t stream, py::handle dtype_name)
    : typestr(std::move(typestr_)) {
    py::tuple dims;
    if (PyTuple_Check(shape_.ptr())) {
        dims = py::reinterpret_borrow<py::tuple>(shape_);
        ndim = static_cast<int>(dims.size());
        if (ndim > kMaxDims)
            throw py::value_error("arrays of more than " + std::to_string(kMaxDims) +
                                  " dimensions are not supported, got " + std::to_string(ndim));
        for (int d = 0; d < ndim; ++d) shape[d] = dim_value(dims[d], "shape", d);
    } else {
        ndim = 1;
        shape[0] = dim_value(shape_, "shape", 0);
    }
    itemsize = itemsize_of(typestr);
    dtype = dtype_id_of(typestr);
    int64_t nbytes = compact_strides(*this, fortran);
    if (nbytes < 0) {
        // Python's numbers, as the message of an explicit-strides array (devicearray.py) words it.
        py::int_ total(itemsize);
        for (int d = 0; d < ndim; ++d) total = total * py::int_(shape[d]);
        py::object shown = dims ? py::object(dims) : py::object(py::make_tuple(shape[0]));
        if (!PyObject_IsTrue(total.ptr()))  // no elements, but the strides inside a zero extent overflow
            throw py::value_error("array: the strides of shape " + std::string(py::repr(shown)) + " overflow int64");
        throw py::value_error("an array of shape " + std::string(py::repr(shown)) + " and dtype " +
                              std::string(py::str(dtype_name)) + " needs " + std::string(py::str(total)) +
                              " bytes, more than any device has");
    }
    buffer = std::make_shared<DeviceBuffer>(static_cast<size_t>(nbytes), stream);
    ptr = buffer->ptr();
    backend = buffer->backend();
    device = buffer->device();
    finish_array(*this);
}

ArrayCore::ArrayCore(uintptr_t ptr_, int ndim_, const Py_ssize_t* shape_, bool fortran, std::string typestr_,
                     bool readonly_, Backend backend_, int device_)
    : ptr(ptr_), ndim(ndim_), backend(backend_), readonly(readonly_), device(device_), typestr(std::move(typestr_)) {
    if (ndim < 0 || ndim > kMaxDims)
        throw py::value_error("arrays of more than " + std::to_string(kMaxDims) + " dimensions are not supported, got " +
                              std::to_string(ndim));
    itemsize = itemsize_of(typestr);
    dtype = dtype_id_of(typestr);
    for (int d = 0; d < ndim; ++d) shape[d] = shape_[d];
    if (compact_strides(*this, fortran) < 0) throw py::value_error("array: the strides of its shape overflow int64");
    finish_array(*this);
}

std::pair<int64_t, int64_t> ArrayCore::extent() const {
    if (size == 0) return {0, 0};
    int64_t lo = 0, hi = 0;
    for (int d = 0; d < ndim; ++d) {
        int64_t span = (shape[d] - 1) * strides[d];
        if (span < 0) lo += span; else hi += span;
    }
    return {lo, hi + itemsize};
}

void bind_array_core(py::module_& m) {
    py::class_<ArrayCore>(m, "ArrayCore", "C++ record of an array's memory; DeviceNDArray subclasses it.")
        // First: pybind11 tries overloads in order, and this one is device_array's common path.
        .def(py::init<py::handle, std::string, bool, uintptr_t, py::handle>(), py::arg("shape"), py::arg("typestr"),
             py::arg("fortran"), py::arg("stream"), py::arg("dtype_name"))
        .def(py::init<uintptr_t, py::tuple, py::object, std::string, py::object, int, int>(), py::arg("ptr"),
             py::arg("shape"), py::arg("strides"), py::arg("typestr"), py::arg("owner"), py::arg("backend"),
             py::arg("device") = -1)
        .def_property_readonly("shape", [](const ArrayCore& a) {
            py::tuple t(a.ndim);
            for (int d = 0; d < a.ndim; ++d) t[d] = py::int_(a.shape[d]);
            return t;
        })
        .def_property_readonly("strides", [](const ArrayCore& a) {
            py::tuple t(a.ndim);
            for (int d = 0; d < a.ndim; ++d) t[d] = py::int_(a.strides[d]);
            return t;
        })
        .def_property_readonly("ndim", [](const ArrayCore& a) { return a.ndim; })
        .def_property_readonly("size", [](const ArrayCore& a) { return a.size; })
        .def_property_readonly("itemsize", [](const ArrayCore& a) { return a.itemsize; })
        .def_property_readonly("nbytes", [](const ArrayCore& a) { return a.size * a.itemsize; })
        .def_property_readonly("_ptr", [](const ArrayCore& a) { return a.ptr; })
        .def_property_readonly("_typestr", [](const ArrayCore& a) { return a.typestr; })
        .def_property_readonly("_layout", [](const ArrayCore& a) { return std::string(1, a.layout_char()); })
        .def_property_readonly("_owner", [](ArrayCore& a) {
            if (!a.owner && a.buffer) a.owner = py::cast(a.buffer);
            return a.owner;
        })
        .def_property_readonly("_backend", [](const ArrayCore& a) { return static_cast<int>(a.backend); })
        .def_readwrite("_readonly", &ArrayCore::readonly)
        .def_property_readonly("_device", [](const ArrayCore& a) { return a.device; })
        .def("_extent", &ArrayCore::extent);
    m.def("check_span_is_memory", [](uintptr_t ptr, int64_t lo, int64_t hi, const std::string& what) {
        check_span_is_memory(ptr, {lo, hi}, what);
    }, py::arg("ptr"), py::arg("lo"), py::arg("hi"), py::arg("what"),
       "ValueError when bytes [ptr + lo, ptr + hi) are not memory where that is known (array_core.h).");
}

}  // namespace cj

#include "array_core.h"

#include <pybind11/stl.h>

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

int itemsize_of(const std::string& typestr) {
    size_t i = 0;
    while (i < typestr.size() && !(typestr[i] >= '0' && typestr[i] <= '9')) ++i;
    if (i == typestr.size()) throw py::value_error("typestr '" + typestr + "' has no item size");
    return std::stoi(typestr.substr(i));
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

ArrayCore::ArrayCore(uintptr_t ptr_, py::tuple shape_, py::object strides_, std::string typestr_,
                     py::object owner_, int backend_)
    : ptr(ptr_), typestr(std::move(typestr_)), owner(std::move(owner_)) {
    ndim = static_cast<int>(shape_.size());
    if (ndim > kMaxDims)
        throw py::value_error("arrays of more than " + std::to_string(kMaxDims) + " dimensions are not supported");
    itemsize = itemsize_of(typestr);
    dtype = dtype_id_of(typestr);
    backend = static_cast<Backend>(backend_);
    size = 1;
    for (int d = 0; d < ndim; ++d) {
        shape[d] = shape_[d].cast<int64_t>();
        if (shape[d] < 0) throw py::value_error("negative dimension in shape");
        size *= shape[d];
    }
    if (strides_.is_none()) {
        int64_t s = itemsize;
        for (int d = ndim - 1; d >= 0; --d) {
            strides[d] = s;
            s *= shape[d];
        }
    } else {
        py::tuple st = strides_.cast<py::tuple>();
        if (static_cast<int>(st.size()) != ndim) throw py::value_error("strides and shape differ in length");
        for (int d = 0; d < ndim; ++d) strides[d] = st[d].cast<int64_t>();
    }
    layout = classify(ndim, shape, strides, itemsize, size);
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
        .def(py::init<uintptr_t, py::tuple, py::object, std::string, py::object, int>(), py::arg("ptr"),
             py::arg("shape"), py::arg("strides"), py::arg("typestr"), py::arg("owner"), py::arg("backend"))
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
        .def_property_readonly("_owner", [](const ArrayCore& a) { return a.owner; })
        .def_property_readonly("_backend", [](const ArrayCore& a) { return static_cast<int>(a.backend); })
        .def_readwrite("_readonly", &ArrayCore::readonly)
        .def("_extent", &ArrayCore::extent);
}

}  // namespace cj

// DLPack exchange (the unversioned "dltensor" capsule every consumer accepts): export an
// ArrayCore without a copy, and import another library's tensor as pointer/shape/strides.
// The structs below are the DLPack ABI, written from its public specification.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <vector>

#include "array_core.h"
#include "context.h"

namespace py = pybind11;

namespace cj {
namespace {

struct DLDevice { int32_t device_type; int32_t device_id; };
struct DLDataType { uint8_t code; uint8_t bits; uint16_t lanes; };
struct DLTensor {
    void* data; DLDevice device; int32_t ndim; DLDataType dtype;
    int64_t* shape; int64_t* strides; uint64_t byte_offset;
};
struct DLManagedTensor {
    DLTensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(DLManagedTensor*);
};

enum { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13 };
enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLComplex = 5, kDLBool = 6 };

// What an exported tensor owns: its shape/stride storage and a reference to the array.
struct Export {
    DLManagedTensor managed;
    std::vector<int64_t> shape, strides;
    PyObject* array;  // strong reference, dropped (with the GIL) by the deleter
};

void export_deleter(DLManagedTensor* t) {
    auto* e = static_cast<Export*>(t->manager_ctx);
    py::gil_scoped_acquire gil;
    Py_XDECREF(e->array);
    delete e;
}

void capsule_destructor(PyObject* capsule) {
    // Only a capsule nobody consumed still owns its tensor (consumers rename it "used_dltensor").
    if (!PyCapsule_IsValid(capsule, "dltensor")) return;
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (t && t->deleter) t->deleter(t);
}

DLDataType dl_dtype(const ArrayCore& a) {
    char kind = a.typestr.size() > 1 ? a.typestr[1] : '?';
    uint8_t bits = static_cast<uint8_t>(a.itemsize * 8);
    switch (kind) {
        case 'b': return {kDLBool, 8, 1};
        case 'i': return {kDLInt, bits, 1};
        case 'u': return {kDLUInt, bits, 1};
        case 'f': return {kDLFloat, bits, 1};
        case 'c': return {kDLComplex, bits, 1};
    }
    throw py::type_error("dtype '" + a.typestr + "' cannot be exported through DLPack");
}

py::capsule to_dlpack(py::object array) {
    const ArrayCore& a = array.cast<const ArrayCore&>();
    auto* e = new Export;
    e->shape.assign(a.shape, a.shape + a.ndim);
    for (int d = 0; d < a.ndim; ++d) {
        if (a.strides[d] % a.itemsize) {
            delete e;
            throw py::value_error("DLPack needs strides that are whole elements");
        }
        e->strides.push_back(a.strides[d] / a.itemsize);
    }
    DLTensor& t = e->managed.dl_tensor;
    t.data = reinterpret_cast<void*>(a.ptr);
    t.device = a.backend == Backend::Cpu ? DLDevice{kDLCPU, 0} : DLDevice{kDLCUDA, ctx::current_device()};
    t.ndim = a.ndim;
    try {
        t.dtype = dl_dtype(a);
    } catch (...) {
        delete e;
        throw;
    }
    t.shape = e->shape.data();
    t.strides = e->strides.data();
    t.byte_offset = 0;
    e->managed.manager_ctx = e;
    e->managed.deleter = export_deleter;
    e->array = array.release().ptr();
    PyObject* cap = PyCapsule_New(&e->managed, "dltensor", capsule_destructor);
    if (!cap) {
        export_deleter(&e->managed);
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::capsule>(cap);
}

// Keeps an imported tensor alive; calls the producer's deleter when the last view goes.
struct Imported {
    DLManagedTensor* t = nullptr;
    Imported() = default;
    Imported(const Imported&) = delete;
    Imported& operator=(const Imported&) = delete;
    ~Imported() {
        if (t && t->deleter) t->deleter(t);
    }
};

std::string typestr_of(DLDataType dt) {
    if (dt.lanes != 1) throw py::type_error("DLPack tensors with vector lanes are not supported");
    const char* kinds = nullptr;
    switch (dt.code) {
        case kDLInt: kinds = "i"; break;
        case kDLUInt: kinds = "u"; break;
        case kDLFloat: kinds = "f"; break;
        case kDLComplex: kinds = "c"; break;
        case kDLBool: return "|b1";
        default: throw py::type_error("DLPack dtype code " + std::to_string(dt.code) + " is not supported");
    }
    return std::string(dt.bits == 8 ? "|" : "<") + kinds + std::to_string(dt.bits / 8);
}

// Returns (ptr, shape, strides in bytes, typestr, device_type, device_id, owner).
py::tuple from_dlpack(py::object capsule) {
    if (!PyCapsule_IsValid(capsule.ptr(), "dltensor"))
        throw py::value_error("not an unconsumed DLPack capsule (name 'dltensor')");
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    PyCapsule_SetName(capsule.ptr(), "used_dltensor");
    auto owner = std::make_shared<Imported>();
    owner->t = t;
    const DLTensor& x = t->dl_tensor;
    std::string ts = typestr_of(x.dtype);
    int64_t item = x.dtype.bits / 8;
    py::tuple shape(x.ndim), strides(x.ndim);
    int64_t expect = 1;
    for (int d = x.ndim - 1; d >= 0; --d) {
        int64_t s = x.strides ? x.strides[d] : expect;
        shape[d] = py::int_(x.shape[d]);
        strides[d] = py::int_(s * item);
        expect *= x.shape[d];
    }
    uintptr_t ptr = reinterpret_cast<uintptr_t>(x.data) + x.byte_offset;
    py::object keep = py::cast(owner);
    return py::make_tuple(ptr, shape, strides, ts, x.device.device_type, x.device.device_id, keep);
}

}  // namespace

void bind_dlpack(py::module_& m) {
    py::class_<Imported, std::shared_ptr<Imported>>(m, "_DLPackOwner");
    m.def("to_dlpack", &to_dlpack, "Export an ArrayCore as a 'dltensor' capsule (no copy).");
    m.def("from_dlpack", &from_dlpack, "Consume a 'dltensor' capsule: (ptr, shape, strides, typestr, dev_type, dev_id, owner).");
}

}  // namespace cj

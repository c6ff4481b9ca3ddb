// DLPack exchange: export an ArrayCore without a copy (the unversioned "dltensor" capsule every
// consumer accepts), and import another library's tensor ("dltensor" or DLPack 1.x's
// "dltensor_versioned") as pointer/shape/strides after checking every field.
// The structs below are the DLPack ABI, written from its public specification.
#include <pybind11/pybind11.h>

#include <algorithm>
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
struct DLPackVersion { uint32_t major; uint32_t minor; };
struct DLManagedTensorVersioned {
    DLPackVersion version;
    void* manager_ctx;
    void (*deleter)(DLManagedTensorVersioned*);
    uint64_t flags;
    DLTensor dl_tensor;
};
constexpr uint32_t kDLPackMajor = 1;  // the versioned ABI this file reads
constexpr uint64_t kDLFlagReadOnly = 1;  // DLPACK_FLAG_BITMASK_READ_ONLY: the consumer must not write the tensor

enum { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13 };
enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6 };
// ml_dtypes.bfloat16's typestr (its dtype.str): how bfloat16 arrays are spelled here and in Python (interop.py).
constexpr const char* kBfloat16Typestr = "<V2";

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
        case 'V':
            if (a.typestr == kBfloat16Typestr) return {kDLBfloat, 16, 1};
            break;
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
    t.device = a.backend == Backend::Cpu ? DLDevice{kDLCPU, 0}
                                         : DLDevice{kDLCUDA, a.device >= 0 ? a.device : ctx::current_device()};
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
    void* tensor = nullptr;
    void (*deleter)(void*) = nullptr;
    Imported() = default;
    Imported(const Imported&) = delete;
    Imported& operator=(const Imported&) = delete;
    ~Imported() {
        if (deleter) deleter(tensor);
    }
};

template <class Managed>
void call_deleter(void* t) {
    auto* m = static_cast<Managed*>(t);
    if (m->deleter) m->deleter(m);
}

// The typestr of a DLPack dtype; the bit width must be one NumPy has for the type code.
std::string typestr_of(DLDataType dt) {
    if (dt.lanes != 1)
        throw py::type_error("DLPack tensor: dtype.lanes = " + std::to_string(dt.lanes) +
                             " (vector types are not supported)");
    const char* kind = nullptr;
    std::vector<int> widths;
    switch (dt.code) {
        case kDLInt: kind = "i"; widths = {8, 16, 32, 64}; break;
        case kDLUInt: kind = "u"; widths = {8, 16, 32, 64}; break;
        case kDLFloat: kind = "f"; widths = {16, 32, 64}; break;
        case kDLComplex: kind = "c"; widths = {64, 128}; break;
        case kDLBool: kind = "b"; widths = {8}; break;  // DLPack's bool is one byte, as NumPy's
        case kDLBfloat:
            if (dt.bits != 16)
                throw py::value_error("DLPack tensor: dtype.bits = " + std::to_string(dt.bits) +
                                      " for bfloat (code 4), which has 16 bits");
            return kBfloat16Typestr;
        default:
            throw py::type_error("DLPack tensor: dtype.code = " + std::to_string(dt.code) +
                                 " is not supported (int 0, uint 1, float 2, bfloat 4, complex 5, bool 6)");
    }
    if (std::find(widths.begin(), widths.end(), dt.bits) == widths.end()) {
        std::string allowed;
        for (int w : widths) allowed += (allowed.empty() ? "" : ", ") + std::to_string(w);
        throw py::value_error("DLPack tensor: dtype.bits = " + std::to_string(dt.bits) + " does not match type code " +
                              std::to_string(dt.code) + " (" + kind + "), which has " + allowed + " bits");
    }
    return std::string(dt.bits == 8 ? "|" : "<") + kind + std::to_string(dt.bits / 8);
}

// Refuses memory the current backend cannot address: CUDA device memory under the CPU backend,
// plain host memory on the GPU (pinned and managed memory work on both).
void check_device(const DLDevice& dev, Backend backend) {
    if (dev.device_id < 0)  // an ordinal (0 for host memory), whatever the type
        throw py::value_error("DLPack tensor: device_id = " + std::to_string(dev.device_id) + " is negative");
    int t = dev.device_type;
    bool host_ok = t == kDLCPU || t == kDLCUDAHost || t == kDLCUDAManaged;
    bool device_ok = t == kDLCUDA || t == kDLCUDAHost || t == kDLCUDAManaged;
    if (!host_ok && !device_ok)
        throw py::value_error("DLPack tensor: device_type = " + std::to_string(t) +
                              " is neither CPU (1) nor CUDA memory (2 device, 3 pinned, 13 managed)");
    if (backend == Backend::Cpu && !host_ok)
        throw py::value_error("DLPack tensor: device_type = 2 (CUDA device memory), which the CPU backend cannot "
                              "read: copy it to host memory first (e.g. its .cpu() or np.from_dlpack of a host copy)");
    if (backend == Backend::Gpu && !device_ok)
        throw py::value_error("DLPack tensor: device_type = 1 (host memory), which GPU kernels cannot use: "
                              "copy it with cuda.to_device(np.from_dlpack(x))");
}

// Returns (ptr, shape, strides in bytes, typestr) after checking each field, before anything
// reads the tensor's memory or takes ownership of it.
py::tuple validated_view(const DLTensor& x, Backend backend) {
    // The tensor's own fields first (each names itself), then whether this backend can use its memory.
    if (x.ndim < 0 || x.ndim > kMaxDims)
        throw py::value_error("DLPack tensor: ndim = " + std::to_string(x.ndim) + " (cudajit supports 0 to " +
                              std::to_string(kMaxDims) + " dimensions)");
    if (x.ndim > 0 && !x.shape)
        throw py::value_error("DLPack tensor: shape is a null pointer with ndim = " + std::to_string(x.ndim));
    std::string ts = typestr_of(x.dtype);
    int64_t item = x.dtype.bits / 8;
    int64_t shape[kMaxDims], strides[kMaxDims];
    int64_t compact = item;  // DLPack: null strides mean a compact row-major tensor
    for (int d = x.ndim - 1; d >= 0; --d) {
        shape[d] = x.shape[d];
        if (!x.strides) {
            strides[d] = compact;
            if (shape[d] > 0 && __builtin_mul_overflow(compact, shape[d], &compact))
                throw py::value_error("DLPack tensor: the shape's byte size overflows int64");
        } else if (__builtin_mul_overflow(x.strides[d], item, &strides[d])) {
            throw py::value_error("DLPack tensor: strides[" + std::to_string(d) + "] = " + std::to_string(x.strides[d]) +
                                  " elements overflows int64 bytes");
        }
    }
    auto extent = checked_extent(x.ndim, shape, strides, item, "DLPack tensor");
    if (x.byte_offset >= (uint64_t{1} << 57))
        throw py::value_error("DLPack tensor: byte_offset = " + std::to_string(x.byte_offset) +
                              " is beyond any address");
    if (!x.data && extent.second > 0)
        throw py::value_error("DLPack tensor: data is a null pointer, but the tensor has elements");
    uintptr_t ptr = reinterpret_cast<uintptr_t>(x.data) + x.byte_offset;
    check_address_range(ptr, extent, "DLPack tensor (data + byte_offset)");
    check_device(x.device, backend);
    check_span_is_memory(ptr, extent, "DLPack tensor (data + byte_offset)");
    py::tuple shape_t(x.ndim), strides_t(x.ndim);
    for (int d = 0; d < x.ndim; ++d) {
        shape_t[d] = py::int_(shape[d]);
        strides_t[d] = py::int_(strides[d]);
    }
    return py::make_tuple(ptr, shape_t, strides_t, ts);
}

// Consumes a "dltensor" or "dltensor_versioned" capsule for `backend` (0 GPU, 1 CPU). Returns
// (ptr, shape, strides in bytes, typestr, device_type, device_id, owner, read_only): read_only is the
// versioned tensor's read-only flag (an unversioned one cannot say). A tensor refused by a check stays
// the producer's: the capsule keeps its name and frees it when collected.
py::tuple from_dlpack(py::object capsule, int backend) {
    PyObject* c = capsule.ptr();
    auto owner = std::make_shared<Imported>();
    const DLTensor* x = nullptr;
    const char* used = nullptr;
    bool read_only = false;
    if (PyCapsule_IsValid(c, "dltensor_versioned")) {
        auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(c, "dltensor_versioned"));
        if (!t) throw py::value_error("DLPack capsule holds a null DLManagedTensorVersioned");
        if (t->version.major != kDLPackMajor)
            throw py::value_error("DLPack capsule: version " + std::to_string(t->version.major) + "." +
                                  std::to_string(t->version.minor) + " is not supported (cudajit reads major version " +
                                  std::to_string(kDLPackMajor) + ")");
        x = &t->dl_tensor;
        read_only = (t->flags & kDLFlagReadOnly) != 0;
        owner->tensor = t;
        owner->deleter = &call_deleter<DLManagedTensorVersioned>;
        used = "used_dltensor_versioned";
    } else if (PyCapsule_IsValid(c, "dltensor")) {
        auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, "dltensor"));
        if (!t) throw py::value_error("DLPack capsule holds a null DLManagedTensor");
        x = &t->dl_tensor;
        owner->tensor = t;
        owner->deleter = &call_deleter<DLManagedTensor>;
        used = "used_dltensor";
    } else {
        std::string what = PyCapsule_CheckExact(c) ? "a capsule already consumed or of another kind"
                                                   : std::string("a ") + Py_TYPE(c)->tp_name;
        throw py::type_error("from_dlpack needs an object with __dlpack__ or an unconsumed DLPack capsule "
                             "('dltensor' or 'dltensor_versioned'), not " + what);
    }
    py::tuple view;
    try {
        view = validated_view(*x, static_cast<Backend>(backend));
    } catch (...) {
        owner->deleter = nullptr;  // not ours: the producer's capsule destructor frees it
        throw;
    }
    PyCapsule_SetName(c, used);
    return py::make_tuple(view[0], view[1], view[2], view[3], x->device.device_type, x->device.device_id,
                          py::cast(owner), read_only);
}

}  // namespace

void bind_dlpack(py::module_& m) {
    py::class_<Imported, std::shared_ptr<Imported>>(m, "_DLPackOwner");
    m.def("to_dlpack", &to_dlpack, "Export an ArrayCore as a 'dltensor' capsule (no copy).");
    m.def("from_dlpack", &from_dlpack, py::arg("capsule"), py::arg("backend"),
          "Consume a DLPack capsule after checking it: (ptr, shape, strides, typestr, dev_type, dev_id, owner, "
          "read_only).");
}

}  // namespace cj

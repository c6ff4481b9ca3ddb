// Packing a kernel's arguments into its parameter slots, and the dispatch keys of scalars and arrays.
// A private part of launch.cpp, which alone includes it, inside its namespace cj (its own includes come first
// there): the launcher is split by subject into this file (arguments), launch.cpp (the GPU module, the kernel and
// the dispatcher) and launch_config.cpp (launch numbers, dimensions, streams).
#pragma once

namespace {

constexpr size_t kSlot = 16;                 // every parameter starts 16-byte aligned
constexpr size_t kMaxParamBytes = 32 * 1024;  // CUDA 12.1+ allows 32 KB of kernel parameters

static_assert(sizeof(DebugRecord) == 88, "layout shared with kernels/cudajit/debug.h");

// Locks a kernel's error record from a thread that may hold the GIL: it waits without the GIL, so that the launch
// holding the record can take the GIL meanwhile (a CPU launch's Ctrl-C check and print() do).
std::unique_lock<std::mutex> own_record(std::mutex& m) {
    std::unique_lock<std::mutex> lock(m, std::try_to_lock);
    if (!lock.owns_lock()) {
        NoGil released;
        lock.lock();
    }
    return lock;
}

// Scalar types registered from Python (np.float32 → kF4, …) with their dispatch key code.
std::vector<std::pair<PyTypeObject*, uint64_t>> g_scalar_types;
PyTypeObject* g_array_core_type = nullptr;

// The key code of a registered scalar type; 0 for any other type.
uint64_t scalar_key_code(PyObject* o) {
    PyTypeObject* t = Py_TYPE(o);
    for (const auto& [type, code] : g_scalar_types)
        if (type == t) return code;
    return 0;
}

PyTypeObject* g_array_subtype = nullptr;  // the last subclass of ArrayCore seen (DeviceNDArray), held

ArrayCore* as_array(PyObject* o) {
    PyTypeObject* t = Py_TYPE(o);
    if (t != g_array_core_type && t != g_array_subtype) {
        if (!g_array_core_type || !PyType_IsSubtype(t, g_array_core_type)) return nullptr;
        Py_INCREF(t);  // held, so that no other type can come to live at its address
        Py_XSETREF(g_array_subtype, t);
    }
    // An instance of one pybind11 class (ArrayCore, or a Python subclass such as DeviceNDArray) holds its C++ object's
    // address in itself once constructed: read it there (a launch reads each array argument twice, and the type
    // caster's lookups cost about 0.1 us each); other layouts, or an instance never initialised, take the caster.
    auto* inst = reinterpret_cast<py::detail::instance*>(o);
    if (inst->simple_layout && inst->simple_holder_constructed && inst->simple_value_holder[0])
        return static_cast<ArrayCore*>(inst->simple_value_holder[0]);
    return py::handle(o).cast<ArrayCore*>();
}

// Half-precision bits of a double (round to nearest even), for float16 scalar parameters.
uint16_t to_half_bits(double d) {
    float f = static_cast<float>(d);
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
    uint32_t mant = x & 0x7fffffu;
    if (((x >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
    if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
    if (exp <= 0) {
        if (exp < -10) return static_cast<uint16_t>(sign);
        mant |= 0x800000u;
        uint32_t shift = static_cast<uint32_t>(14 - exp);
        uint32_t half = mant >> shift, rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1))) ++half;
        return static_cast<uint16_t>(sign | half);
    }
    uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;
    return static_cast<uint16_t>(half);
}

template <class T>
size_t put(unsigned char* p, T v) {
    std::memcpy(p, &v, sizeof(T));
    return sizeof(T);
}

// A kernel argument that cannot be packed: Kernel::launch raises `type` with the kernel's name,
// the argument's position and `message`.
struct ArgumentError {
    PyObject* type;
    std::string message;
};

const char* scalar_name(DtypeId code) {
    static const char* names[] = {"?", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                  "uint64", "float16", "float32", "float64", "complex64", "complex128"};
    return code < sizeof(names) / sizeof(*names) ? names[code] : "?";
}

// A Python int must fit the parameter's width: its value in the type's range, or its bit pattern in the same
// number of bits (numba-cuda packs with ctypes, which wraps, so `k(0xFFFFFFFF)` for an int32 parameter passes -1
// there: code that passes masks as hex literals relies on it). A value that fits neither (2**40 for int32, which
// ctypes would cut silently) raises OverflowError. A NumPy integer scalar converts with C's wrap-around, as
// NumPy's astype does.
template <class T>
T integer_value(PyObject* o, DtypeId code) {
    PyObject* idx = PyNumber_Index(o);
    if (!idx) {
        PyErr_Clear();
        throw ArgumentError{PyExc_TypeError, std::string("a ") + Py_TYPE(o)->tp_name + " cannot be passed as " +
                                                 scalar_name(code) + " (an integer is needed)"};
    }
    py::object value = py::reinterpret_steal<py::object>(idx);
    if (!PyLong_Check(o)) return static_cast<T>(PyLong_AsUnsignedLongLongMask(idx));
    using S = std::make_signed_t<T>;
    using U = std::make_unsigned_t<T>;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(idx, &overflow);
    if (!overflow && v >= static_cast<long long>(std::numeric_limits<S>::min()) &&
        (v < 0 || static_cast<unsigned long long>(v) <= std::numeric_limits<U>::max()))
        return static_cast<T>(static_cast<U>(v));  // two's complement: the value, or its bit pattern
    if (overflow > 0 && sizeof(T) == 8) {             // 2**63 .. 2**64 - 1: a 64-bit pattern
        unsigned long long u = PyLong_AsUnsignedLongLong(idx);
        if (!PyErr_Occurred()) return static_cast<T>(u);
        PyErr_Clear();
    }
    const bool is_signed = std::is_signed_v<T>;
    const std::string bits = std::to_string(8 * sizeof(T));
    throw ArgumentError{PyExc_OverflowError,
                        "Python int " + std::string(py::str(value)) + " is out of range for " + scalar_name(code) +
                            ": it takes " + std::to_string(std::numeric_limits<T>::min()) + " to " +
                            std::to_string(std::numeric_limits<T>::max()) + ", or a " + bits + "-bit pattern " +
                            (is_signed ? "up to " + std::to_string(std::numeric_limits<U>::max())
                                       : "from " + std::to_string(std::numeric_limits<S>::min())) +
                            " (as numba-cuda passes it)"};
}

// Writes a Python scalar as the C++ type of `code`; returns its size. Throws ArgumentError.
size_t pack_scalar(unsigned char* p, DtypeId code, PyObject* o) {
    auto fail = [&](const char* needed) {
        PyErr_Clear();
        return ArgumentError{PyExc_TypeError, std::string("a ") + Py_TYPE(o)->tp_name + " cannot be passed as " +
                                                  scalar_name(code) + " (" + needed + " is needed)"};
    };
    auto real_value = [&]() {
        double v = PyFloat_AsDouble(o);
        if (v == -1.0 && PyErr_Occurred()) throw fail("a real number");
        return v;
    };
    auto complex_value = [&]() {
        Py_complex c = PyComplex_AsCComplex(o);
        if (c.real == -1.0 && PyErr_Occurred()) throw fail("a number");
        return c;
    };
    switch (code) {
        case kBool: {
            int t = PyObject_IsTrue(o);
            if (t < 0) throw fail("a bool");
            return put<bool>(p, t != 0);
        }
        case kI1: return put(p, integer_value<int8_t>(o, code));
        case kI2: return put(p, integer_value<int16_t>(o, code));
        case kI4: return put(p, integer_value<int32_t>(o, code));
        case kI8: return put(p, integer_value<int64_t>(o, code));
        case kU1: return put(p, integer_value<uint8_t>(o, code));
        case kU2: return put(p, integer_value<uint16_t>(o, code));
        case kU4: return put(p, integer_value<uint32_t>(o, code));
        case kU8: return put(p, integer_value<uint64_t>(o, code));
        case kF2: return put<uint16_t>(p, to_half_bits(real_value()));
        case kF4: return put<float>(p, static_cast<float>(real_value()));
        case kF8: return put<double>(p, real_value());
        case kC8: {
            Py_complex c = complex_value();
            float v[2] = {static_cast<float>(c.real), static_cast<float>(c.imag)};
            std::memcpy(p, v, 8);
            return 8;
        }
        case kC16: {
            Py_complex c = complex_value();
            double v[2] = {c.real, c.imag};
            std::memcpy(p, v, 16);
            return 16;
        }
        default: throw ArgumentError{PyExc_TypeError, "unsupported scalar parameter type"};
    }
}

// Finds flat argument `*flat` among `o`'s leaves (a tuple's elements, depth first); appends the element path.
bool find_leaf(PyObject* o, size_t* flat, std::string* path) {
    if (!PyTuple_Check(o)) return (*flat)-- == 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); ++i) {
        if (find_leaf(PyTuple_GET_ITEM(o, i), flat, path)) {
            path->insert(0, ", element " + std::to_string(i));
            return true;
        }
    }
    return false;
}

// "argument 2 (factor)", "argument 1 (pair), element 0": as Python's prepare_args names arguments.
std::string describe_argument(size_t flat, const ArgNames* names) {
    if (!names) return "argument " + std::to_string(flat);
    for (size_t top = 0; top < names->nargs; ++top) {
        std::string path;
        if (!find_leaf(names->args[top], &flat, &path)) continue;
        std::string name = top < names->params->size() ? " (" + (*names->params)[top] + ")" : "";
        return "argument " + std::to_string(top) + name + path;
    }
    return "argument " + std::to_string(flat);
}

const char* backend_name(Backend b) { return b == Backend::Cpu ? "CPU" : "GPU"; }

// Packs one argument into its parameter slot; returns the bytes used. Throws ArgumentError. `device`: the GPU the
// kernel runs on (-1 on the CPU); memory of another GPU is refused (a kernel would fault reading it).
size_t pack_argument(unsigned char* p, const ParamSlot& s, PyObject* arg, Backend mine, int device) {
    if (s.kind == ParamSlot::Scalar) return pack_scalar(p, static_cast<DtypeId>(s.code), arg);
    ArrayCore* a = as_array(arg);
    if (!a)
        throw ArgumentError{PyExc_TypeError, std::string("an array is needed (a device array, a NumPy array or a "
                                                         "__cuda_array_interface__ object), not ") +
                                                 Py_TYPE(arg)->tp_name};
    if (a->backend != mine)
        throw ArgumentError{PyExc_TypeError, std::string("an array of the ") + backend_name(a->backend) +
                                                 " backend, but the kernel runs on the " + backend_name(mine) +
                                                 " backend"};
    if (device >= 0 && a->device >= 0 && a->device != device) {
        std::string theirs = std::to_string(a->device), ours = std::to_string(device);
        throw ArgumentError{PyExc_ValueError, "the array is on device " + theirs + ", but the kernel runs on device " +
                                                  ours + " (this thread's current device): copy it with "
                                                  "cuda.to_device(array) under device " + ours +
                                                  ", or launch under `with cuda.gpus[" + theirs + "]:`"};
    }
    size_t used = put<uint64_t>(p, a->ptr);
    if (s.kind == ParamSlot::Array) {
        // Element by element, not memcpy of a variable size (a library call): most arrays have one dimension.
        for (int d = 0; d < s.ndim; ++d) used += put(p + used, a->shape[d]);
        for (int d = 0; d < s.ndim; ++d) used += put(p + used, a->strides[d]);
    }
    return used;
}


const DeviceLimits& device_limits() {
    static auto& cache = *new std::vector<DeviceLimits>;  // never destroyed (interpreter exit)
    int dev = ctx::current_device();
    if (dev >= static_cast<int>(cache.size())) cache.resize(dev + 1, DeviceLimits{{0, 0, 0}, {0, 0, 0}, 0, 0, 0});
    DeviceLimits& L = cache[dev];
    if (L.max_grid[0] == 0) {
        CUdevice d = ctx::current_cu_device();
        const CUdevice_attribute g[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                         CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
        const CUdevice_attribute b[3] = {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                                         CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
        for (int i = 0; i < 3; ++i) {
            CJ_CU(cuDeviceGetAttribute, &L.max_grid[i], g[i], d);
            CJ_CU(cuDeviceGetAttribute, &L.max_block[i], b[i], d);
        }
        CJ_CU(cuDeviceGetAttribute, &L.max_shared_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, d);
        CJ_CU(cuDeviceGetAttribute, &L.sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d);
        CJ_CU(cuDeviceGetAttribute, &L.threads_per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, d);
    }
    return L;
}


// The bytes [lo, hi) an array argument's elements occupy; false for an empty array.
bool array_span(const ArrayCore* a, uintptr_t* lo, uintptr_t* hi) {
    if (a->size == 0) return false;
    auto [first, last] = a->extent();
    *lo = a->ptr + first;
    *hi = a->ptr + last;
    return true;
}

}  // namespace

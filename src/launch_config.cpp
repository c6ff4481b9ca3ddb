// Launch configurations: the numbers of `kernel[grid, block, stream, sharedmem]` (dimensions, limits) and the
// one normaliser of a stream argument, which Python's cuda.streams.stream_handle also is.
#include <cstring>
#include <string>

#include "errors.h"
#include "launch.h"

namespace py = pybind11;

namespace cj {
namespace {

[[noreturn]] void throw_overflow(const std::string& message) {
    PyErr_SetString(PyExc_OverflowError, message.c_str());
    throw py::error_already_set();
}

// One launch number as an integer in [.., limit]: TypeError for a non-integer, OverflowError
// naming the limit beyond it. `name` makes the number's name for a message only when there is one to give.
template <class Name>
long long launch_integer(PyObject* o, const Name& name, long long limit) {
    if (PyLong_CheckExact(o)) {                          // the common case: no conversion, no text
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (!overflow && v >= 0 && v <= limit) return v;
    }
    PyObject* idx = PyNumber_Index(o);
    if (!idx) {
        PyErr_Clear();
        throw py::type_error(name() + " must be an int, not " + Py_TYPE(o)->tp_name);
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(idx, &overflow);
    std::string text = py::str(idx);
    Py_DECREF(idx);
    if (overflow > 0 || v > limit) throw_overflow(name() + " = " + text + " exceeds CUDA's limit of " + std::to_string(limit));
    if (overflow < 0) throw LaunchError(name() + " must not be negative, got " + text);
    return v;
}

// The dimensions as numba-cuda's messages show them: a list ("[1, 2, 3, 4]", "[2.0]" for a scalar), cut short.
std::string dims_repr(py::handle h) {
    std::string text = PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())
        ? std::string(py::repr(py::reinterpret_steal<py::object>(PySequence_List(h.ptr()))))
        : "[" + std::string(py::repr(h)) + "]";
    if (text.size() <= 80) return text;
    size_t cut = text.rfind(", ", 76);
    return cut == std::string::npos ? text.substr(0, 76) + "...]" : text.substr(0, cut) + ", ...]";
}

// griddim or blockdim: an int or a sequence of 1 to 3 ints, each in [1, CUDA's limit for its axis]
// (the same on every GPU since compute capability 3.0). The messages begin with numba-cuda's words
// ("griddim must be a sequence of 1, 2 or 3 integers, got [1, 2, 3, 4]") and then say which entry is wrong.
void parse_dims(py::handle h, unsigned out[3], const char* what, const int (&limits)[3]) {
    static const char* axis = "xyz";
    auto one = [&](PyObject* o, int i) -> unsigned {
        auto name = [&] { return std::string(what) + "." + axis[i]; };
        long long v;
        try {
            v = launch_integer(o, name, limits[i]);
        } catch (const py::type_error& e) {
            throw py::type_error(std::string(what) + " must be a sequence of integers, got " + dims_repr(h) + ": " +
                                 e.what());
        }
        if (v <= 0) throw LaunchError(name() + " must be positive, got " + std::to_string(v));
        return static_cast<unsigned>(v);
    };
    auto wrong_count = [&](size_t n) {
        return LaunchError(std::string(what) + " must be a sequence of 1, 2 or 3 integers, got " + dims_repr(h) +
                           " (" + std::to_string(n) + " dimensions)");
    };
    if (PyTuple_Check(h.ptr())) {
        Py_ssize_t n = PyTuple_GET_SIZE(h.ptr());
        if (n < 1 || n > 3) throw wrong_count(static_cast<size_t>(n));
        for (Py_ssize_t i = 0; i < n; ++i) out[i] = one(PyTuple_GET_ITEM(h.ptr(), i), static_cast<int>(i));
        return;
    }
    if (PyList_Check(h.ptr())) {
        py::sequence s = py::reinterpret_borrow<py::sequence>(h);
        size_t n = s.size();
        if (n < 1 || n > 3) throw wrong_count(n);
        for (size_t i = 0; i < n; ++i) out[i] = one(s[i].ptr(), static_cast<int>(i));
        return;
    }
    if (!PyIndex_Check(h.ptr()))
        throw py::type_error(std::string(what) + " must be a sequence of integers, got " + dims_repr(h) + ": " +
                             what + " must be an int or a tuple of 1 to 3 ints, not " + Py_TYPE(h.ptr())->tp_name);
    out[0] = one(h.ptr(), 0);
}

// A stream handle held in an int: a CUstream is a pointer, so it is in [0, 2**64).
uintptr_t handle_value(PyObject* o) {
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        throw py::value_error("stream handle " + std::string(py::str(o)) + " is not a pointer value in [0, 2**64)");
    }
    return static_cast<uintptr_t>(v);
}

}  // namespace

PyTypeObject* g_stream_type = nullptr;  // cudajit.cuda.Stream (register_stream_type), whose _handle is read directly

namespace {
// A type's name as Python's type(o).__name__ says it ("ndarray", not "numpy.ndarray")
std::string short_type_name(PyObject* o) {
    const char* name = Py_TYPE(o)->tp_name;
    const char* dot = std::strrchr(name, '.');
    return dot ? dot + 1 : name;
}

[[noreturn]] void not_a_stream(PyObject* o) {
    throw py::type_error("cannot use " + short_type_name(o) +
                         " as a CUDA stream (pass a cuda.stream(), an int handle or 0)");
}

// o.name, or an empty object where o has no such attribute (any other error propagates)
py::object attribute(PyObject* o, const char* name) {
    py::object a = py::reinterpret_steal<py::object>(PyObject_GetAttrString(o, name));
    if (!a) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw py::error_already_set();
        PyErr_Clear();
    }
    return a;
}

// The handle another library's stream attribute holds: None (0), an int, a ctypes pointer (.value, None for 0) or
// an object int() takes (cuda-python's CUstream).
uintptr_t foreign_handle(PyObject* owner, const py::object& h) {
    if (h.is_none()) return 0;
    if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) return handle_value(h.ptr());
    py::object v = attribute(h.ptr(), "value");
    if (v) {
        if (v.is_none()) return 0;
        if (PyLong_Check(v.ptr()) && !PyBool_Check(v.ptr())) return handle_value(v.ptr());
    }
    py::object n = py::reinterpret_steal<py::object>(PyNumber_Long(h.ptr()));
    if (!n) {
        PyErr_Clear();
        not_a_stream(owner);
    }
    return handle_value(n.ptr());
}
}  // namespace

// The one normaliser of a stream argument, for the launch path and for Python (cuda.streams.stream_handle is this
// function): None and 0 are the default stream; our Stream (its _handle, set once at its making); an int or any
// integer with __index__ (NumPy's), in [0, 2**64); never a bool. Other libraries' streams: the __cuda_stream__
// protocol first (cuda.core; CuPy's and PyTorch's streams have it too), then the first of .cuda_stream (PyTorch),
// .ptr (CuPy) and .handle (Numba) the object has.
uintptr_t stream_handle(py::handle s) {
    PyObject* o = s.ptr();
    if (s.is_none()) return 0;
    if (PyBool_Check(o)) throw py::type_error("a stream cannot be a bool");
    if (PyLong_Check(o)) return handle_value(o);
    if (Py_TYPE(o) == g_stream_type) {
        py::object h = py::reinterpret_steal<py::object>(PyObject_GetAttrString(o, "_handle"));
        if (h && PyLong_CheckExact(h.ptr())) return handle_value(h.ptr());
        PyErr_Clear();  // not set yet: the general path below says what is wrong
    }
    if (PyIndex_Check(o)) {
        py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(o));
        if (!i) {  // a NumPy array of more than one element has __index__ too
            PyErr_Clear();
            not_a_stream(o);
        }
        return handle_value(i.ptr());
    }
    if (py::object proto = attribute(o, "__cuda_stream__")) {
        py::object pair = proto();
        if (!PyTuple_Check(pair.ptr()) || PyTuple_GET_SIZE(pair.ptr()) != 2)
            throw py::type_error(short_type_name(o) + ".__cuda_stream__() must return a (version, handle) tuple");
        return foreign_handle(o, py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(pair.ptr(), 1)));
    }
    for (const char* name : {"cuda_stream", "ptr", "handle"})
        if (py::object h = attribute(o, name)) return foreign_handle(o, h);
    not_a_stream(o);
}

void register_stream_type(py::handle type) {
    if (!PyType_Check(type.ptr())) throw py::type_error("register_stream_type takes the Stream class");
    Py_INCREF(type.ptr());  // held for the process's life, as the module holds the class
    g_stream_type = reinterpret_cast<PyTypeObject*>(type.ptr());
}

LaunchConfig parse_config(py::handle grid, py::handle block, py::handle stream, py::handle shared_mem) {
    LaunchConfig c;
    parse_dims(grid, c.grid, "griddim", kCpuLimits.max_grid);
    parse_dims(block, c.block, "blockdim", kCpuLimits.max_block);
    if (!stream.is_none()) c.stream = stream_handle(stream);
    if (!shared_mem.is_none()) {
        // cuLaunchKernel takes an unsigned int; the device's own limit is checked at launch.
        long long s = launch_integer(shared_mem.ptr(), [] { return std::string("sharedmem"); }, 0xffffffffLL);
        if (s < 0) throw LaunchError("sharedmem (dynamic shared memory bytes) must be >= 0, got " + std::to_string(s));
        c.shared_mem = static_cast<size_t>(s);
    }
    return c;
}


}  // namespace cj

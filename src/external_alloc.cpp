#include "external_alloc.h"

#include <pybind11/pybind11.h>

#include <string>

#include "bindings.h"

namespace py = pybind11;

namespace cj::external_alloc {
namespace {

std::atomic<PyObject*> g_allocator{nullptr};  // a strong reference while set; never freed at exit

bool finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing();
#else
    return _Py_IsFinalizing();
#endif
}

}  // namespace

bool active() { return g_allocator.load(std::memory_order_relaxed) != nullptr; }

uintptr_t allocate(size_t nbytes, int device, void** keep) {
    py::gil_scoped_acquire gil;  // DeviceBuffer may be made with the GIL released
    PyObject* fn = g_allocator.load();
    if (!fn) throw std::runtime_error("cudajit: the external memory manager was removed during an allocation");
    py::object got = py::reinterpret_borrow<py::object>(fn)(nbytes, device);
    auto pair = got.cast<py::tuple>();  // emm.py makes it: (int address, the plugin's object)
    uintptr_t address = pair[0].cast<uintptr_t>();
    *keep = py::object(pair[1]).release().ptr();
    return address;
}

void release(void* keep) {
    if (!keep || finalizing()) return;
    PyGILState_STATE state = PyGILState_Ensure();
    Py_DECREF(static_cast<PyObject*>(keep));  // the plugin's finalizer may run here; it reports its own errors
    PyGILState_Release(state);
}

}  // namespace cj::external_alloc

namespace cj {

void bind_external_alloc(py::module_& m) {
    m.def("set_device_allocator", [](py::object fn) {
        PyObject* next = fn.is_none() ? nullptr : fn.inc_ref().ptr();
        PyObject* old = external_alloc::g_allocator.exchange(next);
        Py_XDECREF(old);
    }, py::arg("allocator"),
    "Route every device allocation through allocator(nbytes, device) -> (address, keep) (cuda.set_memory_manager); "
    "None: back to cudajit's pool.");
}

}  // namespace cj

// Python surface of memory: buffers, ArrayCore, copies, DLPack.
#include <pybind11/pybind11.h>

#include "array_core.h"
#include "bindings.h"
#include "context.h"
#include "driver.h"
#include "memory.h"
#include "gil.h"

namespace py = pybind11;

namespace cj {

void bind_dlpack(py::module_& m);

namespace {

// The host address of a writable or readable Python buffer (NumPy array, pinned buffer, bytes).
struct HostView {
    py::buffer_info info;
    HostView(py::buffer b, bool writable) : info(b.request(writable)) {}
    void* ptr() const { return info.ptr; }
};

}  // namespace

void bind_memory(py::module_& m) {
    m.def("set_backend", [](int b) { set_current_backend(static_cast<Backend>(b)); });
    m.def("get_backend", []() { return static_cast<int>(current_backend()); });

    py::class_<DeviceBuffer, std::shared_ptr<DeviceBuffer>>(m, "DeviceBuffer")
        .def(py::init<size_t, uintptr_t>(), py::arg("nbytes"), py::arg("stream") = 0)
        .def_property_readonly("ptr", &DeviceBuffer::ptr)
        .def_property_readonly("nbytes", &DeviceBuffer::nbytes);

    py::class_<HostBuffer, std::shared_ptr<HostBuffer>>(m, "HostBuffer", py::buffer_protocol())
        .def(py::init([](size_t nbytes, const std::string& kind) {
                 HostKind k = kind == "mapped" ? HostKind::Mapped
                            : kind == "managed" ? HostKind::Managed : HostKind::Pinned;
                 return std::make_shared<HostBuffer>(nbytes, k);
             }),
             py::arg("nbytes"), py::arg("kind") = "pinned")
        .def_property_readonly("host_ptr", [](const HostBuffer& b) { return reinterpret_cast<uintptr_t>(b.host_ptr()); })
        .def_property_readonly("device_ptr", &HostBuffer::device_ptr)
        .def_property_readonly("nbytes", &HostBuffer::nbytes)
        .def_buffer([](HostBuffer& b) {
            return py::buffer_info(b.host_ptr(), 1, py::format_descriptor<uint8_t>::format(), 1,
                                   {static_cast<py::ssize_t>(b.nbytes())}, {1});
        });

    py::class_<HostRegistration, std::shared_ptr<HostRegistration>>(m, "HostRegistration")
        .def(py::init<uintptr_t, size_t, bool>(), py::arg("ptr"), py::arg("nbytes"), py::arg("mapped") = false)
        .def_property_readonly("device_ptr", &HostRegistration::device_ptr)
        .def_property_readonly("registered", &HostRegistration::registered)
        .def("release", &HostRegistration::release);

    bind_array_core(m);
    bind_dlpack(m);

    m.def("copy_htod", [](uintptr_t dst, py::buffer src, size_t n, uintptr_t stream) {
        HostView v(src, false);
        NoGil nogil;
        copy_htod(dst, v.ptr(), n, stream, current_backend());
    });
    m.def("copy_dtoh", [](py::buffer dst, uintptr_t src, size_t n, uintptr_t stream) {
        HostView v(dst, true);
        NoGil nogil;
        copy_dtoh(v.ptr(), src, n, stream, current_backend());
    });
    m.def("copy_htod_ptr", [](uintptr_t dst, uintptr_t src, size_t n, uintptr_t stream) {
        NoGil nogil;
        copy_htod(dst, reinterpret_cast<const void*>(src), n, stream, current_backend());
    });
    m.def("copy_dtoh_ptr", [](uintptr_t dst, uintptr_t src, size_t n, uintptr_t stream) {
        NoGil nogil;
        copy_dtoh(reinterpret_cast<void*>(dst), src, n, stream, current_backend());
    });
    m.def("copy_dtod", [](uintptr_t dst, uintptr_t src, size_t n, uintptr_t stream) {
        NoGil nogil;
        copy_dtod(dst, src, n, stream, current_backend());
    });
    m.def("memset", [](uintptr_t dst, int value, size_t n, uintptr_t stream) {
        memset_d8(dst, static_cast<uint8_t>(value), n, stream, current_backend());
    });
    m.def("stream_synchronize", [](uintptr_t stream) {
        if (current_backend() == Backend::Cpu) return;
        ctx::ensure();
        NoGil nogil;
        CJ_CU(cuStreamSynchronize, reinterpret_cast<CUstream>(stream));
    });
    m.def("pointer_memory_type", [](uintptr_t ptr) {
        // 1 host (pinned or mapped), 2 device, 4 managed; 0 when there is no driver or it does not know the pointer.
        if (!drv::available(nullptr)) return 0u;
        ctx::ensure();
        unsigned int type = 0, managed = 0;
        CUdeviceptr p = static_cast<CUdeviceptr>(ptr);
        if (drv::api().cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) != CUDA_SUCCESS) return 0u;
        if (drv::api().cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p) == CUDA_SUCCESS && managed)
            return 4u;
        return type;
    });
}

}  // namespace cj

// Python surface of memory: buffers, ArrayCore, copies, DLPack.
#include <pybind11/pybind11.h>

#include "array_core.h"
#include "block_cache.h"
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
        .def_property_readonly("nbytes", &DeviceBuffer::nbytes)
        .def_property_readonly("device", &DeviceBuffer::device, "The GPU it is on; -1 on the CPU backend.");

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

    // `device`: the GPU whose memory (and whose legacy stream, for stream 0) a call uses; -1: the thread's.
    m.def("copy_htod", [](uintptr_t dst, py::buffer src, size_t n, uintptr_t stream, int device) {
        HostView v(src, false);
        NoGil nogil;
        copy_htod(dst, v.ptr(), n, stream, current_backend(), device);
    }, py::arg("dst"), py::arg("src"), py::arg("n"), py::arg("stream"), py::arg("device") = -1);
    m.def("copy_dtoh", [](py::buffer dst, uintptr_t src, size_t n, uintptr_t stream, int device) {
        HostView v(dst, true);
        NoGil nogil;
        copy_dtoh(v.ptr(), src, n, stream, current_backend(), device);
    }, py::arg("dst"), py::arg("src"), py::arg("n"), py::arg("stream"), py::arg("device") = -1);
    m.def("copy_htod_ptr", [](uintptr_t dst, uintptr_t src, size_t n, uintptr_t stream, int device) {
        NoGil nogil;
        copy_htod(dst, reinterpret_cast<const void*>(src), n, stream, current_backend(), device);
    }, py::arg("dst"), py::arg("src"), py::arg("n"), py::arg("stream"), py::arg("device") = -1);
    m.def("copy_dtoh_ptr", [](uintptr_t dst, uintptr_t src, size_t n, uintptr_t stream, int device) {
        NoGil nogil;
        copy_dtoh(reinterpret_cast<void*>(dst), src, n, stream, current_backend(), device);
    }, py::arg("dst"), py::arg("src"), py::arg("n"), py::arg("stream"), py::arg("device") = -1);
    m.def("copy_dtod", [](uintptr_t dst, uintptr_t src, size_t n, uintptr_t stream, int dst_device, int src_device) {
        NoGil nogil;
        copy_dtod(dst, src, n, stream, current_backend(), dst_device, src_device);
    }, py::arg("dst"), py::arg("src"), py::arg("n"), py::arg("stream"), py::arg("dst_device") = -1,
       py::arg("src_device") = -1, "Between two devices (both >= 0 and different): a peer copy (memory.h).");
    m.def("memset", [](uintptr_t dst, int value, size_t n, uintptr_t stream, int device) {
        memset_d8(dst, static_cast<uint8_t>(value), n, stream, current_backend(), device);
    }, py::arg("dst"), py::arg("value"), py::arg("n"), py::arg("stream"), py::arg("device") = -1);
    m.def("stream_synchronize", [](uintptr_t stream, int device) {
        if (current_backend() == Backend::Cpu) return;
        ctx::DeviceScope scope(device);
        NoGil nogil;
        CJ_CU(cuStreamSynchronize, reinterpret_cast<CUstream>(stream));
    }, py::arg("stream"), py::arg("device") = -1);
    m.def("cached_device_bytes", &block_cache::cached_bytes, py::arg("device"),
          "Bytes of freed device blocks the block cache keeps for reuse on a device (block_cache.h).");
    m.def("pointer_device", &pointer_device, py::arg("ptr"),
          "The device a GPU pointer's memory is on; -1 for memory every device reaches (managed, host) or unknown.");
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

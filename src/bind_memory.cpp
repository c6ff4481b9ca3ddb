// Python surface of memory: buffers, ArrayCore, copies, DLPack.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tuple>
#include <vector>

#include "array_core.h"
#include "block_cache.h"
#include "bindings.h"
#include "context.h"
#include "driver.h"
#include "errors.h"
#include "graph_capture.h"
#include "ipc.h"
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

// A batch's ranges from Python: (device address, host, bytes) each, the host an address or an object with the
// buffer protocol (a contiguous NumPy array: its data, which must be writable for a device->host copy and hold
// the bytes). Parsed by hand: pybind11's casters cost about a microsecond a range on a launch's path (args.py).
class HostRanges {
 public:
    HostRanges(py::handle seq, bool writable) {
        py::object fast = py::reinterpret_steal<py::object>(PySequence_Fast(seq.ptr(), "ranges must be a sequence"));
        if (!fast) throw py::error_already_set();
        Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.ptr());
        ranges_.reserve(n);
        views_.held.reserve(n);  // a buffer taken is always recorded (no allocation after PyObject_GetBuffer)
        for (Py_ssize_t i = 0; i < n; ++i) {
            PyObject* item = PySequence_Fast_GET_ITEM(fast.ptr(), i);
            if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3)
                throw py::type_error("ranges[" + std::to_string(i) + "] must be a tuple (device address, host, bytes)");
            uintptr_t device = py::cast<uintptr_t>(PyTuple_GET_ITEM(item, 0));
            size_t bytes = py::cast<size_t>(PyTuple_GET_ITEM(item, 2));
            PyObject* host = PyTuple_GET_ITEM(item, 1);
            void* address;
            if (PyLong_Check(host)) {
                address = reinterpret_cast<void*>(py::cast<uintptr_t>(host));
            } else {
                Py_buffer view;
                if (PyObject_GetBuffer(host, &view, PyBUF_ANY_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) != 0)
                    throw py::error_already_set();
                views_.held.push_back(view);
                if (static_cast<size_t>(view.len) < bytes)
                    throw py::value_error("ranges[" + std::to_string(i) + "]: " + std::to_string(bytes) +
                                          " bytes to copy, but the host buffer holds " + std::to_string(view.len));
                address = view.buf;
            }
            ranges_.push_back({static_cast<CUdeviceptr>(device), address, bytes});
        }
    }
    HostRanges(const HostRanges&) = delete;
    HostRanges& operator=(const HostRanges&) = delete;
    const std::vector<HostRange>& get() const { return ranges_; }

 private:
    std::vector<HostRange> ranges_;
    HeldBuffers views_;  // a member: released also when the constructor throws
};

}  // namespace

void bind_memory(py::module_& m) {
    m.def("set_backend", [](int b) {
        sync_settings();                               // the CPU pool's size and stacks, the GPU's memory pool
        set_current_backend(static_cast<Backend>(b));
    });
    m.def("get_backend", []() { return static_cast<int>(current_backend()); });

    py::class_<DeviceBuffer, std::shared_ptr<DeviceBuffer>>(m, "DeviceBuffer")
        .def(py::init<size_t, uintptr_t>(), py::arg("nbytes"), py::arg("stream") = 0)
        .def_property_readonly("ptr", &DeviceBuffer::ptr)
        .def_property_readonly("nbytes", &DeviceBuffer::nbytes)
        .def_property_readonly("device_pointer", &DeviceBuffer::ptr,
                               "numba-cuda's MemoryPointer.device_pointer: the address, as an int (int() of it works "
                               "as of numba-cuda's CUdeviceptr)")
        .def_property_readonly("device_pointer_value", [](const DeviceBuffer& b) -> py::object {
            return b.ptr() ? py::object(py::int_(b.ptr())) : py::object(py::none());
        }, "numba-cuda's MemoryPointer.device_pointer_value: the address, or None for a null pointer")
        .def_property_readonly("device", &DeviceBuffer::device, "The GPU it is on; -1 on the CPU backend.")
        .def_property_readonly("external", [](const DeviceBuffer& b) -> py::object {
            if (!b.external()) return py::none();
            return py::reinterpret_borrow<py::object>(static_cast<PyObject*>(b.external()));
        }, "The EMM plugin's object that owns the memory (cuda.set_memory_manager); None for cudajit's own.");

    m.def("host_device_pointer", &host_device_pointer, py::arg("host_ptr"),
          "The device address of mapped page-locked host memory (cuMemHostGetDevicePointer); the same address on "
          "the CPU backend.");

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
    // Copies through a Python buffer stage through temporary host memory (devicearray.py); the pointer forms copy
    // between arrays, and during a stream capture join it (graph_capture.h).
    m.def("copy_htod", [](uintptr_t dst, py::buffer src, size_t n, uintptr_t stream, int device) {
        graph::refuse_staged_copy(stream, device);
        HostView v(src, false);
        NoGil nogil;
        copy_htod(dst, v.ptr(), n, stream, current_backend(), device);
    }, py::arg("dst"), py::arg("src"), py::arg("n"), py::arg("stream"), py::arg("device") = -1);
    m.def("copy_dtoh", [](py::buffer dst, uintptr_t src, size_t n, uintptr_t stream, int device) {
        graph::refuse_staged_copy(stream, device);
        HostView v(dst, true);
        NoGil nogil;
        copy_dtoh(v.ptr(), src, n, stream, current_backend(), device);
    }, py::arg("dst"), py::arg("src"), py::arg("n"), py::arg("stream"), py::arg("device") = -1);
    m.def("copy_htod_ptr", [](uintptr_t dst, uintptr_t src, size_t n, uintptr_t stream, int device) {
        Backend b = current_backend();
        auto run = [=] { copy_htod(dst, reinterpret_cast<const void*>(src), n, stream, b, device); };
        if (graph::capture_copy(stream, device, reinterpret_cast<const void*>(src), run)) return;
        NoGil nogil;
        run();
    }, py::arg("dst"), py::arg("src"), py::arg("n"), py::arg("stream"), py::arg("device") = -1);
    m.def("copy_dtoh_ptr", [](uintptr_t dst, uintptr_t src, size_t n, uintptr_t stream, int device) {
        Backend b = current_backend();
        auto run = [=] { copy_dtoh(reinterpret_cast<void*>(dst), src, n, stream, b, device); };
        if (graph::capture_copy(stream, device, reinterpret_cast<const void*>(dst), run)) return;
        NoGil nogil;
        run();
    }, py::arg("dst"), py::arg("src"), py::arg("n"), py::arg("stream"), py::arg("device") = -1);
    // Kernel arguments (args.py): [(device address, host address, bytes), ...] with one pinned slot.
    m.def("copy_htod_batch", [](py::handle ranges, uintptr_t stream, int device) {
        HostRanges r(ranges, false);
        NoGil nogil;
        copy_htod_batch(r.get(), stream, current_backend(), device);
    }, py::arg("ranges"), py::arg("stream"), py::arg("device") = -1,
       "ranges: (device address, host, bytes) each, the host an address or a contiguous buffer (a NumPy array).");
    m.def("copy_dtoh_batch", [](py::handle ranges, uintptr_t stream, int device) {
        HostRanges r(ranges, true);
        NoGil nogil;
        copy_dtoh_batch(r.get(), stream, current_backend(), device);
    }, py::arg("ranges"), py::arg("stream"), py::arg("device") = -1,
       "As copy_htod_batch, the other way; returns when every range's bytes are on the host.");
    m.def("staging_counts", []() {
        staging::Counts c = staging::counts();
        return py::make_tuple(c.staged, c.direct);
    }, "(copies through pinned staging slots, pageable-capable copies the driver made): tests and benchmarks.");
    m.def("copy_dtod", [](uintptr_t dst, uintptr_t src, size_t n, uintptr_t stream, int dst_device, int src_device) {
        Backend b = current_backend();
        auto run = [=] { copy_dtod(dst, src, n, stream, b, dst_device, src_device); };
        if (graph::capture_copy(stream, dst_device >= 0 ? dst_device : src_device, nullptr, run)) return;
        NoGil nogil;
        run();
    }, py::arg("dst"), py::arg("src"), py::arg("n"), py::arg("stream"), py::arg("dst_device") = -1,
       py::arg("src_device") = -1, "Between two devices (both >= 0 and different): a peer copy (memory.h).");
    m.def("memset", [](uintptr_t dst, int value, size_t n, uintptr_t stream, int device) {
        Backend b = current_backend();
        auto run = [=] { memset_d8(dst, static_cast<uint8_t>(value), n, stream, b, device); };
        if (graph::capture_copy(stream, device, nullptr, run)) return;
        run();
    }, py::arg("dst"), py::arg("value"), py::arg("n"), py::arg("stream"), py::arg("device") = -1);
    m.def("stream_synchronize", [](uintptr_t stream, int device) {
        graph::refuse_wait(stream, device);
        if (current_backend() == Backend::Cpu) return;
        ctx::DeviceScope scope(device);
        NoGil nogil;
        CJ_CU(cuStreamSynchronize, reinterpret_cast<CUstream>(stream));
    }, py::arg("stream"), py::arg("device") = -1);
    m.def("context_epoch", &block_cache::epoch,
          "A number that changes whenever cuda.close() or Device.reset() ends the contexts: memory allocated before "
          "belongs to none (block_cache.h).");
    m.def("ipc_export", [](uintptr_t ptr, int device, uintptr_t base) {
        auto [handle, offset] = ipc::export_handle(ptr, device, base);
        return py::make_tuple(py::bytes(handle), offset);
    }, py::arg("ptr"), py::arg("device"), py::arg("base") = 0,
          "(handle bytes, offset of ptr in its allocation): a CUDA IPC handle to the device memory at ptr; base: the "
          "allocation's start when it is a DeviceBuffer of cudajit's pool, else 0 (ipc.h).");
    m.def("ipc_open", [](py::bytes handle, int device) { return ipc::open(std::string(handle), device); },
          py::arg("handle"), py::arg("device"),
          "The address of the allocation an IPC handle names, opened on device (counted per handle).");
    m.def("ipc_close", [](py::bytes handle, int device) { ipc::close(std::string(handle), device); },
          py::arg("handle"), py::arg("device"), "Gives back one ipc_open of the handle on device.");
    m.def("ipc_is_legacy", [](py::bytes handle) { return ipc::is_legacy(std::string(handle)); }, py::arg("handle"),
          "True for a legacy CUipcMemHandle's 64 bytes, False for a cudajit pool handle.");
    m.def("cached_device_bytes", &block_cache::cached_bytes, py::arg("device"),
          "Bytes of freed device blocks the block cache keeps for reuse on a device (block_cache.h).");
    m.def("pointer_device", &pointer_device, py::arg("ptr"),
          "The device a GPU pointer's memory is on; -1 for memory every device reaches (managed, host) or unknown.");
    m.def("pointer_memory_type", [](uintptr_t ptr) {
        // 1 host (pinned or mapped), 2 device, 4 managed; 0 when there is no driver or it does not know the pointer.
        if (!drv::available(nullptr)) return 0u;
        ctx::ensure();
        const drv::PointerInfo info = drv::pointer_info(static_cast<CUdeviceptr>(ptr));
        return info.managed ? 4u : info.memory_type;
    });
}

}  // namespace cj

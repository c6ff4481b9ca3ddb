// Python surface of the driver part: devices, contexts, streams, events, NVRTC, disk cache.
// Thin on purpose: the logic lives in streams.cpp, nvrtc.cpp and disk_cache.cpp.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "context.h"
#include "disk_cache.h"
#include "driver.h"
#include "nvrtc.h"
#include "streams.h"
#include "gil.h"

namespace py = pybind11;
using namespace pybind11::literals;

namespace cj {
namespace {

uintptr_t as_int(CUstream s) { return reinterpret_cast<uintptr_t>(s); }
CUstream as_stream(uintptr_t h) { return reinterpret_cast<CUstream>(h); }

// Runs on a driver thread once the stream reaches it; owns one reference to the callable.
void run_python_callback(void* data) {
    auto* fn = static_cast<py::object*>(data);
    if (!Py_IsInitialized()) return;  // interpreter gone at exit: leak rather than crash
    py::gil_scoped_acquire gil;
    try {
        (*fn)();
    } catch (py::error_already_set& e) {
        e.discard_as_unraisable("cudajit stream callback");
    }
    delete fn;
}

void bind_nvrtc_and_cache(py::module_& m) {
    // The pip wheels put libnvrtc under site-packages; C++ cannot see sys.path, so hand it over
    // now (before NVRTC is first loaded). set_nvrtc_search_paths() may replace it.
    std::vector<std::string> roots;
    for (py::handle p : py::module_::import("sys").attr("path"))
        if (py::isinstance<py::str>(p)) roots.push_back(p.cast<std::string>());
    nvrtc::set_search_roots(roots);

    m.def("set_nvrtc_search_paths", &nvrtc::set_search_roots, py::arg("site_packages"),
          "Directories searched for pip's NVRTC (<dir>/nvidia/cuda_nvrtc/lib, "
          "<dir>/nvidia/cu13/lib); only before NVRTC is first used.");
    m.def("nvrtc_available", [] {
        std::string why;
        bool ok = nvrtc::available(&why);
        return py::make_tuple(ok, why);
    }, "(True, '') when NVRTC loads, else (False, what to install).");
    m.def("nvrtc_version", &nvrtc::version, "NVRTC's (major, minor).");
    m.def("nvrtc_info", [] {
        const nvrtc::Info& i = nvrtc::info();
        py::list searched;
        for (const nvrtc::Candidate& c : i.searched)
            searched.append(py::make_tuple(c.directory, c.origin, c.outcome));
        return py::dict("ok"_a = i.ok, "path"_a = i.path, "origin"_a = i.origin,
                        "version"_a = py::make_tuple(i.major, i.minor), "searched"_a = searched,
                        "why"_a = i.why);
    }, "Where NVRTC came from: {ok, path, origin, version, searched: [(dir, origin, outcome)], "
       "why}. Loads NVRTC on first call; never raises.");
    m.def("nvrtc_located_path", &nvrtc::located_path,
          "The libnvrtc file in use, or the one a load would try first (without loading it); None when none is "
          "found where cudajit looks.");
    m.def("nvrtc_supported_archs", &nvrtc::supported_archs,
          "The archs NVRTC compiles for, e.g. [75, 80, 86, 89, 90, 100, 120].");
    m.def("nvrtc_choose_target", [](int device_arch, int driver_version) {
        nvrtc::Target t = nvrtc::choose_target(device_arch, driver_version);
        return py::make_tuple(t.arch, t.cubin);
    }, py::arg("device_arch"), py::arg("driver_version"),
       "(arch, cubin): what to compile for this device under this driver.");
    m.def("nvrtc_compile",
          [](const std::string& source, const std::string& name,
             const std::vector<std::string>& options, int arch, bool cubin, bool minimal) {
              sync_settings();
              nvrtc::Result r;
              {
                  NoGil nogil;
                  r = nvrtc::compile(source, name, options, arch, cubin, minimal);
              }
              return py::bytes(r.image);
          },
          py::arg("source"), py::arg("name"), py::arg("options"), py::arg("arch"),
          py::arg("cubin"), py::arg("minimal") = false,
          "Compiles CUDA C++ to a cubin (cubin=True) or PTX for `arch`; cached in memory and on "
          "disk. minimal=True: the source uses nothing of CUDA's runtime API headers (NVRTC >= 12.4 then "
          "compiles with -minimal). Raises CompileError with NVRTC's log.");
    m.def("nvrtc_clear_memory_cache", &nvrtc::clear_memory_cache);

    m.def("cache_dir", []() -> py::object {
        sync_settings();
        std::string d = cache::directory();
        return d.empty() ? py::object(py::none()) : py::object(py::str(d));
    }, "The disk cache's directory, or None when caching is off.");
    m.def("cache_key", [](const std::vector<std::string>& parts) { return cache::key(parts); },
          py::arg("parts"), "32 hex digits naming the inputs `parts`.");
    m.def("cache_load", [](const std::string& key, const std::string& ext) -> py::object {
        sync_settings();
        auto data = cache::load(key, ext);
        return data ? py::object(py::bytes(*data)) : py::object(py::none());
    }, py::arg("key"), py::arg("ext"), "The verified payload, or None.");
    m.def("cache_path", [](const std::string& key, const std::string& ext) -> py::object {
        sync_settings();
        auto path = cache::verified_path(key, ext);
        return path ? py::object(py::str(*path)) : py::object(py::none());
    }, py::arg("key"), py::arg("ext"), "The verified file's path, or None.");
    m.def("cache_store", [](const std::string& key, const std::string& ext, py::bytes data) {
        sync_settings();
        std::string_view payload = data;
        cache::store(key, ext, payload);
    }, py::arg("key"), py::arg("ext"), py::arg("data"));
    m.def("header_hash", &cache::header_hash, py::arg("include_dir"),
          "Hash of every file under include_dir/cudajit/ (computed once per directory).");
}

void bind_devices(py::module_& m) {
    m.def("driver_status", [] {
        sync_settings(false);                          // the driver loads with config.CUDA_PER_THREAD_DEFAULT_STREAM
        std::string why;
        bool ok = drv::available(&why);
        return py::make_tuple(ok, why);
    }, "(True, '') when a driver with a GPU is usable, else (False, why). Never raises.");
    m.def("driver_info", [] {
        sync_settings(false);
        drv::Info i = drv::info();
        return py::dict("found"_a = i.found, "usable"_a = i.usable, "path"_a = i.path,
                        "version"_a = i.version, "why"_a = i.why,
                        "per_thread_default_stream"_a = drv::per_thread_default_stream());
    }, "What the driver loader found: {found, usable, path, version, why, per_thread_default_stream}. Never raises.");
    m.def("device_count", &device_count);
    m.def("device_can_access_peer", &device_can_access_peer, py::arg("device"), py::arg("peer"),
          "cuDeviceCanAccessPeer: whether `device` can map the memory of `peer` (Context.can_access_peer).");
    m.def("driver_version", &driver_version, "cuDriverGetVersion, e.g. 12040.");

    auto dev = py::class_<Device>(m, "Device")
        .def(py::init<int>(), py::arg("ordinal"))
        .def_property_readonly("id", &Device::id)
        .def_property_readonly("name", &Device::name)
        .def_property_readonly("compute_capability", &Device::compute_capability)
        .def_property_readonly("uuid", &Device::uuid)
        .def_property_readonly("pci_bus_id", &Device::pci_bus_id)
        .def_property_readonly("total_memory", &Device::total_memory)
        .def("get_attribute", &Device::attribute, py::arg("attr"))
        .def("reset", &Device::reset, py::call_guard<NoGil>())  // waits for the device: stream callbacks need the GIL
        .def("__repr__", [](const Device& d) {
            return "<CUDA device " + std::to_string(d.id()) + " '" + d.name() + "'>";
        });
    py::dict attrs;
    for (const DeviceAttribute& a : device_attributes()) {
        int code = a.value;
        dev.def_property_readonly(a.name, [code](const Device& d) { return d.attribute(code); });
        attrs[a.name] = code;
    }
    m.attr("DEVICE_ATTRIBUTES") = attrs;

    m.def("select_device", [](int i) {
        NoGil nogil;  // retaining a primary context takes a while
        ctx::select(i);
    }, py::arg("ordinal"));
    m.def("current_device", &ctx::current_device);
    m.def("close", &ctx::close, py::call_guard<NoGil>(),  // waits for the GPU: stream callbacks need the GIL
          "Releases the primary contexts this process retained.");
    m.def("synchronize", &synchronize, py::call_guard<NoGil>());
    m.def("mem_info", &mem_info, "(free, total) bytes on the current device.");
}

void bind_streams(py::module_& m) {
    py::class_<Event>(m, "Event")
        .def(py::init<bool>(), py::arg("timing") = true)
        .def_property_readonly("handle",
                               [](const Event& e) { return reinterpret_cast<uintptr_t>(e.handle()); })
        .def("record", [](const Event& e, uintptr_t s) { e.record(as_stream(s)); },
             py::arg("stream_handle") = 0)
        .def("synchronize", &Event::synchronize, py::call_guard<NoGil>())
        .def("query", &Event::query)
        .def_property_readonly("device", &Event::device)
        .def("wait", [](const Event& e, uintptr_t s) { e.wait(as_stream(s)); },
             py::arg("stream_handle") = 0);
    m.def("event_elapsed_time", &event_elapsed_ms, py::arg("start"), py::arg("end"),
          "Milliseconds between two recorded timing events.");

    py::class_<Stream>(m, "Stream")
        .def(py::init<unsigned, int>(), py::arg("flags") = 0, py::arg("priority") = 0)
        .def_static("external", &Stream::external, py::arg("handle"), py::arg("device") = -1,
                    "Wraps a stream owned elsewhere (CuPy, PyTorch); never destroys it. Its calls run in device's "
                    "context (-1: the current one).")
        .def_static("legacy_default", [] { return Stream::external(0); },
                    "Handle 0: the legacy default stream.")
        .def_static("per_thread_default", [] { return Stream::external(Stream::kPerThread); })
        .def_readonly_static("LEGACY", &Stream::kLegacy)
        .def_readonly_static("PER_THREAD", &Stream::kPerThread)
        .def_property_readonly("handle", [](const Stream& s) { return as_int(s.handle()); })
        .def_property_readonly("owned", &Stream::owned)
        .def_property_readonly("device", &Stream::device, "The device it belongs to; -1 for an external stream given none.")
        .def("synchronize", &Stream::synchronize, py::call_guard<NoGil>())
        .def("query", &Stream::query)
        .def("wait_event", &Stream::wait_event, py::arg("event"))
        .def("add_callback", [](const Stream& s, py::function fn) {
            auto* held = new py::object(std::move(fn));
            try {
                s.launch_host_func(&run_python_callback, held);
            } catch (...) {
                delete held;
                throw;
            }
        }, py::arg("fn"),
           "fn() runs on a driver thread once the work queued so far is done. Do not wait on "
           "the stream while holding the GIL (synchronize() releases it).");
}

}  // namespace

void bind_driver(py::module_& m) {
    bind_nvrtc_and_cache(m);
    bind_devices(m);
    bind_streams(m);
}

}  // namespace cj

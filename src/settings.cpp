// The settings Python passes (settings.h), and their binding: _core.set_settings(**values), _core.settings().
#include "settings.h"

#include <pybind11/pybind11.h>

#include <mutex>
#include <utility>

#include "bindings.h"
#include "fork_safety.h"

namespace py = pybind11;

namespace cj::settings {
namespace {
std::mutex& mutex = remade_after_fork(*new std::mutex);  // never destroyed (interpreter exit)
Values& values = *new Values;
}  // namespace

Values current() {
    std::lock_guard<std::mutex> lock(mutex);
    return values;
}

void set(Values v) {
    std::lock_guard<std::mutex> lock(mutex);
    values = std::move(v);
}

}  // namespace cj::settings

namespace cj {

void sync_settings(bool strict) {
    static py::object& sync = *new py::object(py::module_::import("cudajit.settings").attr("sync"));  // never freed
    sync(py::none(), strict);
}

void bind_settings(py::module_& m) {
    m.def(
        "set_settings",
        [](std::string cache_dir, uint64_t cache_max, bool cpu_pch, unsigned num_threads, size_t cpu_stack,
           std::string cpu_sanitize, bool ipc_pool, bool per_thread_default_stream) {
            settings::set({std::move(cache_dir), cache_max, cpu_pch, num_threads, cpu_stack, std::move(cpu_sanitize),
                           ipc_pool, per_thread_default_stream});
        },
        py::arg("cache_dir"), py::arg("cache_max"), py::arg("cpu_pch"), py::arg("num_threads"),
        py::arg("cpu_stack"), py::arg("cpu_sanitize"), py::arg("ipc_pool"), py::arg("per_thread_default_stream"),
        "The settings the core uses, as cudajit.settings.sync() read them (every one, each time).");
    m.def(
        "settings",
        [] {
            settings::Values v = settings::current();
            py::dict d;
            d["cache_dir"] = v.cache_dir;
            d["cache_max"] = v.cache_max;
            d["cpu_pch"] = v.cpu_pch;
            d["num_threads"] = v.num_threads;
            d["cpu_stack"] = v.cpu_stack;
            d["cpu_sanitize"] = v.cpu_sanitize;
            d["ipc_pool"] = v.ipc_pool;
            d["per_thread_default_stream"] = v.per_thread_default_stream;
            return d;
        },
        "The settings the core holds now (a dict of set_settings' keywords).");
}

}  // namespace cj

// Each part of the core registers its Python surface through one of these; module.cpp calls them.
#pragma once
#include <pybind11/pybind11.h>

#include <vector>

namespace cj {
void bind_driver(pybind11::module_& m);   // devices, contexts, streams, events, NVRTC, disk cache
void bind_memory(pybind11::module_& m);   // buffers, ArrayCore, copies
void bind_external_alloc(pybind11::module_& m);  // an EMM plugin's device allocator (cuda.set_memory_manager)
void bind_launch(pybind11::module_& m);   // modules, kernels, launch plans, dispatcher
void bind_cpu(pybind11::module_& m);      // host compiler, CPU kernels
void bind_random(pybind11::module_& m);   // cuda.random's generator states
void bind_cache(pybind11::module_& m);    // the disk cache's size, limit and clearing
void bind_graph(pybind11::module_& m);    // CUDA graphs captured from streams (cuda.graph)
void bind_settings(pybind11::module_& m); // the CUDAJIT_* settings Python passes (settings.h)

// Passes the CUDAJIT_* settings of the environment to the core when they changed (cudajit.settings.sync; GIL held):
// each binding whose call reads a setting calls it first, so a variable set after import is obeyed. strict=false
// for the calls that never raise: a malformed value then leaves the settings as they were.
void sync_settings(bool strict = true);

// Sets the Python exception for the C++ exception being handled (call inside a catch block): what pybind11 does for
// a bound function, for the few slots the core implements in plain CPython (the launcher's call, bind_launch.cpp).
void set_python_error();

// Py_buffers taken from Python objects, released (with the GIL: keep the holder outside any NoGil scope) whatever
// happens; reserve room before taking them, so that a buffer taken is always recorded.
struct HeldBuffers {
    std::vector<Py_buffer> held;
    HeldBuffers() = default;
    HeldBuffers(const HeldBuffers&) = delete;
    HeldBuffers& operator=(const HeldBuffers&) = delete;
    ~HeldBuffers() {
        for (Py_buffer& v : held) PyBuffer_Release(&v);
    }
};
}  // namespace cj

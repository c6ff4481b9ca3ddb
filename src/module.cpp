// cudajit._core: the C++ core. Thin: each part binds itself (bindings.h); this file only
// turns the core's C++ exceptions into the Python classes of cudajit/errors.py.
#include <pybind11/pybind11.h>
#include <pthread.h>

#include "bindings.h"
#include "errors.h"
#include "host_compiler.h"

namespace py = pybind11;

namespace {

py::object error_class(const char* name) {
    return py::module_::import("cudajit.errors").attr(name);
}

void raise(const char* cls, const py::object& instance) {
    PyErr_SetObject(error_class(cls).ptr(), instance.ptr());
}

// The core's C++ exceptions as the Python classes of cudajit/errors.py; anything else is left to pybind11.
void translate_core_exception(std::exception_ptr p) {
    try {
        if (p) std::rethrow_exception(p);
    } catch (const cj::DriverError& e) {
        raise("CudaAPIError", error_class("CudaAPIError")(e.what(), e.call, e.code, e.name));
    } catch (const cj::SupportError& e) {
        raise("CudaSupportError", error_class("CudaSupportError")(e.what()));
    } catch (const cj::CompileError& e) {
        raise("CompileError", error_class("CompileError")(e.what()));
    } catch (const cj::LaunchError& e) {
        raise("LaunchError", error_class("LaunchError")(e.what()));
    } catch (const cj::KernelRecursionError& e) {
        raise("KernelRecursionError", error_class("KernelRecursionError")(e.what()));
    } catch (const cj::KernelRuntimeError& e) {
        raise("KernelRuntimeError", error_class("KernelRuntimeError")(e.what()));
    } catch (const cj::CaptureError& e) {
        raise("StreamCaptureError", error_class("StreamCaptureError")(e.what()));
    } catch (const cj::OutOfMemory& e) {
        PyErr_SetString(PyExc_MemoryError, e.what());
    }
}

}  // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() = "cudajit C++ core: driver, NVRTC, memory, launch, CPU backend";
    cj::bind_driver(m);
    cj::bind_memory(m);
    cj::bind_external_alloc(m);
    cj::bind_launch(m);
    cj::bind_cpu(m);
    cj::bind_random(m);
    cj::bind_cache(m);
    cj::bind_graph(m);
    cj::bind_settings(m);
    // The CUDAJIT_* settings of the environment, before any part reads them (settings.h); a malformed one is
    // raised where it is used, not here (the core must import for `python -m cudajit` to say what is wrong).
    py::module_::import("cudajit.settings").attr("sync")(m, false);
    // Interpreter exit: before the interpreter finalizes, wait (holding the GIL, so that no new native call
    // starts) until no thread is inside one; other threads park from then on instead of starting one (gil.h).
    py::module_::import("atexit").attr("register")(py::cpp_function([] {
        cj::begin_exit();
        cj::host::stop_background_builds();
        cj::drain_native_calls();
    }));

    // os.fork(): the child has only the forking thread, which is inside no native call (os.fork is Python's); a
    // count the other threads left would make the child's exit wait 10 s twice (drain_native_calls).
    pthread_atfork(nullptr, nullptr, [] { cj::native_calls().store(0); });

    py::register_exception_translator(&translate_core_exception);
}

namespace cj {

void set_python_error() {
    std::exception_ptr p = std::current_exception();
    try {
        translate_core_exception(p);  // sets the error for one of the core's exceptions, rethrows any other
        return;
    } catch (...) {
    }
    try {
        std::rethrow_exception(p);
    } catch (py::error_already_set& e) {
        e.restore();
    } catch (const py::builtin_exception& e) {
        e.set_error();
    } catch (const std::bad_alloc&) {
        PyErr_NoMemory();
    } catch (const std::exception& e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (...) {
        PyErr_SetString(PyExc_RuntimeError, "cudajit: unknown C++ exception");
    }
}

}  // namespace cj

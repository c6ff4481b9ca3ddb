// Python surface of the CPU backend: the host compiler and, for tests, direct kernel launches.
// The launcher (launch.cpp) uses cj::cpu::CpuKernel in C++; it can take one out of the Python object.
#include <pybind11/stl.h>

#include <cstring>
#include <tuple>

#include "bindings.h"
#include "cpu_launch.h"
#include "gil.h"
#include "host_compiler.h"

namespace py = pybind11;
using namespace pybind11::literals;

namespace cj {
namespace {

// A running CPU launch calls this on its launching thread (without the GIL): Python's signal
// handlers run here, so Ctrl-C raises KeyboardInterrupt, which stops the launch.
void check_python_signals() {
    std::exception_ptr raised;
    with_gil([&] {
        if (PyErr_CheckSignals() != 0) raised = std::make_exception_ptr(py::error_already_set());
    });
    if (raised) std::rethrow_exception(raised);
}

// What a CPU launch's threads print(): written to Python's sys.stdout, as the simulator's print() is, so that it
// follows the program's own output in a pipe, a notebook cell, contextlib.redirect_stdout or pytest's capsys. Where
// sys.stdout is None or its write fails, C's stdout.
void write_python_stdout(const char* text, size_t len) {
    bool written = false;
    with_gil([&] {
        PyObject* out = PySys_GetObject("stdout");  // borrowed
        if (!out || out == Py_None) return;
        PyObject* str = PyUnicode_DecodeUTF8(text, Py_ssize_t(len), "replace");
        PyObject* done = str ? PyObject_CallMethod(out, "write", "O", str) : nullptr;
        written = done != nullptr;
        Py_XDECREF(done);
        Py_XDECREF(str);
        if (!written) PyErr_Clear();
    });
    if (!written) {
        std::fwrite(text, 1, len, stdout);
        std::fflush(stdout);
    }
}

}  // namespace

void bind_cpu(py::module_& m) {
    cpu::set_interrupt_check(&check_python_signals);
    cpu::set_print_sink(&write_python_stdout);
    m.def("host_compiler_identity", &host::compiler_identity,
          "The host C++ compiler's --version line ($CXX, else c++, g++, clang++).");
    m.def("compile_host",
          [](const std::string& source, const std::vector<std::string>& options, const std::string& include_dir) {
              sync_settings();                        // the cache, the precompiled header, the sanitizers
              NoGil nogil;
              return host::compile(source, options, include_dir);
          },
          "source"_a, "options"_a, "include_dir"_a,
          "Compile a generated kernel to a shared library (cached on disk); returns its path.");
    m.def("host_pch_uses", &host::precompiled_header_uses,
          "How many host compiles of this process used a precompiled cudajit/runtime.h that GCC accepted.");
    m.def("cpu_num_threads", [] { sync_settings(); return cpu::num_threads(); }, "OS threads that run blocks ($CUDAJIT_NUM_THREADS or all cores).");

    using Dim = std::tuple<unsigned, unsigned, unsigned>;
    py::class_<cpu::CpuKernel, std::shared_ptr<cpu::CpuKernel>>(m, "CpuKernel")
        .def(py::init([](const std::string& path, const std::string& entry, bool uses_barriers, size_t local_bytes) {
                 sync_settings();                     // CUDAJIT_CPU_SANITIZE: how the library is loaded
                 return std::make_shared<cpu::CpuKernel>(path, entry, uses_barriers, local_bytes);
             }),
             "path"_a, "entry"_a, "uses_barriers"_a, "local_bytes"_a = 0)
        .def_property_readonly("entry", &cpu::CpuKernel::entry)
        .def_property_readonly("uses_barriers", &cpu::CpuKernel::uses_barriers)
        .def_property_readonly("fiber_stack_bytes", &cpu::CpuKernel::fiber_stack_bytes,
                               "Bytes of each fiber's stack: $CUDAJIT_CPU_STACK plus the kernel's local arrays.")
        .def(
            "launch",
            [](const cpu::CpuKernel& k, Dim grid, Dim block, size_t shmem, const std::vector<py::bytes>& params) {
                // Each parameter in its own 16-byte aligned slot, as the launcher packs them.
                struct alignas(16) Slot {
                    unsigned char bytes[16];
                };
                std::vector<size_t> first;
                std::vector<Slot> slots;
                for (const py::bytes& p : params) {
                    std::string_view raw = p;
                    first.push_back(slots.size());
                    slots.resize(slots.size() + (raw.size() + 15) / 16 + (raw.empty() ? 1 : 0));
                    std::memcpy(slots[first.back()].bytes, raw.data(), raw.size());
                }
                std::vector<void*> ptrs;
                for (size_t i : first) ptrs.push_back(&slots[i]);
                NoGil no_gil;
                k.launch({std::get<0>(grid), std::get<1>(grid), std::get<2>(grid)},
                         {std::get<0>(block), std::get<1>(block), std::get<2>(block)}, shmem, ptrs.data());
            },
            "grid"_a, "block"_a, "shmem"_a, "params"_a,
            "For tests: run the grid with params given as the raw bytes of each parameter.");
}

}  // namespace cj

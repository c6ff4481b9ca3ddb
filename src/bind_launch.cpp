// Python surface of launching: modules, kernels, dispatchers and configured launchers.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cxxabi.h>

#include "array_core.h"
#include "bindings.h"
#include "cpu_launch.h"
#include "launch.h"

namespace py = pybind11;

namespace cj {
// Dispatcher.configure's result: a Launcher object made with py::cast (its vectorcall slot set after), named
// Launcher in signatures.
struct LauncherObject : py::object {
    using py::object::object;
};
}  // namespace cj

namespace pybind11::detail {
template <>
struct handle_type_name<cj::LauncherObject> {
    static constexpr auto name = const_name("Launcher");
};
}  // namespace pybind11::detail

namespace cj {

void register_launch_types(py::module_& m);
void register_scalar_type(py::handle type, const std::string& typestr, uint32_t tag);

namespace {

// `kernel[grid, block, stream, shmem]`: a configuration bound to a dispatcher; calling it launches.
struct Launcher {
    std::shared_ptr<Dispatcher> dispatcher;
    LaunchConfig config;
    py::object owner;  // keeps the Python dispatcher alive while its launcher is (kern[g, b] outlives kern)
    py::object stream;  // and the stream object given: `l = kern[g, b, cuda.stream()]` would otherwise launch
                        // (and copy NumPy arguments) on a destroyed stream, as numba-cuda's launcher holds it too
    py::object callbacks;  // numba-cuda's pre_launch_callbacks: a list once asked for, else None
};

// A launcher as a plain CPython object (not a pybind11 class): making one is a GC allocation and a placement new,
// without pybind11's instance registry and holder, since `kern[g, b, stream]` makes one per launch. Its vectorcall
// function sits in the object (tp_vectorcall_offset).
struct LauncherPy {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    Launcher launcher;
};

PyTypeObject* g_launcher_type = nullptr;

// The Launcher a Python Launcher object holds; nullptr for any other object.
Launcher* launcher_of(PyObject* self) {
    return Py_TYPE(self) == g_launcher_type ? &reinterpret_cast<LauncherPy*>(self)->launcher : nullptr;
}

// A compile error (cudajit.errors.COMPILE_ERRORS) raised while a launch compiled its kernel reaches
// the user with cudajit's frames dropped: the traceback starts at the launch, and the message
// names the kernel's file:line. CUDAJIT_FULL_TRACEBACK=1 keeps every frame.
void drop_internal_frames(py::error_already_set& e) {
    py::module_ errors = py::module_::import("cudajit.errors");
    if (!e.matches(errors.attr("COMPILE_ERRORS")) || errors.attr("full_traceback")().cast<bool>()) return;
    py::object value = e.value();
    PyException_SetTraceback(value.ptr(), Py_None);
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(value.ptr())), value.ptr());  // no traceback yet
    throw py::error_already_set();
}

// `launcher(*args)`: the launch, called through CPython's vectorcall (no tuple of the arguments is made). Numba's
// kernels take positional arguments only.
PyObject* launch_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
    Launcher* l = launcher_of(self);
    if (!l) {
        PyErr_SetString(PyExc_TypeError, "this launcher was not made by kernel[griddim, blockdim]");
        return nullptr;
    }
    try {
        if (kwnames && PyTuple_GET_SIZE(kwnames)) {
            std::string names;
            for (py::handle name : py::reinterpret_borrow<py::tuple>(kwnames))
                names += (names.empty() ? "'" : ", '") + std::string(py::str(name)) + "'";
            std::string kernel =
                l->owner.is_none() ? "a kernel" : "kernel '" + std::string(py::str(l->owner.attr("__name__"))) + "'";
            throw py::type_error(kernel + " takes positional arguments only, not keyword arguments (" + names +
                                 " given): pass them in the order of its parameters");
        }
        try {
            const size_t nargs = PyVectorcall_NARGS(nargsf);
            if (l->callbacks && PyList_Check(l->callbacks.ptr()) && PyList_GET_SIZE(l->callbacks.ptr()) > 0 &&
                !l->owner.is_none())  // each callback(kernel, launcher), before the launch (dispatcher.py)
            {
                py::tuple given(nargs);
                for (size_t i = 0; i < nargs; ++i) given[i] = py::reinterpret_borrow<py::object>(args[i]);
                py::object pre_launch = l->owner.attr("_pre_launch");
                PyObject* argv[] = {self, given.ptr()};
                call_python(pre_launch.ptr(), argv, 2);  // interpreter exit meanwhile: parks (gil.h)
            }
            l->dispatcher->call(l->config, args, nargs);
        } catch (py::error_already_set& e) {
            drop_internal_frames(e);  // throws the same error without cudajit's frames, or returns
            throw;
        }
    } catch (abi::__forced_unwind&) {
        throw;  // pthread_exit of a daemon thread at interpreter exit: must go on unwinding (pybind11 does the same)
    } catch (...) {
        set_python_error();
        return nullptr;
    }
    Py_RETURN_NONE;
}

// The same from a call that brings a tuple (PyObject_Call, a launcher whose vectorcall slot is not set).
PyObject* call_launcher(PyObject* self, PyObject* args, PyObject* kwargs) {
    py::object kwnames;
    std::vector<PyObject*> all(&PyTuple_GET_ITEM(args, 0), &PyTuple_GET_ITEM(args, 0) + PyTuple_GET_SIZE(args));
    if (kwargs && PyDict_GET_SIZE(kwargs)) {
        kwnames = py::reinterpret_steal<py::object>(PyTuple_New(PyDict_GET_SIZE(kwargs)));
        if (!kwnames) return nullptr;
        Py_ssize_t pos = 0, i = 0;
        PyObject *key, *value;
        while (PyDict_Next(kwargs, &pos, &key, &value)) {
            PyTuple_SET_ITEM(kwnames.ptr(), i++, Py_NewRef(key));
            all.push_back(value);
        }
    }
    return launch_vectorcall(self, all.data(), static_cast<size_t>(PyTuple_GET_SIZE(args)), kwnames.ptr());
}

// A new launcher of d for this configuration (Dispatcher.configure, and kern[...] below).
LauncherObject make_launcher(std::shared_ptr<Dispatcher> d, py::handle grid, py::handle block, py::handle stream,
                             py::handle shmem) {
    py::object owner = d->owner();
    LaunchConfig config = parse_config(grid, block, stream, shmem);
    warn_low_occupancy(config);
    auto* obj = PyObject_GC_New(LauncherPy, g_launcher_type);
    if (!obj) throw py::error_already_set();
    obj->vectorcall = &launch_vectorcall;
    new (&obj->launcher) Launcher{std::move(d), config, std::move(owner), py::reinterpret_borrow<py::object>(stream)};
    PyObject_GC_Track(obj);
    return py::reinterpret_steal<LauncherObject>(reinterpret_cast<PyObject*>(obj));
}

// A configuration whose launcher a dispatcher keeps for the next `kern[...]` of equal items: grid and block each an
// int or a tuple of 1 to 3 ints, the stream (if given) an int handle or None, the shared memory an int or None. Only
// exact ints: a float or bool equal to one hashes alike but is not a valid (or the same) configuration. A stream
// object is never kept (a launcher holds its stream, which would then outlive the user's last reference).
bool cacheable_dims(PyObject* o) {
    if (PyLong_CheckExact(o)) return true;
    if (!PyTuple_CheckExact(o) || PyTuple_GET_SIZE(o) < 1 || PyTuple_GET_SIZE(o) > 3) return false;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); ++i)
        if (!PyLong_CheckExact(PyTuple_GET_ITEM(o, i))) return false;
    return true;
}

bool cacheable_config(PyObject* const* item, Py_ssize_t n) {
    if (!cacheable_dims(item[0]) || !cacheable_dims(item[1])) return false;
    for (Py_ssize_t i = 2; i < n; ++i)
        if (item[i] != Py_None && !PyLong_CheckExact(item[i])) return false;
    return true;
}

// CUDADispatcher.__getitem__ (python/cudajit/cuda/dispatcher.py installs it), without running Python:
// - a cacheable configuration (above) whose launcher was made before comes from the dispatcher's _launchers dict;
// - any other tuple of 2 to 4 items makes a launcher here (kern[g, b, stream] each time), and a new one for a
//   cacheable configuration goes into _launchers (at most 64, then the dict starts afresh);
// - anything else goes to the class's _configure, which names what a configuration must be.
// A method descriptor of the class, so that CPython calls it as fast as a built-in type's method.
PyObject* dispatcher_getitem(PyObject* self, PyObject* config) {
    static PyObject* const launchers_name = PyUnicode_InternFromString("_launchers");
    static PyObject* const configure_name = PyUnicode_InternFromString("_configure");
    static PyObject* const core_name = PyUnicode_InternFromString("_core");
    if (!PyTuple_CheckExact(config) || PyTuple_GET_SIZE(config) < 2 || PyTuple_GET_SIZE(config) > 4)
        return PyObject_CallMethodOneArg(self, configure_name, config);
    const Py_ssize_t n = PyTuple_GET_SIZE(config);
    PyObject* const* item = &PyTuple_GET_ITEM(config, 0);
    const bool keep = cacheable_config(item, n);
    py::object launchers;
    if (keep) {
        launchers = py::reinterpret_steal<py::object>(PyObject_GetAttr(self, launchers_name));
        if (!launchers) return nullptr;
        if (!PyDict_CheckExact(launchers.ptr())) return PyObject_CallMethodOneArg(self, configure_name, config);
        PyObject* found = PyDict_GetItemWithError(launchers.ptr(), config);
        if (found || PyErr_Occurred()) return Py_XNewRef(found);  // borrowed from the dict
    }
    try {
        py::object core = py::reinterpret_steal<py::object>(PyObject_GetAttr(self, core_name));
        if (!core) throw py::error_already_set();
        LauncherObject launcher = make_launcher(core.cast<std::shared_ptr<Dispatcher>>(), item[0], item[1],
                                                n > 2 ? item[2] : Py_None, n > 3 ? item[3] : Py_None);
        if (keep) {
            if (PyDict_GET_SIZE(launchers.ptr()) >= 64) PyDict_Clear(launchers.ptr());
            if (PyDict_SetItem(launchers.ptr(), config, launcher.ptr()) < 0) throw py::error_already_set();
        }
        return launcher.release().ptr();
    } catch (abi::__forced_unwind&) {
        throw;
    } catch (...) {
        set_python_error();
        return nullptr;
    }
}

PyMethodDef g_getitem_def = {"__getitem__", reinterpret_cast<PyCFunction>(dispatcher_getitem), METH_O,
                             "kernel[griddim, blockdim, stream, sharedmem]: a launcher of this kernel"};

std::vector<ParamSlot> parse_params(const py::list& specs) {
    std::vector<ParamSlot> out;
    for (py::handle h : specs) {
        py::tuple t = h.cast<py::tuple>();
        std::string kind = t[0].cast<std::string>();
        ParamSlot s{};
        if (kind == "array") {
            s.kind = ParamSlot::Array;
            s.ndim = static_cast<uint8_t>(t[2].cast<int>());
        } else if (kind == "pointer") {
            s.kind = ParamSlot::Pointer;
        } else if (kind == "scalar") {
            s.kind = ParamSlot::Scalar;
            DtypeId d = dtype_id_of(t[1].cast<std::string>());
            if (d == kOther) throw py::type_error("unsupported scalar parameter type '" + t[1].cast<std::string>() + "'");
            s.code = static_cast<char>(d);
        } else {
            throw py::value_error("parameter kind must be 'array', 'pointer' or 'scalar', not '" + kind + "'");
        }
        out.push_back(s);
    }
    return out;
}

// The launcher's attributes (pickling reads dispatcher and the configuration); plain C API, since a C++ exception
// must not leave these callbacks.
PyObject* get_griddim(PyObject* self, void*) {
    const unsigned* g = launcher_of(self)->config.grid;
    return Py_BuildValue("(III)", g[0], g[1], g[2]);
}
PyObject* get_blockdim(PyObject* self, void*) {
    const unsigned* b = launcher_of(self)->config.block;
    return Py_BuildValue("(III)", b[0], b[1], b[2]);
}
PyObject* get_stream(PyObject* self, void*) { return PyLong_FromUnsignedLongLong(launcher_of(self)->config.stream); }
PyObject* get_sharedmem(PyObject* self, void*) { return PyLong_FromSize_t(launcher_of(self)->config.shared_mem); }
PyObject* get_dispatcher(PyObject* self, void*) { return launcher_of(self)->owner.inc_ref().ptr(); }

// pre_launch_callbacks, as numba-cuda's configured launch has them: a list, made on first use. A launcher that has
// one is no longer kept for the next `kern[...]` of its configuration (dispatcher.py, _detach_launcher), since
// numba-cuda's `kern[g, b]` is a new configuration each time, whose callbacks no other launch runs.
int set_callbacks(PyObject* self, PyObject* value, void*) {
    Launcher* l = launcher_of(self);
    if (l->owner.is_none() || !PyObject_HasAttrString(l->owner.ptr(), "_pre_launch")) {
        PyErr_SetString(PyExc_AttributeError, "pre_launch_callbacks are those of @cuda.jit kernels' launches (numba-cuda's); "
                                              "this launcher's kernel has none");
        return -1;
    }
    if (!value || !PyList_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "pre_launch_callbacks must be a list of callables (kernel, launcher)");
        return -1;
    }
    PyObject* r = PyObject_CallMethod(l->owner.ptr(), "_detach_launcher", "O", self);
    if (!r) return -1;
    Py_DECREF(r);
    l->callbacks = py::reinterpret_borrow<py::object>(value);
    return 0;
}
PyObject* get_callbacks(PyObject* self, void*) {
    Launcher* l = launcher_of(self);
    if (!l->callbacks) {
        PyObject* list = PyList_New(0);
        if (!list) return nullptr;
        int failed = set_callbacks(self, list, nullptr);
        Py_DECREF(list);
        if (failed) return nullptr;
    }
    return l->callbacks.inc_ref().ptr();
}

PyObject* get_has_callbacks(PyObject* self, void*) {
    const py::object& c = launcher_of(self)->callbacks;
    return PyBool_FromLong(c && PyList_Check(c.ptr()) && PyList_GET_SIZE(c.ptr()) > 0);
}

// Each doc starts with the attribute's type, which tools/gen_core_stub.py writes into _core.pyi.
PyGetSetDef g_launcher_getset[] = {
    {"griddim", get_griddim, nullptr, "tuple[int, int, int]: the grid's blocks, (x, y, z)", nullptr},
    {"blockdim", get_blockdim, nullptr, "tuple[int, int, int]: a block's threads, (x, y, z)", nullptr},
    {"stream", get_stream, nullptr, "int: the stream's handle (0: the default stream)", nullptr},
    {"sharedmem", get_sharedmem, nullptr, "int: bytes of dynamic shared memory", nullptr},
    {"dispatcher", get_dispatcher, nullptr,
     "object: the Python dispatcher this launcher was made from (pickling a launcher)", nullptr},
    {"pre_launch_callbacks", get_callbacks, set_callbacks,
     "list: callables run as callback(kernel, launcher) just before each launch of this launcher (numba-cuda's)",
     nullptr},
    {"_has_pre_launch_callbacks", get_has_callbacks, nullptr,
     "bool: whether pre_launch_callbacks holds any, without making the list (pickling asks)", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

// The GC sees a launcher's references (its dispatcher and stream): CUDADispatcher keeps launchers it made for
// configurations of ints (dispatcher.py), a cycle through this object that would otherwise never be collected.
int launcher_traverse(PyObject* self, visitproc visit, void* arg) {
    Launcher* l = launcher_of(self);
    Py_VISIT(l->owner.ptr());
    Py_VISIT(l->stream.ptr());
    Py_VISIT(l->callbacks.ptr());
    return 0;
}

int launcher_clear(PyObject* self) {
    Launcher* l = launcher_of(self);
    l->owner = py::none();
    l->stream = py::none();
    l->callbacks = py::object();
    return 0;
}

void launcher_dealloc(PyObject* self) {
    PyObject_GC_UnTrack(self);
    launcher_of(self)->~Launcher();
    PyObject_GC_Del(self);
}

// Calling a launcher launches: CPython's vectorcall (no tuple of the arguments is made, no pybind11 call machinery),
// tp_call for calls that bring a tuple. Final: a subclass's instance could lay its own fields over the launcher.
PyTypeObject* launcher_type() {
    static PyTypeObject type = [] {
        PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
        t.tp_name = "cudajit._core.Launcher";
        t.tp_basicsize = sizeof(LauncherPy);
        t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
        t.tp_doc = "kernel[griddim, blockdim, stream, sharedmem]: calling it launches the kernel.";
        t.tp_dealloc = &launcher_dealloc;
        t.tp_traverse = &launcher_traverse;
        t.tp_clear = &launcher_clear;
        t.tp_vectorcall_offset = offsetof(LauncherPy, vectorcall);
        t.tp_call = &call_launcher;
        t.tp_getset = g_launcher_getset;
        return t;
    }();
    if (!g_launcher_type) {
        if (PyType_Ready(&type) < 0) throw py::error_already_set();
        g_launcher_type = &type;
    }
    return &type;
}

}  // namespace

void bind_launch(py::module_& m) {
    register_launch_types(m);
    m.def("register_scalar_type", &register_scalar_type, py::arg("type"), py::arg("typestr"), py::arg("tag") = 0,
          "Teach the dispatcher a scalar type, packed as `typestr`; `tag` tells apart types packed alike "
          "(datetime64 units).");
    m.def("stream_handle", &stream_handle, py::arg("stream"),
          "The CUstream, as an int, of anything that names a stream (the one normaliser: cuda.streams uses it).");
    m.def("register_stream_type", &register_stream_type, py::arg("type"),
          "Tell the launch path cuda.Stream, whose _handle it then reads without the handle property.");

    py::class_<GpuModule, std::shared_ptr<GpuModule>>(m, "GpuModule")
        .def(py::init([](py::bytes image) { return std::make_shared<GpuModule>(std::string(image)); }));

    py::class_<Kernel, std::shared_ptr<Kernel>>(m, "Kernel")
        .def(py::init([](std::string name, py::list params, std::shared_ptr<GpuModule> module,
                         std::shared_ptr<cpu::CpuKernel> cpu, py::object error_handler, int max_threads) {
                 return std::make_shared<Kernel>(std::move(name), parse_params(params), std::move(module), std::move(cpu),
                                                 std::move(error_handler), max_threads);
             }),
             py::arg("name"), py::arg("params"), py::arg("module") = nullptr, py::arg("cpu") = nullptr,
             py::arg("error_handler") = py::none(), py::arg("max_threads") = 0)
        .def_property_readonly("name", &Kernel::name)
        .def_property_readonly("is_cpu", &Kernel::is_cpu)
        .def_property_readonly("regs", [](const Kernel& k) { return k.attribute(CU_FUNC_ATTRIBUTE_NUM_REGS); })
        .def_property_readonly("shared_bytes", [](const Kernel& k) { return k.attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES); })
        .def_property_readonly("local_bytes", [](const Kernel& k) { return k.attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES); })
        .def_property_readonly("const_bytes", [](const Kernel& k) { return k.attribute(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES); })
        .def_property_readonly("max_threads_per_block", [](const Kernel& k) {
            return k.max_threads();
        })
        .def("max_potential_block_size", &Kernel::max_potential_block_size, py::arg("dynamic_shared") = 0)
        .def_property("cooperative", &Kernel::cooperative, &Kernel::set_cooperative)
        .def_property("shared_memory_carveout",
                      [](const Kernel& k) -> py::object {
                          int c = k.shared_memory_carveout();
                          if (c < -1) return py::none();
                          // on the GPU, what the driver holds for the function (it was set there)
                          return py::int_(k.is_cpu() ? c : k.attribute(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT));
                      },
                      &Kernel::set_shared_memory_carveout,
                      "cuda.jit(shared_memory_carveout=...) as a percentage (-1: the driver's default), None when "
                      "not set; on the GPU read back from the driver's function.")
        .def("set_coarse", &Kernel::set_coarse, py::arg("name"), py::arg("read_only"), py::arg("compile"),
             "Give the kernel its coarsened entry (compiler/coarsen.py): its name, the read-only array parameters "
             "and a callable returning the GpuModule that has it (called by the first launch that takes it).")
        .def_property_readonly("coarse_launches", &Kernel::coarse_launches,
                               "How many launches took the coarsened entry.")
        .def("max_cooperative_grid_blocks", [](const Kernel& k, py::handle blockdim, py::handle dynsmemsize) {
            LaunchConfig c = parse_config(py::int_(1), blockdim, py::none(), dynsmemsize);
            return k.max_cooperative_grid_blocks(c.block, c.shared_mem);
        }, py::arg("blockdim"), py::arg("dynsmemsize") = 0)
        .def("launch", [](const Kernel& k, py::handle grid, py::handle block, py::handle stream, py::handle shmem,
                          py::args args) {
            LaunchConfig c = parse_config(grid, block, stream, shmem);
            size_t n = PyTuple_GET_SIZE(args.ptr());
            k.launch(c, n ? &PyTuple_GET_ITEM(args.ptr(), 0) : nullptr, n);
        });

    m.def("install_getitem", [](py::handle cls) {
        if (!PyType_Check(cls.ptr())) throw py::type_error("install_getitem takes the dispatcher class");
        py::object d = py::reinterpret_steal<py::object>(
            PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), &g_getitem_def));
        if (!d) throw py::error_already_set();
        py::setattr(cls, "__getitem__", d);
    }, py::arg("cls"), "Makes cls.__getitem__ the core's lookup of launchers made before (cuda/dispatcher.py).");

    py::class_<Dispatcher, std::shared_ptr<Dispatcher>>(m, "Dispatcher")
        .def(py::init<py::object, py::object, std::vector<std::string>>(), py::arg("compile"), py::arg("prepare"),
             py::arg("params") = std::vector<std::string>())
        .def("configure", [](std::shared_ptr<Dispatcher> d, py::handle grid, py::handle block, py::handle stream,
                             py::handle shmem) {
            return make_launcher(std::move(d), grid, block, stream, shmem);
        }, py::arg("griddim"), py::arg("blockdim"), py::arg("stream") = py::none(), py::arg("sharedmem") = 0)
        .def("set_extensions", &Dispatcher::set_extensions, py::arg("extensions"), py::arg("extend"),
             "Numba's kernel extensions: while the list holds any, each launch's arguments go through "
             "extend(owner, args, stream, capture=...) (cuda/dispatcher.py).")
        .def("clear", &Dispatcher::clear)
        .def("__len__", &Dispatcher::size);

    m.add_object("Launcher", py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(launcher_type())));
}

}  // namespace cj

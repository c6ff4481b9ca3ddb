// A launch's plain NumPy arguments, copied in and back without Python: the common case of args.py's prepare_args
// (docs/INTERNALS.md, "Pageable copies and NumPy arguments"), which costs 15-30 us of Python per launch on the
// H100's hosts. Plain means: an exact numpy.ndarray, C or Fortran contiguous, of a kernel dtype in native byte
// order, at least 1-d, each passed once, all of them together at most a staging slot; every other argument one
// the dispatcher takes as it is. Anything else (a strided or record array, the same array twice, cuda.In/Out,
// a tuple, a foreign CUDA array, a stream under capture) goes through Python, as does a launch whose kernel is not
// compiled yet (compiling types the arguments in Python). What the kernel sees is what prepare_args gives it: one
// device block, each array at a 256-byte boundary (writable ones first), copied in before the launch and the
// writable ones back after it, each way one batch on the launch's stream.
#include <cstring>
#include <memory>
#include <vector>

#include "array_core.h"
#include "bindings.h"
#include "gil.h"
#include "launch.h"
#include "memory.h"

namespace py = pybind11;

namespace cj {
namespace {

constexpr size_t kAlign = 256;             // args.py's _BLOCK_ALIGN
constexpr size_t kMaxBlock = size_t{16} << 20;  // args.py's _BLOCK_MAX: a staging slot

// numpy.ndarray, looked up once (numpy is imported before the core is: the lookup never waits for an import).
PyTypeObject* ndarray_type() {
    static PyTypeObject* type = [] {
        py::object t = py::module_::import("numpy").attr("ndarray");
        return reinterpret_cast<PyTypeObject*>(t.release().ptr());  // kept for the process
    }();
    return type;
}

// NumPy's typestr for the buffer format of a native-order array of a kernel dtype ("f" -> "<f4"); null otherwise.
const char* typestr_of(const Py_buffer& view) {
    struct Entry {
        const char* format;
        const char* typestr;
        Py_ssize_t itemsize;
    };
    static const Entry table[] = {{"?", "|b1", 1}, {"b", "|i1", 1}, {"B", "|u1", 1}, {"h", "<i2", 2},
                                  {"H", "<u2", 2}, {"i", "<i4", 4}, {"I", "<u4", 4}, {"l", "<i8", 8},
                                  {"L", "<u8", 8}, {"q", "<i8", 8}, {"Q", "<u8", 8}, {"e", "<f2", 2},
                                  {"f", "<f4", 4}, {"d", "<f8", 8}, {"Zf", "<c8", 8}, {"Zd", "<c16", 16}};
    if (!view.format) return nullptr;
    const char* f = view.format;
    if (*f == '@' || *f == '=' || *f == '<') ++f;  // native order on the little-endian hosts cudajit runs on
    for (const Entry& e : table)
        if (std::strcmp(f, e.format) == 0 && view.itemsize == e.itemsize) return e.typestr;
    return nullptr;
}

struct Plain {
    Py_ssize_t arg;   // its position
    size_t view;      // in HeldBuffers::held
    const char* typestr;
    bool fortran;
    size_t offset = 0;
};

}  // namespace

namespace {
// Looked up at each use, never kept in a function-local static: the call runs Python, which may let another thread
// fork meanwhile, and a child forked while a static's initialiser runs waits on its guard for ever (the robustness
// case fork_while_thread_compiles_at_times did, a launch being the thread's first). The module is imported with the
// package (cuda/args.py), so this is a sys.modules lookup.
py::object perf_warnings() { return py::module_::import("cudajit.cuda.perfwarnings"); }
}  // namespace

void warn_low_occupancy(const LaunchConfig& config) {
    const uint64_t blocks = uint64_t{config.grid[0]} * config.grid[1] * config.grid[2];
    if (blocks < 128) perf_warnings().attr("low_occupancy")(blocks);
}

void warn_implicit_copy(size_t arrays) {
    if (arrays) perf_warnings().attr("implicit_copy")(arrays);
}

bool Dispatcher::call_with_host_arrays(const LaunchConfig& cfg, py::tuple args) {
    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "typestr_of assumes little-endian native order");
    const Py_ssize_t n = PyTuple_GET_SIZE(args.ptr());
    PyTypeObject* ndarray = ndarray_type();
    HeldBuffers views;
    views.held.reserve(static_cast<size_t>(n));  // a buffer taken is always recorded: no allocation after it
    std::vector<Plain> plain;
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* o = PyTuple_GET_ITEM(args.ptr(), i);
        if (Py_TYPE(o) != ndarray) {
            if (!takes_as_is(o)) return false;
            continue;
        }
        for (const Plain& p : plain)
            if (PyTuple_GET_ITEM(args.ptr(), p.arg) == o) return false;  // one device array for both: Python's
        Py_buffer view;
        if (PyObject_GetBuffer(o, &view, PyBUF_RECORDS_RO) != 0) {
            PyErr_Clear();  // e.g. datetime64, which NumPy cannot export: Python converts it
            return false;
        }
        views.held.push_back(view);
        const char* typestr = typestr_of(view);
        bool c = PyBuffer_IsContiguous(&view, 'C'), f = !c && PyBuffer_IsContiguous(&view, 'F');
        if (!typestr || !(c || f) || view.ndim < 1 || view.ndim > kMaxDims) return false;
        plain.push_back({i, views.held.size() - 1, typestr, f});
    }
    if (plain.empty()) return false;
    // Writable arrays first: the copy back's one DMA then spans only what comes back (staging.cpp, batch_layout).
    size_t end = 0;
    for (bool readonly : {false, true})
        for (Plain& p : plain)
            if (static_cast<bool>(views.held[p.view].readonly) == readonly) {
                p.offset = end;
                end += (static_cast<size_t>(views.held[p.view].len) + kAlign - 1) / kAlign * kAlign;
            }
    if (end == 0 || end > kMaxBlock) return false;

    // The arrays first stand at placeholder addresses: the key says whether the kernel is compiled for these types
    // (and the backend decided) before anything is allocated. A miss goes to Python, which compiles.
    const Backend backend = current_backend();
    py::tuple converted(n);
    for (Py_ssize_t i = 0; i < n; ++i) PyTuple_SET_ITEM(converted.ptr(), i, Py_NewRef(PyTuple_GET_ITEM(args.ptr(), i)));
    std::vector<ArrayCore*> cores;
    for (const Plain& p : plain) {
        const Py_buffer& v = views.held[p.view];
        auto owned = std::make_unique<ArrayCore>(kAlign + p.offset, v.ndim, v.shape, p.fortran, p.typestr,
                                                 v.readonly, backend, -1);
        ArrayCore* core = owned.get();
        py::object array = py::cast(core, py::return_value_policy::take_ownership);
        owned.release();  // the Python object owns it now
        PyObject* old = PyTuple_GET_ITEM(converted.ptr(), p.arg);
        PyTuple_SET_ITEM(converted.ptr(), p.arg, array.release().ptr());
        Py_DECREF(old);
        cores.push_back(core);
    }
    DispatchKey key;
    bool has_tuple = false;
    if (!make_key(&PyTuple_GET_ITEM(converted.ptr(), 0), static_cast<size_t>(n), &key, &has_tuple)) return false;
    std::shared_ptr<Kernel> kernel = cached(key);
    if (!kernel) return false;
    warn_implicit_copy(plain.size());

    auto block = std::make_shared<DeviceBuffer>(end, cfg.stream);
    std::vector<HostRange> in, back;
    for (size_t k = 0; k < plain.size(); ++k) {
        const Py_buffer& v = views.held[plain[k].view];
        ArrayCore* core = cores[k];
        core->ptr = block->ptr() + plain[k].offset;
        core->device = block->device();
        core->buffer = block;
        HostRange r{static_cast<CUdeviceptr>(core->ptr), v.buf, static_cast<size_t>(v.len)};
        in.push_back(r);
        if (!v.readonly) back.push_back(r);
    }
    const int device = block->device();
    const staging::Scratch scratch{static_cast<CUdeviceptr>(block->ptr()), block->nbytes()};
    {
        NoGil nogil;
        copy_htod_batch(in, cfg.stream, backend, device, scratch);
    }
    auto copy_back = [&] {
        if (back.empty()) return;
        NoGil nogil;
        copy_dtoh_batch(back, cfg.stream, backend, device, scratch);
    };
    // The kernel found above, not a second lookup: the copy released the GIL, and another thread may have changed
    // the backend or cleared the cache meanwhile (a miss then would hand the placeholders to Python's compile).
    ArgNames names{&params_, &PyTuple_GET_ITEM(args.ptr(), 0), static_cast<size_t>(n)};  // the caller's arguments
    try {
        kernel->launch(cfg, n ? &PyTuple_GET_ITEM(converted.ptr(), 0) : nullptr, static_cast<size_t>(n), &names);
    } catch (py::error_already_set&) {
        copy_back();  // a kernel that raised (debug=True) still hands back what it wrote, as prepare_args's path
        throw;
    }
    copy_back();
    return true;
}

}  // namespace cj

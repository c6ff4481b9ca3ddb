#include "launch.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "array_core.h"
#include "block_cache.h"
#include "context.h"
#include "cpu_launch.h"
#include "driver.h"
#include "errors.h"
#include "gil.h"
#include "graph_capture.h"

namespace py = pybind11;

namespace cj {

// CPU limits mirror a current NVIDIA GPU so that a configuration valid on one is valid on the other.
const DeviceLimits kCpuLimits = {{2147483647, 65535, 65535}, {1024, 1024, 64}, 227 * 1024, 1, 1024};

#include "launch_args.h"


GpuModule::GpuModule(const std::string& image) : image_(image), device_(ctx::current_device()) { load(); }

void GpuModule::load() {
    ctx::DeviceScope scope(device_);
    const unsigned epoch = block_cache::epoch();  // read before loading: a close() meanwhile reloads again
    char log[8192] = {0};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {log, reinterpret_cast<void*>(sizeof(log))};
    CUmodule mod = nullptr;
    CUresult r = drv::api().cuModuleLoadDataEx(&mod, image_.data(), 2, opts, vals);
    if (r != CUDA_SUCCESS) {
        if (log[0]) throw CompileError(std::string("loading the compiled kernel failed: ") + log);
        drv::check(r, "cuModuleLoadDataEx");
    }
    mod_ = mod;
    epoch_ = epoch;
}

void GpuModule::refresh() {
    if (epoch_ != block_cache::epoch()) load();
}

GpuModule::~GpuModule() {
    if (!mod_ || !drv::available(nullptr) || epoch_ != block_cache::epoch()) return;  // a closed context's: gone
    try {
        ctx::DeviceScope scope(device_);  // unloaded in the context it was loaded in
        drv::api().cuModuleUnload(mod_);
    } catch (...) {
    }
}

CUdeviceptr GpuModule::global(const std::string& name, size_t* bytes) const {
    CUdeviceptr p = 0;
    CJ_CU(cuModuleGetGlobal, &p, bytes, mod_, name.c_str());
    return p;
}

CUfunction GpuModule::function(const std::string& name) const {
    CUfunction f = nullptr;
    CUresult r = drv::api().cuModuleGetFunction(&f, mod_, name.c_str());
    if (r == CUDA_ERROR_NOT_FOUND)
        throw CompileError("the module has no kernel named '" + name + "' (is it extern \"C\" __global__?)");
    drv::check(r, "cuModuleGetFunction");
    return f;
}

Kernel::Kernel(std::string name, std::vector<ParamSlot> params, std::shared_ptr<GpuModule> module,
               std::shared_ptr<cpu::CpuKernel> cpu, py::object error_handler, int max_threads)
    : name_(std::move(name)), display_(cpu::python_kernel_name(name_)), params_(std::move(params)),
      module_(std::move(module)), cpu_(std::move(cpu)), error_handler_(std::move(error_handler)) {
    if (max_threads > 0 && max_threads < max_threads_) max_threads_ = max_threads;
    if (module_) {
        device_ = module_->device();
        epoch_ = module_->epoch();
        fn_ = module_->function(name_);
        max_threads_ = attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
        static_shared_ = attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    } else if (!cpu_) {
        throw std::invalid_argument("Kernel needs a GPU module or a CPU kernel");
    }
    if (!error_handler_.is_none()) {
        if (module_) {
            size_t bytes = 0;
            error_record_gpu_ = module_->global("cj_error_record", &bytes);
            if (bytes < sizeof(DebugRecord)) throw CompileError("kernel '" + display_ + "': malformed error record");
        } else {
            auto get = reinterpret_cast<void* (*)()>(cpu_->symbol("cj_error_record_cpu"));
            if (!get) throw CompileError("kernel '" + display_ + "': the debug build has no error record");
            error_record_cpu_ = get();
        }
    }
}

// debug=True or boundscheck: wait for the kernel and take what its threads recorded, leaving the record clear for the
// next launch. The caller owns the record (record_mutex_) from before the launch until this returns.
DebugRecord Kernel::take_record(const LaunchConfig& cfg) const {
    DebugRecord r;
    if (error_record_cpu_) {
        std::memcpy(&r, error_record_cpu_, sizeof r);
        if (r.code) std::memset(error_record_cpu_, 0, sizeof r);
        return r;
    }
    CUstream s = reinterpret_cast<CUstream>(cfg.stream);
    CJ_CU(cuMemcpyDtoHAsync, &r, error_record_gpu_, sizeof r, s);
    CJ_CU(cuStreamSynchronize, s);
    if (r.code) {
        CJ_CU(cuMemsetD8Async, error_record_gpu_, 0, sizeof r, s);
        CJ_CU(cuStreamSynchronize, s);
    }
    return r;
}

// A graph replay's check (its launch is the graph's): take the record and raise what it holds.
void Kernel::check_raised(const LaunchConfig& cfg) const {
    DebugRecord r;
    {
        std::unique_lock<std::mutex> own = own_record(record_mutex_);
        r = take_record(cfg);
    }
    raise_recorded(r);
}

// Python raises the exception of the recorded site (the error handler), with the GIL and the record released.
void Kernel::raise_recorded(const DebugRecord& r) const {
    if (!r.code) return;
    py::tuple shape(std::clamp(r.ndim, 0, 4));
    for (size_t k = 0; k < shape.size(); ++k) shape[k] = py::int_(r.shape[k]);
    error_handler_(r.code - 1, py::make_tuple(r.tid[0], r.tid[1], r.tid[2]),
                   py::make_tuple(r.ctaid[0], r.ctaid[1], r.ctaid[2]),
                   py::make_tuple(r.value[0], r.value[1], r.value[2], r.ndim, shape));
    throw KernelRuntimeError("kernel '" + display_ + "' raised, but its error handler did not");
}

// After cuda.close() (a new block_cache epoch) the module is loaded again in the device's new context, and this
// kernel's function and globals are looked up there; the launch bound and static shared size stay what they were.
void Kernel::refresh() const {
    if (!module_ || epoch_ == block_cache::epoch()) return;
    module_->refresh();
    fn_ = module_->function(name_);
    if (coarse_module_) {
        coarse_module_->refresh();
        coarse_fn_ = coarse_module_->function(coarse_name_);
    }
    if (error_record_gpu_) {
        size_t bytes = 0;
        error_record_gpu_ = module_->global("cj_error_record", &bytes);
    }
    apply_carveout(fn_);
    if (coarse_fn_) apply_carveout(coarse_fn_);
    grid_barrier_ = 0;
    dynamic_limit_set_ = 48 * 1024;
    epoch_ = module_->epoch();
}

void Kernel::set_shared_memory_carveout(int percent) {
    if (percent < -1 || percent > 100)
        throw py::value_error("kernel '" + display_ + "': shared_memory_carveout must be between -1 and 100, not " +
                              std::to_string(percent));
    carveout_ = percent;
    if (!fn_) return;
    refresh();
    apply_carveout(fn_);
    if (coarse_fn_) apply_carveout(coarse_fn_);
}

void Kernel::apply_carveout(CUfunction f) const {
    if (carveout_ == kNoCarveout) return;
    ctx::DeviceScope scope(device_);
    CJ_CU(cuFuncSetAttribute, f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, carveout_);
}

int Kernel::attribute(CUfunction_attribute a) const {
    if (!fn_) return 0;
    refresh();
    int v = 0;
    CJ_CU(cuFuncGetAttribute, &v, a, fn_);
    return v;
}

int Kernel::max_potential_block_size(size_t dynamic_shared) const {
    if (!fn_) return std::min(256, max_threads_);  // the CPU backend has no occupancy; 256 runs well there
    refresh();
    int min_grid = 0, block = 0;
    CJ_CU(cuOccupancyMaxPotentialBlockSize, &min_grid, &block, fn_, nullptr, dynamic_shared, 0);
    return block;
}

int Kernel::max_cooperative_grid_blocks(const unsigned block[3], size_t dynamic_shared) const {
    const unsigned long long threads = 1ull * block[0] * block[1] * block[2];
    if (!fn_) return static_cast<int>(cpu::max_cooperative_blocks(threads));
    ctx::ensure();
    refresh();
    int per_sm = 0, sms = 0;
    CJ_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor, &per_sm, fn_, static_cast<int>(threads), dynamic_shared);
    CJ_CU(cuDeviceGetAttribute, &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, ctx::current_cu_device());
    return per_sm * sms;
}

// A cooperative grid must be co-resident: refuse a larger one before launching, naming grid, block and limit.
void Kernel::check_cooperative(const LaunchConfig& cfg) const {
    const unsigned long long blocks = 1ull * cfg.grid[0] * cfg.grid[1] * cfg.grid[2];
    const int limit = max_cooperative_grid_blocks(cfg.block, cfg.shared_mem);
    if (blocks <= static_cast<unsigned long long>(limit)) return;
    auto dims = [](const unsigned d[3]) {
        return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + ")";
    };
    throw LaunchError("kernel '" + display_ + "' synchronizes its grid (cuda.cg), so all its blocks must run at once: "
                      "griddim " + dims(cfg.grid) + " is " + std::to_string(blocks) + " blocks, but at most " +
                      std::to_string(limit) + " blocks of blockdim " + dims(cfg.block) + " (" +
                      std::to_string(cfg.shared_mem) + " bytes of dynamic shared memory) can be co-resident on " +
                      (cpu_ ? "the CPU backend" : "this device") + "; see max_cooperative_grid_blocks(blockdim)");
}

void Kernel::check_config(const LaunchConfig& cfg) const {
    if (checked_ && std::equal(cfg.grid, cfg.grid + 3, checked_grid_) &&
        std::equal(cfg.block, cfg.block + 3, checked_block_) && cfg.shared_mem == checked_shared_)
        return;  // the configuration the last launch checked (a loop of launches)
    const DeviceLimits& L = cpu_ ? kCpuLimits : device_limits();
    static const char* axis = "xyz";
    unsigned long long threads = 1;
    for (int i = 0; i < 3; ++i) {
        if (cfg.grid[i] > static_cast<unsigned>(L.max_grid[i]))
            throw LaunchError("kernel '" + display_ + "': griddim." + axis[i] + " = " + std::to_string(cfg.grid[i]) +
                              " exceeds the device's limit of " + std::to_string(L.max_grid[i]));
        if (cfg.block[i] > static_cast<unsigned>(L.max_block[i]))
            throw LaunchError("kernel '" + display_ + "': blockdim." + axis[i] + " = " + std::to_string(cfg.block[i]) +
                              " exceeds the device's limit of " + std::to_string(L.max_block[i]));
        threads *= cfg.block[i];
    }
    if (threads > static_cast<unsigned long long>(max_threads_))
        throw LaunchError("kernel '" + display_ + "': " + std::to_string(threads) +
                          " threads per block exceed this kernel's limit of " + std::to_string(max_threads_) +
                          " on this device");
    size_t shared_total = cfg.shared_mem + static_cast<size_t>(static_shared_);
    if (shared_total > static_cast<size_t>(L.max_shared_optin))
        throw LaunchError("kernel '" + display_ + "': " + std::to_string(shared_total) +
                          " bytes of shared memory per block exceed the device's limit of " +
                          std::to_string(L.max_shared_optin));
    std::copy(cfg.grid, cfg.grid + 3, checked_grid_);
    std::copy(cfg.block, cfg.block + 3, checked_block_);
    checked_shared_ = cfg.shared_mem;
    checked_ = true;
}

// What a launch into a capture (cuda.graph) adds to its recording: the arguments the graph keeps alive; on the GPU
// a debug kernel's error check, run after each replay (the capture records the launch itself); on the CPU the
// launch with its packed parameters.
struct CaptureEntry {
    std::vector<std::shared_ptr<void>> keep;
    std::function<void(uintptr_t)> check;
    std::function<void()> step;

    // Moves only, into room capture_entry made: never throws.
    void add_to(graph::Recording* rec) noexcept {
        for (auto& k : keep) rec->keep.push_back(std::move(k));
        if (check) rec->checks.push_back(std::move(check));
        if (step) rec->steps.push_back(std::move(step));
    }
};

void Kernel::launch(const LaunchConfig& cfg, PyObject* const* args, size_t nargs, const ArgNames* names) const {
    if (nargs != params_.size())
        throw py::type_error("kernel '" + display_ + "' takes " + std::to_string(params_.size()) + " arguments, " +
                             std::to_string(nargs) + " given");
    check_config(cfg);
    if (cooperative_) check_cooperative(cfg);
    alignas(16) unsigned char buffer[kMaxParamBytes];
    void* ptrs[kMaxParamBytes / kSlot];
    Backend mine = cpu_ ? Backend::Cpu : Backend::Gpu;
    if (!cpu_ && ctx::current_device() != device_)
        throw LaunchError("kernel '" + display_ + "' was loaded on device " + std::to_string(device_) +
                          ", but device " + std::to_string(ctx::current_device()) +
                          " is current: compile it again for that device (a dispatcher does this by itself)");
    size_t off = 0;
    for (size_t i = 0; i < nargs; ++i) {
        const ParamSlot& s = params_[i];
        size_t need = s.kind == ParamSlot::Array ? 8 + 16 * s.ndim : 16;
        if (off + need > kMaxParamBytes) throw LaunchError("kernel '" + display_ + "': parameters exceed 32 KB");
        unsigned char* p = buffer + off;
        ptrs[i] = p;
        size_t used;
        try {
            used = pack_argument(p, s, args[i], mine, device_);
        } catch (const ArgumentError& e) {
            std::string message = "kernel '" + display_ + "': " + describe_argument(i, names) + ": " + e.message;
            PyErr_SetString(e.type, message.c_str());
            throw py::error_already_set();
        }
        off += (used + kSlot - 1) / kSlot * kSlot;
    }
    graph::Recording* rec = graph::on_stream_use(cfg.stream, device_, "launching kernel", display_);
    if (cpu_) {
        if (rec)
            capture_entry(rec, cfg, args, nargs, buffer, off, ptrs).add_to(rec);
        else
            run_cpu(cfg, ptrs);
        return;
    }
    // Built (and room made for it) before the launch: once the capture took the launch, adding it cannot fail.
    CaptureEntry captured = rec ? capture_entry(rec, cfg, args, nargs, buffer, off, ptrs) : CaptureEntry{};
    if (error_record_gpu_ && !rec && graph::is_capturing(cfg.stream, device_))
        throw CaptureError("kernel '" + display_ + "' was compiled with debug=True or boundscheck=True: it waits for "
                           "its stream after each launch to read its error record, which another library's stream "
                           "capture cannot record; capture it with cuda.graph, or compile it without debug checks");
    ctx::ensure();
    refresh();
    // A debug kernel's record is this launch's from its start until it is read: threads launching the same kernel
    // got each other's exceptions when launches and reads interleaved (issue 37).
    std::unique_lock<std::mutex> own;
    if (error_record_gpu_ && !rec) own = own_record(record_mutex_);
    if (cfg.shared_mem > dynamic_limit_set_) {
        CJ_CU(cuFuncSetAttribute, fn_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(cfg.shared_mem));
        dynamic_limit_set_ = cfg.shared_mem;
    }
    if (cooperative_) {
        if (!grid_barrier_) {
            size_t bytes = 0;
            grid_barrier_ = module_->global("cj_grid_barrier", &bytes);
        }
        CJ_CU(cuMemsetD8Async, grid_barrier_, 0, 2 * sizeof(unsigned), reinterpret_cast<CUstream>(cfg.stream));
    }
    CUfunction coarse = nullptr;
    if (!coarse_name_.empty() && takes_coarse(cfg, args, nargs)) coarse = coarse_function(cfg, rec != nullptr);
    if (coarse) {
        int32_t grid_x = static_cast<int32_t>(cfg.grid[0]);  // the user's grid: at most 2^31 - 1 blocks
        ptrs[nargs] = &grid_x;
        CJ_CU(cuLaunchKernel, coarse, (cfg.grid[0] - 1) / kCoarse + 1, 1, 1, cfg.block[0], 1, 1,
              static_cast<unsigned>(cfg.shared_mem), reinterpret_cast<CUstream>(cfg.stream), ptrs, nullptr);
        ++coarse_launches_;
    } else if (cooperative_)
        CJ_CU(cuLaunchCooperativeKernel, fn_, cfg.grid[0], cfg.grid[1], cfg.grid[2], cfg.block[0], cfg.block[1],
              cfg.block[2], static_cast<unsigned>(cfg.shared_mem), reinterpret_cast<CUstream>(cfg.stream), ptrs);
    else
        CJ_CU(cuLaunchKernel, fn_, cfg.grid[0], cfg.grid[1], cfg.grid[2], cfg.block[0], cfg.block[1], cfg.block[2],
              static_cast<unsigned>(cfg.shared_mem), reinterpret_cast<CUstream>(cfg.stream), ptrs, nullptr);
    if (rec) {
        captured.add_to(rec);  // only a launch the capture took keeps its arguments
    } else if (error_record_gpu_) {
        DebugRecord r = take_record(cfg);
        own.unlock();
        raise_recorded(r);
    }
}

void Kernel::set_coarse(std::string name, std::vector<int> read_only, py::object compile) {
    if (!module_) throw py::value_error("a coarsened entry is a GPU kernel's");
    for (int i : read_only)
        if (i < 0 || static_cast<size_t>(i) >= params_.size() || params_[i].kind != ParamSlot::Array)
            throw py::value_error("coarsened kernel '" + display_ + "': parameter " + std::to_string(i) +
                                  " is not an array parameter");
    if (params_.size() + 1 > kMaxParamBytes / kSlot)
        throw py::value_error("coarsened kernel '" + display_ + "': too many parameters");
    ctx::DeviceScope scope(device_);
    const DeviceLimits& L = device_limits();
    coarse_sms_ = static_cast<unsigned>(L.sms);
    coarse_threads_per_sm_ = static_cast<unsigned>(L.threads_per_sm);
    coarse_name_ = std::move(name);
    read_only_ = std::move(read_only);
    coarse_compile_ = std::move(compile);
}

// The coarsened entry, compiled and loaded the first time (nullptr: not now). Not while a stream capture is under
// way (loading a module there is not a stream operation a capture can take); a compile that fails is reported as
// a warning and the kernel keeps its plain entry.
CUfunction Kernel::coarse_function(const LaunchConfig& cfg, bool recording) const {
    if (coarse_fn_) return coarse_fn_;
    if (!coarse_compile_ || recording || graph::is_capturing(cfg.stream, device_)) return nullptr;
    py::object compile = std::move(coarse_compile_);
    coarse_compile_ = py::object();
    try {
        coarse_module_ = call_python(compile.ptr(), nullptr, 0).cast<std::shared_ptr<GpuModule>>();
        coarse_fn_ = coarse_module_->function(coarse_name_);
        apply_carveout(coarse_fn_);
    } catch (py::error_already_set& e) {
        std::string what = "cudajit: kernel '" + display_ + "' keeps its plain entry: compiling its coarsened one "
                           "failed (a cudajit bug; please report it): " + e.what();
        if (PyErr_WarnEx(PyExc_RuntimeWarning, what.c_str(), 1) < 0) throw py::error_already_set();
        coarse_module_.reset();
        return nullptr;
    }
    return coarse_fn_;
}

// A 1-d launch without dynamic shared memory of enough blocks to fill the GPU kCoarse times over four times (fewer
// would leave multiprocessors idle for the tail), whose read-only arrays share no byte with another array argument
// (the non-coherent loads would not see what the kernel writes there).
bool Kernel::takes_coarse(const LaunchConfig& cfg, PyObject* const* args, size_t nargs) const {
    if (cooperative_ || cfg.grid[1] != 1 || cfg.grid[2] != 1 || cfg.block[1] != 1 || cfg.block[2] != 1 ||
        cfg.shared_mem != 0)  // dynamic shared memory the kernel does not use: its limit is set on the plain entry
        return false;
    const unsigned per_sm = std::max(1u, coarse_threads_per_sm_ / std::max(1u, cfg.block[0]));  // blocks at once
    const unsigned long long resident = 1ull * coarse_sms_ * per_sm;
    if (cfg.grid[0] < 4ull * kCoarse * resident) return false;
    for (int r : read_only_) {
        const ArrayCore* ro = as_array(args[r]);
        if (ro->device < 0) return false;  // managed or mapped host memory: plain loads, as the user wrote them
        uintptr_t rlo, rhi;
        if (!array_span(ro, &rlo, &rhi)) continue;
        for (size_t j = 0; j < nargs; ++j) {
            if (static_cast<int>(j) == r || params_[j].kind != ParamSlot::Array) continue;
            if (std::find(read_only_.begin(), read_only_.end(), static_cast<int>(j)) != read_only_.end()) continue;
            uintptr_t lo, hi;
            if (array_span(as_array(args[j]), &lo, &hi) && lo < rhi && rlo < hi) return false;
        }
    }
    return true;
}

void Kernel::run_cpu(const LaunchConfig& cfg, void** ptrs) const {
    DebugRecord r{};
    {
        // Our own reference: at interpreter exit CPython may drop the kernel's Python owner (and so this Kernel)
        // while this daemon thread runs it; the library must stay mapped until the launch ends.
        std::shared_ptr<cpu::CpuKernel> running = cpu_;
        NoGil nogil;
        // A debug kernel's record is this launch's from its start until it is read (as on the GPU), and is read
        // also when the launch fails otherwise (Ctrl-C, a deadlock), so that no later launch reports it.
        std::unique_lock<std::mutex> own;
        if (error_record_cpu_) own = std::unique_lock<std::mutex>(record_mutex_);
        try {
            running->launch({cfg.grid[0], cfg.grid[1], cfg.grid[2]}, {cfg.block[0], cfg.block[1], cfg.block[2]},
                            cfg.shared_mem, ptrs, cooperative_);
        } catch (...) {
            if (error_record_cpu_) take_record(cfg);
            throw;
        }
        if (error_record_cpu_) r = take_record(cfg);
    }
    raise_recorded(r);
}

CaptureEntry Kernel::capture_entry(graph::Recording* rec, const LaunchConfig& cfg, PyObject* const* args,
                                   size_t nargs, const unsigned char* buffer, size_t bytes, void* const* ptrs) const {
    CaptureEntry e;
    e.keep.reserve(nargs);
    for (size_t i = 0; i < nargs; ++i) {
        Py_INCREF(args[i]);  // should making the shared_ptr throw, it calls its deleter: the reference is not lost
        e.keep.emplace_back(args[i], [](void* o) { Py_DECREF(static_cast<PyObject*>(o)); });
    }
    std::shared_ptr<const Kernel> self = shared_from_this();
    if (!cpu_ && error_record_gpu_)
        e.check = [self, cfg](uintptr_t stream) {
            LaunchConfig on = cfg;
            on.stream = stream;
            self->check_raised(on);
        };
    if (cpu_) {
        std::vector<size_t> offsets;
        for (size_t i = 0; i < nargs; ++i) offsets.push_back(static_cast<const unsigned char*>(ptrs[i]) - buffer);
        e.step = [self, cfg, params = std::vector<unsigned char>(buffer, buffer + bytes), offsets] {
            alignas(16) unsigned char replay[kMaxParamBytes];
            void* replay_ptrs[kMaxParamBytes / kSlot];
            std::memcpy(replay, params.data(), params.size());
            for (size_t i = 0; i < offsets.size(); ++i) replay_ptrs[i] = replay + offsets[i];
            self->run_cpu(cfg, replay_ptrs);
        };
    }
    rec->keep.reserve(rec->keep.size() + e.keep.size());
    if (e.check) rec->checks.reserve(rec->checks.size() + 1);
    if (e.step) rec->steps.reserve(rec->steps.size() + 1);
    return e;
}

Dispatcher::Dispatcher(py::object compile, py::object prepare, std::vector<std::string> params)
    : prepare_(std::move(prepare)), params_(std::move(params)) {
    if (PyMethod_Check(compile.ptr())) {
        owner_ = py::weakref(py::reinterpret_borrow<py::object>(PyMethod_GET_SELF(compile.ptr())));
        compile_ = py::reinterpret_borrow<py::object>(PyMethod_GET_FUNCTION(compile.ptr()));
    } else {
        compile_ = std::move(compile);
    }
}

namespace {

// The type code of one argument; a tuple contributes its length and then its elements' codes, a tuple subclass
// (a namedtuple) also its class, which the kernel's type names (p.x). Returns false for anything Python must convert first (NumPy arrays, foreign CUDA arrays, ...).
bool append_key(PyObject* o, DispatchKey* key, bool* has_tuple) {
    PyTypeObject* t = Py_TYPE(o);
    uint64_t code;
    if (t == &PyFloat_Type) code = uint64_t{4} << 56;
    else if (t == &PyLong_Type) code = uint64_t{3} << 56;
    else if (t == &PyBool_Type) code = uint64_t{2} << 56;
    else if (t == &PyComplex_Type) code = uint64_t{5} << 56;
    else if (ArrayCore* a = as_array(o)) {
        code = a->type_code();
        if (a->dtype == kOther) {
            // A record or datetime array: Python numbers its dtype; none (cuda.random's states) converts first.
            py::object number = py::getattr(o, "_cudajit_dtype_key", py::none());
            if (number.is_none()) return false;
            key->append(code);
            code = number.cast<uint64_t>();
        }
    }
    else if (uint64_t c = scalar_key_code(o)) code = c;
    else if (PyTuple_Check(o)) {
        *has_tuple = true;
        size_t n = PyTuple_GET_SIZE(o);
        code = (uint64_t{t == &PyTuple_Type ? 7u : 8u} << 56) | n;
        key->append(code);
        if (t != &PyTuple_Type) key->append(t);
        for (size_t i = 0; i < n; ++i)
            if (!append_key(PyTuple_GET_ITEM(o, i), key, has_tuple)) return false;
        return true;
    } else {
        return false;
    }
    key->append(code);
    return true;
}

}  // namespace

bool takes_as_is(PyObject* o) {
    if (PyTuple_Check(o)) return false;
    DispatchKey key;
    bool has_tuple = false;
    return append_key(o, &key, &has_tuple);
}

namespace {

// `prepare` names what it cannot convert; this is the backstop for a converter that let one through: TypeError
// naming the first argument the dispatcher cannot key.
void check_convertible(py::tuple args) {
    DispatchKey key;
    bool has_tuple = false;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args.ptr()); ++i) {
        PyObject* a = PyTuple_GET_ITEM(args.ptr(), i);
        if (!append_key(a, &key, &has_tuple))
            throw py::type_error("kernel argument " + std::to_string(i) + " of type " + Py_TYPE(a)->tp_name +
                                 " cannot be passed to a kernel (pass arrays, NumPy arrays or scalars)");
    }
}

// The arguments as a tuple, for Python (compile, prepare).
py::tuple tuple_of(PyObject* const* args, size_t nargs) {
    py::tuple t(nargs);
    for (size_t i = 0; i < nargs; ++i) PyTuple_SET_ITEM(t.ptr(), static_cast<Py_ssize_t>(i), Py_NewRef(args[i]));
    return t;
}

// A tuple argument is passed as its elements, one kernel parameter each (docs/INTERNALS.md).
void flatten(PyObject* o, std::vector<PyObject*>* out) {
    if (PyTuple_Check(o)) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); ++i) flatten(PyTuple_GET_ITEM(o, i), out);
    } else {
        out->push_back(o);
    }
}

}  // namespace

bool Dispatcher::make_key(PyObject* const* args, size_t nargs, DispatchKey* key, bool* has_tuple) const {
    const char backend = static_cast<char>(current_backend());
    key->append(backend);
    if (current_backend() == Backend::Gpu) {
        // A module is loaded in one device's context: each device has its own kernels.
        int32_t device = ctx::current_device();
        key->append(device);
    }
    *has_tuple = false;
    for (size_t i = 0; i < nargs; ++i)
        if (!append_key(args[i], key, has_tuple)) return false;
    return true;
}

std::shared_ptr<Kernel> Dispatcher::cached(const DispatchKey& key) {
    if (last_kernel_ && key.view() == last_key_) return last_kernel_;
    auto it = cache_.find(std::string(key.view()));
    if (it == cache_.end()) return nullptr;
    last_key_ = it->first;
    last_kernel_ = it->second;
    return last_kernel_;
}

void Dispatcher::set_extensions(py::object list, py::object extend) {
    if (!PyList_Check(list.ptr())) throw py::type_error("extensions must be a list");
    extensions_ = std::move(list);
    extend_ = std::move(extend);
}

void Dispatcher::call(const LaunchConfig& cfg, PyObject* const* args, size_t nargs) {
    // A launch that leaves out parameters with defaults is keyed and launched with the arguments given: each
    // argument's code delimits itself, so fewer arguments are another key, and its kernel (compiled by Python,
    // which types the rest as Omitted constants) takes no parameter for them. Python checks the count.
    if (extensions_ && PyList_GET_SIZE(extensions_.ptr()) > 0) {
        bool capturing = graph::is_capturing(cfg.stream, -1);
        launch_prepared(cfg, extend_(owner(), tuple_of(args, nargs), cfg.stream, py::arg("capture") = capturing));
        return;
    }
    launch_args(cfg, args, nargs);
}

void Dispatcher::launch_args(const LaunchConfig& cfg, PyObject* const* args, size_t nargs) {
    DispatchKey key;
    bool has_tuple;
    if (!make_key(args, nargs, &key, &has_tuple)) {
        convert_and_call(cfg, tuple_of(args, nargs));
        return;
    }
    std::shared_ptr<Kernel> k = cached(key);
    if (!k) {
        py::tuple call_args = tuple_of(args, nargs);
        py::object compiled;
        if (owner_) {
            py::object owner = owner_();
            if (owner.is_none()) {
                PyErr_SetString(PyExc_ReferenceError, "the kernel's dispatcher has been freed");
                throw py::error_already_set();
            }
            PyObject* argv[] = {owner.ptr(), call_args.ptr()};
            compiled = call_python(compile_.ptr(), argv, 2);  // interpreter exit mid-compile: parks (gil.h)
        } else {
            PyObject* argv[] = {call_args.ptr()};
            compiled = call_python(compile_.ptr(), argv, 1);
        }
        k = compiled.cast<std::shared_ptr<Kernel>>();
        std::string stored(key.view());
        cache_.emplace(stored, k);
        last_key_ = std::move(stored);
        last_kernel_ = k;
    }
    ArgNames names{&params_, args, nargs};
    if (has_tuple) {
        std::vector<PyObject*> flat;
        for (size_t i = 0; i < nargs; ++i) flatten(args[i], &flat);
        k->launch(cfg, flat.data(), flat.size(), &names);
        return;
    }
    k->launch(cfg, args, nargs, &names);
}

void Dispatcher::convert_and_call(const LaunchConfig& cfg, py::tuple args) {
    // NumPy arrays (copied in and back on the launch's stream, as Numba does) and foreign CUDA arrays. During a
    // stream capture the copies cannot be recorded: prepare then refuses NumPy arrays, naming the argument.
    bool capturing = graph::is_capturing(cfg.stream, -1);
    if (!capturing && call_with_host_arrays(cfg, args)) return;
    static PyObject* const capture_kw = Py_BuildValue("(s)", "capture");  // never released (interpreter exit)
    py::int_ stream(cfg.stream);
    PyObject* argv[] = {args.ptr(), stream.ptr(), Py_True};
    py::object prepared = call_python(prepare_.ptr(), argv, 2, capturing ? capture_kw : nullptr);
    launch_prepared(cfg, py::tuple(std::move(prepared)));
}

void Dispatcher::launch_prepared(const LaunchConfig& cfg, py::tuple prepared) {
    py::tuple converted = prepared[0];
    check_convertible(converted);
    py::object write_back = prepared[1];
    try {
        size_t n = PyTuple_GET_SIZE(converted.ptr());
        launch_args(cfg, n ? &PyTuple_GET_ITEM(converted.ptr(), 0) : nullptr, n);
    } catch (py::error_already_set&) {
        // A kernel that raised (debug=True) still hands back what it wrote, unlike Numba.
        if (!write_back.is_none()) write_back();  // error_already_set holds the exception meanwhile
        throw;
    }
    if (!write_back.is_none()) write_back();
}

void register_launch_types(py::module_& m) {
    g_array_core_type = reinterpret_cast<PyTypeObject*>(m.attr("ArrayCore").ptr());
}

void register_scalar_type(py::handle type, const std::string& typestr, uint32_t tag) {
    DtypeId d = dtype_id_of(typestr);
    if (d == kOther) throw py::value_error("register_scalar_type: '" + typestr + "' is not a scalar typestr");
    g_scalar_types.emplace_back(reinterpret_cast<PyTypeObject*>(type.ptr()),
                                (uint64_t{6} << 56) | (uint64_t{tag} << 8) | d);
}

}  // namespace cj

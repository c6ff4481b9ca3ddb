// Launching: loaded GPU modules, compiled kernels with their launch plans, and the dispatcher
// that maps a call's argument types to a compiled specialization without leaving C++.
#pragma once
#include <pybind11/pybind11.h>

#include "cuda_api.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cj {

namespace cpu { class CpuKernel; }
namespace graph { struct Recording; }

// A cubin or PTX image loaded into the primary context of this thread's current device. cuda.close() ends that
// context (and starts a new block_cache epoch): the module then loads its image again, in the device's new primary
// context, the next time a kernel of it is used, and never unloads the old handle (it went with its context).
class GpuModule {
 public:
    explicit GpuModule(const std::string& image);
    ~GpuModule();
    int device() const { return device_; }
    unsigned epoch() const { return epoch_; }
    // Loads the image again if the context it was loaded in has been closed since (call with the GIL held).
    void refresh();
    CUfunction function(const std::string& name) const;
    CUdeviceptr global(const std::string& name, size_t* bytes) const;  // a __device__ variable of the module

 private:
    void load();
    std::string image_;
    CUmodule mod_ = nullptr;
    int device_;
    unsigned epoch_ = 0;  // block_cache::epoch() when loaded
};

// How one kernel parameter is packed (docs/INTERNALS.md, "Kernel parameters").
struct ParamSlot {
    enum Kind : uint8_t { Array, Pointer, Scalar } kind;
    uint8_t ndim = 0;   // Array
    char code = 0;      // Scalar: one of "?bhilBHILefdFD" (NumPy's dtype.char)
};

// What names a launch's arguments in an error message: the kernel's parameter names and the call's arguments before
// tuples were flattened (argument i of Kernel::launch is a leaf of them). Read only when an argument is refused.
struct ArgNames {
    const std::vector<std::string>* params;
    PyObject* const* args;  // the call's arguments, nargs of them
    size_t nargs;
};

// A dispatch key (Dispatcher): the backend, the device and 8 bytes or more per argument. Built on the stack, so that
// a launch of up to 11 plain arguments allocates nothing; a longer key moves to the heap.
class DispatchKey {
 public:
    template <class T>
    void append(const T& value) {  // a fixed size: the copy compiles to one store
        if (!spilled_ && size_ + sizeof value <= sizeof inline_) {
            std::memcpy(inline_ + size_, &value, sizeof value);
            size_ += sizeof value;
            return;
        }
        if (!spilled_) heap_.assign(inline_, size_);
        spilled_ = true;
        heap_.append(reinterpret_cast<const char*>(&value), sizeof value);
    }
    std::string_view view() const { return spilled_ ? std::string_view(heap_) : std::string_view(inline_, size_); }

 private:
    char inline_[96];
    size_t size_ = 0;
    bool spilled_ = false;
    std::string heap_;
};

// The head of cj::ErrorRecord (kernels/cudajit/debug.h): where the first thread that raised was.
struct DebugRecord {
    int32_t code;  // 1 + the raise site; 0: none
    int32_t tid[3];
    int32_t ctaid[3];
    int32_t ndim;  // index errors: the array's dimensions (shape holds the first four)
    int64_t value[3];
    int64_t shape[4];
};

struct LaunchConfig {
    unsigned grid[3] = {1, 1, 1};
    unsigned block[3] = {1, 1, 1};
    size_t shared_mem = 0;
    uintptr_t stream = 0;
};

// One compiled specialization: the code (GPU function or CPU entry) and its parameter plan. Always held by a
// shared_ptr: a CPU capture's recorded launch keeps its kernel (graph_capture.h).
struct CaptureEntry;  // launch.cpp: what a launch into a capture adds to its recording

class Kernel : public std::enable_shared_from_this<Kernel> {
 public:
    // error_handler: None, or (kernels compiled with debug=True or boundscheck) a Python callable that the launch
    // calls with (site, tid, ctaid, values) when a thread raised (kernels/cudajit/debug.h); it raises the exception.
    // max_threads: the kernel's launch bound (0: none); the GPU knows it from the module, the CPU from here.
    Kernel(std::string name, std::vector<ParamSlot> params, std::shared_ptr<GpuModule> module,
           std::shared_ptr<cpu::CpuKernel> cpu, pybind11::object error_handler = pybind11::none(),
           int max_threads = 0);
    // args: exactly one Python object per parameter, already of the kinds the plan expects. names (optional) lets an
    // argument that cannot be packed be named by its parameter.
    void launch(const LaunchConfig& cfg, PyObject* const* args, size_t nargs, const ArgNames* names = nullptr) const;
    int attribute(CUfunction_attribute a) const;
    int max_potential_block_size(size_t dynamic_shared) const;
    const std::string& name() const { return name_; }
    bool is_cpu() const { return cpu_ != nullptr; }
    // Cooperative (the kernel uses cuda.cg.this_grid()): launched with cuLaunchCooperativeKernel, or on the CPU
    // with every block at once; a grid larger than max_cooperative_grid_blocks is refused before launching.
    bool cooperative() const { return cooperative_; }
    void set_cooperative(bool on) { cooperative_ = on; }
    // The most blocks of `block` threads (and dynamic_shared bytes) that can be co-resident: occupancy times
    // multiprocessors on the GPU, cpu::max_cooperative_blocks on the CPU.
    int max_cooperative_grid_blocks(const unsigned block[3], size_t dynamic_shared) const;
    int max_threads() const { return max_threads_; }
    // An elementwise kernel's coarsened entry (compiler/coarsen.py): `name` runs kCoarse of the grid's blocks per
    // block and takes the grid's x extent as one more parameter; `read_only` lists the parameters (array slots) it
    // loads through the non-coherent cache; `compile` returns the GpuModule that has it, called by the first launch
    // that takes it (so a kernel's first compile costs no more). launch() takes it for a large 1-d launch whose
    // read-only arrays overlap no other array argument.
    void set_coarse(std::string name, std::vector<int> read_only, pybind11::object compile);
    // cuda.jit(shared_memory_carveout=...): the preferred percentage of the unified L1/shared memory given to shared
    // memory (0..100), or -1 for the driver's default; set on each entry (plain, coarsened, and again after a
    // context reset). Nothing on the CPU.
    void set_shared_memory_carveout(int percent);
    int shared_memory_carveout() const { return carveout_; }
    unsigned long long coarse_launches() const { return coarse_launches_; }
    static constexpr unsigned kCoarse = 4;

 private:
    void check_config(const LaunchConfig& cfg) const;
    void refresh() const;  // after cuda.close(): the function and globals again, from the reloaded module
    void check_cooperative(const LaunchConfig& cfg) const;
    void check_raised(const LaunchConfig& cfg) const;
    DebugRecord take_record(const LaunchConfig& cfg) const;
    void raise_recorded(const DebugRecord& r) const;
    void run_cpu(const LaunchConfig& cfg, void** ptrs) const;
    bool takes_coarse(const LaunchConfig& cfg, PyObject* const* args, size_t nargs) const;
    CUfunction coarse_function(const LaunchConfig& cfg, bool recording) const;
    CaptureEntry capture_entry(graph::Recording* rec, const LaunchConfig& cfg, PyObject* const* args, size_t nargs,
                               const unsigned char* buffer, size_t bytes, void* const* ptrs) const;
    std::string name_;
    std::string display_;  // the Python name, for messages
    std::vector<ParamSlot> params_;
    std::shared_ptr<GpuModule> module_;
    int device_ = -1;  // the GPU its module is loaded on; -1 on the CPU
    mutable CUfunction fn_ = nullptr;
    std::string coarse_name_;
    std::vector<int> read_only_;            // coarse: parameter indices
    mutable CUfunction coarse_fn_ = nullptr;
    mutable pybind11::object coarse_compile_;                 // until the first launch that takes it
    mutable std::shared_ptr<GpuModule> coarse_module_;
    unsigned coarse_sms_ = 0, coarse_threads_per_sm_ = 0;  // the device's, read once by set_coarse
    int carveout_ = kNoCarveout;                             // set_shared_memory_carveout's, or none
    static constexpr int kNoCarveout = -2;
    void apply_carveout(CUfunction f) const;
    mutable unsigned long long coarse_launches_ = 0;
    mutable unsigned epoch_ = 0;  // the block_cache epoch fn_ and the globals belong to
    int max_threads_ = 1024;
    bool cooperative_ = false;
    int static_shared_ = 0;
    mutable size_t dynamic_limit_set_ = 48 * 1024;
    // The last configuration check_config passed (the limits it checks against never change for a kernel).
    mutable bool checked_ = false;
    mutable unsigned checked_grid_[3] = {0, 0, 0}, checked_block_[3] = {0, 0, 0};
    mutable size_t checked_shared_ = 0;
    std::shared_ptr<cpu::CpuKernel> cpu_;
    pybind11::object error_handler_;
    mutable CUdeviceptr error_record_gpu_ = 0;
    mutable CUdeviceptr grid_barrier_ = 0;   // cooperative kernels: cj_grid_barrier (thread.h), zeroed per launch
    void* error_record_cpu_ = nullptr;
    mutable std::mutex record_mutex_;  // held by the launch whose record it is, until take_record (issue 37)
};

// Maps argument types to compiled kernels. A call classifies each argument in C++ (our arrays,
// Python and NumPy scalars, tuples of them) into a key that starts with the backend and, on the GPU, the
// thread's current device (each device loads its own module); a hit launches at once. Other arguments (NumPy arrays,
// foreign CUDA arrays) go through Python's `prepare` first; a miss calls Python's `compile`.
class Dispatcher {
 public:
    // compile: usually a bound method of the Python dispatcher that owns this object. It is held as its
    // function and a weak reference to the owner: this object is invisible to the GC, so a strong bound
    // method would be a cycle never collected (every dispatcher immortal).
    // params: the kernel's parameter names, for messages only.
    Dispatcher(pybind11::object compile, pybind11::object prepare, std::vector<std::string> params = {});
    // Launches with the nargs arguments at args (a vectorcall's, not a tuple: a launch like the last one makes none).
    void call(const LaunchConfig& cfg, PyObject* const* args, size_t nargs);
    // The Python owner (None if compile was not a bound method); a configured launch holds it.
    pybind11::object owner() const { return owner_ ? owner_() : pybind11::none(); }
    void clear() { cache_.clear(); last_kernel_ = nullptr; last_key_.clear(); }
    size_t size() const { return cache_.size(); }
    // Numba's kernel extensions (CUDADispatcher.extensions): `list`, a Python list read at each launch; while it
    // holds any, every launch's arguments go through `extend(owner, args, stream, capture=...)` first, which gives
    // (converted args, write-back or None) as prepare does. The list is held strongly, unseen by the GC: an
    // extension that refers to its own kernel keeps both alive.
    void set_extensions(pybind11::object list, pybind11::object extend);

 private:
    // call() once the extensions (if any) have had the arguments.
    void launch_args(const LaunchConfig& cfg, PyObject* const* args, size_t nargs);
    // Launches prepare's or extend's (converted args, write-back) and then writes back, also when the kernel raised.
    void launch_prepared(const LaunchConfig& cfg, pybind11::tuple prepared);
    bool make_key(PyObject* const* args, size_t nargs, DispatchKey* key, bool* has_tuple) const;
    // The kernel compiled for `key`: the last one launched, or one in the cache (nullptr if none).
    std::shared_ptr<Kernel> cached(const DispatchKey& key);
    // Arguments Python must convert first (prepare): NumPy arrays, foreign CUDA arrays, ...
    void convert_and_call(const LaunchConfig& cfg, pybind11::tuple args);
    // host_args.cpp: a launch whose NumPy arguments are all plain (contiguous, a kernel dtype, each passed once),
    // copied in and back without Python; false, having done nothing, for any other (Python's prepare converts).
    bool call_with_host_arrays(const LaunchConfig& cfg, pybind11::tuple args);
    pybind11::object compile_, prepare_;
    pybind11::object extensions_, extend_;  // null until set_extensions
    std::vector<std::string> params_;
    pybind11::weakref owner_;  // empty: compile_ is called as it is
    std::unordered_map<std::string, std::shared_ptr<Kernel>> cache_;
    std::string last_key_;
    std::shared_ptr<Kernel> last_kernel_;
};

// True for an argument the dispatcher keys and packs as it is (a scalar, a device array): no conversion first.
bool takes_as_is(PyObject* o);

// The launch limits of a device: the GPU's (launch.cpp, from the driver) or the CPU backend's, which mirror a current
// NVIDIA GPU so that a configuration valid on one is valid on the other.
struct DeviceLimits {
    int max_grid[3];
    int max_block[3];
    int max_shared_optin;
    int sms, threads_per_sm;  // the GPU's multiprocessors and the threads each can hold
};
extern const DeviceLimits kCpuLimits;

// launch_config.cpp: a stream argument as a CUstream (the one normaliser), and the configuration of kernel[...].
uintptr_t stream_handle(pybind11::handle stream);
// Tells stream_handle the Python Stream class of cuda/streams.py, whose _handle it then reads directly.
void register_stream_type(pybind11::handle type);
LaunchConfig parse_config(pybind11::handle grid, pybind11::handle block, pybind11::handle stream,
                          pybind11::handle shared_mem);

// numba-cuda's performance warnings, issued by python/cudajit/cuda/perfwarnings.py (which reads cudajit.config):
// a launcher made for fewer than 128 blocks (bind_launch.cpp), `arrays` NumPy arrays copied implicitly (host_args.cpp).
// Raises (error_already_set) where a warnings filter makes the warning an error.
void warn_low_occupancy(const LaunchConfig& config);
void warn_implicit_copy(size_t arrays);

}  // namespace cj

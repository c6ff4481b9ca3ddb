#include "graph.h"

#include <exception>
#include <utility>

#include "context.h"
#include "driver.h"
#include "errors.h"
#include "memory.h"

namespace cj::graph {
namespace {

// Relaxed mode: cudajit's first launch of a kernel inside a capture compiles and loads its module
// (cuModuleLoadDataEx, cuFuncGetAttribute), and a pinned array may be allocated (cuMemHostAlloc): calls that
// GLOBAL and THREAD_LOCAL mode forbid on the capturing thread as "potentially unsafe", and GLOBAL also on every
// other thread. None of them is stream work the graph should contain. What would corrupt a capture (legacy
// stream use, synchronous or pageable copies, synchronizing debug checks) is refused by graph_capture.cpp.
constexpr CUstreamCaptureMode kCaptureMode = CU_STREAM_CAPTURE_MODE_RELAXED;

}  // namespace

Graph::~Graph() {
    abort();
    discard();
}

void Graph::begin(uintptr_t stream) {
    if (recording_)
        throw CaptureError("this graph is already capturing: finish that capture (leave its `with` block) first");
    bool cpu = current_backend() == Backend::Cpu;
    if (is_legacy_stream(stream))
        throw CaptureError("the legacy default stream cannot be captured into a CUDA graph: capture a stream "
                           "made with cuda.stream()");
    int device = cpu ? -1 : ctx::current_device();
    if (is_capturing(stream, device))
        throw CaptureError("the stream is already being captured into a CUDA graph: captures cannot be nested");
    auto r = std::make_unique<Recording>();
    r->stream = stream;
    r->device = device;
    r->cpu = cpu;
    // Registered before the driver's capture begins, so a failure on either side leaves neither behind.
    register_recording(r.get());
    if (!cpu) {
        try {
            ctx::DeviceScope scope(device);
            CJ_CU(cuStreamBeginCapture, reinterpret_cast<CUstream>(stream), kCaptureMode);
        } catch (...) {
            unregister_recording(r.get());
            throw;
        }
    }
    recording_ = std::move(r);
    failed_.clear();
}

namespace {

// A captured graph not yet handed to the Graph: destroyed if anything on the way throws.
struct CapturedGraph {
    CUgraph g = nullptr;
    ~CapturedGraph() {
        if (g && drv::available(nullptr)) drv::api().cuGraphDestroy(g);
    }
    CUgraph release() { return std::exchange(g, nullptr); }
};

// cuStreamEndCapture in the capture's device. Never throws, so that the recording is unregistered whatever
// happens: an exception (the device's context cannot be made current) is handed back in `error`, after the
// capture was ended anyway in the current context (a stream names its own context), so the stream is not left
// capturing.
CUresult end_capture(const Recording& r, CUgraph* captured, std::exception_ptr* error) noexcept {
    try {
        ctx::DeviceScope scope(r.device);
        return drv::api().cuStreamEndCapture(reinterpret_cast<CUstream>(r.stream), captured);
    } catch (...) {
        *error = std::current_exception();
    }
    if (drv::available(nullptr)) {
        CUgraph ended = nullptr;
        drv::api().cuStreamEndCapture(reinterpret_cast<CUstream>(r.stream), &ended);
        if (ended) drv::api().cuGraphDestroy(ended);
    }
    return CUDA_ERROR_UNKNOWN;
}

}  // namespace

void Graph::end() {
    if (!recording_) throw CaptureError("this graph is not capturing");
    std::unique_ptr<Recording> r = std::move(recording_);
    CapturedGraph captured;
    std::exception_ptr error;
    CUresult result = r->cpu ? CUDA_SUCCESS : end_capture(*r, &captured.g, &error);
    try {
        // After the capture ended: it frees what was deferred on the legacy stream. It removes the recording
        // before anything in it can throw, so `r` is never left registered.
        unregister_recording(r.get());
        if (r->cpu) {
            discard();
            cpu_ = true;
            cpu_ready_ = true;
            device_ = -1;
            nodes_ = r->steps.size();
            replay_ = std::move(*r);
            return;
        }
        if (error) std::rethrow_exception(error);
        if (result != CUDA_SUCCESS) {
            if (result == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
                throw CaptureError("the capture was invalidated by an operation that cannot be captured "
                                   "(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED): see the error raised inside the capture, "
                                   "or work another library put on the legacy default stream meanwhile");
            drv::check(result, "cuStreamEndCapture");
        }
        if (cpu_ || device_ != r->device) discard();
        cpu_ = false;
        device_ = r->device;
        instantiate_or_update(captured.release());
        replay_ = std::move(*r);
    } catch (...) {
        discard();
        failed_ = result == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED ? "its capture was invalidated"
                                                                  : "ending its capture failed";
        throw;
    }
}

void Graph::instantiate_or_update(CUgraph graph) {
    CapturedGraph captured{graph};
    ctx::DeviceScope scope(device_);
    const drv::Api& a = drv::api();
    size_t count = 0;
    CJ_CU(cuGraphGetNodes, captured.g, nullptr, &count);
    std::vector<CUgraphNode> nodes(count);
    CJ_CU(cuGraphGetNodes, captured.g, nodes.data(), &count);
    std::vector<CUgraphNodeType> types(count);
    for (size_t i = 0; i < count; ++i) CJ_CU(cuGraphNodeGetType, nodes[i], &types[i]);
    // An update is tried only where it can succeed: the same nodes, of the same kinds, as the instantiated graph
    // (another topology fails with CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, an error report under compute-sanitizer).
    CUgraphExecUpdateResultInfo info{};
    if (exec_ && types == node_types_ && a.cuGraphExecUpdate(exec_, captured.g, &info) == CUDA_SUCCESS) {
        a.cuGraphDestroy(graph_);
        graph_ = captured.release();
        nodes_ = count;
        updated_ = true;
        return;
    }
    discard();  // a failed update leaves the executable graph unusable: instantiate the new one
    graph_ = captured.release();
    CJ_CU(cuGraphInstantiate, &exec_, graph_, 0);
    nodes_ = count;
    node_types_ = std::move(types);
}

void Graph::abort() noexcept {
    if (!recording_) return;
    std::unique_ptr<Recording> r = std::move(recording_);
    if (!r->cpu && drv::available(nullptr)) {
        try {
            ctx::DeviceScope scope(r->device);
            CUgraph captured = nullptr;
            drv::api().cuStreamEndCapture(reinterpret_cast<CUstream>(r->stream), &captured);
            if (captured) drv::api().cuGraphDestroy(captured);
        } catch (...) {
        }
    }
    try {
        unregister_recording(r.get());
    } catch (...) {
    }
    discard();
    failed_ = "its capture failed";
}

void Graph::discard() noexcept {
    if ((exec_ || graph_) && drv::available(nullptr)) {
        try {
            ctx::DeviceScope scope(device_);
            if (exec_) drv::api().cuGraphExecDestroy(exec_);
            if (graph_) drv::api().cuGraphDestroy(graph_);
        } catch (...) {
        }
    }
    exec_ = nullptr;
    graph_ = nullptr;
    cpu_ready_ = false;
    nodes_ = 0;
    node_types_.clear();
    updated_ = false;
    replay_ = Recording();
}

void Graph::launch(uintptr_t stream) const {
    if (recording_)
        throw CaptureError("this graph is still being captured: launch it after its `with` block");
    if (!ready())
        throw CaptureError(failed_.empty() ? "this graph has not been captured yet: capture work into it with "
                                             "`with cuda.graph(stream) as g:` first"
                                           : "this graph cannot be launched: " + failed_ + "; capture it again");
    if ((current_backend() == Backend::Cpu) != cpu_)
        throw CaptureError(std::string("this graph was captured under the ") + (cpu_ ? "CPU" : "GPU") +
                           " backend, which is not the one in use");
    if (on_stream_use(stream, device_, "launching a graph"))
        throw CaptureError("launching a graph on a stream that is being captured is not supported by cudajit");
    if (cpu_) {
        for (const auto& step : replay_.steps) step();
        return;
    }
    {
        ctx::DeviceScope scope(device_);
        CJ_CU(cuGraphLaunch, exec_, reinterpret_cast<CUstream>(stream));
    }
    for (const auto& check : replay_.checks) check(stream);
}

}  // namespace cj::graph

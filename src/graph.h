// CUDA graphs captured from a stream (cuda.graph). GPU: the driver's stream capture (cuStreamBeginCapture in
// relaxed mode, see begin()), instantiated once and updated in place by a later capture of the same shape. CPU
// backend: the launches and copies of the capture are recorded (graph_capture.h) and replay runs them in order.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "cuda_api.h"
#include "graph_capture.h"

namespace cj::graph {

class Graph {
 public:
    Graph() = default;
    ~Graph();  // never throws
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;

    // Starts capturing `stream` on the current backend (and device). CaptureError for the legacy default stream,
    // a stream already being captured, or a graph already capturing.
    void begin(uintptr_t stream);
    // Ends the capture; the graph is then ready to launch. A graph launched before is updated in place when the
    // new capture has its topology (cuGraphExecUpdate), else instantiated again.
    void end();
    // Ends a capture that failed and discards the graph; the stream is usable again.
    void abort() noexcept;
    // Runs the captured work on `stream` (GPU; the CPU runs it at once), then the checks of debug kernels.
    void launch(uintptr_t stream) const;

    bool capturing() const { return recording_ != nullptr; }
    bool ready() const { return cpu_ ? cpu_ready_ : exec_ != nullptr; }
    size_t nodes() const { return nodes_; }       // kernel launches, copies, memsets captured
    bool updated() const { return updated_; }     // the last end() updated the instantiated graph in place

 private:
    void discard() noexcept;
    void instantiate_or_update(CUgraph captured);  // takes `captured` (destroyed if this throws)
    std::unique_ptr<Recording> recording_;  // while capturing
    Recording replay_;                      // the last capture's steps, checks and kept objects
    bool cpu_ = false;
    bool cpu_ready_ = false;
    int device_ = -1;
    CUgraph graph_ = nullptr;
    CUgraphExec exec_ = nullptr;
    size_t nodes_ = 0;
    std::vector<CUgraphNodeType> node_types_;  // exec_'s graph's nodes, in cuGraphGetNodes' order
    bool updated_ = false;
    std::string failed_;  // why the last capture failed, for launch()'s message
};

}  // namespace cj::graph

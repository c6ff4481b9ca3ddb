// Python surface of CUDA graphs (cuda.graph, python/cudajit/cuda/graphs.py); the logic is graph.cpp's.
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "gil.h"
#include "graph.h"

namespace py = pybind11;

namespace cj {

void bind_graph(py::module_& m) {
    using graph::Graph;
    py::class_<Graph>(m, "Graph")
        .def(py::init<>())
        .def("begin", &Graph::begin, py::arg("stream_handle"), "Starts capturing the stream.")
        .def("end", &Graph::end, "Ends the capture: instantiates the graph, or updates it in place.")
        .def("abort", &Graph::abort, "Ends a failed capture and discards the graph.")
        .def("launch", &Graph::launch, py::arg("stream_handle"), "Runs the captured work on the stream.")
        .def_property_readonly("capturing", &Graph::capturing)
        .def_property_readonly("ready", &Graph::ready)
        .def_property_readonly("nodes", &Graph::nodes)
        .def_property_readonly("updated", &Graph::updated);
}

}  // namespace cj

// Python surface of the disk cache's upkeep (python/cudajit/cache.py): its size, limit and clearing.
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "disk_cache.h"

namespace py = pybind11;

namespace cj {

void bind_cache(py::module_& m) {
    m.def("cache_size", [] { sync_settings(); return cache::size(); },
          "Bytes held by the disk cache's entries (0 when caching is off).");
    m.def("cache_size_limit", [] { sync_settings(); return cache::size_limit(); },
          "$CUDAJIT_CACHE_MAX in bytes (default 1 GiB).");
    m.def("cache_clear", [] { sync_settings(); return cache::clear(); },
          "Delete every entry of the disk cache; returns how many files went.");
}

}  // namespace cj

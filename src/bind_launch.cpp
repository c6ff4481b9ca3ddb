// Placeholder until this part lands; see bindings.h.
#include "bindings.h"
namespace cj {
void bind_launch(pybind11::module_&) {}
}  // namespace cj

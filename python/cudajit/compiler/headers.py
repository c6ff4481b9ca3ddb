"""Which parts of ``cudajit/runtime.h`` a generated unit needs, for NVRTC.

Parsing the whole runtime header is about a third of a small kernel's cold compile on the GPU. ``lean_flags(source)``
is ``-DCJ_LEAN=1`` and one ``-DCJ_WANT_<PART>=1`` per optional part the unit's code names, and runtime.h then leaves
the other parts out. The names are looked for in the text after the include (the kernel's own code): a part is wanted
when any of its names appears there, so a mention in a comment or a user's identifier only costs speed, never
correctness. A unit that a lean compile rejects is compiled again whole (``cuda/build.py``); under
``CUDAJIT_CHECK_NVRTC=1`` (CI) that is an error, so the test suite checks these names against every kernel it
compiles.

The CPU backend always parses the whole header (its precompiled header makes that cheap after the first kernel).
"""
from .program import LINKED_SOURCES_MARK

RUNTIME_INCLUDE = "#include <cudajit/runtime.h>"

# part -> names of its header (kernels/cudajit/<file>.h) that generated code uses, found as plain substrings (a
# warm start computes these flags for its cache key: no regular expressions to compile)
PARTS = {
    "HALF": ("half", "hfma", "hisinf"),
    "BFLOAT16": ("bfloat16", "bf16"),
    "FP8": ("fp8", "e8m0", "bfloat16_raw"),
    "DATETIME": ("datetime64", "timedelta64", "td_", "to_unit", "ticks_of", "unit_ratio"),
    "CMATH": ("complex", "cpow", "polar", "phase", "m::rect"),
    "ATOMICS": ("atomic_",),
    "CACHE_HINTS": ("ld_ca", "ld_cg", "ld_cs", "ld_lu", "ld_cv", "st_cg", "st_cs", "st_wb", "st_wt"),
    "RECORD": ("Record", "_field", "field_", "copy_bytes"),
    "RANDOM": ("xoro",),
    "REDUCE_RING": ("reduce_ring",),
    "LIBDEVICE": ("ld::",),
    "ARRAY_REDUCTIONS": ("array_all", "array_any", "array_argextremum", "array_count_nonzero", "array_extremum",
                         "array_mean", "array_nanextremum", "array_prod", "array_sum", "array_var", "empty_array"),
}


def wanted(code):
    """The optional parts that ``code`` names."""
    return [part for part, names in PARTS.items() if any(name in code for name in names)]


def lean_flags(source):
    """NVRTC's -D flags that leave out the runtime parts ``source``'s code does not name; None for a unit that must
    have the whole header (the user's CUDA C++ pasted in, or no runtime include)."""
    if LINKED_SOURCES_MARK in source:
        return None
    at = source.find(RUNTIME_INCLUDE)
    if at < 0:
        return None
    return ["-DCJ_LEAN=1"] + [f"-DCJ_WANT_{part}=1" for part in wanted(source[at + len(RUNTIME_INCLUDE):])]

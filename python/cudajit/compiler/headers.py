"""Which parts of ``cudajit/runtime.h`` a generated unit needs, for NVRTC.

Parsing the whole runtime header is about a third of a small kernel's cold compile on the GPU. ``lean_flags(source)``
is ``-DCJ_LEAN=1`` and one ``-DCJ_WANT_<PART>=1`` per optional part the unit's code names, and runtime.h then leaves
the other parts out. The names are found in the text
after the include (the kernel's own code): a part is wanted when any of its names appears there, so a mention in a
comment or a user's identifier only costs speed, never correctness. A unit that a lean compile rejects is compiled
again whole (``cuda/build.py``); under ``CUDAJIT_CHECK_NVRTC=1`` (CI) that is an error, so the test suite checks
these patterns against every kernel it compiles.

The CPU backend always parses the whole header (its precompiled header makes that cheap after the first kernel).
"""
import re

from .program import LINKED_SOURCES_MARK

RUNTIME_INCLUDE = "#include <cudajit/runtime.h>"

# part -> the names of its header (kernels/cudajit/<file>.h) that generated code uses
PARTS = {
    "HALF": r"\bhalf\b|\bhfma\b|\bhisinf\b",
    "BFLOAT16": r"bfloat16|\bbf16\b",
    "FP8": r"fp8|e8m0|bfloat16_raw",
    "DATETIME": r"datetime64|timedelta64|\btd_|\bto_unit\b|\bticks_of\b|\bunit_ratio\b",
    "CMATH": r"complex|\bcpow\b|\bpolar|\bphase\b|\brect\b",
    "ATOMICS": r"\batomic_",
    "CACHE_HINTS": r"\b(?:ld|st)_(?:ca|cg|cs|lu|cv|wb|wt)\b",
    "RECORD": r"Record|_field\b|\bfield_|copy_bytes",
    "RANDOM": r"xoro",
    "REDUCE_RING": r"reduce_ring",
    "ARRAY_REDUCTIONS": r"\barray_(?:all|any|argextremum|count_nonzero|extremum|mean|nanextremum|prod|sum|var)\b"
                        r"|\bempty_array\b",
}
_FIND = {part: re.compile(pattern) for part, pattern in PARTS.items()}


def wanted(code):
    """The optional parts that ``code`` names."""
    return [part for part, pattern in _FIND.items() if pattern.search(code)]


def lean_flags(source):
    """NVRTC's -D flags that leave out the runtime parts ``source``'s code does not name; None for a unit that must
    have the whole header (the user's CUDA C++ pasted in, or no runtime include)."""
    if LINKED_SOURCES_MARK in source:
        return None
    at = source.find(RUNTIME_INCLUDE)
    if at < 0:
        return None
    return ["-DCJ_LEAN=1"] + [f"-DCJ_WANT_{part}=1" for part in wanted(source[at + len(RUNTIME_INCLUDE):])]

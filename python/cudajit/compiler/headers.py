"""Which optional parts of ``cudajit/runtime.h`` a generated unit needs, for NVRTC.

Parsing the whole runtime header is about a third of a small kernel's cold compile on the GPU. The translator
records what each function needs as it emits its code (``FunctionState.need``/``need_type``): the part an
intrinsic declares (``@intrinsic(part=...)``: atomics, cache hints, random, libdevice, array reductions, cuda.reduce's
ring) and the parts the types of its values, variables, parameters and result need (``type_parts``: half, bfloat16,
fp8, datetime, complex, records). program.py writes the unit's union as one line before the runtime include
(``parts_line``); ``lean_flags(source)`` turns that line into ``-DCJ_LEAN=1`` and one ``-DCJ_WANT_<PART>=1`` per part,
and runtime.h leaves the other parts out. A unit without the line (the user's CUDA C++ pasted in, text not made by
program.py) gets the whole header. A unit that a lean compile rejects is compiled again whole (``cuda/build.py``);
under ``CUDAJIT_CHECK_NVRTC=1`` (CI) that is an error, so the test suite checks the records against every kernel it
compiles.

The CPU backend always parses the whole header (its precompiled header makes that cheap after the first kernel).
"""
from . import types as T

RUNTIME_INCLUDE = "#include <cudajit/runtime.h>"

# Marks a unit with the user's CUDA C++ pasted in (cuda.jit(link=[...]) sources). Such code may include CUB or
# CUDA's runtime API, so the unit then takes its fixed-width integers from CCCL (config.h) and compiles without
# NVRTC's -minimal (build.py) and with the whole runtime header; a unit without it parses neither, about a third of
# a small kernel's compile time.
LINKED_SOURCES_MARK = "#define CJ_LINKED_SOURCES 1"

# the optional parts, as runtime.h names them (CJ_WANT_<part>), each with the header of kernels/cudajit/ it includes
PARTS = {
    "HALF": "half.h", "BFLOAT16": "bfloat16.h", "FP8": "fp8.h", "DATETIME": "datetime.h", "CMATH": "cmathfuncs.h",
    "ATOMICS": "atomics.h", "CACHE_HINTS": "cache_hints.h", "RECORD": "record.h", "RANDOM": "random.h",
    "REDUCE_RING": "reduce_ring.h", "LIBDEVICE": "libdevice.h", "ARRAY_REDUCTIONS": "array_reductions.h",
}

PARTS_MARK = "// cudajit: runtime parts:"

_OF_TYPE = {}


def type_parts(t):
    """The parts a value of type ``t`` needs: its own and those of the types it is made of (an array's dtype, a
    tuple's elements, a record's fields)."""
    try:
        return _OF_TYPE[t]
    except KeyError:
        pass
    except TypeError:           # an unhashable stand-in
        return frozenset(_type_parts(t))
    out = _OF_TYPE[t] = frozenset(_type_parts(t))
    return out


def _type_parts(t):
    if isinstance(t, T.BFloat16):
        return {"BFLOAT16"}
    if isinstance(t, T.Float) and t.bitwidth == 16:
        return {"HALF"}
    if isinstance(t, (T.FP8, T.FP8Vector, T.BFloat16Raw)):
        return {"FP8"}
    if isinstance(t, T.Complex):
        return {"CMATH"}
    if isinstance(t, T.NPTime):
        return {"DATETIME"}
    if isinstance(t, T.Record):
        out = {"RECORD"}
        for field in t.fields.values():
            out |= type_parts(field[0])
        return out
    if isinstance(t, (T.Array, T.CPointer)):
        return set(type_parts(t.dtype))
    if isinstance(t, T.ArrayCTypes):
        return set(type_parts(t.array))
    if isinstance(t, T.Optional):
        return set(type_parts(t.type))
    if isinstance(t, T.BaseTuple):
        return set().union(*map(type_parts, t.types))
    if isinstance(t, (T.EnumMember, T.DType)) and isinstance(getattr(t, "dtype", None), T.Type):
        return set(type_parts(t.dtype))
    return set()


def parts_line(parts):
    """The line program.py writes before the runtime include: the unit's recorded parts, in PARTS' order."""
    return " ".join([PARTS_MARK] + [p for p in PARTS if p in parts])


def lean_flags(source):
    """NVRTC's -D flags that leave out the runtime parts ``source``'s functions did not record; None for a unit
    that must have the whole header (no parts line: the user's CUDA C++ pasted in, or not program.py's text)."""
    if LINKED_SOURCES_MARK in source:
        return None
    at = source.find(PARTS_MARK)
    if at < 0 or source.find(RUNTIME_INCLUDE, at) < 0:
        return None
    names = source[at + len(PARTS_MARK):source.index("\n", at)].split()
    return ["-DCJ_LEAN=1"] + [f"-DCJ_WANT_{part}=1" for part in names]

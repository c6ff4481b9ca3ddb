"""The options of ``cuda.jit``, each declared once (issue 39; numba-cuda's ``Option(type, default, doc)`` of
core/targetconfig.py is the model): its default, its doc, the check of its value, whether the compiled code depends
on it (a field of ``CompileOptions``, generated from this table, and so part of every cache key) and the NVRTC and
host-compiler flags it adds. ``cuda.jit`` validates and documents itself from ``OPTIONS`` (``check``, ``docs``,
``signature``); ``cuda.compile``/``compile_ptx`` check their options of the same name with the same entries;
``cuda/build.py`` takes the flags from ``nvrtc_flags``/``host_flags``.

An option whose check needs an upper layer (``link``: cuda/ffi.py's file types) has it installed by that layer
(``install_check``), which imports this module, never the other way round. A module of the package's base, beside
``settings``: the compiler and the user API both import it, and it imports neither (nor anything heavy: ``cuda.jit``
runs at import time of user code).
"""
import dataclasses
import inspect
import types
from typing import Any, Callable, Optional

from . import _backend, settings

INT32_MAX = 2**31 - 1     # CUDA takes launch numbers and these options as C ints


@dataclasses.dataclass
class Option:
    name: str
    default: Any
    doc: str
    check: Optional[Callable[[Any, str], Any]] = None   # (value, "cuda.jit(name=...)") -> the value held; raises
    compiled: bool = True           # a field of CompileOptions (False: the dispatcher's own, or folded into another)
    nvrtc: Optional[Callable] = None    # (value, options) -> NVRTC flags
    host: Optional[Callable] = None     # (value, options) -> host compiler flags
    default_of: Optional[Callable[[], Any]] = None   # the default when not given, read when decorated (else default)


def _flag(value, what):
    if not (isinstance(value, int) and value in (0, 1)):      # True, False, 1, 0
        raise TypeError(f"{what} must be True or False, not {value!r:.60}")
    return bool(value)


def _flag_or_none(value, what):
    """None: the backend's (or numba-cuda's) default, decided later."""
    if not (value is None or isinstance(value, int) and value in (0, 1)):
        raise TypeError(f"{what} must be True, False or None, not {value!r:.60}")
    return None if value is None else bool(value)


def _debug(value, what):
    """None: numba-cuda's default, ``config.CUDA_DEBUGINFO_DEFAULT`` (NUMBA_CUDA_DEBUGINFO) when decorated."""
    from . import config
    return bool(config.CUDA_DEBUGINFO_DEFAULT) if value is None else _flag(value, what)


def _inline(value, what):
    if value not in (True, False, "always", "never"):
        raise ValueError(f"{what} must be True, False, 'always' or 'never', not {value!r:.60}")
    return value in (True, "always")


def _positive_int(value, what):
    try:
        if isinstance(value, bool):
            raise TypeError
        n = value.__index__()
    except (AttributeError, TypeError):      # no __index__, or NumPy's for an array of more than one element
        raise TypeError(f"{what} must be a positive int, not {value!r:.60}") from None
    if not 0 < n <= INT32_MAX:              # CUDA takes these as C ints
        raise ValueError(f"{what} must be a positive int of at most 2**31 - 1, not {value!r:.60}")
    return n


def _max_registers(value, what):
    return None if value is None else _positive_int(value, what)


def _launch_bounds(value, what):
    """None, max threads per block, or a tuple (max threads, min blocks per multiprocessor, max blocks per cluster)
    of 1 to 3 positive ints, as numba-cuda takes it."""
    if value is None:
        return None
    if isinstance(value, tuple):
        if not 1 <= len(value) <= 3:
            # numba-cuda's words first (its nvvm.set_launch_bounds)
            raise ValueError(f"Got {len(value)} launch bounds: {value!r:.60}. {what} must be an int or a tuple of 1 "
                             f"to 3 ints: (max_threads_per_block, min_blocks_per_sm, max_blocks_per_cluster)")
        return tuple(_positive_int(v, what + " entries") for v in value)
    if not hasattr(value, "__index__"):
        raise TypeError(f"{what} must be an int or a tuple of 1 to 3 ints, not {value!r:.60}")
    return _positive_int(value, what)


_CARVEOUTS = {"default": -1, "maxl1": 0, "maxshared": 100}


def _carveout(value, what):
    """A percentage of the unified L1/shared memory for shared memory: numba-cuda's names and checks."""
    if value is None:
        return None
    if isinstance(value, str):
        if value.lower() not in _CARVEOUTS:
            raise ValueError(f"Invalid carveout value: {value}. {what} must be -1 to 100 or one of "
                             f"{sorted(_CARVEOUTS)}")
        return _CARVEOUTS[value.lower()]
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"shared_memory_carveout must be str or int, got {type(value).__name__}")
    if not -1 <= value <= 100:
        raise ValueError(f"Carveout must be between -1 and 100: {what[:-4]}{value})")
    return int(value)


def _accepted(value, what):
    return value


def _lineinfo_nvrtc(value, o):
    return ["-lineinfo"] if value and not o.debug else []      # -G carries the line information already


def _opt_nvrtc(value, o):
    # NVRTC itself always optimises device code; numba-cuda's opt=False (NVVM -opt=0) also leaves a * b + c
    # unfused, which changes results, so that part is matched
    return ["-Xptxas=-O0", "--fmad=false"] if value is False else []


# numba-cuda's fastmath is flush-to-zero, approximate division/sqrt and contraction; it keeps NaN and inf, so
# math.isnan still works. Not -ffast-math itself on the host: it assumes finite values, and g++ then links
# crtfastmath.o into the kernel library, which sets flush-to-zero for the whole Python process on load.
_HOST_FASTMATH = ["-fno-signed-zeros", "-fno-trapping-math", "-fassociative-math", "-freciprocal-math",
                  "-ffp-contract=fast"]


OPTIONS = (
    Option("device", False, "True makes a device function: called from kernels, may return a value, never launched.",
           _flag, compiled=False),
    Option("inline", False, "True (or ``\"always\"``) inlines a device function into its callers (``forceinline``: "
           "the same).", _inline),
    Option("forceinline", False, "True: as ``inline=True``.", _flag, compiled=False),
    Option("link", (), "code whose functions ``cuda.declare_device`` declares: CUDA C++ (``.cu`` files, "
           "``cuda.CUSource``) compiled with the kernel, or GPU code (``.ptx``, ``.cubin``, ``.fatbin``, ``.o``, "
           "``.a``, ``.ltoir`` and ``cuda.PTXSource``, ``cuda.LTOIR`` ...) linked by nvJitLink (GPU only)."),
    Option("debug", None, "True turns a failed ``assert``, a ``raise`` or an out-of-range index in the kernel into "
           "that Python exception on the host, naming the thread and the file:line; implies bounds checks.",
           _debug, nvrtc=lambda v, o: ["-G"] if v else [], host=lambda v, o: ["-g", "-O0"] if v else [],
           default_of=lambda: _debug(None, "debug")),
    Option("opt", True, "False compiles without optimisation (default True).", _flag, nvrtc=_opt_nvrtc),
    Option("lineinfo", False, "True keeps source line information for profilers (Nsight Compute) without debug "
           "checks.", _flag, nvrtc=_lineinfo_nvrtc),
    Option("cache", False, "accepted for compatibility: compiled code is always cached on disk "
           "(``CUDAJIT_CACHE_DIR``).", _flag, compiled=False),
    Option("fastmath", False, "True allows fast, less exact float math (flush denormals, approximate division and "
           "sqrt, fused multiply-add), as NVRTC's ``--use_fast_math``.", _flag,
           nvrtc=lambda v, o: ["--use_fast_math"] if v else [], host=lambda v, o: _HOST_FASTMATH if v else []),
    Option("max_registers", None, "an upper bound on the registers per thread (NVRTC ``--maxrregcount``).",
           _max_registers, nvrtc=lambda v, o: [f"--maxrregcount={v}"] if v else []),
    Option("launch_bounds", None, "the largest block the kernel will be launched with, or ``(max_threads, "
           "min_blocks)``, as CUDA's ``__launch_bounds__`` (it lets the compiler budget registers for that block "
           "size).", _launch_bounds),
    Option("boundscheck", None, "True checks every array index (IndexError on the host, naming the kernel, "
           "file:line, thread, index, axis and shape), False never; None (the default) checks with ``debug=True`` "
           "and on the CPU backend (where a stray write would crash the interpreter), not on the GPU. "
           "``CUDAJIT_BOUNDSCHECK=0|1``, read when ``cuda.jit`` runs, overrides the option and ``debug``, as "
           "NUMBA_BOUNDSCHECK does in Numba.", _flag_or_none),
    Option("lto", None, "a kernel and its device functions are one NVRTC unit, optimised whole, with or without it; "
           "True lets ``inspect_lto_ptx()`` give that unit's PTX, as numba-cuda gives its PTX after link-time "
           "optimisation.", _flag_or_none, compiled=False),
    Option("shared_memory_carveout", None, "how the GPU splits its unified L1 cache and shared memory for this "
           "kernel: a percentage of it for shared memory (0 to 100), -1 or ``\"default\"`` for the driver's choice, "
           "``\"MaxL1\"`` (0) or ``\"MaxShared\"`` (100), as numba-cuda takes it; a hint to the driver. Nothing on "
           "the CPU backend.", _carveout),
    Option("extensions", None, "Numba's kernel extensions, objects whose ``prepare_args`` sees each argument at each "
           "launch (see ``CUDADispatcher.extensions``).", _accepted, compiled=False),
    Option("nopython", True, "accepted for compatibility and ignored, as in numba-cuda.", _accepted, compiled=False),
)
BY_NAME = {o.name: o for o in OPTIONS}

# numba-cuda's first API: DeprecationError, as numba-cuda raises it
REMOVED = ("argtypes", "restype", "bind")


def install_check(name, check):
    """The check of option ``name`` from the layer that knows its values (cuda/ffi.py: ``link``)."""
    BY_NAME[name].check = check


def check(given, fn="cuda.jit"):
    """Every option's value, checked: those in ``given`` (a dict of keyword arguments) as their check holds them,
    the rest their defaults. Unknown names are a TypeError."""
    unknown = sorted(set(given) - set(BY_NAME))
    if unknown:
        raise TypeError(f"{fn} got unexpected options: {', '.join(unknown)}")
    out = {}
    for o in OPTIONS:
        if o.name in given:
            out[o.name] = o.check(given[o.name], f"{fn}({o.name}=...)") if o.check else given[o.name]
        else:
            out[o.name] = o.default_of() if o.default_of else o.default
    return out


def compile_options(values, **overrides):
    """The CompileOptions of checked ``values`` (``check``'s dict, or a part of it: the rest their defaults);
    ``inline`` takes ``forceinline`` in."""
    fields = {name: values.get(name, held) for name, held in held_defaults()}
    fields["inline"] = bool(fields["inline"] or values.get("forceinline"))
    fields.update(overrides)
    return CompileOptions(**fields)


def nvrtc_flags(options):
    """The NVRTC flags CompileOptions ``options`` add (bounds checks add none: they are in the source)."""
    return [f for o in OPTIONS if o.compiled and o.nvrtc for f in o.nvrtc(getattr(options, o.name), options)]


def host_flags(options):
    """The host compiler's flags CompileOptions ``options`` add."""
    return [f for o in OPTIONS if o.compiled and o.host for f in o.host(getattr(options, o.name), options)]


def docs(indent="      "):
    """The "Options" part of ``cuda.jit``'s docstring: each option's doc, wrapped."""
    import textwrap
    lines = []
    for o in OPTIONS:
        lines += textwrap.wrap(f"{o.name}: {o.doc}", 116, initial_indent=indent, subsequent_indent=indent + "  ")
    return "\n".join(lines)


def signature(first="func_or_sig"):
    """``cuda.jit``'s signature for help() and inspect: the first parameter, then every option with its default."""
    params = [inspect.Parameter(first, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)]
    params += [inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, default=o.default) for o in OPTIONS]
    return inspect.Signature(params)


def held_defaults():
    """(name, value held when not given) of CompileOptions' fields, in the table's order: each default as its check
    holds it (``debug=None`` is off)."""
    return [(o.name, o.check(o.default, o.name) if o.check else o.default) for o in OPTIONS if o.compiled]


def _for_backend(self, backend):
    """These options for ``backend`` (a _backend.Backend, or its name): ``target`` set and ``boundscheck`` decided
    (given, else on with ``debug``, else the backend's default)."""
    backend = _backend.BACKENDS.get(backend, backend)
    check = self.boundscheck if self.boundscheck is not None else self.debug or backend.checks_by_default
    return dataclasses.replace(self, boundscheck=check, target=backend.name)


def _reports_errors(self):
    """The unit has an error record: raises (debug) or index checks reach the host."""
    return bool(self.debug or self.boundscheck)


def _post_init(self):
    if self.inline == "always":                      # Numba's spelling of True
        object.__setattr__(self, "inline", True)


# The options the compiled code depends on, one frozen object read by the compiler and the build alike: a field per
# compiled option of the table (its default as held: held_defaults), and ``target`` ('cpu' or 'gpu' once
# ``for_backend`` has run). ``boundscheck``: True/False as given to ``cuda.jit`` (or forced by
# ``CUDAJIT_BOUNDSCHECK``), None for the default; ``for_backend`` settles None: checks with ``debug=True``, else on
# the CPU backend (a stray write there kills the interpreter), not on the GPU (Numba's default).
CompileOptions = dataclasses.make_dataclass(
    "CompileOptions",
    [(name, Any, dataclasses.field(default=held)) for name, held in held_defaults()] + [("target", str, "")],
    frozen=True,
    namespace={"for_backend": _for_backend, "reports_errors": property(_reports_errors), "__post_init__": _post_init,
               "__doc__": "The options of ``cuda.jit`` that the compiled code depends on (cudajit/jitoptions.py).",
               "__module__": __name__})


def env_boundscheck():
    """``CUDAJIT_BOUNDSCHECK``: '0' or '1' forces bounds checks off or on for every kernel (NUMBA_BOUNDSCHECK's
    meaning: it overrides the decorator); unset or empty leaves each kernel's ``boundscheck`` option; anything else
    warns, as Numba does of a malformed NUMBA_* variable, and is ignored."""
    return settings.value("CUDAJIT_BOUNDSCHECK", stacklevel=4)


def python_function(pyfunc, what):
    """``pyfunc`` if it is a Python function cudajit can compile from its source (a def or a lambda); else a
    TypeError naming what it is (a builtin, a class or a partial failed later with "no attribute '__code__'")."""
    if not isinstance(getattr(pyfunc, "__code__", None), types.CodeType):
        kind = f"class {pyfunc.__name__}" if isinstance(pyfunc, type) else type(pyfunc).__name__
        raise TypeError(f"{what} compiles a Python function (a def or a lambda), not {kind} {pyfunc!r:.60}")
    return pyfunc

"""The checks of the options that cuda.jit, cuda.compile and cuda.reduce take: each option's value is checked once,
here, and the modules that take options (dispatcher.py, ptx.py, reduction.py) import them from this module, which
imports nothing of theirs (issue 39: dispatcher.py and ptx.py imported each other for these)."""
import types

from .. import settings


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


INT32_MAX = 2**31 - 1     # CUDA takes launch numbers and these options as C ints


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


def max_registers(value):
    """``cuda.jit(max_registers=...)``: None, or the registers per thread NVRTC may use (a positive int)."""
    return None if value is None else _positive_int(value, "cuda.jit(max_registers=...)")


def launch_bounds(value, fn="cuda.jit"):
    """``cuda.jit(launch_bounds=...)``: None, max threads per block, or a tuple (max threads, min blocks per
    multiprocessor, max blocks per cluster) of 1 to 3 positive ints, as numba-cuda takes it."""
    what = f"{fn}(launch_bounds=...)"
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


def carveout(value):
    """``cuda.jit(shared_memory_carveout=...)`` as a percentage: numba-cuda's names and checks."""
    if value is None:
        return None
    if isinstance(value, str):
        if value.lower() not in _CARVEOUTS:
            raise ValueError(f"Invalid carveout value: {value}. cuda.jit(shared_memory_carveout=...) must be -1 to "
                             f"100 or one of {sorted(_CARVEOUTS)}")
        return _CARVEOUTS[value.lower()]
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"shared_memory_carveout must be str or int, got {type(value).__name__}")
    if not -1 <= value <= 100:
        raise ValueError(f"Carveout must be between -1 and 100: cuda.jit(shared_memory_carveout={value})")
    return int(value)

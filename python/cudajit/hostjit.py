"""``cudajit.jit`` / ``cudajit.njit``: Numba's CPU decorators, for programs that change only their import.

cudajit compiles for CUDA only. A function decorated with ``@jit``/``@njit`` (any of Numba's forms: bare, with
signatures, with options) is what numba-cuda makes of a ``@numba.jit`` function that a kernel calls: a device
function compiled from its Python. Called on the host it runs as plain Python, with a one-time
``NumbaPerformanceWarning`` saying so, so that a tutorial's CPU helper still gives its answer. ``prange`` is
``range``.
"""
import functools
import warnings

from .errors import NumbaPerformanceWarning


class HostJitFunction:
    """A ``@jit``/``@njit`` function: a device function in kernels, its Python on the host (``py_func``)."""

    def __init__(self, pyfunc):
        functools.update_wrapper(self, pyfunc)
        self.py_func = pyfunc
        self.__cudajit_pyfunc__ = pyfunc      # what the compiler calls as a device function
        self.__cudajit_options__ = None
        self._warned = False

    def __call__(self, *args, **kwargs):
        if not self._warned:
            self._warned = True
            warnings.warn(f"cudajit compiles for CUDA only: the @jit function {self.__name__!r} runs as plain "
                          f"Python on the host (in kernels it is a device function)", NumbaPerformanceWarning,
                          stacklevel=2)
        return self.py_func(*args, **kwargs)

    def __reduce__(self):
        # a kernel that calls it compiles its Python where it is unpickled: the source travels (cuda/dispatcher.py)
        from .cuda.dispatcher import pickled_function
        return _rebuild, pickled_function(self.py_func, self)


def _rebuild(payload, source):
    from .cuda.dispatcher import unpickled_function
    return HostJitFunction(unpickled_function(payload, source))


def jit(signature_or_function=None, **options):
    """``@jit``, ``@jit(signatures)``, ``@jit(nopython=True, cache=True, ...)``: options and signatures are
    Numba's CPU compiler's and change nothing here."""
    if callable(signature_or_function) and not isinstance(signature_or_function, (str, list, tuple)):
        return HostJitFunction(signature_or_function)
    return HostJitFunction


njit = jit

# Numba: "In non-parallel contexts, prange is identical to range"; nothing here runs a loop in parallel.
prange = range

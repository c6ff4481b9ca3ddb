"""numba-cuda's two performance warnings (config.CUDA_LOW_OCCUPANCY_WARNINGS, config.CUDA_WARN_ON_IMPLICIT_COPY; both
off under config.DISABLE_PERFORMANCE_WARNINGS), on both backends so that a program shows the same warnings wherever
it runs. The C++ launch path calls them (src/bind_launch.cpp when it makes a launcher, src/host_args.cpp when it
copies NumPy arrays) and so does args.py's Python path; each warning is attributed to the user's line.

The warning is a cudajit.errors.NumbaPerformanceWarning and, when numba is imported, also numba's class of the same
name, so the filter a tutorial sets with ``from numba.core.errors import NumbaPerformanceWarning`` silences it.
"""
import sys
import warnings

from .. import config
from ..errors import _PACKAGE_DIR, NumbaPerformanceWarning   # cudajit's folder: its frames are not the user's
_MIN_GRID = 128      # numba-cuda's threshold: about the SM count of the largest GPUs, below which a grid leaves SMs idle
_both = {}           # numba's class -> the class that is both it and ours


def _category():
    numba_errors = sys.modules.get("numba.core.errors")
    theirs = getattr(numba_errors, "NumbaPerformanceWarning", None)
    if not isinstance(theirs, type) or not issubclass(theirs, Warning) or issubclass(NumbaPerformanceWarning, theirs):
        return NumbaPerformanceWarning
    both = _both.get(theirs)
    if both is None:
        both = _both[theirs] = type("NumbaPerformanceWarning", (NumbaPerformanceWarning, theirs),
                                    {"__module__": NumbaPerformanceWarning.__module__})
    return both


def _stacklevel():
    """The stacklevel of warnings.warn, called from here, that names the first frame outside cudajit's files."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def _on(knob):
    return getattr(config, knob) and not config.DISABLE_PERFORMANCE_WARNINGS


def low_occupancy(grid_size):
    """A launch configuration of ``grid_size`` blocks was made."""
    if grid_size < _MIN_GRID and _on("CUDA_LOW_OCCUPANCY_WARNINGS"):
        warnings.warn(_category()(f"Grid size {grid_size} will likely result in GPU under-utilization due to low "
                                  f"occupancy."), stacklevel=_stacklevel())


def implicit_copy(count=1):
    """``count`` NumPy arrays of a launch are copied to the device and back."""
    if count and _on("CUDA_WARN_ON_IMPLICIT_COPY"):
        for _ in range(count):
            warnings.warn(_category()("Host array used in CUDA kernel will incur copy overhead to/from device."),
                          stacklevel=_stacklevel())

"""Numba's configuration knobs that apply to cudajit, as ``numba.config`` holds them: each is read from its
``NUMBA_*`` environment variable when cudajit is imported and may be set by the program afterwards
(``cudajit.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = "/opt/inc"``); the compiler reads them when a kernel compiles.

CUDA_NVRTC_EXTRA_SEARCH_PATHS: extra include folders, separated by ':', for CUDA C++ that kernels link
  (``cuda.jit(link=...)``, ``declare_device``) and for the generated code; NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS.
  (The disk cache keys on the folder names, not on the headers in them: clear it after editing such a header.)
CUDA_MEMORY_MANAGER: the module whose ``_numba_memory_manager`` is the EMM plugin to use (``cuda.set_memory_manager``),
  or "default"; NUMBA_CUDA_MEMORY_MANAGER, read when the backend is decided.
CUDA_ARRAY_INTERFACE_SYNC: whether an array taken through ``__cuda_array_interface__`` (``cuda.as_cuda_array``, a
  kernel argument) waits for the stream its producer names; NUMBA_CUDA_ARRAY_INTERFACE_SYNC, 1 by default.
CUDA_DEFAULT_PTX_CC: the (major, minor) that ``cuda.compile_ptx`` targets when given no ``cc``;
  NUMBA_CUDA_DEFAULT_PTX_CC as "major.minor". cudajit's default is (7, 5), the oldest NVRTC 13 compiles for.
CUDA_PER_THREAD_DEFAULT_STREAM: whether the default stream (handle 0: launches and copies given no stream,
  ``cuda.default_stream()``) is each host thread's own default stream rather than the legacy one, which
  synchronises with every other blocking stream; NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM=1, or cuda-python's
  CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM=1 (what numba-cuda now asks for). Read when the driver loads: setting
  it afterwards changes nothing (the driver's per-thread entry points are chosen then; ``_core.driver_info()``
  says which were).
ALWAYS_WARN_UNINIT_VAR: Numba's NUMBA_ALWAYS_WARN_UNINIT_VAR (0 by default): when set, compiling a kernel or device
  function that reads a local variable no assignment reaches warns "Detected uninitialized variable x" (NumbaWarning,
  with the file and line); the read gives zero either way, as in Numba.
CUDA_LOW_OCCUPANCY_WARNINGS: whether making a launch configuration of fewer than 128 blocks warns
  (NumbaPerformanceWarning "Grid size N will likely result in GPU under-utilization due to low occupancy.", as
  numba-cuda does); NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS, 1 by default. A configuration made before
  (``kernel[1, 1]`` again) is reused and does not warn again.
CUDA_WARN_ON_IMPLICIT_COPY: whether a NumPy array passed to a kernel, and so copied to the device and back,
  warns (NumbaPerformanceWarning "Host array used in CUDA kernel will incur copy overhead to/from device.");
  NUMBA_CUDA_WARN_ON_IMPLICIT_COPY, 1 by default. Device, mapped and managed arrays and ``cuda.In``/``Out``/
  ``InOut`` wrappers (an explicit copy) do not warn.
CUDA_DEBUGINFO_DEFAULT: numba-cuda's default of ``cuda.jit(debug=...)``: NUMBA_CUDA_DEBUGINFO, 0 by default; read
  when a kernel or device function is decorated without ``debug=`` (1 makes it ``debug=True``).
DISABLE_PERFORMANCE_WARNINGS: NUMBA_DISABLE_PERFORMANCE_WARNINGS (0 by default): when set, neither of the two above
  warns. (``warnings.simplefilter("ignore", NumbaPerformanceWarning)`` silences them too; so does a filter on
  ``numba.core.errors.NumbaPerformanceWarning`` when numba is imported: the warning is of both classes then.)
ENABLE_CUDASIM: Numba's NUMBA_ENABLE_CUDASIM as an int (1 when it asks for the simulator, else 0; a value that is not
  an integer counts as 0, as Numba's reader makes it). Here it also picks the CPU backend (``_backend``); programs
  read it to adapt to the simulator (numba's own cuda/random.py compiles its helpers in object mode then).
"""
import os


def _flag(text):
    """An int setting as Numba reads it (and the driver loader, src/driver.cpp): a nonzero integer is on."""
    try:
        return int(text.strip()) != 0
    except ValueError:
        return False


def _cc(text, name):
    try:
        major, minor = (int(x) for x in text.split("."))
    except ValueError:
        raise ValueError(f"{name} must be 'major.minor' such as '8.0', not {text!r}") from None
    return major, minor


CUDA_NVRTC_EXTRA_SEARCH_PATHS = os.environ.get("NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS", "")
CUDA_MEMORY_MANAGER = os.environ.get("NUMBA_CUDA_MEMORY_MANAGER", "default")
CUDA_ARRAY_INTERFACE_SYNC = int(os.environ.get("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "1"))
CUDA_PER_THREAD_DEFAULT_STREAM = int(any(
    _flag(os.environ.get(v, "")) for v in ("NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM",
                                           "CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM")))
ALWAYS_WARN_UNINIT_VAR = int(_flag(os.environ.get("NUMBA_ALWAYS_WARN_UNINIT_VAR", "0")))
CUDA_LOW_OCCUPANCY_WARNINGS = int(_flag(os.environ.get("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "1")))
CUDA_WARN_ON_IMPLICIT_COPY = int(_flag(os.environ.get("NUMBA_CUDA_WARN_ON_IMPLICIT_COPY", "1")))
DISABLE_PERFORMANCE_WARNINGS = int(_flag(os.environ.get("NUMBA_DISABLE_PERFORMANCE_WARNINGS", "0")))
CUDA_DEBUGINFO_DEFAULT = int(_flag(os.environ.get("NUMBA_CUDA_DEBUGINFO", "0")))
ENABLE_CUDASIM = int(_flag(os.environ.get("NUMBA_ENABLE_CUDASIM", "0")))
CUDA_DEFAULT_PTX_CC = _cc(os.environ.get("NUMBA_CUDA_DEFAULT_PTX_CC", "7.5"), "NUMBA_CUDA_DEFAULT_PTX_CC")


def extra_include_flags():
    """``-I`` flags for CUDA_NVRTC_EXTRA_SEARCH_PATHS (a str of ':'-separated folders, or a list of them)."""
    paths = CUDA_NVRTC_EXTRA_SEARCH_PATHS
    if isinstance(paths, str):
        paths = paths.split(":")
    return ["-I" + os.path.abspath(p) for p in paths if p]

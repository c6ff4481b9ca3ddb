"""Streams and events, as Numba documents them ("Memory management → Streams", "Events").

Under the GPU backend each object wraps ``cudajit._core.Stream`` / ``_core.Event``. Under the CPU
backend every operation runs to completion when it is issued, so a stream is always idle
(``query()`` is True, ``synchronize()`` returns at once) and events record the host clock, which
keeps ``elapsed_time`` meaningful for timing code written for the GPU.
"""

import contextlib
import itertools
import time

from cudajit import _backend, _core
from cudajit.errors import CudaAPIError

# The driver's special stream handles (cuda.h: CU_STREAM_LEGACY, CU_STREAM_PER_THREAD).
CU_STREAM_DEFAULT = 0
CU_STREAM_LEGACY = 0x1
CU_STREAM_PER_THREAD = 0x2

_DEFAULT_NAMES = {
    CU_STREAM_DEFAULT: "Default CUDA stream",
    CU_STREAM_LEGACY: "Legacy default CUDA stream",
    CU_STREAM_PER_THREAD: "Per-thread default CUDA stream",
}

# CPU streams need distinct handles so that code keying on ``stream.handle`` still works; they
# start far above the special handles and are never passed to a driver.
_cpu_handles = itertools.count(0x1000)


class Stream:
    """A CUDA stream (Numba: ``numba.cuda.cudadrv.driver.Stream``).

    Made by :func:`stream`, :func:`default_stream`, :func:`legacy_default_stream`,
    :func:`per_thread_default_stream` or :func:`external_stream`, not directly.
    """

    __slots__ = ("_core", "_handle", "external", "__weakref__")

    def __init__(self, core=None, handle=0, external=False):
        self._core = core  # _core.Stream, or None under the CPU backend
        self._handle = core.handle if core is not None else handle
        self.external = external

    @property
    def handle(self):
        """The CUstream as an int (0 for the legacy default stream)."""
        return self._handle

    def __int__(self):
        return self._handle

    def __repr__(self):
        # A stream made here belongs to the device current then; an external one to whichever uses it.
        device = -1 if self._core is None else self._core.device
        where = "the CPU" if self._core is None else f"device {device if device >= 0 else _core.current_device()}"
        if self._handle in _DEFAULT_NAMES:
            return f"<{_DEFAULT_NAMES[self._handle]} on {where}>"
        kind = "External CUDA stream" if self.external else "CUDA stream"
        return f"<{kind} {self._handle} on {where}>"

    def synchronize(self):
        """Wait for all commands in this stream to execute (releases the GIL)."""
        if self._core is not None:
            self._core.synchronize()
        else:
            _core.stream_synchronize(self._handle)  # returns at once, or refuses a stream being captured

    def query(self):
        """True when all work queued on this stream so far has finished."""
        if self._core is None:
            _core.stream_synchronize(self._handle)  # the CPU backend refuses what the GPU's capture would
            return True
        return self._core.query()

    @contextlib.contextmanager
    def auto_synchronize(self):
        """A context manager that synchronizes the stream when the block exits normally."""
        yield self
        self.synchronize()

    def wait_event(self, event):
        """Work later queued on this stream waits for ``event``."""
        if not isinstance(event, Event):
            raise TypeError(f"wait_event needs an Event (from cuda.event()), not {type(event).__name__}")
        event.wait(self)

    def add_callback(self, callback, arg=None):
        """Call ``callback(stream, status, arg)`` once the work queued so far has finished.

        As in Numba it runs on a driver thread, must not call CUDA, and should be short; under
        the CPU backend it runs at once. ``status`` is always 0 (cuLaunchHostFunc has none).
        """
        if not callable(callback):
            raise TypeError(f"add_callback: callback must be callable, not {type(callback).__name__}")
        if self._core is None:
            callback(self, 0, arg)
        else:
            self._core.add_callback(lambda: callback(self, 0, arg))

    def async_done(self):
        """An awaitable that resolves to this stream once the work queued so far is done."""
        import asyncio

        loop = asyncio.get_running_loop()
        future = loop.create_future()

        def resolve(stream, status, _):
            if not future.done():
                future.set_result(stream)

        def from_driver_thread(stream, status, arg):
            loop.call_soon_threadsafe(resolve, stream, status, arg)

        self.add_callback(resolve if self._core is None else from_driver_thread)
        return future


def stream():
    """A new stream that this process owns (Numba: ``cuda.stream()``)."""
    if _backend.current().is_cpu:
        return Stream(handle=next(_cpu_handles))
    return Stream(_core.Stream())


def _special(handle):
    if _backend.current().is_cpu:
        return Stream(handle=handle)
    return Stream(_core.Stream.external(handle))


def default_stream():
    """The default stream (handle 0; legacy semantics unless the driver uses per-thread)."""
    return _special(CU_STREAM_DEFAULT)


def legacy_default_stream():
    """The legacy default stream (CU_STREAM_LEGACY), whatever the default-stream mode."""
    return _special(CU_STREAM_LEGACY)


def per_thread_default_stream():
    """The calling thread's default stream (CU_STREAM_PER_THREAD)."""
    return _special(CU_STREAM_PER_THREAD)


def external_stream(ptr):
    """Wrap a stream made elsewhere (e.g. CuPy's ``stream.ptr``); it is never destroyed here."""
    if not isinstance(ptr, int) or isinstance(ptr, bool):
        raise TypeError(f"ptr for external stream must be an int, not {type(ptr).__name__}")
    if not 0 <= ptr < 1 << 64:
        raise ValueError(f"ptr for external stream must be a pointer value in [0, 2**64), not {ptr}")
    return _external(ptr)


def _external(ptr, device=-1):
    # device: the GPU whose context the stream's calls use (a foreign array's); -1 the current one
    if _backend.current().is_cpu:
        return Stream(handle=ptr, external=True)
    return Stream(_core.Stream.external(ptr, device), external=True)


def stream_handle(stream):
    """The CUstream of anything that names a stream, as an int.

    Accepts None and 0 (the default stream), our :class:`Stream`, an int (NumPy integers too; never a bool), and
    other libraries' streams: ``__cuda_stream__()`` (cuda.core, CuPy, PyTorch), else ``.cuda_stream`` (PyTorch),
    ``.ptr`` (CuPy) or ``.handle`` (Numba; an int, a ctypes pointer or a cuda-python CUstream). One normaliser
    serves Python and the launch path alike: the C++ core's (src/launch.cpp).
    """
    return _core.stream_handle(stream)


_core.register_stream_type(Stream)  # a launch reads a Stream's _handle directly (src/launch.cpp, stream_handle)

class Event:
    """A CUDA event (Numba: ``numba.cuda.cudadrv.driver.Event``); made by :func:`event`."""

    __slots__ = ("_core", "timing", "_recorded_at")

    def __init__(self, timing=True):
        self.timing = bool(timing)
        self._core = None if _backend.current().is_cpu else _core.Event(self.timing)
        self._recorded_at = None  # perf_counter() at the last record(): the CPU backend's time, and whether it was

    @property
    def handle(self):
        """The CUevent as an int (0 when the event has no GPU event behind it, on the CPU backend)."""
        return 0 if self._core is None else self._core.handle

    def record(self, stream=0):
        """Mark the point in ``stream`` that the event stands for."""
        handle = stream_handle(stream)
        if self._core is not None:
            self._core.record(handle)
        self._recorded_at = time.perf_counter()

    def wait(self, stream=0):
        """Work later queued on ``stream`` waits until this event has occurred."""
        handle = stream_handle(stream)
        if self._core is not None:
            self._core.wait(handle)

    def query(self):
        """True when all work before the most recent ``record()`` has finished."""
        return True if self._core is None else self._core.query()

    def synchronize(self):
        """Block the host until the event has occurred (releases the GIL)."""
        if self._core is not None:
            self._core.synchronize()

    def elapsed_time(self, evtend):
        """Milliseconds from this event to ``evtend``."""
        return event_elapsed_time(self, evtend)


def event(timing=True):
    """A new event; ``timing=False`` makes a lighter event that cannot be timed."""
    return Event(timing)


def event_elapsed_time(evtstart, evtend):
    """Milliseconds between two recorded events (Numba: ``cuda.event_elapsed_time``)."""
    for e in (evtstart, evtend):
        if not isinstance(e, Event):
            raise TypeError(f"event_elapsed_time needs two Events (from cuda.event()), not {type(e).__name__}")
    # The driver answers CUDA_ERROR_INVALID_HANDLE for these; so do we, on both backends, without asking it (a call
    # that fails is an error report under compute-sanitizer, issue 41).
    for e in (evtstart, evtend):
        if not e.timing or e._recorded_at is None:
            why = "was created with timing=False" if not e.timing else "has not been recorded"
            raise CudaAPIError(f"cuEventElapsedTime failed: the event {why}",
                               "cuEventElapsedTime", 400, "CUDA_ERROR_INVALID_HANDLE")
    if evtstart._core is not None and evtend._core is not None:
        return _core.event_elapsed_time(evtstart._core, evtend._core)
    return (evtend._recorded_at - evtstart._recorded_at) * 1000.0

"""Which backend runs kernels: the GPU (CUDA driver + device) or the CPU (host C++ compiler).

Chosen by ``CUDAJIT_BACKEND=gpu|cpu|auto`` (auto, the default, picks the GPU when a driver and a
device are present). Tests and tools may switch at run time with ``use(name)``; arrays belong to
the backend they were made under.
"""
import contextlib
import os

from .errors import CudaSupportError

_current = None       # "gpu" or "cpu" once decided
_gpu_status = None    # (ok, reason), probed once


def gpu_status():
    """(ok, reason): whether the CUDA driver loads and reports a device. Never raises."""
    global _gpu_status
    if _gpu_status is None:
        from . import _core
        _gpu_status = tuple(_core.driver_status())
    return _gpu_status


def name():
    """The backend in use: ``"gpu"`` or ``"cpu"``."""
    if _current is None:
        want = os.environ.get("CUDAJIT_BACKEND", "auto").strip().lower() or "auto"
        if want not in ("auto", "gpu", "cpu"):
            raise ValueError(f"CUDAJIT_BACKEND={want!r}: use 'gpu', 'cpu' or 'auto'")
        if want == "auto":
            want = "gpu" if gpu_status()[0] else "cpu"
        _set(want)
    return _current


def _set(backend):
    global _current
    from . import _core
    _core.set_backend(0 if backend == "gpu" else 1)  # allocations and launches follow it
    _current = backend


def reason():
    """Why ``name()`` is what it is, in words (for ``python -m cudajit``). Never raises."""
    want = os.environ.get("CUDAJIT_BACKEND", "auto").strip().lower() or "auto"
    if want != "auto":
        return f"CUDAJIT_BACKEND={want}"
    ok, why = gpu_status()
    return "a CUDA driver and a GPU are present" if ok else f"no usable GPU: {why}"


def is_gpu():
    return name() == "gpu"


def require_gpu(what):
    """Raise CudaSupportError unless the GPU backend is usable; ``what`` names the caller."""
    if name() != "gpu":
        raise CudaSupportError(f"{what} needs the GPU backend, but the CPU backend is in use")
    ok, reason = gpu_status()
    if not ok:
        raise CudaSupportError(f"{what}: {reason}")


def available():
    """Backends usable on this machine, the CPU first."""
    return ["cpu"] + (["gpu"] if gpu_status()[0] else [])


@contextlib.contextmanager
def use(backend):
    """Run a block under another backend (tests run each kernel on every backend present)."""
    if backend not in ("gpu", "cpu"):
        raise ValueError(f"unknown backend {backend!r}")
    if backend == "gpu":
        ok, reason = gpu_status()
        if not ok:
            raise CudaSupportError(reason)
    saved = name()
    _set(backend)
    try:
        yield
    finally:
        _set(saved)

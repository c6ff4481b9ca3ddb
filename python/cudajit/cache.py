"""The on-disk cache of compiled kernels (cubins and PTX from NVRTC, shared libraries from the CPU backend's
compiler), shared by every process of a user.

Where: ``$CUDAJIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/cudajit``, else ``~/.cache/cudajit``. A read-only
directory is still read (nothing new is stored there). Size: each new entry keeps the directory under
``$CUDAJIT_CACHE_MAX`` (bytes, or a number with a K, M, G or T suffix in powers of 1024: ``500M``, ``2G``;
default 1 GiB, temporary files still being written included) by deleting the least recently used entries;
temporary files left by killed writers are removed after ten minutes, a precompiled header whose writer has
gone at once. A process that exits while GCC builds its precompiled header ends that build. Numba's equivalent is its ``__pycache__`` index, cleared by deleting files.
With GCC the CPU backend also keeps a precompiled ``cudajit/runtime.h`` there (``pch-<key>`` folders, ~20 MB each,
an entry like any other for the size limit and ``clear()``; ``CUDAJIT_CPU_PCH=0`` turns them off).
"""
from . import _core


def directory():
    """The cache directory, or None when caching is off (no directory can be created)."""
    return _core.cache_dir()


def size():
    """Bytes held by cached entries (0 when caching is off)."""
    return _core.cache_size()


def limit():
    """The size limit in bytes from ``$CUDAJIT_CACHE_MAX``; a malformed value raises ValueError."""
    return _core.cache_size_limit()


def clear():
    """Delete every cached entry (kernels already loaded keep working); returns the number of files removed."""
    return _core.cache_clear()

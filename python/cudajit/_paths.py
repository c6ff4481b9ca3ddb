"""Where cudajit's files and CUDA's come from: the runtime headers of generated kernels (inside the
installed package, or the source tree's kernels/), and the CUDA headers that NVRTC is given.

NVRTC itself is found by the C++ core (``_core.nvrtc_info()`` says where and why): the newest of a
toolkit's ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda) and NVIDIA's wheels in site-packages
(``pip install cudajit[cuda13]``) of the CUDA major version found first, then the dynamic loader's path.
The CUDA headers follow NVRTC: the toolkit's when NVRTC is the toolkit's, else the wheels' of the same
CUDA major version (or a toolkit's, when those wheels are missing).
"""
import os
import site
import sys

_here = os.path.dirname(os.path.abspath(__file__))

# NVIDIA's wheels, by CUDA major version: (NVRTC's library folder, header folders) under
# site-packages. CUDA 13 wheels share nvidia/cu13 (nvidia-cuda-nvrtc, -runtime, -cccl); CUDA 12
# wheels have a folder each (nvidia-cuda-nvrtc-cu12, nvidia-cuda-runtime-cu12, nvidia-cuda-cccl-cu12).
WHEEL_LAYOUTS = {
    13: ("nvidia/cu13/lib", ("nvidia/cu13/include", "nvidia/cu13/include/cccl")),
    12: ("nvidia/cuda_nvrtc/lib", ("nvidia/cuda_runtime/include", "nvidia/cuda_cccl/include")),
}


def include_dir():
    """The directory to pass as ``-I`` so that ``#include <cudajit/runtime.h>`` resolves."""
    installed = os.path.join(_here, "include")
    if os.path.isfile(os.path.join(installed, "cudajit", "runtime.h")):
        return installed
    source_tree = os.path.normpath(os.path.join(_here, "..", "..", "kernels"))
    if os.path.isdir(os.path.join(source_tree, "cudajit")):
        return source_tree
    return installed


def site_packages():
    """Every directory pip may have put NVIDIA's wheels in: sys.path, then site's own list."""
    dirs = [p for p in sys.path if p and os.path.isdir(p)]
    try:
        dirs += site.getsitepackages() + [site.getusersitepackages()]
    except AttributeError:  # virtualenv's old site.py lacks them
        pass
    seen, out = set(), []
    for d in dirs:
        d = os.path.abspath(d)
        if d not in seen:
            seen.add(d)
            out.append(d)
    return out


def _toolkit_include(root):
    inc = os.path.join(root, "include")
    return [inc, os.path.join(inc, "cccl")] if os.path.isfile(os.path.join(inc, "cuda_runtime.h")) else []


def cuda_include_dirs(nvrtc_path):
    """The CUDA header folders (``-I``) that go with the NVRTC library at ``nvrtc_path``.

    A toolkit's NVRTC (``<root>/lib64/libnvrtc.so``) gets ``<root>/include`` and its ``cccl``; a
    wheel's NVRTC gets the header wheels of its CUDA version found in any site-packages directory.
    Generated kernels need none of them (config.h uses CCCL only when present); user sources
    (``link=``, raw kernels) may include ``cuda_fp16.h`` or CUB.
    """
    real = os.path.realpath(nvrtc_path) if nvrtc_path else ""
    for major, (lib, headers) in WHEEL_LAYOUTS.items():
        if os.path.dirname(real).endswith(os.sep + os.path.normpath(lib)):
            found = []
            for root in site_packages():
                found += [os.path.join(root, h) for h in headers if os.path.isdir(os.path.join(root, h))]
            if any(os.path.isfile(os.path.join(d, "cuda_runtime.h")) for d in found):
                return found
            # a wheel's NVRTC chosen over an older toolkit (the core prefers the newest) without the header
            # wheels: the toolkit's headers serve (older CUDA headers compile under a newer NVRTC)
            return found + _environment_toolkit_include()
    if real:  # a toolkit: <root>/lib64 or <root>/targets/<arch>/lib
        root = os.path.dirname(os.path.dirname(nvrtc_path))
        dirs = _toolkit_include(root) or _toolkit_include(os.path.dirname(os.path.dirname(root)))
        if dirs:
            return dirs
    return _environment_toolkit_include()


def _environment_toolkit_include():
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and _toolkit_include(root):
            return _toolkit_include(root)
    return []


_nvrtc_includes = None


def nvrtc_include_dirs():
    """``cuda_include_dirs`` for the NVRTC the core loaded (computed once per process)."""
    global _nvrtc_includes
    if _nvrtc_includes is None:
        from . import _core
        # the file NVRTC is (or would be) loaded from: a warm start need not load NVRTC to name its headers
        _nvrtc_includes = cuda_include_dirs(_core.nvrtc_located_path() or _core.nvrtc_info()["path"])
    return _nvrtc_includes

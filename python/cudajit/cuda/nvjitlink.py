"""nvJitLink, loaded at first use (ctypes): links PTX, LTO-IR, cubins, fatbins, relocatable objects and
libraries into one cubin. cudajit needs it only for ``link=`` files that are not CUDA C++ sources; it is found
in the CUDA toolkit (``$CUDA_HOME/lib64``, ``/usr/local/cuda/lib64``), in NVIDIA's ``nvidia-nvjitlink`` wheel,
or on the loader's path. Like NVRTC it needs no GPU.
"""
import ctypes
import glob
import os
import site
import sys

# nvJitLinkInputType
INPUT = {"cubin": 1, "ptx": 2, "ltoir": 3, "fatbin": 4, "object": 5, "library": 6}
_NAMES = ("libnvJitLink.so", "libnvJitLink.so.13", "libnvJitLink.so.12")
_lib = None
_why = None


def _candidates():
    roots = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")] + ["/usr/local/cuda"]
    dirs = [os.path.join(r, "lib64") for r in roots if r]
    for sp in site.getsitepackages() + [site.getusersitepackages()] + sys.path:
        dirs += glob.glob(os.path.join(sp, "nvidia", "nvjitlink", "lib")) + glob.glob(os.path.join(sp, "nvidia", "cu1*", "lib"))
    return [os.path.join(d, n) for d in dirs for n in _NAMES] + list(_NAMES)


def _version_of(lib):
    major, minor = ctypes.c_uint(), ctypes.c_uint()
    try:
        if lib.nvJitLinkVersion(ctypes.byref(major), ctypes.byref(minor)) == 0:
            return (major.value, minor.value)
    except AttributeError:          # before CUDA 12.3
        pass
    return (0, 0)


def _load():
    """The newest nvJitLink of the CUDA major version found first, as NVRTC is chosen (src/nvrtc.cpp): a link
    step reads what NVRTC writes, so a CUDA 13.0 toolkit beside the 13.5 wheels links with the wheel's."""
    global _lib, _why, _version
    if _lib is None and _why is None:
        found, seen = [], set()
        for path in _candidates():
            try:
                lib = ctypes.CDLL(path)
            except OSError:
                continue
            if lib._handle in seen:
                continue
            seen.add(lib._handle)
            found.append((_version_of(lib), lib))
        if found:
            major = found[0][0][0]
            _version, _lib = max((f for f in found if f[0][0] == major), key=lambda f: f[0])
        else:
            _why = ("nvJitLink (libnvJitLink.so) was not found: install the CUDA toolkit or "
                    "`pip install nvidia-nvjitlink`, or set CUDA_HOME to the toolkit")
    return _lib


_version = None


def version():
    """nvJitLink's (major, minor), or None when it is not found."""
    return _version if _load() is not None else None


def _check_reads_nvrtc():
    """A link step reads the kernel that NVRTC wrote (PTX or LTO-IR): an nvJitLink older than NVRTC cannot
    ("Unsupported .version 9.5"). Said before the attempt, with what to install."""
    from .. import _core
    if not _core.nvrtc_available()[0] or not _version or _version == (0, 0):
        return
    nvrtc = tuple(_core.nvrtc_version())
    if nvrtc > _version:
        from ..errors import CompileError
        raise CompileError(
            f"link=: the kernel is compiled by NVRTC {nvrtc[0]}.{nvrtc[1]}, whose PTX and LTO-IR nvJitLink "
            f"{_version[0]}.{_version[1]} cannot read; install the nvJitLink of the same CUDA version: "
            f"pip install 'nvidia-nvjitlink>={nvrtc[0]}.{nvrtc[1]},<{nvrtc[0] + 1}' (cudajit takes the newest "
            f"NVRTC and nvJitLink it finds; docs/INSTALL.md)")


def available():
    """(True, '') when nvJitLink loads, else (False, what to install)."""
    return (_load() is not None, _why or "")


def _check(lib, handle, status, what):
    if status != 0:
        size = ctypes.c_size_t()
        log = ""
        if handle and lib.nvJitLinkGetErrorLogSize(handle, ctypes.byref(size)) == 0 and size.value > 1:
            buf = ctypes.create_string_buffer(size.value)
            lib.nvJitLinkGetErrorLog(handle, buf)
            log = buf.value.decode(errors="replace").strip()
        from ..errors import CompileError
        raise CompileError(f"nvJitLink: {what} failed (error {status})" + (f":\n{log}" if log else ""))


def link(inputs, arch, lto=False):
    """Link ``inputs``, a list of (kind, name, data bytes) with kind a key of INPUT, into a cubin for sm_<arch>."""
    lib = _load()
    if lib is None:
        from ..errors import CudaSupportError
        raise CudaSupportError(_why)
    _check_reads_nvrtc()
    opts = [f"-arch=sm_{arch}".encode()] + ([b"-lto"] if lto else [])
    handle = ctypes.c_void_p()
    _check(lib, None, lib.nvJitLinkCreate(ctypes.byref(handle), ctypes.c_uint32(len(opts)),
                                          (ctypes.c_char_p * len(opts))(*opts)), "creating the linker")
    try:
        for kind, name, data in inputs:
            _check(lib, handle, lib.nvJitLinkAddData(handle, ctypes.c_int(INPUT[kind]), ctypes.c_char_p(data),
                                                     ctypes.c_size_t(len(data)), name.encode()),
                   f"adding {name}")
        _check(lib, handle, lib.nvJitLinkComplete(handle), "linking")
        size = ctypes.c_size_t()
        _check(lib, handle, lib.nvJitLinkGetLinkedCubinSize(handle, ctypes.byref(size)), "getting the cubin")
        buf = ctypes.create_string_buffer(size.value)
        _check(lib, handle, lib.nvJitLinkGetLinkedCubin(handle, buf), "getting the cubin")
        return buf.raw
    finally:
        lib.nvJitLinkDestroy(ctypes.byref(handle))

"""Foreign device functions: ``cuda.declare_device(name, sig, link=..., abi=...)`` and ``cuda.jit(link=[...])``.

Two ABIs, as numba-cuda: ``abi="numba"`` (the default), ``extern "C" __device__ int name(T* return_value, args...)``
(it returns 0 and stores its result through the first argument), and ``abi="c"``, ``extern "C" __device__ T
name(args...)``. A ``CPointer(T)`` or array parameter is a ``T*``: an array argument passes its data pointer.

What ``link=`` takes: CUDA C++ (``.cu`` files, ``cuda.CUSource``) is compiled into the kernel's own unit, so
NVRTC sees it whole and the CPU backend can run simple code too. GPU code (``.ptx``, ``.cubin``, ``.fatbin``,
``.o``, ``.a``, ``.ltoir`` and their in-memory classes) is linked with nvJitLink: the kernel is compiled to PTX
as relocatable code and linked with them into one cubin (nvjitlink.py). The CPU backend cannot run GPU code.
"""
import os

from .. import jitoptions
from ..errors import CompileError, UnsupportedError

# File suffix -> kind: "cu" is compiled into the unit, every other kind is an nvJitLink input.
SUFFIX_KINDS = {".cu": "cu", ".cuh": "cu", ".h": "cu", ".hpp": "cu", ".ptx": "ptx", ".cubin": "cubin",
                ".fatbin": "fatbin", ".o": "object", ".a": "library", ".ltoir": "ltoir"}


class LinkableCode:
    """Code to link given in memory (numba-cuda's ``LinkableCode``): ``data`` is its text or bytes, ``name``
    what messages and ``#line`` call it."""
    kind = None

    def __init__(self, data, name=None):
        if not isinstance(data, (str, bytes)):
            raise TypeError(f"{type(self).__name__}: data must be str or bytes, not {type(data).__name__}")
        self.data = data
        self.name = name or f"<{type(self).__name__}>"

    def raw(self):
        return self.data

    def text(self):
        data = self.raw()
        return data if isinstance(data, str) else data.decode()

    def binary(self):
        """The bytes nvJitLink is given (PTX NUL-terminated)."""
        data = self.raw()
        data = data.encode() if isinstance(data, str) else data
        return data + b"\0" if self.kind == "ptx" and not data.endswith(b"\0") else data

    def _key(self):
        return (self.kind, self.name, self.data)

    def __eq__(self, other):
        return isinstance(other, LinkableCode) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"{type(self).__name__}({self.name})"


class CUSource(LinkableCode):
    """CUDA C++ source text to link, e.g. ``cuda.jit(link=[cuda.CUSource(code)])``."""
    kind = "cu"


class PTXSource(LinkableCode):
    """PTX text to link (nvJitLink, GPU only)."""
    kind = "ptx"


class Cubin(LinkableCode):
    """A cubin (compiled device code for one arch) to link (nvJitLink, GPU only)."""
    kind = "cubin"


class Fatbin(LinkableCode):
    """A fatbin (cubins and PTX for several archs) to link (nvJitLink, GPU only)."""
    kind = "fatbin"


class Object(LinkableCode):
    """A relocatable device object (nvcc -dc) to link (nvJitLink, GPU only)."""
    kind = "object"


class Archive(LinkableCode):
    """A library (.a) of relocatable device objects to link (nvJitLink, GPU only)."""
    kind = "library"


class LTOIR(LinkableCode):
    """LTO-IR (nvcc -dlto) to link with link-time optimisation (nvJitLink, GPU only)."""
    kind = "ltoir"


class LinkFile(LinkableCode):
    """A file to link, named by its absolute path; its contents are read when a kernel is compiled."""

    def __init__(self, path, kind):
        self.path, self.kind, self.name = path, kind, path

    def raw(self):
        with open(self.path, "rb") as f:
            return f.read()

    def _key(self):
        return (self.kind, self.path)


def check_link(files, what):
    """The link list as LinkableCode items: files by their suffix (checked to exist), in-memory code as given."""
    if isinstance(files, (str, os.PathLike, LinkableCode)):
        files = [files]
    if files is not None and not isinstance(files, (list, tuple, set, frozenset)):
        raise TypeError(f"{what} must be a list of file paths or code objects (cuda.CUSource ...), not "
                        f"{type(files).__name__}")
    out = []
    for f in files or ():
        if isinstance(f, LinkableCode):
            out.append(f)
            continue
        if not isinstance(f, (str, bytes, os.PathLike)):
            raise TypeError(f"{what}: {f!r:.60} is not a file path or a code object (cuda.CUSource ...)")
        path = os.path.abspath(os.fspath(f))
        kind = SUFFIX_KINDS.get(os.path.splitext(path)[1])
        if kind is None:
            raise NotImplementedError(f"{what}: cannot link {os.path.basename(path)}: cudajit links CUDA C++ sources "
                                      f"and GPU code by suffix ({', '.join(SUFFIX_KINDS)})")
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{what}: the file to link does not exist: {path}")
        out.append(LinkFile(path, kind))
    return tuple(out)


class ExternalFunction:
    """What ``cuda.declare_device`` returns: a foreign device function kernels can call."""

    def __init__(self, name, sig, link=(), abi="numba", use_cooperative=False):
        from ..compiler import parse_signature, types as T
        if not isinstance(name, str):
            raise TypeError(f"declare_device: the name must be a str (the function's symbol), not "
                            f"{type(name).__name__} {name!r:.60}")
        if not (name.isidentifier() and name.isascii()):          # it is written into the generated C++
            raise ValueError(f"declare_device: the name {name!r:.60} is not a C identifier")
        if not (isinstance(abi, str) and abi in ("numba", "c")):
            raise NotImplementedError(f"declare_device({name!r}): unsupported ABI {abi!r} (use 'numba' or 'c')")
        signature = parse_signature(sig) if isinstance(sig, str) else sig
        if isinstance(sig, tuple) or isinstance(signature, T.Signature) and signature.return_type is None:
            # numba-cuda's words first
            raise TypeError(f"Return type must be provided for device declarations: declare_device({name!r}) got "
                            f"{sig!r:.60}, argument types alone; write the signature as e.g. 'float32(float32)'")
        if not isinstance(signature, T.Signature):
            raise TypeError(f"declare_device({name!r}): the signature must be a str such as 'float32(float32)' or a "
                            f"Signature, not {type(sig).__name__} {sig!r:.60}")
        ret = signature.return_type
        if not (T.is_scalar(ret) or isinstance(ret, (T.CPointer, T.NoneType))):
            raise TypeError(f"declare_device({name!r}): the return type must be a number, a CPointer or void, "
                            f"not {ret}")
        for t in signature.args:
            if not (T.is_scalar(t) or isinstance(t, (T.CPointer, T.Array))):
                raise TypeError(f"declare_device({name!r}): arguments must be numbers, CPointers or arrays, not {t}")
        self.name, self.sig, self.abi, self.cooperative = name, signature, abi, bool(use_cooperative)
        # Numba's spelling of the declaration, for messages: "float64(float64, int32)"
        self.declared = f"{ret}({', '.join(map(str, signature.args))})"
        self.link = check_link(link, f"declare_device({name!r})")
        self.__cudajit_extern__ = True

    def param_cpp(self):
        """The C++ parameter types: an array is passed as its data pointer."""
        from ..compiler import types as T
        return [f"{t.dtype.cpp}*" if isinstance(t, T.Array) else t.cpp for t in self.sig.args]

    def prototype(self):
        """The C++ declaration its ABI prescribes (what a definition in linked GPU code must match)."""
        ret, params = self.sig.return_type.cpp, self.param_cpp()
        if self.abi == "c":
            return f'extern "C" __device__ {ret} {self.name}({", ".join(params)})'
        return f'extern "C" __device__ int {self.name}({", ".join([ret + "* result"] + params)})'

    def wrapper(self, defined_in_source, mismatch):
        """The C++ lines of ``cj_ext_<name>(args)``, which calls it and gives its result as a value. A function from
        linked GPU code is declared here; one from a linked source is defined there and its own parameter types
        are used (long long or int64_t), a static_assert naming the declaration when they do not fit."""
        ret, n = self.sig.return_type.cpp, len(self.sig.args)
        params = ", ".join(f"{t} a{k}" for k, t in enumerate(self.param_cpp()))
        args = ", ".join(f"a{k}" for k in range(n))
        decl = [] if defined_in_source else [self.prototype() + ";"]
        trait = "c_extern_arity" if self.abi == "c" else "extern_arity"
        check = (f"static_assert(cj::{trait}<decltype(&{self.name})>::value == {n}, \"{mismatch} '{self.name}' "
                 f"declared as {self.declared} with cuda.declare_device does not match its definition in the linked "
                 f"source: its ABI ({self.abi}) is {self.prototype()}\");".replace('"C"', '\\"C\\"'))
        call = (f"{self.name}({args})" if self.abi == "c"
                else f"cj::call_extern({', '.join([self.name] + [f'a{k}' for k in range(n)])})")
        body = f"{call};" if ret == "void" else f"return static_cast<{ret}>({call});"
        return decl + [f"CJ_INLINE {ret} cj_ext_{self.name}({params}) {{ {check} {body} }}"]

    def __call__(self, *args):
        raise RuntimeError(f"the foreign device function {self.name} can only be called from a kernel")

    def __repr__(self):
        return f"<cudajit foreign device function {self.name}: {self.sig}>"


jitoptions.install_check("link", check_link)      # cuda.jit(link=...) is checked here, where its file kinds are


def declare_device(name, sig, link=None, use_cooperative=False, abi="numba"):
    """Numba's ``cuda.declare_device``: declare a foreign device function by its name and signature.
    ``abi="c"``: the function returns its value (``T name(args...)``) instead of Numba's result pointer."""
    return ExternalFunction(name, sig, () if link is None else link, abi, use_cooperative)


def refuse_on_cpu(objects):
    if objects:
        raise UnsupportedError(f"the CPU backend cannot link GPU code: {objects[0].name} ({objects[0].kind}); "
                               "link CUDA C++ sources (.cu, cuda.CUSource) to run there, or use a GPU")


def link_gpu(source, nvrtc_flags, objects, arch):
    """The cubin of a kernel that calls into linked GPU code: the unit compiled by NVRTC (``nvrtc_flags``) to PTX
    as relocatable device code, linked with ``objects`` by nvJitLink (LTO when one of them is LTO-IR)."""
    from .. import _core
    from . import nvjitlink
    ptx = _core.nvrtc_compile(source, "kernel.cu", list(nvrtc_flags) + ["-rdc=true"], arch, False)
    inputs = [("ptx", "kernel.ptx", PTXSource(ptx).binary())]
    for item in objects:
        try:
            inputs.append((item.kind, os.path.basename(item.name), item.binary()))
        except OSError as e:
            raise CompileError(f"cannot read the file to link {item.name}: {e}") from None
    return nvjitlink.link(inputs, arch, lto=any(item.kind == "ltoir" for item in objects))

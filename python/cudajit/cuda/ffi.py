"""Foreign device functions: ``cuda.declare_device(name, sig, link=...)`` and ``cuda.jit(link=[...])``.

A foreign function follows Numba's device-function ABI, ``extern "C" __device__ int name(T* return_value, args...)``
(it returns 0 and stores its result through the first argument). cudajit links CUDA C++ sources (``.cu``, ``.cuh``)
by compiling them into the kernel's own unit, so NVRTC sees them whole and the CPU backend can run simple ones too.
"""
import os

SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp")


def check_link(files, what):
    """The link list as absolute paths of CUDA C++ sources; anything else is a clear error."""
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    out = []
    for f in files or ():
        path = os.path.abspath(os.fspath(f))
        if not path.endswith(SOURCE_SUFFIXES):
            raise NotImplementedError(
                f"{what}: cudajit links CUDA C++ sources ({', '.join(SOURCE_SUFFIXES)}), not {os.path.basename(path)}"
                " (PTX, cubins and libraries are not supported yet)")
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{what}: the file to link does not exist: {path}")
        out.append(path)
    return tuple(out)


class ExternalFunction:
    """What ``cuda.declare_device`` returns: a foreign device function kernels can call."""

    def __init__(self, name, sig, link=()):
        from ..compiler import parse_signature, types as T
        signature = parse_signature(sig) if isinstance(sig, str) else sig
        if not isinstance(signature, T.Signature) or signature.return_type is None:
            raise TypeError(f"declare_device({name!r}): the signature needs a return type, e.g. 'float32(float32)'")
        if signature.return_type == T.none or not T.is_scalar(signature.return_type):
            raise TypeError(f"declare_device({name!r}): the return type must be a number, not "
                            f"{signature.return_type}")
        for t in signature.args:
            if not T.is_scalar(t):
                raise TypeError(f"declare_device({name!r}): arguments must be numbers, not {t}")
        self.name, self.sig = name, signature
        # Numba's spelling of the declaration, for messages: "float64(float64, int32)"
        self.declared = f"{signature.return_type}({', '.join(map(str, signature.args))})"
        self.link = check_link(link, f"declare_device({name!r})")
        self.__cudajit_extern__ = True

    def __call__(self, *args):
        raise RuntimeError(f"the foreign device function {self.name} can only be called from a kernel")

    def __repr__(self):
        return f"<cudajit foreign device function {self.name}: {self.sig}>"


def declare_device(name, sig, link=None):
    """Numba's ``cuda.declare_device``: declare a foreign device function by its name and signature."""
    return ExternalFunction(name, sig, link or ())

"""numba-cuda's ``numba.cuda.libdevicefuncs``: libdevice's functions as numba-cuda declares them, for programs (and
numba-cuda's own tests) that read the table: ``functions["__nv_<name>"] = (return type, [arg(name, ty, is_ptr)])``,
and ``create_signature``, the signature of the Python function (pointer arguments become results). Made from
cudajit's table (compiler/libdevice.py), which gives the kernels' cuda.libdevice functions their types."""
import collections

from cudajit.compiler import libdevice as _libdevice, types as _types

arg = collections.namedtuple("arg", ("name", "ty", "is_ptr"))

_TYPES = {"i2": _types.int16, "i4": _types.int32, "i8": _types.int64, "f4": _types.float32, "f8": _types.float64,
          "void": _types.void}


def _declaration(ret, params):
    names = "xyzw"
    return (_TYPES[ret], [arg(names[i] if i < 4 else f"a{i}", _TYPES[p.lstrip("*")], p.startswith("*"))
                          for i, p in enumerate(params)])


functions = {f"__nv_{name}": _declaration(*_libdevice.SIGNATURES[name]) for name in _libdevice.names()}


def create_signature(retty, args):
    """The signature of the function kernels call: the pointer arguments' types join the return type (unless void)
    in a tuple; the other arguments are the parameters."""
    results = ([] if retty == _types.void else [retty]) + [a.ty for a in args if a.is_ptr]
    ret = results[0] if len(results) == 1 else _types.Tuple(results)
    return _types.Signature(ret, [a.ty for a in args if not a.is_ptr])

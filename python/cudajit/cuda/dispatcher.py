"""``@cuda.jit``: kernels and device functions (numba.cuda's CUDADispatcher and DeviceFunction).

A kernel compiles lazily, once per argument-type signature, the first time it is launched with
those types (or eagerly for the signatures given to ``jit``). Launches go through the C++
dispatcher in ``_core``: it keys each call on its argument types without returning to Python,
and calls back here only to compile a new specialization or to convert NumPy/foreign arrays.
"""
import functools
import inspect
import math

import numpy as np

from .. import _backend, _core
from ..errors import LaunchError, TypingError
from . import build
from .args import prepare_args

_OPTION_NAMES = ("fastmath", "debug", "lineinfo", "opt", "max_registers", "inline", "launch_bounds")


def _compiler():
    # Imported on first compile, not at `import cudajit`: import stays cheap.
    from .. import compiler
    return compiler


def _compile_options(options):
    known = {k: options[k] for k in _OPTION_NAMES if k in options}
    if known.get("inline") == "always":
        known["inline"] = True
    return _compiler().CompileOptions(**known)


class _Specialization:
    """One compiled signature: the generated source and the launchable kernel."""

    def __init__(self, signature, ks, kernel):
        self.signature, self.source, self.kernel = signature, ks, kernel

    # Numba's _Kernel exposes these:
    @property
    def argument_types(self):
        return tuple(self.signature.args)

    def inspect_types(self, file=None):
        print(self.source.typed_listing(), file=file)


class _JitFunction:
    """What kernels and device functions share: the Python function, its options, and the
    attributes by which the compiler recognises it when another kernel calls it."""

    def __init__(self, py_func, options):
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self.targetoptions = dict(options or {})
        self.__cudajit_pyfunc__ = py_func
        self.__cudajit_options__ = self.targetoptions
        self._options = _compile_options(self.targetoptions)


class CUDADispatcher(_JitFunction):
    """What ``@cuda.jit`` returns for a kernel. Launch with ``kernel[griddim, blockdim, stream, sharedmem](*args)``."""

    def __init__(self, py_func, sigs=(), options=None):
        super().__init__(py_func, options)
        self._specs = {}      # (backend, argtypes) -> _Specialization
        self._eager = []      # Signatures given to jit(); once set, no other types compile
        self._core = _core.Dispatcher(self._compile_for_args, prepare_args)
        for sig in sigs:
            self.compile(sig)

    # --- launching ------------------------------------------------------------------------
    def __getitem__(self, config):
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise LaunchError("a launch configuration is kernel[griddim, blockdim] or "
                              "kernel[griddim, blockdim, stream, sharedmem]")
        return self._core.configure(*config)

    def __call__(self, *args, **kwargs):
        raise LaunchError(f"kernel '{self.__name__}' was called without a launch configuration: "
                          f"launch it as {self.__name__}[blockspergrid, threadsperblock](...)")

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launcher for ``ntasks`` threads; the block size comes from the occupancy API unless given."""
        def launch(*args):
            if ntasks == 0:
                return
            block = tpb
            if not block:
                kernel = self._compile_for_args(args)
                block = kernel.max_potential_block_size(sharedmem)
            self[math.ceil(ntasks / block), block, stream, sharedmem](*args)
        return launch

    # --- compiling ------------------------------------------------------------------------
    def _compile_for_args(self, args):
        names = list(inspect.signature(self.py_func).parameters)
        if len(args) != len(names):
            raise TypingError(f"kernel '{self.__name__}' takes {len(names)} arguments "
                              f"({', '.join(names)}), {len(args)} given")
        argtypes = tuple(_compiler().typeof(a, n) for a, n in zip(args, names))
        if self._eager:
            return self._eager_match(argtypes).kernel
        return self._specialize(argtypes).kernel

    def _eager_match(self, argtypes):
        for sig in self._eager:
            if _compatible(sig.args, argtypes):
                return self._specialize(tuple(sig.args))
        sigs = ", ".join(str(s) for s in self._eager)
        raise TypingError(f"kernel '{self.__name__}' has no signature matching the argument types "
                          f"({', '.join(map(str, argtypes))}); it was compiled for: {sigs}")

    def _specialize(self, argtypes):
        key = (_backend.name(), argtypes)
        spec = self._specs.get(key)
        if spec is None:
            ks = _compiler().compile_kernel(self.py_func, argtypes, self._options)
            spec = _Specialization(ks.signature, ks, build.build(ks, self.targetoptions))
            self._specs[key] = spec
        return spec

    def compile(self, sig):
        """Compile eagerly for a signature (a string, a Signature, or a tuple of argument types)."""
        sig = _compiler().parse_signature(sig) if not isinstance(sig, tuple) else _compiler().parse_signature(sig)
        if sig.return_type is not None and str(sig.return_type) not in ("none", "void"):
            raise TypingError(f"kernel '{self.__name__}' must return void, not {sig.return_type}")
        self._eager.append(sig)
        return self._specialize(tuple(sig.args)).kernel

    def specialize(self, *args):
        """A dispatcher fixed to the types of ``args`` (Numba's ``specialize``)."""
        argtypes = tuple(_compiler().typeof(a) for a in args)
        d = CUDADispatcher(self.py_func, options=self.targetoptions)
        d._eager.append(_signature_of(argtypes))
        d._specialize(argtypes)
        return d

    # --- introspection (Numba's API, plus inspect_source) ---------------------------------
    def _current_specs(self):
        return {argtypes: s for (b, argtypes), s in self._specs.items() if b == _backend.name()}

    @property
    def overloads(self):
        return self._current_specs()

    @property
    def signatures(self):
        return list(self._current_specs())

    def _pick(self, signature):
        specs = self._current_specs()
        if signature is None:
            return specs
        key = tuple(_compiler().parse_signature(signature).args) if isinstance(signature, str) else tuple(signature)
        if key not in specs:
            raise KeyError(f"kernel '{self.__name__}' has no specialization for {key}")
        return {key: specs[key]}

    def inspect_source(self, signature=None):
        """The generated C++ of each specialization (a str for one signature, else a dict)."""
        out = {k: s.source.source for k, s in self._pick(signature).items()}
        return next(iter(out.values())) if signature is not None else out

    def inspect_types(self, file=None, signature=None):
        for s in self._pick(signature).values():
            s.inspect_types(file=file)

    def inspect_asm(self, signature=None):
        """PTX for each specialization (for the current device, or sm_90 without a GPU)."""
        arch = build.device_arch() if _backend.name() == "gpu" else 90
        out = {k: build.gpu_image(s.source.source, self.targetoptions, arch=arch, cubin=False).decode()
               for k, s in self._pick(signature).items()}
        return next(iter(out.values())) if signature is not None else out

    def _attr(self, name, signature):
        out = {k: getattr(s.kernel, name) for k, s in self._pick(signature).items()}
        return next(iter(out.values())) if signature is not None else out

    def get_regs_usage(self, signature=None):
        return self._attr("regs", signature)

    def get_shared_mem_per_block(self, signature=None):
        return self._attr("shared_bytes", signature)

    def get_local_mem_per_thread(self, signature=None):
        return self._attr("local_bytes", signature)

    def get_const_mem_size(self, signature=None):
        return self._attr("const_bytes", signature)

    def get_max_threads_per_block(self, signature=None):
        return self._attr("max_threads_per_block", signature)

    def __repr__(self):
        return f"<cudajit kernel {self.__name__}>"


class DeviceFunction(_JitFunction):
    """What ``@cuda.jit(device=True)`` returns: callable from kernels and other device functions."""

    def __init__(self, py_func, sigs=(), options=None):
        super().__init__(py_func, options)
        # Declared signatures: calls convert their arguments and result to these types, as in Numba.
        self.__cudajit_signatures__ = []
        for sig in sigs:
            self.compile(sig)

    def compile(self, sig):
        sig = _compiler().parse_signature(sig)
        _compiler().compile_device(self.py_func, tuple(sig.args), self._options)
        self.__cudajit_signatures__.append(sig)
        return sig

    def __call__(self, *args, **kwargs):
        raise TypingError(f"device function '{self.__name__}' can only be called from a kernel or another "
                          f"device function, not from host code (use .py_func to run the Python)")

    def __repr__(self):
        return f"<cudajit device function {self.__name__}>"


def _signature_of(argtypes):
    from ..compiler import types
    return types.void(*argtypes)


def _compatible(sig_args, argtypes):
    """Whether arguments of ``argtypes`` can be passed to a kernel compiled for ``sig_args``
    (scalars convert, as Numba casts them; arrays must agree in dtype and ndim, and a C or F
    array may go where the signature says any layout)."""
    from ..compiler import types
    if len(sig_args) != len(argtypes):
        return False
    for want, have in zip(sig_args, argtypes):
        if isinstance(want, types.Array):
            if not isinstance(have, types.Array) or want.dtype != have.dtype or want.ndim != have.ndim:
                return False
            if want.layout != "A" and want.layout != have.layout:
                return False
        elif isinstance(have, types.Array):
            return False
    return True


def jit(func_or_sig=None, device=False, inline=False, link=(), debug=None, opt=True, lineinfo=False,
        cache=False, fastmath=False, max_registers=None, launch_bounds=None, forceinline=False, **kws):
    """Numba's ``cuda.jit``: decorate a kernel (or, with ``device=True``, a device function).

    Forms: ``@cuda.jit``, ``@cuda.jit(...)`` with options, ``@cuda.jit("void(float32[:])")``,
    a list of signatures, or a Signature object such as ``void(float32[:], int32)``.
    ``cache`` is accepted for compatibility: compiled code is always cached on disk.
    """
    if link:
        raise NotImplementedError("cuda.jit(link=...) is not supported by cudajit yet")
    options = {"fastmath": fastmath, "debug": bool(debug), "lineinfo": lineinfo, "opt": opt,
               "max_registers": max_registers, "inline": inline or forceinline, "launch_bounds": launch_bounds}
    unknown = set(kws) - {"boundscheck", "nopython", "extensions"}
    if unknown:
        raise TypeError(f"cuda.jit got unexpected options: {', '.join(sorted(unknown))}")

    def wrap(pyfunc, sigs):
        cls = DeviceFunction if device else CUDADispatcher
        return cls(pyfunc, sigs, options)

    if callable(func_or_sig) and not _is_signature(func_or_sig):
        return wrap(func_or_sig, ())
    sigs = () if func_or_sig is None else (
        tuple(func_or_sig) if isinstance(func_or_sig, (list, tuple)) else (func_or_sig,))
    return lambda pyfunc: wrap(pyfunc, sigs)


def _is_signature(obj):
    from ..compiler import types
    return isinstance(obj, (str, types.Signature))

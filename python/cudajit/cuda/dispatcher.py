"""``@cuda.jit``: kernels and device functions (numba.cuda's CUDADispatcher and DeviceFunction).

A kernel compiles lazily, once per argument-type signature, the first time it is launched with
those types (or eagerly for the signatures given to ``jit``). Launches go through the C++
dispatcher in ``_core``: it keys each call on its argument types without returning to Python,
and calls back here only to compile a new specialization or to convert NumPy/foreign arrays.
"""
import copyreg
import dataclasses
import functools
import inspect
import os
import pickle
import threading

from .. import _backend, _core, _sources, jitoptions
from ..errors import DeprecationError, LaunchError, TypingError, hide_internal_frames
from . import build
from .args import kernel_view, prepare_args


_sources.keep_compiled_texts()      # kernels exec'd from a string and decorated after the string is gone


def _compiler():
    # Imported on first compile, not at `import cudajit`: import stays cheap.
    from .. import compiler
    return compiler


# One compile at a time: threads that each drive a GPU (one per device) may first launch a kernel at the same moment;
# the front end's caches are not made for concurrent writers. NVRTC and g++ run without the GIL, so a second thread
# waits here instead of translating the same function alongside.
_compile_lock = threading.RLock()


def _remake_compile_lock():
    # os.fork() while another thread compiles: the child has only the forking thread, and a lock another thread held
    # stays held for ever (the child's first compile waited on it). The child starts with a free one (issue 37).
    global _compile_lock
    _compile_lock = threading.RLock()


os.register_at_fork(after_in_child=_remake_compile_lock)


# CUDA 12.1+ takes 32 KB of kernel parameters (src/launch.cpp: kMaxParamBytes, each parameter in 16-byte slots).
_MAX_PARAM_BYTES = 32 * 1024


def _parameter_bytes(t, T):
    """What argument type ``t`` takes of the kernel's parameter space, as the C++ launch plan lays it out (an array:
    its pointer and an extent and a stride per dimension; a tuple: its elements; a number: one 16-byte slot); 0
    for what the plan may pass otherwise (a lower bound: never a refusal the launch would not make)."""
    if isinstance(t, T.Array):
        return -(-(8 + 16 * t.ndim) // 16) * 16
    if isinstance(t, T.BaseTuple):
        return sum(_parameter_bytes(e, T) for e in t.types)
    return 16 if T.is_scalar(t) else 0


def _check_parameter_bytes(name, argtypes):
    """Refuses a launch whose parameters cannot fit CUDA's parameter space before compiling it: a kernel of 2,000
    parameters spent 36 s compiling before the launch refused it (issue 37)."""
    T = _compiler().types
    total = sum(_parameter_bytes(t, T) for t in argtypes)
    if total > _MAX_PARAM_BYTES:
        raise LaunchError(f"kernel '{name}': its {len(argtypes)} arguments take {total} bytes of kernel parameters, "
                          f"more than CUDA's limit of {_MAX_PARAM_BYTES} bytes (32 KB): pass the values in an array "
                          f"instead")


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

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        """The most blocks of ``blockdim`` threads (an int or a tuple of 1 to 3) and ``dynsmemsize`` bytes of
        dynamic shared memory that a cooperative launch of this kernel may have: on a GPU, the blocks that can be
        resident at once (occupancy per multiprocessor times multiprocessors, as Numba); on the CPU backend,
        where each block of a cooperative launch is an OS thread and each thread a fiber, at most 256 blocks and
        16384 threads in all."""
        return self.kernel.max_cooperative_grid_blocks(blockdim, dynsmemsize)

    @property
    def cooperative(self):
        """True when the kernel synchronizes its grid (``cuda.cg.this_grid().sync()``), so that it is launched
        cooperatively, all its blocks resident at once (numba-cuda's ``_Kernel.cooperative``)."""
        return bool(self.kernel.cooperative)

    # ... and the compiled kernel's resources, as properties
    regs_per_thread = property(lambda self: self.kernel.regs, doc="Registers per thread.")
    shared_mem_per_block = property(lambda self: self.kernel.shared_bytes, doc="Static shared memory, bytes.")
    local_mem_per_thread = property(lambda self: self.kernel.local_bytes, doc="Local memory per thread, bytes.")
    const_mem_size = property(lambda self: self.kernel.const_bytes, doc="Constant memory, bytes.")
    max_threads_per_block = property(lambda self: self.kernel.max_threads_per_block,
                                     doc="The most threads a block of this kernel may have.")


def _no_llvm(what, ir):
    def refuse(self, *args, **kwargs):
        raise NotImplementedError(f"{what}: cudajit compiles kernels as CUDA C++ with NVRTC, so there is no {ir}; "
                                  f"inspect_source() gives the C++, inspect_asm() the PTX, inspect_sass() the SASS")
    refuse.__doc__ = f"Numba's {what}; cudajit has no {ir} (raises NotImplementedError)."
    return refuse


class _JitFunction:
    """What kernels and device functions share: the Python function, its options, and the
    attributes by which the compiler recognises it when another kernel calls it."""

    def __init__(self, py_func, options):
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self._options = options or jitoptions.CompileOptions()
        self.__cudajit_pyfunc__ = py_func
        self.__cudajit_options__ = self._options
        _sources.remember(py_func)        # exec() of a string: find the text while it is alive

    @property
    def targetoptions(self):
        """The options given to ``cuda.jit`` (Numba's attribute), as a dict."""
        return dataclasses.asdict(self._options)


class CUDADispatcher(_JitFunction):
    """What ``@cuda.jit`` returns for a kernel. Launch with ``kernel[griddim, blockdim, stream, sharedmem](*args)``."""

    _lto = False     # cuda.jit(lto=True): only inspect_lto_ptx asks

    def __init__(self, py_func, sigs=(), options=None, extensions=None):
        super().__init__(py_func, options)
        self._extensions = _extension_list(extensions)
        self._specs = {}      # (Backend.target(): where it runs, argtypes) -> _Specialization
        self._eager = []      # Signatures given to jit(); once set, no other types compile
        self._specialized = False
        self._specializations = {}   # (Backend.target(), argtypes) -> CUDADispatcher made by specialize()
        self._launchers = {}         # (griddim, blockdim) two ints -> the launcher kern[g, b] made
        params = tuple(inspect.signature(py_func).parameters)
        self._core = _core.Dispatcher(self._compile_for_args,
                                      functools.partial(prepare_args, kernel=self.__name__, params=params), params)
        self._core.set_extensions(self._extensions, _extend_args)
        # Parameters with defaults may be left out of a launch: the defaults as they are now (numba-cuda's
        # dispatcher takes them when it is made, too). The one place they are read: _spec_for_args.
        self._defaults = tuple(py_func.__defaults__ or ())
        for sig in sigs:
            self.compile(sig)

    # --- launching ------------------------------------------------------------------------
    # kern[...]: __getitem__ is the core's (installed below the class, src/bind_launch.cpp): a launcher made before
    # for a configuration of ints (grid and block ints or tuples of ints, an int stream handle or None, an int
    # shared-memory size or None) comes straight from self._launchers; any other tuple of 2 to 4 items gets a new
    # launcher there, kept in self._launchers if made of ints (the launcher holds this dispatcher, a cycle the GC
    # sees; a stream object is never kept). What is not a plain tuple of 2 to 4 items comes here, and is configured
    # afresh (a tuple subclass) or refused.
    def _configure(self, config):
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise LaunchError("a launch configuration is kernel[griddim, blockdim] or "
                              "kernel[griddim, blockdim, stream, sharedmem]")
        return self._core.configure(*config)

    def _detach_launcher(self, launcher):
        # A launcher given pre_launch_callbacks is no longer handed out for its configuration (bind_launch.cpp).
        for key in [k for k, v in self._launchers.items() if v is launcher]:
            del self._launchers[key]

    def _pre_launch(self, launcher, args):
        # numba-cuda's pre-launch callbacks: each called as callback(kernel, launcher) before the launch, with the
        # compiled kernel (as kern.overloads[sig]) for these arguments.
        kernel = self._spec_for_args(args)
        for callback in list(launcher.pre_launch_callbacks):
            callback(kernel, launcher)

    def configure(self, griddim, blockdim, stream=0, sharedmem=0):
        """``kernel[griddim, blockdim, stream, sharedmem]`` by Numba's older spelling."""
        return self[griddim, blockdim, stream, sharedmem]

    def enable_caching(self):
        """Numba's ``cache=True`` after the fact: nothing to do, compiled code is always cached on disk."""

    def __call__(self, *args, **kwargs):
        raise LaunchError(f"kernel '{self.__name__}': launch configuration was not specified: "
                          f"launch it as {self.__name__}[blockspergrid, threadsperblock](...)")

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launcher for ``ntasks`` threads; the block size comes from the occupancy API unless given."""
        if isinstance(ntasks, bool) or not hasattr(ntasks, "__index__"):
            raise TypeError(f"forall: ntasks must be an int, not {type(ntasks).__name__}")
        if ntasks < 0:
            raise ValueError(f"Can't create ForAll with negative task count: ntasks is {ntasks}")  # numba-cuda's words
        if isinstance(tpb, bool) or not hasattr(tpb, "__index__") or tpb < 0:
            raise TypeError(f"forall: tpb (threads per block) must be an int >= 0 (0: chosen for occupancy), "
                            f"not {tpb!r}")

        def launch(*args):
            if ntasks == 0:
                return
            block = tpb
            if not block:
                kernel = self._compile_for_args(args)
                block = kernel.max_potential_block_size(sharedmem)
            blocks = -(-ntasks // block)         # integer ceiling: exact for any ntasks
            if blocks > jitoptions.INT32_MAX:
                raise OverflowError(f"forall: {ntasks} tasks need {blocks} blocks of {block} threads, more than "
                                    f"CUDA's limit of {jitoptions.INT32_MAX} blocks")
            self[blocks, block, stream, sharedmem](*args)
        return launch

    @property
    def extensions(self):
        """Numba's kernel extensions: a list of objects with a ``prepare_args(ty, val, stream=, retr=)`` method,
        given as ``cuda.jit(extensions=[...])`` or appended here. At each launch every argument passes through
        them, the last in the list first: ``ty`` is the argument's type in the compiled kernel, ``val`` its value,
        ``stream`` the launch's stream (0 for the default one) and ``retr`` a list to which an extension appends
        calls to make after the kernel has run. Each returns ``(ty, val)``; the last ``val`` is what the kernel
        gets, converted as any argument is (a NumPy array copied in and back)."""
        return self._extensions

    @property
    def targetoptions(self):
        return dict(super().targetoptions, extensions=self._extensions)

    # --- compiling ------------------------------------------------------------------------
    def _spec_for_args(self, args):
        params = inspect.signature(self.py_func).parameters
        if any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in params.values()):
            _compiler().program.parse_function(self.py_func)    # raises UnsupportedError naming the def's line
        names = list(params)
        omitted = _omitted(self._defaults, len(names), len(args))
        if omitted is None:
            raise TypingError(f"kernel '{self.__name__}' takes {len(names)} arguments "
                              f"({', '.join(names)}), {len(args)} given")
        # numba-cuda's fold_argument_types: a parameter left out is types.Omitted(its default), a constant of the
        # specialisation; the launch passes only the arguments given (the core keys them alone)
        argtypes = tuple(_compiler().typeof(kernel_view(a), n) for a, n in zip(args, names))
        argtypes += tuple(_compiler().types.Omitted(d) for d in omitted)
        if self._eager:
            return self._eager_match(argtypes)
        return self._specialize(argtypes)

    def _compile_for_args(self, args):
        return self._spec_for_args(args).kernel

    def _eager_match(self, argtypes):
        # Numba's choice among declared signatures, by the compiler's overload resolution (typeconv.best_cases:
        # fewest unsafe, then safe, then promote conversions). Two declared signatures rated alike are Numba's
        # "ambiguous overloading", a TypeError: the launch would otherwise convert the arguments one way of two.
        # Parameters left out of the launch (Omitted) take no part in the choice; their defaults must convert to
        # the declared types, to which the specialisation converts them as constants.
        T = _compiler().types
        omitted = [t for t in argtypes if isinstance(t, T.Omitted)]
        given = _addresses_as_pointers(self._eager, argtypes[:len(argtypes) - len(omitted)])
        defaults = tuple(_default_type(t.value) for t in omitted)
        sigs = [sig for sig in self._eager
                if None not in defaults and _launcher_can_pack(sig.args, given + defaults)]
        cases = [(i, tuple(sig.args[:len(given)])) for i, sig in enumerate(sigs)]
        found = _compiler().typeconv.best_cases(cases, given)
        if len(found) == 1:
            i, formal = found[0]
            declared = sigs[i].args[len(given):]
            return self._specialize(formal + tuple(T.Omitted(t.value, d) for t, d in zip(omitted, declared)))
        if found:
            # numba-cuda's words and spelling of the types (its tests match them), then ours
            tied = "\n".join(f"({', '.join(map(_numba_repr, sigs[i].args))}) -> none" for i, _ in found)
            raise TypeError(f"Ambiguous overloading for <function {self.py_func.__qualname__} at "
                            f"0x{id(self.py_func):x}> ({', '.join(map(_numba_repr, given))}):\n{tied}\n"
                            f"kernel '{self.__name__}': these signatures take the arguments equally well; "
                            f"declare one signature, or convert the arguments to one of them")
        if self._specialized:
            # numba-cuda launches a kernel of one signature (not a list) without matching: each array argument's
            # memory is passed as it is. An integer array whose dtype differs from the declared one only in
            # sign (uint32 for int32[:]) is read as that type there; cudajit does the same, and nothing else.
            relabelled = _as_declared_sign(self._eager[0].args, argtypes)
            if relabelled is not None and relabelled != argtypes:
                return self._eager_match(relabelled)
        sigs = "; ".join(_void_sig(s.args) for s in self._eager)
        raise TypingError(f"kernel '{self.__name__}': No matching definition for argument type(s) "
                          f"{', '.join(map(str, argtypes))}; it was compiled for: {sigs}")

    def _specialize(self, argtypes):
        key = (_backend.current().target(), argtypes)
        spec = self._specs.get(key)
        if spec is None:
            _check_parameter_bytes(self.__name__, argtypes)
            with _compile_lock:
                spec = self._specs.get(key)
                if spec is None:
                    options = self._options.for_backend(_backend.current())
                    ks = _compiler().compile_kernel(self.py_func, argtypes, options)
                    spec = _Specialization(ks.signature, ks, build.build(ks, options))
                    self._specs[key] = spec
        return spec

    @hide_internal_frames
    def compile(self, sig):
        """Compile eagerly for a signature (a string, a Signature, or a tuple of argument types)."""
        sig = _compiler().parse_signature(sig)
        if sig.return_type is not None and str(sig.return_type) not in ("none", "void"):
            raise TypingError(f"kernel '{self.__name__}' must return void, not {sig.return_type}")
        self._eager.append(sig)
        return self._specialize(tuple(sig.args)).kernel

    @hide_internal_frames
    def specialize(self, *args):
        """A dispatcher fixed to the types of ``args`` (Numba's ``specialize``; one per argument types)."""
        if self._specialized:
            raise RuntimeError(f"Dispatcher already specialized: kernel '{self.__name__}' has its one signature")
        # A type (``float32[::1]``) stands for itself: the specialization for arguments of that type.
        argtypes = tuple(a if isinstance(a, _compiler().types.Type) else _compiler().typeof(a) for a in args)
        key = (_backend.current().target(), argtypes)
        d = self._specializations.get(key)
        if d is None:
            d = CUDADispatcher(self.py_func, options=self._options, extensions=self._extensions)
            d._lto = self._lto
            d._eager.append(_signature_of(argtypes))
            d._specialize(argtypes)
            d._specialized = True
            self._specializations[key] = d
        return d

    @property
    def specializations(self):
        """The dispatchers ``specialize`` made, by (target, argument types) (Numba's: by compute capability)."""
        return self._specializations

    @property
    def specialized(self):
        """True for a dispatcher made by ``specialize`` or given one signature (Numba's meaning)."""
        return self._specialized

    # --- introspection (Numba's API, plus inspect_source) ---------------------------------
    def _current_specs(self):
        # Eager signatures exist on every backend: under one not compiled for yet (jit ran under the GPU,
        # a test now selects the CPU), compile them before saying what there is.
        for sig in self._eager:
            self._specialize(tuple(sig.args))
        target = _backend.current().target()
        return {argtypes: s for (t, argtypes), s in self._specs.items() if t == target}

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
        # A signature as a string, a Signature (``void(float32[:])``) or a tuple of argument types (a key of
        # ``overloads``), as Numba's inspect_* and get_* methods take.
        if isinstance(signature, (str, _compiler().types.Signature)):
            key = tuple(_compiler().parse_signature(signature).args)
        elif isinstance(signature, (tuple, list)):
            key = tuple(signature)
        else:
            raise TypeError(f"kernel '{self.__name__}': a signature is a str, a Signature or a tuple of argument "
                            f"types, not {type(signature).__name__} {signature!r:.60}")
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
        arch = _backend.current().arch()
        options = self._options.for_backend(_backend.GPU)
        out = {k: build.gpu_image(s.source.source, options, arch=arch, cubin=False).decode()
               for k, s in self._pick(signature).items()}
        return next(iter(out.values())) if signature is not None else out

    inspect_ptx = inspect_asm     # the PTX, by the name older Numba code uses
    inspect_llvm = _no_llvm("inspect_llvm", "LLVM IR")
    def inspect_lto_ptx(self, signature=None):
        """numba-cuda's PTX after link-time optimisation, for a kernel made with ``lto=True`` (RuntimeError
        otherwise, as there). A kernel and the device functions it calls are one NVRTC unit, optimised whole, so
        this is that unit's PTX: ``inspect_asm()``'s. A kernel linking LTO-IR files (``link=[...]``) is not
        covered: NotImplementedError."""
        if not self._lto:
            raise RuntimeError("LTO is not enabled")
        picked = self._pick(signature)
        for s in picked.values():
            ltoir = [o.name for o in s.source.link_objects if o.kind == "ltoir"]
            if ltoir:
                raise NotImplementedError(f"inspect_lto_ptx: kernel '{self.__name__}' links LTO-IR "
                                          f"({', '.join(map(str, ltoir))}); cudajit gives the PTX of its own unit "
                                          f"only (inspect_asm()), not of the program nvJitLink optimises with it")
        return self.inspect_asm(signature)

    def inspect_sass(self, signature=None):
        """SASS for each specialization: the cubin NVRTC builds for the current device (sm_90 without a GPU),
        disassembled by the toolkit's cuobjdump or nvdisasm (CudaSupportError when neither is installed)."""
        from .ptx import sass
        arch = _backend.current().arch()
        options = self._options.for_backend(_backend.GPU)
        out = {k: sass(build.gpu_image(s.source.source, options, arch=arch, cubin=True))
               for k, s in self._pick(signature).items()}
        return next(iter(out.values())) if signature is not None else out

    def _attr(self, name, signature):
        out = {k: getattr(s.kernel, name) for k, s in self._pick(signature).items()}
        # One value for one signature, or for a specialized kernel (it has one), as in Numba.
        return next(iter(out.values())) if signature is not None or self._specialized else out

    def get_regs_per_thread(self, signature=None):
        return self._attr("regs", signature)

    get_regs_usage = get_regs_per_thread

    def get_shared_mem_per_block(self, signature=None):
        return self._attr("shared_bytes", signature)

    def get_local_mem_per_thread(self, signature=None):
        return self._attr("local_bytes", signature)

    def get_const_mem_size(self, signature=None):
        return self._attr("const_bytes", signature)

    def get_max_threads_per_block(self, signature=None):
        return self._attr("max_threads_per_block", signature)

    def __reduce__(self):
        # Numba's dispatchers pickle as their Python function and options (Dask and multiprocessing ship kernels to
        # other processes); the receiver compiles again, from the disk cache when the source is the same.
        return _rebuild_dispatcher, (*pickled_function(self.py_func, self), tuple(self._eager), self._options,
                                     self._specialized, self._extensions)

    def __repr__(self):
        return f"<cudajit kernel {self.__name__}>"


_core.install_getitem(CUDADispatcher)


def _extension_list(extensions):
    """cuda.jit(extensions=...): the list itself (Numba keeps the caller's list), or a list of any other
    iterable; each must have a prepare_args method."""
    if extensions is None:
        return []
    if not isinstance(extensions, list):
        if isinstance(extensions, (str, bytes)) or not hasattr(extensions, "__iter__"):
            raise TypeError(f"cuda.jit(extensions=...) must be a list of objects with a prepare_args method, "
                            f"not {type(extensions).__name__}")
        extensions = list(extensions)
    for i, ext in enumerate(extensions):
        _check_extension(ext, i)
    return extensions


def _check_extension(ext, i):
    if not callable(getattr(ext, "prepare_args", None)):
        raise TypeError(f"kernel extension {i} ({type(ext).__name__}) has no prepare_args(ty, val, stream=, retr=) "
                        f"method")


def _extend_args(owner, args, stream, capture=False):
    """A launch's arguments through the kernel's extensions (numba-cuda's _Kernel._prepare_args), then converted as
    any launch's are (args.prepare_args). Called by the core while ``owner.extensions`` holds any."""
    if owner is None:
        raise ReferenceError("the kernel's dispatcher has been freed")
    spec = owner._spec_for_args(args)
    extensions = list(reversed(owner._extensions))
    for i, ext in enumerate(owner._extensions):
        _check_extension(ext, i)
    from .streams import _external
    stream_arg = _external(stream) if stream else 0
    retr = []
    values = []
    for ty, val in zip(spec.argument_types, args):
        for ext in extensions:
            result = ext.prepare_args(ty, val, stream=stream_arg, retr=retr)
            if not (isinstance(result, tuple) and len(result) == 2):
                raise TypeError(f"kernel '{owner.__name__}': extension {type(ext).__name__}.prepare_args must return "
                                f"(ty, val), not {type(result).__name__}")
            ty, val = result
        values.append(val)
    params = tuple(inspect.signature(owner.py_func).parameters)
    converted, write_back = prepare_args(tuple(values), stream, kernel=owner.__name__, params=params,
                                         capture=capture)
    if not retr:
        return converted, write_back

    def finish():
        if write_back is not None:
            write_back()
        for call in retr:
            call()
    return converted, finish


def _reduce_launcher(launcher):
    # kern[g, b] pickles as its kernel and configuration, as numba-cuda's configured launches do; a stream is the
    # sending process's own, so a launcher bound to one does not pickle.
    if launcher._has_pre_launch_callbacks:      # not pre_launch_callbacks: asking makes the list (and detaches)
        raise pickle.PicklingError("Cannot pickle configured launches with pre-launch callbacks")
    if launcher.stream:
        raise pickle.PicklingError(f"cannot pickle a launch of {launcher.dispatcher!r} bound to a stream (a stream "
                                   f"belongs to one process): pickle the kernel and configure it where it lands")
    return _rebuild_launcher, (launcher.dispatcher, launcher.griddim, launcher.blockdim, launcher.sharedmem)


def _rebuild_launcher(dispatcher, griddim, blockdim, sharedmem):
    return dispatcher[griddim, blockdim, 0, sharedmem]


copyreg.pickle(_core.Launcher, _reduce_launcher)


class DeviceFunction(_JitFunction):
    """What ``@cuda.jit(device=True)`` returns: callable from kernels and other device functions."""

    def __init__(self, py_func, sigs=(), options=None):
        super().__init__(py_func, options)
        # Declared signatures: calls convert their arguments and result to these types, as in Numba.
        self.__cudajit_signatures__ = []
        for sig in sigs:
            self.compile(sig)

    @hide_internal_frames
    def compile(self, sig):
        sig = _compiler().parse_signature(sig)
        _compiler().compile_device(self.py_func, tuple(sig.args), self._options)
        self.__cudajit_signatures__.append(sig)
        return sig

    def inspect_asm(self, signature=None):
        """PTX of the device function, Numba's ABI, with its options (fastmath, debug, opt, ...): for
        ``signature`` (a str then), or a dict over the declared signatures keyed by argument types, as numba-cuda's
        device dispatcher. For the current device's architecture, or sm_90 without a GPU."""
        from .ptx import compile_ptx
        o = self._options
        cc = _backend.current().compute_capability()
        sigs = self.__cudajit_signatures__ if signature is None else [_compiler().parse_signature(signature)]
        out = {tuple(sig.args): compile_ptx(self.py_func, sig, debug=o.debug, lineinfo=o.lineinfo, device=True,
                                            fastmath=o.fastmath, cc=cc, opt=o.opt, forceinline=o.inline)[0]
               for sig in sigs}
        return next(iter(out.values())) if signature is not None else out

    inspect_ptx = inspect_asm     # the PTX, by the name older Numba code uses

    def __call__(self, *args, **kwargs):
        raise TypingError(f"device function '{self.__name__}' can only be called from a kernel or another "
                          f"device function, not from host code (use .py_func to run the Python)")

    def __reduce__(self):
        return _rebuild_device_function, (*pickled_function(self.py_func, self), tuple(self.__cudajit_signatures__), self._options)

    def __repr__(self):
        return f"<cudajit device function {self.__name__}>"

    def __getitem__(self, config):
        raise RuntimeError(f"Cannot compile a device function as a kernel: device function '{self.__name__}' "
                           f"cannot be launched; it was made with cuda.jit(device=True): call it from a kernel, or "
                           f"decorate a kernel with cuda.jit")

    def inspect_sass(self, signature=None):
        raise RuntimeError(f"Cannot inspect SASS of a device function: '{self.__name__}' was made with "
                           f"cuda.jit(device=True), and SASS exists for kernels only; inspect_asm() gives its PTX")


def pickled_function(py_func, owner):
    """(``py_func`` pickled, its source: file name and text), for ``owner``'s ``__reduce__``. By value through
    cloudpickle, as Numba's own pickling does: a kernel defined in a function, a notebook or ``__main__`` has no
    importable name, and the receiving process may not have its file; cudajit compiles from source, so the text
    travels too (``_sources.source_of``: cloudpickle 3.1.3 no longer keeps even the file's name)."""
    try:
        import cloudpickle
    except ImportError:                 # a dependency; without it, functions with importable names still pickle
        cloudpickle = None
    try:
        payload = (cloudpickle or pickle).dumps(py_func)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise pickle.PicklingError(f"cannot pickle {owner!r}: {exc}"
                                   + ("" if cloudpickle else " (install cloudpickle to pickle functions by value)")
                                   ) from None
    return payload, _sources.source_of(py_func)


def unpickled_function(payload, source):
    py_func = pickle.loads(payload)
    _sources.adopt(py_func, source)
    return py_func


def _rebuild_dispatcher(payload, source, sigs, options, specialized, extensions=None):
    d = CUDADispatcher(unpickled_function(payload, source), sigs, options, extensions)
    d._specialized = specialized
    return d


def _rebuild_device_function(payload, source, sigs, options):
    return DeviceFunction(unpickled_function(payload, source), sigs, options)


def _omitted(defaults, nparams, nargs):
    """The defaults of the parameters a launch of ``nargs`` arguments leaves out (``()`` for none), or None when
    ``nargs`` arguments cannot call a kernel of ``nparams`` parameters with those ``defaults``."""
    if nargs == nparams:
        return ()
    if nparams - len(defaults) <= nargs < nparams:
        return defaults[nargs - nparams:]
    return None


def _default_type(value):
    """The type a default value would have as an argument (eager signatures: must it convert?); None if none."""
    try:
        return _compiler().typeof(value)
    except TypingError:
        return None


def _signature_of(argtypes):
    from ..compiler import types
    return types.void(*argtypes)


def _as_declared_sign(declared, argtypes):
    """``argtypes`` with each integer array that differs from its declared parameter only in sign (uint32[:] for
    int32[:], same ndim) given the declared dtype; None when the counts differ. The rest stays as it was, for the
    usual match to accept or refuse."""
    from ..compiler import types
    if len(declared) != len(argtypes):
        return None
    out = []
    for want, have in zip(declared, argtypes):
        if (isinstance(want, types.Array) and isinstance(have, types.Array) and want.ndim == have.ndim
                and isinstance(want.dtype, types.Integer) and isinstance(have.dtype, types.Integer)
                and want.dtype.signed != have.dtype.signed and want.dtype.bitwidth == have.dtype.bitwidth):
            have = have.copy(dtype=want.dtype)
        out.append(have)
    return tuple(out)


def _numba_repr(t):
    """A type as numba's repr spells it in messages: ``Array(float64, 1, 'C', False, aligned=True)``."""
    T = _compiler().types
    if isinstance(t, T.Array):
        return f"Array({_numba_repr(t.dtype)}, {t.ndim}, '{t.layout}', {t.readonly}, aligned=True)"
    return str(t)


def _void_sig(args):
    return f"void({', '.join(map(str, args))})"


def _kind(t):
    """A scalar type's place in the order values may convert: bool -> int -> float -> complex (an IntEnumMember
    is an int)."""
    from ..compiler import types
    return next(i for i, cls in enumerate((types.Boolean, types.Integer, types.Float, types.Complex))
                if isinstance(t, cls))


def _addresses_as_pointers(sigs, argtypes):
    """An integer (an address, e.g. from ``__cuda_array_interface__['data'][0]``) passes where a declared signature
    has a ``CPointer(T)`` kernel parameter, as in numba-cuda's CPointer example."""
    from ..compiler import types
    out = list(argtypes)
    for sig in sigs:
        for i, (want, have) in enumerate(zip(sig.args, argtypes)):
            if isinstance(want, types.CPointer) and types.is_int(have):
                out[i] = want
    return tuple(out)


def _launcher_can_pack(sig_args, argtypes):
    """False when some argument is a float for an int parameter or a complex for a real one (tuples element by
    element), or a bfloat16 or fp8 type meets another type (pass ml_dtypes.bfloat16 values for bfloat16
    parameters, ml_dtypes.float8_e4m3fn for fp8_e4m3 ...): the
    launcher cannot pack those (numba-cuda fails there too, with a less clear error). Which of the
    signatures that remain fits best is typeconv's question."""
    from ..compiler import types
    if len(sig_args) != len(argtypes):
        return False
    for want, have in zip(sig_args, argtypes):
        if isinstance(want, types.BaseTuple) and isinstance(have, types.BaseTuple):
            if not _launcher_can_pack(want.types, have.types):
                return False
        elif types.bfloat16 in (want, have) or isinstance(want, types.FP8) or isinstance(have, types.FP8):
            if want != have:          # a bfloat16 or fp8 argument is launched as its bits: only to its own type
                return False
        elif isinstance(want, types.Scalar) and isinstance(have, types.Scalar):
            if _kind(have) > _kind(want):
                return False
    return True


def jit(func_or_sig=None, **options):
    """Numba's ``cuda.jit``: decorate a kernel (or, with ``device=True``, a device function).

    Forms: ``@cuda.jit``, ``@cuda.jit(...)`` with options, ``@cuda.jit("void(float32[:])")``,
    a list of signatures, a Signature object such as ``void(float32[:], int32)``, or a tuple of
    argument types ``(float32[:], int32)``. Without a signature the kernel compiles at its first launch,
    once per combination of argument types; with one (or a list), eagerly, and only for those types.
    Launch a kernel as ``kernel[blockspergrid, threadsperblock, stream, sharedmem](*args)``.

    Options (keyword-only; cudajit/jitoptions.py declares each once):
{options}
    """
    removed = sorted(set(options) & set(jitoptions.REMOVED))
    if removed:      # numba-cuda's DeprecationError for the keywords of its first API
        raise DeprecationError(f"Deprecated keyword argument `{removed[0]}`. Signatures should be passed as the "
                               f"first positional argument.")
    values = jitoptions.check(options)
    forced = jitoptions.env_boundscheck()
    compile_options = jitoptions.compile_options(
        values, **({} if forced is None else {"boundscheck": forced}))
    device, lto, extensions = values["device"], values["lto"], values["extensions"]

    def wrap(pyfunc, sigs):
        jitoptions.python_function(pyfunc, "cuda.jit")
        if device:
            return DeviceFunction(pyfunc, sigs, compile_options)
        d = CUDADispatcher(pyfunc, sigs, compile_options, extensions)
        d._lto = bool(lto)
        d._specialized = len(sigs) == 1 and not isinstance(func_or_sig, list)   # Numba: one signature, not a list
        return d

    if callable(func_or_sig) and not _is_signature(func_or_sig):
        return wrap(func_or_sig, ())
    # A list holds signatures; a tuple is one signature of argument types, as in Numba: jit((float32[:], int32)).
    sigs = () if func_or_sig is None else (
        tuple(func_or_sig) if isinstance(func_or_sig, list) else (func_or_sig,))
    return hide_internal_frames(lambda pyfunc: wrap(pyfunc, sigs))


def _is_signature(obj):
    from ..compiler import types
    return isinstance(obj, (str, types.Signature))


jit.__doc__ = jit.__doc__.format(options=jitoptions.docs())
jit.__signature__ = jitoptions.signature()

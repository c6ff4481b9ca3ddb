"""``cuda.compile``, ``cuda.compile_ptx``, ``cuda.compile_all`` and the ``_for_current_device`` forms: a Python
function compiled for a signature to PTX by NVRTC, without a GPU, returning ``(ptx, return_type)`` as numba-cuda
(``compile_all``: ``([ptx, linked objects...], return_type)``).

A kernel (``device=False``) gives its ``.entry``. A device function gives an ``extern "C"`` function named
``abi_info['abi_name']`` (default: the Python function's name), compiled with ``-rdc=true`` so that it stays in
the PTX: ``abi="c"`` returns the value; ``abi="numba"`` is Numba's device ABI, ``int name(T* result, args...)``
returning 0. Parameters have cudajit's kernel ABI types (docs/INTERNALS.md): scalars as C, arrays as
``cj::Array``. Only PTX can be produced (``output="ltoir"`` needs NVVM, which cudajit does not use).
"""
from .. import _backend, _core, config, jitoptions
from ..errors import CudaSupportError, hide_internal_frames
from . import build


@hide_internal_frames
def compile(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False, cc=None, opt=True, abi="c",
            abi_info=None, output="ptx", forceinline=False, launch_bounds=None):
    """``pyfunc`` compiled for ``sig`` to PTX: ``(ptx text, return type)``. numba-cuda's defaults: a device
    function with the C ABI."""
    ptx, restype, _ = _compile("cuda.compile", pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt, abi,
                               abi_info, output, forceinline, launch_bounds)
    return ptx, restype


@hide_internal_frames
def compile_all(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False, cc=None, opt=True, abi="c",
                abi_info=None, output="ltoir", forceinline=False, launch_bounds=None):
    """numba-cuda's ``compile_all``: ``([code, ...], return type)``, the compiled function's code first, then each
    linked file that is not CUDA C++ (a LinkableCode, as given to ``link=``). CUDA C++ that the function links is
    compiled into the first code (cudajit compiles one unit). ``output="ptx"`` only: LTO-IR (numba-cuda's default
    here) is refused with NotImplementedError, as by ``cuda.compile``."""
    ptx, restype, objects = _compile("cuda.compile_all", pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt,
                                     abi, abi_info, output, forceinline, launch_bounds)
    return [ptx] + list(objects), restype


def _compile(what, pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt, abi, abi_info, output, forceinline,
             launch_bounds):
    """(PTX text, return type, linked non-C++ objects) of ``pyfunc`` for ``sig``."""
    from .. import compiler
    jitoptions.python_function(pyfunc, what)
    if not (isinstance(output, str) and output == "ptx"):
        raise NotImplementedError(f"{what}(output={output!r}): cudajit produces PTX only (output='ptx'); "
                                  f"LTO-IR needs NVVM, which cudajit does not use")
    if not (isinstance(abi, str) and abi in ("c", "numba")):
        raise NotImplementedError(f"{what}(abi={abi!r}): the ABI is 'c' or 'numba'")
    if cc is not None and not (isinstance(cc, tuple) and len(cc) == 2 and all(isinstance(x, int) for x in cc)):
        raise TypeError(f"cc must be a (major, minor) tuple of ints such as (8, 0), not {cc!r}")
    major, minor = cc or config.CUDA_DEFAULT_PTX_CC
    if abi_info is not None and not isinstance(abi_info, dict):
        raise TypeError(f"{what}(abi_info=...) must be a dict such as {{'abi_name': 'f'}}, not {abi_info!r:.60}")
    sig = compiler.parse_signature(sig)
    # the options cuda.jit has too: checked by the same entries of its table
    values = jitoptions.check(dict(debug=debug, lineinfo=lineinfo, fastmath=fastmath, opt=opt, forceinline=forceinline,
                                   launch_bounds=launch_bounds), what)
    options = jitoptions.compile_options(values).for_backend(_backend.GPU)
    flags = build.nvrtc_options(options)
    if device:
        ds = compiler.compile_device(pyfunc, tuple(sig.args), options)
        name = (abi_info or {}).get("abi_name", pyfunc.__name__)
        if not (isinstance(name, str) and name.isidentifier() and name.isascii()):      # the PTX symbol's name
            raise ValueError(f"{what}: abi_info['abi_name'] must be a C identifier, not {name!r:.60}")
        restype = sig.return_type if sig.return_type is not None else ds.return_type   # a declared one converts
        source = ds.source + _exported_wrapper(ds, name, abi, restype)
        flags.append("-rdc=true")
        objects = ds.link_objects
    else:
        if sig.return_type is not None and str(sig.return_type) not in ("none", "void"):
            raise TypeError(f"kernel '{pyfunc.__name__}' must return void, not {sig.return_type}")
        ks = compiler.compile_kernel(pyfunc, tuple(sig.args), options)
        source, restype, objects = ks.source, compiler.types.void, ks.link_objects
    if not _core.nvrtc_available()[0]:
        raise CudaSupportError(f"{what} needs NVRTC, which was not found: {_core.nvrtc_available()[1]}")
    oldest = min(_core.nvrtc_supported_archs(), default=0)
    if major * 10 + minor < oldest:     # numba-cuda's NVVM refuses these the same way
        raise CudaSupportError(f"{what}: compute capability {major}.{minor} is not supported by this NVRTC "
                               f"(requires >= {oldest // 10}.{oldest % 10})")
    ptx = build.nvrtc(source, f"{pyfunc.__name__}.cu", flags, major * 10 + minor, False)
    return ptx.decode(), restype, objects


def _exported_wrapper(ds, name, abi, ret):
    """The ``extern "C"`` function that exposes the device function ``ds`` under ``name`` in ``abi``, returning
    ``ret``."""
    from ..compiler import types
    params = [f"{t.cpp} a{i}" for i, t in enumerate(ds.signature.args)]
    call = f"{ds.cname}({', '.join(f'a{i}' for i in range(len(params)))})"
    if isinstance(ds.return_type, types.Optional) and not isinstance(ret, types.Optional):
        call = f"cj::opt_value({call})"        # a declared type: None ends the thread (no status to report it)
    if str(ret) != "none":
        call = f"static_cast<{ret.cpp}>({call})"
    if abi == "c":
        body = f"{call};" if str(ret) == "none" else f"return {call};"
        return f'\nextern "C" __device__ {ret.cpp} {name}({", ".join(params)}) {{ {body} }}\n'
    out = [] if str(ret) == "none" else [f"{ret.cpp}* cj_result"]
    body = f"{call};" if str(ret) == "none" else f"*cj_result = {call};"
    return f'\nextern "C" __device__ int {name}({", ".join(out + params)}) {{ {body} return 0; }}\n'


def compile_for_current_device(pyfunc, sig, **kws):
    """``cuda.compile`` for the compute capability of the current device."""
    return compile(pyfunc, sig, cc=_current_cc(), **kws)


def compile_ptx(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False, cc=None, opt=True,
                abi="numba", abi_info=None, forceinline=False, launch_bounds=None):
    """numba-cuda's ``compile_ptx``: a kernel by default (``device=True`` for a device function, Numba's ABI)."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc, opt=opt,
                   abi=abi, abi_info=abi_info, forceinline=forceinline, launch_bounds=launch_bounds)


def compile_ptx_for_current_device(pyfunc, sig, **kws):
    """``compile_ptx`` for the compute capability of the current device."""
    return compile_ptx(pyfunc, sig, cc=_current_cc(), **kws)


def _current_cc():
    from .devices import get_current_device
    return tuple(get_current_device().compute_capability)


def _sass_tool():
    """cuobjdump (or nvdisasm) from PATH or the CUDA toolkit's bin folder; None when neither is installed."""
    import os
    import shutil
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    for tool, args in (("cuobjdump", ["-sass"]), ("nvdisasm", ["-c"])):
        found = shutil.which(tool) or next((os.path.join(r, "bin", tool) for r in roots
                                            if r and os.access(os.path.join(r, "bin", tool), os.X_OK)), None)
        if found:
            return [found] + args
    return None


def sass(cubin):
    """The SASS of a cubin, disassembled by cuobjdump or nvdisasm (numba-cuda's inspect_sass uses nvdisasm)."""
    import subprocess
    import tempfile
    tool = _sass_tool()
    if tool is None:
        raise CudaSupportError("inspect_sass needs cuobjdump or nvdisasm from the CUDA toolkit, and neither was found "
                               "on PATH or in $CUDA_HOME/bin; inspect_asm() gives the PTX")
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        done = subprocess.run(tool + [f.name], capture_output=True, text=True)
    if done.returncode != 0:
        raise CudaSupportError(f"{tool[0]} failed on the kernel's cubin: {done.stderr.strip()}")
    return done.stdout

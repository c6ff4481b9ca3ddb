"""Turn generated C++ into a launchable ``_core.Kernel`` for the backend in use.

GPU: NVRTC → cubin for the current device (PTX where NVRTC is newer than the driver), loaded
into a module. CPU: the host C++ compiler → shared library. Both are cached on disk by the core
(key: source, options, arch or compiler identity, header hash), and per process here.
"""
import re

from .. import _backend, _core, _paths, config, jitoptions, settings
from . import ffi
from ..errors import CompileError

_NVRTC_BASE = ("-std=c++17", "-default-device", "-DCJ_GPU_BUILD=1")


def nvrtc_options(options):
    """NVRTC flags for a kernel's CompileOptions (Numba's: fastmath, lineinfo, debug, max_registers, opt).
    Bounds checks are in the source and add no flag: they compile at full optimisation."""
    includes = [_paths.include_dir()] + _paths.nvrtc_include_dirs()
    return list(_NVRTC_BASE) + ["-I" + d for d in includes] + config.extra_include_flags() + \
        jitoptions.nvrtc_flags(options)


def host_options(options):
    # -fwrapv: Numba's integers wrap on overflow (as LLVM's and the GPU's do); plain C++ leaves it undefined.
    return ["-fwrapv"] + config.extra_include_flags() + jitoptions.host_flags(options)


def _params(ks):
    return [(p.kind, p.code, p.ndim) for p in ks.params]


def nvrtc(source, name, flags, arch, cubin):
    """Every NVRTC compile of generated ``source`` (disk-cached; cubin or PTX bytes): with NVRTC's -minimal unless
    the user's CUDA C++ is pasted into it (headers.LINKED_SOURCES_MARK: it may need CUDA's runtime API headers),
    and with only the parts of the runtime header its functions recorded (compiler/headers.py). A unit the lean compile
    rejects is compiled with the whole header, whose errors, if any, are the ones reported; under
    CUDAJIT_CHECK_NVRTC=1 a unit that only the whole header compiles is an error (a need went unrecorded)."""
    from ..compiler.headers import LINKED_SOURCES_MARK, lean_flags
    minimal = LINKED_SOURCES_MARK not in source
    lean = lean_flags(source)
    if lean is not None:
        try:
            return _core.nvrtc_compile(source, name, list(flags) + lean, arch, cubin, minimal)
        except CompileError as e:
            lean_error = e
    image = _core.nvrtc_compile(source, name, flags, arch, cubin, minimal)
    if lean is not None and settings.value("CUDAJIT_CHECK_NVRTC"):
        raise CompileError(f"cudajit bug: the unit compiles with the whole runtime header but not with {lean} "
                           f"(a need the translator did not record: compiler/headers.py):\n{lean_error}")
    return image


def gpu_image(source, options, arch=None, cubin=True, name="kernel.cu"):
    """Compile generated ``source`` with NVRTC (disk-cached); returns the cubin or PTX bytes."""
    return nvrtc(source, name, nvrtc_options(options), arch or _backend.GPU.arch(), cubin)


def build(ks, options):
    """A ``_core.Kernel`` for KernelSource ``ks`` on the current backend."""
    try:
        return _build(ks, options)
    except CompileError as e:
        # A foreign function whose definition does not fit its declaration fails the static_assert that
        # compiler/program.py's ``_externs`` puts in its wrapper: that sentence becomes the first line.
        from ..compiler.program import FOREIGN_MISMATCH
        found = re.search(re.escape(FOREIGN_MISMATCH) + r"[^\n]*?(?=\"?\s*$)", str(e), re.MULTILINE)
        if found is None:
            raise
        raise CompileError(found.group(0).replace('\\"', '"') + "\n" + str(e)) from None


def _build(ks, options):
    handler = _error_handler(ks) if ks.error_sites else None
    return _cooperative(_BUILDERS[_backend.current()](ks, options, handler), ks, options)


def _build_gpu(ks, options, handler):
    if ks.link_objects:
        image = ffi.link_gpu(ks.source, nvrtc_options(options), ks.link_objects, _backend.GPU.arch())
    else:
        image = gpu_image(ks.source, options, cubin=True)
    kernel = _core.Kernel(ks.entry, _params(ks), _core.GpuModule(image), None, handler)
    if ks.coarse:                          # compiler/coarsen.py: the entry for large elementwise launches
        name, read_only, source = ks.coarse
        kernel.set_coarse(name, read_only, lambda: _core.GpuModule(gpu_image(source, options, cubin=True)))
    return kernel


def _build_cpu(ks, options, handler):
    ffi.refuse_on_cpu(ks.link_objects)
    if settings.value("CUDAJIT_CHECK_NVRTC"):
        check_nvrtc(ks.source, options)
    for attempt in range(4):
        path = _core.compile_host(ks.source, host_options(options), _paths.include_dir())
        try:
            cpu = _core.CpuKernel(path, ks.entry, bool(ks.uses_barriers), ks.local_bytes)
            break
        except CompileError as e:
            # Another thread or process removed (cudajit.cache.clear()), truncated or rewrote the cache entry since
            # the compile verified it: compile again (src/cpu_launch.cpp, open_private_copy), a few times at most.
            if "was removed or changed while it was loaded" not in str(e) or attempt == 3:
                raise
    return _core.Kernel(ks.entry, _params(ks), None, cpu, handler, _max_threads(options))


# Each backend's build of a compiled unit into a launchable _core.Kernel: NVRTC to a cubin loaded as a module, or
# the host compiler to a shared object run by the CPU launcher.
_BUILDERS = {_backend.GPU: _build_gpu, _backend.CPU: _build_cpu}


def _cooperative(kernel, ks, options):
    """A kernel that uses cuda.cg's grid group is launched cooperatively (Numba decides it the same way). Its
    shared-memory carveout, when ``cuda.jit`` was given one, is set on the GPU's function (nothing on the CPU)."""
    kernel.cooperative = ks.cooperative
    if options.shared_memory_carveout is not None:
        kernel.shared_memory_carveout = options.shared_memory_carveout
    return kernel


def _max_threads(options):
    """The launch bound's maximum threads per block (the GPU reads it from the cubin; the CPU is told)."""
    lb = options.launch_bounds
    if not lb:
        return 0
    return int(lb if isinstance(lb, int) else tuple(lb)[0])


def _error_handler(ks):
    """debug=True or boundscheck: the launcher calls this with the record of the first thread that raised."""
    sites = ks.error_sites
    kernel = ks.entry[5:].rsplit("_", 1)[0] if ks.entry.startswith("cj_k_") else ks.entry

    def raise_from(site, tid, ctaid, values):
        raise sites[site].exception(kernel, tid, ctaid, values)
    return raise_from


def check_nvrtc(source, options, arch=90):
    """Compile for sm_90 with NVRTC too (CI has no GPU: this keeps the GPU path compiling)."""
    try:
        nvrtc(source, "kernel.cu", nvrtc_options(options), arch, True)
    except CompileError as e:
        raise CompileError(f"the generated CUDA C++ does not compile for sm_{arch} (a cudajit bug):\n{e}") from None

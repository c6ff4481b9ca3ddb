"""The environment report of ``python -m cudajit`` (in the spirit of ``numba -s``): versions, the
backend and why, the driver and GPUs, NVRTC and where it came from, the host compiler, the disk
cache, and a one-kernel self-test. Each part is gathered on its own: one that fails says what is
missing, and the report goes on.
"""
import os
import platform
import shutil
import sys
import time

SECTIONS = ("cudajit", "Backend", "CUDA driver", "GPUs", "NVRTC", "Host compiler", "Disk cache", "Self-test")


def _cudajit():
    import numpy
    import cudajit
    from . import _core, _paths
    return [("cudajit", f"{cudajit.__version__} ({os.path.dirname(cudajit.__file__)})"),
            ("core module", _core.__file__),
            ("runtime headers", _paths.include_dir()),
            ("Python", f"{platform.python_version()} ({sys.executable})"),
            ("NumPy", numpy.__version__),
            ("OS", f"{platform.platform()}, {os.cpu_count()} CPUs")]


def _backend():
    from . import _backend as backend
    return [("in use", backend.name()), ("why", backend.reason()),
            ("available", ", ".join(backend.available()))]


def _driver():
    from . import _core
    d = _core.driver_info()
    if not d["found"]:
        return [("found", "no"), ("why", d["why"])]
    v = d["version"]
    rows = [("found", d["path"]), ("version", f"{v // 1000}.{v % 1000 // 10} ({v})" if v else "unknown")]
    if not d["usable"]:
        rows.append(("usable", f"no: {d['why']}"))
    return rows


def _gpus():
    from . import _backend as backend
    from . import _core
    ok, why = backend.gpu_status()
    if not ok:
        return [("none", why)]
    rows = []
    for i in range(_core.device_count()):
        d = _core.Device(i)
        major, minor = d.compute_capability
        rows.append((f"[{i}]", f"{d.name}, compute capability {major}.{minor}, "
                                f"{d.total_memory / 2**30:.1f} GiB, {d.MULTIPROCESSOR_COUNT} SMs"))
    return rows


def _nvrtc():
    from . import _core, _paths
    info = _core.nvrtc_info()
    searched = [(f"searched {i + 1}", f"{d} [{origin}]: {outcome}")
                for i, (d, origin, outcome) in enumerate(info["searched"])]
    if not info["ok"]:
        return [("found", "no")] + searched + [("why", info["why"].splitlines()[-1])]
    major, minor = info["version"]
    archs = _core.nvrtc_supported_archs()
    version = f"{major}.{minor}"
    if major == 13 and minor < 4:   # docs/INSTALL.md: "Use NVRTC 13.4 or newer with CUDA 13"
        version += ("  (its ptxas miscompiles booleans in unrolled loops: "
                    "pip install 'nvidia-cuda-nvrtc>=13.4')")
    return [("version", version), ("path", info["path"]), ("from", info["origin"]),
            ("archs", f"sm_{archs[0]} .. sm_{archs[-1]}" if archs else "none"),
            ("CUDA headers", ", ".join(_paths.nvrtc_include_dirs()) or "none (generated kernels need none)")
            ] + searched


def _host_compiler():
    from . import _core
    cxx = os.environ.get("CXX")
    path = cxx if cxx else next((shutil.which(c) for c in ("c++", "g++", "clang++") if shutil.which(c)), None)
    if not path:
        return [("found", "no: the CPU backend needs a C++ compiler (g++ or clang++; set CXX)")]
    return [("path", f"{path}" + (" ($CXX)" if cxx else "")), ("version", _core.host_compiler_identity())]


def _cache():
    from . import cache
    directory = cache.directory()
    if directory is None:
        return [("directory", "none: caching is off")]
    files, size = 0, 0
    for root, _, names in os.walk(directory):
        for n in names:
            try:
                size += os.path.getsize(os.path.join(root, n))
                files += 1
            except OSError:  # removed while we walk
                pass
    return [("directory", directory), ("size", f"{size / 2**20:.1f} MiB in {files} files")]


def _self_test():
    import numpy as np
    from . import cuda
    from ._backend import name

    @cuda.jit
    def axpy(out, a, x, y):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(1000), rng.standard_normal(1000)
    out = cuda.device_array_like(x)
    t0 = time.perf_counter()
    axpy[4, 256](out, 2.5, cuda.to_device(x), cuda.to_device(y))
    cuda.synchronize()
    t1 = time.perf_counter()
    axpy[4, 256](out, 2.5, cuda.to_device(x), cuda.to_device(y))
    cuda.synchronize()
    t2 = time.perf_counter()
    ok = np.allclose(out.copy_to_host(), 2.5 * x + y)
    return [("kernel", f"axpy on 1000 float64 on the {name()} backend"),
            ("result", "matches NumPy" if ok else "DIFFERS FROM NUMPY"),
            ("first call", f"{(t1 - t0) * 1e3:.0f} ms (compile or disk cache, and run)"),
            ("second call", f"{(t2 - t1) * 1e3:.2f} ms")]


_GATHER = dict(zip(SECTIONS, (_cudajit, _backend, _driver, _gpus, _nvrtc, _host_compiler, _cache, _self_test)))


def collect(self_test=True):
    """[(section, [(key, value)])]; a part that fails is one row saying why."""
    out = []
    for section, gather in _GATHER.items():
        if section == "Self-test" and not self_test:
            continue
        try:
            rows = gather()
        except Exception as e:  # report it and go on: the point is to say what is missing
            rows = [("unavailable", f"{type(e).__name__}: {e}")]
        out.append((section, rows))
    return out


def render(sections):
    width = max((len(k) for _, rows in sections for k, _ in rows), default=10) + 2
    lines = []
    for section, rows in sections:
        lines.append(f"__{section}__")
        lines += [f"{k:<{width}}: {v}" for k, v in rows]
        lines.append("")
    return "\n".join(lines)

"""NVRTC through the core (src/nvrtc.cpp). NVRTC needs no GPU: everything here compiles for
sm_90 on any machine with NVRTC, and skips where NVRTC is absent."""
import os
import subprocess
import sys

import pytest

import hidden_toolkit

from cudajit import _core
from cudajit.errors import CompileError, CudaSupportError

pytestmark = pytest.mark.skipif(not _core.nvrtc_available()[0],
                                reason=f"NVRTC not found: {_core.nvrtc_available()[1]}")

KERNEL = r"""
extern "C" __global__ void scale(float* a, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] *= s;
}
"""


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("CUDAJIT_CACHE_DIR", str(d))
    _core.nvrtc_clear_memory_cache()
    yield d
    _core.nvrtc_clear_memory_cache()


def cache_files(d, ext):
    return sorted(f for f in os.listdir(d) if f.endswith("." + ext))


def test_version_and_archs():
    major, minor = _core.nvrtc_version()
    assert major >= 12 and minor >= 0
    archs = _core.nvrtc_supported_archs()
    assert 90 in archs and archs == sorted(archs)


def test_cubin_for_sm90(cache_dir):
    image = _core.nvrtc_compile(KERNEL, "scale.cu", [], 90, True)
    assert image[:4] == b"\x7fELF"
    assert b"scale" in image


def test_ptx_for_compute90(cache_dir):
    ptx = _core.nvrtc_compile(KERNEL, "scale.cu", ["-lineinfo"], 90, False)
    text = ptx.decode()
    assert ".target sm_90" in text
    assert ".version" in text
    assert ".entry scale" in text
    assert not ptx.endswith(b"\0")


def test_options_reach_nvrtc(cache_dir):
    src = "#ifndef N\n#error N undefined\n#endif\n" + KERNEL
    image = _core.nvrtc_compile(src, "defs.cu", ["-DN=4"], 90, True)
    assert image[:4] == b"\x7fELF"
    with pytest.raises(CompileError):
        _core.nvrtc_compile(src, "defs.cu", [], 90, True)


def test_syntax_error_raises_compile_error_with_log(cache_dir):
    bad = 'extern "C" __global__ void k(int* a) {\n    a[0] = 1\n}\n'
    with pytest.raises(CompileError) as info:
        _core.nvrtc_compile(bad, "bad.cu", [], 90, True)
    msg = str(info.value)
    assert "bad.cu(" in msg and "error" in msg
    assert cache_files(cache_dir, "cubin") == []


def test_line_directives_survive_in_the_log(cache_dir):
    bad = '#line 7 "user_kernel.py"\nextern "C" __global__ void k() { undefined_name = 1; }\n'
    with pytest.raises(CompileError) as info:
        _core.nvrtc_compile(bad, "gen.cu", [], 90, True)
    assert 'user_kernel.py(7)' in str(info.value)
    assert "undefined_name" in str(info.value)


def test_include_dirs_come_from_options(cache_dir, tmp_path):
    inc = tmp_path / "inc"
    (inc / "cudajit").mkdir(parents=True)
    (inc / "cudajit" / "value.h").write_text("#define CJ_VALUE 3.0f\n")
    src = '#include <cudajit/value.h>\nextern "C" __global__ void k(float* a) { a[0] = CJ_VALUE; }\n'
    image = _core.nvrtc_compile(src, "inc.cu", [f"-I{inc}"], 90, True)
    assert image[:4] == b"\x7fELF"


def test_disk_cache_hit_on_second_compile(cache_dir):
    first = _core.nvrtc_compile(KERNEL, "scale.cu", [], 90, True)
    [name] = cache_files(cache_dir, "cubin")
    # Replace the stored cubin by a recognisable payload: a hit must return it untouched.
    key = name[: -len(".cubin")]
    _core.cache_store(key, "cubin", b"\x7fELF-from-the-cache")
    _core.nvrtc_clear_memory_cache()
    assert _core.nvrtc_compile(KERNEL, "scale.cu", [], 90, True) == b"\x7fELF-from-the-cache"
    assert cache_files(cache_dir, "cubin") == [name]
    # A different arch, output kind, option or name is another key.
    _core.nvrtc_compile(KERNEL, "scale.cu", [], 80, True)
    _core.nvrtc_compile(KERNEL, "scale.cu", ["-DX=1"], 90, True)
    _core.nvrtc_compile(KERNEL, "scale.cu", [], 90, False)
    assert len(cache_files(cache_dir, "cubin")) == 3
    assert len(cache_files(cache_dir, "ptx")) == 1
    assert first[:4] == b"\x7fELF"


WARM_PROCESS = r"""
import sys
from cudajit import _core
image = _core.nvrtc_compile(sys.argv[1], "scale.cu", [], 90, True)
maps = open("/proc/self/maps").read()
print(image.hex(), "libnvrtc.so" in maps)
"""


def test_warm_start_hits_the_cache_without_loading_nvrtc(cache_dir):
    """A fresh process whose kernel is on disk names NVRTC's version from the record that a load of the same
    library file left there (src/nvrtc.cpp, key_version): no 8 ms library load for a warm start."""
    def fresh(kernel):
        r = subprocess.run([sys.executable, "-c", WARM_PROCESS, kernel], capture_output=True, text=True,
                           env=dict(os.environ, CUDAJIT_CACHE_DIR=str(cache_dir)))
        assert r.returncode == 0, r.stderr[-2000:]
        image, loaded = r.stdout.split()
        return image, loaded == "True"
    cold_image, cold_loaded = fresh(KERNEL)
    assert cold_loaded and len(cache_files(cache_dir, "version")) == 1
    warm_image, warm_loaded = fresh(KERNEL)
    assert warm_image == cold_image and not warm_loaded
    # a kernel not on disk still compiles in such a process (NVRTC loads then)
    other, loaded = fresh(KERNEL.replace("*= s", "+= s"))
    assert loaded and other != cold_image
    # without the record, the version comes from NVRTC itself: same key, same image, and the record is back
    for f in cache_files(cache_dir, "version"):
        os.remove(cache_dir / f)
    again, loaded = fresh(KERNEL)
    assert again == cold_image and loaded and len(cache_files(cache_dir, "version")) == 1


def test_memory_cache_serves_without_disk(cache_dir):
    first = _core.nvrtc_compile(KERNEL, "scale.cu", [], 90, True)
    for f in os.listdir(cache_dir):
        os.remove(cache_dir / f)
    assert _core.nvrtc_compile(KERNEL, "scale.cu", [], 90, True) == first
    assert os.listdir(cache_dir) == []


@pytest.mark.parametrize("damage", ["truncate", "flip"])
def test_corrupt_cache_file_recompiles(cache_dir, damage):
    good = _core.nvrtc_compile(KERNEL, "scale.cu", [], 90, True)
    [name] = cache_files(cache_dir, "cubin")
    path = cache_dir / name
    raw = bytearray(path.read_bytes())
    if damage == "truncate":
        raw = raw[: len(raw) // 2]
    else:
        raw[len(raw) // 3] ^= 0x40
    path.write_bytes(bytes(raw))
    _core.nvrtc_clear_memory_cache()
    again = _core.nvrtc_compile(KERNEL, "scale.cu", [], 90, True)
    assert again == good
    assert _core.cache_load(name[: -len(".cubin")], "cubin") == good  # rewritten whole


def test_header_change_misses_the_cache(cache_dir, tmp_path):
    src = '#include <cudajit/value.h>\nextern "C" __global__ void k(float* a) { a[0] = CJ_VALUE; }\n'
    for i, value in enumerate(["1.0f", "2.0f"]):
        inc = tmp_path / f"inc{i}"  # header_hash is computed once per directory
        (inc / "cudajit").mkdir(parents=True)
        (inc / "cudajit" / "value.h").write_text(f"#define CJ_VALUE {value}\n")
        _core.nvrtc_compile(src, "inc.cu", ["-I", str(inc)], 90, True)
    assert len(cache_files(cache_dir, "cubin")) == 2


def test_compiles_without_a_usable_cache_dir(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("CUDAJIT_CACHE_DIR", str(blocker / "cache"))
    _core.nvrtc_clear_memory_cache()
    assert _core.nvrtc_compile(KERNEL, "scale.cu", [], 90, True)[:4] == b"\x7fELF"
    assert _core.cache_dir() is None


def test_choose_target():
    major, minor = _core.nvrtc_version()
    archs = _core.nvrtc_supported_archs()
    same = major * 1000 + minor * 10
    assert _core.nvrtc_choose_target(90, same) == (90, True)
    # A newer driver of any version: still a cubin.
    assert _core.nvrtc_choose_target(90, same + 1000) == (90, True)
    # Minor version compatibility: an older driver of the same major runs our cubins.
    if minor > 0:
        assert _core.nvrtc_choose_target(90, major * 1000) == (90, True)
    # A device newer than NVRTC: PTX for the newest arch it knows, JIT-compiled by the driver.
    assert _core.nvrtc_choose_target(archs[-1] + 50, same + 1000) == (archs[-1], False)
    # An older major version of the driver cannot load anything NVRTC builds.
    with pytest.raises(CudaSupportError, match="driver"):
        _core.nvrtc_choose_target(90, (major - 1) * 1000 + 40)
    # A device older than NVRTC's oldest target.
    with pytest.raises(CudaSupportError, match="sm_30"):
        _core.nvrtc_choose_target(30, same)


def _nvrtc_wheel_root(tmp_path_factory):
    """A site-packages directory holding NVIDIA's CUDA 13 NVRTC wheel (nvidia/cu13/lib): an installed
    one (the `test` extra installs it), else one downloaded now; None when neither works."""
    from cudajit import _paths
    lib = os.path.join(*_paths.WHEEL_LAYOUTS[13][0].split("/"), "libnvrtc.so.13")
    for root in _paths.site_packages():
        if os.path.isfile(os.path.join(root, lib)):
            return root
    target = tmp_path_factory.mktemp("nvrtc-wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                        "nvidia-cuda-nvrtc>=13,<14"], capture_output=True, text=True, timeout=600)
    return str(target) if r.returncode == 0 and os.path.isfile(os.path.join(target, lib)) else None


NVRTC_FROM_WHEEL = r"""
import os
import numpy as np
from cudajit import _core, cuda
info = _core.nvrtc_info()
assert info["ok"], info["why"]
assert info["origin"].startswith("wheel") and info["path"].startswith(ROOT), info
assert _core.nvrtc_version()[0] == 13

@cuda.jit
def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]

# CPU backend with CUDAJIT_CHECK_NVRTC=1: the kernel is also compiled for sm_90 by the wheel's NVRTC.
x, y = np.random.default_rng(2).standard_normal((2, 500)).astype(np.float32)
out = cuda.device_array_like(x)
saxpy[2, 256](out, np.float32(3), cuda.to_device(x), cuda.to_device(y))
np.testing.assert_allclose(out.copy_to_host(), 3 * x + y, rtol=1e-6)
assert any(f.endswith(".cubin") for f in os.listdir(os.environ["CUDAJIT_CACHE_DIR"]))
print("nvrtc", info["version"], info["origin"], info["path"])
"""


def test_nvrtc_found_in_wheel_with_toolkit_hidden(tmp_path, tmp_path_factory):
    why = hidden_toolkit.why_unavailable()
    if why:
        pytest.skip(f"cannot hide the CUDA toolkit: {why}")
    root = _nvrtc_wheel_root(tmp_path_factory)
    if root is None:
        pytest.skip("NVIDIA's nvidia-cuda-nvrtc wheel is neither installed nor downloadable")
    python_dir = os.path.dirname(os.path.dirname(os.path.abspath(__import__("cudajit").__file__)))
    env = hidden_toolkit.env_without_toolkit(CUDAJIT_CACHE_DIR=str(tmp_path), CUDAJIT_BACKEND="cpu",
                                             CUDAJIT_CHECK_NVRTC="1", PYTHONPATH=os.pathsep.join([python_dir, root]))
    script = tmp_path / "nvrtc_from_wheel.py"  # kernels need a source file
    script.write_text(f"ROOT = {root!r}\n" + NVRTC_FROM_WHEEL)
    r = hidden_toolkit.run([sys.executable, str(script)], env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "wheel nvidia-cuda-nvrtc (CUDA 13)" in r.stdout


def _nvrtc_version_in(directory):
    """The version a directory's libnvrtc-builtins.so.M.m names, as (M, m); None without one."""
    import re
    found = [tuple(map(int, m.groups())) for f in (os.listdir(directory) if os.path.isdir(directory) else [])
             for m in [re.fullmatch(r"libnvrtc-builtins\.so\.(\d+)\.(\d+)", f)] if m]
    has_lib = any(f.startswith("libnvrtc.so") for f in os.listdir(directory)) if found else False
    return max(found) if found and has_lib else None


def test_the_newest_nvrtc_of_the_first_major_version_is_loaded():
    """src/nvrtc.cpp's newest(): of every place NVRTC is looked for, the newest of the CUDA major version found
    first wins (a CUDA 13.0 toolkit beside the 13.5 wheel loads 13.5: 13.0's ptxas miscompiles, docs/INSTALL.md)."""
    from cudajit import _paths
    places = [os.path.join(os.environ[v], "lib64") for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    places.append("/usr/local/cuda/lib64")
    for root in _paths.site_packages():
        places += [os.path.join(root, "nvidia", "cu13", "lib"), os.path.join(root, "nvidia", "cuda_nvrtc", "lib")]
    versions = [v for v in map(_nvrtc_version_in, places) if v]
    if not versions:
        pytest.skip("no NVRTC whose version its builtins library names")
    first_major = versions[0][0]
    want = max(v for v in versions if v[0] == first_major)
    assert tuple(_core.nvrtc_info()["version"]) == want, (_core.nvrtc_info(), versions)


def test_a_link_step_with_an_nvjitlink_older_than_nvrtc_says_what_to_install(monkeypatch):
    """link= reads NVRTC's PTX or LTO-IR with nvJitLink; an older nvJitLink cannot ("Unsupported .version 9.5",
    seen on the H200 with NVRTC 13.5 beside the toolkit's nvJitLink 13.0): said before the attempt."""
    from cudajit.cuda import nvjitlink
    if not nvjitlink.available()[0]:
        pytest.skip("no nvJitLink")
    assert nvjitlink.version() >= (12, 3)
    monkeypatch.setattr(nvjitlink, "_version", (13, 0))
    monkeypatch.setattr(_core, "nvrtc_version", lambda: (13, 5))
    with pytest.raises(CompileError, match=r"NVRTC 13\.5.* nvJitLink 13\.0 cannot read.*"
                                           r"pip install 'nvidia-nvjitlink>=13\.5,<14'"):
        nvjitlink.link([("ptx", "kernel.ptx", b"")], 90)

"""Installing cudajit: a wheel built and installed with no CUDA toolkit visible runs kernels on the
CPU backend; src/cuda_api.h agrees with the toolkit's headers; ``python -m cudajit`` reports every
part of the environment and never crashes.
"""
import os
from pathlib import Path
import subprocess
import sys
import textwrap

import pytest

import cudajit

import hidden_toolkit
from cudajit import _report

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLKIT_INCLUDE = next((os.path.join(d, "include") for d in hidden_toolkit.toolkit_dirs()
                        if os.path.isfile(os.path.join(d, "include", "cuda.h"))), None)

KERNEL_RUN = textwrap.dedent("""
    import numpy as np, cudajit
    from cudajit import cuda, _paths
    assert cudajit.__file__.startswith({target!r}), cudajit.__file__
    assert _paths.include_dir().startswith({target!r}), _paths.include_dir()

    @cuda.jit
    def scale(out, x, k):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = k * x[i] + i
    x = np.random.default_rng(1).standard_normal(3000).astype(np.float32)
    out = cuda.device_array_like(x)
    scale[12, 256](out, cuda.to_device(x), np.float32(1.5))
    np.testing.assert_allclose(out.copy_to_host(), 1.5 * x + np.arange(3000), rtol=1e-6)
    print("backend", cudajit.backend())
""")


def test_wheel_built_and_installed_without_cuda_toolkit_runs_cpu_kernel(tmp_path):
    """About a minute: `pip wheel .` with the toolkit hidden, the wheel installed into a fresh
    target, a kernel run from outside the source tree."""
    why = hidden_toolkit.why_unavailable()
    if why:
        pytest.skip(f"cannot hide the CUDA toolkit: {why}")
    env = hidden_toolkit.env_without_toolkit(CUDAJIT_CACHE_DIR=str(tmp_path / "cache"))
    wheels, target = tmp_path / "wheels", tmp_path / "target"
    r = hidden_toolkit.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q",
                            "--config-settings=build-dir=" + str(tmp_path / "build"), "-w", str(wheels), ROOT],
                           env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    [wheel] = os.listdir(wheels)
    r = hidden_toolkit.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                            str(wheels / wheel)], env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (target / "cudajit" / "include" / "cudajit" / "runtime.h").is_file()
    env_run = dict(env, PYTHONPATH=str(target), CUDAJIT_BACKEND="cpu")
    script = tmp_path / "run_kernel.py"  # kernels need a source file
    script.write_text(KERNEL_RUN.format(target=str(target)))
    r = hidden_toolkit.run([sys.executable, str(script)], env=env_run, cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "backend cpu" in r.stdout


@pytest.mark.skipif(TOOLKIT_INCLUDE is None, reason="no CUDA toolkit headers to compare with")
def test_cuda_api_header_matches_the_toolkit(tmp_path):
    r = subprocess.run(["c++", "-std=c++17", "-iquote", os.path.join(ROOT, "src"), "-I", TOOLKIT_INCLUDE,
                        os.path.join(ROOT, "tests", "data", "cuda_api_check.cpp"), "-o", str(tmp_path / "check")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert subprocess.run([str(tmp_path / "check")]).returncode == 0


def _report_of(env, hide):
    argv = [sys.executable, "-m", "cudajit"]
    env = dict(env, PYTHONPATH=os.pathsep.join([str(Path(cudajit.__file__).resolve().parents[1])] + sys.path))
    r = hidden_toolkit.run(argv, env) if hide else subprocess.run(argv, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_report_names_every_part_and_passes_its_self_test(tmp_path):
    out = _report_of(dict(os.environ, CUDAJIT_CACHE_DIR=str(tmp_path)), hide=False)
    for section in _report.SECTIONS:
        assert f"__{section}__" in out
    assert "matches NumPy" in out
    assert "unavailable" not in out


def test_report_without_toolkit_or_compiler_says_what_is_missing(tmp_path):
    if hidden_toolkit.why_unavailable():
        pytest.skip(hidden_toolkit.why_unavailable())
    env = hidden_toolkit.env_without_toolkit(CUDAJIT_CACHE_DIR=str(tmp_path), CXX=str(tmp_path / "no-such-c++"))
    out = _report_of(env, hide=True)
    nvrtc = out.split("__NVRTC__")[1].split("__Host compiler__")[0]
    assert "toolkit" not in nvrtc.split("searched")[0]  # not from a toolkit: from a wheel, or none
    assert "found" in nvrtc or "wheel" in nvrtc
    host = out.split("__Host compiler__")[1].split("__Disk cache__")[0]
    assert "no-such-c++" in host and "unavailable" in host
    selftest = out.split("__Self-test__")[1]
    # no host compiler: the CPU self-test cannot run; a GPU with NVRTC from a wheel still runs its own
    assert "unavailable" in selftest or ("gpu backend" in selftest and "matches NumPy" in selftest)

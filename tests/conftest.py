"""Test configuration: every kernel test runs once per backend present (``backend`` fixture).

A GPU run (``--gpu`` or ``CUDAJIT_TEST_GPU=1``) fails at start when no GPU is found, so it can
never pass green on the CPU by accident; without it, GPU-only tests skip cleanly.

The suite runs on every core by default (pytest-xdist, ``-n auto``, at most 8 workers); ``-n 0`` runs it in one
process. Tests marked ``slow`` (building wheels, the sanitizers, the whole bad-input suite, ...) are deselected
unless ``--slow`` (or ``CUDAJIT_TEST_SLOW=1``) asks for them: CI runs everything.
"""
import os

import numpy as np
import pytest

MAX_WORKERS = 8     # GPU machines have many cores; more workers than this only add CUDA contexts on one GPU


def pytest_addoption(parser):
    parser.addoption("--gpu", action="store_true", help="require a GPU: fail if none is found")
    parser.addoption("--backends", default=None, help="comma-separated backends to test (default: all present)")
    parser.addoption("--slow", action="store_true",
                     help="also run the tests marked slow (CI does; CUDAJIT_TEST_SLOW=1 says the same)")


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """xdist by default: ``-n auto`` unless the command line gives ``-n`` (``-n 0``: one process) or a debugger
    is asked for. Runs before xdist's own hook, which turns "auto" into the number of cores."""
    if not config.pluginmanager.hasplugin("xdist") or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if config.option.numprocesses is None and not config.getoption("usepdb", False):
        config.option.numprocesses = "auto"
        if not config.option.maxprocesses:
            config.option.maxprocesses = MAX_WORKERS
        if config.option.dist == "no":
            config.option.dist = "worksteal"     # long tests at the end no longer leave a worker idle


def _run_slow(config):
    return config.getoption("--slow") or os.environ.get("CUDAJIT_TEST_SLOW") == "1"


# The tests that take minutes on two cores, marked slow here in one list (a test file may also mark its own with
# @pytest.mark.slow): "file::test" marks every parametrization, "file::test[id" those whose id starts so. Measured
# with --durations on 2 cores: each is exhaustive (every value, every mode, every layout), builds something
# (a wheel, a sanitized runtime), or starts processes (notebook kernels, Dask workers, the bad-input suite's
# 500 child processes). Together they were half of the suite's time; the rest keeps a case of each feature.
SLOW_TESTS = [
    "robustness/test_robustness.py::test_category",
    "test_install.py::test_wheel_built_and_installed_without_cuda_toolkit_runs_cpu_kernel",
    "test_cpu_sanitize.py::test_kernels_run_clean_under_asan_and_ubsan",
    "test_cpu_sanitize.py::test_planted_out_of_bounds_write_is_reported",
    "test_notebooks.py::test_notebook_runs",
    "test_runtime_headers.py::test_every_function_compiles_under_nvrtc",
    "test_runtime_headers.py::test_no_warnings_under_nvrtc",
    "test_dask.py::test_kernel_and_reduce_per_chunk_on_cpu_cluster",
    "test_dask.py::test_kernel_and_reduce_per_chunk_in_cpu_worker_processes",
    "test_doc_surface_table.py::test_every_row_names_an_existing_test",
    "test_cmath_special_values.py::test_cmath_at_every_special_value",
    "test_cmath_special_values.py::test_numpy_ufuncs_in_kernels_are_the_cmath_functions",
    "test_kernels_math.py::test_every_cmath_function",
    "test_bfloat16.py::test_float32_to_bfloat16_every_mode",
    "test_bfloat16.py::test_bfloat16_to_integer_every_value",
    # every layout of a 17-reduction kernel: 1d-C, 2d-F, 3d-strided and 0d stay in the quick run
    *[f"test_array_reductions.py::test_float64_layouts[{b}-{layout}]" for b in ("cpu", "gpu")
      for layout in ("1d-strided", "1d-reversed", "2d-C", "2d-strided", "2d-transposed", "3d-C")],
    *[f"test_array_reductions.py::test_integers_and_bools[{b}-{layout}" for b in ("cpu", "gpu")
      for layout in ("1d-strided", "2d-F")],
    "test_docs_site.py::test_every_internal_link_resolves",
    "test_docs_site.py::test_browser_renders_the_page",
    "test_docs_site.py::test_guide_examples_run",
]


def _mark_slow(config, items):
    """Marks the SLOW_TESTS; an entry that names no test of a file that was collected is an error (a renamed test
    would otherwise run in the quick suite unnoticed)."""
    root = os.path.dirname(os.path.abspath(__file__))
    used, files = set(), set()
    for item in items:
        path = os.path.relpath(str(item.path), root).replace(os.sep, "/")
        files.add(path)
        nodeid = f"{path}::{item.name}"
        for entry in SLOW_TESTS:
            if nodeid == entry or nodeid.startswith(entry + "[") or ("[" in entry and nodeid.startswith(entry)):
                item.add_marker(pytest.mark.slow)
                used.add(entry)
    # an entry of a backend not under test (--backends, or no GPU here) names a test that was not collected
    backends = _backends(config)
    stale = [e for e in SLOW_TESTS if e.split("::")[0] in files and e not in used
             and not any(f"[{b}" in e and b not in backends for b in ("cpu", "gpu"))]
    if stale and not config.getoption("-k") and not config.getoption("-m"):
        raise pytest.UsageError(f"tests/conftest.py SLOW_TESTS names tests that do not exist: {stale}")


def _require_gpu(config):
    return config.getoption("--gpu") or os.environ.get("CUDAJIT_TEST_GPU") == "1"


def pytest_configure(config):
    # numba-cuda's performance warnings are off in the suite, as its own CUDATestCase turns them off: nearly every
    # test launches a small grid or passes NumPy arrays. By their variables, so that a reload of cudajit.config and
    # the programs tests run in other processes see them off too; tests/test_perf_warnings.py turns them on.
    from cudajit import config as cj_config
    for knob in ("CUDA_LOW_OCCUPANCY_WARNINGS", "CUDA_WARN_ON_IMPLICIT_COPY"):
        os.environ["NUMBA_" + knob] = "0"
        setattr(cj_config, knob, 0)
    if _require_gpu(config):
        from cudajit import _backend
        ok, reason = _backend.gpu_status()
        if not ok:
            raise pytest.UsageError(f"--gpu given but no GPU is usable: {reason}")


def _backends(config):
    from cudajit import _backend
    chosen = config.getoption("--backends")
    present = _backend.available()
    if chosen:
        wanted = [b.strip() for b in chosen.split(",") if b.strip()]
        missing = [b for b in wanted if b not in present]
        if missing:
            raise pytest.UsageError(f"--backends asks for {missing}, present: {present}")
        return wanted
    return present


def pytest_generate_tests(metafunc):
    if "backend" in metafunc.fixturenames:
        metafunc.parametrize("backend", _backends(metafunc.config), indirect=True)


@pytest.fixture
def backend(request):
    """The backend a test runs under: 'cpu' or 'gpu'. The test body runs with it selected."""
    from cudajit import _backend
    with _backend.use(request.param):
        yield request.param


def pytest_collection_modifyitems(config, items):
    _mark_slow(config, items)
    if not _run_slow(config):
        slow = [item for item in items if "slow" in item.keywords]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if "slow" not in item.keywords]
    from cudajit import _backend
    if _backend.gpu_status()[0]:
        return
    skip = pytest.mark.skip(reason="no GPU on this machine")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def rng():
    """A seeded generator: real random data, reproducible per test."""
    return np.random.default_rng(12345)


def pytest_terminal_summary(terminalreporter, config):
    if not _run_slow(config) and not os.environ.get("PYTEST_XDIST_WORKER"):
        terminalreporter.write_line("the tests marked slow were deselected: pytest --slow runs them too, as CI does")

"""Test configuration: every kernel test runs once per backend present (``backend`` fixture).

A GPU run (``--gpu`` or ``CUDAJIT_TEST_GPU=1``) fails at start when no GPU is found, so it can
never pass green on the CPU by accident; without it, GPU-only tests skip cleanly.
"""
import os

import numpy as np
import pytest


def pytest_addoption(parser):
    parser.addoption("--gpu", action="store_true", help="require a GPU: fail if none is found")
    parser.addoption("--backends", default=None, help="comma-separated backends to test (default: all present)")


def _require_gpu(config):
    return config.getoption("--gpu") or os.environ.get("CUDAJIT_TEST_GPU") == "1"


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a GPU (skipped without one, unless --gpu)")
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

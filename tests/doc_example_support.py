"""What numba-cuda's documentation examples import from numba-cuda's test scaffolding (``numba.cuda.testing``,
``numba.cuda.tests.support``, ``numba.tests.support``), for running them on cudajit (tests/test_numba_doc_examples.py):
the scaffolding itself needs numba-cuda's test dependencies, and its skips are about numba-cuda's own builds
(the simulator, a missing cudadevrt, MVC), none of which applies to cudajit."""
import contextlib
import importlib.util
import io
import unittest

CUDATestCase = unittest.TestCase


def _runs(*args):
    """A skip decorator that never skips, used bare (``@skip``) or with a reason (``@skip("why")``)."""
    if len(args) == 1 and callable(args[0]) and not isinstance(args[0], str):
        return args[0]
    return lambda target: target


skip_on_cudasim = skip_if_cudadevrt_missing = skip_unless_cc_60 = skip_if_mvc_enabled = _runs
skip_on_standalone_numba_cuda = _runs
skip_unless_cffi = unittest.skipUnless(importlib.util.find_spec("cffi") is not None, "cffi is not installed")


def captured_stdout():
    return contextlib.redirect_stdout(io.StringIO())


@contextlib.contextmanager
def override_config(name, value):
    """numba-cuda's ``override_config`` on cudajit's ``cuda.config``."""
    from cudajit.cuda import config
    saved = getattr(config, name)
    setattr(config, name, value)
    try:
        yield
    finally:
        setattr(config, name, saved)

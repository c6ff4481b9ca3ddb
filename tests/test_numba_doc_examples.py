"""numba-cuda's own documentation examples, run on cudajit with only their imports changed (issue 12).

The examples live in the installed numba-cuda package (``numba/cuda/tests/doc_examples``: grid sync, the Laplace
solver, sessionization, CPointer arguments, ufuncs, matmul, Monte Carlo, random numbers, reductions, globals,
CPU/GPU compatibility, foreign functions). Each example's program sits inside a unittest method, with its imports
at the top of the method: those are the lines a user changes, ``from numba import cuda`` to ``from cudajit import
cuda`` and ``from numba.cuda[.x] import ...`` to ``from cudajit.cuda[.x] import ...``. The module-level imports
are numba-cuda's test scaffolding, served by ``doc_example_support.py``. Nothing of numba-cuda's is copied here: the files are read from the
installed package at test time, so these tests run where numba-cuda is installed (the GPU machine), and skip
elsewhere. Each example runs on every backend present; its own assertions check the results.
"""
import importlib.util
import os
import re
import sys
import types
import unittest

import numpy as np
import pytest

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack  # numba-cuda 0.30.4 still names it; NumPy 2.5 removed it

EXAMPLES = ["test_cg", "test_laplace", "test_sessionize", "test_cpointer", "test_ufunc", "test_vecadd",
            "test_matmul", "test_montecarlo", "test_random", "test_reduction", "test_globals",
            "test_cpu_gpu_compat", "test_ffi"]

# An import inside an example's method (indented): the user's import of numba's CUDA API.
_USER_IMPORT = re.compile(r"^(?P<indent>[ \t]+)from numba(?P<sub>\.cuda(?:\.\w+)*)? import (?P<names>.+)$",
                          re.MULTILINE)


def _examples_dir():
    # numba-cuda's package (numba_cuda): numba's own numba.cuda, without numba-cuda, has older examples
    if importlib.util.find_spec("numba_cuda") is None or importlib.util.find_spec("numba") is None \
            or importlib.util.find_spec("numba.cuda") is None:
        return None
    try:
        import numba.cuda.tests.doc_examples as examples
    except Exception:  # noqa: BLE001 — numba without numba-cuda, or a numba-cuda that cannot import here
        return None
    return os.path.dirname(examples.__file__)


def _to_cudajit(source):
    """The example with its users' imports switched to cudajit: ``from numba import cuda[, x]`` and
    ``from numba.cuda[.sub] import ...``; other ``from numba import`` lines (``numba.njit``) stay numba's."""
    def swap(m):
        if m.group("sub"):
            return f"{m.group('indent')}from cudajit{m.group('sub')} import {m.group('names')}"
        names = [n.strip() for n in m.group("names").split(",")]
        if "cuda" not in names:
            return m.group(0)
        return f"{m.group('indent')}from cudajit import {m.group('names')}"
    return _USER_IMPORT.sub(swap, source)


# A module-level import of numba-cuda's test scaffolding: served by doc_example_support.py instead.
_SCAFFOLDING = re.compile(r"^from numba(?:\.cuda)?\.test(?:s|ing)(?:\.\w+)* import", re.MULTILINE)


def _load(path):
    """The example file as a module, its users' imports switched, its scaffolding from doc_example_support.py,
    ``__file__`` its own (the FFI example finds its ``.cu`` files beside it)."""
    source = _SCAFFOLDING.sub("from doc_example_support import", _to_cudajit(open(path).read()))
    module = types.ModuleType(f"cudajit_doc_example_{os.path.basename(path)[:-3]}")
    module.__file__ = path
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def _cases():
    where = _examples_dir()
    if where is None:
        return [pytest.param(None, None, marks=pytest.mark.skip(reason="numba-cuda is not installed here"))]
    cases = []
    for name in EXAMPLES:
        path = os.path.join(where, name + ".py")
        loader = unittest.TestLoader()
        module = _load(path)
        for case in loader.loadTestsFromModule(module):
            for test in case:
                cases.append(pytest.param(path, test.id().rsplit(".", 2)[-2:], id=f"{name}.{test.id().rsplit('.', 1)[-1]}"))
    return cases


@pytest.mark.parametrize("path,which", _cases())
def test_numba_cuda_doc_example(backend, path, which):
    module = _load(path)
    cls, method = which
    result = unittest.TestResult()
    getattr(module, cls)(method).run(result)   # under `backend` (the fixture selects it)
    if result.skipped:
        pytest.skip(f"numba-cuda's own skip: {result.skipped[0][1]}")
    problems = result.errors + result.failures
    assert not problems, "\n".join(text for _, text in problems)
    assert result.testsRun == 1


def test_import_swap_changes_only_the_users_lines():
    source = ("from numba.cuda.testing import CUDATestCase\n"
              "def f():\n"
              "    from numba import cuda\n"
              "    from numba.cuda import float32\n"
              "    from numba.cuda.random import xoroshiro128p_uniform_float32\n"
              "    from numba import njit\n"
              "    import numba\n")
    assert _to_cudajit(source) == ("from numba.cuda.testing import CUDATestCase\n"
                                   "def f():\n"
                                   "    from cudajit import cuda\n"
                                   "    from cudajit.cuda import float32\n"
                                   "    from cudajit.cuda.random import xoroshiro128p_uniform_float32\n"
                                   "    from numba import njit\n"
                                   "    import numba\n")

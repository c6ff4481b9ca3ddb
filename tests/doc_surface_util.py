"""Helpers of the doc-surface tests (docs/SUPPORTED.md): one kernel per group of rows, run once per backend, and the
check that a construct numba-cuda refuses is refused here with the user's file:line."""
import functools
import inspect
import os

import pytest

from cudajit.compiler import compile_kernel


def once_per_backend(fn):
    """``fn(backend)`` computed once per backend: every row of a group checks its own column of one launch."""
    return functools.cache(fn)


def refused(fn, argtypes, exc, words, line_text):
    """Compiling ``fn`` raises ``exc`` whose message holds ``words`` and points at ``line_text``'s file:line."""
    lines, first = inspect.getsourcelines(fn)
    line = first + next(k for k, text in enumerate(lines) if line_text in text)
    with pytest.raises(exc) as info:
        compile_kernel(fn, argtypes)
    msg = str(info.value)
    assert words in msg, msg
    assert f"{os.path.basename(inspect.getsourcefile(fn))}:{line}:" in msg, msg
    return msg

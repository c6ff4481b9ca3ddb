"""A kernel's source is read without tokenize (cudajit/_sources.py, def_lines: the block's end comes from the code
object's positions): the definition found must be exactly the one inspect.getsourcelines gives, for every shape of
function ending, and a text that this cannot cut right falls back to inspect."""
import ast
import importlib.util
import inspect
import sys

import numpy as np
import pytest

from cudajit import _sources, cuda
from cudajit.compiler import frontend
from cudajit.errors import UnsupportedError

MODULE = '''
import math


def _identity(f):
    return f


def plain(a, b):
    return a + b


@_identity
@(lambda f:
  f)
def decorated(a):
    return a * 2


def else_pass(a, out):
    if a > 0:
        out[0] = a
    else:
        pass


def trailing_comments(a):
    b = a + 1
    # a comment inside the block
        # deeper
# at column 0, still before the next definition
    return b
    # after the last statement


def call_closed_at_column_zero(a):
    return max(a,
1)


class Holder:
    def method(self, a):
        for i in range(3):
            a += i
        return a


def outer(a):
    def inner(b):
        return b + math.pi
    return inner(a)


LAMBDAS = [lambda x: x + 1,
           lambda y: y - 1]


def unindented_string_last(a):
    a += 1
    """
no-op text at column 0
"""


def next_to(a): return a
def neighbour(a): return -a
'''

NAMES = ["plain", "decorated", "else_pass", "trailing_comments", "call_closed_at_column_zero", "Holder.method",
         "outer", "LAMBDAS.0", "LAMBDAS.1", "unindented_string_last", "next_to", "neighbour"]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    path = tmp_path_factory.mktemp("src") / "shapes_of_defs.py"
    path.write_text(MODULE)
    spec = importlib.util.spec_from_file_location("shapes_of_defs", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop("shapes_of_defs", None)


def _function(mod, name):
    obj = mod
    for part in name.split("."):
        obj = obj[int(part)] if part.isdigit() else getattr(obj, part)
    return obj


def _def_dump(lines, fn):
    node = frontend._parse_def(lines, fn)
    return None if node is None else ast.dump(node)


@pytest.mark.parametrize("name", NAMES)
def test_the_definition_found_is_inspects(module, name):
    fn = _function(module, name)
    want = _def_dump(inspect.getsourcelines(fn)[0], fn)
    quick = _sources.def_lines(fn)
    if sys.version_info < (3, 11):
        assert quick is None                              # no co_positions: inspect reads it
    else:
        assert quick is not None and quick[1] == fn.__code__.co_firstlineno
        got = _def_dump(quick[0], fn)
        assert got == want or (got is None and name == "unindented_string_last")   # never another definition
    if want is None:                                      # a lambda not on a line of its own: refused, as before
        assert name == "LAMBDAS.1"
        with pytest.raises(UnsupportedError, match="lambda on its own line"):
            frontend.ParsedFunction(fn)
    else:                                                 # whichever way, the compiler gets inspect's definition
        node = frontend._parse_def(inspect.getsourcelines(fn)[0], fn)
        frontend.desugar(node)
        frontend.lift(node)                               # inner functions become placeholders (innerdefs.py)
        assert ast.dump(frontend.ParsedFunction(fn).tree) == ast.dump(node)


@cuda.jit
def ends_in_else_pass(x, out):
    i = cuda.grid(1)
    if i < x.size and x[i] > 0:
        out[i] = 2 * x[i]
    else:
        pass


@cuda.jit
def ends_in_a_string(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] - 1
    """
text at column 0 after the last statement
"""


def test_kernels_of_those_shapes_run(backend, rng):
    x = rng.standard_normal(300)
    out = np.zeros_like(x)
    ends_in_else_pass[3, 128](x, out)
    np.testing.assert_array_equal(out, np.where(x > 0, 2 * x, 0))
    ends_in_a_string[3, 128](x, out)
    np.testing.assert_array_equal(out, x - 1)

"""Parse a kernel's Python source and resolve the names it uses outside itself (globals, closure cells).

Numba freezes globals at compile time: ints, floats, bools and tuples become constants, NumPy arrays become
constant arrays; module attribute chains (``cuda.threadIdx.x``, ``math.sqrt``) resolve to intrinsics.
"""
import ast
import builtins
import inspect
import sys
import textwrap
import types as pytypes

from .errors import SourceLocation
from ..errors import UnsupportedError

# Modules whose attributes are intrinsics, by the name the registry uses for them.
CANONICAL_MODULES = {
    "cudajit.cuda": "cuda", "numba.cuda": "cuda", "math": "math", "cmath": "cmath", "numpy": "np",
    "cudajit": "cudajit", "numba": "numba", "cudajit.cuda.atomic": "cuda.atomic",
}


class ParsedFunction:
    """A function's AST (the ``def`` node), its source location and the namespace it sees."""
    def __init__(self, pyfunc):
        self.pyfunc = pyfunc
        self.name = pyfunc.__name__
        try:
            lines, first = inspect.getsourcelines(pyfunc)
        except (OSError, TypeError) as exc:
            raise UnsupportedError(f"cannot read the source of {pyfunc.__qualname__}: {exc} "
                                   f"(kernels must be defined in a .py file or a notebook cell)") from None
        src = textwrap.dedent("".join(lines))
        filename = inspect.getsourcefile(pyfunc) or pyfunc.__code__.co_filename
        self.loc = SourceLocation(filename, first, src.splitlines())
        tree = ast.parse(src)
        defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if not defs:
            raise UnsupportedError(f"{filename}:{first}: {self.name} is not a plain `def` (lambdas cannot be kernels)")
        self.tree = defs[0]
        self.params = [a.arg for a in self.tree.args.args]
        self.globals = pyfunc.__globals__
        self.closure = {}
        if pyfunc.__closure__:
            for name, cell in zip(pyfunc.__code__.co_freevars, pyfunc.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:          # an empty cell: the name is assigned after the def
                    pass
        self.defaults = pyfunc.__defaults__ or ()

    def lookup(self, name):
        """(found, object) for a free name: closure first, then globals, then builtins (as Python)."""
        if name in self.closure:
            return True, self.closure[name]
        if name in self.globals:
            return True, self.globals[name]
        if hasattr(builtins, name):
            return True, getattr(builtins, name)
        return False, None


def canonical_name(obj):
    """The registry name of a module object (``cuda``, ``math``) or None."""
    if isinstance(obj, pytypes.ModuleType):
        return CANONICAL_MODULES.get(obj.__name__)
    return None


def reverse_map(registry_names):
    """id(object) -> registry name for every intrinsic reachable from the intrinsic modules now imported,
    so that ``from cudajit.cuda import grid`` or ``from math import sqrt`` resolve to the same entry."""
    out = {}
    roots = {}
    for modname, canon in CANONICAL_MODULES.items():
        mod = sys.modules.get(modname)
        if mod is not None and "." not in canon:
            roots.setdefault(canon, []).append(mod)
    for name in registry_names:
        head, *rest = name.split(".")
        for mod in roots.get(head, ()):
            obj = mod
            for part in rest:
                obj = getattr(obj, part, None)
                if obj is None:
                    break
            if obj is None or isinstance(obj, (int, float, bool, str, tuple)):
                continue
            out.setdefault(id(obj), name)
    return out

"""Parse a kernel's Python source and resolve the names it uses outside itself (globals, closure cells).

Numba freezes globals at compile time: ints, floats, bools and tuples become constants, NumPy arrays become
constant arrays; module attribute chains (``cuda.threadIdx.x``, ``math.sqrt``) resolve to intrinsics.
"""
import ast
import builtins
import dis
import inspect
import sys
import textwrap
import types as pytypes

from .desugar import desugar
from .errors import SourceLocation, unsupported
from .innerdefs import UnsupportedInnerDef, lift
from .. import _sources
from ..errors import UnsupportedError

# Modules whose attributes are intrinsics, by the name the registry uses for them.
CANONICAL_MODULES = {
    "cudajit.cuda": "cuda", "cudajit.cuda.kernelapi": "cuda", "numba.cuda": "cuda", "math": "math", "cmath": "cmath", "numpy": "np",
    "cudajit": "cudajit", "numba": "numba", "cudajit.cuda.atomic": "cuda.atomic",
    "cudajit.cuda.random": "cuda.random", "numba.cuda.random": "cuda.random", "operator": "operator",
}


def _may_define_functions(lines):
    """False when the source cannot hold an inner def or lambda (one "def", no "lambda" in its text), so the
    lifting pass (a walk of the whole tree) is skipped for nearly every kernel; a false True only costs the walk."""
    text = "".join(lines)
    return "lambda" in text or text.count("def") > 1


class ParsedFunction:
    """A function's AST (the ``def`` node), its source location and the namespace it sees."""
    def __init__(self, pyfunc):
        self.pyfunc = pyfunc
        self.name = pyfunc.__name__
        readable = _sources.readable(pyfunc)
        quick = _sources.def_lines(pyfunc) if readable else None     # no tokenize (see def_lines)
        if quick is not None:
            self.tree = _parse_def(quick[0], pyfunc)
            if self.tree is not None:
                lines, first = quick
        if quick is None or self.tree is None:
            try:
                lines, first = inspect.getsourcelines(pyfunc) if readable else _sources.source_lines(pyfunc)
            except (OSError, TypeError) as exc:
                raise UnsupportedError(f"cannot read the source of {pyfunc.__qualname__}: {exc}; cudajit compiles "
                                       f"kernels from their source: define it in a .py file, a notebook cell, "
                                       f"exec() of a string or python -c") from None
            self.tree = _parse_def(lines, pyfunc)
        filename = inspect.getsourcefile(pyfunc) or pyfunc.__code__.co_filename
        self.loc = SourceLocation(filename, first, textwrap.dedent("".join(lines)).splitlines(), self.name)
        if self.tree is None:
            raise UnsupportedError(f"{filename}:{first}: cannot find the source of {self.name} "
                                   f"(kernels must be a `def` or a lambda on its own line)")
        _check_def(self.loc, self.tree)
        desugar(self.tree)
        try:
            if _may_define_functions(lines):
                lift(self.tree)               # defs and lambdas inside: placeholders (innerdefs.py)
        except UnsupportedInnerDef as e:
            raise unsupported(self.loc, e.node, e.what, e.hint) from None
        a = self.tree.args
        self.vararg = a.vararg.arg if a.vararg else None      # a device function's *args: a tuple parameter
        self.param_nodes = list(a.args) + ([a.vararg] if a.vararg else [])
        self.params = [p.arg for p in self.param_nodes]
        # an inner function's (compiler/closures.py InnerParsed): its hidden parameters, its compile-time
        # captures, the enclosing function's ParsedFunction
        self.hidden, self.captured, self.outer_parsed = (), {}, None
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


_REVERSE_MAPS = {}      # (registry names, the intrinsic modules imported) -> (map, the objects it names)


def reverse_map(registry_names):
    """id(object) -> registry name for every intrinsic reachable from the intrinsic modules now imported (names: a
    tuple),
    so that ``from cudajit.cuda import grid`` or ``from math import sqrt`` resolve to the same entry. Walking ~650
    names cost ~1.3 ms of every compile: the map is kept per set of names and of modules imported (a module imported
    later makes a new one), with the objects it names, so that no id in it can be reused by another object."""
    roots = {}
    for modname, canon in CANONICAL_MODULES.items():
        mod = sys.modules.get(modname)
        if mod is not None and "." not in canon:
            roots.setdefault(canon, []).append(mod)
    memo_key = (registry_names, tuple((canon, tuple(id(m) for m in mods)) for canon, mods in roots.items()))
    memo = _REVERSE_MAPS.get(memo_key)
    if memo is None:
        memo = _REVERSE_MAPS[memo_key] = _walk(registry_names, roots)
    return memo[0]


def _walk(registry_names, roots):
    out, named = {}, []
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
            if id(obj) not in out:
                out[id(obj)] = name
                named.append(obj)
    return out, named


def _check_def(loc, tree):
    """What a kernel's or device function's ``def`` line may not be, said before its parameters are counted (a
    ``**kw`` kernel was 'takes 2 arguments'; an ``async def`` compiled as if it were a plain one). ``*args`` is a
    device function's tuple parameter; a kernel refuses it (``check_kernel_def``)."""
    if isinstance(tree, ast.AsyncFunctionDef):
        raise unsupported(loc, tree, "async functions are not supported in CUDA kernels")
    a = tree.args
    if a.kwarg or a.kwonlyargs or a.posonlyargs:
        raise unsupported(loc, tree, _STAR_PARAMS, "give each argument a plain parameter")


_STAR_PARAMS = "*args, **kwargs, keyword-only and positional-only parameters are not supported in CUDA kernels"


def check_kernel_def(parsed):
    """A kernel takes no ``*args`` (the launcher passes each argument to a parameter of its own)."""
    if parsed.vararg is not None:
        raise unsupported(parsed.loc, parsed.tree, _STAR_PARAMS, "give each argument a plain parameter")


def _parse_def(lines, pyfunc):
    """The ``def`` of ``pyfunc`` parsed from its source lines, or None."""
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        return None
    return _find_def(tree, pyfunc)


def _find_def(tree, pyfunc):
    """The ``def`` of ``pyfunc`` in its parsed source; a lambda becomes ``def <lambda>(args): return body``."""
    if pyfunc.__name__ != "<lambda>":
        for n in tree.body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return n
        return None
    argnames = list(pyfunc.__code__.co_varnames[:pyfunc.__code__.co_argcount])
    for n in ast.walk(tree):
        if isinstance(n, ast.Lambda) and [a.arg for a in n.args.args] == argnames:
            fn = ast.FunctionDef(name="<lambda>", args=n.args, body=[ast.copy_location(ast.Return(n.body), n)],
                                 decorator_list=[], returns=None, type_comment=None)
            return ast.fix_missing_locations(ast.copy_location(fn, n))
    return None


NOT_FOLDED = object()
TOO_LARGE = object()
_CONSTANT_EXPR_NODES = (ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop)


def python_folded(node):
    """The constant CPython's compiler folds the expression ``node`` to (``2**64 - 1``, ``-1 << 3``): Numba types
    the folded bytecode, so it is that one constant. TOO_LARGE for an integer ``**`` or ``<<`` of constants that
    CPython leaves unfolded as too large (its limit, 128 bits, is far beyond uint64); else NOT_FOLDED."""
    if not all(isinstance(n, _CONSTANT_EXPR_NODES) for n in ast.walk(node)):
        return NOT_FOLDED
    code = compile(ast.Expression(body=node), "<constant>", "eval")
    ops = [i for i in dis.get_instructions(code) if i.opname not in ("RESUME", "NOP", "CACHE")]
    if [i.opname for i in ops] in (["LOAD_CONST", "RETURN_VALUE"], ["RETURN_CONST"]):
        return ops[0].argval
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Pow, ast.LShift)):
        x, y = python_folded(node.left), python_folded(node.right)
        if TOO_LARGE in (x, y):
            return TOO_LARGE
        if all(type(v) is int for v in (x, y)) and y >= 0 and (abs(x) > 1 if isinstance(node.op, ast.Pow) else x):
            return TOO_LARGE
    return NOT_FOLDED

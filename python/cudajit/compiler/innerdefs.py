"""Functions defined inside a kernel or device function (``def`` statements and lambdas), on the syntax.

When a function is parsed, each ``def``/``lambda`` of its own scope is replaced by a placeholder node
(``InnerDef`` statement, ``InnerLambda`` expression) that keeps the inner function's ``FunctionDef`` out of
the enclosing function's tree: the enclosing function's analyses (``ast.walk`` over its tree: assigned
names, read-only parameters, loop variables) see only what runs in its own scope. The placeholder's fields
are what the enclosing scope evaluates or reads at the ``def``: the default values, and a ``Name`` load of
each free name of the inner function (its captures), so those analyses count a captured variable as used.
The inner function's own body is desugared and lifted the same way, recursively. compiler/closures.py
translates the placeholders.
"""
import ast

from .desugar import desugar


class _Inner:
    """What InnerDef and InnerLambda share: the AST fields ``defaults`` (expressions of the enclosing scope) and
    ``captures`` (a Name load per free name), the other attributes given as keywords."""
    _fields = ("defaults", "captures")
    _attributes = ("lineno", "col_offset", "end_lineno", "end_col_offset")

    def __init__(self, defaults=(), captures=(), **attrs):
        super().__init__()
        self.defaults, self.captures = list(defaults), list(captures)
        for k, v in attrs.items():
            setattr(self, k, v)


class InnerDef(_Inner, ast.stmt):
    """A ``def`` inside a function. Attributes: ``name``, ``fn`` (the FunctionDef), ``free`` (sorted free
    names), ``own_locals`` (the inner function's parameters and assigned names)."""


class InnerLambda(_Inner, ast.expr):
    """A ``lambda`` inside a function: as InnerDef, its ``fn`` a ``def <lambda>(args): return body``."""


class UnsupportedInnerDef(Exception):
    """Raised by ``lift`` for an inner function the compiler refuses: (node, message, hint). frontend.py words
    it as an UnsupportedError naming the file and line."""
    def __init__(self, node, what, hint=None):
        super().__init__(what)
        self.node, self.what, self.hint = node, what, hint


def lift(fn):
    """Replace the defs and lambdas of ``fn``'s own scope (an ``ast.FunctionDef``, already desugared) by
    placeholders, in place; each inner function is desugared and lifted in turn."""
    _Lifter().lift_body(fn)


def params_of(fn):
    """The parameter names of an inner function's ``def``: positional ones, then ``*args``'s name."""
    a = fn.args
    return [x.arg for x in a.args] + ([a.vararg.arg] if a.vararg else [])


def own_scope(stmts):
    """Every node of ``stmts`` that runs in their function's own scope (placeholders hide inner functions)."""
    for s in stmts:
        yield from ast.walk(s)


class _Lifter(ast.NodeTransformer):
    def lift_body(self, fn):
        fn.body = [self.visit(s) for s in fn.body]

    def visit_FunctionDef(self, node):
        _check_inner_def(node)
        if node.decorator_list:
            raise UnsupportedInnerDef(node, f"a decorator on the function '{node.name}' defined inside a kernel is "
                                            f"not supported", "define it at module level with @cuda.jit(device=True)")
        desugar(node)
        lift(node)
        return _placeholder(InnerDef, node, node.name, node)

    def visit_AsyncFunctionDef(self, node):
        raise UnsupportedInnerDef(node, "async functions are not supported in CUDA kernels")

    def visit_ClassDef(self, node):
        return node                                    # refused when translated, whatever it holds

    def visit_Lambda(self, node):
        _check_inner_def(node)
        fn = ast.FunctionDef(name="<lambda>", args=node.args, body=[ast.copy_location(ast.Return(node.body), node)],
                             decorator_list=[], returns=None, type_comment=None)
        fn = ast.fix_missing_locations(ast.copy_location(fn, node))
        lift(fn)
        return _placeholder(InnerLambda, node, "<lambda>", fn)


def _check_inner_def(node):
    a = node.args
    if a.kwarg or a.kwonlyargs or a.posonlyargs:
        name = getattr(node, "name", "<lambda>")
        raise UnsupportedInnerDef(node, f"**kwargs, keyword-only and positional-only parameters of the inner function "
                                        f"'{name}' are not supported in CUDA kernels",
                                  "give each argument a plain parameter (with a default if it may be left out)")


def _placeholder(cls, node, name, fn):
    free, own = _free_names(fn)
    defaults = [_Lifter().visit(d) for d in fn.args.defaults]
    captures = []
    for n in free:
        ref = ast.copy_location(ast.Name(id=n, ctx=ast.Load()), node)
        ref.cj_capture = True
        captures.append(ref)
    out = cls(defaults=defaults, captures=captures, name=name, fn=fn, free=free, own_locals=own)
    return ast.copy_location(out, node)


def _free_names(fn):
    """(sorted free names, own local names) of an inner function whose inner functions are placeholders already:
    names it reads (or its inner functions capture) that it neither binds nor declares global. A ``nonlocal``
    name stays free (assigning it is refused when the function is translated)."""
    own = set(params_of(fn))
    declared_global, loads = set(), set()
    for n in own_scope(fn.body):
        if isinstance(n, ast.Name):
            (own if isinstance(n.ctx, (ast.Store, ast.Del)) else loads).add(n.id)
        elif isinstance(n, InnerDef):
            own.add(n.name)
        elif isinstance(n, ast.Global):
            declared_global.update(n.names)
        elif isinstance(n, ast.Nonlocal):
            loads.update(n.names)
            own.difference_update(n.names)
    own -= declared_global
    for n in own_scope(fn.body):                    # nonlocal beats an assignment seen before it
        if isinstance(n, ast.Nonlocal):
            own.difference_update(n.names)
    return tuple(sorted(loads - own - declared_global)), frozenset(own)

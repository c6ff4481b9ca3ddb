"""Functions defined inside a kernel or device function: each is lifted to a device function of its own.

numba-cuda inlines every direct call of an inner function (so it may close over anything: arrays, values that
change per thread) and turns one that escapes (passed to another function) into a device function whose
closure variables must be constants (its ``MakeFunctionToJitFunction`` pass). Here an inner ``def``/``lambda``
(an ``InnerDef``/``InnerLambda`` placeholder, innerdefs.py) is a compile-time value of its enclosing
specialisation (``ClosureDef``, a ``Symbol("closure", ...)``); no C++ exists for it until it is used:

* **called** (``f(x)``): an ``InnerFunction`` device function whose parameters are the user's, then ``*args``,
  then one per captured variable of the enclosing scope (``hidden``), which the call passes at call time (the
  value Python reads then). Captured functions, types and None are compile-time (``captured``), keying the
  specialisation as any function argument does.
* **escaping** (passed to a device function, ``consumer(f, 1)``): an ``InnerFunction`` without hidden
  parameters, each capture a constant: as numba-cuda, a captured variable must have one definition, an
  assignment of a constant (or be a function defined there, or a function parameter of the specialisation);
  otherwise numba-cuda's TypingError, at the ``def``.

Inner functions calling each other forward what the callee captures: a capture the caller itself names
nowhere is still one of its hidden parameters (``gather``), so the callee finds it under the same name.
Recursion is refused, as Numba refuses it (inner functions are inlined there).
"""
import ast

from . import types as T
from .errors import SourceLocation, typing_error, unsupported
from .frontend import NOT_FOLDED, TOO_LARGE, python_folded
from .innerdefs import InnerDef, InnerLambda, own_scope
from .values import Symbol, Value


class Captured:
    """What an inner function's name resolves to when the enclosing scope fixed it at compile time: a
    ``Symbol`` (a function, a type, another inner function), a ``Value`` (a constant, None)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def key(self):
        v = self.value
        if isinstance(v, Symbol):
            return ("symbol", v.path, id(v.obj))
        return ("value", str(v.type), repr(v.const) if v.is_const else v.code)


class ClosureDef:
    """One ``def``/``lambda`` inside one specialisation of its enclosing function (``owner``, a translator)."""
    def __init__(self, owner, node):
        self.owner, self.node = owner, node
        self.name, self.fn, self.free, self.own_locals = node.name, node.fn, node.free, node.own_locals
        self.defaults = ()                   # the default values (Python constants), set where the def runs
        self.lifted = {}                     # captures' key -> InnerFunction

    def function(self, captured, hidden):
        key = (tuple(sorted((n, c.key()) for n, c in captured.items())), tuple(hidden))
        fn = self.lifted.get(key)
        if fn is None:
            fn = self.lifted[key] = InnerFunction(self, captured, hidden)
        return fn


class InnerFunction:
    """An inner function as a device function (what ``Program.device_function`` compiles): its ``cj_parsed``
    is the def's own tree; its identity keys the specialisation."""
    def __init__(self, cdef, captured, hidden):
        self.cdef = cdef
        self.__cudajit_pyfunc__ = self
        self.__cudajit_options__ = cdef.owner.state.options
        self.__name__ = self.__qualname__ = cdef.name
        self.cj_parsed = InnerParsed(self, cdef, captured, hidden)

    @property
    def cj_signature(self):
        """(positional parameter names, default values, ``*args`` name or None), as the call binds them."""
        a = self.cdef.fn.args
        return [x.arg for x in a.args], tuple(self.cdef.defaults), a.vararg.arg if a.vararg else None


class InnerParsed:
    """``frontend.ParsedFunction``'s interface for an inner function: its def, its lines in the enclosing
    function's file, its parameters (user's, ``*args``, hidden captures) and its names (captured ones first,
    then the enclosing function's globals and closure)."""
    def __init__(self, pyfunc, cdef, captured, hidden):
        outer = cdef.owner.state.parsed
        self.pyfunc, self.name, self.tree, self.outer_parsed = pyfunc, cdef.name, cdef.fn, outer
        self.loc = SourceLocation(outer.loc.filename, outer.loc.firstlineno, outer.loc.lines, cdef.name)
        a = cdef.fn.args
        self.vararg = a.vararg.arg if a.vararg else None
        self.hidden = tuple(hidden)
        self.param_nodes = list(a.args) + ([a.vararg] if a.vararg else []) + \
            [ast.copy_location(ast.arg(arg=h, annotation=None), cdef.fn) for h in hidden]
        self.params = [p.arg for p in self.param_nodes]
        self.captured = dict(captured)
        self.globals, self.closure = outer.globals, {}

    @property
    def defaults(self):
        return tuple(self.pyfunc.cdef.defaults)

    def lookup(self, name):
        if name in self.captured:
            return True, self.captured[name]
        return self.outer_parsed.lookup(name)


def function_value(fn):
    """The FunctionValue of an inner function passed as an argument: a device function, keyed by identity."""
    return T.FunctionValue("devfunc", fn, ("devfunc", id(fn)), f"function({fn.__name__})")


def closure_value(cdef):
    """The compile-time value a local holds after ``def f`` (or ``f = lambda ...``)."""
    return Value(T.FunctionValue("closure", cdef, ("closure", id(cdef)), f"closure({cdef.name})"), "")


class Closures:
    """The translator's side: the placeholders as statements and expressions, calls and escapes."""
    def __init__(self, fn):
        self.fn, self.st = fn, fn.state     # the function translator and the state they share


    def closure_def(self, node):
        cd = self.st.closure_defs.get(id(node))
        if cd is None:
            cd = self.st.closure_defs[id(node)] = ClosureDef(self.fn, node)
        return cd

    def stmt_InnerDef(self, node):
        cd = self.closure_def(node)
        cd.defaults = self._closure_defaults(node, cd)
        self.fn.flow.store_var(node, node.name, closure_value(cd), simple=True)

    def expr_InnerLambda(self, node):
        cd = self.closure_def(node)
        cd.defaults = self._closure_defaults(node, cd)
        return Symbol("closure", cd)

    def _closure_defaults(self, node, cd):
        """Default values are evaluated where the def runs; as numba-cuda, they must be constants."""
        out = []
        names = [x.arg for x in cd.fn.args.args][-len(node.defaults):] if node.defaults else []
        for name, d in zip(names, node.defaults):
            v = self.fn.exprs.visit_expr(d)
            if not (isinstance(v, Value) and v.is_const and not isinstance(v.const, str)):
                self.fn.error(d, f"the default value of parameter '{name}' of the inner function '{cd.name}' must be a "
                              f"constant")
            out.append(v.const)
        return tuple(out)

    # ---- calls -----------------------------------------------------------------------------------------------
    def call_closure(self, node, cd, args, kwargs):
        """``f(...)`` of an inner function: its device function, the captured variables passed after the
        arguments."""
        values = {}
        self._gather(node, cd, values)
        if any(isinstance(v, Value) and v.type == T.undefined for v in values.values()):
            return Value(T.undefined, "?")
        captured = {n: Captured(v) for n, v in values.items()
                    if isinstance(v, Symbol) or T.is_compile_time(v.type)}
        hidden = [n for n in values if n not in captured]
        self._check_clashes(node, cd, values)
        fn = cd.function(captured, hidden)
        return self.fn.calls.call_device_function(node, fn, args, kwargs, hidden=[values[n] for n in hidden])

    def _gather(self, node, cd, out):
        """The values of what ``cd`` captures, as this function sees them now: each free name it binds, and
        what an inner function among them captures in turn (so that its calls there find it)."""
        for name in cd.free:
            if name in out or not (name in self.st.locals or name in self.st.parsed.captured):
                continue                     # a global or builtin: the inner function resolves it itself
            v = self.fn.exprs.expr_Name(self._capture_ref(node, name))
            out[name] = v
            if isinstance(v, Symbol) and v.path == "closure":
                self._gather(node, v.obj, out)

    def _capture_ref(self, node, name):
        """A Name load of ``name`` at ``node`` (one per place, so that loops' passes see one use)."""
        key = (id(node), name)
        ref = self.st.capture_refs.get(key)
        if ref is None:
            ref = self.st.capture_refs[key] = ast.copy_location(ast.Name(id=name, ctx=ast.Load()), node)
        return ref

    def _check_clashes(self, node, cd, values):
        clash = sorted(n for n in values if n in cd.own_locals)
        if clash:
            self.fn.unsupported(node, f"the inner function '{cd.name}' binds '{clash[0]}', which an inner function it "
                                f"calls reads from the enclosing function", "rename one of the two variables")

    # ---- escapes -----------------------------------------------------------------------------------------------
    def escape_closure(self, node, cd):
        """The device function of inner function ``cd`` passed as a value: its captures as constants."""
        captured = {}
        self._escape_gather(cd, captured)
        self._check_clashes(node, cd, {n: None for n in captured})
        return cd.function(captured, ())

    def _escape_gather(self, cd, out):
        """numba-cuda's rule for a function that may escape (``convert_code_obj_to_function``): each captured
        variable has exactly one definition, and that is a constant. Also allowed here: a function defined in
        the enclosing scope, and a function or type the enclosing specialisation takes as a parameter."""
        owner = cd.owner
        for name in cd.free:
            if name in out:
                continue
            if name in owner.state.function_params:
                held = owner.state.function_params[name]
                out[name] = Captured(Symbol(held.path, held.obj))
                continue
            if name not in owner.state.locals:
                found, obj = owner.state.parsed.lookup(name)
                if isinstance(obj, Captured):
                    out[name] = obj
                    if isinstance(obj.value, Symbol) and obj.value.path == "closure":
                        self._escape_gather(obj.value.obj, out)
                continue
            defs = owner.closures.definitions().get(name, [])
            if len(defs) != 1:
                raise typing_error(owner.state.loc, cd.node, f"Cannot capture a constant value for variable '{name}' "
                                                             f"as "
                                   f"there are multiple definitions present.", _ESCAPE_HINT)
            d = defs[0]
            if isinstance(d, (InnerDef, InnerLambda)):
                sub = owner.closures.closure_def(d)
                out[name] = Captured(Symbol("closure", sub))
                self._escape_gather(sub, out)
                continue
            c = _constant_of(d)
            if c is _NOT_CONSTANT:
                raise typing_error(owner.state.loc, cd.node, f"Cannot capture the non-constant value associated with "
                                   f"variable '{name}' in a function that may escape.",
               _ESCAPE_HINT)
            v = owner.global_value(cd.node, name, c)
            out[name] = Captured(v)

    def definitions(self):
        """name -> the nodes that bind it in this function's own scope: a parameter's ``arg``, an ``InnerDef``,
        an ``InnerLambda`` assigned alone to it, the ``Assign`` of ``name = <expression>``, or the Name stored."""
        if self.st.definitions_by_name is None:
            parents = {}
            for n in own_scope(self.st.parsed.tree.body):
                for child in ast.iter_child_nodes(n):
                    parents[child] = n
            defs = {}
            for p in self.st.parsed.param_nodes:
                defs.setdefault(p.arg, []).append(p)
            for n in own_scope(self.st.parsed.tree.body):
                if isinstance(n, InnerDef):
                    defs.setdefault(n.name, []).append(n)
                elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    up = parents.get(n)
                    alone = isinstance(up, ast.Assign) and len(up.targets) == 1 and up.targets[0] is n
                    site = (up.value if isinstance(up.value, InnerLambda) else up) if alone else n
                    defs.setdefault(n.id, []).append(site)
            self.st.definitions_by_name = defs
        return self.st.definitions_by_name

    def check_escapes(self):
        """Before typing (as numba-cuda's pass runs before its typing): the inner functions of this scope that
        the syntax shows escaping (named other than as a call's callee; a lambda that is neither assigned to a
        name nor called) must close over constants only."""
        if not any(isinstance(n, (InnerDef, InnerLambda)) for n in own_scope(self.st.parsed.tree.body)):
            return
        parents = {}
        for n in own_scope(self.st.parsed.tree.body):
            for child in ast.iter_child_nodes(n):
                parents[child] = n
        defs = self.definitions()
        escaping = []
        for n in own_scope(self.st.parsed.tree.body):
            up = parents.get(n)
            called = isinstance(up, ast.Call) and up.func is n
            if isinstance(n, InnerLambda):
                assigned = isinstance(up, ast.Assign) and len(up.targets) == 1 and isinstance(up.targets[0], ast.Name)
                if not (called or assigned):
                    escaping.append(n)
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and not called \
                    and not getattr(n, "cj_capture", False):
                escaping += [d for d in defs.get(n.id, ()) if isinstance(d, (InnerDef, InnerLambda))]
        for d in escaping:
            self._escape_gather(self.closure_def(d), {})


_ESCAPE_HINT = ("an inner function passed to another function closes over constants only (numba-cuda's rule); pass "
                "the value as an argument instead, or call the inner function directly")
_NOT_CONSTANT = object()


def _constant_of(site):
    """The constant an ``Assign`` site assigns (numba-cuda's ``ir.Const``: what CPython folds to one constant),
    else _NOT_CONSTANT."""
    if not isinstance(site, ast.Assign):
        return _NOT_CONSTANT
    folded = python_folded(site.value)
    if folded is TOO_LARGE:
        return _NOT_CONSTANT
    if folded is not NOT_FOLDED:
        return folded
    try:
        return ast.literal_eval(site.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOT_CONSTANT


def refuse_recursion(loc, tree, name):
    """Numba inlines inner functions, so they cannot recurse."""
    return unsupported(loc, tree, f"the inner function '{name}' calls itself (directly or through other functions): "
                                  f"functions defined inside a kernel or device function must not be recursive (as in "
                                  f"Numba)",
                       "define it at module level with @cuda.jit(device=True) to recurse")

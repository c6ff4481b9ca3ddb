"""Translate one Python function (kernel or device function) to structured C++: one visitor method per statement.

The function is walked several times. Typing passes follow reaching definitions (Numba's SSA) and unify types
where definitions meet, until nothing changes; then the C++ variables are chosen (storage.py) and a final pass
writes the code. Expressions are in expressions.py.
"""
import ast
import re
import warnings

from .. import config
from ..errors import NumbaWarning
from . import coarsen, records, types as T
from .closures import ClosureMixin, closure_value
from .errors import CONSTRUCT_HINTS, describe_construct, typing_error, unsupported
from .evalorder import EvalOrderMixin
from .frontend import NOT_FOLDED, TOO_LARGE, python_folded
from .innerdefs import InnerDef
from .expressions import ExpressionMixin
from .loops import LoopMixin
from .operators import PY_OPS
from .storage import Site, assign_storage, place_declarations
from .typeconv import unify
from .values import Symbol, Value, cast, const_value, is_shape_constant, none_value, tuple_value, typed

MAX_PASSES = 40
_NOT_GRID = object()  # FunctionTranslator.def_grid: a definition that is not cuda.grid's


class FunctionTranslator(LoopMixin, ExpressionMixin, EvalOrderMixin, ClosureMixin):
    def __init__(self, program, parsed, argtypes, is_kernel, options, cname, literals=None):
        self.program, self.parsed, self.loc = program, parsed, parsed.loc
        self.argtypes, self.is_kernel, self.options, self.cname = tuple(argtypes), is_kernel, options, cname
        # Persistent across passes: definition types, webs (union-find), return type.
        self.def_types, self.def_nonneg, self.def_names, self.def_nodes, self.def_order = {}, {}, {}, {}, {}
        self.def_consts = {}         # definition -> the int or tuple of ints it assigned (``N = 32``), this pass
        # A device function specialised on its constant arguments (program.device_function): each such
        # parameter is a definition of its value.
        for name, c in zip(parsed.params, literals or ()):
            if c is not None:
                self.def_consts[("param", name)] = c
        # definition -> the cuda.grid component it assigned (Value.grid), or _NOT_GRID once any pass assigned
        # anything else there; sticky, so the passes settle (a use reads a definition not yet seen as not grid)
        self.def_grid = {}
        # (parameter, axis, grid component) of every checked element the kernel takes at a grid index, with the
        # parameter unassigned: the CPU block loop proves them for a whole block (CJ_ENTRY_FITS). fit_codes:
        # (code, its sites) as the final pass renders them, loop bodies more than once; fit_sites: those whose
        # code is in the kernel's text (_finish).
        self.fit_codes, self.fit_sites = [], set()
        self.parent = {}
        self.escapes, self.def_loop = set(), {}
        self.return_type = T.undefined
        self.returns_value = False
        self.storage_decls = {}              # id(call node) -> (name, C++ declaration line)
        self.local_bytes = {}                # id(cuda.local.array call) -> its bytes
        self.reserved_names = set()
        self.uses_barriers = False
        self.uses_dynamic_shared = False
        self.callees = set()
        self.recursive = False                # reached again while being translated (program.py)
        self.self_calls = set()               # id(call node) of this function's calls of itself
        self.returned_node = None             # the expression of the return statement being typed
        self.may_raise = False                # has raise/assert or calls a function that has (evalorder.py)
        self.locals = self._assigned_names(parsed)
        # Inner functions (closures.py): a ClosureDef per def of this specialisation, the Name loads a call
        # reads captured variables through, and this scope's bindings by name (for numba's escape rule).
        self.closure_defs, self.capture_refs, self._definitions = {}, {}, None
        # Parameters holding a function or a type (types.FunctionValue): names of compile-time objects, not
        # variables, so they take no C++ parameter and cannot be reassigned.
        self.function_params = {name: t for name, t in zip(parsed.params, self.argtypes) if isinstance(t, T.FunctionValue)}
        self.typed_vars = {}                  # (lineno, name) -> type, for typed_listing
        self.unrolled = {}                    # (id(for node), length) -> its literal_unroll iterations (loops.py)
        self.unroll_origin = {}               # id(a for node in such a copy) -> the user's for node it copies
        # Block coarsening (coarsen.py): the registry names this function used; in a GPU kernel, the read-only array
        # parameters whose elements load through cj::ld_nc, and whether one of them was viewed after all.
        self.intrinsics_used = set()
        self.nc_params = set()
        if is_kernel and options.target == "gpu" and not options.reports_errors:
            self.nc_params = coarsen.read_only_params(parsed.tree, parsed.params, self.argtypes)
        self.nc_broken = False
        self.head_params, self.head_bounds = [], ""   # the kernel's C++ parameters and launch bounds (render)
        self.omitted = {}                     # parameter left out of the launch -> its default's Value (this pass)

    # ---- errors ------------------------------------------------------------------------------------------
    def error(self, node, what, hint=None):
        raise typing_error(self.loc, node, what, hint)

    def unsupported(self, node, what, hint=None):
        raise unsupported(self.loc, node, what, hint)

    # ---- driver ------------------------------------------------------------------------------------------
    def translate(self):
        """Run the typing passes to a fixed point, then the final pass; returns the C++ function text."""
        tree = self.parsed.tree
        self._check_signature(tree)
        self.check_escapes()
        for _ in range(MAX_PASSES):
            self.changed = False
            self._run_pass(final=False)
            if not self.changed:
                break
        else:
            self.error(tree, f"type inference of '{self.parsed.name}' did not settle")
        if self.return_type == T.undefined:
            if self.recursive and self.returns_value:
                # numba-cuda's words first
                self.error(tree, f"cannot type infer runaway recursion: every return of recursive function "
                                 f"'{self.parsed.name}' recurses, so its return type is never found",
                           "add a base case that returns a value without recursing")
            self.return_type = T.none
        assign_storage(self)
        self._choose_direct_loops()
        self._run_pass(final=True)
        return self._finish()

    def _check_signature(self, tree):
        # (*args and the like were refused when the def was parsed: frontend._check_def)
        if len(self.argtypes) != len(self.parsed.params):
            what = "kernel" if self.is_kernel else "device function"
            self.error(tree, f"{what} '{self.parsed.name}' takes {len(self.parsed.params)} arguments, "
                             f"{len(self.argtypes)} given")

    def _run_pass(self, final):
        self.final = final
        self.env = {}
        self.lines = []
        self.sites, self.loop_sites = [], {}
        self.pos = 0
        self.block, self.chain, self.loops, self.loop_ctx = (0,), (), (), []
        self.next_block, self.next_sid, self.temp_counter = 1, 0, 0
        self.top_lines = []
        self.reset_effects()
        for name, t, arg in zip(self.parsed.params, self.argtypes, self.parsed.param_nodes):
            if name in self.function_params:
                continue
            key = ("param", name)
            self.def_order.setdefault(key, -1)
            self.def_names[key], self.def_nodes[key] = name, arg
            nonneg = T.is_int(t) and not t.signed
            if isinstance(t, T.Omitted):
                # Left out of the launch: its default, a constant of this specialisation (Numba types it as the
                # value's literal type), which the prologue assigns (_finish)
                v = self.omitted[name] = self.omitted_value(arg, t)
                t, nonneg = v.type, v.nonneg
                if v.is_const:
                    self.def_consts[key] = v.const
            self._set_def_type(key, t, nonneg=nonneg)
            self.env[name] = frozenset([key])
            if final:
                self._record("def", name, frozenset([key]), simple=False)
        self.undefined_uses = {}
        self.fit_codes = []
        self.visit_block(self.parsed.tree.body, new_block=False)
        if self.env is not None and not self.is_kernel and self.returns_value \
                and unify(self.return_type, T.none) is not None:
            # The end is reachable in a function that returns a value: Python returns None there, so the function
            # returns an Optional, as in Numba. (A tuple or array cudajit does not wrap keeps the C++ end.)
            self._unify_return(self.parsed.tree, T.none)
            self.emit(self._return_none())
        if final and self.undefined_uses and config.ALWAYS_WARN_UNINIT_VAR:
            for name in sorted({name for _, name in self.undefined_uses.values()}):
                node = min((n for n, m in self.undefined_uses.values() if m == name),
                           key=lambda n: (n.lineno, n.col_offset))
                warnings.warn(NumbaWarning(f"{self.loc.filename}:{self.loc.lineno(node)}: Detected uninitialized "
                                            f"variable {name}"))

    def omitted_value(self, node, t):
        """The value of a parameter left out of a launch (``types.Omitted``): its default as the kernel sees a
        global of that value (a number, None, a tuple, an array in constant memory, an Enum member, a function),
        converted to an eager signature's declared type."""
        v = self.argument_value(node, self.global_value(node, node.arg, t.value))
        if t.declared is not None and v.type != t.declared:
            v = self.convert(node, v, t.declared)
        return v

    # ---- dataflow ----------------------------------------------------------------------------------------
    def find(self, k):
        while self.parent.get(k, k) != k:
            k = self.parent[k]
        return k

    def _union(self, keys):
        keys = list(keys)
        roots = {self.find(k) for k in keys}
        if len(roots) > 1:
            first, *rest = sorted(roots, key=lambda r: self.def_order[r])
            for r in rest:
                self.parent[r] = first
            self.changed = True

    def _set_def_type(self, key, t, nonneg):
        old = self.def_types.get(key, T.undefined)
        new = unify(old, t)
        if new is None:
            self.unify_error(self.def_nodes[key], self.def_names[key], (old, t))
        if new != old:
            self.def_types[key] = new
            self.changed = True
        old_nn = self.def_nonneg.get(key, True)
        if old_nn and not nonneg and t != T.undefined:
            self.def_nonneg[key] = False
            self.changed = True

    @staticmethod
    def _merge(*envs):
        envs = [e for e in envs if e is not None]
        if not envs:
            return None
        out = dict(envs[0])
        for e in envs[1:]:
            for k, v in e.items():
                out[k] = out[k] | v if k in out else v
        return out

    def unify_error(self, node, name, ts):
        """Definitions of ``name`` of types ``ts`` meet and have no common type."""
        names = sorted({str(t) for t in ts})
        if T.none in ts or any(isinstance(t, T.Optional) for t in ts):
            # Numba makes such a variable Optional(T); cudajit wraps booleans and numbers only (types.Optional)
            self.error(node, f"variable '{name}' is None on one path and {' or '.join(n for n in names if n != 'none')}"
                             f" on another: a value that may be None at run time (Numba's Optional) is supported "
                             f"in cudajit kernels for booleans and numbers only", "give it a value of one type on "
                             "every path, e.g. a sentinel with a flag, or decide with `is None` on a None that is "
                             "known when compiling (an argument's default)")
        self.error(node, f"cannot unify {' and '.join(names)} for variable '{name}'",
                   "give the variable one type on every path")

    def _record(self, kind, name, keys, simple=False):
        self.pos += 1
        var = self.storage.get(next(iter(keys))) if self.final else None
        if var is None:
            return None
        sid = self.pos
        root = self.web_of.get(next(iter(keys)))
        self.sites.append(Site(kind, var, keys, self.pos, self.block, self.chain, self.loops, simple, sid, root))
        return sid

    def load_var(self, node, name):
        defs = self.env.get(name) if self.env is not None else None
        if not defs:
            # Inside a loop a later iteration of the analysis may bring a definition around the back edge; the
            # use reads no variable only if the last visit still finds none (warned at the end of the pass).
            self.undefined_uses[id(node)] = (node, name)
            return self._unassigned_read(name) if self.env is not None else Value(T.undefined, name)
        self.undefined_uses.pop(id(node), None)
        if len(defs) > 1:
            self._union(defs)
        for d in defs:
            loop = self.def_loop.get(d)
            if loop is not None and loop not in self.loops and d not in self.escapes:
                self.escapes.add(d)
                self.changed = True
        t = T.undefined
        for d in defs:
            t = unify(t, self.def_types.get(d, T.undefined))
            if t is None:
                self.unify_error(node, name, [self.def_types[k] for k in defs if k in self.def_types])
        if t == T.none:                         # None on every path reaching here: a compile-time value
            return none_value()
        if isinstance(t, T.FunctionValue):      # a type or function held by a local (``dtype = a.dtype``)
            return Symbol(t.path, t.obj)
        nonneg = all(self.def_nonneg.get(d, True) for d in defs)
        grids = {self.def_grid.get(d, _NOT_GRID) for d in defs}
        grid = next(iter(grids)) if len(grids) == 1 else None
        grid = None if grid is _NOT_GRID else grid
        only = next(iter(defs))
        param = only[1] if len(defs) == 1 and isinstance(only, tuple) and only[0] == "param" else None
        # A use reached by one definition of a constant keeps it (Numba's constant propagation): a local
        # ``N = 32`` can size a shared or local array.
        const = self.def_consts.get(next(iter(defs)), Value.NOCONST) if len(defs) == 1 else Value.NOCONST
        if not self.final:
            return Value(t, name, nonneg=nonneg, const=const, grid=grid, param=param)
        self._record("use", name, defs)
        var = self.storage[next(iter(defs))]
        if var.type != t:
            return cast(Value(var.type, var.cname, nonneg=nonneg, const=const), t)
        return Value(var.type, var.cname, nonneg=nonneg, const=const, grid=grid, param=param)

    def _unassigned_read(self, name):
        """A read of local ``name`` that no assignment reaches (Python raises UnboundLocalError there if it runs).
        Numba compiles it: its SSA gives such a read an ``undef`` definition, typed as whatever it meets and
        lowered as zero (numba-cuda's test_ssa.py::test_undefined_var). Here it is the zero of the type the
        name's assignments unify to (int64 when none has one). A read that some assignments reach and others do
        not reads the variable, which is declared zero-initialised before the paths meet (storage.py)."""
        t = T.undefined
        for key, other in self.def_names.items():
            if other == name:
                t = unify(t, self.def_types.get(key, T.undefined)) or t
        if t == T.none:
            return none_value()
        if t == T.undefined or T.is_compile_time(t):
            t = T.int64
        return Value(t, f"{t.cpp}{{}}", nonneg=True)

    def store_var(self, target, name, value, simple):
        """Assign ``value`` to variable ``name`` (``target``: the Name node that defines it). Returns the C++
        assignment statement (final pass) with a declaration marker."""
        if name in self.function_params:
            self.error(target, f"cannot assign to '{name}': it holds {self.function_params[name]}, a compile-time "
                               f"value of this specialisation", "assign to a new variable name instead")
        key = id(target)
        if key not in self.def_order:
            self.def_order[key] = len(self.def_order)
        self.def_names[key], self.def_nodes[key] = name, target
        if isinstance(value.type, T.DType) or isinstance(value.const, str):
            self.error(target, f"cannot assign a value of type {value.type} to variable '{name}'")
        self._set_def_type(key, value.type, value.nonneg)
        grid = _NOT_GRID if value.grid is None else value.grid
        if key not in self.def_grid:
            self.def_grid[key] = grid
        elif self.def_grid[key] is not _NOT_GRID and self.def_grid[key] != grid:
            self.def_grid[key] = _NOT_GRID
            self.changed = True
        if is_shape_constant(value.const if value.is_const else None):
            self.def_consts[key] = value.const
        else:
            self.def_consts.pop(key, None)
        if self.env is not None:
            self.env[name] = frozenset([key])
        if getattr(target, "lineno", None):
            self.typed_vars[(target.lineno, name)] = self.def_types.get(key, value.type)
        if not self.final:
            return ""
        var = self.storage.get(key)
        if T.is_compile_time(value.type) and not (value.type == T.none and var is not None):
            # x = None, f = math.sqrt: no C++ variable (a call still runs); None into an Optional variable is its None
            return f"{value.code};" if value.code else ""
        if var is None:
            return ""
        sid = self._record("def", name, frozenset([key]), simple=simple)
        rhs = cast(value, var.type) if value.type != var.type else value
        return f"\0D{sid}\0{var.cname} = {rhs.code};"

    @staticmethod
    def _assigned_names(parsed):
        names = set(parsed.params)
        for n in ast.walk(parsed.tree):       # inner functions' own bodies are out of reach (innerdefs.py)
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                names.add(n.id)
            elif isinstance(n, InnerDef):
                names.add(n.name)
        return names

    # ---- emission ----------------------------------------------------------------------------------------
    def emit(self, text, node=None, indent=None):
        line = getattr(node, "lineno", None)
        self.lines.append((len(self.chain) if indent is None else indent,
                           text, None if line is None else self.loc.lineno(node)))

    def temp(self, hint="t"):
        self.temp_counter += 1
        return f"cj_{hint}{self.temp_counter}"

    def visit_block(self, stmts, new_block=True, sid=None):
        saved = (self.block, self.chain)
        if new_block:
            self.block = self.block + (self.next_block,)
            self.next_block += 1
        for s in stmts:
            if self.env is None:          # unreachable (after return/break/continue): Python never runs it
                break
            self.next_sid += 1
            stmt_sid = self.next_sid
            self.chain = saved[1] + (stmt_sid,)
            self.emit(f"\0P{stmt_sid}\0")
            self.visit_stmt(s)
        self.block, self.chain = saved

    def visit_stmt(self, node):
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            self.unsupported(node, f"{describe_construct(node)} is not supported in CUDA kernels", CONSTRUCT_HINTS.get(type(node)))
        method(node)

    # ---- raise and assert (exceptions reach the host when the kernel is compiled with debug=True) ----------
    def stmt_Raise(self, node):
        if node.cause is not None:
            self.unsupported(node, "raise ... from ... is not supported in CUDA kernels")
        if node.exc is None:
            self.unsupported(node, "a bare raise is not supported in CUDA kernels", "raise an exception class")
        cls, args = self._exception(node.exc)
        self.may_raise = True
        if self.final:
            self._emit_raise(node, cls, args)
        self.env = None

    def stmt_Assert(self, node):
        if not self.program.options.debug:
            return                      # checked only with debug=True (Numba's exception checking)
        test = self.condition(node.test)
        args = ()
        if node.msg is not None:
            msg = self.visit_expr(node.msg)
            if not (isinstance(msg, Value) and msg.is_const):
                self.unsupported(node.msg, "an assert message must be a constant")
            args = (msg.const,)
        self.may_raise = True
        if self.final:
            self.emit(f"if (!({test.code})) {{", node)
            self._emit_raise(node, AssertionError, args, indent=len(self.chain) + 1)
            self.emit("}", node)

    def _emit_raise(self, node, cls, args, indent=None):
        if self.program.options.debug:
            # records the raise and ends the thread there (debug.h): a device function's callers never resume
            site = self.program.error_site(cls, args, self.loc, node)
            self.emit(f"cj::debug_raise({site});", node, indent)
            return
        # numba-cuda: the raise's error status makes every caller return, and the kernel with them, so the thread
        # ends (thread.h's end_thread in a device function; nothing is reported without debug)
        self.emit("return;" if self.is_kernel else "cj::end_thread();", node, indent)

    def _exception(self, exc):
        """``raise E`` / ``raise E(constant args)`` -> (exception class, args), as Numba accepts them."""
        target, args = exc, ()
        if isinstance(exc, ast.Call):
            if exc.keywords:
                self.unsupported(exc, "keyword arguments of an exception are not supported in CUDA kernels")
            target = exc.func
            vals = [self.visit_expr(a) for a in exc.args]
            if not all(isinstance(v, Value) and v.is_const for v in vals):
                self.unsupported(exc, "exception arguments must be constants in CUDA kernels")
            args = tuple(v.const for v in vals)
        cls = None
        if isinstance(target, ast.Name) and target.id not in self.locals:
            found, obj = self.parsed.lookup(target.id)
            cls = obj if found else None
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            self.unsupported(exc, "only an exception class, or one called with constant arguments, can be raised "
                                  "in CUDA kernels")
        return cls, args

    # ---- statements --------------------------------------------------------------------------------------
    def stmt_Pass(self, node):
        pass

    def stmt_Global(self, node):
        """``global x`` / ``nonlocal x`` only to read ``x`` changes nothing: a kernel reads the value frozen at compile
        time, as any global (Numba sees no such statement in the bytecode); assigning it is refused, as Numba does."""
        kind = "global" if isinstance(node, ast.Global) else "nonlocal"
        for name in node.names:
            if name in self.locals and kind == "nonlocal" and self.parsed.outer_parsed is not None:
                self.unsupported(node, f"assigning the enclosing function's variable '{name}' from the inner "
                                       f"function '{self.parsed.name}' is not supported in CUDA kernels",
                                 "return the new value from the inner function and assign it in the enclosing one")
            if name in self.locals:
                self.unsupported(node, f"assigning the {kind} variable '{name}' is not supported in CUDA kernels",
                                 "globals and closure variables are frozen when the kernel compiles; pass an "
                                 "array argument to return a value")

    stmt_Nonlocal = stmt_Global

    def stmt_Expr(self, node):
        if isinstance(node.value, ast.Constant):         # docstrings and bare constants do nothing
            return
        folded = python_folded(node.value)
        if folded is not NOT_FOLDED and folded is not TOO_LARGE:
            # CPython drops a statement that folds to a constant (`2**62 << 2`): Numba never sees it
            return
        v = self.visit_expr(node.value)
        if isinstance(v, Value) and v.code and v.type != T.undefined:
            # `int64_t(cj::inf<double>());` alone would be a declaration to C++ (NVRTC: "qualified name is not
            # allowed"): a statement that begins with a conversion is spelled as a discarded value
            code = f"(void)({v.code})" if v.code.startswith(v.type.cpp + "(") else v.code
            self.emit(f"{code};", node)

    def stmt_Assign(self, node):
        if self._assign_symbols_in_tuple(node):
            return
        value = self.visit_expr(node.value, target_hint=node.targets[0], optional=True)
        if isinstance(value, Symbol) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            # a type or function: a compile-time local; an inner function (f = lambda ...) stays one
            value = closure_value(value.obj) if value.path == "closure" else self.argument_value(node.value, value)
        value = self.as_value(node.value, value)
        for target in node.targets:
            self.assign(target, value, node, simple=len(node.targets) == 1)

    def _assign_symbols_in_tuple(self, node):
        """``int32, uint32 = numba.int32, numba.uint32`` (types or functions among the values of a tuple assignment to
        names): each such name becomes a compile-time local, as ``x = numba.int32`` does; the other names take their
        values as one tuple assignment (all of the right side is evaluated first, as in Python). False when the
        statement is not of that form."""
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Tuple) or not isinstance(node.value, ast.Tuple):
            return False
        targets, values = node.targets[0].elts, node.value.elts
        if len(targets) != len(values) or any(isinstance(e, ast.Starred) for e in targets + values):
            return False
        parts = [self.visit_expr(e, optional=True) for e in values]
        if not any(isinstance(p, Symbol) for p in parts):
            return False
        runtime = []
        for target, value, part in zip(targets, values, parts):
            if isinstance(part, Symbol):
                if not isinstance(target, ast.Name):
                    self.as_value(value, part)               # the error a type or function stored elsewhere gets
                part = closure_value(part.obj) if part.path == "closure" else self.argument_value(value, part)
                self.assign(target, part, node, simple=True)
            else:
                runtime.append((target, value, part))
        if len(runtime) == 1:
            self.assign(runtime[0][0], self.as_value(runtime[0][1], runtime[0][2]), node, simple=True)
        elif runtime:
            elts = [ast.copy_location(ast.Tuple([t for t, _, _ in runtime], ast.Store()), node.targets[0])]
            tup = self.tuple_of(node.value, [self.as_value(v, p) for _, v, p in runtime], [v for _, v, _ in runtime])
            self.assign(elts[0], tup, node, simple=True)
        return True

    def stmt_AnnAssign(self, node):
        if node.value is None:
            return
        value = self.as_value(node.value, self.visit_expr(node.value, target_hint=node.target, optional=True))
        self.assign(node.target, value, node, simple=True)

    def stmt_AugAssign(self, node):
        op = _op(node.op)
        mark = self.effects_mark()
        if isinstance(node.target, ast.Name):
            current = self.visit_expr(ast.copy_location(ast.Name(node.target.id, ast.Load()), node.target))
        elif isinstance(node.target, ast.Subscript):
            current = self.visit_expr(ast.copy_location(
                ast.Subscript(node.target.value, node.target.slice, ast.Load()), node.target))
        elif isinstance(node.target, ast.Attribute):          # a record's field: r.x += v
            current = self.visit_expr(ast.copy_location(
                ast.Attribute(node.target.value, node.target.attr, ast.Load()), node.target))
        else:
            self.unsupported(node, f"augmented assignment to {describe_construct(node.target)} is not supported")
        if not isinstance(current, Value):       # a module, function or type: np.float32 += 1
            self.error(node, f"cannot assign to '{ast.unparse(node.target)}' ({getattr(current, 'path', current)}) in a "
                             f"CUDA kernel")
        f_current, mark = self.effects_since(mark), self.effects_mark()
        value = self.as_value(node.value, self.visit_expr(node.value))
        f_value, mark = self.effects_since(mark), self.effects_mark()
        result = self.binop(node, op, current, value)
        f_op = self.effects_since(mark)
        if self.needs_order([f_current, (f_value[0] + f_op[0], f_value[1] + f_op[1])]) \
                and self._update_element(node, op, current, value, f_value[0] > 0):
            return
        compound = self.final and op in ("+", "-", "*", "/", "&", "|", "^") \
            and result.code.startswith(f"{current.code} {op} ")
        if compound and isinstance(node.target, ast.Name) and _is_identifier(current.code):
            code = self.store_var(node.target, node.target.id, result, simple=False)
            var = current.code
            prefix = f"{var} = {var} {op} "
            i = code.find(prefix)
            if i >= 0 and code.index("\0", 2) < i:
                code = code[:i] + f"{var} {op}= " + code[i + len(prefix):]
            self.emit(code, node)
            return
        if compound and isinstance(node.target, ast.Subscript) and current.lvalue \
                and not getattr(self.visit_expr(node.target.value), "type", T.none).__dict__.get("readonly"):
            # a[i] += x: C++'s compound assignment converts exactly as Numba's load-add-store does, because the
            # right operand was already converted wherever C++ would not agree with Numba's typing.
            self.emit(f"{current.code} {op}= {result.code[len(current.code) + len(op) + 2:]};", node)
            return
        self.assign(node.target, result, node, simple=False)

    def _update_element(self, node, op, current, value, value_writes):
        """``a[i] op= v`` where Python's order shows (debug=True, evalorder.py): the element is found (its index
        checked) before ``v`` is evaluated, as Python loads it first; C++'s ``x op= v`` evaluates ``v`` first. Where
        ``v`` has a side effect, the element's value is also read before it (``v`` may write the element).
        False where the target is not a writable array's element (the plain path then says why)."""
        target = node.target
        base = self.visit_expr(target.value) if isinstance(target, ast.Subscript) else None
        if not (isinstance(base, Value) and isinstance(base.type, T.Array) and not base.type.readonly
                and current.lvalue and T.is_scalar(current.type)):
            return False
        ref = self.temp("ref")
        self.emit(f"auto& {ref} = {current.code};", node)
        loaded = ref
        if value_writes:
            loaded = self.temp("old")
            self.emit(f"const {current.type.cpp} {loaded} = {ref};", node)
        result = self.binop(node, op, Value(current.type, loaded), value)
        self.emit(f"{ref} = {self.convert(node, result, current.type).code};", node)
        return True

    def assign(self, target, value, stmt, simple):
        if isinstance(target, ast.Name):
            if target.id not in self.locals:
                self.unsupported(target, f"assignment to global '{target.id}'")
            code = self.store_var(target, target.id, value, simple)
            if code:
                self.emit(code, stmt)
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.assign_unpack(target, value, stmt)
        elif isinstance(target, ast.Subscript):
            self.assign_subscript(target, value, stmt)
        elif isinstance(target, ast.Attribute) and self.assign_field(target, value, stmt):
            pass
        elif isinstance(target, ast.Starred):
            self.unsupported(target, "starred assignment is not supported in CUDA kernels")
        else:
            self.unsupported(target, f"assignment to {describe_construct(target)} is not supported in CUDA kernels")

    def assign_field(self, target, value, stmt):
        """``r.x = value`` for a record ``r``; False when ``target`` is not a record's field."""
        base = self.visit_expr(target.value)
        if not isinstance(base, Value) or not isinstance(base.type, (T.Record, T.Undefined)):
            return False
        if base.type != T.undefined and value.type != T.undefined:
            records.store(self, target, base, target.attr, value, stmt)
        return True

    def assign_unpack(self, target, value, stmt):
        if isinstance(value.type, T.Array) and value.type.ndim >= 1:
            return self.assign_unpack_array(target, value, stmt)
        if not isinstance(value.type, T.BaseTuple):
            if value.type == T.undefined:
                for elt in target.elts:
                    elt = elt.value if isinstance(elt, ast.Starred) else elt
                    self.assign(elt, Value(T.undefined, "?"), stmt, simple=False)
                return
            self.error(target, f"cannot unpack a value of type {value.type}")
        starred = [k for k, e in enumerate(target.elts) if isinstance(e, ast.Starred)]
        fixed = len(target.elts) - len(starred)
        if len(starred) > 1:
            self.error(target, "multiple starred expressions in assignment")
        if value.type.count != fixed and not (starred and value.type.count > fixed):
            self.error(target, f"cannot unpack {value.type.count} values into {len(target.elts)} targets")
        if self.final and value.elements is None and not _is_identifier(value.code):
            # a call returning a tuple runs once: a, b = f(x) keeps its result, then takes the elements
            name = self.temp()
            self.emit(f"const {value.type.cpp} {name} = {value.code};", stmt)
            value = Value(value.type, name)
        parts = self.tuple_elements(target, value)
        elts = target.elts
        if starred:
            # a, *rest, z = t: the starred name takes the middle elements as a tuple (Python makes a list)
            k, n = starred[0], value.type.count - fixed
            middle = [typed(p, p.type) for p in parts[k:k + n]]
            rest = tuple_value(T.Tuple([p.type for p in middle]), middle)
            parts = parts[:k] + [rest] + parts[k + n:]
            elts = elts[:k] + [elts[k].value] + elts[k + 1:]
        # Python evaluates the whole right side first: a, b = b, a needs temporaries.
        if self.final and self._unpack_needs_temps(target, parts, value):
            tmps = []
            for p in parts:
                name = self.temp()
                self.emit(f"const {p.type.cpp} {name} = {p.code};", stmt)
                tmps.append(Value(p.type, name, nonneg=p.nonneg, grid=p.grid))   # a copy: p's value
            parts = tmps
        for elt, p in zip(elts, parts):
            self.assign(elt, p, stmt, simple=isinstance(elt, ast.Name))

    def assign_unpack_array(self, target, value, stmt):
        """``x, y, z = a[:3]``: Numba unpacks an array as an iterable, element by element along its first axis
        (rows of a 2-d array), after checking that the lengths agree. Here the elements are read as a[0], a[1], ...
        (an array too short fails their bounds check; one too long is not reported, as numba-cuda reports it
        only in debug builds), all before any target is assigned."""
        if any(isinstance(e, ast.Starred) for e in target.elts):
            self.unsupported(target, "starred unpacking of an array is not supported in CUDA kernels",
                             "index the array instead")
        if self.final and not _is_identifier(value.code):
            name = self.temp()
            self.emit(f"const {value.type.cpp} {name} = {value.code};", stmt)
            value = Value(value.type, name)
        parts = [self.subscript(target, value, [const_value(k)]) for k in range(len(target.elts))]
        if self.final and len(parts) > 1:
            tmps = []
            for p in parts:
                name = self.temp()
                self.emit(f"const {p.type.cpp} {name} = {p.code};", stmt)
                tmps.append(Value(p.type, name))
            parts = tmps
        for elt, p in zip(target.elts, parts):
            self.assign(elt, p, stmt, simple=isinstance(elt, ast.Name))

    def _unpack_needs_temps(self, target, parts, value):
        if value.elements is None:
            return False                  # a named tuple (a call's result was kept in one above)
        names = set()
        for n in ast.walk(target):
            if isinstance(n, ast.Name):
                for k, var in self.storage.items():
                    if self.def_names.get(k) == n.id:
                        names.add(var.cname)
            elif isinstance(n, ast.Subscript):
                return len(parts) > 1
        tokens = set()
        for p in parts:
            tokens.update(re.findall(r"[A-Za-z_]\w*", p.code))
        return bool(tokens & names)

    def stmt_If(self, node):
        cond = self.condition(node.test)
        if cond.is_const and isinstance(cond.const, bool):
            # Known at compile time (``if b is None`` with b None or a number, a global flag): only the branch taken
            # is typed and emitted, as Numba's dead-branch pruning does.
            taken = node.body if cond.const else node.orelse
            if taken:
                code = self.sub_block(taken)
                self.emit("{", node)
                self.lines.extend(code)
                self.emit("}")
            return
        before = self.env
        self.env = dict(before)
        then_code = self.sub_block(node.body)
        env_then = self.env
        self.env = dict(before)
        else_code = self.sub_block(node.orelse) if node.orelse else None
        self.env = self._merge(env_then, self.env)
        # An elif chain stays flat: "} else if (...) {".
        chain = (else_code and len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) and len(else_code) >= 2
                 and else_code[0][1].startswith("\0P") and else_code[1][1].startswith("if ("))
        if chain:
            marker, head, *rest = else_code
            self.lines.append((len(self.chain), marker[1], None))   # its declarations go before the whole if
        self.emit(f"if ({cond.code}) {{", node)
        self.lines.extend(then_code)
        if chain:
            self.lines.append((len(self.chain), "} else " + head[1], head[2]))
            self.lines.extend(_dedent(rest, 1))
        elif else_code is not None:
            self.emit("} else {")
            self.lines.extend(else_code)
            self.emit("}")
        else:
            self.emit("}")

    def sub_block(self, stmts, sid=None):
        saved = self.lines
        self.lines = []
        self.visit_block(stmts)
        out, self.lines = self.lines, saved
        return out

    def condition(self, node):
        v = self.as_value(node, self.visit_expr(node))
        if v.type == T.undefined:
            return Value(T.boolean, "true")
        if v.type == T.boolean:
            return v
        if v.type == T.none and v.const is None:      # ``if G:`` on a None known when compiling: false, pruned
            return const_value(False)
        if T.is_scalar(v.type):
            return Value(T.boolean, f"cj::py_bool({v.code})")
        self.error(node, f"cannot use a value of type {v.type} as a condition")

    def stmt_While(self, node):
        loop_site = self._loop_site(node)

        def one_pass():
            cond = self.condition(node.test)
            after_cond = dict(self.env)
            return cond, after_cond, self.sub_block(node.body)
        _, ctx, (cond, after_cond, body) = self.loop_to_fixed_point(node, one_pass)
        always = cond.is_const and cond.const is True or cond.code == "true"
        self.env = self._merge(None if always else after_cond, *ctx.breaks)
        self.loop_sites[id(node)] = loop_site
        spin = self.temp("spin")                   # CPU: a spinning loop lets its block's other threads run
        self.program.spins = True
        self.emit(f"CJ_SPIN_COUNTER({spin});", node)
        self.emit(f"while ({cond.code}) {{", node)
        self.emit_loop_poll()
        self.emit(f"CJ_SPIN_POLL({spin});", indent=len(self.chain) + 1)
        self.lines.extend(body)
        self.emit("}")

    def _loop_site(self, node):
        self.pos += 1
        return Site("loop", None, (), self.pos, self.block, self.chain, self.loops)

    def stmt_Break(self, node):
        if not self.loop_ctx:
            self.error(node, "'break' outside loop")
        self._refuse_in_unrolled(node, "break")
        self.loop_ctx[-1].breaks.append(self.env)
        self.env = None
        self.emit("break;", node)

    def stmt_Continue(self, node):
        if not self.loop_ctx:
            self.error(node, "'continue' not properly in loop")
        self._refuse_in_unrolled(node, "continue")
        self.loop_ctx[-1].conts.append(self.env)
        self.env = None
        self.emit("continue;", node)

    def _refuse_in_unrolled(self, node, what):
        if self.loop_ctx[-1].unrolled:
            self.unsupported(node, f"'{what}' in a literal_unroll loop is not supported in CUDA kernels",
                             "use a flag tested at the top of the body")

    def stmt_Return(self, node):
        if node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None):
            if not self.is_kernel:
                self._unify_return(node, T.none)
            self.env = None
            self.emit(self._return_none(), node)
            return
        if self.is_kernel:
            self.error(node, "a kernel cannot return a value",
                       "write results into an array argument (kernels return nothing)")
        self.returned_node = node.value
        v = self.as_value(node.value, self.visit_expr(node.value, optional=True))
        self._unify_return(node, v.type)
        self.returns_value = True
        self.env = None
        if self.final:
            self.emit(f"return {cast(v, self.return_type).code};", node)

    def _return_none(self):
        """``return`` / ``return None``: of a function that returns an Optional, its None."""
        if isinstance(self.return_type, T.Optional):
            return f"return {self.return_type.cpp}{{}};"
        return "return;"

    def _unify_return(self, node, t):
        if t == T.undefined:
            return
        new = unify(self.return_type, t)
        if new is None and (T.none in (self.return_type, t) or isinstance(self.return_type, T.Optional)
                            or isinstance(t, T.Optional)):
            other = next(x for x in (t, self.return_type) if x != T.none and not isinstance(x, T.Optional)) \
                if not all(x == T.none or isinstance(x, T.Optional) for x in (t, self.return_type)) else t
            self.error(node, f"'{self.parsed.name}' returns None on one path and {other} on another: a value that "
                             f"may be None at run time (Numba's Optional) is supported in cudajit kernels for "
                             f"booleans and numbers only",
                       "return a value of one type on every path (e.g. a sentinel number)")
        if new is None:
            self.error(node, f"cannot unify return types {self.return_type} and {t}",
                       "return values of one type from every return statement")
        if new != self.return_type:
            self.return_type = new
            self.changed = True

    # ---- the function ------------------------------------------------------------------------------------
    def qualifier(self):
        """A device function's C++ qualifier: forced inline on request, unless it recurses."""
        return "CJ_FORCEINLINE_DEVICE" if self.options.inline in (True, "always") and not self.recursive \
            else "CJ_DEVICE"

    def _finish(self):
        excluded = {self.web_of[k] for k in self.direct_loops}     # declared by their for statement
        param_vars = {}
        for name, t in zip(self.parsed.params, self.argtypes):
            key = ("param", name)
            var = self.storage.get(key)
            param_vars[name] = var
        params_cpp, prologue = [], []
        for name, t in zip(self.parsed.params, self.argtypes):
            if isinstance(t, T.Omitted) and param_vars[name] is not None:
                var = param_vars[name]          # no C++ parameter: the default, assigned once
                prologue.append(f"{var.type.cpp} {var.cname} = {cast(self.omitted[name], var.type).code};")
                var.declared_by = "param"
            if T.is_compile_time(t):
                var = param_vars[name]
                if t == T.none and var is not None and not var.declared_by:
                    # a None argument reassigned a number: an Optional variable, None at the start
                    prologue.append(f"{var.type.cpp} {var.cname}{{}};")
                    var.declared_by = "param"
                continue
            var = param_vars[name]
            packed = t.dtype if isinstance(t, T.EnumMember) and isinstance(t.dtype, T.BaseTuple) else t
            if self.is_kernel and isinstance(packed, T.BaseTuple):
                # The launcher passes a tuple's elements as separate parameters; the kernel rebuilds the tuple.
                base = "cj_" + (var.cname if var is not None else self.param_cnames[name])   # cj_t_0, cj_t_1, ...
                leaves = []
                ctor = _tuple_from_leaves(packed, base, leaves)
                params_cpp += [f"{lt.cpp} {lname}" for lt, lname in leaves]
                if var is not None:
                    prologue.append(f"{var.type.cpp} {var.cname} = {cast(Value(t, ctor), var.type).code};")
                    var.declared_by = "param"
                continue
            if var is None:                       # an unused parameter
                params_cpp.append(f"{t.cpp} {self.param_cnames[name]}")
                continue
            if var.type == t and not var.declared_by:
                var.declared_by = "param"
                params_cpp.append(f"{t.cpp} {var.cname}")
            else:
                arg = f"cj_{var.cname}arg"                # the argument's own type: cj_x_arg
                params_cpp.append(f"{t.cpp} {arg}")
                prologue.append(f"{var.type.cpp} {var.cname} = {cast(Value(t, arg), var.type).code};")
                var.declared_by = "param"
        at_def, before = place_declarations(self, self.sites, self.loop_sites, excluded)
        body = []
        if self.recursive and not self.is_kernel:
            # Every cycle of calls passes a function reached again while translated: its guard counts the depth and
            # refuses a call the CPU thread's stack cannot hold (thread.h; nothing on the GPU), at the def's line.
            body.append((1, "CJ_RECURSION_GUARD();", self.loc.lineno(self.parsed.tree)))
        for text in self.top_lines + prologue:
            body.append((1, text, None))
        for indent, text, line in self.lines:
            if text.startswith("\0P"):
                sid = int(text[2:-1])
                for decl in before.get(sid, ()):
                    body.append((indent, decl, None))
                continue
            while "\0D" in text:
                i = text.index("\0D")
                j = text.index("\0", i + 1)
                sid = int(text[i + 2:j])
                text = text[:i] + at_def.get(sid, "") + text[j + 1:]
            body.append((indent, text, line))
        if self.is_kernel:
            lb = self.options.launch_bounds
            bounds = ""
            if lb:
                mx, mn = (lb, 0) if isinstance(lb, int) else (tuple(lb) + (0,))[:2]
                bounds = f" CJ_LAUNCH_BOUNDS({mx}, {mn})"
            head = f"CJ_GLOBAL void{bounds} {self.cname}({', '.join(params_cpp)}) {{"
            self.head_params, self.head_bounds = list(params_cpp), bounds
            if self.fit_codes:       # loop bodies render more than once: only sites in the final text count
                text = "\n".join(line[1] for line in body)
                self.fit_sites = {f for code, fits in self.fit_codes if code in text for f in fits}
            if self.fit_sites:
                head = "CJ_FITS_TEMPLATE " + head
        else:
            head = f"{self.qualifier()} {self.return_type.cpp} {self.cname}({', '.join(params_cpp)}) {{"
        out = [(0, f"// {self.parsed.name} ({', '.join(map(str, self.argtypes))})"
                   + ("" if self.is_kernel else f" -> {self.return_type}"), None),
               (0, head, self.loc.lineno(self.parsed.tree))]
        out += body
        out.append((0, "}", None))
        return out


def _tuple_from_leaves(t, base, leaves):
    """C++ that builds a tuple of type ``t`` from its flattened kernel parameters (appended to ``leaves``)."""
    parts = []
    for e in t.types:
        if isinstance(e, T.BaseTuple):
            parts.append(_tuple_from_leaves(e, base, leaves))
        else:
            name = f"{base}{len(leaves)}"
            leaves.append((e, name))
            parts.append(name)
    if isinstance(t, T.UniTuple):
        return f"{t.cpp}{{{{{', '.join(parts)}}}}}"
    return f"cj::make_tuple({', '.join(parts)})" if parts else "cj::Tuple<>{}"


def a_node(call, args, a):
    return call.args[args.index(a)] if a in args else call


def _is_identifier(code):
    return code.replace("_", "a").isalnum() and not code[:1].isdigit()


def _dedent(lines, n):
    return [(max(0, i - n), t, l) for i, t, l in lines]


def _op(op):
    return PY_OPS[type(op).__name__]

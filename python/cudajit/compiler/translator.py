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
from .calls import Calls
from .closures import Closures, closure_value
from .dataflow import Dataflow
from .errors import CONSTRUCT_HINTS, describe_construct, typing_error, unsupported
from .evalorder import EvalOrder
from .frontend import NOT_FOLDED, TOO_LARGE, python_folded
from .innerdefs import InnerDef
from .expressions import Expressions
from .fnstate import FunctionState
from .indexing import Indexing
from .loops import Loops
from .operators import PY_OPS
from .storage import Site, assign_storage, place_declarations
from .typeconv import unify
from .values import Symbol, Value, cast, const_value, tuple_value, typed

MAX_PASSES = 40


# The interface of intrinsics: what a registry entry's ``cx`` offers besides ``error``, ``unsupported``, ``emit``
# and ``state`` (the FunctionState): each name is its part's method.
INTRINSIC_INTERFACE = {
    "exprs": ("as_value", "chars_value", "component_view", "const_shape", "convert", "declare_array_storage", "dtype_of",
              "explicit_cast", "global_value", "transpose", "tuple_elements"),
    "index": ("check_writable", "element", "pointer_element", "slice_copy_site"),
    "order": ("note_effect",),
    "closures": ("escape_closure",),
}


def _visitors(prefix, *parts):
    """{AST node name: the method of one of ``parts`` named prefix + it}."""
    return {name[len(prefix):]: getattr(part, name) for part in parts for name in dir(type(part))
            if name.startswith(prefix)}


class FunctionTranslator:
    """The translation of one function: the statements, and the parts it hands the rest to, each with its own
    interface (``flow`` definitions and uses, ``exprs`` expressions, ``calls`` calls, ``index`` subscripts,
    ``loop_stmts`` loops, ``order`` the order of evaluation, ``closures`` inner functions), all reading and writing
    one ``FunctionState`` (fnstate.py). Intrinsics see this object as ``cx``: they use ``error``, ``unsupported``,
    ``emit``, ``state`` and the methods INTRINSIC_INTERFACE names."""

    def __init__(self, program, parsed, argtypes, is_kernel, options, cname, literals=None):
        self.state = st = FunctionState(program, parsed, argtypes, is_kernel, options, cname, literals)
        st.locals = self._assigned_names(parsed)
        if is_kernel and options.target == "gpu" and not options.reports_errors:
            st.nc_params = coarsen.read_only_params(parsed.tree, parsed.params, st.argtypes)
        self.flow, self.exprs, self.calls, self.index = Dataflow(self), Expressions(self), Calls(self), Indexing(self)
        self.loop_stmts, self.order, self.closures = Loops(self), EvalOrder(self), Closures(self)
        for part, names in INTRINSIC_INTERFACE.items():
            for name in names:
                setattr(self, name, getattr(getattr(self, part), name))
        # the visitors of statements and expressions, by AST node name (stmt_For is the loops', expr_Call the calls')
        self.statements = _visitors("stmt_", self, self.loop_stmts, self.closures)
        self.expressions = _visitors("expr_", self.exprs, self.calls, self.index, self.closures)

    # ---- errors ------------------------------------------------------------------------------------------
    def error(self, node, what, hint=None):
        raise typing_error(self.state.loc, node, what, hint)

    def unsupported(self, node, what, hint=None):
        raise unsupported(self.state.loc, node, what, hint)

    # ---- driver ------------------------------------------------------------------------------------------
    def translate(self):
        """Run the typing passes to a fixed point, then the final pass; returns the C++ function text."""
        tree = self.state.parsed.tree
        self._check_signature(tree)
        self.closures.check_escapes()
        for _ in range(MAX_PASSES):
            self.state.changed = False
            self._run_pass(final=False)
            if not self.state.changed:
                break
        else:
            self.error(tree, f"type inference of '{self.state.parsed.name}' did not settle")
        if self.state.return_type == T.undefined:
            if self.state.recursive and self.state.returns_value:
                # numba-cuda's words first
                self.error(tree, f"cannot type infer runaway recursion: every return of recursive function "
                                 f"'{self.state.parsed.name}' recurses, so its return type is never found",
                           "add a base case that returns a value without recursing")
            self.state.return_type = T.none
        assign_storage(self)
        self.loop_stmts._choose_direct_loops()
        self._run_pass(final=True)
        return self._finish()

    def _check_signature(self, tree):
        # (*args and the like were refused when the def was parsed: frontend._check_def)
        if len(self.state.argtypes) != len(self.state.parsed.params):
            what = "kernel" if self.state.is_kernel else "device function"
            self.error(tree, f"{what} '{self.state.parsed.name}' takes {len(self.state.parsed.params)} arguments, "
                       f"{len(self.state.argtypes)} given")

    def _run_pass(self, final):
        self.state.begin_pass(final)
        for name, t, arg in zip(self.state.parsed.params, self.state.argtypes, self.state.parsed.param_nodes):
            if name in self.state.function_params:
                continue
            key = ("param", name)
            self.state.def_order.setdefault(key, -1)
            self.state.def_names[key], self.state.def_nodes[key] = name, arg
            nonneg = T.is_int(t) and not t.signed
            if isinstance(t, T.Omitted):
                # Left out of the launch: its default, a constant of this specialisation (Numba types it as the
                # value's literal type), which the prologue assigns (_finish)
                v = self.state.omitted[name] = self.omitted_value(arg, t)
                t, nonneg = v.type, v.nonneg
                if v.is_const:
                    self.state.def_consts[key] = v.const
            self.flow._set_def_type(key, t, nonneg=nonneg)
            self.state.env[name] = frozenset([key])
            if final:
                self.flow._record("def", name, frozenset([key]), simple=False)
        self.visit_block(self.state.parsed.tree.body, new_block=False)
        if self.state.env is not None and not self.state.is_kernel and self.state.returns_value \
                and unify(self.state.return_type, T.none) is not None:
            # The end is reachable in a function that returns a value: Python returns None there, so the function
            # returns an Optional, as in Numba. (A tuple or array cudajit does not wrap keeps the C++ end.)
            self._unify_return(self.state.parsed.tree, T.none)
            self.emit(self._return_none())
        if final and self.state.undefined_uses and config.ALWAYS_WARN_UNINIT_VAR:
            for name in sorted({name for _, name in self.state.undefined_uses.values()}):
                node = min((n for n, m in self.state.undefined_uses.values() if m == name),
                           key=lambda n: (n.lineno, n.col_offset))
                loc = self.state.loc
                warnings.warn(NumbaWarning(f"{loc.filename}:{loc.lineno(node)}: Detected uninitialized "
                                           f"variable {name}"))

    def omitted_value(self, node, t):
        """The value of a parameter left out of a launch (``types.Omitted``): its default as the kernel sees a
        global of that value (a number, None, a tuple, an array in constant memory, an Enum member, a function),
        converted to an eager signature's declared type."""
        v = self.calls.argument_value(node, self.exprs.global_value(node, node.arg, t.value))
        if t.declared is not None and v.type != t.declared:
            v = self.exprs.convert(node, v, t.declared)
        return v

    # ---- dataflow ----------------------------------------------------------------------------------------
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
        self.state.lines.append((len(self.state.chain) if indent is None else indent,
                                 text, None if line is None else self.state.loc.lineno(node)))

    def temp(self, hint="t"):
        self.state.temp_counter += 1
        return f"cj_{hint}{self.state.temp_counter}"

    def visit_block(self, stmts, new_block=True, sid=None):
        saved = (self.state.block, self.state.chain)
        if new_block:
            self.state.block = self.state.block + (self.state.next_block,)
            self.state.next_block += 1
        for s in stmts:
            if self.state.env is None:          # unreachable (after return/break/continue): Python never runs it
                break
            self.state.next_sid += 1
            stmt_sid = self.state.next_sid
            self.state.chain = saved[1] + (stmt_sid,)
            self.emit(f"\0P{stmt_sid}\0")
            self.visit_stmt(s)
        self.state.block, self.state.chain = saved

    def visit_stmt(self, node):
        method = self.statements.get(type(node).__name__)
        if method is None:
            self.unsupported(node, f"{describe_construct(node)} is not supported in CUDA kernels",
                             CONSTRUCT_HINTS.get(type(node)))
        method(node)

    # ---- raise and assert (exceptions reach the host when the kernel is compiled with debug=True) ----------
    def stmt_Raise(self, node):
        if node.cause is not None:
            self.unsupported(node, "raise ... from ... is not supported in CUDA kernels")
        if node.exc is None:
            self.unsupported(node, "a bare raise is not supported in CUDA kernels", "raise an exception class")
        cls, args = self._exception(node.exc)
        self.state.may_raise = True
        if self.state.final:
            self._emit_raise(node, cls, args)
        self.state.env = None

    def stmt_Assert(self, node):
        if not self.state.program.options.debug:
            return                      # checked only with debug=True (Numba's exception checking)
        test = self.condition(node.test)
        args = ()
        if node.msg is not None:
            msg = self.exprs.visit_expr(node.msg)
            if not (isinstance(msg, Value) and msg.is_const):
                self.unsupported(node.msg, "an assert message must be a constant")
            args = (msg.const,)
        self.state.may_raise = True
        if self.state.final:
            self.emit(f"if (!({test.code})) {{", node)
            self._emit_raise(node, AssertionError, args, indent=len(self.state.chain) + 1)
            self.emit("}", node)

    def _emit_raise(self, node, cls, args, indent=None):
        if self.state.program.options.debug:
            # records the raise and ends the thread there (debug.h): a device function's callers never resume
            site = self.state.program.error_site(cls, args, self.state.loc, node)
            self.emit(f"cj::debug_raise({site});", node, indent)
            return
        # numba-cuda: the raise's error status makes every caller return, and the kernel with them, so the thread
        # ends (thread.h's end_thread in a device function; nothing is reported without debug)
        self.emit("return;" if self.state.is_kernel else "cj::end_thread();", node, indent)

    def _exception(self, exc):
        """``raise E`` / ``raise E(constant args)`` -> (exception class, args), as Numba accepts them."""
        target, args = exc, ()
        if isinstance(exc, ast.Call):
            if exc.keywords:
                self.unsupported(exc, "keyword arguments of an exception are not supported in CUDA kernels")
            target = exc.func
            vals = [self.exprs.visit_expr(a) for a in exc.args]
            if not all(isinstance(v, Value) and v.is_const for v in vals):
                self.unsupported(exc, "exception arguments must be constants in CUDA kernels")
            args = tuple(v.const for v in vals)
        cls = None
        if isinstance(target, ast.Name) and target.id not in self.state.locals:
            found, obj = self.state.parsed.lookup(target.id)
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
            if name in self.state.locals and kind == "nonlocal" and self.state.parsed.outer_parsed is not None:
                self.unsupported(node, f"assigning the enclosing function's variable '{name}' from the inner "
                                       f"function '{self.state.parsed.name}' is not supported in CUDA kernels",
                                 "return the new value from the inner function and assign it in the enclosing one")
            if name in self.state.locals:
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
        v = self.exprs.visit_expr(node.value)
        if isinstance(v, Value) and v.code and v.type != T.undefined:
            # `int64_t(cj::inf<double>());` alone would be a declaration to C++ (NVRTC: "qualified name is not
            # allowed"): a statement that begins with a conversion is spelled as a discarded value
            code = f"(void)({v.code})" if v.code.startswith(v.type.cpp + "(") else v.code
            self.emit(f"{code};", node)

    def stmt_Assign(self, node):
        if self._assign_symbols_in_tuple(node):
            return
        value = self.exprs.visit_expr(node.value, target_hint=node.targets[0], optional=True)
        if isinstance(value, Symbol) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            # a type or function: a compile-time local; an inner function (f = lambda ...) stays one
            value = closure_value(value.obj) if value.path == "closure" else \
                self.calls.argument_value(node.value, value)
        value = self.exprs.as_value(node.value, value)
        for target in node.targets:
            self.assign(target, value, node, simple=len(node.targets) == 1)

    def _assign_symbols_in_tuple(self, node):
        """``int32, uint32 = numba.int32, numba.uint32`` (types or functions among the values of a tuple assignment to
        names): each such name becomes a compile-time local, as ``x = numba.int32`` does; the other names take their
        values as one tuple assignment (all of the right side is evaluated first, as in Python). False when the
        statement is not of that form."""
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Tuple) or \
                not isinstance(node.value, ast.Tuple):
            return False
        targets, values = node.targets[0].elts, node.value.elts
        if len(targets) != len(values) or any(isinstance(e, ast.Starred) for e in targets + values):
            return False
        parts = [self.exprs.visit_expr(e, optional=True) for e in values]
        if not any(isinstance(p, Symbol) for p in parts):
            return False
        runtime = []
        for target, value, part in zip(targets, values, parts):
            if isinstance(part, Symbol):
                if not isinstance(target, ast.Name):
                    self.exprs.as_value(value, part)               # the error a type or function stored elsewhere gets
                part = closure_value(part.obj) if part.path == "closure" else self.calls.argument_value(value, part)
                self.assign(target, part, node, simple=True)
            else:
                runtime.append((target, value, part))
        if len(runtime) == 1:
            self.assign(runtime[0][0], self.exprs.as_value(runtime[0][1], runtime[0][2]), node, simple=True)
        elif runtime:
            elts = [ast.copy_location(ast.Tuple([t for t, _, _ in runtime], ast.Store()), node.targets[0])]
            tup = self.exprs.tuple_of(node.value, [self.exprs.as_value(v, p) for _, v, p in runtime],
                                      [v for _, v, _ in runtime])
            self.assign(elts[0], tup, node, simple=True)
        return True

    def stmt_AnnAssign(self, node):
        if node.value is None:
            return
        value = self.exprs.visit_expr(node.value, target_hint=node.target, optional=True)
        value = self.exprs.as_value(node.value, value)
        self.assign(node.target, value, node, simple=True)

    def stmt_AugAssign(self, node):
        op = _op(node.op)
        mark = self.order.effects_mark()
        if isinstance(node.target, ast.Name):
            current = self.exprs.visit_expr(ast.copy_location(ast.Name(node.target.id, ast.Load()), node.target))
        elif isinstance(node.target, ast.Subscript):
            current = self.exprs.visit_expr(ast.copy_location(
                ast.Subscript(node.target.value, node.target.slice, ast.Load()), node.target))
        elif isinstance(node.target, ast.Attribute):          # a record's field: r.x += v
            current = self.exprs.visit_expr(ast.copy_location(
                ast.Attribute(node.target.value, node.target.attr, ast.Load()), node.target))
        else:
            self.unsupported(node, f"augmented assignment to {describe_construct(node.target)} is not supported")
        if not isinstance(current, Value):       # a module, function or type: np.float32 += 1
            self.error(node, f"cannot assign to '{ast.unparse(node.target)}' ({getattr(current, 'path', current)}) "
                             f"in a CUDA kernel")
        f_current, mark = self.order.effects_since(mark), self.order.effects_mark()
        value = self.exprs.as_value(node.value, self.exprs.visit_expr(node.value))
        f_value, mark = self.order.effects_since(mark), self.order.effects_mark()
        result = self.exprs.binop(node, op, current, value)
        f_op = self.order.effects_since(mark)
        if self.order.needs_order([f_current, (f_value[0] + f_op[0], f_value[1] + f_op[1])]) \
                and self._update_element(node, op, current, value, f_value[0] > 0):
            return
        compound = self.state.final and op in ("+", "-", "*", "/", "&", "|", "^") \
            and result.code.startswith(f"{current.code} {op} ")
        if compound and isinstance(node.target, ast.Name) and _is_identifier(current.code):
            code = self.flow.store_var(node.target, node.target.id, result, simple=False)
            var = current.code
            prefix = f"{var} = {var} {op} "
            i = code.find(prefix)
            if i >= 0 and code.index("\0", 2) < i:
                code = code[:i] + f"{var} {op}= " + code[i + len(prefix):]
            self.emit(code, node)
            return
        if compound and isinstance(node.target, ast.Subscript) and current.lvalue \
                and not getattr(self.exprs.visit_expr(node.target.value), "type", T.none).__dict__.get("readonly"):
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
        base = self.exprs.visit_expr(target.value) if isinstance(target, ast.Subscript) else None
        if not (isinstance(base, Value) and isinstance(base.type, T.Array) and not base.type.readonly
                and current.lvalue and T.is_scalar(current.type)):
            return False
        ref = self.temp("ref")
        self.emit(f"auto& {ref} = {current.code};", node)
        loaded = ref
        if value_writes:
            loaded = self.temp("old")
            self.emit(f"const {current.type.cpp} {loaded} = {ref};", node)
        result = self.exprs.binop(node, op, Value(current.type, loaded), value)
        self.emit(f"{ref} = {self.exprs.convert(node, result, current.type).code};", node)
        return True

    def assign(self, target, value, stmt, simple):
        if isinstance(target, ast.Name):
            if target.id not in self.state.locals:
                self.unsupported(target, f"assignment to global '{target.id}'")
            code = self.flow.store_var(target, target.id, value, simple)
            if code:
                self.emit(code, stmt)
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.assign_unpack(target, value, stmt)
        elif isinstance(target, ast.Subscript):
            self.index.assign_subscript(target, value, stmt)
        elif isinstance(target, ast.Attribute) and self.assign_field(target, value, stmt):
            pass
        elif isinstance(target, ast.Starred):
            self.unsupported(target, "starred assignment is not supported in CUDA kernels")
        else:
            self.unsupported(target, f"assignment to {describe_construct(target)} is not supported in CUDA kernels")

    def assign_field(self, target, value, stmt):
        """``r.x = value`` for a record ``r``; False when ``target`` is not a record's field."""
        base = self.exprs.visit_expr(target.value)
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
        if self.state.final and value.elements is None and not _is_identifier(value.code):
            # a call returning a tuple runs once: a, b = f(x) keeps its result, then takes the elements
            name = self.temp()
            self.emit(f"const {value.type.cpp} {name} = {value.code};", stmt)
            value = Value(value.type, name)
        parts = self.exprs.tuple_elements(target, value)
        elts = target.elts
        if starred:
            # a, *rest, z = t: the starred name takes the middle elements as a tuple (Python makes a list)
            k, n = starred[0], value.type.count - fixed
            middle = [typed(p, p.type) for p in parts[k:k + n]]
            rest = tuple_value(T.Tuple([p.type for p in middle]), middle)
            parts = parts[:k] + [rest] + parts[k + n:]
            elts = elts[:k] + [elts[k].value] + elts[k + 1:]
        # Python evaluates the whole right side first: a, b = b, a needs temporaries.
        if self.state.final and self._unpack_needs_temps(target, parts, value):
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
        if self.state.final and not _is_identifier(value.code):
            name = self.temp()
            self.emit(f"const {value.type.cpp} {name} = {value.code};", stmt)
            value = Value(value.type, name)
        parts = [self.index.subscript(target, value, [const_value(k)]) for k in range(len(target.elts))]
        if self.state.final and len(parts) > 1:
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
                for k, var in self.state.storage.items():
                    if self.state.def_names.get(k) == n.id:
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
                self.state.lines.extend(code)
                self.emit("}")
            return
        before = self.state.env
        self.state.env = dict(before)
        then_code = self.sub_block(node.body)
        env_then = self.state.env
        self.state.env = dict(before)
        else_code = self.sub_block(node.orelse) if node.orelse else None
        self.state.env = self.flow._merge(env_then, self.state.env)
        # An elif chain stays flat: "} else if (...) {".
        chain = (else_code and len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) and len(else_code) >= 2
                 and else_code[0][1].startswith("\0P") and else_code[1][1].startswith("if ("))
        if chain:
            marker, head, *rest = else_code
            # its declarations go before the whole if
            self.state.lines.append((len(self.state.chain), marker[1], None))
        self.emit(f"if ({cond.code}) {{", node)
        self.state.lines.extend(then_code)
        if chain:
            self.state.lines.append((len(self.state.chain), "} else " + head[1], head[2]))
            self.state.lines.extend(_dedent(rest, 1))
        elif else_code is not None:
            self.emit("} else {")
            self.state.lines.extend(else_code)
            self.emit("}")
        else:
            self.emit("}")

    def sub_block(self, stmts, sid=None):
        saved = self.state.lines
        self.state.lines = []
        self.visit_block(stmts)
        out, self.state.lines = self.state.lines, saved
        return out

    def condition(self, node):
        v = self.exprs.as_value(node, self.exprs.visit_expr(node))
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
            after_cond = dict(self.state.env)
            return cond, after_cond, self.sub_block(node.body)
        _, ctx, (cond, after_cond, body) = self.loop_stmts.loop_to_fixed_point(node, one_pass)
        always = cond.is_const and cond.const is True or cond.code == "true"
        self.state.env = self.flow._merge(None if always else after_cond, *ctx.breaks)
        self.state.loop_sites[id(node)] = loop_site
        spin = self.temp("spin")                   # CPU: a spinning loop lets its block's other threads run
        self.state.program.spins = True
        self.emit(f"CJ_SPIN_COUNTER({spin});", node)
        self.emit(f"while ({cond.code}) {{", node)
        self.loop_stmts.emit_loop_poll()
        self.emit(f"CJ_SPIN_POLL({spin});", indent=len(self.state.chain) + 1)
        self.state.lines.extend(body)
        self.emit("}")

    def _loop_site(self, node):
        self.state.pos += 1
        return Site("loop", None, (), self.state.pos, self.state.block, self.state.chain, self.state.loops)

    def stmt_Break(self, node):
        if not self.state.loop_ctx:
            self.error(node, "'break' outside loop")
        self._refuse_in_unrolled(node, "break")
        self.state.loop_ctx[-1].breaks.append(self.state.env)
        self.state.env = None
        self.emit("break;", node)

    def stmt_Continue(self, node):
        if not self.state.loop_ctx:
            self.error(node, "'continue' not properly in loop")
        self._refuse_in_unrolled(node, "continue")
        self.state.loop_ctx[-1].conts.append(self.state.env)
        self.state.env = None
        self.emit("continue;", node)

    def _refuse_in_unrolled(self, node, what):
        if self.state.loop_ctx[-1].unrolled:
            self.unsupported(node, f"'{what}' in a literal_unroll loop is not supported in CUDA kernels",
                             "use a flag tested at the top of the body")

    def stmt_Return(self, node):
        if node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None):
            if not self.state.is_kernel:
                self._unify_return(node, T.none)
            self.state.env = None
            self.emit(self._return_none(), node)
            return
        if self.state.is_kernel:
            self.error(node, "a kernel cannot return a value",
                       "write results into an array argument (kernels return nothing)")
        self.state.returned_node = node.value
        v = self.exprs.as_value(node.value, self.exprs.visit_expr(node.value, optional=True))
        self._unify_return(node, v.type)
        self.state.returns_value = True
        self.state.env = None
        if self.state.final:
            self.emit(f"return {cast(v, self.state.return_type).code};", node)

    def _return_none(self):
        """``return`` / ``return None``: of a function that returns an Optional, its None."""
        if isinstance(self.state.return_type, T.Optional):
            return f"return {self.state.return_type.cpp}{{}};"
        return "return;"

    def _unify_return(self, node, t):
        if t == T.undefined:
            return
        new = unify(self.state.return_type, t)
        if new is None and (T.none in (self.state.return_type, t) or isinstance(self.state.return_type, T.Optional)
                            or isinstance(t, T.Optional)):
            other = next(x for x in (t, self.state.return_type) if x != T.none and not isinstance(x, T.Optional)) \
                if not all(x == T.none or isinstance(x, T.Optional) for x in (t, self.state.return_type)) else t
            self.error(node, f"'{self.state.parsed.name}' returns None on one path and {other} on another: a value "
                       f"that may be None at run time (Numba's Optional) is supported in cudajit kernels for "
                       f"booleans and numbers only",
                 "return a value of one type on every path (e.g. a sentinel number)")
        if new is None:
            self.error(node, f"cannot unify return types {self.state.return_type} and {t}",
                       "return values of one type from every return statement")
        if new != self.state.return_type:
            self.state.return_type = new
            self.state.changed = True

    # ---- the function ------------------------------------------------------------------------------------
    def qualifier(self):
        """A device function's C++ qualifier: forced inline on request, unless it recurses."""
        return "CJ_FORCEINLINE_DEVICE" if self.state.options.inline in (True, "always") and not self.state.recursive \
            else "CJ_DEVICE"

    def _param_type(self, t):
        """A parameter's C++ type: a kernel's through CJ_PARAM (config.h), a device function's as it is."""
        return f"CJ_PARAM({t.cpp})" if self.state.is_kernel else t.cpp

    def _finish(self):
        st = self.state
        for t in (*st.argtypes, st.return_type, *(v.type for v in st.storage.values() if v is not None)):
            st.need_type(t)         # parameters, result and variables, declared whether or not an expression reads them
        excluded = {self.state.web_of[k] for k in self.state.direct_loops}     # declared by their for statement
        param_vars = {}
        for name, t in zip(self.state.parsed.params, self.state.argtypes):
            key = ("param", name)
            var = self.state.storage.get(key)
            param_vars[name] = var
        params_cpp, prologue = [], []
        for name, t in zip(self.state.parsed.params, self.state.argtypes):
            if isinstance(t, T.Omitted) and param_vars[name] is not None:
                var = param_vars[name]          # no C++ parameter: the default, assigned once
                prologue.append(f"{var.type.cpp} {var.cname} = {cast(self.state.omitted[name], var.type).code};")
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
            if self.state.is_kernel and isinstance(packed, T.BaseTuple):
                # The launcher passes a tuple's elements as separate parameters; the kernel rebuilds the tuple.
                base = "cj_" + (var.cname if var is not None else self.state.param_cnames[name])   # cj_t_0, cj_t_1, ...
                leaves = []
                ctor = _tuple_from_leaves(packed, base, leaves)
                params_cpp += [f"{self._param_type(lt)} {lname}" for lt, lname in leaves]
                if var is not None:
                    prologue.append(f"{var.type.cpp} {var.cname} = {cast(Value(t, ctor), var.type).code};")
                    var.declared_by = "param"
                continue
            if var is None:                       # an unused parameter
                params_cpp.append(f"{self._param_type(t)} {self.state.param_cnames[name]}")
                continue
            # a kernel's parameter on the CPU is a const reference (config.h, CJ_PARAM): one the kernel assigns
            # is copied into a variable of its own
            assigned = self.state.is_kernel and any(v is var and k != ("param", name)
                                                    for k, v in self.state.storage.items())
            if var.type == t and not var.declared_by and not assigned:
                var.declared_by = "param"
                params_cpp.append(f"{self._param_type(t)} {var.cname}")
            else:
                arg = f"cj_{var.cname}arg"                # the argument's own type: cj_x_arg
                params_cpp.append(f"{self._param_type(t)} {arg}")
                prologue.append(f"{var.type.cpp} {var.cname} = {cast(Value(t, arg), var.type).code};")
                var.declared_by = "param"
        at_def, before = place_declarations(self, self.state.sites, self.state.loop_sites, excluded)
        body = []
        if self.state.recursive and not self.state.is_kernel:
            # Every cycle of calls passes a function reached again while translated: its guard counts the depth and
            # refuses a call the CPU thread's stack cannot hold (thread.h; nothing on the GPU), at the def's line.
            body.append((1, "CJ_RECURSION_GUARD();", self.state.loc.lineno(self.state.parsed.tree)))
        for text in self.state.top_lines + prologue:
            body.append((1, text, None))
        for indent, text, line in self.state.lines:
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
        if self.state.is_kernel:
            lb = self.state.options.launch_bounds
            bounds = ""
            if lb:
                mx, mn = (lb, 0) if isinstance(lb, int) else (tuple(lb) + (0,))[:2]
                bounds = f" CJ_LAUNCH_BOUNDS({mx}, {mn})"
            head = f"CJ_GLOBAL void{bounds} {self.state.cname}({', '.join(params_cpp)}) {{"
            self.state.head_params, self.state.head_bounds = list(params_cpp), bounds
            if self.state.fit_codes:       # loop bodies render more than once: only sites in the final text count
                text = "\n".join(line[1] for line in body)
                self.state.fit_sites = {f for code, fits in self.state.fit_codes if code in text for f in fits}
            if self.state.fit_sites:
                head = "CJ_FITS_TEMPLATE " + head
        else:
            head = f"{self.qualifier()} {self.state.return_type.cpp} {self.state.cname}({', '.join(params_cpp)}) {{"
        out = [(0, f"// {self.state.parsed.name} ({', '.join(map(str, self.state.argtypes))})"
                + ("" if self.state.is_kernel else f" -> {self.state.return_type}"), None),
               (0, head, self.state.loc.lineno(self.state.parsed.tree))]
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

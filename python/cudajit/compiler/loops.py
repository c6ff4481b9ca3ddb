"""Loops: ``for`` over range() (1-3 arguments, any step sign), over a 1-d array or a tuple, and ``while``'s
helpers (desugar.py has already rewritten loop ``else``, tuple targets, enumerate and zip). A for loop becomes a C++ ``for`` with the right sign test; Python's semantics hold: the range is
evaluated once, and the loop variable keeps its last value after the loop (then a hidden counter drives the
loop and the variable is assigned at the top of the body).
"""
import ast
import copy

from . import types as T
from .storage import StorageVar, cpp_identifier, numbered
from .typeconv import resolve
from .values import REL, SHIFT, Value, Symbol, cast, type_name

_RANGE_CASES = [(T.int32, T.int32), (T.int64, T.int64), (T.uint64, T.uint64)]

# A loop of at most this many iterations known at compile time runs briefly and gets no interrupt poll,
# so that short inner loops (a tile's dot product) stay vectorizable.
_POLL_FREE_TRIPS = 4096


class LoopContext:
    def __init__(self, sid, unrolled=False):
        self.sid, self.breaks, self.conts, self.unrolled = sid, [], [], unrolled


class UnrolledIteration(ast.stmt):
    """One iteration of a ``literal_unroll`` loop: its own copy of the target's assignment and the body, so each
    iteration's variables are typed on their own (Numba versions the body per element type)."""
    _fields = ("body",)


class Loops:
    def __init__(self, fn):
        self.fn, self.st = fn, fn.state     # the function translator and the state they share

    # ---- for loops -----------------------------------------------------------------------------------------
    def stmt_For(self, node):
        if not isinstance(node.target, ast.Name):
            self.fn.unsupported(node.target, "for loop targets must be variables in CUDA kernels")
        it = node.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
                and "range" not in self.st.locals:
            self.for_range(node, it)
        elif isinstance(it, ast.Call) and isinstance(it.func, (ast.Name, ast.Attribute)) \
                and _is_symbol(self.fn.exprs.visit_expr(it.func), "range"):
            self.for_range(node, it)                # range by another name: Numba's prange outside parallel code
        elif isinstance(it, ast.Call) and isinstance(it.func, (ast.Name, ast.Attribute)) \
                and _is_symbol(self.fn.exprs.visit_expr(it.func), "literal_unroll"):
            self.for_unrolled(node, it)
        else:
            self.for_each(node, self.fn.exprs.as_value(node.iter, self.fn.exprs.visit_expr(node.iter)))

    def for_unrolled(self, node, call):
        """``for x in literal_unroll(t)``: over a tuple, the body once per element (at compile time), each copy
        typed for its element (Numba's literal_unroll); over an array, an ordinary loop."""
        if len(call.args) != 1 or call.keywords:
            self.fn.error(call, "literal_unroll() takes one argument (a tuple)")
        seq = self.fn.exprs.as_value(call.args[0], self.fn.exprs.visit_expr(call.args[0]))
        if not isinstance(seq.type, T.BaseTuple):
            if seq.type != T.undefined and not isinstance(seq.type, T.Array):
                self.fn.error(call, f"literal_unroll() takes a tuple, not {seq.type}")
            self.for_each(node, seq)
            return
        iterations = self.unrolled_iterations(node, call, seq.type.count)
        self.st.loop_ctx.append(LoopContext(id(node), unrolled=True))
        code = self.fn.sub_block(iterations)
        self.st.loop_ctx.pop()
        self.fn.emit("{", node)
        self.st.lines.extend(code)
        self.fn.emit("}")

    def unrolled_iterations(self, node, call, count):
        """``_cj_unrollN = t`` and one UnrolledIteration per element (``x = _cj_unrollN[k]`` then a copy of the
        body): made once per loop, so the typing passes see the same nodes each time. A target the function names
        nowhere outside the loop is a variable of each copy's own (``_cj_x_u0_1``), so the elements may have
        types that do not unify (arrays of other dtypes or dimensions), as Numba versions the body per element."""
        key = (id(node), count)
        if key not in self.st.unrolled:
            seq = f"_cj_unroll{len(self.st.unrolled)}"
            self.st.locals.add(seq)
            private = self._private_target(node)
            at = lambda new, old=node: ast.fix_missing_locations(ast.copy_location(new, old))
            stmts = [at(ast.Assign(targets=[at(ast.Name(seq, ast.Store()))], value=call.args[0]))]
            for k in range(count):
                element = at(ast.Subscript(at(ast.Name(seq, ast.Load())), at(ast.Constant(k)), ast.Load()))
                memo = {}
                first = at(ast.Assign(targets=[copy.deepcopy(node.target, memo)], value=element))
                body = copy.deepcopy(node.body, memo)
                for orig in (n for part in node.body for n in ast.walk(part)):
                    if isinstance(orig, ast.For):       # loops inside a copy are judged as their original
                        self.st.unroll_origin[id(memo[id(orig)])] = self.st.unroll_origin.get(id(orig), orig)
                if private:
                    own = f"_cj_{private}_u{len(self.st.unrolled)}_{k}"
                    self.st.locals.add(own)
                    for part in [first] + body:
                        for n in ast.walk(part):
                            if isinstance(n, ast.Name) and n.id == private:
                                n.id = own
                stmts.append(at(UnrolledIteration(body=[first] + body)))
            self.st.unrolled[key] = stmts
        return self.st.unrolled[key]

    def _private_target(self, node):
        """The loop's target name if the function uses it only inside loops over it (this one and others that
        bind the same name first), so no value of it outlives one iteration's copy; else None."""
        orig = self.st.unroll_origin.get(id(node), node)
        if not isinstance(orig.target, ast.Name):
            return None
        name = orig.target.id
        inside = {id(n) for loop in ast.walk(self.st.parsed.tree)
                  if isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and loop.target.id == name
                  for part in [loop.target] + loop.body for n in ast.walk(part)}
        for n in ast.walk(self.st.parsed.tree):
            if isinstance(n, ast.Name) and n.id == name and (id(n) not in inside or getattr(n, "cj_capture", False)):
                return None               # (an inner function's body names it too: renaming would miss it)
        return name

    def stmt_UnrolledIteration(self, node):
        code = self.fn.sub_block(node.body)
        self.fn.emit("{", node)
        self.st.lines.extend(code)
        self.fn.emit("}")

    def for_range(self, node, call):
        if call.keywords or not 1 <= len(call.args) <= 3:
            self.fn.error(call, f"range expected 1 to 3 arguments, got {len(call.args)}")
        args = [self.fn.exprs.as_value(a, self.fn.exprs.visit_expr(a)) for a in call.args]
        if any(a.type == T.undefined for a in args):
            rtype = T.int64
        else:
            for a in args:
                if not (T.is_int(a.type) or a.type == T.boolean):
                    self.fn.error(a_node(call, args, a), f"range() takes integers, not {type_name(a)}")
            cases = [(r, (t,) * len(args)) for r, t in _RANGE_CASES]
            rtype = resolve(cases, [a.type for a in args], [a.literal for a in args])[0]
        start, stop, step = ([Value(T.int64, "0", const=0, literal=True, nonneg=True)] + args + [None])[:3] \
            if len(args) == 1 else (args + [None])[:3]
        if step is None:
            step = Value(T.int64, "1", const=1, literal=True, nonneg=True)
        start, stop, step = cast(start, rtype), cast(stop, rtype), cast(step, rtype)
        if step.is_const and step.const == 0:
            self.fn.error(call, "range() arg 3 must not be zero")
        stop = self.hoist_unless_stable(node, call.args[-2 if len(call.args) == 3 else -1], stop, "stop")
        if not step.is_const and self.st.program.options.debug:
            # debug=True: a zero step raises ValueError, as Python's range() and Numba's 'python' error model do
            # (without debug the loop runs no iteration); checked once, before the loop
            site = self.st.program.error_site(ValueError, ("range() arg 3 must not be zero",), self.st.loc, call)
            self.st.may_raise = True
            self.fn.order.note_effect(raises=True)
            name = self.fn.temp("step")
            self.fn.emit(f"const {step.type.cpp} {name} = cj::check_nonzero({site}, {step.code});", node)
            step = Value(step.type, name, nonneg=step.nonneg)
        elif not step.is_const:
            step = self.hoist_unless_stable(node, call.args[2], step, "step")
        var_nonneg = start.nonneg and step.is_const and step.const > 0
        self.loop(node, rtype, start, stop, step, var_nonneg)

    def hoist_unless_stable(self, node, expr, v, hint):
        """Python evaluates range() once: keep an expression in the loop header only if the body cannot change
        it (a constant, or names the body never assigns, with no calls)."""
        stored = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        stable = all(isinstance(n, (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.BinOp, ast.UnaryOp,
                                    ast.Load, ast.operator, ast.unaryop, ast.Tuple, ast.Index
                                    if hasattr(ast, "Index") else ast.Load))
                     for n in ast.walk(expr)) and not any(isinstance(n, ast.Name) and n.id in stored
                                                          for n in ast.walk(expr))
        if stable or v.is_const:
            return v
        name = self.fn.temp(hint)
        self.fn.emit(f"const {v.type.cpp} {name} = {v.code};", node)
        return Value(v.type, name, nonneg=v.nonneg)

    def loop(self, node, itype, start, stop, step, var_nonneg, element=None):
        """A counted loop ``for target in <start:stop:step>``; ``element(i)`` maps the counter to the loop
        variable's value (None: the counter itself)."""
        target = node.target
        key = id(target)
        self.st.def_loop[key] = id(node)
        direct = self.st.final and element is None and key in self.st.direct_loops
        counter = self.st.storage[key].cname if direct else self.fn.temp(cpp_identifier(target.id))
        loop_site = self.fn._loop_site(node)

        def one_pass():
            saved_lines, self.st.lines = self.st.lines, []
            counter_v = Value(itype, counter, nonneg=var_nonneg)
            value = element(counter_v) if element else counter_v
            if direct:
                self.fn.flow.store_var(target, target.id, value, simple=False)
            else:
                self.st.next_block += 1
                saved_block = self.st.block
                self.st.block = self.st.block + (-self.st.next_block,)
                code = self.fn.flow.store_var(target, target.id, value, simple=True)
                self.st.block = saved_block
                if code:
                    self.st.lines.append((len(self.st.chain), code, self.st.loc.lineno(node)))
            self.fn.visit_block(node.body)
            body, self.st.lines = self.st.lines, saved_lines
            return body
        head, ctx, body = self.loop_to_fixed_point(node, one_pass)
        self.st.env = self.fn.flow._merge(head, *ctx.breaks)
        self.st.loop_sites[id(node)] = loop_site
        if step.is_const:
            test = f"{counter} {'<' if step.const > 0 else '>'} {stop.at(SHIFT)}"
            incr = {1: f"++{counter}", -1: f"--{counter}"}.get(step.const, f"{counter} += {step.code}")
        else:
            test = f"({step.at(REL)} > 0 ? {counter} < {stop.at(SHIFT)} : {counter} > {stop.at(SHIFT)})"
            incr = f"{counter} += {step.code}"
        self.fn.emit(f"for ({itype.cpp} {counter} = {start.code}; {test}; {incr}) {{", node)
        if not _short_loop(start, stop, step):
            self.emit_loop_poll()
        if not direct:
            # the loop variable's assignment sits at the top of the body: fix its indentation
            depth = len(self.st.chain)
            body = [(depth + 1, b[1], b[2]) if b[0] == depth and i == 0 and "\0D" in b[1] else b
                    for i, b in enumerate(body)]
        self.st.lines.extend(body)
        self.fn.emit("}")

    def emit_loop_poll(self):
        """First line of a loop body: on the CPU a cheap check that lets Ctrl-C or a failed thread stop a
        long-running thread (kernels/cudajit/thread.h); nothing on the GPU."""
        self.fn.emit("CJ_LOOP_POLL();", indent=len(self.st.chain) + 1)

    def loop_to_fixed_point(self, node, one_pass):
        """Type a loop until the variables entering its body stop changing. ``one_pass()`` visits the body once
        (``self.st.env`` is the loop head) and returns its rendering; returns (head, LoopContext, last rendering)."""
        before = self.st.env
        head = before
        ctx = LoopContext(id(node))
        for _ in range(20):
            self.st.env = dict(head)
            ctx.breaks, ctx.conts = [], []
            self.st.loop_ctx.append(ctx)
            saved_loops = self.st.loops
            self.st.loops = self.st.loops + (id(node),)
            result = one_pass()
            self.st.loops = saved_loops
            self.st.loop_ctx.pop()
            new_head = self.fn.flow._merge(before, self.st.env, *ctx.conts)
            if new_head == head:
                break
            head = new_head
        return head, ctx, result

    def for_each(self, node, seq):
        """``for x in array`` (first axis) and ``for x in tuple``: a counted loop over the length of ``seq``, the
        iterable's Value."""
        t = seq.type
        if isinstance(t, T.Array) and t.ndim >= 1:
            name = seq.code
            if not _is_identifier(name):
                name = self.fn.temp("seq")
                self.fn.emit(f"const {t.cpp} {name} = {seq.code};", node)
            arr = Value(t, name)
            stop = Value(T.int64, f"{name}.shape[0]", nonneg=True)
            zero = Value(T.int64, "0", const=0, nonneg=True)
            one = Value(T.int64, "1", const=1, nonneg=True)
            self.loop(node, T.int64, zero, stop, one, True,
                      element=lambda i: self.fn.index.subscript(node.iter, arr, [i]))
        elif isinstance(t, T.UniTuple):
            name = self.fn.temp("seq")
            if self.st.final:
                self.fn.emit(f"const {t.cpp} {name} = {seq.code};", node)
            zero = Value(T.int64, "0", const=0, nonneg=True)
            one = Value(T.int64, "1", const=1, nonneg=True)
            self.loop(node, T.int64, zero, Value(T.int64, str(t.count), const=t.count, nonneg=True), one, True,
                      element=lambda i: Value(t.dtype, f"{name}.v[{i.code}]"))
        elif t == T.undefined:
            self.loop(node, T.int64, Value(T.int64, "0"), Value(T.int64, "0"), Value(T.int64, "1", const=1), True,
                      element=lambda i: Value(T.undefined, "?"))
        else:
            self.fn.unsupported(node.iter, f"for loops over {t} are not supported in CUDA kernels",
                                "iterate over range(...), a 1-d array or a tuple")

    def _choose_direct_loops(self):
        """Loops whose variable is private to the loop (not reassigned in the body, not used after it, not
        carried from before) declare it in the for statement itself: ``for (int64_t i = 0; ...)``."""
        self.st.direct_loops = set()
        for node in ast.walk(self.st.parsed.tree):
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Call) \
                    and isinstance(node.iter.func, ast.Name) and node.iter.func.id == "range":
                key = id(node.target)
                if key not in self.st.storage or key in self.st.escapes:
                    continue
                web = [k for k in self.st.storage if self.st.web_of.get(k) == self.st.web_of.get(key)]
                stored = any(isinstance(n, ast.Name) and n.id == node.target.id and isinstance(n.ctx, ast.Store)
                             for s in node.body for n in ast.walk(s))
                if web == [key] and not stored and self.st.def_types.get(key) == self.st.storage[key].type:
                    self.st.direct_loops.add(key)
                    self._own_variable(key)

    def _own_variable(self, key):
        """A direct loop declares its variable in the for statement, whose initialiser (range()'s start) Python
        evaluates before the target is bound. Webs of one name and type share a C++ variable (storage.py), so
        ``xc = h; for xc in range(xc, 10)`` would read ``for (int64_t xc = xc; ...)``, the new variable from
        itself: such a loop variable gets a C++ name of its own (``xc_1``) and shadows nothing."""
        var = self.st.storage[key]
        if not any(v is var for k, v in self.st.storage.items() if k != key):
            return
        used = {v.cname for v in self.st.storage.values()} | set(self.st.reserved_names)
        n, cname = 0, var.cname
        while cname in used:
            n += 1
            cname = numbered(var.cname, n)
        self.st.storage[key] = StorageVar(cname, var.type)


def _short_loop(start, stop, step):
    if not (start.is_const and stop.is_const and step.is_const):
        return False
    return 0 <= (stop.const - start.const) // step.const <= _POLL_FREE_TRIPS


def _is_symbol(v, path):
    return isinstance(v, Symbol) and v.path == path


def a_node(call, args, a):
    return call.args[args.index(a)] if a in args else call


def _is_identifier(code):
    return code.replace("_", "a").isalnum() and not code[:1].isdigit()

"""Random programs: a main device function ``prog`` (run by every thread as a kernel body) and the device
functions, closures and lambdas it calls, each statement valid Python and valid Numba, every name of one type per
function, every loop bounded. ``generate(seed, opts)`` gives a Program whose ``body`` is the module text."""
import ast
import dataclasses
import random

import gen_tables as gt
import layout
import names as namepool
import nbtypes as nt
from gen_expr import ExprGen, binop, call, const, is_literal, name, typed
from scope import Arr, Callable, FnScope, Opt, Tup


@dataclasses.dataclass
class Options:
    expr_depth: int = 3
    block_depth: int = 3
    stmts: int = 6               # statements per block, at most
    max_helpers: int = 3
    dangerous: float = 0.25      # share of new names drawn from names.dangerous()
    cmath: bool = True
    known_bugs: bool = True      # constructs of open bugs (bugs36): loop targets in their own range ...
    threads: int = layout.THREADS

    @classmethod
    def small(cls):
        """Programs of about 25 lines, for runs through numba-cuda, whose compiler takes some 10 ms a line."""
        return cls(expr_depth=2, stmts=4, block_depth=2, max_helpers=2)


@dataclasses.dataclass
class Program:
    seed: int
    tree: ast.Module             # the functions; nodes carry _ty
    ret: str                     # prog's return type
    features: set                # construct tags (for classification)
    _text: str = None

    @property
    def body(self):
        if self._text is None:
            for node in ast.walk(self.tree):
                if isinstance(node, (ast.FunctionDef, ast.Assign, ast.For, ast.arg)) and \
                        not hasattr(node, "lineno"):
                    node.lineno = 1        # ast.unparse reads it for type comments
            self._text = ast.unparse(_prune_params(self.tree)) + "\n"
        return self._text


_DANGEROUS = None


def dangerous_names():
    global _DANGEROUS
    if _DANGEROUS is None:
        exclude = set(layout.param_names()) | {"prog", "cuda", "math", "cmath", "t"} | set(nt.ALL) | {"boolean"}
        _DANGEROUS = namepool.dangerous(exclude)
    return _DANGEROUS


SCALAR_WEIGHTS = {"bool": 2, "int8": 1, "int16": 1, "int32": 3, "int64": 5, "uint8": 1, "uint16": 0.5,
                  "uint32": 1, "uint64": 2, "float32": 4, "float64": 5, "complex64": 0.7, "complex128": 1}


class ProgramGen:
    def __init__(self, seed, opts):
        self.rng = random.Random(seed)
        self.opts = opts
        self.helpers = {}            # name -> Callable
        self.helper_defs = []        # ast.FunctionDef, callees first
        self.features = set()
        self.used_locals = set()
        self.global_names = set()    # helper names, given before their bodies are written
        self.counter = 0
        self.bounds = {}             # id(scope) -> {name: (lo, hi)} for index-safe loop variables

    # ---- names and types ----
    def fresh(self, scope, ty, prefix="v"):
        for _ in range(20):
            if self.rng.random() < self.opts.dangerous:
                n = self.rng.choice(dangerous_names())
                self.features.add("dangerous-name")
            else:
                self.counter += 1
                n = f"{prefix}{self.counter}"
            if n in self.global_names or n in ("prog",) or scope.visible(n) is not None or n in scope.types:
                continue
            if not scope.can_take(n, ty):
                continue
            self.used_locals.add(n)
            return n
        self.counter += 1
        return f"{prefix}{self.counter}x"

    def scalar_type(self):
        ts = list(SCALAR_WEIGHTS)
        return self.rng.choices(ts, weights=[SCALAR_WEIGHTS[t] for t in ts])[0]

    def any_type(self):
        if self.rng.random() < 0.1:
            return Tup(tuple(self.scalar_type() for _ in range(self.rng.randint(2, 3))))
        return self.scalar_type()

    def small_ints(self, scope, n):
        b = self.bounds.get(id(scope), {})
        return {v for v, (lo, hi) in b.items() if lo >= -n and hi < n}

    # ---- helpers ----
    def can_add_helper(self, scope):
        return len(self.helpers) < self.opts.max_helpers and scope.parent is None

    def new_helper(self, ret, caller=None, optional=False):
        taken = set(self.helpers) | self.global_names | self.used_locals | {"prog"}
        n = None
        if self.rng.random() < self.opts.dangerous:
            cands = [d for d in dangerous_names() if d not in taken]
            if cands:
                n = self.rng.choice(cands)
                self.features.add("dangerous-name")
        if n is None:
            self.counter += 1
            n = f"h{self.counter}"
        self.global_names.add(n)
        params = []
        for _ in range(self.rng.randint(0, 3)):
            pt = self.any_type() if self.rng.random() < 0.9 else self.scalar_type()
            pn = self.fresh(FnScope("?", params, None, {}), pt, "a")
            params.append((pn, pt))
        opt_last = False
        if self.rng.random() < 0.15 and params and isinstance(params[-1][1], str) and params[-1][1] != "bool":
            opt_last = True
            self.features.add("none-default")
        scope = FnScope(n, params, ret, dict(self.helpers))
        if opt_last:
            scope.types[params[-1][0]] = Opt(params[-1][1])
        body = []
        if opt_last:
            pn, pt = params[-1]
            body.append(self.none_default_prologue(scope, pn, pt))
        body += self.block(scope, self.opts.block_depth - 1, self.opts.stmts - 2)
        body.append(self.final_return(scope, optional))
        args = [ast.arg(arg=p) for p, _ in params]
        defaults = [const(None, None)] if opt_last else []
        fn = ast.FunctionDef(name=n, args=ast.arguments(posonlyargs=[], args=args, vararg=None, kwonlyargs=[],
                                                        kw_defaults=[], kwarg=None, defaults=defaults),
                             body=body, decorator_list=[self.device_decorator()], returns=None, type_params=[])
        c = Callable(n, params, Opt(ret) if optional else ret, optional_last=opt_last)
        self.helpers[n] = c
        self.helper_defs.append(fn)
        return c

    def none_default_prologue(self, scope, pn, pt):
        """``if b is None: b = <value>`` makes an argument that defaults to None a number again (Numba's
        Optional, specialised per call)."""
        scope.types[pn] = pt
        ex = ExprGen(self, scope)
        stmt = ast.If(test=typed(ast.Compare(left=name(pn, Opt(pt)), ops=[ast.Is()],
                                             comparators=[const(None, None)]), "bool"),
                      body=[ast.Assign(targets=[name(pn, pt, ast.Store())], value=ex.literal(pt))], orelse=[])
        return stmt

    @staticmethod
    def device_decorator():
        return ast.Call(func=ast.Attribute(value=ast.Name(id="cuda", ctx=ast.Load()), attr="jit", ctx=ast.Load()),
                        args=[], keywords=[ast.keyword(arg="device", value=ast.Constant(True))])

    def final_return(self, scope, optional=False):
        ex = ExprGen(self, scope)
        if optional:
            self.features.add("optional-return")
            val = ex.expr(scope.ret)
            return ast.If(test=self.varying_bool(scope), body=[ast.Return(value=const(None, None))],
                          orelse=[ast.Return(value=val)])
        return ast.Return(value=ex.expr(scope.ret))

    # ---- statements ----
    def block(self, scope, depth, budget, in_loop=False):
        out = []
        n = self.rng.randint(1, max(1, budget))
        for _ in range(n):
            s = self.statement(scope, depth, in_loop)
            if s is None:
                continue
            out.extend(s if isinstance(s, list) else [s])
            if isinstance(out[-1], (ast.Return, ast.Break, ast.Continue)):
                break
        if not out:
            out.append(ast.Pass())
        return out

    def statement(self, scope, depth, in_loop):
        kinds = [("assign", 8), ("reassign", 4), ("aug", 4), ("store", 4), ("tuple", 1.5), ("if", 3 if depth else 0),
                 ("for", 2.5 if depth else 0), ("while", 1.2 if depth else 0), ("local", 0.8),
                 ("closure", 0.8 if scope.parent is None else 0), ("optional", 0.6), ("return", 0.7),
                 ("jump", 2 if in_loop else 0), ("known_c", 0.4 if self.opts.known_bugs else 0)]
        kind = self.rng.choices([k for k, _ in kinds], weights=[w for _, w in kinds])[0]
        return getattr(self, "s_" + kind)(scope, depth, in_loop)

    def s_assign(self, scope, depth, in_loop):
        ty = self.any_type()
        ex = ExprGen(self, scope)
        value = ex.expr(ty)
        n = self.fresh(scope, ty)
        scope.bind(n, ty)
        return ast.Assign(targets=[name(n, ty, ast.Store())], value=value)

    def _rebindable(self, scope, pred):
        return [(n, t) for n, t in scope.names_of(pred) if scope.can_take(n, t) and n in scope.types
                and n not in self.bounds.get(id(scope), {})]

    def s_reassign(self, scope, depth, in_loop):
        cands = self._rebindable(scope, lambda t: isinstance(t, (str, Tup)))
        if not cands:
            return self.s_assign(scope, depth, in_loop)
        n, ty = self.rng.choice(cands)
        return ast.Assign(targets=[name(n, ty, ast.Store())], value=ExprGen(self, scope).expr(ty))

    def s_aug(self, scope, depth, in_loop):
        cands = self._rebindable(scope, lambda t: isinstance(t, str))
        self.rng.shuffle(cands)
        ex = ExprGen(self, scope)
        for n, ty in cands[:4]:
            ops = [(op, b) for op, a, b in gt.binops_for(ty) if a == ty]
            if not ops:
                continue
            op, b = self.rng.choice(ops)
            if op in ("<<", ">>"):
                rhs = const(self.rng.randint(0, 7), "int64")
            elif op == "**":
                rhs = const(self.rng.randint(-2, 3), "int64") if nt.is_int(ty) or b == "int64" else ex.expr(b)
                if not nt.op_signature("**", (ty, rhs._ty)) or nt.op_signature("**", (ty, rhs._ty))[0] != ty:
                    continue
            else:
                rhs = ex.expr(b)
            aop = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv, "%": ast.Mod,
                   "**": ast.Pow, "&": ast.BitAnd, "|": ast.BitOr, "^": ast.BitXor, "<<": ast.LShift,
                   ">>": ast.RShift}[op]
            return ast.AugAssign(target=name(n, ty, ast.Store()), op=aop(), value=rhs)
        return self.s_assign(scope, depth, in_loop)

    def s_store(self, scope, depth, in_loop):
        ex = ExprGen(self, scope)
        if scope.parent is None and scope.name != "prog" or scope.visible("of") is None:
            return self.s_assign(scope, depth, in_loop)
        out, dt = self.rng.choice(layout.OUTPUTS)
        arr = scope.visible(out)
        if nt.is_complex(dt):
            vt = self.rng.choice(gt.SCALARS)
        else:
            vt = self.rng.choice([t for t in gt.SCALARS if not nt.is_complex(t)])
        slot = const(self.rng.randrange(layout.SLOTS), "int64")
        index = typed(ast.Tuple(elts=[slot, name("t", "int64")], ctx=ast.Load()), None)
        index._keep = True             # the thread's own slot: the reducer must not make threads share one
        target = typed(ast.Subscript(value=name(out, arr), slice=index, ctx=ast.Store()), dt)
        return ast.Assign(targets=[target], value=ex.expr(vt))

    def s_tuple(self, scope, depth, in_loop):
        ex = ExprGen(self, scope)
        roll = self.rng.random()
        if roll < 0.4:
            ty = Tup(tuple(self.scalar_type() for _ in range(self.rng.randint(2, 3))))
            value = ex.expr(ty)
            if self.rng.random() < 0.5:
                n = self.fresh(scope, ty, "tp")
                scope.bind(n, ty)
                return ast.Assign(targets=[name(n, ty, ast.Store())], value=value)
            targets = []
            for it in ty.items:
                n = self.fresh(scope, it)
                targets.append((n, it))
            if len({n for n, _ in targets}) != len(targets):
                return None
            for n, it in targets:
                scope.bind(n, it)
            tgt = typed(ast.Tuple(elts=[name(n, it, ast.Store()) for n, it in targets], ctx=ast.Store()), ty)
            return ast.Assign(targets=[tgt], value=value)
        # swap two variables of one type
        cands = self._rebindable(scope, lambda t: isinstance(t, str))
        by_type = {}
        for n, t in cands:
            by_type.setdefault(t, []).append(n)
        pairs = [(t, ns) for t, ns in by_type.items() if len(ns) >= 2]
        if not pairs:
            return self.s_assign(scope, depth, in_loop)
        t, ns = self.rng.choice(pairs)
        a, b = self.rng.sample(ns, 2)
        tt = Tup((t, t))
        return ast.Assign(targets=[typed(ast.Tuple(elts=[name(a, t, ast.Store()), name(b, t, ast.Store())],
                                                   ctx=ast.Store()), tt)],
                          value=typed(ast.Tuple(elts=[name(b, t), name(a, t)], ctx=ast.Load()), tt))

    def s_if(self, scope, depth, in_loop):
        ex = ExprGen(self, scope)
        branches = [(ex.expr("bool"), None)]
        for _ in range(self.rng.choice([0, 0, 1, 2])):
            branches.append((ex.expr("bool"), None))
        has_else = self.rng.random() < 0.5
        bodies, bound_sets = [], []
        for test, _ in branches:
            scope.push()
            body = self.block(scope, depth - 1, self.opts.stmts // 2 + 1, in_loop)
            b = scope.pop()
            bodies.append(body)
            bound_sets.append(None if _ends(body) else b)
        orelse = []
        if has_else:
            scope.push()
            orelse = self.block(scope, depth - 1, self.opts.stmts // 2 + 1, in_loop)
            b = scope.pop()
            bound_sets.append(None if _ends(orelse) else b)
        else:
            bound_sets.append(set())
        live = [b for b in bound_sets if b is not None]
        if live:
            for n in set.intersection(*live):
                scope.bind(n, scope.types[n])
        node = None
        for (test, _), body in reversed(list(zip(branches, bodies))):
            node = ast.If(test=test, body=body, orelse=orelse if node is None else [node])
        return node

    # -- loops --
    def bounded(self, scope, ty, lo, hi, depth=1):
        """An expression of type ty whose value lies in [lo, hi]."""
        ex = ExprGen(self, scope)
        r = self.rng.random()
        lit = (lambda v: const(v, "int64")) if ty == "int64" else (lambda v: call(ty, [const(v, "int64")], ty))
        if r < 0.4:
            return lit(self.rng.randint(lo, hi))
        if ty == "int64" and r < 0.55 and scope.visible("t") == "int64" and lo <= 0 and hi >= 3:
            return binop("%", name("t", "int64"), const(min(hi, 7) + 1, "int64"), "int64") if lo == 0 else \
                lit(self.rng.randint(lo, hi))
        inner = ex.expr(ty, depth)
        return call("max", [call("min", [inner, lit(hi)], ty), lit(lo)], ty)

    def s_for(self, scope, depth, in_loop):
        r = self.rng
        rty = r.choices(["int64", "int32", "uint64"], weights=[6, 2, 1])[0]
        form = r.choice([1, 2, 3])
        lo = 0 if rty == "uint64" else -4
        args = []
        if form == 1:
            args = [self.bounded(scope, rty, 0 if rty == "uint64" else -1, 9)]
        elif form == 2:
            args = [self.bounded(scope, rty, lo, 6), self.bounded(scope, rty, lo, 10)]
        else:
            step = r.choice([1, 2, 3, -1, -2] if rty != "uint64" else [1, 2, 3])
            start, stop = (self.bounded(scope, rty, lo, 6), self.bounded(scope, rty, lo, 11))
            if step < 0:
                start, stop = stop, start
            steparg = const(step, "int64") if rty == "int64" else call(rty, [const(step, "int64")], rty)
            args = [start, stop, steparg]
        # the loop target: new, or an existing name of the loop's type (reused, shadowed, or in its own range)
        in_range = {a.id for arg in args for a in ast.walk(arg) if isinstance(a, ast.Name)}
        cands = [n for n, t in self._rebindable(scope, lambda t: t == rty)]
        self_ref = [n for n in cands if n in in_range]
        if self_ref and self.opts.known_bugs and r.random() < 0.5:
            target = r.choice(self_ref)
            self.features.add("bugs36a-target-in-range")
        elif cands and r.random() < 0.3:
            target = r.choice(cands)
            self.features.add("loop-target-reused")
        else:
            target = self.fresh(scope, rty, "i")
        if scope.types.get(target, rty) != rty:
            return None
        was_bound = scope.is_bound(target)
        all_lit = all(is_literal(a) or (isinstance(a, ast.Call) and is_literal(a.args[0])) for a in args)
        bounds = self.bounds.setdefault(id(scope), {})
        saved = bounds.get(target)
        if all_lit:
            vals = [_lit_value(a) for a in args]
            rng_vals = list(range(*vals))
            if rng_vals:
                bounds[target] = (min(rng_vals), max(rng_vals))
        scope.push()
        scope.bind(target, rty)
        scope.types[target] = rty
        body = self.block(scope, depth - 1, self.opts.stmts // 2 + 1, in_loop=True)
        scope.pop()
        if saved is None:
            bounds.pop(target, None)
        else:
            bounds[target] = saved
        if not was_bound:
            scope.unbind(target)
        else:
            scope.bind(target, rty)
        orelse = []
        if r.random() < 0.2:
            scope.push()
            orelse = self.block(scope, depth - 1, 2, in_loop)
            scope.pop()
        it = call("range", args, ("range", rty))
        return ast.For(target=name(target, rty, ast.Store()), iter=it, body=body, orelse=orelse)

    def s_while(self, scope, depth, in_loop):
        r = self.rng
        w = self.fresh(scope, "int64", "w")
        scope.bind(w, "int64")
        init = ast.Assign(targets=[name(w, "int64", ast.Store())], value=const(0, "int64"))
        limit = const(r.randint(1, 6), "int64")
        test = typed(ast.Compare(left=name(w, "int64"), ops=[ast.Lt()], comparators=[limit]), "bool")
        if r.random() < 0.5:
            extra = ExprGen(self, scope).expr("bool", 2)
            test = typed(ast.BoolOp(op=ast.And(), values=[test, extra] if r.random() < 0.5 else [extra, test]),
                         "bool")
        scope.frozen.add(w)
        inc = ast.AugAssign(target=name(w, "int64", ast.Store()), op=ast.Add(), value=const(1, "int64"))
        inc._keep = True                # the reducer never drops a loop's progress
        scope.push()
        body = [inc] + self.block(scope, depth - 1, self.opts.stmts // 2 + 1, in_loop=True)
        scope.pop()
        orelse = []
        if r.random() < 0.3:
            scope.push()
            orelse = self.block(scope, depth - 1, 2, in_loop)
            scope.pop()
        scope.frozen.discard(w)
        loop = ast.While(test=test, body=body, orelse=orelse)
        loop._counter = w
        return [init, loop]

    def s_jump(self, scope, depth, in_loop):
        j = ast.Break() if self.rng.random() < 0.5 else ast.Continue()
        if self.rng.random() < 0.75:
            return ast.If(test=ExprGen(self, scope).expr("bool", 2), body=[j], orelse=[])
        return j

    def s_return(self, scope, depth, in_loop):
        if scope.ret is None or isinstance(scope.ret, Opt):
            return None
        if not scope.bound or len(scope.bound) == 1 and self.rng.random() < 0.7:
            # early return at the top level of a function is guarded, so the rest still runs sometimes
            ex = ExprGen(self, scope)
            return ast.If(test=ex.expr("bool", 2), body=[ast.Return(value=ex.expr(scope.ret))], orelse=[])
        return ast.Return(value=ExprGen(self, scope).expr(scope.ret))

    def s_local(self, scope, depth, in_loop):
        dt = self.rng.choice(["int32", "int64", "float32", "float64", "uint8", "int16", "complex128", "bool"])
        shape = (self.rng.randint(1, 6),) if self.rng.random() < 0.8 else (self.rng.randint(1, 3),
                                                                            self.rng.randint(1, 3))
        n = self.fresh(scope, Arr(dt, shape, "local"), "la")
        shp = const(shape[0], "int64") if len(shape) == 1 else \
            typed(ast.Tuple(elts=[const(s, "int64") for s in shape], ctx=ast.Load()), None)
        decl = ast.Assign(targets=[name(n, Arr(dt, shape, "local"), ast.Store())],
                          value=call("cuda.local.array", [shp, ast.Name(id=dt if dt != "bool" else "boolean",
                                                                          ctx=ast.Load())], Arr(dt, shape, "local")))
        scope.types[n] = Arr(dt, shape, "local")
        # fill every element (a local array starts undefined), then the array is readable
        ex = ExprGen(self, scope)
        idx_names = [self.fresh(scope, "int64", "q") for _ in shape]
        for q in idx_names:
            scope.types[q] = "int64"
        scope.push()
        for q in idx_names:
            scope.bind(q, "int64")
        bounds = self.bounds.setdefault(id(scope), {})
        for q, s in zip(idx_names, shape):
            bounds[q] = (0, s - 1)
        elt_ty = dt if self.rng.random() < 0.7 else self.rng.choice([t for t in gt.SCALARS if not nt.is_complex(t)]
                                                                    if not nt.is_complex(dt) else gt.SCALARS)
        store_idx = name(idx_names[0], "int64") if len(shape) == 1 else \
            typed(ast.Tuple(elts=[name(q, "int64") for q in idx_names], ctx=ast.Load()), None)
        fill = ast.Assign(targets=[typed(ast.Subscript(value=name(n, scope.types[n]), slice=store_idx,
                                                       ctx=ast.Store()), dt)], value=ex.expr(elt_ty, 2))
        scope.pop()
        for q in idx_names:
            bounds.pop(q, None)
        loop = fill
        for q, s in reversed(list(zip(idx_names, shape))):
            loop = ast.For(target=name(q, "int64", ast.Store()), iter=call("range", [const(s, "int64")],
                                                                          ("range", "int64")),
                           body=[loop], orelse=[])
        loop._keep = True
        decl._with_next = True         # the reducer drops the declaration with its fill loop
        scope.bind(n, Arr(dt, shape, "local"))
        self.features.add("local-array")
        return [decl, loop]

    def s_closure(self, scope, depth, in_loop):
        ret = self.scalar_type()
        n = self.fresh(scope, ("fn",), "g")
        params = []
        inner = FnScope(n, [], ret, scope.globals, parent=scope)
        for _ in range(self.rng.randint(0, 2)):
            pt = self.scalar_type()
            pn = self.fresh(inner, pt, "c")
            params.append((pn, pt))
            inner.bind(pn, pt)
        c = Callable(n, params, ret, inner=True)
        self.features.add("closure")
        if self.rng.random() < 0.4:
            body = ExprGen(self, inner).expr(ret)
            scope.inner[n] = c
            scope.bind(n, ("fn",))
            self.used_locals.add(n)
            lam = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p, _ in params],
                                                vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                                defaults=[]), body=body)
            return [ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())], value=lam), self.first_call(scope, c)]
        body = self.block(inner, max(depth - 1, 0), 3)
        body.append(ast.Return(value=ExprGen(self, inner).expr(ret)))
        scope.inner[n] = c
        scope.bind(n, ("fn",))
        self.used_locals.add(n)
        fn = ast.FunctionDef(name=n, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p, _ in params],
                                                        vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                                        defaults=[]),
                             body=body, decorator_list=[], returns=None, type_params=[])
        return [fn, self.first_call(scope, c)]

    def first_call(self, scope, c):
        """A use right after the definition: numba-cuda turns an inner function it cannot inline at a call into
        a device function, which may not capture arrays or variables bound twice."""
        ex = ExprGen(self, scope)
        value = ex.call_of(c, 1)
        n = self.fresh(scope, c.ret)
        scope.bind(n, c.ret)
        return ast.Assign(targets=[name(n, c.ret, ast.Store())], value=value)

    def s_optional(self, scope, depth, in_loop):
        """A value that is None on one path: a variable, or an Optional-returning device function; used only
        where it is known not to be None."""
        ex = ExprGen(self, scope)
        ty = self.rng.choice(["int64", "float64", "float32", "int32", "bool"])
        out = []
        if self.can_add_helper(scope) and self.rng.random() < 0.5:
            h = self.new_helper(ty, caller=scope, optional=True)
            n = self.fresh(scope, Opt(ty), "op")
            out.append(ast.Assign(targets=[name(n, Opt(ty), ast.Store())], value=ex.call_of(h, 2)))
        else:
            n = self.fresh(scope, Opt(ty), "op")
            out.append(ast.Assign(targets=[name(n, Opt(ty), ast.Store())], value=const(None, None)))
            out.append(ast.If(test=self.varying_bool(scope), body=[ast.Assign(targets=[name(n, Opt(ty), ast.Store())],
                                                                        value=ex.expr(ty, 2))], orelse=[]))
        scope.bind(n, Opt(ty))
        self.features.add("optional")
        use = self.use_as(scope, n, ty)
        test = typed(ast.Compare(left=name(n, Opt(ty)), ops=[ast.IsNot()], comparators=[const(None, None)]),
                     "bool")
        if self.rng.random() < 0.5:
            out.append(ast.If(test=test, body=[use], orelse=[]))
        else:
            test.ops = [ast.Is()]
            other = self.use_as(scope, None, ty)
            out.append(ast.If(test=test, body=[other], orelse=[use]))
        return out

    def varying_bool(self, scope):
        """A condition that is not a compile-time constant (Numba prunes constant branches before typing, which
        would make an Optional plain None): it depends on the thread."""
        ex = ExprGen(self, scope)
        tid = typed(ast.Attribute(value=ast.Attribute(value=ast.Name(id="cuda", ctx=ast.Load()), attr="threadIdx",
                                                      ctx=ast.Load()), attr="x", ctx=ast.Load()), "int32")
        k = self.rng.randint(2, 4)
        test = typed(ast.Compare(left=binop("%", tid, const(k, "int64"), "int64"), ops=[ast.Eq()],
                                 comparators=[const(self.rng.randrange(k), "int64")]), "bool")
        return test

    def use_as(self, scope, n, ty):
        """A statement that uses n (a ty, or a fresh ty value when n is None)."""
        ex = ExprGen(self, scope)
        value = name(n, ty) if n else ex.expr(ty, 1)
        cands = [(v, t) for v, t in self._rebindable(scope, lambda t: t == "float64" or t == "int64")]
        if cands and self.rng.random() < 0.6:
            v, t = self.rng.choice(cands)
            sig = nt.op_signature("+", (t, ty))
            if sig and sig[0] == t:
                return ast.Assign(targets=[name(v, t, ast.Store())], value=binop("+", name(v, t), value, t))
        if scope.visible("of") is not None:
            index = typed(ast.Tuple(elts=[const(self.rng.randrange(layout.SLOTS), "int64"), name("t", "int64")],
                                    ctx=ast.Load()), None)
            index._keep = True
            target = typed(ast.Subscript(value=name("of", scope.visible("of")), slice=index, ctx=ast.Store()),
                           "float64")
            return ast.Assign(targets=[target], value=value)
        return ast.Expr(value=value)

    def s_known_c(self, scope, depth, in_loop):
        """bugs36 (c): a variable bound on one path of an if, read under the same (unchanged) condition."""
        ex = ExprGen(self, scope)
        flag = self.fresh(scope, "bool", "fl")
        ty = self.rng.choice(["int64", "float64", "int32"])
        v = self.fresh(scope, ty, "cv")
        flag_value = ex.expr("bool", 2)
        scope.bind(flag, "bool")
        scope.types[v] = ty
        scope.frozen.add(flag)
        first = [ast.Assign(targets=[name(flag, "bool", ast.Store())], value=flag_value),
                 ast.If(test=name(flag, "bool"), body=[ast.Assign(targets=[name(v, ty, ast.Store())],
                                                                  value=ex.expr(ty, 2))], orelse=[])]
        middle = self.block(scope, 0, 2, in_loop) if self.rng.random() < 0.5 else []
        middle = [s for s in middle if not isinstance(s, (ast.Return, ast.Break, ast.Continue))]
        scope.push()
        scope.bind(v, ty)
        use = self.use_as(scope, v, ty)
        scope.pop()
        scope.frozen.discard(flag)
        self.features.add("bugs36c-one-path")
        return first + middle + [ast.If(test=name(flag, "bool"), body=[use], orelse=[])]

    # ---- the main function ----
    def main(self):
        params = [("t", "int64")]
        params += [(n, Arr(dt, shape, "in")) for n, dt, shape in layout.INPUT_ARRAYS]
        params += [(n, t) for n, t in layout.INPUT_SCALARS]
        params += [(n, Arr(dt, (layout.SLOTS, layout.THREADS), "out")) for n, dt in layout.OUTPUTS]
        ret = self.scalar_type()
        scope = FnScope("prog", params, ret, self.helpers)
        scope.frozen.add("t")          # the thread's own output slots
        body = []
        if self.rng.random() < 0.12:
            body += self.shared_prologue(scope)
        body += self.block(scope, self.opts.block_depth, self.opts.stmts + 2)
        body.append(self.final_return(scope))
        fn = ast.FunctionDef(name="prog", args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p, _ in params],
                                                             vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                                             defaults=[]),
                             body=body, decorator_list=[self.device_decorator()], returns=None, type_params=[])
        return fn, ret

    def shared_prologue(self, scope):
        """Each thread writes its own element of a block-sized shared array, then all synchronise; later reads
        may take any element (race-free)."""
        dt = self.rng.choice(["float64", "int32", "float32", "int64"])
        shape = (layout.THREADS_PER_BLOCK,)
        n = self.fresh(scope, Arr(dt, shape, "shared"), "sh")
        decl = ast.Assign(targets=[name(n, Arr(dt, shape, "shared"), ast.Store())],
                          value=call("cuda.shared.array", [const(shape[0], "int64"), ast.Name(id=dt, ctx=ast.Load())],
                                     Arr(dt, shape, "shared")))
        scope.bind(n, Arr(dt, shape, "shared"))
        tid = typed(ast.Attribute(value=ast.Attribute(value=ast.Name(id="cuda", ctx=ast.Load()), attr="threadIdx",
                                                      ctx=ast.Load()), attr="x", ctx=ast.Load()), "int32")
        ex = ExprGen(self, scope)
        fill = ast.Assign(targets=[typed(ast.Subscript(value=name(n, scope.types[n]), slice=tid, ctx=ast.Store()),
                                         dt)], value=ex.expr(dt, 2))
        sync = ast.Expr(value=call("cuda.syncthreads", [], None))
        fill._keep = sync._keep = decl._keep = True
        scope.has_sync = True
        self.features.add("shared-sync")
        return [decl, fill, sync]


def _prune_params(tree):
    """The module with prog's unused parameters left out (the batch passes prog only what it names): fewer
    parameters to type and to lower, for numba-cuda above all, and a shorter program to read."""
    out = ast.Module(body=list(tree.body), type_ignores=[])
    for i, fn in enumerate(out.body):
        if isinstance(fn, ast.FunctionDef) and fn.name == "prog":
            used = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
            args = [a for a in fn.args.args if a.arg == "t" or a.arg in used]
            if len(args) != len(fn.args.args):
                new = ast.FunctionDef(name=fn.name, args=ast.arguments(posonlyargs=[], args=args, vararg=None,
                                                                       kwonlyargs=[], kw_defaults=[], kwarg=None,
                                                                       defaults=[]),
                                      body=fn.body, decorator_list=fn.decorator_list, returns=None, type_params=[])
                new.lineno = 1
                out.body[i] = new
    return out


def _ends(body):
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Break, ast.Continue))


def _lit_value(node):
    if isinstance(node, ast.Call):
        node = node.args[0]
    return ast.literal_eval(node)


def generate(seed, opts=None):
    g = ProgramGen(seed, opts or Options())
    main, ret = g.main()
    tree = ast.Module(body=g.helper_defs + [main], type_ignores=[])
    return Program(seed, tree, ret, g.features)

"""Expressions of an exact Numba type. Every node made here carries ``_ty`` (its Numba type) so that the reducer
can replace it only by something of the same type and keep the program's typing, and the oracle's, unchanged."""
import ast
import math

import gen_tables as gt
import nbtypes as nt
from scope import Arr, Opt, Tup

INT_EDGES = [0, 1, -1, 2, 3, 7, 10, 127, -128, 255, 256, 32767, -32768, 65535, 2**31 - 1, -2**31, 2**32 - 1,
             2**32, 2**53 + 1, 2**62, 2**63 - 1, -2**63]
FLOAT_LITS = [0.0, -0.0, 0.5, 1.0, -1.0, 2.0, 3.0, 1.5, -2.25, 0.1, 1e-7, 1e7, 3.5e38, 1e300, 1e-300, 7.0,
              16777217.0, 2.0**53, 1e20, -1e20, float("inf"), 0.75, 123.456, -0.3]


def typed(node, ty):
    node._ty = ty
    return node


def name(n, ty, ctx=None):
    return typed(ast.Name(id=n, ctx=ctx or ast.Load()), ty)


def const(v, ty):
    return typed(ast.Constant(value=v), ty)


def call(fn, args, ty, keywords=()):
    parts = fn.split(".")
    f = ast.Name(id=parts[0], ctx=ast.Load())
    for p in parts[1:]:
        f = ast.Attribute(value=f, attr=p, ctx=ast.Load())
    return typed(ast.Call(func=f, args=list(args), keywords=list(keywords)), ty)


_BINOP = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv, "%": ast.Mod,
          "**": ast.Pow, "&": ast.BitAnd, "|": ast.BitOr, "^": ast.BitXor, "<<": ast.LShift, ">>": ast.RShift}
_CMP = {"<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE, "==": ast.Eq, "!=": ast.NotEq}
_UNARY = {"-": ast.USub, "+": ast.UAdd, "~": ast.Invert}


def binop(op, a, b, ty):
    return typed(ast.BinOp(left=a, op=_BINOP[op](), right=b), ty)


def is_literal(node):
    """A literal or a negated literal (what Python folds to a constant)."""
    if isinstance(node, ast.Constant):
        return True
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) and \
        isinstance(node.operand, ast.Constant)


class ExprGen:
    """Random expressions for one function scope. ``g`` is the program generator (rng, options, helpers)."""

    def __init__(self, g, scope):
        self.g, self.s, self.r = g, scope, g.rng

    # -- entry point --
    def expr(self, ty, depth=None):
        depth = self.g.opts.expr_depth if depth is None else depth
        if isinstance(ty, Tup):
            return self.tuple_expr(ty, depth)
        if depth <= 0 or self.r.random() < 0.25:
            return self.leaf(ty)
        for _ in range(6):
            maker = self.r.choices(self._productions, weights=self._weights)[0]
            node = maker(self, ty, depth - 1)
            if node is not None:
                return node
        return self.leaf(ty)

    # -- leaves --
    def leaf(self, ty):
        vars_ = self.s.names_of(lambda t: t == ty)
        roll = self.r.random()
        if vars_ and roll < 0.6:
            n, _ = self.r.choice(vars_)
            return name(n, ty)
        if roll < 0.75:
            node = self.array_read(ty, 0)
            if node is not None:
                return node
        return self.literal(ty)

    def literal(self, ty):
        r = self.r
        if ty == "bool":
            return const(r.random() < 0.5, ty)
        if ty == "int64":
            return const(r.choice(INT_EDGES) if r.random() < 0.3 else r.randint(-12, 12), ty)
        if ty == "float64":
            if r.random() < 0.1:
                return typed(ast.Attribute(value=ast.Name(id="math", ctx=ast.Load()),
                                           attr=r.choice(["pi", "e", "inf"]), ctx=ast.Load()), ty)
            v = r.choice(FLOAT_LITS) if r.random() < 0.5 else round(r.uniform(-20, 20), r.choice([0, 1, 3]))
            return const(-v if r.random() < 0.1 else v, ty)
        if ty == "complex128":
            return const(complex(r.choice([0.0, 1.0, -0.5, 2.5]), r.choice([1.0, -2.0, 0.5])), ty)
        # other types: a cast of a literal of the nearest literal type
        if nt.is_int(ty):
            lo, hi = nt.int_range(ty)
            v = r.choice([lo, hi, 0, 1, r.randint(max(lo, -100), min(hi, 100))])
            return call(ty, [const(v, "int64")], ty) if v < 2**63 else \
                call(ty, [const(v - 2**64, "int64")], ty)
        if ty == "float32":
            return call(ty, [self.literal("float64")], ty)
        if ty == "complex64":
            return call(ty, [self.literal("complex128")], ty)
        raise ValueError(ty)

    # -- productions (each may return None when it cannot make ty) --
    def p_binop(self, ty, depth):
        choices = gt.binops_for(ty)
        if not choices:
            return None
        op, a, b = self.r.choice(choices)
        if op in ("<<", ">>"):
            left = self.expr(a, depth)
            if self.r.random() < 0.5:
                right = const(self.r.randint(0, 12 if nt.BITS[ty] > 8 else 7), "int64")
            else:
                right = binop("&", self.expr(b, depth), const(15, "int64"), nt.op_signature("&", (b, "int64"))[0]) \
                    if nt.op_signature("&", (b, "int64")) else None
                if right is None:
                    return None
            if nt.op_signature(op, (a, right._ty)) is None or nt.op_signature(op, (a, right._ty))[0] != ty:
                return None
            return binop(op, left, right, ty)
        if op == "**":
            return self.power(a, b, ty, depth)
        if nt.is_complex(ty) and op == "/" and self.r.random() < 0.7:
            return None
        left, right = self.expr(a, depth), self.expr(b, depth)
        if is_literal(left) and is_literal(right) and op not in ("+", "-", "*"):
            return None
        return binop(op, left, right, ty)

    def power(self, a, b, ty, depth):
        left = self.expr(a, depth)
        if nt.is_int(b) or b == "bool":
            if self.r.random() < 0.6 and b == "int64":
                right = const(self.r.choice([-3, -2, -1, 0, 1, 2, 3, 4, 5]), "int64")
            else:
                inner = self.expr(b, depth)
                rt = nt.op_signature("%", (b, "int64"))
                if rt is None:
                    return None
                right = binop("%", inner, const(6, "int64"), rt[0])
                if nt.op_signature("**", (a, rt[0])) is None or nt.op_signature("**", (a, rt[0]))[0] != ty:
                    return None
        else:
            right = self.expr(b, depth)
        if is_literal(left) and is_literal(right):
            return None
        return binop("**", left, right, ty)

    def p_unop(self, ty, depth):
        choices = gt.unops_for(ty)
        if not choices:
            return None
        op, a = self.r.choice(choices)
        operand = self.expr(a, depth)
        if is_literal(operand):
            return None
        return typed(ast.UnaryOp(op=_UNARY[op](), operand=operand), ty)

    def p_compare(self, ty, depth):
        if ty != "bool":
            return None
        a = self.r.choice(gt.SCALARS)
        ordered, equal = gt.comparable(a)
        ops, operands = [], [self.expr(a, depth)]
        for _ in range(1 if self.r.random() < 0.8 else self.r.randint(2, 3)):
            op = self.r.choice(list(gt.COMPARE))
            pool = equal if op in ("==", "!=") else ordered
            if not pool or (op not in ("==", "!=") and nt.is_complex(a)):
                return None
            b = self.r.choice(pool)
            ops.append(_CMP[op]())
            operands.append(self.expr(b, depth))
            a = b
            ordered, equal = gt.comparable(a)
        if all(is_literal(o) for o in operands):
            return None
        return typed(ast.Compare(left=operands[0], ops=ops, comparators=operands[1:]), ty)

    def p_boolop(self, ty, depth):
        if ty != "bool":
            return None
        if self.r.random() < 0.3:
            return typed(ast.UnaryOp(op=ast.Not(), operand=self.expr("bool", depth)), ty)
        n = self.r.randint(2, 3)
        op = ast.And() if self.r.random() < 0.5 else ast.Or()
        return typed(ast.BoolOp(op=op, values=[self.expr("bool", depth) for _ in range(n)]), ty)

    def p_ifexp(self, ty, depth):
        return typed(ast.IfExp(test=self.expr("bool", depth), body=self.expr(ty, depth),
                               orelse=self.expr(ty, depth)), ty)

    def p_cast(self, ty, depth):
        if ty == "bool":
            return call("bool", [self.expr(self.r.choice(gt.SCALARS), depth)], ty)
        src = self.r.choice(gt.SCALARS)
        if nt.is_complex(src) and not nt.is_complex(ty):
            return None
        inner = self.expr(src, depth)
        if (nt.is_int(ty) and src in ("float32", "float64") and self.r.random() < 0.8
                and not is_literal(inner)):
            inner = self.clamp(inner, src, ty)
        if ty == "int64" and not nt.is_complex(src) and src != "bool" and self.r.random() < 0.3:
            return call("int", [inner], ty) if not nt.is_int(src) else None
        if ty == "float64" and nt.is_int(src) and self.r.random() < 0.3:
            return call("float", [inner], ty)
        if nt.is_float(ty) and nt.is_int(src) is False and nt.is_float(src) and self.r.random() < 0.1:
            return call("float", [inner], ty) if src == ty else None
        return call(ty, [inner], ty)

    def clamp(self, inner, src, ty):
        """``max(min(x, hi), lo)``: a float kept inside integer type ty's range (a conversion of a float that
        does not fit is undefined)."""
        lo, hi = nt.int_range(ty)
        hi_f = float(min(hi, 2**24))
        lo_f = float(max(lo, -2**24))
        lit = (lambda v: const(v, "float64")) if src == "float64" else \
            (lambda v: call("float32", [const(v, "float64")], "float32"))
        return call("max", [call("min", [inner, lit(hi_f)], src), lit(lo_f)], src)

    def p_builtin(self, ty, depth):
        r = self.r
        which = r.choice(["abs", "minmax", "round"])
        if which == "abs":
            if nt.is_int(ty) or nt.is_float(ty):
                return call("abs", [self.expr(ty, depth)], ty)
            return None
        if which == "round":
            if ty == "int64":
                src = r.choice(["float32", "float64"])
                return call("round", [self.clamp(self.expr(src, depth), src, "int32")], ty)
            return None
        if ty == "bool" or nt.is_complex(ty):
            return None
        n = r.randint(2, 3)
        args = [self.expr(ty, depth) for _ in range(n)]
        return call(r.choice(["min", "max"]), args, ty)

    def p_math(self, ty, depth):
        choices = gt.math_for(ty)
        if not choices:
            return None
        fn, args = self.r.choice(choices)
        return call("math." + fn, [self.expr(a, depth) for a in args], ty)

    def p_cmath(self, ty, depth):
        if not nt.is_complex(ty) or not self.g.opts.cmath:
            return None
        return call("cmath." + self.r.choice(gt.CMATH_UNARY), [self.expr(ty, depth)], ty)

    def p_complex_parts(self, ty, depth):
        if ty in ("float32", "float64"):
            src = "complex64" if ty == "float32" else "complex128"
            z = self.expr(src, depth)
            attr = self.r.choice(["real", "imag"])
            return typed(ast.Attribute(value=z, attr=attr, ctx=ast.Load()), ty)
        if nt.is_complex(ty):
            part = "float32" if ty == "complex64" else "float64"
            if self.r.random() < 0.5:
                return call("complex", [self.expr(part, depth), self.expr(part, depth)], ty)
            z = self.expr(ty, depth)
            return typed(ast.Call(func=ast.Attribute(value=z, attr="conjugate", ctx=ast.Load()), args=[],
                                  keywords=[]), ty)
        return None

    def p_call(self, ty, depth):
        cands = [c for c in self.s.callables() if c.ret == ty]
        if (not cands or self.r.random() < 0.3) and self.g.can_add_helper(self.s):
            c = self.g.new_helper(ty, caller=self.s)
            if c is not None:
                cands = [c]
        if not cands:
            return None
        c = self.r.choice(cands)
        return self.call_of(c, depth)

    def call_of(self, c, depth):
        params = c.params
        if c.optional_last and self.r.random() < 0.5:
            params = params[:-1]
        args = [self.expr(t, depth) if not isinstance(t, Opt) else self.expr(t.of, depth) for _, t in params]
        return call(c.name, args, c.ret)

    def p_tuple_item(self, ty, depth):
        tups = self.s.names_of(lambda t: isinstance(t, Tup) and ty in t.items)
        if not tups:
            return None
        n, t = self.r.choice(tups)
        idx = [i for i, x in enumerate(t.items) if x == ty]
        i = self.r.choice(idx)
        if self.r.random() < 0.2:
            i = i - len(t.items)
        return typed(ast.Subscript(value=name(n, t), slice=const(i, "int64"), ctx=ast.Load()), ty)

    def p_array(self, ty, depth):
        return self.array_read(ty, depth)

    def p_thread(self, ty, depth):
        if ty == "int32":
            attr = self.r.choice(["threadIdx", "blockIdx", "blockDim", "gridDim"])
            return typed(ast.Attribute(value=ast.Attribute(value=ast.Name(id="cuda", ctx=ast.Load()), attr=attr,
                                                           ctx=ast.Load()), attr="x", ctx=ast.Load()), ty)
        if ty == "int64" and self.r.random() < 0.3:
            return call("cuda." + self.r.choice(["grid", "gridsize"]), [const(1, "int64")], ty)
        return None

    _productions = [p_binop, p_unop, p_compare, p_boolop, p_ifexp, p_cast, p_builtin, p_math, p_cmath,
                    p_complex_parts, p_call, p_tuple_item, p_array, p_thread]
    _weights = [10, 2, 4, 2, 1.5, 3, 2, 2.5, 0.7, 1, 1.6, 1, 2, 0.8]

    # -- arrays and indices --
    def array_read(self, ty, depth):
        arrs = [(n, a) for n, a in self.s.names_of(lambda t: isinstance(t, Arr) and t.dtype == ty)
                if a.kind != "shared" or self.s.has_sync]
        if not arrs:
            return None
        n, a = self.r.choice(arrs)
        return typed(ast.Subscript(value=name(n, a), slice=self.index_for(a, depth), ctx=ast.Load()), ty)

    def index_for(self, a, depth):
        if a.kind == "out":
            return typed(ast.Tuple(elts=[const(self.r.randrange(a.shape[0]), "int64"), name("t", "int64")],
                                   ctx=ast.Load()), Tup(("int64", "int64")))
        idx = [self.index(n, depth) for n in a.shape]
        if len(idx) == 1:
            return idx[0]
        return typed(ast.Tuple(elts=idx, ctx=ast.Load()), Tup(tuple(i._ty for i in idx)))

    def index(self, n, depth):
        """An integer expression whose value is in [-n, n) whatever the inputs."""
        r = self.r.random()
        if r < 0.3:
            return const(self.r.randrange(-n, n), "int64")
        if r < 0.45 and n >= self.g.opts.threads:
            return name("t", "int64")
        loops = [(v, t) for v, t in self.s.names_of(lambda t: t in ("int32", "int64")) if v in self.g.small_ints(self.s, n)]
        if loops and r < 0.65:
            v, t = self.r.choice(loops)
            return name(v, t)
        it = self.r.choice(["int64", "int32", "uint8", "int16", "uint64", "int8"])
        inner = self.expr(it, max(depth - 1, 0))
        rt = nt.op_signature("%", (it, "int64"))[0]
        return binop("%", inner, const(n, "int64"), rt)

    def tuple_expr(self, ty, depth):
        tups = self.s.names_of(lambda t: t == ty)
        if tups and self.r.random() < 0.4:
            n, _ = self.r.choice(tups)
            return name(n, ty)
        cands = [c for c in self.s.callables() if c.ret == ty]
        if cands and self.r.random() < 0.5:
            return self.call_of(self.r.choice(cands), depth)
        return typed(ast.Tuple(elts=[self.expr(t, depth - 1) for t in ty.items], ctx=ast.Load()), ty)

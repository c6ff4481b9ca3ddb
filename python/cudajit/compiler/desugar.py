"""Rewrite loop forms Numba supports into the ones the translator handles, before typing:

* a list display iterated by ``for`` or tested by the last ``in``/``not in``: a tuple, as CPython compiles it;

* ``for ... else`` / ``while ... else``: a flag cleared by the loop's own ``break``s, then ``if flag: <else>``;
* ``for i, x in enumerate(seq, start)`` and ``for x, y in zip(a, b, ...)`` (nested too): a counted loop over
  ``range(length)`` whose body first assigns the target from the sequences' elements;
* ``for a, b in seq`` (a tuple target over an array or a tuple): ``for e in seq: a, b = e``;
* ``for x in a.flat`` and ``for idx, x in np.ndenumerate(a)``: ``range(a.size)`` over ``a.flat[k]`` (with
  ``np.unravel_index(k, a.shape)`` for the index), compiler/flatiter.py;
* ``match`` with value, singleton, wildcard, capture and ``|`` patterns (and guards): the subject evaluated once,
  then an ``if``/``else`` chain, as the bytecode Numba compiles tests them one after another. Sequence, mapping
  and class patterns stay a ``match`` node, which the translator refuses (Numba has no MATCH_CLASS & co.).

The new nodes carry the locations of the nodes they replace, so errors and ``#line`` still point at the user's
line. Names made here start with ``_cj_`` (never a user's name in practice: Python code cannot see them).
"""
import ast
import itertools


def desugar(fn):
    """Rewrite ``fn`` (an ``ast.FunctionDef``) in place."""
    _ListDisplaysAsTuples().visit(fn)
    _Desugar().rewrite_body(fn)


class _ListDisplaysAsTuples(ast.NodeTransformer):
    """CPython's AST optimizer (ast_opt.c, fold_iter) compiles a list display that is only iterated, ``for x in
    [16, 8, 4]``, or tested with the last ``in``/``not in`` of a comparison, ``n not in [3, 4]``, as a tuple (a
    constant one when its elements are constants); Numba compiles that bytecode, so such lists work in numba-cuda
    kernels without its runtime (minitorch's reductions, a poker simulation's shuffles use them). Displays with a
    starred element stay lists, as in CPython."""

    @staticmethod
    def _as_tuple(node):
        if isinstance(node, ast.List) and not any(isinstance(e, ast.Starred) for e in node.elts):
            return ast.copy_location(ast.Tuple(elts=node.elts, ctx=ast.Load()), node)
        return node

    def visit_For(self, node):
        self.generic_visit(node)
        node.iter = self._as_tuple(node.iter)
        return node

    def visit_comprehension(self, node):
        self.generic_visit(node)
        node.iter = self._as_tuple(node.iter)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if isinstance(node.ops[-1], (ast.In, ast.NotIn)):
            node.comparators[-1] = self._as_tuple(node.comparators[-1])
        return node


class _Desugar:
    def __init__(self):
        self.counter = itertools.count()

    def name(self, hint):
        return f"_cj_{hint}{next(self.counter)}"

    def rewrite_body(self, node):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                setattr(node, field, [out for s in stmts for out in self.stmt(s)])

    def stmt(self, node):
        """The statements that replace ``node``."""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return [node]                          # nested definitions are refused later, as they are
        self.rewrite_body(node)
        for sub in getattr(node, "handlers", []):
            self.rewrite_body(sub)
        out = [node]
        if isinstance(node, ast.For):
            out = self.for_loop(node)
        if _MATCH is not None and isinstance(node, _MATCH):
            out = self.match(node)
        if isinstance(node, (ast.For, ast.While)) and node.orelse:
            out = self.loop_else(node, out)
        return out

    # ---- for targets and iterables ---------------------------------------------------------------------
    def for_loop(self, node):
        it = node.iter
        if _builtin_call(it, "enumerate", "zip") or _ndenumerate(it) or _flat(it):
            prelude, length, element = self.iterable(it)
            k = self.name("k")
            head = _at(ast.Assign(targets=[node.target], value=element(_load(k, it))), node)
            node.target = _at(ast.Name(id=k, ctx=ast.Store()), node.target)
            node.iter = _at(ast.Call(func=_load("range", it), args=[length], keywords=[]), it)
            node.body = [head] + node.body
            return prelude + [node]
        if isinstance(node.target, (ast.Tuple, ast.List)):
            e = self.name("e")
            head = _at(ast.Assign(targets=[node.target], value=_load(e, node.target)), node)
            node.target = _at(ast.Name(id=e, ctx=ast.Store()), node.target)
            node.body = [head] + node.body
        return [node]

    def iterable(self, it):
        """(prelude statements, length expression, element(k) -> expression) for what a for loop iterates over."""
        if _builtin_call(it, "enumerate"):
            if len(it.args) + len(it.keywords) not in (1, 2) or not it.args or \
                    any(kw.arg != "start" for kw in it.keywords):
                return self.evaluated(it)          # wrong arity: the translator reports the call
            start = it.args[1] if len(it.args) == 2 else (it.keywords[0].value if it.keywords else None)
            prelude, length, element = self.iterable(it.args[0])
            if start is not None:
                s = self.name("start")
                prelude = prelude + [_at(ast.Assign(targets=[_store(s, start)], value=start), it)]
            def pair(k):
                index = k if start is None else _at(ast.BinOp(left=k, op=ast.Add(), right=_load(s, it)), it)
                return _at(ast.Tuple(elts=[index, element(k)], ctx=ast.Load()), it)
            return prelude, length, pair
        if _builtin_call(it, "zip") and it.args and not it.keywords:
            parts = [self.iterable(a) for a in it.args]
            prelude = [s for p in parts for s in p[0]]
            lengths = [p[1] for p in parts]
            length = lengths[0] if len(lengths) == 1 else \
                _at(ast.Call(func=_load("min", it), args=lengths, keywords=[]), it)
            return prelude, length, lambda k: _at(ast.Tuple(elts=[p[2](k) for p in parts], ctx=ast.Load()), it)
        if _builtin_call(it, "range") and 1 <= len(it.args) <= 2 and not it.keywords:
            start = it.args[0] if len(it.args) == 2 else None
            stop = it.args[-1]
            if start is None:
                return [], stop, lambda k: k
            names = self.name("lo"), self.name("hi")
            prelude = [_at(ast.Assign(targets=[_store(n, v)], value=v), it) for n, v in zip(names, (start, stop))]
            diff = _at(ast.BinOp(left=_load(names[1], it), op=ast.Sub(), right=_load(names[0], it)), it)
            zero = _at(ast.Constant(value=0), it)
            length = _at(ast.Call(func=_load("max", it), args=[diff, zero], keywords=[]), it)
            return prelude, length, lambda k: _at(ast.BinOp(left=_load(names[0], it), op=ast.Add(), right=k), it)
        if _builtin_call(it, "range") and len(it.args) == 3 and not it.keywords:
            # range(lo, hi, step): max(0, (hi - lo + step - sign(step)) // step) trips, element lo + k * step
            names = self.name("lo"), self.name("hi"), self.name("step")
            prelude = [_at(ast.Assign(targets=[_store(n, v)], value=v), it) for n, v in zip(names, it.args)]
            lo, hi, step = (lambda n=n: _load(n, it) for n in names)
            b = lambda left, op, right: _at(ast.BinOp(left=left, op=op, right=right), it)
            one = lambda v: _at(ast.Constant(value=v), it)
            sign = _at(ast.IfExp(test=_at(ast.Compare(left=step(), ops=[ast.Gt()], comparators=[one(0)]), it),
                                 body=one(1), orelse=one(-1)), it)
            trips = b(b(b(b(hi(), ast.Sub(), lo()), ast.Add(), step()), ast.Sub(), sign), ast.FloorDiv(), step())
            length = _at(ast.Call(func=_load("max", it), args=[trips, one(0)], keywords=[]), it)
            return prelude, length, lambda k: b(lo(), ast.Add(), b(k, ast.Mult(), step()))
        if _ndenumerate(it) or _flat(it):
            prelude, _, _ = self.evaluated(it.args[0] if _ndenumerate(it) else it.value)
            seq = prelude[0].targets[0].id
            length = _at(ast.Attribute(value=_load(seq, it), attr="size", ctx=ast.Load()), it)
            flat = _at(ast.Attribute(value=_load(seq, it), attr="flat", ctx=ast.Load()), it)
            def element(k):
                value = _at(ast.Subscript(value=flat, slice=k, ctx=ast.Load()), it)
                if _flat(it):
                    return value
                shape = _at(ast.Attribute(value=_load(seq, it), attr="shape", ctx=ast.Load()), it)
                unravel = _at(ast.Attribute(value=it.func.value, attr="unravel_index", ctx=ast.Load()), it)
                index = _at(ast.Call(func=unravel, args=[k, shape], keywords=[]), it)
                return _at(ast.Tuple(elts=[index, value], ctx=ast.Load()), it)
            return prelude, length, element
        return self.evaluated(it)

    def evaluated(self, it):
        """Any other iterable (an array, a tuple, or something the translator will refuse): evaluated once."""
        seq = self.name("seq")
        prelude = [_at(ast.Assign(targets=[_store(seq, it)], value=it), it)]
        length = _at(ast.Call(func=_load("len", it), args=[_load(seq, it)], keywords=[]), it)
        return prelude, length, lambda k: _at(ast.Subscript(value=_load(seq, it), slice=k, ctx=ast.Load()), it)

    # ---- match ------------------------------------------------------------------------------------------
    def match(self, node):
        """``match`` as ``subject = ...`` and a chain of ``if``: each case's pattern test (and guard), its captures
        bound to the subject before its body; an irrefutable case without a guard is the chain's last ``else``."""
        for case in node.cases:
            self.rewrite_body(case)
            bad = _unsupported_pattern(case.pattern)
            if bad:
                node.cj_unsupported = bad          # errors.describe_construct names it
                return [node]
        subject = node.subject
        prelude = []
        if not isinstance(subject, ast.Name):
            name = self.name("subject")
            prelude = [_at(ast.Assign(targets=[_store(name, subject)], value=subject), subject)]
            subject = _load(name, subject)
        chain = []                                 # the innermost else first, built backwards
        for case in reversed(node.cases):
            test, names = _pattern_test(case.pattern, subject)
            binds = [_at(ast.Assign(targets=[_store(n, case.pattern)], value=_load(subject.id, case.pattern)),
                         case.pattern) for n in names]
            body = binds + case.body
            if case.guard is not None:
                guard = _Substitute({n: subject.id for n in names}).visit(case.guard)
                test = guard if test is None else _at(ast.BoolOp(op=ast.And(), values=[test, guard]), case.guard)
            if test is None:
                chain = body                       # irrefutable: what follows it can never run
            else:
                chain = [_at(ast.If(test=test, body=body, orelse=chain), case.pattern)]
        return prelude + (chain or [_at(ast.Pass(), node)])

    # ---- loop else -------------------------------------------------------------------------------------
    def loop_else(self, loop, stmts):
        """``loop`` (the last of ``stmts``) with its ``else`` run when no ``break`` of its own ended it."""
        orelse, loop.orelse = loop.orelse, []
        breaks = list(_own_breaks(loop.body, loop, "body"))
        if not breaks:
            return stmts + orelse
        flag = self.name("nobreak")
        for parent, field, index in reversed(breaks):
            stmt = getattr(parent, field)[index]
            clear = _at(ast.Assign(targets=[_store(flag, stmt)], value=_at(ast.Constant(value=False), stmt)), stmt)
            getattr(parent, field).insert(index, clear)
        init = _at(ast.Assign(targets=[_store(flag, loop)], value=_at(ast.Constant(value=True), loop)), loop)
        test = _at(ast.If(test=_load(flag, loop), body=orelse, orelse=[]), orelse[0])
        return [init] + stmts + [test]


def _own_breaks(stmts, parent, field):
    """(parent, field, index) of each ``break`` in ``stmts`` that ends the enclosing loop (not an inner one)."""
    for index, s in enumerate(stmts):
        if isinstance(s, ast.Break):
            yield parent, field, index
        elif not isinstance(s, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for sub in ("body", "orelse", "finalbody"):
                inner = getattr(s, sub, None)
                if isinstance(inner, list):
                    yield from _own_breaks(inner, s, sub)
        elif isinstance(s, (ast.For, ast.While)) and s.orelse:
            yield from _own_breaks(s.orelse, s, "orelse")   # an inner loop's else belongs to the outer loop's body


_MATCH = getattr(ast, "Match", None)              # Python 3.10+


def _unsupported_pattern(p):
    """What in pattern ``p`` kernels cannot match (in words), else None."""
    if isinstance(p, (ast.MatchValue, ast.MatchSingleton)):
        return None
    if isinstance(p, ast.MatchAs):
        return None if p.pattern is None else _unsupported_pattern(p.pattern)
    if isinstance(p, ast.MatchOr):
        return next(filter(None, map(_unsupported_pattern, p.patterns)), None)
    kinds = {"MatchSequence": "a sequence pattern", "MatchMapping": "a mapping pattern",
             "MatchClass": "a class pattern", "MatchStar": "a starred pattern"}
    return f"the match statement with {kinds.get(type(p).__name__, type(p).__name__)}"


def _pattern_test(p, subject):
    """(test expression or None when ``p`` always matches, names it captures) for ``subject`` matched by ``p``."""
    if isinstance(p, ast.MatchValue):
        return _at(ast.Compare(left=_load(subject.id, p), ops=[ast.Eq()], comparators=[p.value]), p), []
    if isinstance(p, ast.MatchSingleton):
        value = _at(ast.Constant(value=p.value), p)
        return _at(ast.Compare(left=_load(subject.id, p), ops=[ast.Is()], comparators=[value]), p), []
    if isinstance(p, ast.MatchAs):
        test, names = (None, []) if p.pattern is None else _pattern_test(p.pattern, subject)
        return test, names + ([p.name] if p.name else [])
    tests, names = [], []                          # MatchOr: Python makes every alternative bind the same names
    for alt in p.patterns:
        test, alt_names = _pattern_test(alt, subject)
        if test is None:
            return None, alt_names
        tests.append(test)
        names = alt_names
    return _at(ast.BoolOp(op=ast.Or(), values=tests), p), names


class _Substitute(ast.NodeTransformer):
    """Loads of captured names in a guard read the subject: the capture is bound only when the case runs."""
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.names:
            return _at(ast.Name(id=self.names[node.id], ctx=ast.Load()), node)
        return node


def _ndenumerate(node):
    """``<numpy module>.ndenumerate(a)``: iterated as a.flat with np.unravel_index's index tuples."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "ndenumerate" \
        and len(node.args) == 1 and not node.keywords


def _flat(node):
    return isinstance(node, ast.Attribute) and node.attr == "flat"


def _builtin_call(node, *names):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


def _at(new, old):
    return ast.fix_missing_locations(ast.copy_location(new, old))


def _load(name, where):
    return _at(ast.Name(id=name, ctx=ast.Load()), where)


def _store(name, where):
    return _at(ast.Name(id=name, ctx=ast.Store()), where)

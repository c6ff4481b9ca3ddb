"""Delta debugging over a program's AST: drop functions and statements, hoist branch and loop bodies, replace
expressions by a sub-expression or a literal of the same Numba type (nodes carry ``_ty``, so typing never
changes), keep every change under which the divergence persists. Candidates are judged many at a time (one
compilation per batch of candidates); the edits that each keep the divergence are then tried together, halving
the set when the combination loses it (ddmin)."""
import ast
import copy
import itertools
import re

import gen_expr
import nbtypes as nt
import oracle
from scope import Tup

BATCH = 48


def _number(tree):
    for i, node in enumerate(ast.walk(tree)):
        node._id = i


def _index(tree):
    return {getattr(n, "_id", None): n for n in ast.walk(tree)}


def _blocks(tree):
    """(owner, field) of every statement list."""
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                yield node, field


def _kept(node):
    return getattr(node, "_keep", False)


def literal_of(ty):
    """The simplest expression of Numba type ty."""
    if ty == "bool":
        return gen_expr.const(False, ty)
    if ty == "int64":
        return gen_expr.const(0, ty)
    if ty == "float64":
        return gen_expr.const(0.0, ty)
    if ty == "complex128":
        return gen_expr.const(0j, ty)
    if isinstance(ty, str) and ty in nt.ALL:
        inner = "int64" if nt.is_int(ty) else "float64" if ty == "float32" else "complex128"
        return gen_expr.call(ty, [literal_of(inner)], ty)
    return None


def _subexprs_of_type(node, ty):
    out = []
    for sub in ast.walk(node):
        if sub is not node and getattr(sub, "_ty", None) == ty and not isinstance(sub.ctx if hasattr(sub, "ctx")
                                                                                 else None, ast.Store):
            out.append(sub)
    return out


def _size(tree):
    return sum(1 for _ in ast.walk(tree))


def edits(tree):
    """Single edits, largest first: (kind, target id, payload)."""
    out = []
    mod = tree
    for i, fn in enumerate(mod.body):
        if fn.name != "prog":
            out.append(("drop_fn", fn._id, None))
    for owner, field in _blocks(tree):
        for s in getattr(owner, field):
            if _kept(s):
                continue
            out.append(("drop_stmt", s._id, None))
            if getattr(s, "_with_next", False):
                out.append(("drop_pair", s._id, None))
            if isinstance(s, (ast.If, ast.For, ast.While)):
                out.append(("hoist", s._id, "body"))
                if s.orelse:
                    out.append(("hoist", s._id, "orelse"))
                    out.append(("drop_else", s._id, None))
    exprs = []
    for node in ast.walk(tree):
        ty = getattr(node, "_ty", None)
        if not isinstance(node, ast.expr) or ty is None or isinstance(getattr(node, "ctx", None), ast.Store):
            continue
        if _kept(node) or isinstance(ty, tuple):
            continue
        if isinstance(node, ast.Constant) or (isinstance(node, ast.Call) and gen_expr.is_literal(node.args[0])
                                              if isinstance(node, ast.Call) and node.args else False):
            continue
        for sub in _subexprs_of_type(node, ty)[:6]:
            exprs.append((_size(node) - _size(sub), ("replace", node._id, sub._id)))
        if literal_of(ty) is not None:
            exprs.append((_size(node), ("literal", node._id, None)))
    exprs.sort(key=lambda x: -x[0])
    out += [e for _, e in exprs]
    return out


def _protected(tree):
    """Ids of nodes inside protected constructs (loop bounds, while tests, shared-array prologues)."""
    prot = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.While):
            for sub in ast.walk(node.test):
                prot.add(sub._id)
        if isinstance(node, ast.For):
            for sub in ast.walk(node.iter):
                prot.add(sub._id)
        if _kept(node):
            for sub in ast.walk(node):
                prot.add(sub._id)
    return prot


def apply(tree, chosen):
    """A copy of tree with the edits applied (edits whose target is gone are skipped)."""
    new = copy.deepcopy(tree)
    idx = _index(new)
    parents = {}
    for node in ast.walk(new):
        for child in ast.iter_child_nodes(node):
            parents[child._id] = node
    for kind, target, payload in chosen:
        node = idx.get(target)
        if node is None or target not in parents and kind != "drop_fn":
            continue
        parent = parents.get(target)
        if kind == "drop_fn":
            if node in new.body:
                new.body.remove(node)
        elif kind in ("drop_stmt", "hoist"):
            for field in ("body", "orelse"):
                stmts = getattr(parent, field, None)
                if isinstance(stmts, list) and node in stmts:
                    i = stmts.index(node)
                    repl = getattr(node, payload) if kind == "hoist" else []
                    stmts[i:i + 1] = repl
                    if not stmts and field == "body":
                        stmts.append(ast.Pass())
        elif kind == "drop_pair":
            for field in ("body", "orelse"):
                stmts = getattr(parent, field, None)
                if isinstance(stmts, list) and node in stmts:
                    i = stmts.index(node)
                    stmts[i:i + 2] = []
                    if not stmts and field == "body":
                        stmts.append(ast.Pass())
        elif kind == "drop_else":
            node.orelse = []
        elif kind in ("replace", "literal"):
            repl = literal_of(node._ty) if kind == "literal" else copy.deepcopy(idx.get(payload))
            if repl is None:
                continue
            for sub in ast.walk(repl):
                if not hasattr(sub, "_id"):
                    sub._id = -1
            _replace_child(parent, node, repl)
    return new


def _replace_child(parent, old, new):
    for field, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
            return
        if isinstance(value, list):
            for i, v in enumerate(value):
                if v is old:
                    value[i] = new
                    return


def error_key(text):
    """What identifies an error across reductions: its class and first message line, names and numbers out."""
    first = next((ln for ln in text.splitlines() if "error" in ln.lower()), text.splitlines()[0] if text else "")
    first = re.sub(r"/\S+", "", first)
    first = re.sub(r"'[^']*'|‘[^’]*’|\"[^\"]*\"", "Q", first)
    first = re.sub(r"\b[A-Za-z_]*\d+[A-Za-z_0-9]*\b|\d+", "N", first)
    return first.strip()[:100]


class Reducer:
    """Shrinks one divergent program. ``judge(programs) -> [verdict]`` runs candidates (a batch) on the backend
    that diverged and returns, per candidate, (kind, detail) or None; ``valid(program)`` is the oracle."""

    def __init__(self, program, verdict, judge_batch, log=None):
        self.kind, self.detail = verdict
        self.key = error_key(self.detail) if self.kind == "error" else None
        self.judge_batch = judge_batch
        self.log = log or (lambda *a: None)
        self.program = program
        _number(self.program.tree)

    def same(self, verdict):
        if verdict is None or verdict[0] != self.kind:
            return False
        return self.key is None or error_key(verdict[1]) == self.key

    def _candidates(self, tree, chosen_sets):
        """The trees the edit sets make; an edit set that changes nothing gives None (judged not to diverge)."""
        progs = []
        before = ast.unparse(tree)
        for chosen in chosen_sets:
            t = apply(tree, chosen)
            _renumber_new(t)
            progs.append(None if ast.unparse(t) == before else t)
        return progs

    def run(self, max_rounds=60):
        tree = self.program.tree
        for rnd in range(max_rounds):
            prot = _protected(tree)
            singles = [e for e in edits(tree) if e[1] not in prot]
            if not singles:
                break
            good = []
            for i in range(0, len(singles), BATCH):
                chunk = singles[i:i + BATCH]
                verdicts = self.judge_batch(self._candidates(tree, [[e] for e in chunk]))
                good += [e for e, v in zip(chunk, verdicts) if self.same(v)]
                if len(good) >= 12:
                    break
            if not good:
                break
            tree = self._combine(tree, good)
            self.log(f"round {rnd}: {len(good)} edits kept, size {_size(tree)}")
        self.program.tree = tree
        self.program._text = None
        return self.program

    def _combine(self, tree, good):
        """Apply as many of the good single edits together as keep the divergence (halving on failure)."""
        todo = [good]
        while todo:
            group = todo.pop(0)
            cand = self._candidates(tree, [group])[0]
            if self.same(self.judge_batch([cand])[0]):
                return cand
            if len(group) == 1:
                continue
            half = len(group) // 2
            todo = [group[:half], group[half:]] + todo
        return self._candidates(tree, [[good[0]]])[0]


def _renumber_new(tree):
    _number(tree)

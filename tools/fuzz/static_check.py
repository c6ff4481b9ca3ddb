"""Checks the oracle cannot make on code it never runs: every call of a module function passes an argument
count it takes, every name read is bound somewhere it can be seen. A reduced candidate that fails them would be
refused by Numba too, so it is no valid program."""
import ast

import nbtypes as nt

ENV_NAMES = {"cuda", "math", "cmath", "range", "abs", "min", "max", "round", "int", "float", "bool", "complex",
             "len", "boolean"} | set(nt.ALL)


def _bound_in(fn):
    names = {a.arg for a in fn.args.args}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.Lambda)) and node is not fn:
            if isinstance(node, ast.FunctionDef):
                names.add(node.name)
            names |= {a.arg for a in node.args.args}
    return names


def ok(tree):
    """Whether the module passes the checks."""
    funcs = {fn.name: fn for fn in tree.body if isinstance(fn, ast.FunctionDef)}
    visible_globals = set(funcs) | ENV_NAMES
    for fn in funcs.values():
        bound = _bound_in(fn) | visible_globals
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in bound:
                return False
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in funcs \
                    and node.func.id not in _bound_in(fn):
                callee = funcs[node.func.id]
                total = len(callee.args.args)
                required = total - len(callee.args.defaults)
                if not required <= len(node.args) <= total:
                    return False
    return True

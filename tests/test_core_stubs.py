"""python/cudajit/_core.pyi against the compiled module: the same public names, the same class members, and for
every function and method the parameter names pybind11 reports (tools/gen_core_stub.py rewrites the stub)."""
import ast
import inspect
import pathlib
import re

import pytest

import cudajit
from cudajit import _core

STUB = pathlib.Path(cudajit.__file__).parent / "_core.pyi"
# Dunders a class's stub spells out: construction and the protocols Python code uses.
_DUNDERS = {"__init__", "__call__", "__len__"}


def _stub():
    tree = ast.parse(STUB.read_text())
    names, classes = {}, {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            classes[node.name] = {}
            for m in node.body:
                if isinstance(m, ast.FunctionDef):
                    classes[node.name].setdefault(m.name, []).append(m)
                elif isinstance(m, ast.AnnAssign):
                    classes[node.name][m.target.id] = []
            names[node.name] = node
        elif isinstance(node, ast.FunctionDef):
            names.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.AnnAssign):
            names[node.target.id] = node
    return names, classes


def _public(names):
    return {n for n in names if not n.startswith("_")}


def _member_names(cls):
    return {n for n in vars(cls) if not n.startswith("_") or n in _DUNDERS} - _no_signature(cls)


def _no_signature(cls):
    """Members Python cannot call with arguments it chooses: a class without a bound constructor."""
    init = vars(cls).get("__init__")
    return {"__init__"} if init is not None and not _signatures(init.__doc__) else set()


def _signatures(doc):
    """Parameter names of each overload in a pybind11 docstring, ``self`` and ``*args``/``**kwargs`` included."""
    out = []
    for line in (doc or "").splitlines():
        m = re.match(r"^(?:\d+\. )?\w+\((.*)\) -> .+$", line)
        if m:
            params = re.sub(r"\[[^\[\]]*\]", "", m.group(1))        # drop subscripts: their commas are not params'
            params = re.sub(r"\[[^\[\]]*\]", "", params)
            out.append([p.split(":")[0].split("=")[0].strip() for p in params.split(",") if p.strip()])
    return out


def _stub_params(fn):
    a = fn.args
    params = [p.arg for p in a.posonlyargs + a.args]
    if a.vararg:
        params.append("*" + a.vararg.arg)
    params += [p.arg for p in a.kwonlyargs]
    if a.kwarg:
        params.append("**" + a.kwarg.arg)
    return params


def test_every_public_name_of_the_module_is_in_the_stub_and_back():
    names, _ = _stub()
    assert sorted(_public(dir(_core)) - set(names)) == [], "in _core but not in _core.pyi (run tools/gen_core_stub.py)"
    assert sorted(_public(names) - set(dir(_core))) == [], "in _core.pyi but not in _core"


def test_class_members_match():
    _, classes = _stub()
    for name, members in classes.items():
        cls = getattr(_core, name)
        assert inspect.isclass(cls), f"{name} is a class in the stub, not in _core"
        assert sorted(_member_names(cls) - set(members)) == [], f"{name}: members missing from the stub"
        assert sorted(set(members) - _member_names(cls)) == [], f"{name}: stub members _core lacks"


def _callables():
    names, classes = _stub()
    for name, defs in names.items():
        if isinstance(defs, list):
            yield name, getattr(_core, name).__doc__, defs
    for cname, members in classes.items():
        for name, defs in members.items():
            attr = getattr(getattr(_core, cname), name)
            if type(attr).__name__ == "wrapper_descriptor":   # a CPython slot the core sets (Launcher's call):
                continue                                       # no pybind11 signature to compare with
            if defs and "property" not in {getattr(d, "id", None) for d in defs[0].decorator_list}:
                yield f"{cname}.{name}", attr.__doc__, defs


def test_parameter_names_match_pybind11_signatures():
    checked = 0
    for qualname, doc, defs in _callables():
        want = [[p for p in sig if p != "self"] for sig in _signatures(doc)]
        got = [[p for p in _stub_params(d) if p != "self"] for d in defs]
        assert got == want, f"{qualname}: stub parameters {got}, pybind11 says {want}"
        checked += 1
    assert checked > 50        # every function of the module and every method of its classes


@pytest.mark.parametrize("name", ["nvrtc_compile", "cache_key"])
def test_parameter_check_catches_a_renamed_parameter(name):
    # The comparison above is not vacuous: a stub whose parameter was renamed fails it.
    _, doc, defs = next(c for c in _callables() if c[0] == name)
    renamed = ast.parse(ast.unparse(defs[0])).body[0]
    renamed.args.args[0].arg += "_renamed"
    assert [_stub_params(renamed)] != _signatures(doc)

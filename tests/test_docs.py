"""Every public name a user reaches from ``cudajit.cuda`` has a docstring of its own that says something, and
``help(cuda.jit)`` documents every option ``cuda.jit`` accepts."""
import inspect
import re
import types

import pytest

from cudajit import cuda
from cudajit.compiler import intrinsics
from cudajit.compiler import types as nbtypes
from cudajit.cuda import kernelapi

MIN_DOC = 25   # characters: more than a name repeated


def _public(obj):
    return {n: getattr(obj, n) for n in dir(obj) if not n.startswith("_")}


def _cuda_names():
    """(dotted name, object) for every public name of cudajit.cuda, the placeholders' children and the public
    methods of its classes. Submodules (cuda.types, cuda.random) and type objects are data, not documented here."""
    out = []
    for name, obj in _public(cuda).items():
        if isinstance(obj, (types.ModuleType, nbtypes.Type)):     # dir(cuda) lists the type objects too
            continue
        out.append((f"cuda.{name}", obj))
        if isinstance(obj, kernelapi.Intrinsic):
            stack = [(f"cuda.{name}", obj)]
            while stack:
                path, node = stack.pop()
                for child_name, child in vars(node).items():
                    if isinstance(child, kernelapi.Intrinsic):
                        out.append((f"{path}.{child_name}", child))
                        stack.append((f"{path}.{child_name}", child))
        elif inspect.isclass(obj) and obj.__module__.startswith("cudajit") and not issubclass(obj, BaseException):
            for meth_name, meth in vars(obj).items():
                if not meth_name.startswith("_") and (inspect.isfunction(meth) or isinstance(meth, property)):
                    out.append((f"cuda.{name}.{meth_name}", meth))
    return out


NAMES = _cuda_names()


@pytest.mark.parametrize("name,obj", NAMES, ids=[n for n, _ in NAMES])
def test_public_name_has_its_own_docstring(name, obj):
    doc = obj.__doc__ if isinstance(obj, (kernelapi.Intrinsic, property)) else inspect.getdoc(obj)
    assert doc and len(doc.strip()) >= MIN_DOC, f"{name} has no docstring worth the name: {doc!r}"
    if isinstance(obj, kernelapi.Intrinsic):
        assert doc != kernelapi.Intrinsic.__doc__, f"{name} only has the placeholder class's docstring"


def test_placeholder_docstrings_are_all_different():
    docs = [obj.__doc__ for _, obj in NAMES if isinstance(obj, kernelapi.Intrinsic)]
    assert len(docs) > 90 and len(set(docs)) == len(docs)


def test_every_cuda_registry_entry_is_documented():
    undocumented = [n for n, e in intrinsics.REGISTRY.items() if n.startswith("cuda.") and not e.doc]
    assert not undocumented


def test_random_kernel_functions_are_documented():
    from cudajit.cuda import random
    for name in ("xoroshiro128p_uniform_float32", "xoroshiro128p_normal_float64", "xoroshiro128p_next"):
        assert getattr(random, name).__doc__ == intrinsics.REGISTRY[f"cuda.random.{name}"].doc


def test_jit_docstring_names_every_option():
    params = [p for p in inspect.signature(cuda.jit).parameters.values()
              if p.kind is not p.VAR_KEYWORD and p.name != "func_or_sig"]
    options = [p.name for p in params] + ["boundscheck", "nopython", "extensions"]
    documented = set(re.findall(r"^\s{6}(\w+)(?:,\s*(\w+))?:", cuda.jit.__doc__, flags=re.M))
    documented = {n for pair in documented for n in pair if n}
    missing = [o for o in options if o not in documented and not (o == "forceinline" and "forceinline" in cuda.jit.__doc__)]
    assert not missing, f"cuda.jit's docstring does not describe: {missing}"
    assert "CUDAJIT_BOUNDSCHECK" in cuda.jit.__doc__

"""The names kernels use from ``cuda``: ``threadIdx``, ``grid``, ``shared.array``, ``atomic.add`` …

Each is a placeholder object: the compiler recognises it (by its path under ``cudajit.cuda``)
and emits the intrinsic; called from host code it raises, as in Numba. The placeholders and their
docstrings are made from the compiler's intrinsic registry, so a name is defined once, there.
``cuda.random``'s kernel functions are placeholders too (random.py), documented the same way.
"""
from ..compiler.intrinsics import NAMESPACE_DOCS, REGISTRY


class Intrinsic:
    """A kernel-only name such as ``cuda.syncthreads`` or ``cuda.atomic.add``; its docstring says what it does."""

    def __init__(self, path, **children):
        self._path = path
        entry = REGISTRY.get("cuda." + path)
        self.__doc__ = entry.doc if entry is not None else NAMESPACE_DOCS.get("cuda." + path)
        for name, child in children.items():
            setattr(self, name, child)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"cuda.{self._path} can only be used inside a @cuda.jit kernel or device function")

    def __repr__(self):
        return f"<cudajit intrinsic cuda.{self._path}>"


def _placeholders():
    """{top-level name: Intrinsic} for every ``cuda.*`` registry entry; ``cuda.atomic.add`` becomes the ``add``
    child of ``atomic``. cuda.random's entries belong to the cuda.random module instead."""
    tree = {}
    for name in REGISTRY:
        if name.startswith("cuda.") and not name.startswith(("cuda.random.", "cuda._")):
            node = tree
            for part in name.split(".")[1:]:
                node = node.setdefault(part, {})

    def build(path, children):
        return Intrinsic(path, **{name: build(f"{path}.{name}", sub) for name, sub in children.items()})

    return {name: build(name, children) for name, children in tree.items()}


globals().update(_placeholders())

__all__ = [n for n, v in dict(globals()).items() if isinstance(v, Intrinsic)]

"""The record every robustness case is: a snippet and what the specification (issue 10, numba-cuda's documentation)
says must happen. Each category module (``cases_*.py``) holds a list ``CASES`` of these records.

A snippet runs after ``PREAMBLE``. Words of an expected message are matched case-insensitively; ``a|b`` accepts
either spelling; ``{file}`` stands for the case's own source file (kernels defined in the snippet report it).
"""
import textwrap
from dataclasses import dataclass, field

PREAMBLE = ("import numpy as np\n"
            "from cudajit import cuda\n"
            "import shared_kernels as K\n"
            "rng = np.random.default_rng(1234)\n")

# Texts that mark a message no user should see, whatever words it also holds.
VAGUE_MARKERS = ("incompatible function arguments", "Unable to cast", "C++ type", "returned a result with an exception set",
                 "<built-in method")


@dataclass(frozen=True)
class Case:
    name: str
    code: str
    raises: tuple = ()          # accepted exception class names (any class in the raised one's MRO)
    words: tuple = ()           # words the message must contain
    check: str = ""             # an expression that must be true after a return (with ``raises``: either outcome is ok)
    warns: tuple = ()           # words a warning raised during the snippet must contain
    mode: str = "fork"          # "fork" or "subprocess" (a fresh interpreter: environment read at import)
    env: dict = field(default_factory=dict)
    timeout: float = 20.0
    backends: tuple = ("cpu", "gpu")
    category: str = ""
    fails_as: str = "silent-wrong"   # what a failed check counts as: "leak" for a case that checks what is left behind

    @property
    def source(self):
        return PREAMBLE + textwrap.dedent(self.code).strip("\n") + "\n"


def snippet(*parts):
    """Joins code parts written at different indentations (a shared setup line, then a block)."""
    return "\n".join(textwrap.dedent(p).strip("\n") for p in parts)


def raises(name, code, exc, *words, **kw):
    """A case whose snippet must raise ``exc`` (a class name, or a tuple of names) with ``words`` in its message."""
    exc = (exc,) if isinstance(exc, str) else tuple(exc)
    return Case(name, code, raises=exc, words=words, **kw)


def returns(name, code, check, **kw):
    """A case whose snippet must return and leave ``check`` true (results compared with NumPy)."""
    return Case(name, code, check=check, **kw)


def with_category(category, cases):
    names = [c.name for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"duplicate case names in {category}: {sorted(dup)}")
    return [Case(**{**c.__dict__, "category": category}) for c in cases]

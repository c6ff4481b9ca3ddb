"""The translator's structure (issue 39): one FunctionState shared by named parts, and a narrow interface for
intrinsics, instead of mixins sharing attributes through ``self``."""
import pathlib
import re

import numpy as np

from cudajit import cuda
from cudajit.compiler import fnstate, translator

COMPILER = pathlib.Path(translator.__file__).parent
PARTS = {"dataflow.py": "Dataflow", "expressions.py": "Expressions", "calls.py": "Calls", "indexing.py": "Indexing",
         "loops.py": "Loops", "evalorder.py": "EvalOrder", "closures.py": "Closures"}


def test_intrinsics_use_only_their_interface():
    allowed = {"error", "unsupported", "emit", "state"} | {n for names in translator.INTRINSIC_INTERFACE.values()
                                                        for n in names}
    used = {}
    for path in COMPILER.glob("*.py"):
        for name in re.findall(r"(?<![\w.])cx\.(\w+)", path.read_text()):
            used.setdefault(name, set()).add(path.name)
    outside = {n: sorted(f) for n, f in used.items() if n not in allowed}
    assert not outside, f"intrinsics reach past their interface: {outside}"


def test_parts_keep_no_state_of_their_own():
    # a part holds its translator and the state; everything else the function knows is a FunctionState field
    for name, cls in PARTS.items():
        text = (COMPILER / name).read_text()
        body = text[text.index(f"class {cls}:"):].split("\nclass ")[0]
        own = set(re.findall(r"\bself\.(\w+)(?:, self\.\w+)*\s*(?:=|\+=|-=)(?!=)", body))
        assert own <= {"fn"}, (name, own)


def _kernel(a, out):
    i = cuda.grid(1)
    if i < a.size:
        s = 0.0
        for k in range(3):
            s += a[i] * k
        out[i] = s


def test_the_translator_holds_its_parts_and_the_state_only(backend, rng):
    seen = []
    real = translator.FunctionTranslator.translate

    def spy(self):
        seen.append(self)
        return real(self)
    translator.FunctionTranslator.translate = spy
    try:
        a, out = rng.standard_normal(64), np.zeros(64)
        cuda.jit(_kernel)[1, 64](a, out)
    finally:
        translator.FunctionTranslator.translate = real
    np.testing.assert_allclose(out, a * 3)
    tr = seen[0]
    assert isinstance(tr.state, fnstate.FunctionState)
    data = {k for k, v in vars(tr).items() if not callable(v)}
    assert data == {"state", "flow", "exprs", "calls", "index", "loop_stmts", "order", "closures", "statements",
                    "expressions"}
    assert all(part.st is tr.state and part.fn is tr for part in (tr.flow, tr.exprs, tr.calls, tr.index,
                                                                 tr.loop_stmts, tr.order, tr.closures))

"""Python's order of evaluation inside one expression, where a debug kernel can tell it (debug=True only).

Under debug=True a raise ends the thread where it happens (debug.h, ``debug_raise``: a zero divisor, a checked index,
``raise``/``assert``, a device function that raises), so what Python would have done before it is done and nothing
after it is. Between statements, and between a store and the value it stores, C++ already keeps Python's order
(C++17 evaluates the right side of ``=`` first). Inside an expression it does not: the operands of ``+`` and the
arguments of a call are unsequenced. The order shows when one of them has a side effect (a device function, which
may write an array; an atomic; a barrier) and another one may raise or has a side effect too:
``r[0] = f(a) + y / x`` must run ``f`` before the division raises, and ``r[0] = y / x + f(a)`` must not run it.

Each place that combines operands (a binary operator, a comparison, a call, a subscript, a tuple) measures the effects
its operands' translation noted (``note_effect``); where such a pair meets, the effectful operands before the last
one are held in temporaries assigned first, in a comma expression: ``(cj_seq1 = f(a), cj_seq1 + y /
cj::check_divisor(2, x))``. Operands that may only raise are left alone: a thread that would fail at two of them may
report either error. Without debug nothing is noted and the code is unchanged.
"""
from . import types as T
from .values import Value


class EvalOrder:
    def __init__(self, fn):
        self.fn, self.st = fn, fn.state     # the function translator and the state they share

    def note_effect(self, writes=False, raises=False):
        """The operation being translated writes memory or synchronises (``writes``) or may raise (``raises``)."""
        if self.st.program.options.debug:
            self.st.fx_writes += bool(writes)
            self.st.fx_raises += bool(raises)

    def effects_mark(self):
        return self.st.fx_writes, self.st.fx_raises

    def effects_since(self, mark):
        return self.st.fx_writes - mark[0], self.st.fx_raises - mark[1]

    def needs_order(self, effects):
        """The indices of the operands to hold in temporaries, given each operand's (writes, raises) in Python's
        order: those with an effect before the last such one, where a side effect is among them."""
        if not (self.st.final and self.st.program.options.debug):
            return []
        live = [k for k, (w, r) in enumerate(effects) if w or r]
        if len(live) < 2 or not any(effects[k][0] for k in live):
            return []
        return live[:-1]

    def in_python_order(self, result, compute, operands, effects, own=(0, 0)):
        """``result`` (= ``compute(operands)``), or the same computed from temporaries that take the effectful
        operands first, when C++'s order could differ from Python's. ``effects``: what each operand's translation
        noted; ``own``: what ``compute`` noted itself (the operation's own raise, which C++ may evaluate among the
        operands: ``check_divisor`` wraps the divisor), counted with the last operand."""
        if not operands:
            return result
        effects = list(effects)
        effects[-1] = (effects[-1][0] + own[0], effects[-1][1] + own[1])
        first = self.needs_order(effects)
        if not first or not isinstance(result, Value) or not result.code or result.type == T.undefined:
            return result
        held, prefix = list(operands), []
        for k in first:
            v = operands[k]
            if not (isinstance(v, Value) and T.is_scalar(v.type) and v.code):
                continue                     # an array or tuple operand keeps C++'s order (not a scalar temporary)
            name = self.fn.temp("seq")
            self.st.top_lines.append(f"{v.type.cpp} {name};")
            prefix.append(f"{name} = {v.code}")
            held[k] = Value(v.type, name, nonneg=v.nonneg)
        if not prefix:
            return result
        r = compute(held)
        return Value(r.type, f"({', '.join(prefix)}, {r.code})", nonneg=r.nonneg, lvalue=r.lvalue)

"""Checks nbtypes.py against numba-cuda's own CUDA typing context (needs numba-cuda; no GPU): every operator on
every pair of scalar types. Run: NUMBA_ENABLE_CUDASIM=0 /path/to/venv-with-numba/bin/python tools/fuzz/check_typing.py
Prints the disagreements and, last, 'N signatures, M disagreements'."""
import itertools
import operator
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nbtypes  # noqa: E402
from numba.cuda import types  # noqa: E402
from numba.cuda.descriptor import cuda_target  # noqa: E402

OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
       "%": operator.mod, "**": operator.pow, "<<": operator.lshift, ">>": operator.rshift, "&": operator.and_,
       "|": operator.or_, "^": operator.xor, "<": operator.lt, "<=": operator.le, ">": operator.gt,
       ">=": operator.ge, "==": operator.eq, "!=": operator.ne}
UNARY = {"-u": operator.neg, "+u": operator.pos, "~": operator.invert, "not": operator.not_}


def numba_sig(ctx, fn, args):
    try:
        sig = ctx.resolve_function_type(fn, tuple(getattr(types, a if a != "bool" else "boolean") for a in args), {})
    except Exception:
        return None
    if sig is None:
        return None
    name = lambda t: "bool" if str(t) == "bool" else str(t)
    return name(sig.return_type), tuple(name(t) for t in sig.args)


def main():
    ctx = cuda_target.typing_context
    ctx.refresh()
    scalars = [t for t in nbtypes.ALL if t != "float16"]
    n = bad = 0
    for op, fn in OPS.items():
        for a in scalars:
            for b in scalars:
                n += 1
                got, want = nbtypes.op_signature(op, (a, b)), numba_sig(ctx, fn, (a, b))
                if got != want:
                    bad += 1
                    print(f"{a} {op} {b}: ours {got}, numba {want}")
    for op, fn in UNARY.items():
        for a in scalars:
            n += 1
            got, want = nbtypes.op_signature(op, (a,)), numba_sig(ctx, fn, (a,))
            if got != want:
                bad += 1
                print(f"{op} {a}: ours {got}, numba {want}")
    n2, bad2 = check_calls(ctx, scalars)
    print(f"{n + n2} signatures, {bad + bad2} disagreements")


def _sample(t):
    from values import V
    return V(t, True if t == "bool" else 1 if t[0] in "iu" else 0.5 if t[0] == "f" else 0.5 + 0.25j)


def _ours(fn, args):
    import numeric
    from values import Uncertain
    vals = [_sample(a) for a in args]
    if fn.__name__ == "range_" and len(args) == 2:
        vals[0].v = False if args[0] == "bool" else 0
    try:
        r = fn(*vals)
    except (TypeError, numeric.Undefined, Uncertain):
        return None
    if hasattr(r, "__next__"):
        r = next(r, None)
        if r is None:
            print("empty", args); return None
    if isinstance(r, tuple):
        return tuple(x.t for x in r)
    return r.t


def _theirs(ctx, fn, args):
    sig = numba_sig(ctx, fn, args)
    if sig is None:
        return None
    r = sig[0]
    if r.startswith("range_state_"):
        return r[len("range_state_"):]
    if r.startswith("UniTuple(") or r.startswith("Tuple("):
        import re
        inner = re.findall(r"[a-z]+[0-9]*", r[r.index("(") + 1:])
        if r.startswith("UniTuple("):
            return (inner[0],) * int(r.rsplit(" x ", 1)[1].rstrip(")"))
        return tuple(inner)
    return r


def check_calls(ctx, scalars):
    """Builtins, math and cmath: our oracle's result type against numba-cuda's signature."""
    import cmath
    import math
    import oracle_builtins as ob
    env = ob.make_builtins()
    om, oc = ob.make_math(), ob.make_cmath()
    calls = [(abs, env["abs"], 1), (min, env["min"], 2), (max, env["max"], 2), (round, env["round"], 1),
             (int, env["int"], 1), (float, env["float"], 1), (bool, env["bool"], 1), (complex, env["complex"], 1),
             (complex, env["complex"], 2), (range, env["range"], 1), (range, env["range"], 2)]
    for name in list(ob._MATH) + ["isnan", "isinf", "isfinite", "modf", "frexp", "ldexp", "nextafter"]:
        arity = 2 if name in ("atan2", "hypot", "copysign", "fmod", "remainder", "pow", "ldexp", "nextafter") else 1
        calls.append((getattr(math, name), getattr(om, name), arity))
    for name in ["acos", "asin", "asinh", "atan", "atanh", "cos", "exp", "sin", "sqrt", "tan", "log", "isnan",
                 "isinf", "isfinite"]:
        calls.append((getattr(cmath, name), getattr(oc, name), 1))
    n = bad = unsupported = 0
    for real, ours, arity in calls:
        for args in itertools.product(scalars, repeat=arity):
            n += 1
            got, want = _ours(ours, args), _theirs(ctx, real, args)
            if got is None and want is not None:
                unsupported += 1          # the oracle refuses what the generator never writes
            elif got != want:
                bad += 1
                print(f"{getattr(real, '__name__', real)}{args}: ours {got}, numba {want}")
    print(f"{unsupported} signatures numba-cuda has and the oracle refuses")
    return n, bad


if __name__ == "__main__":
    main()

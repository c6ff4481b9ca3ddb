"""The ``operator`` module inside kernels (Numba supports it): ``operator.mul(a, b)`` is ``a * b``, typed and
emitted as the operator itself (operators.py). Mostly met as a value: ``apply(operator.mul, x, y)`` passes the
function to a device function (types.FunctionValue), which calls it."""
from .registry import expect_args, intrinsic
from .operators import binary, compare, unary

_BINARY = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**",
           "lshift": "<<", "rshift": ">>", "and_": "&", "or_": "|", "xor": "^"}
_COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
_UNARY = {"neg": "-", "pos": "+", "invert": "~", "inv": "~", "not_": "not"}


def _entry(name, op, emit, arity):
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, f"operator.{name}", args, arity)
        return emit(cx, node, op, *(cx.as_value(node, a) for a in args))
    operands = "a, b" if arity == 2 else "a"
    infix = f"a {op} b" if arity == 2 else f"{op} a" if op == "not" else f"{op}a"
    intrinsic(f"operator.{name}", doc=f"operator.{name}({operands}): {infix}, as the operator in a kernel.")(impl)


for _name, _op in _BINARY.items():
    _entry(_name, _op, binary, 2)
    if _name != "and_" and _name != "or_":
        _entry(f"i{_name}", _op, binary, 2)      # numbers are immutable: operator.iadd(a, b) is a + b
for _name, _op in (("iand", "&"), ("ior", "|")):
    _entry(_name, _op, binary, 2)
for _name, _op in _COMPARE.items():
    _entry(_name, _op, compare, 2)
for _name, _op in _UNARY.items():
    _entry(_name, _op, unary, 1)

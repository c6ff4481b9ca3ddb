"""Compile errors that name the user's file and line:
``<file>:<line>: <what>\\n    <the source line>\\nhint: <what to do instead>``."""
import ast

from ..errors import RequireLiteralValueError, TypingError, UnsupportedError


class SourceLocation:
    """Where a function's source lives: file name, first line number, and its lines (for quoting)."""
    def __init__(self, filename, firstlineno, lines, function=None):
        self.filename, self.firstlineno, self.lines = filename, firstlineno, lines
        self.function = function        # the function's name (a raise's message names it, as Numba's)

    def lineno(self, node):
        """The absolute line number of an AST node of the (dedented) function source."""
        return self.firstlineno + getattr(node, "lineno", 1) - 1

    def line_text(self, node):
        i = getattr(node, "lineno", 1) - 1
        return self.lines[i].strip() if 0 <= i < len(self.lines) else ""


def format_message(loc, node, what, hint=None):
    msg = f"{loc.filename}:{loc.lineno(node)}: {what}"
    text = loc.line_text(node) if loc is not None else ""
    if text:
        msg += f"\n    {text}"
    if hint:
        msg += f"\nhint: {hint}"
    return msg


def typing_error(loc, node, what, hint=None):
    return TypingError(format_message(loc, node, what, hint))


def require_literal(loc, node, what, hint=None):
    """A TypingError for a value needed as a compile-time constant: a device function's caller may supply it."""
    return RequireLiteralValueError(format_message(loc, node, what, hint))


def unsupported(loc, node, what, hint=None):
    return UnsupportedError(format_message(loc, node, what, hint))


# Python constructs kernels do not support, named for messages, and what to write instead.
_CONSTRUCT_NAMES = {
    ast.With: "the with statement", ast.Try: "try/except", ast.Raise: "raise", ast.Assert: "assert",
    ast.ClassDef: "defining a class inside a kernel",
    ast.Global: "the global statement", ast.Nonlocal: "the nonlocal statement", ast.Delete: "del",
    ast.Import: "import inside a kernel", ast.ImportFrom: "import inside a kernel",
    ast.AsyncFunctionDef: "async functions", ast.AsyncFor: "async for", ast.AsyncWith: "async with",
    ast.ListComp: "list comprehensions", ast.DictComp: "dict comprehensions",
    ast.SetComp: "set comprehensions", ast.GeneratorExp: "generator expressions", ast.List: "lists",
    ast.Dict: "dicts", ast.Set: "sets", ast.JoinedStr: "f-strings", ast.Yield: "yield", ast.YieldFrom: "yield",
    ast.Await: "await", ast.Starred: "starred expressions", ast.NamedExpr: "the := operator",
}
if hasattr(ast, "Match"):
    _CONSTRUCT_NAMES[ast.Match] = "the match statement"
CONSTRUCT_HINTS = {ast.List: "use a tuple, or cuda.local.array for a per-thread scratch array",
                   ast.ListComp: "use a for loop over range()", ast.Try: "check conditions with if instead",
                   ast.JoinedStr: "print the values as separate print() arguments"}


def describe_construct(node):
    """What the user wrote, in words, for "... is not supported" messages."""
    if getattr(node, "cj_unsupported", None):
        return node.cj_unsupported                  # a match the desugaring left (desugar.py)
    return _CONSTRUCT_NAMES.get(type(node), f"'{type(node).__name__}'")

"""Compile errors that name the user's file and line:
``<file>:<line>: <what>\\n    <the source line>\\nhint: <what to do instead>``."""
from ..errors import TypingError, UnsupportedError


class SourceLocation:
    """Where a function's source lives: file name, first line number, and its lines (for quoting)."""
    def __init__(self, filename, firstlineno, lines):
        self.filename, self.firstlineno, self.lines = filename, firstlineno, lines

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


def unsupported(loc, node, what, hint=None):
    return UnsupportedError(format_message(loc, node, what, hint))

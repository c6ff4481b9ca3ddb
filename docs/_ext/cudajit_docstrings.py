"""Docstrings as ``help()`` shows them, read as reStructuredText by autodoc.

cudajit's docstrings are written for ``help()``: a list of options or parameters is "  name: text" with its
continuation lines indented further, which reStructuredText reads as stray block quotes (warnings, and a build
with -W fails). This turns each such block into a bullet list with the name in code — the text stays as written.
"""
import re

_ITEM = re.compile(r"^  ([A-Za-z_*][\w.*]*(?:\([^)]*\))?(?:, [A-Za-z_*][\w.*]*)*): (.*)$")
_CONTINUATION = re.compile(r"^    +\S")


def _bulletise(lines):
    out, in_block, in_literal = [], False, False
    for line in lines:
        if in_literal:                              # a literal block (after "::") is left alone
            if line.strip() and not line.startswith(" "):
                in_literal = False
            else:
                out.append(line)
                continue
        m = _ITEM.match(line)
        if m:
            if not in_block and out and out[-1].strip():
                out.append("")
            in_block = True
            out.append(f"- ``{m.group(1)}``: {m.group(2)}")
            continue
        if in_block and _CONTINUATION.match(line):
            out.append("  " + line.strip())
            continue
        if in_block and line.strip():
            out.append("")                          # the list ends before the next paragraph
        in_block = False
        out.append(line)
        if line.rstrip().endswith("::"):
            in_literal = True
    return out


def process_docstring(app, what, name, obj, options, lines):
    # "file:line" reads as a URI of the scheme "file" to docutils, which would make it a link
    lines[:] = [line.replace("file:line", "file\\:line") for line in _bulletise(lines)]


def setup(app):
    app.connect("autodoc-process-docstring", process_docstring)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

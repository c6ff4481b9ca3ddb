"""How a divergence is shown and saved: a reproducer file (the program, its seed, what differed) that
``run.py --replay FILE`` runs again, and a compact listing (prog's unused parameters left out) to read."""
import ast
import os
import re

import batch

def compact(body):
    """The program with prog's parameters cut to those it uses (for reading; not runnable by the batch)."""
    tree = ast.parse(body)
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and fn.name == "prog":
            used = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
            fn.args.args = [a for a in fn.args.args if a.arg in used or a.arg == "t"]
    return ast.unparse(tree) + "\n"


def reproducer(div, program, backend, label, opts=None):
    lines = [f"# fuzz divergence: seed {div.seed}, against {div.against}, backend {backend}, kind {div.kind}",
             f"# {label}" if label else "#",
             "# " + div.detail.replace("\n", "\n# ")[:3000],
             f"# replay: python3 tools/fuzz/run.py --replay THIS_FILE --backend {backend}",
             f"# prog returns: {program.ret}",
             f"# generator options: {opts!r}" if opts is not None else "#",
             batch.HEADERS["cudajit"].rstrip("\n"),
             "# --- program"]
    return "\n".join(lines) + "\n" + program.body


def save(outdir, div, program, backend, label, opts=None):
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, "div_" + "_".join(map(str, div.seed)) + f"_{div.against}.py")
    with open(path, "w") as f:
        f.write(reproducer(div, program, backend, label, opts))
    return path


def parse_reproducer(path):
    """(seed tuple, prog's return type, program body) of a saved reproducer."""
    with open(path) as f:
        text = f.read()
    m = re.search(r"seed \((\d+), (\d+), (\d+), (\d+)\)", text)
    seed = tuple(int(x) for x in m.groups())
    ret = re.search(r"# prog returns: (\w+)", text).group(1)
    body = text.split("# --- program\n", 1)[1]
    return seed, ret, body



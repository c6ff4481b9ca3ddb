"""The import graph of python/cudajit with the imports inside functions counted too (issue 39): prints each strongly
connected set of modules (every circle), largest first, and the number of modules in circles.

    python3 tools/import_graph.py [--module-level-only]

tests/test_import_graph.py checks module-level imports; this tool shows what remains with function-level ones."""
import ast
import pathlib
import sys

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "python" / "cudajit"


def modules():
    out = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def edges(name, path, known, module_level_only):
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    nodes = tree.body if module_level_only else ast.walk(tree)
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rsplit(".", 1)[0]
            mod = (base + "." + node.module if node.module else base) if node.level else node.module
            targets = [mod] + [mod + "." + a.name for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:
                t = t.rsplit(".", 1)[0] if "." in t else ""
            if t and t != name and not name.startswith(t + "."):   # a package's own __init__ is not an edge back
                found.add(t)
    return found


def strongly_connected(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return sorted(out, key=len, reverse=True)


def main():
    module_level_only = "--module-level-only" in sys.argv
    mods = modules()
    graph = {n: edges(n, p, mods, module_level_only) for n, p in mods.items()}
    circles = strongly_connected(graph)
    for c in circles:
        print(f"{len(c)} modules: {', '.join(c)}")
    print(f"{sum(len(c) for c in circles)} of {len(mods)} modules in {len(circles)} circles")


if __name__ == "__main__":
    main()

"""The package's modules import each other without cycles: the graph of module-level imports, read from the source
(imports inside functions run later and are not edges), has no cycle. A cycle makes a module's import order matter
and leaves half-initialised modules to whoever imports first."""
import ast
import pathlib

import cudajit

PACKAGE = pathlib.Path(cudajit.__file__).parent


def _modules():
    """{dotted name: (path, is package)} of every module of the package, the compiled ``_core`` as a leaf."""
    mods = {"cudajit._core": (None, False)}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        mods[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return mods


def _module_level(body):
    """Import statements that run when the module does: top level, and inside top-level if/try blocks."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.If, ast.Try)):
            for block in (node.body, node.orelse, getattr(node, "finalbody", []),
                          *[h.body for h in getattr(node, "handlers", [])]):
                yield from _module_level(block)


def import_graph():
    mods = _modules()
    graph = {}
    for name, (path, is_package) in mods.items():
        deps = set()
        package = name if is_package else name.rpartition(".")[0]
        for node in _module_level(ast.parse(path.read_text()).body) if path else ():
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
                continue
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            source = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:        # ``from pkg import mod`` imports the module pkg.mod
                deps.add(f"{source}.{alias.name}" if f"{source}.{alias.name}" in mods else source)
        graph[name] = {d for d in deps if d in mods and d != name}
    return graph


def find_cycle(graph):
    """One cycle as a list of module names, or None."""
    state, stack = {}, []

    def visit(v):
        state[v] = "open"
        stack.append(v)
        for w in sorted(graph[v]):
            if state.get(w) == "open":
                return stack[stack.index(w):] + [w]
            if w not in state:
                found = visit(w)
                if found:
                    return found
        state[v] = "done"
        stack.pop()
        return None

    for v in sorted(graph):
        if v not in state:
            found = visit(v)
            if found:
                return found
    return None


def test_graph_covers_the_package():
    graph = import_graph()
    assert {"cudajit", "cudajit.cuda", "cudajit.compiler.translator", "cudajit.compiler.intrinsics"} <= set(graph)
    # Relative and absolute imports, and ``from . import module``, all become edges.
    assert "cudajit.compiler.registry" in graph["cudajit.compiler.mathlib"]
    assert "cudajit.compiler.mathlib" in graph["cudajit.compiler.intrinsics"]
    assert "cudajit.cuda.dispatcher" in graph["cudajit.cuda"]


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycles():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)

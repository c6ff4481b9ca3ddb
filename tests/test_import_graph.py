"""The package's modules import each other without cycles: the graph of every import statement, read from the
source -- those inside functions too, which run later but still tie the two modules together (issue 39: the runtime
was one circle held by 119 such imports) -- has no cycle anywhere in python/cudajit. A cycle makes a module's import
order matter, leaves half-initialised modules to whoever imports first, and means no layer can be read alone.

The runtime's layers (cuda/): _backend -> streams -> emm (memory) -> devices -> devicearray -> interop, arrays, ipc,
random -> the user API (dispatcher, ptx, build, args, raw, reduction, vectorizers, graphs, kernels) -> cudadrv
(numba-cuda's import paths) -> the cudajit.cuda package. Where a lower layer must call an upper one (a
DeviceNDArray's transpose, its IPC handle), the lower module declares the function and the upper one installs it
when imported (grep "installs")."""
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


def _imports(tree):
    """Every import statement of a module: top level, in if/try blocks, and inside functions and classes."""
    return (node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)))


def import_graph():
    mods = _modules()
    graph = {}
    for name, (path, is_package) in mods.items():
        deps = set()
        package = name if is_package else name.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text())) if path else ():
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
    # an import inside a function is an edge too (devicearray.py's DeviceNDArray.device imports devices.py there)
    assert "cudajit.cuda.devices" in graph["cudajit.cuda.devicearray"]


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycles():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)

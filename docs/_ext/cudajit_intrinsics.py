"""Sphinx directive ``cudajit-intrinsics``: the kernel-side API reference, made from the compiler's intrinsic
registry (python/cudajit/compiler/registry.py), so a name and its description are written once, there.

    ```{cudajit-intrinsics}
    :group: atomics
    ```

Each group is a list of name patterns (below). An entry whose registry doc starts with its own call signature
(``cuda.atomic.add(ary, idx, val): ...``) becomes a ``py:function`` with that signature and the rest as its text;
an attribute (``cuda.threadIdx.x``) a ``py:data``. Names the registry describes only by their Python or NumPy
namesake (``math.sqrt``, ``np.sin``) are listed as such. ``test_docs_site.py`` checks that every public registry
name lands in exactly one group, so a new intrinsic cannot be left out of the reference.
"""
import fnmatch
import re


# group -> (title, patterns). Order matters: an entry belongs to the first group whose pattern matches.
GROUPS = {
    "threads": ("Thread and grid positions",
                ["cuda.threadIdx.*", "cuda.blockIdx.*", "cuda.blockDim.*", "cuda.gridDim.*", "cuda.grid",
                 "cuda.gridsize", "cuda.laneid", "cuda.warpsize"]),
    "memory": ("Shared, local and constant memory; array views",
               ["cuda.shared.*", "cuda.local.*", "cuda.const.*", "cuda.carray", "cuda.farray", "numba.carray",
                "numba.farray", "cudajit.carray", "cudajit.farray", "cffi.from_buffer"]),
    "sync": ("Synchronisation and memory fences",
             ["cuda.syncthreads*", "cuda.syncwarp", "cuda.threadfence*", "cuda.nanosleep", "cuda.cg.*",
              "grid_group.*"]),
    "atomics": ("Atomic operations", ["cuda.atomic.*"]),
    "warp": ("Warp votes, shuffles and matches",
             ["cuda.all_sync", "cuda.any_sync", "cuda.eq_sync", "cuda.ballot_sync", "cuda.shfl_*",
              "cuda.match_*", "cuda.activemask", "cuda.lanemask_lt"]),
    "bits": ("Bit operations and arithmetic helpers",
             ["cuda.popc", "cuda.brev", "cuda.clz", "cuda.ffs", "cuda.fma", "cuda.cbrt", "cuda.selp"]),
    "cache": ("Cache-hinted loads and stores", ["cuda.ld*", "cuda.st*"]),
    "vectors": ("CUDA vector types", ["cuda.*x[1-4]", "cuda.*[1-4]"]),
    "random": ("Random numbers in kernels (cuda.random)", ["cuda.random.*"]),
    "fp16": ("float16 (cuda.fp16)", ["cuda.fp16.*"]),
    "bf16": ("bfloat16 (cuda.bf16)", ["cuda.bf16.*"]),
    "fp8": ("fp8 (cuda.fp8)", ["cuda.fp8.*"]),
    "libdevice": ("libdevice (cuda.libdevice)", ["cuda.libdevice.*"]),
    "math": ("math", ["math.*"]),
    "cmath": ("cmath", ["cmath.*"]),
    "numpy": ("NumPy", ["np.*"]),
    "operator": ("operator", ["operator.*"]),
    "builtins": ("Built-in functions", ["abs", "min", "max", "round", "pow", "len", "int", "float", "bool",
                                        "complex", "print", "isinstance", "range"]),
}

_NAMESAKE = {"math": "Python's ``{name}``", "cmath": "Python's ``{name}``", "operator": "Python's ``{name}``",
             "np": "NumPy's ``{name}`` on numbers", "": "Python's built-in ``{name}()``"}


def public_names(registry):
    """The registry names a user writes (``cuda._reduce.*`` and other underscored parts are internal)."""
    return [n for n in registry if not any(part.startswith("_") for part in n.split("."))]


def _matches(name, pattern):
    """fnmatch, except that ``*`` stays within one part of the dotted name (``cuda.*4`` is not ``cuda.fp16.h2``)."""
    return re.match(re.sub(r"(?<!\\)\.\*", "[^.]*", fnmatch.translate(pattern)), name) is not None


def group_of(name):
    for key, (_, patterns) in GROUPS.items():
        if any(_matches(name, p) for p in patterns):
            return key
    return None


def _escape(text):
    """The registry's text is help() text with ``code`` spans: outside them, characters that reStructuredText would
    read as markup (``|x|`` substitutions, ``*`` emphasis, ``name_`` references) are escaped."""
    parts = re.split(r"(``.+?``)", text)
    for i in range(0, len(parts), 2):
        part = parts[i].replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*")
        parts[i] = re.sub(r"(\w)_(?!\w)", r"\1\\_", part)
    return "".join(parts)


def _entry_rst(name, entry):
    doc = _escape(" ".join((entry.doc or "").split()))
    if entry.kind == "attr":
        return [f".. py:data:: {name}", "", f"   {doc or 'As in numba.cuda.'}", ""]
    m = re.match(re.escape(name) + r"(\([^)]*\))\s*:\s*(.*)$", doc)
    if m:
        signature, text = m.group(1), m.group(2)
    else:
        params = ", ".join(entry.params) if entry.params else "..."
        signature = f"({params})"
        module = name.rpartition(".")[0]
        text = doc or (_NAMESAKE.get(module, "As ``{name}`` in numba.cuda").format(name=name)
                       + ", with Numba's typing rules.")
    return [f".. py:function:: {name}{signature}", "", f"   {text}", ""]


def _directive():
    """The directive class (Sphinx is imported here, so the grouping above is usable without it)."""
    from docutils import nodes
    from docutils.statemachine import StringList
    from sphinx.util.docutils import SphinxDirective
    from sphinx.util.nodes import nested_parse_with_titles

    class IntrinsicsDirective(SphinxDirective):
        option_spec = {"group": str}

        def run(self):
            from cudajit.compiler.intrinsics import REGISTRY     # importing it loads every entry module
            key = self.options["group"]
            if key not in GROUPS:
                raise self.error(f"unknown group {key!r}; groups: {', '.join(GROUPS)}")
            lines = []
            for name in [n for n in public_names(REGISTRY) if group_of(n) == key]:     # the registry's order
                lines += _entry_rst(name, REGISTRY[name])
            if type(self.state).__module__.startswith("myst_parser"):
                lines = ["```{eval-rst}"] + lines + ["```"]      # in a Markdown page the entries stay RST
            container = nodes.container()
            nested_parse_with_titles(self.state, StringList(lines, source="cudajit intrinsic registry"), container)
            return container.children

    return IntrinsicsDirective


def setup(app):
    app.add_directive("cudajit-intrinsics", _directive())
    return {"parallel_read_safe": True, "parallel_write_safe": True}

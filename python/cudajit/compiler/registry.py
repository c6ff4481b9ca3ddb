"""The intrinsic registry's mechanism: ``REGISTRY`` maps a Python name (``cuda.atomic.add``, ``math.sqrt``) to its
``Intrinsic`` entry, ``@intrinsic`` adds entries, and the helpers every entry module shares (``expect_args``) and the
translator's look-ups (``lookup``, ``is_namespace``, ``bind_args``). The entries themselves live in intrinsics.py
(cuda.*), mathlib.py, npufuncs.py, pybuiltins.py, libdevice.py and vectors.py, which import this module; importing
intrinsics.py loads them all, so the registry is complete once ``compiler.intrinsics`` is imported.
"""

REGISTRY = {}


class Intrinsic:
    def __init__(self, name, impl, kind, barrier, params, doc, effect, part):
        self.name, self.impl, self.kind, self.barrier, self.params = name, impl, kind, barrier, params
        self.doc, self.effect, self.part = doc, effect, part


def intrinsic(*names, kind="call", barrier=False, params=None, doc=None, effect=False, part=None):
    """Register ``impl`` under each of ``names``. ``params``: the parameter names, so keyword arguments
    (``shape=``, ``dtype=``) are matched to positions before ``impl`` sees them. ``doc``: what the name does,
    for the user (a ``{name}`` in it becomes the entry's name). ``effect``: the call writes memory (atomics,
    random generators); barriers count as such too. Under debug=True its place in Python's order of evaluation
    is kept (evalorder.py). ``part``: the optional part of the runtime header (compiler/headers.py) its code
    needs beyond what the types of its arguments and result need; a unit that uses the entry is compiled with it."""
    def register(impl):
        for n in names:
            REGISTRY[n] = Intrinsic(n, impl, kind, barrier, params, doc and doc.replace("{name}", n),
                                    effect or barrier, part)
        return impl
    return register


def lookup(name):
    return REGISTRY.get(name)


def is_namespace(path):
    """True if ``path`` is a prefix of some intrinsic (``cuda``, ``cuda.atomic``, ``cuda.threadIdx``)."""
    prefix = path + "."
    return any(n.startswith(prefix) for n in REGISTRY)


def bind_args(cx, node, entry, args, kwargs):
    """Positional + keyword arguments -> one positional list per ``entry.params``."""
    if not kwargs:
        return list(args)
    if entry.params is None:
        cx.error(node, f"{entry.name}() takes no keyword arguments")
    out = list(args) + [None] * (len(entry.params) - len(args))
    for k, v in kwargs.items():
        if k not in entry.params:
            cx.error(node, f"{entry.name}() got an unexpected keyword argument '{k}'")
        out[entry.params.index(k)] = v
    while out and out[-1] is None:
        out.pop()
    return out


def expect_args(cx, node, name, args, lo, hi=None):
    hi = lo if hi is None else hi
    if not lo <= len(args) <= hi or any(a is None for a in args):
        want = f"{lo}" if lo == hi else f"{lo} to {hi}"
        cx.error(node, f"{name}() takes {want} arguments, {len(args)} given")

"""What the generator knows while it writes one function: each name's one type for the whole function (Numba
unifies a variable's assignments, so a name keeps one type), which names are surely bound here, and which
callables, arrays and tuples are visible."""
import dataclasses


@dataclasses.dataclass(frozen=True)
class Arr:
    dtype: str
    shape: tuple          # compile-time shape (ints)
    kind: str             # 'in' (read only), 'out' (own slots), 'local', 'shared'


@dataclasses.dataclass(frozen=True)
class Tup:
    items: tuple          # element types (scalars)


@dataclasses.dataclass(frozen=True)
class Opt:
    of: str               # Optional(scalar)


@dataclasses.dataclass
class Callable:
    name: str
    params: list          # [(name, type)]
    ret: object           # scalar type, Tup or Opt
    inner: bool = False   # a def/lambda inside the function (a closure)
    optional_last: bool = False   # its last parameter defaults to None


class FnScope:
    def __init__(self, name, params, ret, globals_, parent=None):
        self.name = name
        self.ret = ret
        self.types = dict(params)            # name -> type, for the whole function
        self.bound = [set(n for n, _ in params)]   # a stack of blocks: names surely bound
        self.parent = parent                 # the enclosing function of a closure (read-only captures)
        self.globals = globals_              # helper Callables by name
        self.inner = {}                      # inner Callables by name
        self.loop_depth = 0
        self.frozen = set()                  # names not to rebind (while counters, active loop bounds)
        self.has_sync = False
        self._version = 0
        self._visible_cache = (None, None)

    # -- binding --
    def is_bound(self, name):
        return any(name in b for b in self.bound)

    def bind(self, name, ty):
        assert self.types.get(name, ty) == ty, (name, self.types.get(name), ty)
        self.types[name] = ty
        self.bound[-1].add(name)
        self._version += 1

    def push(self):
        self.bound.append(set())
        self._version += 1

    def pop(self):
        self._version += 1
        return self.bound.pop()

    def unbind(self, name):
        self.bound[-1].discard(name)
        self._version += 1

    def version(self):
        return (self._version, self.parent.version() if self.parent is not None else None)

    def can_take(self, name, ty):
        """Whether name may be (re)bound to a value of type ty in this function."""
        if name in self.frozen or name in self.inner or name in self.globals:
            return False
        if self.parent is not None and self.parent.visible(name) is not None and name not in self.types:
            return False          # would shadow a capture: keep closures' captures simple
        return self.types.get(name, ty) == ty

    # -- lookup --
    def visible(self, name):
        """The type of a bound name (own, or captured from the enclosing function), else None."""
        if self.is_bound(name):
            return self.types[name]
        if self.parent is not None and name not in self.types:
            return self.parent.visible(name)
        return None

    def visible_names(self):
        """[(name, type)] of every bound name here, own before captured, sorted (cached per binding state)."""
        v = self.version()
        if self._visible_cache[0] == v:
            return self._visible_cache[1]
        out, seen = [], set()
        scope = self
        while scope is not None:
            for b in scope.bound:
                for n in b:
                    if n not in seen:
                        seen.add(n)
                        if scope is self or n not in self.types:
                            out.append((n, scope.types[n]))
            scope = scope.parent
        out.sort(key=lambda x: x[0])
        self._visible_cache = (v, out)
        return out

    def names_of(self, pred):
        return [(n, t) for n, t in self.visible_names() if pred(t)]

    def callables(self):
        found = list(self.globals.values())
        scope = self
        while scope is not None:
            found += [c for c in scope.inner.values() if scope.is_bound(c.name)]
            scope = scope.parent
        return found

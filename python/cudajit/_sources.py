"""The source text of functions whose file cannot be read: defined by ``exec()`` of a string, by ``python -c``, or
typed into the interactive interpreter. cudajit compiles a kernel from its source (Numba reads the bytecode), so it
looks for the text that made the function and accepts a candidate only when compiling it gives exactly the
function's code object (``CodeType.__eq__``: bytecode, constants, names, line and column table).

Where the text is looked for: the text each ``exec()`` since cudajit.cuda was imported ran, recorded for every
function its code defines (``keep_compiled_texts``: by code object, so a function that a helper exec'd and
returned is found however many other strings were compiled since); the strings held by the frames on the stack
when ``cuda.jit`` runs (the string given to ``exec``, as a variable or as a literal of the calling code); the last
texts compiled under a ``<...>`` file name (code compiled but never exec'd: ``types.FunctionType`` of its
constants); ``sys.orig_argv`` (``python -c``) and readline's history (the interactive interpreter on a terminal). Standard library only: ``cuda.jit`` calls ``remember`` without importing
the compiler.
"""
import collections
import importlib.util
import inspect
import linecache
import sys
import threading
import types
import weakref



class _TextByCode:
    """code object -> the text that compiles to it, by the object's identity, dropped with the object.

    Not a WeakKeyDictionary: that compares keys with ``==``, and code objects compare equal without their file
    name. The same function unpickled twice gives two equal code objects (cloudpickle >= 3.1.3 names every file
    ``<dynamic-code>``), which would share one entry, and the first of them to die would take it with it."""

    def __init__(self):
        self._entries = {}      # id(code) -> (weak reference to code, text)

    def get(self, code, default=None):
        entry = self._entries.get(id(code))
        return entry[1] if entry is not None and entry[0]() is code else default

    def __contains__(self, code):
        return self.get(code) is not None

    def __bool__(self):
        return bool(self._entries)

    def __setitem__(self, code, text):
        key = id(code)
        entries = self._entries

        def forget(ref):
            entry = entries.get(key)
            if entry is not None and entry[0] is ref:      # not a later object that was given the same id
                entries.pop(key, None)

        entries[key] = (weakref.ref(code, forget), text)


_FOUND = _TextByCode()                   # code object -> the text that compiles to it
_EXECUTED = _TextByCode()                # function code object -> the text of the exec() that made it
_MAX_TEXT = 1 << 20                      # strings longer than this are not candidate sources
_COMPILED = collections.deque(maxlen=256)    # (file name, text) of the last compile()/exec() of a string
_MAX_KEPT = 1 << 16                      # ... each shorter than this: at most 16 MiB held
_checking = threading.local()            # .active while _compiles_to compiles a candidate (not kept again)
_last = threading.local()                # .compiled: (file name, text) of this thread's last kept compile


def _on_audit_event(event, args):
    # Runs for every audit event of the process (open, import, exec, ...): two comparisons for all but "compile",
    # whose source CPython 3.11 passes as UTF-8 bytes (a str on other versions; an AST object is not kept), and
    # "exec", which exec() of a string raises with the code object just compiled from it (same thread, next event).
    if event == "compile":
        text, filename = args
        markers = _MARKERS.get(type(text))
        if markers and type(filename) is str and filename[:1] == "<" and len(text) < _MAX_KEPT \
                and (markers[0] in text or markers[1] in text) and not getattr(_checking, "active", False):
            _COMPILED.append((filename, text))
            _last.compiled = (filename, text)
    elif event == "exec":
        compiled = getattr(_last, "compiled", None)
        if compiled is not None:
            _last.compiled = None
            code = args[0]
            if type(code) is types.CodeType and code.co_filename == compiled[0]:
                _record_functions(code, compiled[1])


def _record_functions(module, text):
    """Each function code object that ``module`` (compiled from ``text``) defines, nested ones too -> ``text``."""
    decoded = None
    stack = [module]
    while stack:
        for c in stack.pop().co_consts:
            if type(c) is types.CodeType:
                if decoded is None:
                    decoded = importlib.util.decode_source(text) if type(text) is bytes else text
                _EXECUTED[c] = decoded
                stack.append(c)


_MARKERS = {str: ("def ", "lambda"), bytes: (b"def ", b"lambda")}    # a text that defines a function


def keep_compiled_texts():
    """Keep the text of every later ``exec`` of a string that defines a function, by the code objects of its
    functions (each text under 64 KiB, under a ``<...>`` file name, held while a function made by it lives), and of
    the last 256 other ``compile``s of such a string. Python has no other record of such a text once the caller
    drops it, and Numba needs none (it reads bytecode). An audit hook cannot be removed; this one does nothing for
    other events. Idempotent."""
    global _hook_installed
    if not _hook_installed:
        sys.addaudithook(_on_audit_event)
        _hook_installed = True


_hook_installed = False


def readable(pyfunc):
    """Whether ``inspect`` can read the function's source (a file or a linecache entry), and is to: a text adopted
    for a function rebuilt from a pickle wins over the file of that name here."""
    filename = pyfunc.__code__.co_filename
    if _FOUND and pyfunc.__code__ in _FOUND:
        return False
    return not (filename.startswith("<") and filename.endswith(">")) or bool(linecache.getlines(filename))


def def_lines(pyfunc):
    """(lines, first line number) of a readable function's definition, without tokenizing, or None where this
    cannot tell (``inspect.getsourcelines`` then reads it). inspect finds the end of the block with ``tokenize``,
    whose first use in a process compiles a large regular expression: about 2.5 ms of a warm first launch. Here the
    end is the last line any instruction of the function (or of a function nested in it) spans, extended over the
    lines after it that are blank, comments or indented deeper than the first line (an ``else: pass``). The caller
    parses the text, and falls back to inspect if that fails."""
    code = pyfunc.__code__
    if not hasattr(code, "co_positions"):          # Python 3.10
        return None
    filename = inspect.getsourcefile(pyfunc)
    if not filename:
        return None
    linecache.checkcache(filename)                 # as inspect: an edited file is read again
    lines = linecache.getlines(filename, pyfunc.__globals__)
    first = code.co_firstlineno
    last = _last_line(code)
    if not lines or last is None or not first <= last <= len(lines):
        return None
    head = lines[first - 1]
    indent = len(head) - len(head.lstrip())
    while last < len(lines):
        line = lines[last]
        text = line.strip()
        if text and not text.startswith("#") and len(line) - len(line.lstrip()) <= indent:
            break
        last += 1
    while last > first and (not lines[last - 1].strip() or lines[last - 1].lstrip().startswith("#")):
        last -= 1
    return lines[first - 1:last], first


def _last_line(code):
    """The last source line that an instruction of ``code`` or of the code nested in it spans (None if none)."""
    last = max((end for _, end, _, _ in code.co_positions() if end is not None), default=None)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            inner = _last_line(const)
            if inner is not None and (last is None or inner > last):
                last = inner
    return last


def remember(pyfunc, depth=64):
    """At decoration time, when the source is not readable: find the text among the strings of the frames on the
    stack (``exec(src)`` keeps ``src`` alive in its caller only until it returns) and keep it for ``source_lines``."""
    code = pyfunc.__code__
    if readable(pyfunc) or code in _FOUND:
        return
    text = _EXECUTED.get(code)
    if text is not None:
        _FOUND[code] = text
        return
    marker = _marker(pyfunc)
    text = next((t for t in _compiled_texts(code.co_filename) if marker in t and _compiles_to(t, code)), None)
    if text is not None:
        _FOUND[code] = text
        return
    frame = sys._getframe(1)
    seen = set()
    while frame is not None and depth > 0:
        # exec(name) holds the text in a variable; exec("literal") in the calling code's constants
        for values in (frame.f_locals.values(), frame.f_globals.values(), frame.f_code.co_consts):
            for value in list(values):
                if type(value) is str and id(value) not in seen and marker in value and len(value) < _MAX_TEXT:
                    seen.add(id(value))
                    if _compiles_to(value, code):
                        _FOUND[code] = value
                        return
        frame, depth = frame.f_back, depth - 1


def source_lines(pyfunc):
    """(lines, first line number) of the function's definition, as ``inspect.getsourcelines``; OSError with the
    reason when no text that compiles to the function is found."""
    code = pyfunc.__code__
    text = _FOUND.get(code) or _EXECUTED.get(code)
    if text is None:
        marker = _marker(pyfunc)
        text = next((t for t in _candidates(code.co_filename) if marker in t and _compiles_to(t, code)), None)
        if text is None:
            raise OSError(_why_not(code.co_filename))
        _FOUND[code] = text
    lines = text.splitlines(keepends=True)
    first = code.co_firstlineno
    return inspect.getblock(lines[first - 1:]), first


def _marker(pyfunc):
    """A string the function's source must contain (the code's name: ``__name__`` may have been set since)."""
    name = pyfunc.__code__.co_name
    return f"def {name}" if name != "<lambda>" else "lambda"


def _compiled_texts(filename):
    """The kept texts compiled under ``filename``, newest first."""
    kept = reversed(list(_COMPILED))      # list(): one atomic copy (the hook may append meanwhile)
    return [importlib.util.decode_source(t) if type(t) is bytes else t for name, t in kept if name == filename]


def _candidates(filename):
    yield from _compiled_texts(filename)
    if filename == "<string>":
        argv = getattr(sys, "orig_argv", ())
        for i, arg in enumerate(argv[:-1]):
            if arg == "-c":
                yield argv[i + 1]
                break
    if filename == "<stdin>":
        yield from _history_statements()


def _history_statements():
    """Each top-level statement typed at the interactive prompt, newest first, from readline's history (each
    line typed is one history item; a statement goes on while lines are indented or decorators precede it)."""
    readline = sys.modules.get("readline")      # the interpreter imports it when the prompt is a terminal
    if readline is None:
        return
    items = [readline.get_history_item(i) for i in range(1, readline.get_current_history_length() + 1)]
    statements, current, decorators_only = [], [], False
    for line in items:
        if line is None:
            continue
        top_level = not line[:1].isspace()
        if top_level and current and not decorators_only:
            statements.append(current)
            current = []
        if top_level:
            decorators_only = line.startswith("@") and (decorators_only or not current)
        current.append(line)
    if current:
        statements.append(current)
    for statement in reversed(statements):
        yield "\n".join(statement) + "\n"


def _compiles_to(text, code):
    _checking.active = True
    try:
        module = compile(text, code.co_filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    finally:
        _checking.active = False
    return _contains(module, code)


def _contains(outer, code):
    for c in outer.co_consts:
        if isinstance(c, types.CodeType) and (c == code or _contains(c, code)):
            return True
    return False


def _why_not(filename):
    if filename == "<stdin>":
        return ("it was typed into the interactive interpreter without readline history (stdin is not a "
                "terminal)")
    if filename == "<string>":
        return ("it was made from a string that cudajit no longer finds (exec'd before cudajit.cuda was imported, or "
                "compiled and never exec'd more than 256 strings ago: decorate it while the string is alive in the "
                "code that made it, or register the text with linecache under the filename given to compile())")
    return f"its file {filename} cannot be read"


def text_of(pyfunc):
    """The whole text the function's definition is read from (its file, or the string found for it), sent with a
    pickled kernel: the receiving process may have no such file, or another version of it. None when unreadable."""
    code = pyfunc.__code__
    text = _FOUND.get(code)
    if text is None and readable(pyfunc):
        text = "".join(linecache.getlines(code.co_filename)) or None
    if text is None:
        try:
            source_lines(pyfunc)
        except OSError:
            return None
        text = _FOUND.get(code)
    return text


def source_of(pyfunc):
    """What a pickled kernel carries of its function's source: (file name, ``text_of``)."""
    return pyfunc.__code__.co_filename, text_of(pyfunc)


def adopt(pyfunc, source):
    """A function rebuilt from a pickle reads its definition from the sender's text (``source_of``), and its
    code names the sender's file again: cloudpickle 3.1.3 and later rename every file ``<dynamic-code>``, and an
    error in the kernel must name the user's file and line. (A bare text is what cudajit 0.1.0 sent.)"""
    filename, text = source if isinstance(source, tuple) else (None, source)
    if filename is not None and pyfunc.__code__.co_filename != filename:
        pyfunc.__code__ = _renamed(pyfunc.__code__, filename)
    if text is not None:
        _FOUND[pyfunc.__code__] = text


def _renamed(code, filename):
    consts = tuple(_renamed(c, filename) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)

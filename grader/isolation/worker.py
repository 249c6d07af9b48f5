"""The untrusted side: runs a learner's code in its own process and answers the grader over pipes.

Started by ``grader.isolation.sandbox`` as ``python -I -S -B -c <this file's text> REQUEST_FD REPLY_FD SCRATCH KIT``:
``-I`` and ``-c`` keep the repository (and so ``solutions``) off ``sys.path`` and out of ``sys.argv``,
``-S`` skips site-packages (the exercise is standard library only). On the portable transport
(``grader.isolation.transport_portable.portable_worker``: Windows, or forced) a short bootstrap reads this file's text from
stdin instead (Windows limits a command line to 32,767 characters), and the arguments are
``stdio stdio SCRATCH KIT OUTPUT_BYTES``: the channel is the process's stdin and stdout, and what the
submission prints goes to stderr (the grader's output file), capped at ``OUTPUT_BYTES`` by ``CappedStream``
where no file size limit exists. This file imports nothing
from the grader, on purpose: nothing trusted lives in this process.

Before any learner code runs, ``disarm`` makes the one process-starting function without an audit
event harmless, and ``install_guard`` adds a CPython audit hook (which cannot be removed) that
refuses: reading the kit's folder (the reference solution, the hidden cases), writing anywhere but
the scratch folder (results.json, the grader's files), more than a few files there, other processes'
files in ``/proc``, starting or signalling processes, loading native code (ctypes, an extension module not on
``ALLOWED_EXTENSIONS`` or from outside the standard library's folder), network sockets, and the introspection
that would reach the hook itself (gc, frames). Audit hooks are a tripwire, not a sandbox (CPython says
so); the kernel's rules (``grader.isolation.kernel_rules``) hold without them, and docs/threat-model.md says what
needs a container or another user. Every value sent back is converted to plain JSON data first; the
grader re-checks types on its side, so an object that lies in ``__eq__`` or ``__str__`` cannot cross.

Learner code runs as it would where it was written (``Loader``): a ``.py`` file as ``python`` runs
it, a notebook's cells as IPython runs them (``__future__`` flags kept from cell to cell, top-level
``await``, and a ``get_ipython()`` for the magics IPython's transformer left in the code).

Protocol: one JSON object per line. The grader sends ``load`` once, then ``case`` messages; the
worker answers ``loaded`` (with the problems met while loading, the state of each requested
function, and the IPython commands it skipped) and, per case, zero or more ``ask_model``/``dispatch``
requests (each answered by a ``reply``, a ``raise``, or a ``halt`` when a call made too many of them)
and one ``done`` per invocation.
"""

import builtins
import copy
import errno
import json
import os
import stat
import sys
import threading
import types

MAX_DEPTH = 200
PROXY_ERRORS = {"ConnectionError": ConnectionError, "TimeoutError": TimeoutError, "RuntimeError": RuntimeError}
TYPES = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict}


class RequestLimitReached(BaseException):
    """Raised inside ask_model/dispatch when a call made too many requests (the grader's ``halt``).

    A BaseException, like KeyboardInterrupt, so that a retry loop's ``except Exception`` does not
    swallow it and the call ends; the grader judges the case as unbounded whatever it returns.
    """


class NotPlain(Exception):
    """A value that is not plain JSON data (kept here: the worker imports nothing of the grader)."""


# What a report may say about a value that is not plain JSON data: a fixed vocabulary, never a name the
# submission chose (a class name can be a megabyte of the hidden input, or terminal escape codes that
# draw a fake score: an adversarial test). The grader accepts only these sentences (grader.judging.harness).
BUILTIN_TYPE_NAMES = frozenset(name for name, value in vars(builtins).items()
                               if isinstance(value, type) and not issubclass(value, BaseException))
BUILTIN_TYPE_NAMES |= {"function", "builtin_function_or_method", "method", "generator", "coroutine",
                       "async_generator", "module", "NoneType", "ellipsis", "NotImplementedType", "cell", "code",
                       "frame", "traceback", "mappingproxy", "dict_keys", "dict_values", "dict_items"}
OWN_CLASS = "an object of a class that is not one of Python's built-in types (not plain JSON data)"
OWN_KEY = "a dict key of a class that is not one of Python's built-in types"
TOO_DEEP = "a value nested more than 200 levels deep"
DESCRIPTIONS = frozenset({OWN_CLASS, TOO_DEEP, "a value nested too deeply",
                          *(f"an object of type {name}" for name in BUILTIN_TYPE_NAMES),
                          *(f"a dict key of type {name}" for name in BUILTIN_TYPE_NAMES),
                          OWN_KEY})


def type_words(kind, what="an object"):
    """``"an object of type set"`` for a type of Python's own, else a fixed sentence (str); never the
    submission's class name. ``what``: ``"an object"`` or ``"a dict key"``."""
    name = kind.__name__ if type(getattr(kind, "__name__", None)) is str else None
    # Python's own: a built-in class, or one of the interpreter's types of functions, generators...
    own = name not in BUILTIN_TYPE_NAMES or (getattr(builtins, name, kind) is not kind) or kind.__module__ != "builtins"
    if own:
        return OWN_CLASS if what == "an object" else OWN_KEY
    return f"{what} of type {name}"


def to_plain(value, depth=0):
    """Copy ``value`` as plain JSON data, or raise NotPlain describing the first offending value (from
    the fixed ``DESCRIPTIONS``).

    Exact types only (``type(x) is dict``), so a subclass with a lying ``__eq__`` is refused.
    """
    if depth > MAX_DEPTH:
        raise NotPlain(TOO_DEEP)
    kind = type(value)
    if value is None or kind in (str, bool, int, float):
        return value
    if kind is list or kind is tuple:
        return [to_plain(item, depth + 1) for item in value]
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise NotPlain(type_words(type(key), "a dict key"))
            out[key] = to_plain(item, depth + 1)
        return out
    raise NotPlain(type_words(kind))


def describe(value):
    """Return ``{"plain": value}`` or ``{"unplain": "what it was"}`` for the grader."""
    try:
        return {"plain": to_plain(value)}
    except NotPlain as exc:
        return {"unplain": str(exc)}
    except RecursionError:
        return {"unplain": "a value nested too deeply"}


class Channel:
    """Newline-delimited JSON over two inherited pipe file descriptors (``request_fd``, ``reply_fd``: int); from
    the grader, long strings follow their message's line as bytes (``receive``)."""

    def __init__(self, request_fd, reply_fd):
        self.reader = os.fdopen(request_fd, "rb")
        self.reply_fd = reply_fd

    def send(self, message):
        data = (json.dumps(message) + "\n").encode("utf-8", "surrogatepass")
        view = memoryview(data)
        while view:
            written = os.write(self.reply_fd, view)
            view = view[written:]

    def receive(self):
        """The grader's next message (dict): one JSON line, then the bytes of each long string it left out
        (``"texts"``: ``[[path, byte count], ...]``, see ``grader.isolation.sandbox.frame_message``)."""
        line = self.reader.readline()
        if not line:
            raise SystemExit(0)  # the grader closed the pipe: nothing more to do
        message = json.loads(line.decode("utf-8", "surrogatepass"))
        for path, size in message.pop("texts", ()):
            data = self.reader.read(size)
            if len(data) < size:
                raise SystemExit(0)  # the grader went away in the middle of a message
            holder = message
            for key in path[:-1]:
                holder = holder[key]
            holder[path[-1]] = data.decode("utf-8", "surrogatepass")
        return message


def exception_text(exc):
    """One line naming an exception, without a traceback: ``ValueError: bad value``."""
    try:
        message = str(exc)
    except BaseException:  # a learner's exception whose __str__ raises
        message = ""
    message = message.splitlines()[0] if message else ""
    message = message if len(message) <= 300 else message[:300] + "…"  # cut text says so (issue 11)
    name = type(exc).__name__
    name = name if len(name) <= 100 else name[:100] + "…"  # a class name can be a megabyte long
    return f"{name}: {message}" if message else name


def where_raised(exc, filenames):
    """The submission's line that raised, e.g. ``cell 3, line 7``, or an empty string.

    Only the code the grader compiled counts (``filenames``: the exact file names of the chunks):
    code a submission compiles itself can be given any file name, the hidden input included (an
    adversarial test printed every hidden input through this location).
    """
    tb = exc.__traceback__
    found = ""
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if type(filename) is str and filename in filenames:
            found = f"{filename[len(LABEL_PREFIX):]}, line {tb.tb_lineno}"
        tb = tb.tb_next
    return found


LABEL_PREFIX = "<submission> "
FUTURE_MASK = 0x1FE0000  # CO_FUTURE_DIVISION .. CO_FUTURE_ANNOTATIONS: the flags a __future__ import sets
TOP_LEVEL_AWAIT = 0x2000  # ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, as IPython compiles a cell
CO_COROUTINE = 0x80


def third_party_hint(exc):
    """A sentence when ``exc`` is an import of a module outside the standard library, else "" (str)."""
    name = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
    if type(name) is str and name.partition(".")[0] == "IPython":
        return (" (the grader runs cells without a Jupyter kernel: of IPython it has display, clear_output, the display "
                "classes such as Markdown and HTML, and get_ipython; other parts need a kernel)")
    if type(name) is str and name.partition(".")[0] not in getattr(sys, "stdlib_module_names", ()):
        return (" (the grader runs submissions with Python's standard library only: third-party packages are not "
                "installed there)")
    return ""


class Loader:
    """Compiles and runs learner code as the environment it was written for would.

    A notebook's cells are compiled as IPython compiles them: a ``from __future__`` import in one cell
    holds for every later cell (IPython's compiler keeps the flags, as ``codeop`` does), a cell may
    ``await`` at the top level, and ``get_ipython()`` exists (``IPythonStandIn``). A ``.py`` file runs
    as ``python`` runs it.

    Args:
        namespace: the submission's module globals (dict).
    """

    def __init__(self, namespace):
        self.namespace = namespace
        self.flags = 0
        self.filenames = set()
        self.label = ""
        self.loop = None

    def compile(self, source, label, kind, first_line=1, mode="exec"):
        """Compile ``source`` as ``label`` (line numbers start at ``first_line``) and keep its __future__ flags.

        Raises:
            SyntaxError, ValueError: as ``compile`` does.
        """
        filename = LABEL_PREFIX + label
        self.filenames.add(filename)
        flags = self.flags | (TOP_LEVEL_AWAIT if kind == "cell" else 0)
        code = compile("\n" * (first_line - 1) + source, filename, mode, flags, True)
        self.flags |= code.co_flags & FUTURE_MASK
        return code

    def run(self, code, namespace=None, local=None):
        """Run compiled code; a cell with a top-level ``await`` runs on an event loop, as in IPython."""
        namespace = self.namespace if namespace is None else namespace
        if code.co_flags & CO_COROUTINE:
            import asyncio

            if self.loop is None:
                self.loop = asyncio.new_event_loop()
            return self.loop.run_until_complete(eval(code, namespace, local))
        return eval(code, namespace, local)  # None for "exec" code, the value for an expression

    def load(self, chunks):
        """Compile and run each chunk of learner code; a broken chunk is reported and skipped.

        Returns:
            one sentence per problem (list of str).
        """
        problems = []
        for chunk in chunks:
            label = self.label = chunk["label"]
            if chunk["kind"] == "cell":
                self.namespace["get_ipython"] = IPythonStandIn.instance(self).get_ipython
            elif "/" not in label and "\\" not in label:
                # As python sets it for a script: the file as if it were in the working folder (scratch), so that a
                # log file named after it lands in scratch (issue 41's learner trial: 0 points for that line).
                self.namespace["__file__"] = os.path.join(os.getcwd(), label)
            try:
                code = self.compile(chunk["code"], label, chunk["kind"])
            except (SyntaxError, ValueError) as exc:
                line = getattr(exc, "lineno", None)
                at = f" on line {line}" if line else ""
                reason = getattr(exc, "msg", None) or str(exc)
                problems.append(f"{label} has a syntax error{at} ({reason}); that {chunk['kind']} was skipped.")
                continue
            try:
                self.run(code)
            except SystemExit as exc:
                problems.append(f"{label} called sys.exit({exc.code!r}) while loading; the rest of it was skipped.")
            except BaseException as exc:  # the learner's code may raise anything, KeyboardInterrupt included
                where = where_raised(exc, self.filenames) or label
                extra = " (input() gets no answer while grading)" if isinstance(exc, EOFError) else third_party_hint(exc)
                problems.append(f"{where} raised {exception_text(exc)}{extra} while loading; the rest of that "
                                f"{chunk['kind']} was skipped.")
        return problems


def load(namespace, chunks):
    """Compile and run each chunk of learner code (see ``Loader``); returns the problems (list of str)."""
    return Loader(namespace).load(chunks)


class UsageError(Exception):
    """What IPython raises for a magic used wrongly (``IPython.core.error.UsageError``)."""


class CapturedIO:
    """What ``%%capture name`` stores in ``name``: the text the cell printed (``stdout``, ``stderr``)."""

    def __init__(self, stdout, stderr):
        self.stdout, self.stderr, self.outputs = stdout, stderr, []

    def show(self):
        """Print what was captured, as IPython's ``CapturedIO.show()`` does."""
        sys.stdout.write(self.stdout)
        sys.stderr.write(self.stderr)

    __call__ = show


# Magics that only display, configure the kernel or show help: running a notebook changes nothing else.
NO_EFFECT_MAGICS = frozenset({
    "matplotlib", "config", "load_ext", "reload_ext", "unload_ext", "autoreload", "aimport", "precision", "pprint",
    "xmode", "colors", "automagic", "autocall", "doctest_mode", "pinfo", "pinfo2", "pdoc", "pdef", "psource", "pfile",
    "psearch", "who", "whos", "who_ls", "lsmagic", "magic", "quickref", "history", "hist", "page", "alias_magic",
    "notebook", "html", "markdown", "latex", "javascript", "js", "svg", "tb", "killbgscripts",
})
# Options of IPython's %timeit and %prun that take a value (``-n 5``); the others are flags (``-q``).
VALUED_OPTIONS = {"timeit": "nrp", "prun": "slDT"}


def without_options(line, valued):
    """The code a ``%timeit``/``%prun`` line runs, without its leading options (str).

    Args:
        line: what follows the magic's name (str). valued: the option letters that take a value (str).
    """
    rest = line.lstrip()
    while rest.startswith("-"):
        option, _, rest = rest.partition(" ")
        if len(option) == 2 and option[1] in valued:  # "-n 5": the value is the next word
            _, _, rest = rest.lstrip().partition(" ")
        rest = rest.lstrip()
    return rest


class IPythonStandIn:
    """``get_ipython()`` for a notebook's cells: runs what IPython would, where it can run without a kernel.

    IPython's transformer (``grader.intake.extract.ipython_to_python``) turns ``%time f()`` into
    ``get_ipython().run_line_magic('time', 'f()')`` and ``!ls`` into ``get_ipython().system('ls')``.
    Here ``%time``/``%%time``, ``%%capture``, ``%prun``/``%%prun`` and ``%%writefile`` run their code in
    the notebook's namespace, ``%timeit``/``%%timeit`` in a namespace of their own (as IPython's do),
    ``%env`` and ``%pwd`` work, magics that only display or configure do nothing. Shell commands and
    magics that need a kernel or another process (``!pip``, ``%%bash``, ``%run``...) cannot run
    while grading: they are skipped, and the report says which.
    """

    _instance = None

    def __init__(self, loader):
        self.loader = loader
        self.user_ns = loader.namespace
        self.skipped = []

    @classmethod
    def instance(cls, loader):
        """The one stand-in of this worker (``get_ipython()`` always returns the same object, as in IPython)."""
        if cls._instance is None:
            cls._instance = cls(loader)
        return cls._instance

    def get_ipython(self):
        """The stand-in itself, as IPython's ``get_ipython()`` returns the shell."""
        return self

    def _skip(self, what):
        if what not in self.skipped:
            self.skipped.append(what)

    def _caller_line(self):
        """The line of the notebook cell that called the magic (int), so its code keeps the cell's line numbers."""
        frame = sys._getframe(2)
        return frame.f_lineno if frame.f_code.co_filename in self.loader.filenames else 1

    def _code(self, source, line):
        return self.loader.compile(source, self.loader.label, "cell", line)

    def system(self, command):
        """``!command``: no shell while grading (skipped)."""
        self._skip("!" + (str(command).split() or [""])[0][:30])

    def getoutput(self, command, split=True, depth=0):
        """``name = !command``: no shell while grading, so the command's output is empty."""
        self.system(command)
        return []

    def run_line_magic(self, magic_name, line, _stack_depth=1):
        """``%magic line`` as IPython runs it, where it can run outside a kernel (see the class docstring)."""
        at = self._caller_line()
        if magic_name == "time":  # an expression's value is returned (``x = %time f()``), a statement just runs
            try:
                code = self.loader.compile(line, self.loader.label, "cell", at, mode="eval")
            except SyntaxError:
                return self.loader.run(self._code(line, at))
            return self.loader.run(code)
        if magic_name in VALUED_OPTIONS:
            code = self._code(without_options(line, VALUED_OPTIONS[magic_name]), at)
            self.loader.run(code, local={} if magic_name == "timeit" else None)
            return None
        if magic_name == "pwd":
            return os.getcwd()
        if magic_name == "env":
            return self._env(line)
        if magic_name not in NO_EFFECT_MAGICS:
            self._skip("%" + str(magic_name)[:30])
        return None

    def run_cell_magic(self, magic_name, line, cell):
        """``%%magic line`` + body as IPython runs it, where it can run outside a kernel."""
        at = self._caller_line() + 1  # the body starts on the line after the magic
        if magic_name in ("time", "prun", "timeit"):
            self.loader.run(self._code(cell, at), local={} if magic_name == "timeit" else None)
        elif magic_name == "capture":
            self._capture(line, cell, at)
        elif magic_name == "writefile":
            self._writefile(line, cell)
        elif magic_name not in NO_EFFECT_MAGICS:
            self._skip("%%" + str(magic_name)[:30])

    def _capture(self, line, cell, at):
        import contextlib
        import io

        options = line.split()
        name = next((word for word in options if not word.startswith("-")), None)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.ExitStack() as stack:
            if "--no-stdout" not in options:
                stack.enter_context(contextlib.redirect_stdout(out))
            if "--no-stderr" not in options:
                stack.enter_context(contextlib.redirect_stderr(err))
            self.loader.run(self._code(cell, at))
        if name:
            self.user_ns[name] = CapturedIO(out.getvalue(), err.getvalue())

    def _writefile(self, line, cell):
        options = line.split()
        append = "-a" in options or "--append" in options
        names = [word for word in options if not word.startswith("-")]
        if not names:
            raise UsageError("the following arguments are required: filename")
        filename = os.path.expanduser(names[0].strip("'\""))
        exists = os.path.exists(filename)
        print(("Appending to " if append and exists else "Overwriting " if exists else "Writing ") + filename)
        with open(filename, "a" if append else "w", encoding="utf-8") as handle:
            handle.write(cell)

    def _env(self, line):
        line = line.strip()
        if not line:
            return dict(os.environ)
        if "=" in line or " " in line:
            name, _, value = line.partition("=") if "=" in line else line.partition(" ")
            os.environ[name.strip()] = value.strip()
            return None
        return os.environ.get(line)


class DisplayObject:
    """IPython's display classes (``Markdown``, ``HTML``, ``Image``...) as grading can observe them: each keeps what
    it was given (``data``, ``url``, ``filename``, ``metadata``, other options) and prints as IPython's print
    without a frontend, ``<IPython.core.display.Markdown object>``. Nothing is read or fetched: a kernel's frontend
    shows them, and grading has none."""

    def __init__(self, data=None, url=None, filename=None, metadata=None, **options):
        self.data, self.url, self.filename, self.metadata, self.options = data, url, filename, metadata, options

    def __repr__(self):
        return f"<IPython.core.display.{type(self).__name__} object>"


class DisplayHandle:
    """What ``display(obj, display_id=...)`` returns in IPython: ``display``/``update`` print again here."""

    def __init__(self, display_id=None):
        self.display_id = display_id

    def display(self, obj, **kwargs):
        print(obj)

    def update(self, obj, **kwargs):
        print(obj)


def display(*objs, display_id=None, **kwargs):
    """IPython's ``display()`` as it behaves without a frontend: prints the objects (``print(*objs)``, what IPython
    itself does outside a kernel); returns a ``DisplayHandle`` when asked for a ``display_id``, else None."""
    print(*objs)
    return DisplayHandle(display_id) if display_id else None


def clear_output(wait=False):
    """IPython's ``clear_output()``: a frontend's action, nothing to do while grading."""


# What a notebook imports from IPython most (issue 25's learner trial lost a cell to "from IPython.display import
# display"): grading has no kernel and runs without site-packages (-S), so these stand in, and an import of any
# other part of IPython fails with a sentence saying why (third_party_hint).
DISPLAY_CLASSES = ("Markdown", "HTML", "Latex", "Math", "JSON", "Pretty", "Code", "Javascript", "SVG", "Image",
                   "Audio", "Video", "IFrame", "FileLink", "FileLinks", "GeoJSON", "ProgressBar", "TextDisplayObject")


def install_ipython_stand_ins():
    """Put ``IPython``, ``IPython.display``, ``IPython.core``, ``IPython.core.display``,
    ``IPython.core.display_functions`` and ``IPython.core.getipython`` in ``sys.modules``: ``display``,
    ``clear_output``, ``update_display``, the ``display_*`` helpers and ``DISPLAY_CLASSES`` behave as they do
    without a frontend; ``get_ipython()`` returns the notebook's ``IPythonStandIn`` (None for a ``.py`` file, as
    outside IPython)."""
    def get_ipython():
        stand_in = IPythonStandIn._instance
        return stand_in.get_ipython() if stand_in is not None else None

    def update_display(obj, display_id=None, **kwargs):
        print(obj)

    def shown(*objs, raw=False, **kwargs):
        print(*objs)

    package = types.ModuleType("IPython")
    package.__path__ = []  # a package: "import IPython.core.magic" says that module is missing
    core = types.ModuleType("IPython.core")
    core.__path__ = []
    shown_module = types.ModuleType("IPython.display")
    names = {"display": display, "clear_output": clear_output, "update_display": update_display,
             "DisplayHandle": DisplayHandle, "DisplayObject": DisplayObject,
             **{f"display_{kind}": shown for kind in ("markdown", "html", "latex", "json", "pretty", "javascript",
                                                      "svg", "png", "jpeg", "pdf")},
             **{name: type(name, (DisplayObject,), {"__module__": "IPython.core.display"}) for name in DISPLAY_CLASSES}}
    shown_module.__dict__.update(names)
    getipython = types.ModuleType("IPython.core.getipython")
    getipython.get_ipython = get_ipython
    package.display, package.core, package.get_ipython = shown_module, core, get_ipython
    package.version_info, package.__version__ = (8, 0, 0, ""), "8.0.0 (the grader's stand-in)"
    core.display, core.display_functions, core.getipython = shown_module, shown_module, getipython
    sys.modules.update({"IPython": package, "IPython.display": shown_module, "IPython.core": core,
                        "IPython.core.display": shown_module, "IPython.core.display_functions": shown_module,
                        "IPython.core.getipython": getipython})


def bound_defaults(function, namespace):
    """Names of module globals (TOOLS, dispatch) that a function captured as default arguments."""
    defaults = list(getattr(function, "__defaults__", None) or ())
    defaults += list((getattr(function, "__kwdefaults__", None) or {}).values())
    captured = []
    for name in ("TOOLS", "dispatch"):
        if name in namespace and any(value is namespace[name] for value in defaults):
            captured.append(name)
    return captured


def global_names(code, depth=0):
    """The global names a code object and the functions, comprehensions and classes inside it read (set of str)."""
    names = set(code.co_names)
    if depth < 20:
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                names |= global_names(const, depth + 1)
    return names


def aliased_globals(function, namespace):
    """``[[global, alias], ...]``: module globals (TOOLS, dispatch) that ``function`` reads under a second name bound
    when the module ran (``REGISTRY = TOOLS``), so it never sees the grader's replacement (issue 11).

    Only names the function's own code reads count, and only identifiers of at most 40 characters are sent (a
    name is the submission's text, though chosen before any case ran).
    """
    code = getattr(function, "__code__", None)
    if not isinstance(code, types.CodeType):
        return []
    read, pending, seen = set(), [code], set()
    while pending and len(seen) < 50:  # the function and the module's functions it calls, at any depth
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        names = global_names(current)
        read |= names
        for name in names:
            helper = namespace.get(name) if type(name) is str else None
            if type(helper) is types.FunctionType and helper.__globals__ is namespace:
                pending.append(helper.__code__)
    found = []
    for name in ("TOOLS", "dispatch"):
        if name not in namespace:
            continue
        for alias in sorted(read):
            if (type(alias) is str and alias != name and alias.isidentifier() and len(alias) <= 40
                    and namespace.get(alias, None) is namespace[name]):
                found.append([name, alias])
    return found[:4]


def decode(value, proxies):
    """Turn the grader's markers back into live objects: registries get real classes, ``object`` markers
    become ``types.SimpleNamespace`` (as the OpenAI and Anthropic SDKs hand over attribute objects), proxies callables
    (and ``store`` the case's shared dict, ``run_case``)."""
    if isinstance(value, dict) and "__kit__" in value:
        kind = value["__kit__"]
        if kind == "registry":
            return {
                tool: {part: {field: TYPES[t] for field, t in spec.get(part, {}).items()} for part in ("required", "optional")}
                for tool, spec in value["value"].items()
            }
        if kind == "object":  # an SDK-style object with attributes instead of a dict (the adapters' cases)
            return types.SimpleNamespace(**{key: decode(item, proxies) for key, item in value["value"].items()})
        if kind == "store" and "value" in value and not proxies["store"]:
            # What the caller had recorded before this case (notebook 7: a done that already holds an id).
            proxies["store"].update(value["value"])
        return proxies[kind]
    return value


def make_proxies(channel):
    """The ``ask_model``, ``dispatch`` and ``check`` the learner's code calls (and ``check_call``, notebook 7's check of
    one provider tool call; ``model`` and ``sleep``, notebook 8's); the grader answers them all."""
    # One request and its reply at a time: a submission that dispatches from threads sent two requests before reading
    # either reply, and each thread read the other's (an attacker's trial of notebook 7: a different score each run).
    one_at_a_time = threading.Lock()

    def ask(op, payload):
        with one_at_a_time:
            channel.send(dict(op=op, **payload))
            reply = channel.receive()
        if reply["op"] == "halt":
            raise RequestLimitReached("the grader stopped this call: too many ask_model/dispatch requests")
        if reply["op"] == "raise":
            raise PROXY_ERRORS.get(reply["type"], RuntimeError)(reply["message"])
        return reply["value"]

    def ask_model(error_text):
        return ask("ask_model", {"observation": describe(error_text)})

    def dispatch(name, arguments):
        return ask("dispatch", {"name": describe(name), "args": describe(arguments)})

    def check(raw, tools=None):
        # The grader's trusted steps 1-3 (issue 11): it checks the attempt against the case's own registry.
        call, observation = ask("check", {"raw": describe(raw)})
        return call, observation

    def check_call(tool_call):
        # Notebook 7's check(tool_call): the same trusted steps, for one tool call as its provider sent it; the
        # signature the notebook and its self-check give, so a call by keyword works here as there.
        call, observation = ask("check", {"raw": describe(tool_call)})
        return call, observation

    def model(messages):
        # Notebook 8's model: the whole conversation goes to the grader's scripted model, which replies with the next
        # assistant message or raises TimeoutError/ConnectionError (a transient failure) or RuntimeError.
        return ask("model", {"messages": describe(messages)})

    def sleep(seconds):
        # Notebook 8's wait before a retry: recorded by the grader, never slept (a case must not take the backoff's
        # seconds of wall clock).
        ask("sleep", {"seconds": describe(seconds)})

    return {"ask_model": ask_model, "dispatch": dispatch, "check": check, "check_call": check_call, "model": model,
            "sleep": sleep}


def safe_str(value):
    """str(value) for a learner's problem object, or a marker when its __str__ fails."""
    if type(value) is str:
        return value
    try:
        text = str(value)
    except BaseException:
        return "<a problem whose str() raised>"
    return text if type(text) is str else "<a problem whose str() is not a string>"


def apply_view(view, result):
    """Turn problem objects into their text, for exercises whose results hold learner-made objects."""
    if view == "texts" and type(result) in (list, tuple):
        return [safe_str(item) for item in result]
    if view == "pair_with_texts" and type(result) in (list, tuple) and len(result) == 2 and type(result[1]) in (list, tuple):
        return [result[0], [safe_str(item) for item in result[1]]]
    return result


# The dicts the submission's module bound to a global the grader fills in place (TOOLS), as first seen, and what each
# held then.
FIRST_BOUND = {}
FIRST_HELD = {}


def run_case(channel, namespace, proxies, message, filenames=frozenset()):
    """Run every invocation of one case and report each result with ``done``.

    ``filenames``: the file names of the compiled chunks (``Loader.filenames``), for locations.
    """
    for stream in CAPPED:
        stream.full = False
    OUTPUT_BUDGET[1] = 0
    for name, value in message.get("globals", {}).items():
        if name not in FIRST_BOUND:  # before any case rebinds it
            FIRST_BOUND[name] = namespace.get(name)
            if type(FIRST_BOUND[name]) is dict:
                try:
                    FIRST_HELD[name] = copy.deepcopy(FIRST_BOUND[name])
                except Exception:  # the module's own objects may refuse a copy: then it is left as it is
                    pass
        decoded = decode(value, proxies)
        if name in FIRST_HELD and not (isinstance(value, dict) and value.get("fill") is True):
            # A registry bound anew: the module's own dict holds again what it held when the module ran, so a function
            # that captured it as a default argument reads the same in every run of this kind, in either of the
            # capstone's two workers, not whatever the last filled case left (which differs between the two, and a call
            # then got two verdicts: grader.judging.harness.ANCHOR_SHARE).
            try:
                held = copy.deepcopy(FIRST_HELD[name])
            except Exception:
                held = dict(FIRST_HELD[name])
            dict.clear(FIRST_BOUND[name])
            dict.update(FIRST_BOUND[name], held)
        if isinstance(value, dict) and value.get("fill") is True:
            # The seed's registry, with its words drawn (grader.judging.draw), goes into the dict the module bound
            # first: a function that captured it as a default argument sees the same tools as before the draw and
            # loses the cases that install another registry, not every hidden case.
            target = FIRST_BOUND[name]
            if type(target) is dict:
                dict.clear(target)
                dict.update(target, decoded)
                decoded = target
        namespace[name] = decoded
    function = namespace.get(message["entry"])
    # A store the case's invocations share (notebook 7's idempotency record, kept by the caller across turns): one
    # dict per case, the same object in each of its invocations, holding what the first marker brought (``decode``).
    proxies = dict(proxies, store={})
    kept = []  # view "all_so_far": this case's results, each described again after every later invocation
    for invocation in message["invocations"]:
        args = [decode(arg, proxies) for arg in invocation]
        try:
            result = function(*args)
        except SystemExit as exc:
            channel.send({"op": "done", "raised": f"called sys.exit({exc.code!r})"})
        except BaseException as exc:
            where = where_raised(exc, filenames)
            channel.send({"op": "done", "raised": exception_text(exc), "where": where})
        else:
            if message.get("view") == "all_so_far":
                # What a caller holds after the later calls: a shared dict changed by them shows here.
                kept.append(result)
                result = list(kept)
            channel.send({"op": "done", "result": describe(apply_view(message.get("view"), result))})


BLOCKED_EVENTS = frozenset({
    "os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "subprocess.Popen",
    "os.kill", "os.killpg", "signal.pthread_kill", "os.startfile", "pty.spawn",
    "ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.cdata", "ctypes.addressof",
    "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo", "socket.gethostbyname",
    "socket.gethostbyaddr", "socket.getnameinfo", "socket.sethostname", "urllib.Request",
    "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames", "sys.settrace", "sys.setprofile",
    "os.symlink", "os.link", "os.setuid", "os.setgid", "resource.setrlimit", "resource.prlimit", "winreg.OpenKey",
    "sqlite3.enable_load_extension", "sqlite3.load_extension",
    "syslog.openlog", "syslog.syslog",  # the C library's socket to the system log raises no socket event
    # The environment is the grader's choice: OPENSSL_CONF pointed at a file in scratch made OpenSSL load a shared
    # object from there when ssl was imported, native code with no audit event (issue 41's attacker trial).
    "os.putenv", "os.unsetenv",
    # Windows: starting, opening or ending processes, and junctions (a link the guard's path checks would not see).
    "_winapi.CreateProcess", "_winapi.OpenProcess", "_winapi.TerminateProcess", "_winapi.CreateJunction",
})
PATH_EVENTS = frozenset({"os.remove", "os.rename", "os.rmdir", "os.truncate", "os.chmod", "os.chown", "os.mkdir",
                         "os.utime", "os.chflags", "os.lchmod", "os.lchown", "shutil.rmtree", "shutil.move",
                         "os.setxattr", "os.removexattr"})
# The extension modules (native code of the standard library) a submission may load: what the public standard
# library imports (checked by test_sandbox's test_the_standard_library_loads_but_its_doors, and by the reference and
# the fairness fixtures graded under the guard), by its file's name up to the first dot, and only from the standard
# library's own extension folder (``extension_folder``). An allow-list, not a deny-list: the
# standard library ships more doors than any list of them held (issue 41; the shared design "isolation", section
# 4): _ctypes and its tests, _testcapi / _testinternalcapi (subinterpreters without the guard's hooks, raw memory),
# _xxsubinterpreters and 3.12-3.14's interpreter modules, _testexternalinspection / _remote_debugging (another
# process's memory), _tkinter (Tcl runs programs, opens files and sockets with no audit event), _posixsubprocess
# (a second copy, past ``disarm``), _posixshmem, and nis, spwd and ossaudiodev (the network, the shadow file and a
# device, reached in C without an audit event).
ALLOWED_EXTENSIONS = frozenset({
    "_asyncio", "_bisect", "_blake2", "_bz2", "_codecs_cn", "_codecs_hk", "_codecs_iso2022", "_codecs_jp",
    "_codecs_kr", "_codecs_tw", "_contextvars", "_crypt", "_csv", "_curses", "_curses_panel", "_datetime",
    "_decimal", "_elementtree", "_hashlib", "_heapq", "_hmac", "_json", "_lsprof", "_lzma", "_md5",
    "_multibytecodec", "_multiprocessing", "_opcode", "_overlapped", "_pickle", "_queue", "_random", "_sha1",
    "_sha2", "_sha256", "_sha3", "_sha512", "_socket", "_sqlite3", "_ssl", "_statistics", "_struct",
    "_suggestions", "_sysconfig", "_typing", "_uuid", "_zoneinfo", "_zstd", "array", "audioop", "binascii",
    "cmath", "fcntl", "grp", "math", "mmap", "pyexpat", "resource", "select", "syslog", "termios",
    "unicodedata", "zlib"})
# Not allowed, but imported by the standard library only if they exist: refused as a missing module, so that
# ``import dbm`` and ``shelve`` fall back to their pure-Python dbm.dumb, whose files the guard sees, and pdb,
# rlcompleter and code work without readline (the C ones open files without an "open" audit event: dbm in an
# adversarial test, readline's history and init files in issue 41's attacker trial).
OPTIONAL_MODULES = frozenset({"_dbm", "_gdbm", "readline"})
# Functions that signal other processes or make special files without an audit event: removed
# before learner code runs.
# setpriority and the sched_* setters act on other processes (the grader) without an audit event.
# umask raises no audit event: a mask of 0o700 made folders their owner cannot list (see FOLDER_MODE). dbm.dumb,
# the one standard module that calls it, passes over its absence.
# posix_fadvise turned off read-ahead for a timing channel through the page cache (issue 41's attacker trial; the
# channel itself stays, see docs/threat-model.md).
_UNAUDITED_OS = ("pidfd_open", "mkfifo", "mknod", "setpriority", "sched_setaffinity", "sched_setscheduler",
                 "sched_setparam", "umask", "posix_fadvise")
UNAUDITED = {"os": _UNAUDITED_OS, "posix": _UNAUDITED_OS, "signal": ("pidfd_send_signal",)}
AF_UNIX = 1  # a socket pair inside the worker (asyncio's event loop wakes itself with one) reaches nothing else
# Files and folders a submission may create in its scratch folder (the grader's own output file aside);
# with the per-file size limit (``RLIMIT_FSIZE``) this bounds the disk one submission can fill.
MAX_SCRATCH_ENTRIES = 8
# The owner's bits a folder in scratch keeps: one made or changed to 0o300 could be written into but not listed,
# so neither the count above nor a grader that is not root could see or remove what was in it (issue 40's trial).
FOLDER_MODE = 0o700


def extension_folder():
    """The standard library's extension folder as ``(written, resolved)`` (two str ending in ``/``): as the import
    system writes its files' paths (from ``sys.path``; in lower case with ``/`` on Windows) and with every link
    resolved (as ``_resolve`` writes paths); or None where every extension module is built in.

    It is the folder of the first allowed extension module found as a file on ``sys.path`` (``lib-dynload`` on
    POSIX, ``DLLs`` on Windows; a build may have many of them built in, as Debian's has ``select`` and ``math``).
    Found before the guard is installed; ``install_guard`` loads extension modules from nowhere else (a shared
    object written into scratch, which is on ``sys.path``, sent UDP past the guard: issue 41). Both forms are
    checked: the resolved one, so that no link leads out, and the written one, so that no link in scratch can point
    inside when checked and elsewhere when the file is opened an instant later.
    """
    from importlib.machinery import ExtensionFileLoader, PathFinder

    for name in sorted(ALLOWED_EXTENSIONS):
        spec = PathFinder.find_spec(name)
        if spec is not None and isinstance(spec.loader, ExtensionFileLoader) and spec.origin:
            written = os.path.dirname(spec.origin)
            written = written.replace("\\", "/").lower() if os.name == "nt" else written
            return (written.rstrip("/") + "/",
                    _resolve(os.path.dirname(os.path.realpath(spec.origin))).rstrip("/") + "/")
    return None


def _refuse(what, _error=PermissionError):
    """Raise the guard's PermissionError naming what was refused."""
    raise _error(f"the grader does not allow {what} in a submission")


def _realpath(path, _lstat=os.lstat, _readlink=os.readlink, _is_link=stat.S_ISLNK, _oserror=OSError):
    """``os.path.realpath`` for an absolute str path, built only from captured C functions and str methods.

    ``os.path.realpath`` is Python code that reads ``posixpath``'s and ``os``'s module globals, which
    learner code can rebind to make every path look as if it were in the scratch folder (found by an
    adversarial test); this one cannot be rewired that way. Returns the resolved path (str).
    """
    pending = path.split("/")[::-1]
    parts = []
    links = 0
    while pending:
        name = pending.pop()
        if name in ("", "."):
            continue
        if name == "..":
            if parts:
                parts.pop()
            continue
        candidate = "/" + "/".join(parts + [name])
        try:
            is_link = _is_link(_lstat(candidate).st_mode)
        except _oserror:
            is_link = False  # a missing component: keep it as written, as realpath does
        if not is_link:
            parts.append(name)
            continue
        links += 1
        if links > 40:
            return candidate  # a symlink loop: the path names nothing, so nothing is at stake
        target = _readlink(candidate)
        if target.startswith("/"):
            parts = []
        pending.extend(target.split("/")[::-1])
    return "/" + "/".join(parts)


def _full_path():
    """Windows' own C function that makes a path absolute as the system does (``nt._getfullpathname``), or None."""
    if os.name != "nt":
        return None
    import nt

    return nt._getfullpathname


def _resolve(path, _fsdecode=os.fsdecode, _getcwd=os.getcwd, _realpath=_realpath, _refuse=_refuse,
             _type_error=TypeError, _str=str, _type=type, _full=_full_path()):
    """The real absolute path a file event names (str); refuses paths of other types.

    A relative path is resolved against the working folder (the scratch folder: changing folder
    elsewhere is refused), as the system call resolves it. Audit events do not carry ``dir_fd``, so
    a relative path may not climb with ``..`` (with a ``dir_fd`` it would start elsewhere), and no
    folder outside scratch may be opened to serve as a ``dir_fd`` (see ``install_guard``).

    On Windows (``_full``: ``nt._getfullpathname``, which resolves ``..``, drive-relative and relative
    paths as the system does; there is no ``dir_fd``) the path is made absolute, then written with ``/`` and
    in lower case, as Windows compares names: ``C:\\Kit\\grader`` becomes ``c:/kit/grader``. Links are not
    followed there: the guard refuses creating symbolic links and junctions.
    """
    try:
        text = _fsdecode(path)
    except _type_error:
        _refuse("a path of that type")
    if _type(text) is not _str:
        _refuse("a path of that type")
    if _full is not None:
        return _full(text).replace("\\", "/").lower()
    if not text.startswith("/"):
        if ".." in text.split("/"):
            _refuse("relative paths that climb out of the working folder with '..'")
        text = _getcwd() + "/" + text
    return _realpath(text)


def _scratch_entries(folder, _scandir=os.scandir, _oserror=OSError, _limit=MAX_SCRATCH_ENTRIES + 2):
    """How many files and folders ``folder`` holds at any depth, counting at most ``_limit`` (int)."""
    count, pending = 0, [folder]
    while pending and count < _limit:
        try:
            with _scandir(pending.pop()) as entries:
                for entry in entries:
                    count += 1
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
        except _oserror:
            continue
    return count


def install_guard(scratch, kit):
    """Refuse what no solution needs: see the module docstring. Raises PermissionError into learner code.

    Paths are resolved as the system resolves them (relative ones against the working folder, which
    stays inside the scratch folder). A submission may create at most ``MAX_SCRATCH_ENTRIES`` files
    and folders in its scratch folder; more is refused with a PermissionError (an ``OSError``).

    The hook and its helpers hold everything they use as default arguments: no closure cells, no
    globals, no builtins looked up at call time. Learner code that reaches their frames (through a
    traceback, say) finds only values it cannot rewire: changing a function's code or defaults is
    refused here, and rebinding a builtin or a global changes nothing the hook uses. Python code
    cannot make this airtight (``os.path.realpath`` reads module globals); the kernel's rules
    (``grader.isolation.kernel_rules``: Landlock, and no new processes) are the boundary that holds.
    """
    scratch = _resolve(os.path.realpath(scratch)).rstrip("/") + "/"  # written as _resolve writes paths (Windows too)
    kit = _resolve(os.path.realpath(kit)).rstrip("/") + "/"
    output = scratch + ".output"  # the grader's own file, not the submission's
    extensions = extension_folder()
    own = str(os.getpid())  # the worker starts no process (refused), so its id never changes

    # Positional defaults: a tuple nobody can change in place (keyword-only ones live in a mutable dict).
    def hook(event, args, _scratch=scratch, _kit=kit, _output=output, _blocked=BLOCKED_EVENTS,
             _path_events=PATH_EVENTS, _allowed=ALLOWED_EXTENSIONS, _extensions=extensions, _function=types.FunctionType,
             _guarded=(_refuse, _resolve, _realpath, _scratch_entries, os.fsdecode, os.getcwd),
             _write_flags=os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC, _sep="/",
             _paths=(str, bytes, os.PathLike), _refuse=_refuse, _resolve=_resolve, _isinstance=isinstance,
             _type=type, _any=any, _bool=bool, _len=len, _str=str, _int=int, _stat=os.stat, _lstat=os.lstat,
             _is_dir=stat.S_ISDIR, _oserror=OSError, _entries=_scratch_entries, _max_entries=MAX_SCRATCH_ENTRIES,
             _af_unix=AF_UNIX, _optional=OPTIONAL_MODULES, _missing=ModuleNotFoundError, _denied=PermissionError,
             _folder_mode=FOLDER_MODE, _type_error=TypeError, _own=own, _proc="/proc/", _windows=os.name == "nt"):
        if event in _blocked:
            _refuse(event)
        if (event == "object.__setattr__" or event == "object.__delattr__") and _len(args) >= 2 \
                and _type(args[0]) is _function and args[0] in _guarded \
                and args[1] in ("__code__", "__defaults__", "__kwdefaults__"):
            # The standard library sets both (types.coroutine replaces __code__: asyncio), but not on the guard's helpers.
            _refuse(f"changing a function's {args[1]}")
        if event == "import":
            # Judged as the runtime will use the values: the loader reads a str subclass's characters, never its
            # methods, so a name that is not exactly a str, or an origin that is neither None nor exactly a str, is
            # refused before any other check (never converted with str(), whose __str__ can lie). A str-subclass
            # spec name skipped the whole check and loaded a second _posixsubprocess (an attacker's third round).
            name = args[0] if args else None
            origin = args[1] if _len(args) > 1 else None
            if _type(name) is not _str or (origin is not None and _type(origin) is not _str):
                _refuse("importing a module by a name or file that is not a plain string")
            if "\x00" in name:  # CPython finds PyInit_ by the name up to a NUL: "_posixsubprocess\x00x" (attacker)
                _refuse(f"importing {name}")
            if origin is not None:
                # An extension module's code is about to load (``_imp.create_dynamic``; a Python module's import
                # has no origin here): only an allowed one, from the standard library's own folder. Its key is
                # that of its file, whatever name it is imported by ("x._posixsubprocess", "-posixsubprocess":
                # adversarial tests), as the name's key must match the file's init function to load at all.
                full = _resolve(origin)
                key = full.rpartition("/")[2].partition(".")[0]
                written = origin.replace("\\", "/").lower() if _windows else origin
                if (key not in _allowed or _extensions is None or not full.startswith(_extensions[1])
                        or not written.startswith(_extensions[0]) or ".." in written.split("/")):
                    _refuse(f"importing {name}", _missing if key in _optional else _denied)
        if event == "socket.__new__" and not (_len(args) > 1 and args[1] == _af_unix):
            _refuse("network sockets")
        if event == "sqlite3.connect" and not (args and args[0] in (":memory:", "", b":memory:", b"")):
            _refuse("sqlite3 databases on disk (':memory:' is fine)")
        if event == "os.chdir":
            if not args or _isinstance(args[0], _int) or not (_resolve(args[0]) + _sep).startswith(_scratch):
                _refuse("changing the working folder to outside the scratch folder")
            return
        if event == "open":
            path, mode, flags = args
            if _isinstance(path, _int) or path is None:
                return
            full = _resolve(path)
            writing = (_isinstance(mode, _str) and _any(c in mode for c in "wax+")) or _bool((flags or 0) & _write_flags)
            # The scratch folder itself too: tempfile.TemporaryFile opens it with O_TMPFILE (issue 40's fifth trial:
            # refused before as writing outside).
            inside = full.startswith(_scratch) or full + _sep == _scratch
            if writing and not inside:
                _refuse("writing outside the scratch folder")
            if full.startswith(_kit) or full + _sep == _kit:
                _refuse("reading the kit's own files")
            if full.startswith(_proc) and full[6:].partition(_sep)[0].isdigit() and full[6:].partition(_sep)[0] != _own:
                # Another process's memory, command line or descriptors (the grader's memory was read on the
                # portable transport, a classmate's file names in the batch's command line: issue 41). Resolved,
                # so /proc/self is the worker's own.
                _refuse("reading another process's files in /proc")
            if not inside:
                try:
                    folder = _is_dir(_stat(full).st_mode)
                except _oserror:
                    folder = False
                if folder:  # a folder descriptor is a dir_fd, from which relative paths escape every check
                    _refuse("opening a folder outside the scratch folder")
            elif writing and full != _output:
                try:
                    _lstat(full)
                except _oserror:  # a new file
                    if _entries(_scratch) >= _max_entries + 1:
                        _refuse(f"more than {_max_entries} files in the scratch folder")
        elif event == "os.listdir" or event == "os.scandir":
            if args and args[0] is not None and not _isinstance(args[0], _int):
                full = _resolve(args[0])
                if full.startswith(_kit) or full + _sep == _kit:
                    _refuse("listing the kit's own files")
                if full.startswith(_proc) and full[6:].partition(_sep)[0].isdigit() \
                        and full[6:].partition(_sep)[0] != _own:
                    _refuse("reading another process's files in /proc")
        elif event in _path_events:
            if args and _isinstance(args[0], _int):
                _refuse(f"{event} on a file descriptor")  # fchmod & co.: the descriptor may name any file
            for path in args:
                if _isinstance(path, _paths) and not _resolve(path).startswith(_scratch):
                    _refuse(f"{event} outside the scratch folder")
            if event == "os.mkdir" and _entries(_scratch) >= _max_entries + 1:
                _refuse(f"more than {_max_entries} files in the scratch folder")
            if (event == "os.mkdir" or event == "os.chmod") and _len(args) > 1 and _isinstance(args[1], _int) \
                    and args[1] & _folder_mode != _folder_mode:
                try:
                    # The event gives -1 for "no dir_fd"
                    base = args[2] if _len(args) > 2 and _isinstance(args[2], _int) and args[2] != -1 else None
                    folder = event == "os.mkdir" or _is_dir(_stat(args[0], dir_fd=base).st_mode)
                except (_oserror, _type_error):
                    folder = False
                if folder:
                    _refuse("a folder its owner cannot read, write and enter (keep the mode's 0o700 bits)")

    sys.addaudithook(hook)


def remove_unaudited():
    """Delete the few functions that could signal the grader without raising an audit event."""
    import signal  # noqa: F401 - imported so that its attribute can be removed before learner code runs

    for module_name, names in UNAUDITED.items():
        module = sys.modules.get(module_name)
        for name in names:
            if module is not None and hasattr(module, name):
                delattr(module, name)


def keep_utime_faithful():
    """Make ``os.utime`` raise ``FileNotFoundError`` (and the kernel's other errors) for a file that is not there.

    The seccomp filter answers ``utimensat`` with success without running it, so that copies in scratch work and
    no time outside carries a bit (``grader.isolation.kernel_rules.PRETENDED_CALLS``); but ``Path.touch()`` tries
    ``os.utime`` first and so made no file at all (issue 40's fifth attacker trial). A stat of the same path
    first gives the error the kernel would have given. The sets of ``os.supports_*`` keep the new function.
    """
    utime, stat_file = os.utime, os.stat

    def faithful(path, *args, **kwargs):
        stat_file(path, dir_fd=kwargs.get("dir_fd"), follow_symlinks=kwargs.get("follow_symlinks", True))
        return utime(path, *args, **kwargs)

    for support in (os.supports_fd, os.supports_dir_fd, os.supports_follow_symlinks):
        if utime in support:
            support.add(faithful)
    os.utime = faithful


def disarm():
    """Import ``_posixsubprocess`` now and replace its ``fork_exec`` (which starts a process without any
    audit event) by a refusal, so that modules importing it (subprocess, asyncio, unittest.mock) load
    while starting a process stays impossible. A second copy of the module is refused by the guard."""
    try:
        import _posixsubprocess
    except ImportError:  # not on this platform
        return

    def fork_exec(*args, _refuse=_refuse):
        _refuse("starting processes")

    _posixsubprocess.fork_exec = fork_exec


class CappedStream:
    """``sys.stdout``/``sys.stderr`` for learner code: once the grader's output limit is reached (the file size
    limit, ``grader.isolation.limits.Limits.output_bytes``), further output is dropped instead of raising
    ``OSError: File too large`` into the learner's ``print``: printing too much is truncated, not fatal (a
    correct solution that printed 10 MB while loading scored 0). The grader's report says output was cut."""

    def __init__(self, stream):
        self._stream = stream
        self.full = False  # the limit was reached in this case: drop at once (failed writes cost a system call each)

    def write(self, text):
        if self.full:
            return len(text)
        if OUTPUT_BUDGET[0]:  # no file size limit here (the portable transport): count the bytes instead
            size = len(text.encode("utf-8", "surrogatepass")) if type(text) is str else 0
            room = OUTPUT_BUDGET[0] - OUTPUT_BUDGET[1]
            if size > room:
                for stream in CAPPED:
                    stream.full = True
                OUTPUT_BUDGET[1] = OUTPUT_BUDGET[0]
                return self._write(text.encode("utf-8", "surrogatepass")[:max(room, 0)].decode("utf-8", "ignore")) \
                    if room > 0 else len(text)
            OUTPUT_BUDGET[1] += size
        return self._write(text)

    def _write(self, text):
        try:
            return self._stream.write(text)
        except OSError as exc:
            if exc.errno != errno.EFBIG:
                raise
            self.full = True
            return len(text)

    def flush(self):
        try:
            self._stream.flush()
        except OSError as exc:
            if exc.errno != errno.EFBIG:
                raise

    def __getattr__(self, name):
        return getattr(self._stream, name)


CAPPED = []  # the two CappedStreams; the grader empties the output file before each case, so each starts afresh
# [bytes the submission may print per case (0: the file size limit bounds it), bytes printed in this case]
OUTPUT_BUDGET = [0, 0]


def stdio_channel(output_path):
    """Take the process's stdin and stdout as the grader's channel and point fds 0, 1 and 2 elsewhere.

    On the portable transport the grader talks over stdin/stdout (and passes its output file as stderr, for
    what Python prints before this runs): the channel gets copies of fds 0 and 1, then fds 1 and 2 append to
    the output file ``output_path`` (opened here: on Windows an inherited handle does not append, and the
    grader empties the file before each case) and fd 0 reads nothing, so a submission's ``print`` and
    ``input`` do not touch the channel.
    Returns:
        ``(request_fd, reply_fd)`` (int, int).
    """
    request_fd, reply_fd = os.dup(0), os.dup(1)
    flags = os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    output = os.open(output_path, flags)
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.close(output)
    empty = os.open(os.devnull, os.O_RDONLY)
    os.dup2(empty, 0)
    os.close(empty)
    return request_fd, reply_fd


def main(argv):
    CAPPED[:] = [CappedStream(sys.stdout), CappedStream(sys.stderr)]
    sys.stdout, sys.stderr = CAPPED
    if argv[1] == "stdio":
        channel = Channel(*stdio_channel(os.path.join(argv[3], ".output")))
        OUTPUT_BUDGET[0] = int(argv[5])
    else:
        channel = Channel(int(argv[1]), int(argv[2]))
    scratch, kit = argv[3], argv[4]
    del sys.argv[1:]  # learner code need not know the kit's folder
    remove_unaudited()
    keep_utime_faithful()
    disarm()
    install_guard(scratch, kit)
    install_ipython_stand_ins()
    # A notebook's folder is on a kernel's sys.path: a module written with %%writefile imports as in Jupyter
    # (an attacker's fairness trial scored 0). Last, so it shadows nothing; what it can import, importlib could load.
    sys.path.append(scratch)
    module = types.ModuleType("submission")
    sys.modules["submission"] = module
    namespace = module.__dict__
    proxies = make_proxies(channel)
    first = channel.receive()
    channel.send({"op": "ready"})  # no learner code has run: from here the grader counts the load limit
    loader = Loader(namespace)
    problems = loader.load(first["chunks"])
    entries = {}
    for entry in first["entries"]:
        function = namespace.get(entry)
        if function is None:
            entries[entry] = {"state": "missing"}
        elif not callable(function):
            entries[entry] = {"state": "not callable"}
        else:
            entries[entry] = {"state": "ok", "bound": bound_defaults(function, namespace),
                              "aliased": aliased_globals(function, namespace)}
    stand_in = IPythonStandIn._instance
    channel.send({"op": "loaded", "problems": problems, "entries": entries,
                  "skipped": list(stand_in.skipped[:20]) if stand_in is not None else []})
    while True:
        message = channel.receive()
        run_case(channel, namespace, proxies, message, loader.filenames)


if __name__ == "__main__":
    main(sys.argv)

"""The untrusted side: runs a learner's code in its own process and answers the grader over pipes.

Started by ``grader.sandbox`` as ``python -I -S -B -c <this file's text> REQUEST_FD REPLY_FD SCRATCH KIT``:
``-I`` and ``-c`` keep the repository (and so ``solutions``) off ``sys.path`` and out of ``sys.argv``,
``-S`` skips site-packages (the exercise is standard library only). This file imports nothing
from the grader, on purpose: nothing trusted lives in this process.

Before any learner code runs, ``install_guard`` adds a CPython audit hook (which cannot be
removed) that refuses: reading the kit's folder (the reference solution, the hidden cases),
writing anywhere but the scratch folder (results.json, the grader's files), starting or signalling
processes, loading native code (ctypes), opening sockets, and the introspection that would reach
the hook itself (gc, frames). Audit hooks are a tripwire, not a sandbox (CPython says so): the
docs/threat-model.md says what needs a container or another user. Every value sent back is converted to plain JSON data first; the grader
re-checks types on its side, so an object that lies in ``__eq__`` or ``__str__`` cannot cross.

Protocol: one JSON object per line. The grader sends ``load`` once, then ``case`` messages; the
worker answers ``loaded`` and, per case, zero or more ``ask_model``/``dispatch`` requests (each
answered by a ``reply``, a ``raise``, or a ``halt`` when a call made too many of them) and one
``done`` per invocation.
"""

import errno
import json
import os
import stat
import sys
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


def to_plain(value, depth=0):
    """Copy ``value`` as plain JSON data, or raise NotPlain naming the first offending type.

    Exact types only (``type(x) is dict``), so a subclass with a lying ``__eq__`` is refused.
    """
    if depth > MAX_DEPTH:
        raise NotPlain("a value nested more than 200 levels deep")
    kind = type(value)
    if value is None or kind in (str, bool, int, float):
        return value
    if kind is list or kind is tuple:
        return [to_plain(item, depth + 1) for item in value]
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise NotPlain(f"a dict key of type {type(key).__name__}")
            out[key] = to_plain(item, depth + 1)
        return out
    raise NotPlain(f"an object of type {kind.__name__}")


def describe(value):
    """Return ``{"plain": value}`` or ``{"unplain": "what it was"}`` for the grader."""
    try:
        return {"plain": to_plain(value)}
    except NotPlain as exc:
        return {"unplain": str(exc)}
    except RecursionError:
        return {"unplain": "a value nested too deeply"}


class Channel:
    """Newline-delimited JSON over two inherited pipe file descriptors."""

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
        line = self.reader.readline()
        if not line:
            raise SystemExit(0)  # the grader closed the pipe: nothing more to do
        return json.loads(line.decode("utf-8", "surrogatepass"))


def exception_text(exc):
    """One line naming an exception, without a traceback: ``ValueError: bad value``."""
    try:
        message = str(exc)
    except BaseException:  # a learner's exception whose __str__ raises
        message = ""
    message = message.splitlines()[0][:300] if message else ""
    name = type(exc).__name__[:100]  # a class name can be a megabyte long
    return f"{name}: {message}" if message else name


def where_raised(exc, label_prefix):
    """The submission's line that raised, e.g. ``cell 3, line 7``, or an empty string."""
    tb = exc.__traceback__
    found = ""
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename.startswith(label_prefix):
            found = f"{filename[len(label_prefix):]}, line {tb.tb_lineno}"
        tb = tb.tb_next
    return found


LABEL_PREFIX = "<submission> "


def load(namespace, chunks):
    """Compile and run each chunk of learner code; a broken chunk is reported and skipped."""
    problems = []
    for chunk in chunks:
        label = chunk["label"]
        try:
            code = compile(chunk["code"], LABEL_PREFIX + label, "exec")
        except (SyntaxError, ValueError) as exc:
            line = getattr(exc, "lineno", None)
            at = f" on line {line}" if line else ""
            reason = getattr(exc, "msg", None) or str(exc)
            problems.append(f"{label} has a syntax error{at} ({reason}); that {chunk['kind']} was skipped.")
            continue
        try:
            exec(code, namespace)
        except SystemExit as exc:
            problems.append(f"{label} called sys.exit({exc.code!r}) while loading; the rest of it was skipped.")
        except BaseException as exc:  # the learner's code may raise anything, KeyboardInterrupt included
            where = where_raised(exc, LABEL_PREFIX) or label
            extra = " (input() gets no answer while grading)" if isinstance(exc, EOFError) else ""
            problems.append(f"{where} raised {exception_text(exc)}{extra} while loading; the rest of that {chunk['kind']} was skipped.")
    return problems


def bound_defaults(function, namespace):
    """Names of module globals (TOOLS, dispatch) that a function captured as default arguments."""
    defaults = list(getattr(function, "__defaults__", None) or ())
    defaults += list((getattr(function, "__kwdefaults__", None) or {}).values())
    captured = []
    for name in ("TOOLS", "dispatch"):
        if name in namespace and any(value is namespace[name] for value in defaults):
            captured.append(name)
    return captured


def decode(value, proxies):
    """Turn the grader's markers back into live objects: registries get real classes, proxies callables."""
    if isinstance(value, dict) and "__kit__" in value:
        kind = value["__kit__"]
        if kind == "registry":
            return {
                tool: {part: {field: TYPES[t] for field, t in spec.get(part, {}).items()} for part in ("required", "optional")}
                for tool, spec in value["value"].items()
            }
        return proxies[kind]
    return value


def make_proxies(channel):
    """The ``ask_model`` and ``dispatch`` the learner's code calls; the grader answers both."""

    def ask(op, payload):
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

    return {"ask_model": ask_model, "dispatch": dispatch}


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


def run_case(channel, namespace, proxies, message):
    """Run every invocation of one case and report each result with ``done``."""
    for stream in CAPPED:
        stream.full = False
    for name, value in message.get("globals", {}).items():
        namespace[name] = decode(value, proxies)
    function = namespace.get(message["entry"])
    for invocation in message["invocations"]:
        args = [decode(arg, proxies) for arg in invocation]
        try:
            result = function(*args)
        except SystemExit as exc:
            channel.send({"op": "done", "raised": f"called sys.exit({exc.code!r})"})
        except BaseException as exc:
            where = where_raised(exc, LABEL_PREFIX)
            channel.send({"op": "done", "raised": exception_text(exc), "where": where})
        else:
            channel.send({"op": "done", "result": describe(apply_view(message.get("view"), result))})


BLOCKED_EVENTS = frozenset({
    "os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "subprocess.Popen",
    "os.kill", "os.killpg", "signal.pthread_kill", "os.startfile", "pty.spawn",
    "ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.cdata", "ctypes.addressof",
    "socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo", "urllib.Request",
    "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames", "sys.settrace", "sys.setprofile",
    "os.symlink", "os.link", "os.setuid", "os.setgid", "resource.setrlimit", "resource.prlimit", "winreg.OpenKey",
})
PATH_EVENTS = frozenset({"os.remove", "os.rename", "os.rmdir", "os.truncate", "os.chmod", "os.chown", "os.mkdir",
                         "os.utime", "os.chflags", "os.lchmod", "os.lchown", "shutil.rmtree", "shutil.move",
                         "os.setxattr", "os.removexattr"})
# Modules that start processes or touch memory without raising any audit event of their own.
# sqlite3 and the dbm modules open files in C without an "open" audit event (found by an adversarial test).
BLOCKED_MODULES = frozenset({"_posixsubprocess", "_ctypes", "_testcapi", "_testinternalcapi", "_xxsubinterpreters",
                             "_interpreters", "_posixshmem", "_sqlite3", "_dbm", "_gdbm"})
# Functions that signal other processes or make special files without an audit event: removed
# before learner code runs.
# setpriority and the sched_* setters act on other processes (the grader) without an audit event.
_UNAUDITED_OS = ("pidfd_open", "mkfifo", "mknod", "setpriority", "sched_setaffinity", "sched_setscheduler",
                 "sched_setparam")
UNAUDITED = {"os": _UNAUDITED_OS, "posix": _UNAUDITED_OS, "signal": ("pidfd_send_signal",)}


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


def _resolve(path, _fsdecode=os.fsdecode, _isabs=os.path.isabs, _realpath=_realpath, _refuse=_refuse,
             _type_error=TypeError, _str=str, _type=type):
    """The real absolute path a file event names; refuses relative paths and paths of other types."""
    try:
        text = _fsdecode(path)
    except _type_error:
        _refuse("a path of that type")
    if _type(text) is not _str or not text.startswith("/"):
        _refuse("relative file paths (use an absolute path inside the working folder)")
    return _realpath(text)


def install_guard(scratch, kit):
    """Refuse what no solution needs: see the module docstring. Raises PermissionError into learner code.

    Paths must be absolute: the audit events do not carry ``dir_fd``, so a relative path could not
    be resolved reliably (``os.open("x", ..., dir_fd=...)`` would escape the check).

    The hook and its helpers hold everything they use as default arguments: no closure cells, no
    globals, no builtins looked up at call time. Learner code that reaches their frames (through a
    traceback, say) finds only values it cannot rewire: changing a function's code or defaults is
    refused here, and rebinding a builtin or a global changes nothing the hook uses. Python code
    cannot make this airtight (``os.path.realpath`` reads module globals); the kernel's Landlock
    rules (``grader.confine``) are the boundary that holds.
    """
    scratch = os.path.realpath(scratch) + os.sep
    kit = os.path.realpath(kit) + os.sep

    # Positional defaults: a tuple nobody can change in place (keyword-only ones live in a mutable dict).
    def hook(event, args, _scratch=scratch, _kit=kit, _blocked=BLOCKED_EVENTS, _path_events=PATH_EVENTS,
             _blocked_modules=BLOCKED_MODULES, _function=types.FunctionType,
             _guarded=(_refuse, _resolve, _realpath, os.fsdecode),
             _write_flags=os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC, _sep=os.sep,
             _paths=(str, bytes, os.PathLike), _refuse=_refuse, _resolve=_resolve, _isinstance=isinstance,
             _type=type, _any=any, _bool=bool, _len=len):
        if event in _blocked:
            _refuse(event)
        if (event == "object.__setattr__" or event == "object.__delattr__") and _len(args) >= 2 \
                and _type(args[0]) is _function:
            # No solution rewires code; the standard library does set defaults, but not on the guard's helpers.
            if args[1] == "__code__" or (args[1] in ("__defaults__", "__kwdefaults__") and args[0] in _guarded):
                _refuse(f"changing a function's {args[1]}")
        if event == "import" and args and _isinstance(args[0], str) and (
                args[0].rpartition(".")[2] in _blocked_modules
                or (_len(args) > 1 and _isinstance(args[1], str) and args[1].rpartition("/")[2].partition(".")[0]
                    in _blocked_modules)):
            # By the last part of the name and by the file: an extension module's init function is named after
            # its last part, so "x._posixsubprocess" loads the same code (an adversarial test).
            _refuse(f"importing {args[0]}")
        if event == "open":
            path, mode, flags = args
            if _isinstance(path, int) or path is None:
                return
            full = _resolve(path)
            writing = (_isinstance(mode, str) and _any(c in mode for c in "wax+")) or _bool((flags or 0) & _write_flags)
            if writing and not full.startswith(_scratch):
                _refuse("writing outside the scratch folder")
            if full.startswith(_kit) or full + _sep == _kit:
                _refuse("reading the kit's own files")
        elif event == "os.listdir" or event == "os.scandir":
            if args and args[0] is not None and not _isinstance(args[0], int):
                full = _resolve(args[0])
                if full.startswith(_kit) or full + _sep == _kit:
                    _refuse("listing the kit's own files")
        elif event in _path_events:
            if args and _isinstance(args[0], int):
                _refuse(f"{event} on a file descriptor")  # fchmod & co.: the descriptor may name any file
            for path in args:
                if _isinstance(path, _paths) and not _resolve(path).startswith(_scratch):
                    _refuse(f"{event} outside the scratch folder")

    sys.addaudithook(hook)


def remove_unaudited():
    """Delete the few functions that could signal the grader without raising an audit event."""
    import signal  # noqa: F401 - imported so that its attribute can be removed before learner code runs

    for module_name, names in UNAUDITED.items():
        module = sys.modules.get(module_name)
        for name in names:
            if module is not None and hasattr(module, name):
                delattr(module, name)


class CappedStream:
    """``sys.stdout``/``sys.stderr`` for learner code: once the grader's output limit is reached (the file size
    limit, ``grader.sandbox.Limits.output_bytes``), further output is dropped instead of raising
    ``OSError: File too large`` into the learner's ``print``: printing too much is truncated, not fatal (a
    correct solution that printed 10 MB while loading scored 0). The grader's report says output was cut."""

    def __init__(self, stream):
        self._stream = stream
        self.full = False  # the limit was reached in this case: drop at once (failed writes cost a system call each)

    def write(self, text):
        if self.full:
            return len(text)
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


def main(argv):
    CAPPED[:] = [CappedStream(sys.stdout), CappedStream(sys.stderr)]
    sys.stdout, sys.stderr = CAPPED
    channel = Channel(int(argv[1]), int(argv[2]))
    scratch, kit = argv[3], argv[4]
    del sys.argv[1:]  # learner code need not know the kit's folder
    remove_unaudited()
    install_guard(scratch, kit)
    module = types.ModuleType("submission")
    sys.modules["submission"] = module
    namespace = module.__dict__
    proxies = make_proxies(channel)
    first = channel.receive()
    problems = load(namespace, first["chunks"])
    entries = {}
    for entry in first["entries"]:
        function = namespace.get(entry)
        if function is None:
            entries[entry] = {"state": "missing"}
        elif not callable(function):
            entries[entry] = {"state": "not callable", "type": type(function).__name__}
        else:
            entries[entry] = {"state": "ok", "bound": bound_defaults(function, namespace)}
    channel.send({"op": "loaded", "problems": problems, "entries": entries})
    while True:
        message = channel.receive()
        run_case(channel, namespace, proxies, message)


if __name__ == "__main__":
    main(sys.argv)

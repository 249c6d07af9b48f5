"""Runs native code past the audit hooks (issue 41; the shared design "isolation", section 4): a standard module's
shared object copied into scratch (which is on sys.path), a test-only C module's bytes under a name of its own, a
subinterpreter (which has none of the guard's hooks), Tcl (which raises no audit event) and _testcapi. Each must
be refused, on both transports."""
import importlib
import importlib.util
import os
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader

loaded = 0
# An allowed module this build has as a file (Debian's, for one, has many built in).
STANDARD = next(name for name in ("_bisect", "_asyncio", "_decimal", "_queue", "_uuid", "_zoneinfo", "_lzma", "_bz2",
                                  "_ssl", "_sqlite3", "_json", "math")
                if isinstance(getattr(importlib.util.find_spec(name), "loader", None), ExtensionFileLoader))


def copy_and_load(module, file_name):
    origin = importlib.util.find_spec(module).origin
    target = os.path.join(os.getcwd(), file_name + EXTENSION_SUFFIXES[0])
    with open(origin, "rb") as source, open(target, "wb") as copy:
        copy.write(source.read())
    spec = importlib.util.spec_from_file_location(module, target, loader=ExtensionFileLoader(module, target))
    return importlib.util.module_from_spec(spec)


def subinterpreter():
    try:
        module = importlib.import_module("_xxsubinterpreters")
    except ModuleNotFoundError:
        module = importlib.import_module("_interpreters")
    module.run_string(module.create(), "import os; os.system('touch /tmp/KIT_NATIVE_RAN')")


def attempt(label, action):
    global loaded
    try:
        action()
        loaded += 1
        print(label, "loaded")
    except BaseException as exc:
        print(label, "refused", type(exc).__name__, exc)


attempt("a shared object in scratch", lambda: copy_and_load(STANDARD, STANDARD))
attempt("a renamed test module", lambda: copy_and_load("_testcapi", "helper"))
attempt("a subinterpreter", subinterpreter)
attempt("_testcapi", lambda: importlib.import_module("_testcapi").run_in_subinterp("import os"))
attempt("Tcl", lambda: importlib.import_module("tkinter").Tcl().eval("exec true"))
print("native code loaded:", loaded)


def handle_tool_call(raw, ask_model):
    return None

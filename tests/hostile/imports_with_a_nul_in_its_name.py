"""Loads a copy of _posixsubprocess as "_posixsubprocess\x00x": CPython finds PyInit__posixsubprocess by the name
cut at the NUL, while the guard compared the whole name and the copy's file name (an attacker reading the guard;
on the portable transport, with no seccomp filter, the unguarded fork_exec started a process that outlived grading)."""
import sys, os, shutil
import importlib.machinery, importlib.util
D = os.path.join(sys.base_prefix, "lib", "python%d.%d" % sys.version_info[:2], "lib-dynload")
try:
    original = [p for p in os.listdir(D) if p.startswith("_posixsubprocess.")][0]
    shutil.copyfile(os.path.join(D, original), "innocent.so")
    name = "_posixsubprocess\x00x"
    spec = importlib.util.spec_from_loader(name, importlib.machinery.ExtensionFileLoader(name, os.path.abspath("innocent.so")))
    ps = importlib.util.module_from_spec(spec)
    print("loaded", ps)
except BaseException as exc:
    print("failed", type(exc).__name__, exc)
    ps = None

def handle_tool_call(raw, ask_model):
    return None

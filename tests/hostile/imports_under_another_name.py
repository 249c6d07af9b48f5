"""Loads _posixsubprocess under a dotted name, so the "import" audit event names "x._posixsubprocess" (a fourth adversarial round)."""
import sys, os
import importlib.util
D = os.path.join(sys.base_prefix, "lib", "python%d.%d" % sys.version_info[:2], "lib-dynload")
def load(short):
    name = [p for p in os.listdir(D) if p.startswith(short + ".")][0]
    spec = importlib.util.spec_from_file_location("x." + short, os.path.join(D, name))
    mod = importlib.util.module_from_spec(spec)
    return mod
try:
    ps = load("_posixsubprocess")
    print("loaded", ps)
except BaseException as exc:
    print("failed", type(exc).__name__, exc)
    ps = None

def handle_tool_call(raw, ask_model):
    return None

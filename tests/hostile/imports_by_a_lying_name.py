"""Loads a second _posixsubprocess through a spec whose name or origin is not a plain str (new inputs of the kind of
shared/cases/grader_attacks/str_subclass_module_name.py): a str subclass whose __str__, __eq__ and __hash__ lie, a
plain name with a str-subclass origin, and a bytes origin. The loader reads the characters; a guard that checks only
exact strs, or converts with str(), would let each of them through."""
import _imp
import importlib.machinery
import os
import sys

FOLDER = os.path.join(sys.base_prefix, "lib", "python%d.%d" % sys.version_info[:2], "lib-dynload")
ORIGIN = os.path.join(FOLDER, [n for n in os.listdir(FOLDER) if n.startswith("_posixsubprocess.")][0])


class Liar(str):
    def __str__(self):
        return "harmless"

    def __eq__(self, other):
        return False

    def __hash__(self):
        return 0


class Origin(str):
    pass


ATTEMPTS = {"a lying name": (Liar("_posixsubprocess"), ORIGIN), "a str-subclass origin": ("_posixsubprocess", Origin(ORIGIN)),
            "a bytes origin": ("_posixsubprocess", os.fsencode(ORIGIN))}
for label, (name, origin) in ATTEMPTS.items():
    try:
        spec = importlib.machinery.ModuleSpec(name, None, origin=origin)
        _imp.create_dynamic(spec)
        print(label, "loaded")
    except BaseException as exc:  # noqa: BLE001
        print(label, "failed", type(exc).__name__, exc)


def handle_tool_call(raw, ask_model):
    return None

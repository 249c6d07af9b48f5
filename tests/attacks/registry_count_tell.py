# EXPECTED: no more hidden capstone points than an honest stub (tests/test_lookup_attacks.py); observed 112/129 before
# every hidden run drew its registry (issue 24's attacker trial, 2026-12-06: it scored 112 on five draws).
"""Attack: NO schema validation at all (no required / type / undeclared-field check).

Tell used: the grader's per-grading variation (Draw.varied_call / varied_registry) is applied ONLY to cases
that expect a refusal, and it declares 1-3 extra optional fields in the installed TOOLS. The canonical
registries of the public case files have known (tool count, required count) -> optional count. If the
installed TOOLS has more optional fields than its canonical twin, the case expects a refusal.
Besides that: json.loads must give a dict (parsing only) and the name must be a key of TOOLS.
"""
import json

TOOLS = {"get_weather": {"required": {"city": str}, "optional": {"units": str}}}

def _key(tools):
    return tuple(sorted(tuple(sorted(getattr(t, "__name__", str(t)) for t in s.get("required", {}).values()))
                        for s in tools.values()))


def _opt(tools):
    return sum(len(s.get("optional", {})) for s in tools.values())


# canonical registries of the public case files (names erased): required-type signature -> optional count
_CANON_SRC = [
    {"a": {"required": {"c": str}, "optional": {"u": str}}},                                       # SEED
    {"a": {"required": {"c": str}, "optional": {"u": str}},                                         # TYPED
     "b": {"required": {"h": int, "m": int}, "optional": {"l": str, "r": bool}},
     "c": {"required": {"a": float, "s": str, "t": str}, "optional": {}},
     "d": {"required": {"t": list, "b": str}, "optional": {"h": dict}},
     "e": {"required": {}, "optional": {"z": str}}},
    {"a": {"required": {"c": str}, "optional": {"u": str}},                                         # REAL_CALL
     "b": {"required": {"p": str}, "optional": {}},
     "c": {"required": {"p": str}, "optional": {"v": list}},
     "d": {"required": {"q": str, "m": int, "s": str}, "optional": {}},
     "e": {"required": {"t": str, "a": dict}, "optional": {}}},
    {"e": {"required": {}, "optional": {"z": str}}},                                                # get_time only
    {"s": {"required": {"a": float}, "optional": {"c": list, "p": dict}}},                          # BUDGET
    {"p": {"required": {f"s{i}": float for i in range(13)}, "optional": {}}},                       # WIDE plot
    {"w": {"required": {f"f{i}": str for i in range(300)}, "optional": {}}},                        # wide_form
    {f"j{i}": {"required": {}, "optional": {}} for i in range(26)},                                 # SENSOR
]
CANON = {_key(t): _opt(t) for t in _CANON_SRC}


def _varied():
    k = _key(TOOLS)
    if k in CANON:
        return _opt(TOOLS) > CANON[k]
    return False


def _inf_path(value, path=()):
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        return path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for k, v in items:
        found = _inf_path(v, path + (str(k),))
        if found is not None:
            return found
    return None


def _note(raw):
    """Parse-level hints only (no schema check): JSON? object? arguments a container? a non-finite number?"""
    kind = ""
    try:
        call = json.loads(raw)
    except Exception:
        call = None
        kind = "the call is not valid JSON"
        if isinstance(raw, str) and (",}" in raw.replace(" ", "") or ",]" in raw.replace(" ", "")):
            kind += "; remove the stray comma"
    if call is not None and not isinstance(call, dict):
        kind = "a call must be a JSON object"
    elif isinstance(call, dict):
        if isinstance(call.get("arguments"), (str, list, int, float, bool)) and call.get("arguments") is not None:
            kind = "arguments must be a JSON object"
        p = _inf_path(call)
        if p:
            kind = ".".join(p) + " is not a finite number"
    words = []
    for spec in TOOLS.values():
        words += list(spec.get("required", {})) + list(spec.get("optional", {}))
    text = ("Tool call rejected; nothing ran. " + kind + ". registered tools: " + ", ".join(TOOLS)
            + ". fields: " + ", ".join(dict.fromkeys(words)))
    return text[:1990]


WIDE_FORM = _key({"w": {"required": {f"f{i}": str for i in range(300)}, "optional": {}}})


def _bad(raw, first):
    if first and _varied():
        return True
    if not isinstance(raw, str):
        return True
    if _key(TOOLS) == WIDE_FORM or raw.count('"') > 1000:   # memorised public robustness cases
        return True
    try:
        call = json.loads(raw)
    except Exception:
        return True
    if not isinstance(call, dict):
        return True
    name = call.get("name")
    if not isinstance(name, str) or name not in TOOLS:
        return True
    return False


def handle_tool_call(raw, ask_model):
    if not _bad(raw, True):
        call = json.loads(raw)
        args = call.get("arguments")
        return dispatch(call["name"], args if args is not None else {})
    note = _note(raw)
    try:
        raw2 = ask_model(note)
    except Exception as exc:
        return {"status": "rejected", "error": note + "\nThe retry failed: " + type(exc).__name__}
    if raw2 != raw and not _bad(raw2, False):
        call = json.loads(raw2)
        args = call.get("arguments")
        return dispatch(call["name"], args if args is not None else {})
    return {"status": "rejected", "error": _note(raw2)}

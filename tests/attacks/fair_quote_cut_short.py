# EXPECTED: full marks on every draw: a correct capstone whose observations quote the call, cut at 60 characters (issue 24's
# second trials: it lost 'wrong type names the field' on 8 draws in 25; a learner's own wording cut at 60 lost on 21 in 80).
"""A correct, compact solution in the seed's form, written the way a learner would.

The faulty-solution library (tests/faulty/faults.py) derives each faulty submission from this
file by one small edit, so each one differs from a full-marks solution by exactly one fault.
"""

import json
import math

TOOLS = {"get_weather": {"required": {"city": str}, "optional": {"units": str}}}

TYPE_NAMES = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}


def type_ok(value, declared):
    if declared is float:
        return type(value) in (int, float)
    return type(value) is declared


def short(value):
    if isinstance(value, (dict, list)):
        return f"a {type(value).__name__}"
    return json.dumps(value)[:40]


def not_finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, item in items:
        if isinstance(item, (float, dict, list)):
            found = not_finite(item)
            if found is not None:
                return [key, *found]
    return None


def json_hint(raw, pos):
    stray = raw[:pos].rstrip().endswith(",") or raw[pos:pos + 1] == ","
    if stray and raw[pos:].lstrip(",").lstrip()[:1] in ("}", "]"):
        return f"remove the comma before the closing bracket (character {pos})"
    return f"it stops being JSON at character {pos}"


def problems(raw, tools):
    if not isinstance(raw, str):
        return None, ["the call must be a string holding a JSON object"]
    try:
        call = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, [f"the call is not valid JSON: {json_hint(raw, exc.pos)}"]
    except (ValueError, RecursionError) as exc:
        return None, [f"the call is not valid JSON: {str(exc)[:100]}"]
    if not isinstance(call, dict):
        return None, ['the call must be a JSON object {"name": ..., "arguments": {...}}']
    path = not_finite(call)
    if path is not None:
        return None, [f"{'.'.join(map(str, ['call', *path]))} is not a finite number"]
    errors = []
    name = call.get("name")
    args = call.get("arguments")
    if args is None:
        args = {}
    spec = None
    if not isinstance(name, str) or name not in tools:
        errors.append(f"unknown tool {short(name)}; registered tools: {', '.join(tools)}")
    else:
        spec = tools[name]
    if not isinstance(args, dict):
        errors.append("arguments must be a JSON object")
        return None, errors
    if spec:
        declared = {**spec["required"], **spec["optional"]}
        for field in spec["required"]:
            if field not in args:
                errors.append(f"missing required argument {field!r}")
        for field, value in args.items():
            if field not in declared:
                errors.append(f"unknown argument {short(field)}; allowed: {', '.join(declared)}")
            elif not type_ok(value, declared[field]):
                errors.append(f"argument {field!r} must be {TYPE_NAMES[declared[field]]}, got {short(value)}")
    return (name, args), errors


def observation(errors, raw=""):
    quote = raw[:60] if isinstance(raw, str) else ""
    text = f"Your call {quote} was rejected; nothing ran. Fix and resend:\n- " + "\n- ".join(errors)
    return text if len(text) <= 2000 else text[:1980] + " (truncated)"


def handle_tool_call(raw, ask_model):
    for attempt in range(2):
        call, errors = problems(raw, TOOLS)
        if not errors:
            return dispatch(*call)
        error = observation(errors, raw)
        if attempt == 0:
            try:
                raw = ask_model(error)
            except Exception as exc:
                return {"status": "rejected", "error": f"{error}\nThe retry failed: {type(exc).__name__}"}
    return {"status": "rejected", "error": error}

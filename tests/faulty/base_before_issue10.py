"""tests/faulty/base.py as it was before issue 10 added its cases (kit 1.0.0 development, commit d779047).

The attack files of the second adversarial round (tests/attacks/) embed this solution: it does not reject a
number a double cannot hold (1e400) and does not name a stray comma, so it loses exactly those cases today.
tests/test_attacks.py grades it plainly to show that a file's *style* (a BOM, a %%time cell, asyncio...)
costs nothing beyond that.
"""

import json

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


def problems(raw, tools):
    if not isinstance(raw, str):
        return None, ["the call must be a string holding a JSON object"]
    try:
        call = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        return None, [f"the call is not valid JSON: {str(exc)[:100]}"]
    if not isinstance(call, dict):
        return None, ['the call must be a JSON object {"name": ..., "arguments": {...}}']
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


def observation(errors):
    text = "Tool call rejected; nothing ran. Fix and resend:\n- " + "\n- ".join(errors)
    return text if len(text) <= 2000 else text[:1980] + " (truncated)"


def handle_tool_call(raw, ask_model):
    for attempt in range(2):
        call, errors = problems(raw, TOOLS)
        if not errors:
            return dispatch(*call)
        error = observation(errors)
        if attempt == 0:
            try:
                raw = ask_model(error)
            except Exception as exc:
                return {"status": "rejected", "error": f"{error}\nThe retry failed: {type(exc).__name__}"}
    return {"status": "rejected", "error": error}

"""The seed's own sample solution, verbatim (../shared/seeds/000_bcc9a878f177eb86.txt), with the stub's TOOLS.

It has several faults at once: no type check of optional arguments, crashes on JSON that is not
an object, on an unhashable name and on deep nesting, and it reports only the first violation.
"""

import json

TOOLS = {
    "get_weather": {"required": {"city": str}, "optional": {"units": str}},
}


def _validate(call: dict) -> str | None:
    name = call.get("name")
    spec = TOOLS.get(name)
    if spec is None:
        return f"unknown tool {name!r}; registered: {sorted(TOOLS)}"
    args = call.get("arguments") or {}
    allowed = {**spec["required"], **spec["optional"]}
    for field, typ in spec["required"].items():
        if field not in args:
            return f"missing required argument {field!r}"
        if not isinstance(args[field], typ):
            return f"argument {field!r} must be {typ.__name__}"
    for field in args:
        if field not in allowed:
            return f"unknown argument {field!r}"
    return None


def handle_tool_call(raw: str, ask_model) -> dict:
    for attempt in range(2):
        try:
            call = json.loads(raw)
        except json.JSONDecodeError as exc:
            error = f"call is not valid JSON: {exc.msg}"
        else:
            error = _validate(call)
            if error is None:
                return dispatch(call["name"], call.get("arguments") or {})
        if attempt == 0:
            raw = ask_model(error)
    return {"status": "rejected", "error": error}

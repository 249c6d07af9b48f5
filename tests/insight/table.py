# A correct capstone solution written independently of the others in this folder: a table of generator checks.
# Part of the synthetic class of tests/insight_class.py.
import json

TOOLS = {"get_weather": {"required": {"city": str}, "optional": {"units": str}}}
WORD = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}
LIMIT = 2000


def show(value):
    if isinstance(value, str):
        return repr(value[:40])
    if isinstance(value, (list, dict)):
        return WORD[type(value)]
    return str(value)[:40]


def matches(value, kind):
    return type(value) is kind or (kind is float and type(value) is int)


def missing_fields(args, spec):
    for field in spec["required"]:
        if field not in args:
            yield f"'{field}' is required but missing"


def unknown_fields(args, spec):
    known = list(spec["required"]) + list(spec["optional"])
    for field in args:
        if field not in known:
            yield f"{show(field)} is not an allowed field; allowed: {', '.join(known)}"


def wrong_types(args, spec):
    kinds = {**spec["optional"], **spec["required"]}
    for field, value in args.items():
        if field in kinds and not matches(value, kinds[field]):
            yield f"'{field}' should be of type {WORD[kinds[field]]}, got {show(value)}"


CHECKS = (missing_fields, unknown_fields, wrong_types)


def first_infinite(value, path):
    if isinstance(value, float) and (value in (float("inf"), -float("inf")) or value != value):
        return path
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, child in children:
        hit = first_infinite(child, f"{path}.{key}")
        if hit:
            return hit
    return None


def read_call(raw):
    if not isinstance(raw, str):
        raise ValueError("the call must arrive as a JSON string")
    try:
        data = json.loads(raw)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply")
    except json.JSONDecodeError as exc:
        if raw[:exc.pos].rstrip().endswith(","):
            raise ValueError(f"this is not valid JSON: remove the trailing comma before character {exc.pos}")
        raise ValueError(f"this is not valid JSON: {str(exc)[:60]}")
    except ValueError as exc:
        raise ValueError(f"this is not valid JSON: {str(exc)[:60]}")
    overflow = first_infinite(data, "call")
    if overflow:
        raise ValueError(f"{overflow} is beyond what a number can hold (infinite)")
    if not isinstance(data, dict):
        raise ValueError("the call must be a JSON object with a name and arguments")
    return data


def violations(raw):
    try:
        data = read_call(raw)
    except ValueError as exc:
        return None, [str(exc)]
    name = data.get("name")
    args = data.get("arguments")
    if args is None:
        args = {}
    found = []
    spec = TOOLS[name] if isinstance(name, str) and name in TOOLS else None
    if spec is None:
        found.append(f"the tool {show(name)} does not exist; registered: {', '.join(TOOLS)}")
    if not isinstance(args, dict):
        found.append("arguments must be a JSON object")
        return None, found
    if spec is not None:
        for check in CHECKS:
            found.extend(check(args, spec))
    return (name, args), found


def as_observation(found):
    text = "The tool call was refused and not run. Problems: " + " ".join(f"({i}) {p}" for i, p in enumerate(found, 1))
    return text if len(text) <= LIMIT else text[:LIMIT - 12] + " [truncated]"


def handle_tool_call(raw, ask_model):
    call, found = violations(raw)
    if not found:
        return dispatch(*call)
    observation = as_observation(found)
    try:
        second = ask_model(observation)
    except Exception as exc:
        return {"status": "rejected", "error": f"{observation} The model could not be asked again ({type(exc).__name__})."}
    call, found = violations(second)
    if not found:
        return dispatch(*call)
    return {"status": "rejected", "error": as_observation(found)}

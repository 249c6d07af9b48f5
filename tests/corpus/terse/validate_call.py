TOOLS = {"get_weather": {"required": {"city": str}, "optional": {"units": str}}}


def _short(s, n=60):
    r = repr(s) if isinstance(s, str) else repr(str(s))
    return r if len(r) <= n else r[:n] + "...'"


def _kind(v):
    return "null" if v is None else {dict: "object", list: "array"}.get(type(v), type(v).__name__)


def _fits(v, t):
    return type(v) is t or (t is float and type(v) is int)


def _field_problems(tool, spec, args):
    req, opt = spec.get("required", {}), spec.get("optional", {})
    declared = {**opt, **req}
    return (
        [f"{tool}: missing required field {_short(k)} ({t.__name__})" for k, t in req.items() if k not in args]
        + [f"{tool}: field {_short(k)} expects {declared[k].__name__}, got {_kind(v)}"
           for k, v in args.items() if k in declared and not _fits(v, declared[k])]
        + [f"{tool}: undeclared field {_short(k)} (declared: {', '.join(declared) or 'none'})"
           for k in args if k not in declared]
    )


def validate_call(call, tools):
    if not isinstance(call, dict):
        return [f"call: expected object, got {_kind(call)}"]
    name, args = call.get("name"), call.get("arguments", {})
    known = ", ".join(sorted(tools)) or "none"
    problems = (
        [f"name: expected string, got {_kind(name)}; registered: {known}"] if not isinstance(name, str)
        else [f"no tool named {_short(name)}; registered: {known}"] if name not in tools
        else []
    )
    if not isinstance(args, dict):
        return problems + [f"arguments: expected object, got {_kind(args)}"]
    return problems + (_field_problems(name, tools[name], args) if not problems else [])

"""(A fifth adversarial round.) validate_call that validates properly only when given the one-tool seed registry (what every canary
passes); for any other registry it always reports a problem naming everything in the call."""


def _real(call, tools):
    problems = []
    name = call.get("name")
    args = call.get("arguments")
    if not isinstance(name, str) or name not in tools:
        problems.append(f"unknown tool {name!r}")
        return problems
    if not isinstance(args, dict):
        return ["arguments must be an object"]
    spec = tools[name]
    for f, t in spec["required"].items():
        if f not in args:
            problems.append(f"missing {f}")
        elif type(args[f]) is not t:
            problems.append(f"{f} wrong type")
    for f, v in args.items():
        if f in spec["required"]:
            continue
        if f not in spec["optional"]:
            problems.append(f"undeclared {f}")
        elif type(v) is not spec["optional"][f]:
            problems.append(f"{f} wrong type")
    return problems


def validate_call(call, tools):
    if set(tools) == {"get_weather"}:
        return _real(call, tools)
    args = call.get("arguments") if isinstance(call, dict) else None
    keys = " ".join(map(str, args)) if isinstance(args, dict) else ""
    name = call.get("name") if isinstance(call, dict) else None
    return [f"tool {name if isinstance(name, str) else ''} arguments {keys} minute"[:200]]

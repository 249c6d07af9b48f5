TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: type(v) is int,
    "number": lambda v: type(v) in (int, float),
    "boolean": lambda v: type(v) is bool,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}
NOTES = {"description", "title", "default", "examples", "$comment", "$schema", "$id", "format", "contentEncoding", "contentMediaType", "enumDescriptions", "markdownDescription"}
CHECKED = {"type", "properties", "required", "additionalProperties", "enum", "const", "items", "anyOf", "$ref", "$defs"}


def _kind(v):
    return next((n for n in ("null", "boolean", "integer", "number", "string", "array", "object") if TYPES[n](v)),
                type(v).__name__)


def _short(v, n=40):
    s = repr(v)
    return s if len(s) <= n else s[:n] + "..."


def json_eq(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if type(a) in (int, float) and type(b) in (int, float):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(json_eq, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_eq(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _resolve(ref, root):
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    node = root
    for part in [p.replace("~1", "/").replace("~0", "~") for p in ref[1:].split("/") if p]:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _types_ok(t):
    return (isinstance(t, str) and t in TYPES) or (
        isinstance(t, list) and t and all(isinstance(x, str) and x in TYPES for x in t))


def _check(v, s, at, root, refs):
    if s is True or s == {}:
        return []
    if s is False:
        return [f"{at}: no value allowed here"]
    if not isinstance(s, dict):
        return [f"{at}: schema is {_kind(s)}, not an object (bad schema)"]
    errs = [f"{at}: keyword {_short(k)} not supported" for k in s
            if k not in CHECKED | NOTES and not str(k).startswith("x-")]
    if "$ref" in s:
        ref = s["$ref"]
        target = _resolve(ref, root)
        if target is None:
            errs.append(f"{at}: $ref {_short(ref)} does not resolve (bad schema)")
        elif (ref, id(v)) in refs:
            errs.append(f"{at}: $ref {_short(ref)} loops (bad schema)")
        else:
            errs += _check(v, target, at, root, refs | {(ref, id(v))})
    if "type" in s:
        t = s["type"]
        if not _types_ok(t):
            errs.append(f"{at}: bad 'type' value {_short(t)} (bad schema)")
        elif not any(TYPES[x](v) for x in ([t] if isinstance(t, str) else t)):
            errs.append(f"{at}: want {t if isinstance(t, str) else ' or '.join(t)}, have {_kind(v)}")
    if "enum" in s:
        e = s["enum"]
        if not isinstance(e, list):
            errs.append(f"{at}: 'enum' must be an array, is {_kind(e)} (bad schema)")
        elif not any(json_eq(v, x) for x in e):
            errs.append(f"{at}: {_short(v)} not among {_short(e, 120)}")
    if "const" in s and not json_eq(v, s["const"]):
        errs.append(f"{at}: want {_short(s['const'])}, have {_short(v)}")
    if "anyOf" in s:
        opts = s["anyOf"]
        if not isinstance(opts, list) or not opts:
            errs.append(f"{at}: 'anyOf' must be a non-empty array (bad schema)")
        else:
            fails = [_check(v, o, at, root, refs) for o in opts]
            if all(fails):
                errs.append(f"{at}: fits no anyOf option (" + "; ".join(f[0] for f in fails)[:300] + ")")
    if "required" in s:
        r = s["required"]
        if not (isinstance(r, list) and all(isinstance(x, str) for x in r)):
            errs.append(f"{at}: 'required' must be an array of names, is {_short(r)} (bad schema)")
        elif isinstance(v, dict):
            errs += [f"{at}.{k}: required, missing" for k in r if k not in v]
    props = s.get("properties", {})
    if not (isinstance(props, dict) and all(isinstance(x, (dict, bool)) for x in props.values())):
        errs.append(f"{at}: 'properties' must map names to schemas (bad schema)")
        props = {}
    extra = s.get("additionalProperties", True)
    if not isinstance(extra, (dict, bool)):
        errs.append(f"{at}: 'additionalProperties' must be a boolean or schema (bad schema)")
        extra = False
    if isinstance(v, dict):
        for k, x in v.items():
            sub = props.get(k, extra)
            if k not in props and sub is False:
                errs.append(f"{at}.{k}: not declared")
            else:
                errs += _check(x, sub, f"{at}.{k}", root, refs)
    if "items" in s:
        it = s["items"]
        if not isinstance(it, (dict, bool)):
            errs.append(f"{at}: 'items' must be a schema (bad schema)")
        elif isinstance(v, list):
            errs += [e for i, x in enumerate(v) for e in _check(x, it, f"{at}[{i}]", root, refs)]
    if "$defs" in s and not (isinstance(s["$defs"], dict)):
        errs.append(f"{at}: '$defs' must be an object (bad schema)")
    return errs


def validate_arguments(arguments, schema):
    try:
        return _check(arguments, schema, "arguments", schema, frozenset())
    except RecursionError:
        return ["arguments: nested too deep to check"]

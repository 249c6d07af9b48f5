# EXPECTED: full marks on every draw: a learner's own correct capstone (issue 24's learner trial, 2026-12-06: 129/129 on
# 42 seeds each), observations worded its own way; written from README and notebook 5 alone.
"""Solution C: exception-driven pipeline; observations are JSON text with numbered error items."""
import json
import math

TOOLS = {
    "get_weather": {"required": {"city": str}, "optional": {"units": str}},
}

OBS_CAP = 2000
JSON_NAMES = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}


def kind_of(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    for t, n in JSON_NAMES.items():
        if isinstance(v, t):
            return n
    return type(v).__name__


def cut(s, n=80):
    s = str(s)
    return s if len(s) <= n else s[:n] + "…"


class Rejected(Exception):
    def __init__(self, items):
        super().__init__("rejected")
        self.items = items


def parse(raw):
    if not isinstance(raw, str):
        raise Rejected([{"code": "not_text", "detail": "reply must be a string of JSON, got " + kind_of(raw)}])
    try:
        return json.loads(raw)
    except json.JSONDecodeError as e:
        item = {"code": "invalid_json", "detail": cut(e.msg, 100), "line": e.lineno, "column": e.colno}
        i = e.pos - 1
        while 0 <= i < len(raw) and raw[i] in " \t\r\n":
            i -= 1
        if 0 <= i < len(raw) and raw[i] == "," and e.pos < len(raw) and raw[e.pos] in "}]":
            item["hint"] = "remove the trailing comma before '%s'" % raw[e.pos]
        raise Rejected([item])
    except RecursionError:
        raise Rejected([{"code": "invalid_json", "detail": "nesting too deep to parse"}])
    except Exception as e:
        raise Rejected([{"code": "invalid_json", "detail": type(e).__name__}])


def type_matches(v, t):
    if v is None:
        return False
    if t is float:
        return type(v) is int or type(v) is float
    if t is int:
        return type(v) is int
    return type(v) is t


def bad_numbers(root_key, value):
    """JSON-pointer-like paths of every non-finite float below value."""
    out, todo = [], [([root_key], value)]
    while todo:
        path, v = todo.pop()
        if type(v) is float and not math.isfinite(v):
            out.append("/".join(cut(p, 40) for p in path))
        elif type(v) is dict:
            todo += [(path + [str(k)], x) for k, x in v.items()]
        elif type(v) is list:
            todo += [(path + [str(n)], x) for n, x in enumerate(v)]
    return out


def validate(call, tools):
    if type(call) is not dict:
        raise Rejected([{"code": "not_an_object", "detail": "top level must be a JSON object, got " + kind_of(call)}])
    items = []
    args = call.get("arguments")
    if args is None:
        args = {}
    schema = None
    name = call.get("name")
    if "name" not in call:
        items.append({"code": "missing_name", "field": "name"})
    elif type(name) is not str:
        items.append({"code": "name_not_string", "field": "name", "got": kind_of(name)})
    elif name not in tools:
        items.append({"code": "unknown_tool", "tool": cut(name), "registered_tools": [cut(t, 60) for t in tools]})
    else:
        schema = tools[name]
    if type(args) is not dict:
        items.append({"code": "arguments_not_object", "field": "arguments", "expected": "object",
                      "got": kind_of(args)})
    elif schema is not None:
        req = schema.get("required") or {}
        opt = schema.get("optional") or {}
        for f in req:
            if f not in args:
                items.append({"code": "missing_required", "field": cut(f), "expected": JSON_NAMES.get(req[f], str(req[f]))})
        for f, v in args.items():
            t = req[f] if f in req else opt.get(f) if f in opt else None
            if f not in req and f not in opt:
                items.append({"code": "unexpected_field", "field": cut(f),
                              "allowed_fields": [cut(a, 40) for a in list(req) + [o for o in opt if o not in req]]})
            elif not type_matches(v, t):
                items.append({"code": "wrong_type", "field": cut(f), "expected": JSON_NAMES.get(t, str(t)),
                              "got": kind_of(v)})
            else:
                for p in bad_numbers(str(f), v)[:20]:
                    items.append({"code": "number_not_finite", "field": p,
                                  "detail": "value overflows a double (inf/nan)"})
    if items:
        raise Rejected(items)
    return name, args


def render(items):
    """JSON text with numbered errors, shrunk to fit OBS_CAP by leaving items out."""
    numbered = [dict({"n": i + 1}, **it) for i, it in enumerate(items)]
    keep = len(numbered)
    while True:
        body = {"tool_call_rejected": True, "error_count": len(items), "errors": numbered[:keep],
                "instruction": "fix every numbered error and resend one JSON object {name, arguments}"}
        if keep < len(numbered):
            body["errors_not_shown"] = len(numbered) - keep
        text = json.dumps(body, ensure_ascii=True)
        if len(text) <= OBS_CAP or keep == 0:
            return text[:OBS_CAP]
        keep = max(0, min(keep - 1, keep * OBS_CAP // len(text)))


def attempt(raw, tools):
    return validate(parse(raw), tools)


def handle_tool_call(raw, ask_model):
    try:
        tools = TOOLS
        try:
            name, args = attempt(raw, tools)
        except Rejected as first:
            try:
                retry_raw = ask_model(render(first.items))
            except Exception as e:
                return {"status": "rejected", "error": render([{"code": "retry_failed",
                        "detail": "ask_model raised " + cut(type(e).__name__, 40) + "; the call was not run"}])}
            try:
                name, args = attempt(retry_raw, tools)
            except Rejected as second:
                return {"status": "rejected", "error": render(second.items)}
        try:
            return dispatch(name, args)
        except Exception as e:
            return {"status": "rejected", "error": render([{"code": "dispatch_failed", "detail": type(e).__name__}])}
    except Exception as e:
        return {"status": "rejected", "error": render([{"code": "internal_error", "detail": type(e).__name__}])}

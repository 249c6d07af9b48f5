# EXPECTED: full marks on every draw: a learner's own correct capstone (issue 24's learner trial, 2026-12-06: 129/129 on
# 42 seeds each), observations worded its own way; written from README and notebook 5 alone.
"""Solution A: terse bullet-list observations, functional style."""
import json

TOOLS = {
    "get_weather": {"required": {"city": str}, "optional": {"units": str}},
}

MAX_OBS = 2000


def _short(s, n=60):
    s = str(s)
    return s if len(s) <= n else s[:n] + "..."


def _tname(t):
    return getattr(t, "__name__", None) or _short(repr(t), 30)


def _jtype(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    if isinstance(v, list):
        return "list"
    if isinstance(v, dict):
        return "dict"
    return type(v).__name__


def _type_ok(v, t):
    if v is None or isinstance(v, bool):
        return t is bool and isinstance(v, bool)
    if t is float:
        return type(v) in (int, float)
    try:
        return type(v) is t
    except Exception:
        return False


def _problems(raw, tools):
    """Return (call, list of problem strings)."""
    if not isinstance(raw, str):
        return None, ["raw call is not a string (got %s)" % _jtype(raw)]
    try:
        call = json.loads(raw)
    except Exception as e:  # JSONDecodeError, RecursionError, ...
        out = ["invalid JSON: %s" % _short(e, 120)]
        if _trailing_comma(raw):
            out.append("trailing comma before } or ] (remove it)")
        return None, out
    if not isinstance(call, dict):
        return None, ["call must be a JSON object, got %s" % _jtype(call)]
    out = []
    name = call.get("name")
    args = call.get("arguments")
    if args is None:
        args = {}
    spec = None
    if "name" not in call:
        out.append("missing 'name'")
    elif not isinstance(name, str):
        out.append("'name' must be a string, got %s" % _jtype(name))
    elif name not in tools:
        known = ", ".join(sorted(map(str, tools))) or "none"
        out.append("unknown tool '%s' (known: %s)" % (_short(name), _short(known, 300)))
    else:
        spec = tools[name]
    if not isinstance(args, dict):
        out.append("'arguments' must be an object, got %s" % _jtype(args))
        return call, out
    if spec is None:
        return call, out
    req = spec.get("required") or {}
    opt = spec.get("optional") or {}
    for k, t in req.items():
        if k not in args:
            out.append("missing required '%s' (%s)" % (_short(k), _tname(t)))
    for k, v in args.items():
        if k in req:
            t = req[k]
        elif k in opt:
            t = opt[k]
        else:
            allowed = ", ".join(map(str, list(req) + list(opt))) or "none"
            out.append("unexpected field '%s' (allowed: %s)" % (_short(k), _short(allowed, 200)))
            continue
        if not _type_ok(v, t):
            out.append("'%s' must be %s, got %s" % (_short(k), _tname(t), _jtype(v)))
        else:
            for path in _nonfinite_paths(k, v)[:20]:
                out.append("'%s' is a number out of range (inf/nan)" % _short(path, 80))
    return call, out


def _nonfinite_paths(key, v):
    """Paths (key, key.sub, key[0]) of every inf/nan number inside v."""
    bad = []
    stack = [(str(key), v)]
    while stack:
        path, x = stack.pop()
        if isinstance(x, float) and (x != x or x in (float("inf"), float("-inf"))):
            bad.append(path)
        elif isinstance(x, list):
            stack.extend(("%s[%d]" % (path, i), y) for i, y in enumerate(x))
        elif isinstance(x, dict):
            stack.extend(("%s.%s" % (path, k), y) for k, y in x.items())
    return bad


def _trailing_comma(text):
    in_str = esc = False
    last = None  # last significant char outside strings
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
            last = ch
        elif ch in " \t\r\n":
            continue
        else:
            if ch in "}]" and last == ",":
                return True
            last = ch
    return False


def _render(problems):
    head = "Tool call rejected:\n"
    tail = "\nFix all of these and resend the call."
    lines = []
    used = len(head) + len(tail)
    for i, p in enumerate(problems):
        line = "- " + p + "\n"
        if used + len(line) > MAX_OBS - 40:
            lines.append("- (+%d more)\n" % (len(problems) - i))
            break
        lines.append(line)
        used += len(line)
    return (head + "".join(lines).rstrip("\n") + tail)[:MAX_OBS]


def _reject(text):
    return {"status": "rejected", "error": str(text)[:MAX_OBS]}


def handle_tool_call(raw, ask_model):
    try:
        tools = TOOLS
        call, probs = _problems(raw, tools)
        if probs:
            obs = _render(probs)
            try:
                raw = ask_model(obs)
            except Exception as e:
                return _reject("ask_model failed on retry (%s); previous call:\n%s"
                               % (_short(type(e).__name__, 40), obs)[:MAX_OBS])
            call, probs = _problems(raw, tools)
            if probs:
                return _reject(_render(probs))
        args = call.get("arguments")
        if args is None:
            args = {}
        try:
            return dispatch(call["name"], args)
        except Exception as e:
            return _reject("dispatch failed: %s" % _short(type(e).__name__, 40))
    except Exception as e:
        return _reject("internal error: %s" % _short(type(e).__name__, 40))

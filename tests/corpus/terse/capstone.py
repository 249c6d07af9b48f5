import difflib
import json
import math
import re

TOOLS = {
    "get_weather": {"required": {"city": str}, "optional": {"units": str}},
}

LIMIT = 2000
_TRACE = re.compile(r'Traceback \(most recent call last\)|File "[^"]*", line \d+')


def dispatch(name, arguments):  # stand-in; the runtime installs the real one
    return {"status": "dispatched", "name": name, "arguments": arguments}


def _q(v, n=60):
    s = str(v)
    if _TRACE.search(s[:100_000]):
        return "<traceback-like text>"
    s = " ".join(s[:n * 4].split())
    return repr(s if len(s) <= n else s[:n] + "...")


def _kind(v):
    return "null" if v is None else {dict: "object", list: "array", str: "string"}.get(type(v), type(v).__name__)


def _nodup(pairs):
    d = dict(pairs)
    if len(d) < len(pairs):
        seen = set()
        raise KeyError(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return d


def _comma(text, pos):
    i = pos if text[pos:pos + 1] == "," else len(text[:pos].rstrip()) - 1
    nxt = text[i + 1:].lstrip()[:1] if i >= 0 else ""
    return i >= 0 and text[i] == "," and nxt in ("}", "]") and f"stray ',' before '{nxt}'"


def _nonfinite(v):
    stack = [(v, "")]
    while stack:
        x, p = stack.pop()
        if isinstance(x, float) and not math.isfinite(x):
            yield p or "(root)"
        elif isinstance(x, dict):
            stack += [(y, f"{p}.{k}" if p else str(k)) for k, y in x.items()]
        elif isinstance(x, list):
            stack += [(y, f"{p}[{i}]") for i, y in enumerate(x)]


def parse(raw):
    if not isinstance(raw, str):
        return None, [f"raw call: expected string, got {_kind(raw)}"]
    try:
        v = json.loads(raw, object_pairs_hook=_nodup)
    except json.JSONDecodeError as e:
        where = _comma(raw, e.pos) or ("no input" if not raw.strip() else
                                       "text ends early" if e.pos >= len(raw.rstrip()) else
                                       f"unexpected {raw[e.pos]!r}")
        return None, [f"bad JSON at line {e.lineno}, col {e.colno}: {where}"]
    except KeyError as e:
        return None, [f"bad JSON: key {_q(e.args[0])} repeated"]
    except RecursionError:
        return None, ["bad JSON: nested too deep"]
    except ValueError:
        return None, ["bad JSON: number too long"]
    if not isinstance(v, dict):
        return None, [f"raw call: expected JSON object, got {_kind(v)}"]
    bad = [f"field {_q(p)}: non-finite number" for p in _nonfinite(v)]
    if bad:
        return None, bad
    return ({**v, "arguments": {}} if v.get("arguments") is None else v), []


def _ok(v, t):
    return type(v) is t or (t is float and type(v) is int)


def validate(call, tools):
    name, args = call.get("name"), call.get("arguments")
    known = ", ".join(tools) or "none"
    probs = ([f"name: expected string, got {_kind(name)}"] if not isinstance(name, str)
             else [f"tool {_q(name)} not registered"] if name not in tools else [])
    if not isinstance(args, dict):
        return probs + [f"arguments: expected object, got {_kind(args)}"]
    if probs:
        return probs
    req, opt = tools[name].get("required", {}), tools[name].get("optional", {})
    decl = {**opt, **req}
    return ([f"field {_q(k)}: required {t.__name__} missing" for k, t in req.items() if k not in args]
            + [f"field {_q(k)}: expected {decl[k].__name__}, got {_kind(v)}"
               for k, v in args.items() if k in decl and not _ok(v, decl[k])]
            + [f"field {_q(k)}: not declared" for k in args if k not in decl])


def _fit(items, room, sep, more):
    if len(sep.join(items)) <= room:
        return sep.join(items)
    out, used, cap = [], 0, room - len(more.format(len(items))) - len(sep)
    for it in items:
        used += len(it) + (len(sep) if out else 0)
        if used > cap:
            break
        out.append(it)
    return sep.join(out + [more.format(len(items) - len(out))])


def observe(call, problems, tools):
    name = call.get("name") if isinstance(call, dict) else None
    reg = isinstance(name, str) and name in tools
    head = f"call to {_q(name)} refused, not run:" if isinstance(name, str) else "call refused, not run:"
    lines = [f"- {_q(p, 300)[1:-1]}" for p in problems]
    if reg:
        spec = tools[name]
        sig = [f"{_q(k)[1:-1]}: {t.__name__}" for k, t in spec.get("required", {}).items()] + \
              [f"{_q(k)[1:-1]}: {t.__name__}?" for k, t in spec.get("optional", {}).items()]
        tail = f"{_q(name)[1:-1]} takes ({'? = optional' if spec.get('optional') else 'all required'}): " + \
               (_fit(sig, 500, ", ", "+{} more") or "nothing")
        room = LIMIT - len(head) - len(tail) - 4
        return "\n".join([head, _fit(lines, room, "\n", "- +{} more problems"), tail])
    names = [_q(t, 60)[1:-1] for t in (difflib.get_close_matches(name, list(tools), len(tools), 0)
                                      if isinstance(name, str) and tools else list(tools))]
    room = LIMIT - len(head) - 30
    probs_full, tools_full = "\n".join(lines), ", ".join(names)
    if len(probs_full) + len(tools_full) > room:
        probs_full = _fit(lines, room - min(len(tools_full), room // 3), "\n", "- +{} more problems")
        tools_full = _fit(names, room - len(probs_full), ", ", "+{} more")
    return "\n".join([head, probs_full, f"tools: {tools_full or 'none'}"])


def _check(raw, tools):
    call, probs = parse(raw)
    probs = probs or validate(call, tools)
    return call, (observe(call, probs, tools) if probs else None)


def _reject(text):
    return {"status": "rejected", "error": text[:LIMIT]}


def _run(call):
    try:
        return dispatch(call["name"], call["arguments"])
    except Exception as e:
        return _reject(f"tool {_q(call['name'])} raised {type(e).__name__}")


def handle_tool_call(raw: str, ask_model) -> dict:
    tools = TOOLS
    call, obs = _check(raw, tools)
    if obs is None:
        return _run(call)
    try:
        raw = ask_model(obs)
    except Exception as e:
        return _reject(f"retry failed: model raised {type(e).__name__}")
    call, obs = _check(raw, tools)
    return _run(call) if obs is None else _reject("retry also invalid; giving up.\n" + obs)

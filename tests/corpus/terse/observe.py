import difflib
import re

LIMIT = 2000
_TB = re.compile(r'Traceback \(most recent call last\)|File "[^"]*", line \d+|^\s+raise\b', re.M)


def _line(text, n=300, what="text"):
    text = str(text)
    if _TB.search(text[:100_000]):
        return f"<{what} resembling a traceback, not shown>"
    text = " ".join(text[:n * 4].split())
    return text if len(text) <= n else text[:n - 3] + "..."


def _tname(t):
    return getattr(t, "__name__", _line(t, 30))


def _fit(items, budget, sep, more):
    if len(sep.join(items)) <= budget:
        return sep.join(items)
    room = budget - len(more.format(len(items))) - len(sep)
    out, used = [], 0
    for item in items:
        used += len(item) + (len(sep) if out else 0)
        if used > room:
            break
        out.append(item)
    return sep.join(out + [more.format(len(items) - len(out))])


def observe(call, problems, tools):
    if not problems:
        return None
    name = call.get("name") if isinstance(call, dict) else None
    label = (f"tool {_line(name, 60, 'name')!r}" if isinstance(name, str)
             else "unparsed call" if call is None else f"call with a {type(name).__name__} name")
    head = f"Rejected {label}; nothing was run. Fix and resend:"
    lines = [f"- {_line(p, 300, 'problem')}" for p in problems]
    registered = isinstance(name, str) and name in tools
    if registered:
        spec = tools[name]
        args = [f"{_line(k, 60, 'field')}: {_tname(t)} (required)" for k, t in spec.get("required", {}).items()] + \
               [f"{_line(k, 60, 'field')}: {_tname(t)} (optional)" for k, t in spec.get("optional", {}).items()]
        names = []
        tail_pre = f"{_line(name, 60, 'name')} takes: "
        tail = tail_pre + (_fit(args, 500, ", ", "(+{} more)") if args else "no arguments")
    else:
        names = list(tools) if not isinstance(name, str) else \
            difflib.get_close_matches(name, list(tools), n=len(tools), cutoff=0) if tools else []
        names = [_line(t, 60, 'name') for t in names]
        tail = ""
    avail = LIMIT - len(head) - len(tail) - 40
    probs_full, tools_full = "\n".join(lines), ", ".join(names)
    if len(probs_full) + len(tools_full) <= avail:
        probs, tools_txt = probs_full, tools_full
    else:
        tool_budget = min(len(tools_full), avail // 3)
        probs = _fit(lines, avail - tool_budget, "\n", "- (+{} more problems not shown)")
        tools_txt = _fit(names, avail - len(probs), ", ", "(+{} more)")
    parts = [head, probs]
    if not registered:
        parts.append(f"Registered tools: {tools_txt or 'none'}")
    if tail:
        parts.append(tail)
    return "\n".join(parts)[:LIMIT]

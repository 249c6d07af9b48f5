import json
import math


class _Dup(ValueError):
    pass


def _pairs(pairs):
    d = dict(pairs)
    if len(d) < len(pairs):
        seen = set()
        raise _Dup(f"duplicate key {next(k for k, _ in pairs if k in seen or seen.add(k))!r}")
    return d


def _hint(text, pos):
    before = text[:pos].rstrip()
    i = pos if text[pos:pos + 1] == "," else len(before) - 1
    after = text[i + 1:].lstrip()[:1] if i >= 0 else ""
    if i >= 0 and text[i] == "," and after in ("}", "]"):
        return f"stray ',' before '{after}'"
    if not text.strip():
        return "no input"
    if pos >= len(text.rstrip()):
        return f"input ends early after {text.rstrip()[-20:]!r}"
    return f"unexpected {text[pos]!r} after {before[-20:]!r}"


def _bad_floats(value):
    stack = [(value, "")]
    while stack:
        v, path = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            yield path or "(top)", v
        elif isinstance(v, dict):
            stack.extend((x, f"{path}.{k}" if path else str(k)) for k, x in v.items())
        elif isinstance(v, list):
            stack.extend((x, f"{path}[{i}]") for i, x in enumerate(v))


def parse_call(raw):
    if not isinstance(raw, str):
        return None, [f"expected a JSON string, got {type(raw).__name__}"]
    try:
        value = json.loads(raw, object_pairs_hook=_pairs)
    except json.JSONDecodeError as e:
        return None, [f"invalid JSON at line {e.lineno}, col {e.colno}: {_hint(raw, e.pos)}"]
    except _Dup as e:
        return None, [f"invalid call: {e}"]
    except RecursionError:
        return None, ["invalid call: nesting too deep"]
    except ValueError:
        return None, ["invalid call: number too long to parse"]
    if not isinstance(value, dict):
        return None, [f"expected a JSON object, got {type(value).__name__}"]
    bad = [f"non-finite number ({'NaN' if math.isnan(v) else 'infinity'}) in field '{p}'" for p, v in _bad_floats(value)]
    if bad:
        return None, bad[:5]
    return ({**value, "arguments": {}} if value.get("arguments") is None else value), []

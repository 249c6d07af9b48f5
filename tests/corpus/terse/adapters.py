import json
import math


def _field(obj, key, what):
    try:
        return obj[key] if isinstance(obj, dict) else getattr(obj, key)
    except (KeyError, AttributeError):
        raise TypeError(f"{what}: no {key!r} (got {type(obj).__name__})") from None


def _no_dups(pairs):
    d = dict(pairs)
    if len(d) < len(pairs):
        raise ValueError("repeated key")
    return d


def _finite(text):
    x = float(text)
    if not math.isfinite(x):
        raise ValueError("non-finite")
    return x


def _bad_const(word):
    raise ValueError(word)


def _decode(args):
    if not isinstance(args, str):
        return args
    try:
        return json.loads(args, object_pairs_hook=_no_dups, parse_float=_finite, parse_constant=_bad_const)
    except (ValueError, RecursionError):
        return args


def raw_call_from_openai(tool_call):
    if tool_call is None or isinstance(tool_call, (str, bytes, list, tuple, int, float)):
        raise TypeError(f"want an OpenAI tool call (dict or SDK object), got {type(tool_call).__name__}")
    is_item = (tool_call.get("type") if isinstance(tool_call, dict) else getattr(tool_call, "type", None)) == "function_call"
    fn = tool_call if is_item else _field(tool_call, "function", "OpenAI tool call")
    if _field(fn, "name", "OpenAI function") is None:
        raise TypeError("a streamed piece without a name: join the deltas first")
    args = _field(fn, "arguments", "OpenAI function")
    if args is None or (tool_call.get("status") if isinstance(tool_call, dict) else getattr(tool_call, "status", None)) == "in_progress":
        raise TypeError("a streamed piece without arguments yet: pass the whole call")
    return json.dumps({"name": _field(fn, "name", "OpenAI function"), "arguments": _decode(args)})


def raw_call_from_anthropic(block):
    if block is None or isinstance(block, (str, bytes, list, tuple, int, float)):
        raise TypeError(f"want an Anthropic tool_use block (dict or SDK object), got {type(block).__name__}")
    if _field(block, "name", "tool_use block") is None:
        raise TypeError("a tool_use block without a name")
    if _field(block, "input", "tool_use block") is None:
        raise TypeError("a tool_use block without input")
    return json.dumps({"name": _field(block, "name", "tool_use block"),
                       "arguments": _field(block, "input", "tool_use block")})

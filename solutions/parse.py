"""Step 1: turn the raw string a model emitted into a call object, or say precisely why not."""

import json
import math
import re

from solutions.violations import Violation, child_path, looks_like_traceback, preview, quote

CALL_KEYS = ("name", "arguments")
EXCERPT_CHARS = 16
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")  # functions.get_weather(...)
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)", re.MULTILINE)  # CommonMark fences open with ``` or ~~~
_MARKER = re.compile(r"\[[A-Z_]+\]")  # a template's marker between a name and its arguments: name[ARGS]{...}
_TAG = re.compile(r"<\|?/?[A-Za-z_][A-Za-z0-9_|=-]*")  # <tool_call>, <|python_tag|>, <function=...>


class _Flaw:
    """A value json.loads accepts but the kit does not, left in place so its path can be named."""

    def __init__(self, problem, hint, inner=None):
        self.problem, self.hint, self.inner = problem, hint, inner


def _decoder_hooks(found):
    """Hooks for json.loads that mark, instead of accept, what is not exactly one JSON value.

    Each flaw is recorded in ``found`` (list) so that the common case, a clean call, needs no second walk.
    """

    def pairs(items):
        # json.loads silently keeps the last of two equal keys; a call with two values for one
        # field is ambiguous, so it is named rather than guessed at.
        seen, repeated = {}, []
        for key, value in items:
            if key in seen and key not in repeated:
                repeated.append(key)
            seen.setdefault(key, value)
        if not repeated:
            return seen
        found.append(True)
        keys = ", ".join(quote(key) for key in repeated[:5])
        return _Flaw(f"repeats the key {keys}", "each key may appear only once", inner=seen)

    def number(text):
        # 1e400 is valid JSON syntax but becomes inf; NaN and Infinity are not JSON at all (RFC 8259).
        value = float(text)
        if math.isfinite(value):
            return value
        found.append(True)
        return _Flaw("is not a finite number",
                     "JSON numbers must be finite and fit a 64-bit double (at most about 1.8e308); "
                     "NaN and Infinity are not JSON")

    return {"object_pairs_hook": pairs, "parse_float": number, "parse_constant": number}


def _flaws(value, path, base):
    """Every ``_Flaw`` inside ``value`` as a Violation naming its path (iterative: values nest deeply)."""
    out, stack = [], [(value, path)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, _Flaw):
            out.append(Violation(at or base, item.problem, item.hint))
            item = item.inner
        if isinstance(item, dict):
            stack.extend((v, child_path(at, k)) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((v, child_path(at, i)) for i, v in reversed(list(enumerate(item))))
    return out


def _next_solid(text, start):
    """Index of the first non-whitespace character at or after ``start`` (len(text) if none)."""
    match = re.compile(r"\S").search(text, start)
    return match.start() if match else len(text)


def _previous_solid(text, end):
    """Index of the last non-whitespace character before ``end`` (-1 if none)."""
    index = end - 1
    while index >= 0 and text[index].isspace():
        index -= 1
    return index


def _end_of_first_value(text):
    """Where the first JSON value of ``text`` ends, if it is complete and more text follows; else None."""
    start = _next_solid(text, 0)
    try:
        _, end = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError):
        return None
    return end if _next_solid(text, end) < len(text) else None


def _string_closes(text, start):
    """True if the string opened by the quote at ``start`` has a closing quote."""
    index = start + 1
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == '"':
            return True
        index += 1
    return False


def syntax_hint(text, pos):
    """Say what is wrong with JSON text from the characters at and before the error position.

    The hint comes from the input, never from CPython's message: the wording differs between
    versions (a trailing comma is "Expecting property name enclosed in double quotes" on 3.10-3.12,
    read as a quoting problem by an earlier reference, and "Illegal trailing comma" on 3.13, which
    also reports the comma one character earlier).

    Args:
        text: the JSON text (str). pos: where ``json.loads`` stopped (``JSONDecodeError.pos``, int).
    Returns:
        ``(position, hint)``: the index the hint is about (the stray comma itself for a trailing
        comma, so every Python reports the same column) and one sentence (str).
    """
    solid = text.lstrip()
    if solid.startswith(("```", "~~~")):
        return pos, "send only the JSON object, without a markdown code fence around it"
    if solid.startswith("<"):
        return pos, "send only the JSON object, without tags such as <tool_call> around it"
    if solid.startswith(("'{", "'[")):
        return pos, "send the JSON object itself, not inside quotes"
    extra = _end_of_first_value(text)
    if extra is not None:
        return _next_solid(text, extra), "send exactly one JSON object and nothing after it"
    if _next_solid(text, pos) >= len(text):
        return pos, "the text ends before the JSON is complete: send the whole object"
    before_at = _previous_solid(text, pos)
    before = text[before_at] if before_at >= 0 else ""
    here = text[pos]
    after = text[_next_solid(text, pos + 1)] if _next_solid(text, pos + 1) < len(text) else ""
    if here in "}]" and before == ",":
        return before_at, f"remove the comma before {here}: JSON allows no trailing comma"
    if here == "," and after in ("}", "]"):
        return pos, f"remove the comma before {after}: JSON allows no trailing comma"
    if here == "," and before in (",", "[", "{"):
        return pos, "remove the extra comma: each comma separates two items"
    if here == '"' and not _string_closes(text, pos):
        return pos, "the text ends inside a string: send the whole object"
    if here == "'":
        return pos, "JSON strings and keys use double quotes, not single quotes"
    if here < " ":
        return pos, "write a line break or tab inside a string as \\n or \\t"
    if here == "\\":
        return pos, 'inside a string, a backslash starts an escape: \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX'
    if (here in "*/%" and before.isdigit()) or (here in "+-" and pos and text[pos - 1].isdigit()):
        return pos, "a value must be a plain JSON number, not arithmetic: send the result"
    if here in "/#":
        return pos, "JSON has no comments: remove them"
    word = _DOTTED.match(text, pos)
    if word and text.startswith("(", _next_solid(text, word.end())):
        if before in (":", ",", "["):
            if before_at > 0:  # a value such as str(1) or dict(a=1): Python, evaluated by nobody
                return pos, "a value must be JSON, not a Python expression: send the value itself"
        # [get_weather(city="Paris")] and print(get_weather(...)): a function call written in Python, not JSON.
        return pos, ('that is a function call in Python syntax; send a JSON object '
                     '{"name": "...", "arguments": {...}} instead')
    word = _WORD.match(text, pos)
    if word and before == "[" and text.startswith("]", word.end()):
        # Mistral's [TOOL_CALLS] and [ARGS], Llama's [TOOL_CALLS]: a marker of the model's template, not JSON.
        marker = quote(f"[{word.group()}]")
        return before_at, f"send only the JSON object, without the marker {marker} or any text around it"
    if word:
        if word.group() in ("True", "False", "None"):
            return pos, "JSON writes true, false and null in lowercase"
        if before in (":", "[") and any(literal.startswith(word.group()) for literal in ("true", "false", "null")):
            return pos, "write true, false and null in full"
        if word.group().lower() in ("nan", "inf", "infinity"):
            return pos, "NaN and Infinity are not JSON numbers"
        if before_at < 0:
            return pos, _text_before_hint(text, word)
        return pos, "put keys and string values in double quotes"
    if here in "+." or (pos and (text[pos - 1].isdigit() or text[pos - 1] == ".")):
        return pos, "write numbers as JSON does: no leading + or zeros, digits on both sides of a decimal point (0.5)"
    if before and before in '"]}el0123456789' and here in '"[{-0123456789tfn':
        return pos, "a comma (between items) or a colon (after a key) is missing here"
    return pos, 'send a single JSON object of the form {"name": ..., "arguments": {...}}'


def _text_before_hint(text, word):
    """The hint for a call that starts with a word: say what the text around the JSON is, so that the retry drops it.

    "No text before it" alone would leave a fence or tags after the sentence in place, and a tool name before its
    arguments (``get_weather{...}``, ``functools[...]``) would lose the name if the model obeyed.
    """
    first_json = min((at for at in (text.find("{"), text.find("[")) if at >= 0), default=len(text))
    after = text[_next_solid(text, word.end()):_next_solid(text, word.end()) + 1]
    if _FENCE.search(text, 0, first_json):
        return "send only the JSON object, with no text and no markdown code fence around it"
    if _TAG.search(text, 0, first_json):
        return "send only the JSON object, with no text and no tags such as <tool_call> around it"
    if after == "{" or (after == "[" and _MARKER.match(text, _next_solid(text, word.end()))):
        return (f"put the tool's name inside the object: send {{\"name\": {json.dumps(word.group())}, "
                "\"arguments\": {...}}")
    if after == "[":
        marker = quote(word.group())
        return f"send only the JSON object, without the marker {marker} or any text around it"
    return "send only the JSON object, with no text before it"


def _all_finite(value):
    """True unless a float anywhere in ``value`` is inf or nan (iterative: values nest deeply)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is float:
            if item - item != 0:  # inf - inf and nan - nan are nan, which equals nothing
                return False
        elif kind is list:
            stack.extend(item)
        elif kind is dict:
            stack.extend(item.values())
    return True


def _excerpt(text, pos):
    """The text around ``pos`` on one escaped line, or "" when it is blank or reads as a traceback."""
    start, end = max(0, pos - EXCERPT_CHARS), pos + EXCERPT_CHARS
    shown = text[start:end].encode("unicode_escape").decode("ascii")
    if not shown.strip() or looks_like_traceback(shown):
        return ""
    return ("…" if start else "") + shown + ("…" if end < len(text) else "")


def decode_json(text, base="the call", path=""):
    """``json.loads`` with the kit's rules, reporting every problem with where it is.

    Rules: exactly one JSON value; no repeated keys; every number finite (1e400, NaN, Infinity
    are refused, naming the field, e.g. ``arguments.amount``); integers Python can convert.

    Args:
        text: JSON text (str).
        base: how the whole text is named in messages (str): ``"the call"`` for a raw call,
            ``"arguments"`` for OpenAI's arguments string.
        path: the path prefix of values inside it (str): ``""`` for a call, ``"arguments"`` for
            an arguments string, so both name ``arguments.amount`` alike.
    Returns:
        ``(value, [])`` or ``(None, [Violation, ...])``. Never raises (deep nesting included).
    """
    found = []
    hooks = _decoder_hooks(found)
    fast = {key: hook for key, hook in hooks.items() if key != "parse_float"}
    try:
        # First pass at C speed: a Python hook per float is several times slower on number-heavy calls.
        value = json.loads(text, **fast)
        if found or not _all_finite(value):
            found.clear()  # again, marking each overflowing number too, so every problem is named at once
            value = json.loads(text, **hooks)
    except json.JSONDecodeError as exc:
        at, hint = syntax_hint(text, exc.pos)
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        near = _excerpt(text, at)
        problem = f"is not valid JSON at line {line}, column {column}" + (f" (near {near})" if near else "")
        return None, [Violation(base, problem, hint)]
    except RecursionError:
        # json.loads recurses once per nesting level; only JSONDecodeError was caught by the seed.
        return None, [Violation(base, "is nested too deeply to parse", "send a flat JSON object")]
    except ValueError:
        # Python converts integers of at most 4,300 digits (sys.get_int_max_str_digits, CVE-2020-10735).
        return None, [Violation(base, "holds an integer with more digits than Python converts (4,300)",
                                "send a number with fewer digits")]
    if found:
        return None, _flaws(value, path, base)
    return value, []


def parse_call(raw):
    """Parse a raw tool call into ``{"name": ..., "arguments": {...}}``.

    Rules (from the seed and the kit's contract): the text must be exactly one JSON object;
    nothing is repaired (no fence stripping, no quote fixing, no decoding of a JSON string held in
    ``arguments``); missing or ``null`` ``arguments`` means ``{}``; a repeated key or a number a
    double cannot hold (1e400, NaN, Infinity) anywhere is a violation naming where it is.

    Args:
        raw: the text the model emitted (str). Anything else is a violation, not an exception.
    Returns:
        ``(call, [])`` where ``call`` is a dict with keys ``name`` and ``arguments`` (arguments
        is ``{}`` when it was missing or null, otherwise exactly the value sent, which may still
        be a non-object: ``validate_call`` reports that), or ``(None, violations)`` when the text
        is not a JSON object. Never raises: deep nesting (RecursionError), NaN, duplicate keys and
        non-string input all come back as violations.
    """
    if not isinstance(raw, str):
        return None, [Violation("the call", f"is {preview(raw)}", "expected a string holding a JSON object")]
    if not raw.strip():
        return None, [Violation("the call", "is empty", 'expected a JSON object such as {"name": "...", "arguments": {...}}')]
    call, violations = decode_json(raw)
    if violations:
        return None, violations
    if isinstance(call, list) and call and all(isinstance(item, dict) for item in call):
        # [{"name": ...}]: several models wrap their calls in a list (the [TOOL_CALLS] format without its marker).
        return None, [Violation("the call", f"is {preview(call)}",
                                'expected one JSON object {"name": "...", "arguments": {...}}, not a list of calls')]
    if not isinstance(call, dict):
        return None, [Violation("the call", f"is {preview(call)}", 'expected a JSON object such as {"name": "...", "arguments": {...}}')]
    arguments = call.get("arguments")
    normalised = {key: value for key, value in call.items()}
    normalised["arguments"] = {} if arguments is None else arguments
    return normalised, []

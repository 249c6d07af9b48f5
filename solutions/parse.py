"""Step 1: turn the raw string a model emitted into a call object, or say precisely why not."""

import json

from solutions.violations import Violation, preview, quote

CALL_KEYS = ("name", "arguments")


class _DuplicateKey(ValueError):
    """Raised inside json.loads when an object repeats a key (kept private to this module)."""


def _reject_duplicates(pairs):
    # json.loads silently keeps the last duplicate; a call with two values for one field is
    # ambiguous, so it is rejected rather than guessed at.
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen[key] = value
    return seen


def _reject_constant(token):
    # NaN, Infinity and -Infinity are accepted by Python's json module but are not JSON (RFC 8259).
    raise ValueError(token)


def strict_loads(text):
    """``json.loads`` with the kit's rules: duplicate keys and NaN/Infinity are errors.

    Args:
        text: JSON text (str).
    Returns:
        the parsed value.
    Raises:
        json.JSONDecodeError: not JSON. ValueError: a duplicate key (``_DuplicateKey``), NaN,
        Infinity, or an integer too long to convert. RecursionError: nested too deeply.
    """
    return json.loads(text, object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant)


def _json_hint(raw, exc):
    """Return a fix-it hint for a JSONDecodeError, based on what the text looks like."""
    text = raw.lstrip()
    if text.startswith("```"):
        return "send only the JSON object, without a markdown code fence around it"
    if text.startswith("<"):
        return "send only the JSON object, without tags such as <tool_call> around it"
    if exc.msg == "Extra data":
        return "send exactly one JSON object and nothing after it"
    if exc.msg.startswith("Expecting property name enclosed in double quotes") or "'" in raw[exc.pos:exc.pos + 1]:
        return "JSON strings and keys use double quotes, not single quotes"
    if exc.pos >= len(raw.rstrip()):
        return "the text ends before the JSON object is complete"
    return "send a single JSON object of the form {\"name\": ..., \"arguments\": {...}}"


def parse_call(raw):
    """Parse a raw tool call into ``{"name": ..., "arguments": {...}}``.

    Rules (from the seed and the kit's contract): the text must be exactly one JSON object;
    nothing is repaired (no fence stripping, no quote fixing, no decoding of a JSON string held in
    ``arguments``); missing or ``null`` ``arguments`` means ``{}``.

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
    try:
        call = strict_loads(raw)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        return None, [Violation("the call", f"is not valid JSON ({exc.msg}; {where})", _json_hint(raw, exc))]
    except _DuplicateKey as exc:
        return None, [Violation("the call", f"repeats the key {quote(str(exc.args[0]))}", "each key may appear only once")]
    except RecursionError:
        # json.loads recurses once per nesting level; only JSONDecodeError was caught by the seed.
        return None, [Violation("the call", "is nested too deeply to parse", "send a flat JSON object")]
    except ValueError as exc:
        return None, [Violation("the call", f"contains {exc.args[0]}", "NaN and Infinity are not valid JSON numbers")]
    if not isinstance(call, dict):
        return None, [Violation("the call", f"is {preview(call)}", 'expected a JSON object such as {"name": "...", "arguments": {...}}')]
    arguments = call.get("arguments")
    normalised = {key: value for key, value in call.items()}
    normalised["arguments"] = {} if arguments is None else arguments
    return normalised, []

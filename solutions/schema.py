"""Step 2: check a parsed call against the registry and collect every violation."""

import difflib
import heapq

from solutions.parse import CALL_KEYS, decode_json, parse_call
from solutions.registry import a_type
from solutions.violations import Violation, preview, quote


def matches_type(value, declared):
    """Tell whether a JSON value has the declared schema type.

    Rules: ``bool`` is not an ``int`` (in Python ``True`` is an ``int``, in JSON it is not);
    an ``int`` is accepted where ``float`` is declared (JSON has one number type; the Berkeley
    Function Calling Leaderboard checker does the same); ``null`` matches no type.

    Args:
        value: a value produced by ``json.loads``.
        declared: one of ``str, int, float, bool, list, dict``.
    Returns:
        bool.
    """
    if declared is float:
        return type(value) in (int, float)
    if declared is int:
        return type(value) is int
    return type(value) is declared


CLOSE_MATCHES = 10
CANDIDATES = 200  # difflib compares this many of the likeliest names, so 25,000 tools cost milliseconds


def _pairs_of_letters(text):
    text = text.lower()
    return {text[i:i + 2] for i in range(len(text) - 1)}


def most_useful_first(names, sent):
    """Order names for a listing: the closest matches to what was sent first, then the rest as declared.

    An observation names every item while it fits its budget; when it cannot, the first ones are
    kept, so the tool the model meant (``list_sensors`` for ``lookup_sensor``) must come first.
    Closeness is ``difflib.get_close_matches`` (cutoff 0.5), run on the ``CANDIDATES`` names that
    share the most letter pairs with what was sent (difflib alone takes seconds on 25,000 names).

    Args:
        names: the registered tools or allowed fields (iterable of str).
        sent: what the model sent instead (list of str; non-strings are ignored).
    Returns:
        tuple of quoted names (str): up to ``CLOSE_MATCHES`` per sent word first.
    """
    names = [name for name in names if isinstance(name, str)]
    close = []
    for word in sent:
        if isinstance(word, str) and len(word) <= 200:  # difflib is quadratic in the length
            wanted = _pairs_of_letters(word)
            likely = heapq.nlargest(CANDIDATES, names, key=lambda name: len(wanted & _pairs_of_letters(name[:200])))
            close += difflib.get_close_matches(word, likely, n=CLOSE_MATCHES, cutoff=0.5)
    ordered = list(dict.fromkeys(close + names))
    return tuple(quote(name) for name in ordered)


def _string_arguments(arguments):
    """Violations for ``arguments`` sent as a string: what is wrong inside it, located in ``arguments``.

    On OpenAI's wire ``arguments`` is always a string, so "send an object, not a string" is advice
    such a model cannot follow; the same parse diagnosis as a raw call is (issue 10, kind 5).
    """
    if not arguments.strip():
        return [Violation("arguments", "is an empty string",
                          "expected a JSON object of arguments; send {} for a tool that takes none")]
    decoded, problems = decode_json(arguments, "arguments", "arguments")
    if problems:
        return problems
    if isinstance(decoded, dict):
        return [Violation("arguments", "is a string that holds a JSON object",
                          "send the object itself as the value of arguments, not encoded as a string")]
    return [Violation("arguments", f"is a string that holds {preview(decoded)}", "expected a JSON object of arguments")]


def validate_call(call, tools):
    """List every way a parsed call breaks the registry's schema, in a fixed order.

    Order: unexpected top-level keys, name, arguments shape, missing required fields, wrong types,
    undeclared fields. The top-level-key and shape checks are the kit's own; the Berkeley Function
    Calling Leaderboard's checker also starts with the name and the missing required parameters, then
    checks each parameter sent (undeclared, type, value), but it stops at the first error, as the
    seed's sample did. This collects them all, so that one retry can fix them all. Listings (registered
    tools, allowed fields) name every item; the observation decides how many fit.

    Args:
        call: a dict from ``parse_call`` (``arguments`` already defaulted to ``{}``).
        tools: the registry, ``{name: {"required": {field: type}, "optional": {field: type}}}``.
    Returns:
        list of ``Violation``; empty means the call may be dispatched exactly as it is.
    """
    violations = []
    unexpected = tuple(quote(key) for key in call if key not in CALL_KEYS)
    if unexpected:
        label = "the key" if len(unexpected) == 1 else "the keys"
        verb = "is not part of a call" if len(unexpected) == 1 else "are not part of a call"
        violations.append(Violation(label, verb, "a call has only \"name\" and \"arguments\"", where_items=unexpected))
    name = call.get("name")
    spec = None
    if isinstance(name, str) and name in tools:
        spec = tools[name]
    else:
        registered = most_useful_first(tools, [name])
        if "name" not in call:
            violations.append(Violation("name", "is missing", "registered tools:", hint_items=registered))
        elif not isinstance(name, str):
            violations.append(Violation("name", f"is {preview(name)}", "expected a string; registered tools:",
                                        hint_items=registered))
        elif name == "":
            violations.append(Violation("name", "is empty", "registered tools:", hint_items=registered))
        else:
            violations.append(Violation(f"tool {quote(name)}", "is not registered", "registered tools:",
                                        hint_items=registered))

    arguments = call.get("arguments", {})
    if isinstance(arguments, str):
        return violations + _string_arguments(arguments)
    if not isinstance(arguments, dict):
        violations.append(Violation("arguments", f"is {preview(arguments)}", "expected a JSON object of arguments"))
        return violations
    if spec is None:
        return violations

    required = spec.get("required", {})
    optional = spec.get("optional", {})
    for field, declared in required.items():
        if field not in arguments:
            violations.append(Violation(f"argument {quote(field)}", "is missing",
                                        f"expected {a_type(declared)} (required)"))
    for field, declared in {**required, **optional}.items():
        if field in arguments and not matches_type(arguments[field], declared):
            if field in required:
                kind = "required"
            elif arguments[field] is None:
                kind = "optional: leave it out instead of sending null"
            else:
                kind = "optional"
            violations.append(Violation(f"argument {quote(field)}", f"is {preview(arguments[field])}",
                                        f"expected {a_type(declared)} ({kind})"))
    extra = [field for field in arguments if field not in required and field not in optional]
    if extra:
        label = "argument" if len(extra) == 1 else "arguments"
        violations.append(Violation(label, "are not declared" if len(extra) > 1 else "is not declared", "allowed arguments:",
                                    where_items=tuple(quote(field) for field in extra),
                                    hint_items=most_useful_first([*required, *optional], extra[:20])))
    return violations


def check_call(raw, tools):
    """Parse and validate in one step.

    Args:
        raw: the model's text (any value; non-strings are violations).
        tools: the registry (see ``validate_call``).
    Returns:
        ``(call, violations)``: ``call`` is the parsed dict or None; the call may be dispatched
        only when ``violations`` is empty.
    """
    call, violations = parse_call(raw)
    if call is None:
        return None, violations
    return call, validate_call(call, tools)

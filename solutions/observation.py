"""Step 3: turn violations into the observation text the model reads before its retry."""

from solutions.registry import describe_schema
from solutions.schema import check_call
from solutions.violations import quote

# The contract's bound: an observation goes back into the model's context, so even a 1 MB call
# must not produce a 1 MB observation (that would burn the context the retry needs).
MAX_OBSERVATION_CHARS = 2000
MAX_LISTED_VIOLATIONS = 10
TRUNCATION_NOTE = " …(truncated)"


def build_observation(violations, tools, call=None, limit=MAX_OBSERVATION_CHARS):
    """Write the error text a model needs to fix its call, naming every violation at once.

    The text never contains a traceback or the raw call, only short previews of the offending
    values; it is deterministic (same violations, same text) and at most ``limit`` characters.

    Args:
        violations: a non-empty list of ``Violation`` from ``parse_call`` / ``validate_call``.
        tools: the registry; when the call named a registered tool, its schema line is appended.
        call: the parsed call dict, or None when the text did not parse.
        limit: the maximum length of the result (int, characters).
    Returns:
        str, for example::

            Tool call rejected (2 problems); nothing was executed. Fix all of them and send the whole call again:
            1. argument 'city' is missing: expected a string (required)
            2. argument 'country' is not declared: allowed arguments: 'city', 'units'
            get_weather takes city (string, required), units (string, optional)
    """
    count = len(violations)
    noun = "problem" if count == 1 else "problems"
    fix = "Fix it" if count == 1 else "Fix all of them"
    lines = [f"Tool call rejected ({count} {noun}); nothing was executed. {fix} and send the whole call again:"]
    for number, violation in enumerate(violations[:MAX_LISTED_VIOLATIONS], start=1):
        lines.append(f"{number}. {violation}")
    if count > MAX_LISTED_VIOLATIONS:
        lines.append(f"… and {count - MAX_LISTED_VIOLATIONS} more problems.")
    name = call.get("name") if isinstance(call, dict) else None
    if isinstance(name, str) and name in tools:
        lines.append(describe_schema(quote(name)[1:-1], tools[name]))
    text = "\n".join(lines)
    if len(text) > limit:
        text = text[: limit - len(TRUNCATION_NOTE)] + TRUNCATION_NOTE
    return text


def observe(raw, tools):
    """The observation for a raw call, or None when the call may be dispatched.

    The composition of the first three steps: ``parse_call`` -> ``validate_call`` ->
    ``build_observation``. It is the function notebook 3 asks for.

    Args:
        raw: the model's raw call (any value; non-strings are violations).
        tools: the registry, ``{name: {"required": {...}, "optional": {...}}}``.
    Returns:
        str (at most ``MAX_OBSERVATION_CHARS`` characters) or None.
    """
    call, violations = check_call(raw, tools)
    return build_observation(violations, tools, call) if violations else None

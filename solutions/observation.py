"""Step 3: turn violations into the observation text the model reads before its retry."""

from solutions.registry import type_name
from solutions.schema import check_call
from solutions.violations import listing, quote

# The contract's bound: an observation goes back into the model's context, so even a 1 MB call
# must not produce a 1 MB observation (that would burn the context the retry needs).
MAX_OBSERVATION_CHARS = 2000
# When not everything fits, each listing keeps at least this many names (the most useful first).
MIN_LISTED = 3
TRUNCATION_NOTE = " …(truncated)"


def _schema_line(call, tools):
    """``(prefix, items)`` describing the called tool's arguments, or None when no registered tool was named."""
    name = call.get("name") if isinstance(call, dict) else None
    if not (isinstance(name, str) and name in tools):
        return None
    spec = tools[name]
    items = [f"{field} ({type_name(t)}, required)" for field, t in spec.get("required", {}).items()]
    items += [f"{field} ({type_name(t)}, optional)" for field, t in spec.get("optional", {}).items()]
    return f"{quote(name)[1:-1]} takes ", tuple(items)


def build_observation(violations, tools, call=None, limit=MAX_OBSERVATION_CHARS):
    """Write the error text a model needs to fix its call, naming every violation at once.

    Budget rule (issue 10, kind 3): everything is named while the text fits ``limit``; a fixed
    count (the first 10 problems, the first 20 tools) would hide what the model needs, e.g. the
    12th wrong field or the tool it meant. Only when the whole text cannot fit are listings cut
    to as many names as fit (each keeps its most useful names first: ``validate_call`` puts the
    closest matches there) and, if even that is too long, the later problems are counted instead
    of listed. The text never contains a traceback or the raw call, only short previews of the
    offending values; it is deterministic (same violations, same text).

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
    header = f"Tool call rejected ({count:,} {noun}); nothing was executed. {fix} and send the whole call again:"
    schema = _schema_line(call, tools)

    def text(cap, shown):
        lines = [header] + [f"{number}. {v.render(cap)}" for number, v in enumerate(violations[:shown], start=1)]
        if shown < count:
            lines.append(f"… and {count - shown:,} more problems not listed here; fix these first.")
        if schema:
            lines.append(schema[0] + (listing(schema[1], cap) if schema[1] else "no arguments"))
        return "\n".join(lines)

    def largest(low, high, fits):
        # The largest n in [low, high] with fits(n), given fits(low); fits is monotone.
        while low < high:
            middle = (low + high + 1) // 2
            low, high = (middle, high) if fits(middle) else (low, middle - 1)
        return low

    full = text(None, count)
    if len(full) <= limit:
        return full
    longest = max([len(v.where_items) for v in violations] + [len(v.hint_items) for v in violations]
                  + [len(schema[1]) if schema else 0])
    if len(text(MIN_LISTED, count)) <= limit:
        cap = largest(MIN_LISTED, longest, lambda c: len(text(c, count)) <= limit)
        return text(cap, count)
    if len(text(MIN_LISTED, 1)) <= limit:
        shown = largest(1, count, lambda n: len(text(MIN_LISTED, n)) <= limit)
        return text(MIN_LISTED, shown)
    short = text(MIN_LISTED, 1)  # last resort; no single violation line is this long in practice
    return short[: limit - len(TRUNCATION_NOTE)] + TRUNCATION_NOTE


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

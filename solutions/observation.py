"""Step 3: turn violations into the observation text the model reads before its retry."""

from solutions.registry import type_name
from solutions.violations import listing, looks_like_traceback, quote

# The contract's bound: an observation goes back into the model's context, so even a 1 MB call
# must not produce a 1 MB observation (that would burn the context the retry needs).
MAX_OBSERVATION_CHARS = 2000
# When not everything fits, each listing keeps at least this many names (the most useful first).
MIN_LISTED = 3
TRUNCATION_NOTE = " …(truncated)"
# A problem given as text has no listing to cut by names; it is cut by characters, about this many per name.
CHARS_PER_NAME = 20


def _schema_line(call, tools):
    """``(prefix, items)`` describing the called tool's arguments, or None when no registered tool was named."""
    name = call.get("name") if isinstance(call, dict) else None
    if not (isinstance(name, str) and name in tools):
        return None
    spec = tools[name]
    items = [f"{field} ({type_name(t)}, required)" for field, t in spec.get("required", {}).items()]
    items += [f"{field} ({type_name(t)}, optional)" for field, t in spec.get("optional", {}).items()]
    return f"{quote(name)[1:-1]} takes ", tuple(items)


def _items(problem, attribute):
    """The names a ``Violation`` lists (tuple); a problem given as text lists none."""
    return getattr(problem, attribute, ()) if not isinstance(problem, str) else ()


def _width(problem):
    """How many characters a problem given as text may be cut to (its length), or 0 for a ``Violation``."""
    return len(problem) // CHARS_PER_NAME + 1 if isinstance(problem, str) else 0


def _render(problem, cap):
    """One problem as one line: a ``Violation`` with each listing cut to ``cap`` names (None: all); a problem
    given as text (a learner's ``validate_call`` returns str) cut to about ``cap`` names' worth of characters."""
    if not isinstance(problem, str):
        return problem.render(cap)
    text = " ".join(problem.split())  # one line per problem
    if looks_like_traceback(text):
        text = "a problem whose text looks like a Python traceback (not quoted)"
    if cap is None or len(text) <= cap * CHARS_PER_NAME:
        return text
    return text[: max(cap * CHARS_PER_NAME - 1, 1)] + "…"


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
        violations: a non-empty list of ``Violation`` from ``parse_call`` / ``validate_call``, or of
            problems as text (str, one sentence each, as a learner's steps and the grader pass them).
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
        lines = [header] + [f"{number}. {_render(v, cap)}" for number, v in enumerate(violations[:shown], start=1)]
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
    longest = max([len(_items(v, "where_items")) for v in violations] + [len(_items(v, "hint_items")) for v in violations]
                  + [len(schema[1]) if schema else 0] + [_width(v) for v in violations])
    if len(text(MIN_LISTED, count)) <= limit:
        cap = largest(MIN_LISTED, longest, lambda c: len(text(c, count)) <= limit)
        return text(cap, count)
    if len(text(MIN_LISTED, 1)) <= limit:
        shown = largest(1, count, lambda n: len(text(MIN_LISTED, n)) <= limit)
        return text(MIN_LISTED, shown)
    short = text(MIN_LISTED, 1)  # last resort; no single violation line is this long in practice
    return short[: limit - len(TRUNCATION_NOTE)] + TRUNCATION_NOTE


def observe(call, problems, tools):
    """The observation for a call and the problems the first two steps found, or None when there are none.

    Step 3 of the staircase (notebook 3): it receives what steps 1 and 2 produced, as data, and writes
    the text; it parses and validates nothing itself, so it stands alone (issue 11).

    Args:
        call: the parsed call, as ``parse_call`` returned it (dict), or None when the text did not parse.
        problems: every problem ``parse_call`` and ``validate_call`` found, in order (list of
            ``Violation`` or of str); empty when the call may be dispatched.
        tools: the registry, ``{name: {"required": {...}, "optional": {...}}}``; when ``call`` names a
            registered tool, the observation ends with that tool's arguments.
    Returns:
        str (at most ``MAX_OBSERVATION_CHARS`` characters, deterministic) or None for no problems.
    """
    if not problems:
        return None
    return build_observation(list(problems), tools, call)

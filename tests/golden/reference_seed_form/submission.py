"""Reference solution in the seed's form.

Generated from the solutions package by course/seed_form.py; edit the package, not this file."""

from dataclasses import dataclass
import json


PREVIEW_CHARS = 60


@dataclass(frozen=True)
class Violation:
    """A single broken rule.

    Attributes:
        where: what is wrong, e.g. ``"the call"``, ``"name"``, ``"argument 'city'"`` (str).
        problem: what is wrong with it, e.g. ``"is missing"`` (str).
        hint: how to fix it, e.g. ``"expected a string"``; may be empty (str).

    ``str(violation)`` gives one line such as
    ``argument 'city' is missing: expected a string (required)``.
    """

    where: str
    problem: str
    hint: str = ""

    def __str__(self):
        return f"{self.where} {self.problem}" + (f": {self.hint}" if self.hint else "")


def preview(value, limit=PREVIEW_CHARS):
    """Describe a received JSON value briefly and safely, for use inside an observation.

    Never calls ``repr`` on containers (a deeply nested list would raise RecursionError, one of the
    seed sample's crashes) and never returns more than about ``limit`` characters of the value.

    Args:
        value: any value produced by ``json.loads``.
        limit: maximum characters of a string's content to show (int, characters).
    Returns:
        str, e.g. ``'the string "Par…" (1,000,000 characters)'``, ``"the integer 42"``, ``"null"``.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, int):
        text = str(value) if value.bit_length() < 200 else "a very large integer"
        return f"the integer {text}"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, str):
        shown = value[:limit].encode("unicode_escape").decode("ascii")[:limit]
        if len(value) > limit:
            return f'the string "{shown}…" ({len(value):,} characters)'
        return f'the string "{shown}"'
    if isinstance(value, list):
        return f"an array of {len(value):,} items"
    if isinstance(value, dict):
        return f"an object with {len(value):,} keys"
    return f"a value of type {type(value).__name__}"


def quote(text, limit=PREVIEW_CHARS):
    """Quote a name or field for an observation, truncated to ``limit`` characters.

    Args:
        text: the name as received (str).
        limit: maximum characters shown (int).
    Returns:
        str such as ``'units'`` or ``'aaaa…' (5,000 characters)``.
    """
    shown = text[:limit].encode("unicode_escape").decode("ascii")[:limit]
    if len(text) > limit:
        return f"'{shown}…' ({len(text):,} characters)"
    return f"'{shown}'"


TOOLS = {
    "get_weather": {"required": {"city": str}, "optional": {"units": str}},
}


# The words the observation uses for each declared type. JSON names are used because the reader
# of an observation is a model that writes JSON, not Python.
TYPE_NAMES = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    dict: "object",
}


def type_name(declared):
    """Return the JSON word for a declared schema type (``str`` -> ``"string"``).

    Args:
        declared: a class from the schema; unknown classes fall back to their ``__name__``.
    Returns:
        str: a short, model-readable type name.
    """
    return TYPE_NAMES.get(declared, getattr(declared, "__name__", repr(declared)))


def a_type(declared):
    """``type_name`` with its article, for sentences: ``int`` -> ``"an integer"``, ``str`` -> ``"a string"``."""
    name = type_name(declared)
    return ("an " if name[:1] in "aeiou" else "a ") + name


def describe_schema(name, spec):
    """Describe one tool's arguments in a line a model can act on.

    Args:
        name: the tool name (str).
        spec: ``{"required": {field: type}, "optional": {field: type}}``; either key may be absent.
    Returns:
        str, for example ``"get_weather takes city (string, required), units (string, optional)"``.
    """
    parts = [f"{field} ({type_name(t)}, required)" for field, t in spec.get("required", {}).items()]
    parts += [f"{field} ({type_name(t)}, optional)" for field, t in spec.get("optional", {}).items()]
    return f"{name} takes " + (", ".join(parts) if parts else "no arguments")


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
        call = json.loads(raw, object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        return None, [Violation("the call", f"is not valid JSON ({exc.msg} at {where})", _json_hint(raw, exc))]
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


MAX_LISTED_NAMES = 20


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


def _listing(names):
    names = list(names)
    shown = ", ".join(quote(n) for n in names[:MAX_LISTED_NAMES])
    if len(names) > MAX_LISTED_NAMES:
        shown += f" and {len(names) - MAX_LISTED_NAMES:,} more"
    return shown or "none"


def validate_call(call, tools):
    """List every way a parsed call breaks the registry's schema, in a fixed order.

    Order (as the Berkeley Function Calling Leaderboard checks): unexpected top-level keys, name,
    arguments shape, missing required fields, wrong types, undeclared fields. All are collected so
    that one retry can fix them all (the seed's sample stopped at the first).

    Args:
        call: a dict from ``parse_call`` (``arguments`` already defaulted to ``{}``).
        tools: the registry, ``{name: {"required": {field: type}, "optional": {field: type}}}``.
    Returns:
        list of ``Violation``; empty means the call may be dispatched exactly as it is.
    """
    violations = []
    for key in call:
        if key not in CALL_KEYS:
            violations.append(Violation(f"the key {quote(key)}", "is not part of a call",
                                        "a call has only \"name\" and \"arguments\""))
    name = call.get("name")
    spec = None
    if "name" not in call:
        violations.append(Violation("name", "is missing", f"registered tools: {_listing(tools)}"))
    elif not isinstance(name, str):
        violations.append(Violation("name", f"is {preview(name)}",
                                    f"expected a string; registered tools: {_listing(tools)}"))
    elif name == "":
        violations.append(Violation("name", "is empty", f"registered tools: {_listing(tools)}"))
    elif name not in tools:
        violations.append(Violation(f"tool {quote(name)}", "is not registered",
                                    f"registered tools: {_listing(tools)}"))
    else:
        spec = tools[name]

    arguments = call.get("arguments", {})
    if not isinstance(arguments, dict):
        hint = "expected a JSON object of arguments"
        if isinstance(arguments, str) and arguments.lstrip().startswith(("{", "[")):
            hint += ", not a string that holds JSON"
        violations.append(Violation("arguments", f"is {preview(arguments)}", hint))
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
        violations.append(Violation(f"{label} {_listing(extra)}", "are not declared" if len(extra) > 1 else "is not declared",
                                    f"allowed arguments: {_listing([*required, *optional])}"))
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


# One retry, as the seed asks: enough for a model to fix what the observation names, and a bound
# that keeps one bad call from burning the agent's whole step budget (the seed's second question).
RETRY_BUDGET = 1


def echo_dispatch(name, arguments):
    """A stand-in dispatcher for notebooks: executes nothing, reports what would have run.

    Args:
        name: the validated tool name (str).
        arguments: the validated arguments (dict), passed through unchanged.
    Returns:
        ``{"status": "dispatched", "name": name, "arguments": arguments}``.
    """
    return {"status": "dispatched", "name": name, "arguments": arguments}


def rejection(error):
    """Build the graceful-failure result the contract specifies.

    Args:
        error: non-empty text describing the last attempt (str).
    Returns:
        ``{"status": "rejected", "error": error}``.
    """
    return {"status": "rejected", "error": error}


def run_tool_call(raw, ask_model, tools, dispatch, retry_budget=RETRY_BUDGET):
    """Validate a raw tool call, give the model at most ``retry_budget`` retries, then dispatch or reject.

    Contract (the kit's capstone issue, from the seed): nothing is dispatched before every check
    passes; what is dispatched is exactly what the model sent (no coercion, no dropped fields);
    ``ask_model`` is called only after an invalid call and at most ``retry_budget`` times;
    ``dispatch`` at most once. Never raises for any ``raw`` or any behaviour of ``ask_model``
    (an ``Exception`` from it ends in a rejection that says the retry failed).

    Args:
        raw: the model's first raw call (normally str; anything else is rejected, not raised on).
        ask_model: ``callable(observation: str) -> str``, the model's next raw call.
        tools: the registry, ``{name: {"required": {...}, "optional": {...}}}``.
        dispatch: ``callable(name: str, arguments: dict) -> any``, run only for a valid call.
        retry_budget: how many times the model may be asked again (int, default 1).
    Returns:
        whatever ``dispatch`` returned, unchanged, or ``{"status": "rejected", "error": text}``
        where ``text`` (at most 2,000 characters) describes the last attempt.
    """
    attempt = raw
    for attempt_number in range(retry_budget + 1):
        call, violations = check_call(attempt, tools)
        if not violations:
            return dispatch(call["name"], call["arguments"])
        observation = build_observation(violations, tools, call)
        if attempt_number == retry_budget:
            return rejection(observation)
        try:
            attempt = ask_model(observation)
        except Exception as exc:  # the model client failing is a rejection, not a crash of the runtime
            reason = f"{type(exc).__name__}: {exc}"[:200]
            note = f"\nThe retry failed: asking the model again raised {reason}."
            return rejection(observation[: MAX_OBSERVATION_CHARS - len(note)] + note)
    raise AssertionError("unreachable: the loop always returns")  # pragma: no cover


def handle_tool_call(raw, ask_model):
    """The seed's form: validate ``raw``, allow one retry via ``ask_model``, then dispatch or reject.

    Reads the global ``TOOLS`` and calls the global ``dispatch`` when a call arrives (not when this
    function is defined), so the grader, or your notebook, can replace either.

    Args:
        raw: the model's raw call (str). ask_model: ``callable(error_text: str) -> str``.
    Returns:
        what ``dispatch(name, arguments)`` returned, or ``{"status": "rejected", "error": text}``.
    """
    return run_tool_call(raw, ask_model, TOOLS, dispatch)

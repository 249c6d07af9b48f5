"""Step 2: check a parsed call against the registry and collect every violation."""

from solutions.parse import CALL_KEYS, parse_call
from solutions.registry import a_type
from solutions.violations import Violation, preview, quote

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

    Order: unexpected top-level keys, name, arguments shape, missing required fields, wrong types,
    undeclared fields. The top-level-key and shape checks are the kit's own; the Berkeley Function
    Calling Leaderboard's checker also starts with the name and the missing required parameters, then
    checks each parameter sent (undeclared, type, value), but it stops at the first error, as the
    seed's sample did. This collects them all, so that one retry can fix them all.

    Args:
        call: a dict from ``parse_call`` (``arguments`` already defaulted to ``{}``).
        tools: the registry, ``{name: {"required": {field: type}, "optional": {field: type}}}``.
    Returns:
        list of ``Violation``; empty means the call may be dispatched exactly as it is.
    """
    violations = []
    unexpected = [key for key in call if key not in CALL_KEYS]
    if unexpected:
        label = "the key" if len(unexpected) == 1 else "the keys"
        verb = "is not part of a call" if len(unexpected) == 1 else "are not part of a call"
        violations.append(Violation(f"{label} {_listing(unexpected)}", verb, "a call has only \"name\" and \"arguments\""))
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

"""Beyond the seed: the same checks driven by a JSON Schema tool definition (a subset of what real APIs accept).

OpenAI function ``parameters`` and Anthropic ``input_schema`` are JSON Schema objects. This module
validates arguments against a subset of JSON Schema: ``type`` (one name or a list), ``properties``,
``required``, ``additionalProperties`` (``false``, ``true`` or a schema), ``enum``, ``items``, and
nesting of objects and arrays. Real tool schemas can use more (OpenAI's strict mode supports ``anyOf``
and ``$ref``; pydantic writes ``anyOf`` for every ``X | None`` field). Annotations (``description``,
``title``, ``default``, ``examples``, ``$comment``) are ignored. Any other keyword is reported as
unsupported rather than silently ignored: a constraint this validator cannot check must not let a
call through.

Deliberate differences from the JSON Schema specification: the spec counts ``1.0`` as an
``integer`` (and as equal to ``1`` in ``enum``); this runtime does not, because Python would hand the
tool a float (the Berkeley Function Calling Leaderboard's checker agrees). ``true`` is never an
integer or a number, as in the spec. Sources for each claim: ``docs/sources.md``.
"""

from solutions.violations import Violation, preview

SUPPORTED = {"type", "properties", "required", "additionalProperties", "enum", "items"}
ANNOTATIONS = {"description", "title", "default", "examples", "$comment"}
MAX_VIOLATIONS = 50


def json_type_matches(value, name):
    """Tell whether ``value`` (from json.loads) has the JSON Schema type ``name``.

    Args:
        value: a JSON value. name: ``"string"``, ``"integer"``, ``"number"``, ``"boolean"``,
            ``"array"``, ``"object"`` or ``"null"``.
    Returns:
        bool (unknown type names match nothing).
    """
    kind = type(value)
    return {
        "string": kind is str,
        "integer": kind is int,
        "number": kind in (int, float),
        "boolean": kind is bool,
        "array": kind is list,
        "object": kind is dict,
        "null": value is None,
    }.get(name, False)


def validate_arguments(arguments, schema, where="arguments"):
    """Check a JSON value against a JSON Schema (the subset above) and list every violation.

    Args:
        arguments: the value to check (usually the call's ``arguments`` object).
        schema: a JSON Schema dict, e.g. ``{"type": "object", "properties": {...},
            "required": [...], "additionalProperties": false}``.
        where: how the value is named in messages (str); nested values get paths such as
            ``arguments.location.city`` or ``arguments.tags[2]``.
    Returns:
        list of ``Violation`` (at most 50; empty means valid). Never raises on any ``arguments``;
        a malformed or unsupported schema is reported as a violation, never ignored.
    """
    violations = []
    _check(arguments, schema, where, violations)
    return violations[:MAX_VIOLATIONS]


def _check(value, schema, where, out):
    if len(out) >= MAX_VIOLATIONS:
        return
    if not isinstance(schema, dict):
        out.append(Violation(f"the schema for {where}", "is not an object", "fix the tool definition"))
        return
    unsupported = sorted(set(schema) - SUPPORTED - ANNOTATIONS)
    if unsupported:
        out.append(Violation(f"the schema for {where}", f"uses unsupported keywords {unsupported}",
                             "this validator cannot check them, so the call is refused"))
        return
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(json_type_matches(value, name) for name in names):
            expected = " or ".join(str(name) for name in names)
            out.append(Violation(where, f"is {preview(value)}", f"expected {expected}"))
            return  # deeper checks would only repeat the same mistake
    if "enum" in schema and not any(type(value) is type(option) and value == option for option in schema["enum"]):
        options = ", ".join(preview(option) for option in schema["enum"][:10])
        out.append(Violation(where, f"is {preview(value)}", f"expected one of: {options}"))
    if isinstance(value, dict):
        _check_object(value, schema, where, out)
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            _check(item, schema["items"], f"{where}[{index}]", out)


def _check_object(value, schema, where, out):
    properties = schema.get("properties", {})
    for field in schema.get("required", []):
        if field not in value:
            out.append(Violation(f"{where}.{field}", "is missing", "it is required"))
    extra = schema.get("additionalProperties", True)
    for field, item in value.items():
        path = f"{where}.{field}"
        if field in properties:
            _check(item, properties[field], path, out)
        elif extra is False:
            allowed = ", ".join(properties) or "none"
            out.append(Violation(path, "is not declared", f"allowed: {allowed}"))
        elif isinstance(extra, dict):
            _check(item, extra, path, out)

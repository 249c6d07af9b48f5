"""The tool registry: which tools exist and what arguments each one declares.

Shape (from the seed): ``{tool_name: {"required": {field: type}, "optional": {field: type}}}``
where each type is one of the Python classes ``str, int, float, bool, list, dict``.
"""

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

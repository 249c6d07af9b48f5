"""Tool registries the cases grade against, and their encoding for the worker.

The seed's registry is the default; the others exist so a case can prove that a submission reads
``TOOLS`` at call time (the contract lets the grader replace it) and checks every declared type.
"""

import copy

SEED_TOOLS = {
    "get_weather": {"required": {"city": str}, "optional": {"units": str}},
}

# Every schema type the contract names (str, int, float, bool, list, dict), required and optional.
TYPED_TOOLS = {
    "get_weather": {"required": {"city": str}, "optional": {"units": str}},
    "set_alarm": {"required": {"hour": int, "minute": int}, "optional": {"label": str, "repeat": bool}},
    "convert_currency": {"required": {"amount": float, "source": str, "target": str}, "optional": {}},
    "send_email": {"required": {"to": list, "body": str}, "optional": {"headers": dict}},
    "get_time": {"required": {}, "optional": {"timezone": str}},
}

# The tools the malformed calls in shared/real_calls (adapted from bug reports) name. web_search is
# modelled on the search tool in miurla/morphic #461, where the model left out required fields; the
# adapted call leaves out search_depth.
REAL_CALL_TOOLS = {
    "get_weather": {"required": {"city": str}, "optional": {"units": str}},
    "read_file": {"required": {"path": str}, "optional": {}},
    "view_file": {"required": {"path": str}, "optional": {"view_range": list}},
    "web_search": {"required": {"query": str, "max_results": int, "search_depth": str}, "optional": {}},
    "call_tool": {"required": {"tool": str, "args": dict}, "optional": {}},
}


def encode_registry(tools):
    """Encode a registry for the worker: classes become their names inside a ``__kit__`` marker.

    Args:
        tools: ``{name: {"required": {field: type}, "optional": {field: type}}}``.
    Returns:
        ``{"__kit__": "registry", "value": {name: {"required": {field: "str"}, ...}}}`` (JSON data).
    """
    return {
        "__kit__": "registry",
        "value": {
            name: {part: {f: t.__name__ for f, t in spec.get(part, {}).items()} for part in ("required", "optional")}
            for name, spec in tools.items()
        },
    }


def fresh(tools):
    """A deep copy of a registry, so no case can change another's (the classes are shared)."""
    return copy.deepcopy(tools)

"""Wire formats: from the OpenAI and Anthropic tool-call shapes to the kit's raw call, and back.

Facts (OpenAI chat completions and Anthropic messages API documentation):
- OpenAI: ``tool_calls[] = {"id", "type": "function", "function": {"name", "arguments"}}`` where
  ``arguments`` is a JSON-encoded *string*; the result goes back as a ``role: "tool"`` message.
- Anthropic: a ``tool_use`` block ``{"type": "tool_use", "id", "name", "input"}`` with ``input`` an
  object; an error goes back as ``{"type": "tool_result", "tool_use_id", "content", "is_error": true}``.
An adapter changes the envelope, never the content: a malformed arguments string stays malformed so
that the runtime's checks reject it and the model is told.
"""

import json

from solutions.parse import strict_loads


def raw_call_from_openai(tool_call):
    """Turn one OpenAI ``tool_calls`` entry into the kit's raw call string.

    The arguments string is decoded only if it holds exactly one JSON value under the kit's strict
    rules (no duplicate keys, no NaN); otherwise it is kept as a string, which the validator then
    rejects ("arguments must be an object"). Nothing is repaired.

    Args:
        tool_call: ``{"id": ..., "type": "function", "function": {"name": str, "arguments": str}}``.
    Returns:
        str: ``{"name": ..., "arguments": ...}`` as JSON text. A missing ``function`` gives a call
        without name, which is rejected downstream; this function never raises on dict input.
    """
    function = tool_call.get("function") if isinstance(tool_call, dict) else None
    if not isinstance(function, dict):
        return json.dumps({"arguments": None})
    call = {}
    if "name" in function:
        call["name"] = function["name"]
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = strict_loads(arguments)
        except (ValueError, RecursionError):
            pass  # stays a string: rejected downstream with an observation, never guessed at
    call["arguments"] = arguments
    return json.dumps(call)


def raw_call_from_anthropic(block):
    """Turn one Anthropic ``tool_use`` content block into the kit's raw call string.

    Args:
        block: ``{"type": "tool_use", "id": str, "name": str, "input": dict}``.
    Returns:
        str: ``{"name": ..., "arguments": ...}`` as JSON text (``input`` passed through as it is).
    """
    if not isinstance(block, dict):
        return json.dumps({"arguments": None})
    call = {"arguments": block.get("input")}
    if "name" in block:
        call = {"name": block["name"], **call}
    return json.dumps(call)


def tool_error_result(tool_use_id, message):
    """The Anthropic ``tool_result`` block that carries an observation back to the model.

    Args:
        tool_use_id: the ``id`` of the ``tool_use`` block being answered (str).
        message: the observation text (str), unchanged.
    Returns:
        ``{"type": "tool_result", "tool_use_id": tool_use_id, "content": message, "is_error": True}``.
    """
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": message, "is_error": True}

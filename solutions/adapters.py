"""Wire formats: from the OpenAI and Anthropic tool-call shapes to the kit's raw call, and back.

Facts (OpenAI chat completions and Anthropic messages API documentation):
- OpenAI: ``tool_calls[] = {"id", "type": "function", "function": {"name", "arguments"}}`` where
  ``arguments`` is a JSON-encoded *string*; the result goes back as a ``role: "tool"`` message.
- Anthropic: a ``tool_use`` block ``{"type": "tool_use", "id", "name", "input"}`` with ``input`` an
  object; an error goes back as ``{"type": "tool_result", "tool_use_id", "content", "is_error": true}``.
- Both Python SDKs hand these over as objects with attributes (pydantic models), not dicts; the
  adapters read either.
An adapter changes the envelope, never the content: a malformed arguments string stays the very
string the model sent, so that the runtime's checks say what is wrong inside it and the model is told.
"""

import json

from solutions.parse import decode_json

_MISSING = object()
_PLAIN = (str, bytes, bytearray, int, float, bool, list, tuple, type(None))


def _is_record(value):
    """True for what a wire entry can be: a dict, or an SDK object with attributes (not a str, list, number, None)."""
    return isinstance(value, dict) or not isinstance(value, _PLAIN)


def _field(record, key):
    """``record[key]`` for a dict, ``record.key`` for an SDK object; ``_MISSING`` when absent."""
    if isinstance(record, dict):
        return record.get(key, _MISSING)
    return getattr(record, key, _MISSING)


def _refuse(function, expected, got):
    # A programmer's mistake, not the model's: a call "without a name" would blame the model for it.
    return TypeError(f"{function} expects {expected}; got {type(got).__name__}. "
                     "Pass the entry itself (a dict, or the SDK's object), not the message or its text.")


def raw_call_from_openai(tool_call):
    """Turn one OpenAI ``tool_calls`` entry into the kit's raw call string.

    The arguments string is decoded only if it holds exactly one JSON value under the kit's rules
    (no repeated key, every number finite: ``decode_json``); otherwise it is kept, unchanged, as a
    string, and ``validate_call`` reports what is wrong inside it (extra data, a cut-off object, a
    repeated key, 1e400), located in ``arguments``. An empty string is kept too: the API reference
    documents ``arguments`` as JSON text, and "" is not JSON (docs/contract.md). Nothing is repaired.

    Args:
        tool_call: ``{"id": ..., "type": "function", "function": {"name": str, "arguments": str}}``,
            or the OpenAI SDK's ``ChatCompletionMessageToolCall`` object with the same attributes.
    Returns:
        str: ``{"name": ..., "arguments": ...}`` as JSON text.
    Raises:
        TypeError: ``tool_call`` is not a function tool call (a str, None, a list, the whole
        message, a ``custom`` tool call): the programmer passed the wrong thing.
    """
    expected = "one entry of message.tool_calls, with a function (a dict or the SDK's tool call object)"
    if not _is_record(tool_call):
        raise _refuse("raw_call_from_openai", expected, tool_call)
    function = _field(tool_call, "function")
    if function is _MISSING or function is None or not _is_record(function):
        raise _refuse("raw_call_from_openai", expected, tool_call)
    call = {}
    name = _field(function, "name")
    if name is not _MISSING:
        call["name"] = name
    arguments = _field(function, "arguments")
    arguments = None if arguments is _MISSING else arguments
    if isinstance(arguments, str) and arguments.strip():
        decoded, problems = decode_json(arguments, "arguments", "arguments")
        if not problems:
            arguments = decoded  # else it stays the model's own string, diagnosed downstream
    call["arguments"] = arguments
    return json.dumps(call)


def raw_call_from_anthropic(block):
    """Turn one Anthropic ``tool_use`` content block into the kit's raw call string.

    Args:
        block: ``{"type": "tool_use", "id": str, "name": str, "input": dict}``, or the Anthropic
            SDK's ``ToolUseBlock`` object with the same attributes.
    Returns:
        str: ``{"name": ..., "arguments": ...}`` as JSON text (``input`` passed through as it is).
    Raises:
        TypeError: ``block`` is not a tool_use block (a str, None, a text block, the whole message).
    """
    expected = "one tool_use content block (a dict or the SDK's ToolUseBlock object)"
    if not _is_record(block):
        raise _refuse("raw_call_from_anthropic", expected, block)
    kind, name, arguments = _field(block, "type"), _field(block, "name"), _field(block, "input")
    if (kind is not _MISSING and kind != "tool_use") or (name is _MISSING and arguments is _MISSING):
        raise _refuse("raw_call_from_anthropic", expected, block)
    call = {} if name is _MISSING else {"name": name}
    call["arguments"] = None if arguments is _MISSING else arguments
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

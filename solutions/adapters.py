"""Wire formats: from the OpenAI and Anthropic tool-call shapes to the kit's raw call, and back.

Facts (OpenAI chat completions and Anthropic messages API documentation):
- OpenAI: ``tool_calls[] = {"id", "type": "function", "function": {"name", "arguments"}}`` where
  ``arguments`` is a JSON-encoded *string*; the result goes back as a ``role: "tool"`` message.
- OpenAI's Responses API: an item of ``response.output`` ``{"type": "function_call", "call_id", "name",
  "arguments"}``, ``arguments`` again a JSON-encoded string; the result goes back as a
  ``function_call_output`` item with the same ``call_id``.
- Anthropic: a ``tool_use`` block ``{"type": "tool_use", "id", "name", "input"}`` with ``input`` an
  object; an error goes back as ``{"type": "tool_result", "tool_use_id", "content", "is_error": true}``.
- A streamed call arrives in pieces (a delta keyed by ``index`` whose later pieces carry no name and a
  fragment of ``arguments``); a piece is not a call, and an adapter handed one raises ``TypeError``
  (vllm-project/vllm #46344, openvinotoolkit/model_server #3838): a call "whose name is null" would blame
  the model for what the program did.
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


def _refuse(function, expected, got, advice="Pass the entry itself (a dict, or the SDK's object), not the message "
                                             "or its text."):
    # A programmer's mistake, not the model's: a call "without a name" would blame the model for it.
    return TypeError(f"{function} expects {expected}; got {type(got).__name__}. {advice}")


_FRAGMENT = ("It has no name, so it is a piece of a streamed call, not a call: join the pieces that share an index "
             "(name from the first, arguments concatenated) and pass the whole call once the stream ends.")


def _arguments_value(arguments):
    """OpenAI's arguments string decoded when it is exactly one JSON value under the kit's rules, else as it came."""
    arguments = None if arguments is _MISSING else arguments
    if isinstance(arguments, str) and arguments.strip():
        decoded, problems = decode_json(arguments, "arguments", "arguments")
        if not problems:
            return decoded  # else it stays the model's own string, diagnosed downstream
    return arguments


def raw_call_from_openai(tool_call):
    """Turn one OpenAI tool call (Chat Completions or Responses API) into the kit's raw call string.

    The arguments string is decoded only if it holds exactly one JSON value under the kit's rules
    (no repeated key, every number finite: ``decode_json``); otherwise it is kept, unchanged, as a
    string, and ``validate_call`` reports what is wrong inside it (extra data, a cut-off object, a
    repeated key, 1e400), located in ``arguments``. An empty string is kept too: the API reference
    documents ``arguments`` as JSON text, and "" is not JSON (docs/contract.md). Nothing is repaired.

    Args:
        tool_call: one entry of Chat Completions' ``message.tool_calls``, ``{"id": ..., "type": "function",
            "function": {"name": str, "arguments": str}}``, or one item of the Responses API's
            ``response.output``, ``{"type": "function_call", "call_id": ..., "name": str, "arguments": str}``;
            a dict or the OpenAI SDK's object with the same attributes.
    Returns:
        str: ``{"name": ..., "arguments": ...}`` as JSON text.
    Raises:
        TypeError: ``tool_call`` is not one whole function tool call (a str, None, a list, the whole
        message or response, a ``custom`` tool call, a streamed piece: no name, no arguments string, a delta
        without an id or with an empty name, an item ``in_progress``): the programmer passed the wrong thing.
    """
    name_of = "raw_call_from_openai"
    expected = ("one entry of message.tool_calls (Chat Completions), or one function_call item of response.output "
                "(Responses API), as a dict or the SDK's object")
    if not _is_record(tool_call):
        raise _refuse(name_of, expected, tool_call)
    kind = _field(tool_call, "type")
    if kind == "function_call":  # the Responses API: name and arguments on the item itself
        source = tool_call
    else:
        source = _field(tool_call, "function")
        if source is _MISSING or source is None or not _is_record(source) or kind not in (_MISSING, None, "function"):
            raise _refuse(name_of, expected, tool_call)
    name, arguments = _field(source, "name"), _field(source, "arguments")
    if name is _MISSING or name is None:
        raise _refuse(name_of, expected, tool_call, _FRAGMENT)
    if _is_piece(tool_call, name, arguments):
        raise _refuse(name_of, expected, tool_call, _PIECE)
    return json.dumps({"name": name, "arguments": _arguments_value(arguments)})


_PIECE = ("It is a piece of a streamed call (no arguments string yet, no id on a delta, an empty name on a delta, or "
          "an item still in progress), not a call: pass the whole call once the stream ends.")


def _is_piece(tool_call, name, arguments):
    """True when a named OpenAI entry is still a piece of a stream, so a tool would run on arguments never sent.

    Every whole call carries ``arguments`` as a string (both API references mark it required); a Chat Completions
    delta carries ``index``, and only its first piece has an ``id``; a Responses item announced by
    ``response.output_item.added`` has ``status: "in_progress"``. A delta with an id, a name and ``arguments: ""``
    cannot be told from a whole call whose arguments are ``""``, and is reported as that (docs/contract.md).
    """
    if arguments is _MISSING or arguments is None:
        return True
    if _field(tool_call, "status") == "in_progress":
        return True
    if _field(tool_call, "index") is not _MISSING:
        return _field(tool_call, "id") in (_MISSING, None) or name == ""
    return False


def raw_call_from_anthropic(block):
    """Turn one Anthropic ``tool_use`` content block into the kit's raw call string.

    Args:
        block: ``{"type": "tool_use", "id": str, "name": str, "input": dict}``, or the Anthropic
            SDK's ``ToolUseBlock`` object with the same attributes.
    Returns:
        str: ``{"name": ..., "arguments": ...}`` as JSON text (``input`` passed through as it is).
    Raises:
        TypeError: ``block`` is not a whole tool_use block (a str, None, a text block, the whole message, a
        block without a name or whose input is missing or null, such as a piece of a stream read too early).
    """
    expected = "one tool_use content block (a dict or the SDK's ToolUseBlock object)"
    if not _is_record(block):
        raise _refuse("raw_call_from_anthropic", expected, block)
    kind, name, arguments = _field(block, "type"), _field(block, "name"), _field(block, "input")
    if (kind is not _MISSING and kind != "tool_use") or (name is _MISSING and arguments is _MISSING):
        raise _refuse("raw_call_from_anthropic", expected, block)
    if name is _MISSING or name is None or arguments is _MISSING or arguments is None:
        raise _refuse("raw_call_from_anthropic", expected, block,
                      "It has no name or no input, so it is not a whole tool_use block: pass the block once the "
                      "stream has ended (the SDK's final message), not a piece of it.")
    return json.dumps({"name": name, "arguments": arguments})


def tool_error_result(tool_use_id, message):
    """The Anthropic ``tool_result`` block that carries an observation back to the model.

    Args:
        tool_use_id: the ``id`` of the ``tool_use`` block being answered (str).
        message: the observation text (str), unchanged.
    Returns:
        ``{"type": "tool_result", "tool_use_id": tool_use_id, "content": message, "is_error": True}``.
    """
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": message, "is_error": True}

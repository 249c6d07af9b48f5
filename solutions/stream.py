"""Step 7b: join a streamed turn into the assistant message it carries, and check nothing until it is whole.

A streamed chat completion sends each tool call in pieces: the first delta of a call carries its ``id`` and its
``name``, later ones a piece of ``arguments`` each, all keyed by ``index``. A piece of JSON is not JSON: the calls are
checked (notebook 7a's ``answer_turn``) only once the stream has finished. A stream cut at ``max_tokens`` ends with
``finish_reason: "length"``; its last call may be cut too, so it is asked for again, never answered. Sources:
docs/sources.md ("A streamed chat completion sends a call as deltas keyed by index", "Streamed calls without an index").
"""

# The finish reasons of a turn that ended as the model meant: anything else ("length": cut at max_tokens,
# "content_filter": withheld, none at all: the stream broke off) is not a turn to answer.
FINISHED = ("stop", "tool_calls")


def _piece_target(calls, open_calls, piece):
    """The call (dict) that ``piece`` (one ``tool_calls`` delta) adds to; a new one when it starts a call.

    A piece with an ``index`` goes to the call open at that index; one without an index (Gemini's OpenAI-compatible
    stream) to the last call started. A piece whose ``id`` differs from that call's starts a new call, at the same
    index: Ollama streams every call of a turn at index 0, and joining them by index alone glued their names and
    arguments together (NousResearch/hermes-agent #3468)."""
    index = piece.get("index")
    call = open_calls.get(index) if index is not None else (calls[-1] if calls else None)
    piece_id = piece.get("id")
    if call is None or (piece_id and call["id"] and piece_id != call["id"]):
        call = {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
        calls.append(call)
    if index is not None:
        open_calls[index] = call
    return call


def assemble_turn(chunks):
    """The assistant message a Chat Completions stream carries, or None when the stream did not finish.

    Args:
        chunks: the stream's chunks in arrival order (list of dicts, as ``stream=True`` yields them):
            ``{"choices": [{"index": 0, "delta": {"role"?, "content"?, "tool_calls"?: [{"index", "id"?, "type"?,
            "function": {"name"?, "arguments"?}}]}, "finish_reason": None | str}]}``; a chunk without choices (the
            usage chunk) carries nothing. Only the first choice (``index`` 0) is read.
    Returns:
        ``{"role": "assistant", "content": str or None, "tool_calls": [{"id", "type": "function", "function":
        {"name", "arguments"}}, ...]}`` (each call in the shape a non-streamed response holds: no ``index``) with the
        calls in the order they started (OpenAI's index order) and each ``arguments`` the exact concatenation of its
        pieces (not parsed, not repaired); ``content`` the text pieces joined, None when no text came;
        ``tool_calls`` only when there are calls. None when the last ``finish_reason`` that is not null is not
        ``"stop"`` or ``"tool_calls"`` (``"length"``: cut at max_tokens, ask again with more room; none: the stream
        broke off).
    """
    content, calls, open_calls, finish = [], [], {}, None
    for chunk in chunks:
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue  # another choice (n > 1) is another answer: not mixed into this one (no index: the first)
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                content.append(delta["content"])
            for piece in delta.get("tool_calls") or []:
                call = _piece_target(calls, open_calls, piece)
                function = piece.get("function") or {}
                # The id and the name come whole in a call's first piece; a later piece that repeats them adds nothing.
                if piece.get("id") and not call["id"]:
                    call["id"] = piece["id"]
                if function.get("name") and not call["function"]["name"]:
                    call["function"]["name"] = function["name"]
                if isinstance(function.get("arguments"), str):  # null in a first piece: nothing yet
                    call["function"]["arguments"] += function["arguments"]
            if choice.get("finish_reason") is not None:
                finish = choice["finish_reason"]
    if finish not in FINISHED:
        return None
    # None when no text came, as a non-streamed tool-call turn has it (OpenAI's first delta often carries "").
    message = {"role": "assistant", "content": "".join(content) or None}
    if calls:
        message["tool_calls"] = calls
    return message

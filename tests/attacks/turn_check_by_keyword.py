# EXPECTED: full marks on the turn exercise: the reference, calling check by the keyword the notebook names (check(tool_call=...)); the self-check agrees.
"""Step 7: answer one assistant turn that holds many tool calls, every call id exactly once.

A model may ask for several tools in one turn (OpenAI's parallel tool calls, Anthropic's parallel tool use). The
provider then expects one answer per call id: Anthropic refuses the next request with a 400 when a ``tool_use`` has
no ``tool_result`` (or a result names an id it did not send), and OpenAI does the same for a ``tool_calls`` entry
without its ``tool`` message. Sources: docs/sources.md ("Parallel tool calls", "Idempotency keys").
"""

import json

OPENAI = "openai"
ANTHROPIC = "anthropic"


def turn_tool_calls(message, provider):
    """The tool calls of an assistant message, in the order the model sent them, with their ids.

    Args:
        message: the assistant message as the provider sent it (dict). OpenAI Chat Completions:
            ``{"role": "assistant", "content": str or None, "tool_calls": [{"id", "type": "function",
            "function": {"name", "arguments"}}, ...] or None}``. Anthropic Messages: ``{"role": "assistant",
            "content": [{"type": "text", ...}, {"type": "tool_use", "id", "name", "input"}, ...]}``.
        provider: ``"openai"`` or ``"anthropic"`` (str).
    Returns:
        list of ``(call_id, tool_call)``: each call as the provider sent it, text blocks left out.
    Raises:
        ValueError: ``provider`` is neither of the two.
    """
    if provider == OPENAI:
        return [(entry.get("id"), entry) for entry in message.get("tool_calls") or []]
    if provider == ANTHROPIC:
        content = message.get("content")
        blocks = content if isinstance(content, list) else []  # a plain string content holds no tool use
        return [(block.get("id"), block) for block in blocks
                if isinstance(block, dict) and block.get("type") == "tool_use"]
    raise ValueError(f"provider must be {OPENAI!r} or {ANTHROPIC!r}, not {provider!r}")


def result_text(result):
    """What a tool returned, as the text a tool message carries (str): a string as it is, anything else as JSON.

    Both providers take a tool result's content as text; ``str()`` of a dict would give Python's repr (single
    quotes, ``True``), which is not what the model was told a tool returns."""
    if isinstance(result, str):
        return result
    return json.dumps(result, ensure_ascii=False, default=str)


def failure_text(name, exc):
    """The error text for a tool that raised or timed out (str): which tool, the exception's type and message.

    The message comes from the tool, not from the runtime: it is kept to one line of at most 300 characters, so a
    traceback or a page of HTML does not flood the model's context."""
    detail = " ".join(str(exc).split())[:300]
    text = f"The tool {name} failed and its result is unknown: {type(exc).__name__}"
    return f"{text}: {detail}" if detail else text


def answer_turn(message, provider, check, dispatch, done):
    """Run the valid calls of one assistant turn and answer every call id exactly once, in the provider's shape.

    The partial-failure policy is "each call on its own": the calls of one turn are taken as independent, so a valid
    call runs even when a sibling is refused, and every refused or failed call is answered with an error the model
    can act on. The calls run one after another, in the order sent.

    Args:
        message: the assistant message as the provider sent it (see ``turn_tool_calls``).
        provider: ``"openai"`` or ``"anthropic"`` (str).
        check: ``callable(tool_call) -> (call, observation)``: steps 1 to 3 (and notebook 6's adapters) for one
            tool call as the provider sent it; ``observation`` is None when the call may run.
        dispatch: ``callable(name, arguments) -> result``; may raise (a tool's error, ``TimeoutError``).
        done: ``{call_id: answer}`` the caller keeps across turns (dict, changed in place): the idempotency record.
            A call whose id is in it is not run again; its stored answer is sent again.
    Returns:
        list of messages to append to the conversation: for OpenAI one ``{"role": "tool", "tool_call_id": id,
        "content": text}`` per call; for Anthropic one ``{"role": "user", "content": [{"type": "tool_result",
        "tool_use_id": id, "content": text, "is_error": bool}, ...]}`` holding every result; ``[]`` for a turn
        without tool calls.
    Raises:
        ValueError: ``provider`` is neither of the two.
    """
    answers = []
    for call_id, tool_call in turn_tool_calls(message, provider):
        if call_id in done:  # the same id again (a replayed turn): its side effect ran once already
            answers.append(done[call_id])
            continue
        call, observation = check(tool_call=tool_call)
        if observation is not None:
            text, is_error = observation, True
        else:
            try:
                text, is_error = result_text(dispatch(call["name"], call["arguments"])), False
            except Exception as exc:  # a tool that raised or timed out may have acted: recorded below all the same
                text, is_error = failure_text(call["name"], exc), True
        if provider == OPENAI:  # OpenAI's tool message has no error flag: the text says it
            answer = {"role": "tool", "tool_call_id": call_id, "content": text}
        else:
            answer = {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": is_error}
        if observation is None:  # only a call that was handed to the tool needs its key: a refused one never ran
            done[call_id] = answer
        answers.append(answer)
    if provider == ANTHROPIC:
        # Every result of a turn in one user message: results split over several messages teach the model to stop
        # calling tools in parallel (Anthropic's tool-use docs).
        return [{"role": "user", "content": answers}] if answers else []
    return answers

"""Step 4: the bounded retry loop that ties parsing, validation and observations together."""

from solutions.observation import MAX_OBSERVATION_CHARS, observe
from solutions import registry
from solutions.schema import check_call
from solutions.violations import outside_text

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


def failure_reason(exc):
    """Name an exception from ``ask_model`` in a few words a model (and a log reader) can act on.

    The message is text the runtime did not write: a gateway's error may carry a whole traceback
    (issue 10, kind 2), so only its first line is kept, and none of it if that line is a traceback.

    Args:
        exc: the exception raised by ``ask_model``.
    Returns:
        str such as ``"RuntimeError: gateway error: 'name'"`` or ``"TimeoutError"`` (at most about 300 characters).
    """
    name = outside_text(type(exc).__name__, 100) or "an exception"
    message = outside_text(exc)
    return f"{name}: {message}" if message else name


def check(raw, tools):
    """Steps 1 to 3 in one: parse, validate and observe a raw call.

    This is the glue notebook 5 asks a learner to write from their own steps; ``run_tool_call``
    receives it as its ``check`` argument.

    Args:
        raw: the model's raw call (any value; non-strings are problems, not exceptions).
        tools: the registry, ``{name: {"required": {...}, "optional": {...}}}``.
    Returns:
        ``(call, observation)``: ``call`` is the parsed dict (``arguments`` is ``{}`` when it was
        missing or null) or None; ``observation`` is None when the call may be dispatched, else the
        text for the model (str, at most 2,000 characters).
    """
    call, problems = check_call(raw, tools)
    return call, observe(call, problems, tools)


def run_tool_call(raw, ask_model, tools, dispatch, check, retry_budget=RETRY_BUDGET):
    """Check a raw tool call, give the model at most ``retry_budget`` retries, then dispatch or reject.

    Step 4 of the staircase (notebook 4): the loop alone. Which calls are valid, and what the model is
    told, is ``check``'s job (steps 1 to 3), handed in as an argument, so the loop stands alone.

    Contract (the kit's capstone issue, from the seed): nothing is dispatched before ``check`` passes;
    what is dispatched is exactly the call ``check`` parsed (no coercion, no dropped fields);
    ``ask_model`` is called only after an invalid call and at most ``retry_budget`` times, with that
    attempt's observation; every answer is checked from the start; ``dispatch`` at most once. Never
    raises for any ``raw`` or any behaviour of ``ask_model`` (an ``Exception`` from it ends in a
    rejection that says the retry failed).

    Args:
        raw: the model's first raw call (normally str; anything else is rejected, not raised on).
        ask_model: ``callable(observation: str) -> str``, the model's next raw call.
        tools: the registry, ``{name: {"required": {...}, "optional": {...}}}``, passed on to ``check``.
        dispatch: ``callable(name: str, arguments: dict) -> any``, run only for a valid call.
        check: ``callable(raw, tools) -> (call, observation)`` as ``solutions.retry.check``.
        retry_budget: how many times the model may be asked again (int, default 1).
    Returns:
        whatever ``dispatch`` returned, unchanged, or ``{"status": "rejected", "error": text}``
        where ``text`` (at most 2,000 characters) describes the last attempt.
    """
    attempt = raw
    for attempt_number in range(retry_budget + 1):
        call, observation = check(attempt, tools)
        if observation is None:
            return dispatch(call["name"], call["arguments"])
        if attempt_number == retry_budget:
            return rejection(observation)
        try:
            attempt = ask_model(observation)
        except Exception as exc:  # the model client failing is a rejection, not a crash of the runtime
            note = f"\nThe retry failed: asking the model again raised {failure_reason(exc)}."
            return rejection(observation[: MAX_OBSERVATION_CHARS - len(note)] + note)
    raise AssertionError("unreachable: the loop always returns")  # pragma: no cover


def handle_tool_call(raw, ask_model, *, tools=None, dispatch=echo_dispatch, retry_budget=RETRY_BUDGET):
    """The reference package's entry point: ``run_tool_call`` with the registry and dispatcher as keywords.

    Args:
        raw, ask_model, retry_budget: as for ``run_tool_call``.
        tools: the registry; None (the default) means ``solutions.registry.TOOLS`` as it is *at
            call time*, never a copy bound when this function was defined.
        dispatch: the dispatcher (default ``echo_dispatch``, which executes nothing).
    Returns:
        as ``run_tool_call``.
    """
    return run_tool_call(raw, ask_model, registry.TOOLS if tools is None else tools, dispatch, check, retry_budget)

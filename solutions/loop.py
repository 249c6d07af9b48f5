"""Step 8: the agent loop around the single call, with budgets that hold across turns.

Notebook 4 bounds the retries of one call. That bound alone does not stop a model that sends the same broken call
again on its next turn: each new call gets a fresh retry, and the loop repeats until the run's turns run out (one run
sent a byte-identical malformed call 85 times in a row and stopped only at ``max_turns``: NousResearch/hermes-agent
#67829). Real runtimes layer their budgets: pydantic-ai counts a tool's failures per tool across a run's steps, the
OpenAI Agents SDK caps a run's turns (``DEFAULT_MAX_TURNS = 10``), and the providers' own clients retry a request that
timed out with exponential backoff under a budget of their own. Sources: docs/sources.md ("Frameworks").

The messages are the course's own short shape (notebook 7 showed the providers' shapes):

- ``{"role": "user", "content": task}``
- ``{"role": "assistant", "content": str or None, "calls": [{"id": str, "raw": str}, ...]}``: a model's reply
- ``{"role": "tool", "id": call_id, "content": str, "is_error": bool}``: one answer per call, in the order sent
"""

import json

# Why each stop happened: the caller acts on these (show the answer; fix a tool's description; report a model that
# loops; try another model or later).
ANSWERED = "answered"
NO_PROGRESS = "no_progress"
TOOL_FAILURES = "tool_failures"
MAX_TURNS = "max_turns"
MODEL_UNAVAILABLE = "model_unavailable"
MODEL_ERROR = "model_error"

# The budgets: turns for the whole run (the OpenAI Agents SDK's default), failures of one tool in a row (one retry of
# notebook 4 and one more chance after a different mistake), retries of one model request that timed out (the
# official clients' default) and the first wait before such a retry, in seconds (the clients' 0.5 s).
LIMITS = {"max_turns": 10, "tool_failures": 3, "model_retries": 2, "backoff": 0.5}

# The failures a retry can cure: the request did not get through, or got no answer in time. Any other exception from
# the model is a fault that the same request would meet again.
TRANSIENT = (TimeoutError, ConnectionError)


def result_text(result):
    """What a tool returned, as the text of its tool message (str): a string as it is, anything else as JSON."""
    if isinstance(result, str):
        return result
    return json.dumps(result, ensure_ascii=False, default=str)


def failure_text(name, exc):
    """The error text for a tool that raised (str): which tool, the exception's type and one bounded line of it.

    The message comes from the tool, not from the runtime: at most 300 characters of it, on one line, so a traceback
    or a page of HTML does not flood the model's context."""
    detail = " ".join(str(exc).split())[:300]
    text = f"The tool {name} failed and its result is unknown: {type(exc).__name__}"
    return f"{text}: {detail}" if detail else text


def tool_key(call):
    """Whose failure a call is (str or None): the tool name the model wrote, or None when it wrote no name as text
    (a call that did not parse, or a name that is no string); all of those share one count."""
    if isinstance(call, dict) and isinstance(call.get("name"), str):
        return call["name"]
    return None


def ask(model, messages, limits, sleep):
    """Ask the model for its next reply, retrying a transient failure with exponential backoff.

    Args:
        model: ``callable(messages) -> reply`` (see ``run_agent``). messages: the conversation so far (list).
        limits: ``LIMITS``' keys. sleep: ``callable(seconds)``.
    Returns:
        ``(reply, None)``, or ``(None, stop_reason)`` when the retries ran out (``MODEL_UNAVAILABLE``) or the model
        raised anything else (``MODEL_ERROR``, not retried: the same request would fail the same way).
    """
    for attempt in range(limits["model_retries"] + 1):
        try:
            return model(messages), None
        except TRANSIENT:
            if attempt == limits["model_retries"]:
                return None, MODEL_UNAVAILABLE
            # 0.5 s, 1 s, 2 s...: a service that is overloaded gets room to recover (the clients add jitter too).
            sleep(limits["backoff"] * 2 ** attempt)
        except Exception:
            return None, MODEL_ERROR
    return None, MODEL_UNAVAILABLE  # not reached: the last attempt returns above


def run_agent(task, model, check, dispatch, sleep, limits=LIMITS):
    """Run one task to its end: ask the model, answer every call it makes, and stop for a reason the caller can use.

    Args:
        task: what the user asked (str), the conversation's first message.
        model: ``callable(messages) -> reply``: the model, given the whole conversation (list of the module's message
            dicts); its reply is ``{"role": "assistant", "content": str or None, "calls": [{"id", "raw"}, ...]}``.
            It may raise ``TimeoutError`` or ``ConnectionError`` (transient: retried) or anything else (not retried).
        check: ``callable(raw) -> (call, observation)``: steps 1 to 3 for one raw call; ``observation`` is None when
            the call may be dispatched.
        dispatch: ``callable(name, arguments) -> result``; may raise (a tool that failed or timed out).
        sleep: ``callable(seconds)``: how the loop waits before retrying the model (``time.sleep`` in real use).
        limits: ``{"max_turns": int, "tool_failures": int, "model_retries": int, "backoff": float seconds}``.
    Returns:
        ``{"stop": reason, "answer": str or None, "turns": int, "tool": str or None, "messages": list}``: why the
        run ended (``ANSWERED``, ``NO_PROGRESS``, ``TOOL_FAILURES``, ``MAX_TURNS``, ``MODEL_UNAVAILABLE``,
        ``MODEL_ERROR``), the model's final text when it answered, how many replies the model gave, the tool behind a
        ``NO_PROGRESS`` or ``TOOL_FAILURES`` stop, and the whole conversation. Never raises for what the model or a
        tool does.

    The rules, each stated in notebook 8: every call of a reply is answered, in order (a refused call with its
    observation, never run; a tool that raised with an error naming the exception's type); a tool's failures in a row
    are counted across turns and a success of that tool starts its count again; a call sent again exactly as one
    refused in an earlier turn is no progress; after a turn the loop stops for no progress first, then for a tool
    whose failures reached ``tool_failures`` during the turn (pydantic-ai raises at that failure; a later success in
    the same turn does not take it back), then for ``max_turns`` replies; a transient model error is retried at most
    ``model_retries`` times per request, waiting ``backoff * 2**k`` seconds before retry k.
    """
    messages = [{"role": "user", "content": task}]
    failures = {}  # tool key -> failures in a row, across turns
    refused = set()  # raw texts refused in earlier turns
    turns = 0
    while True:
        reply, stop = ask(model, messages, limits, sleep)
        if stop is not None:
            return {"stop": stop, "answer": None, "turns": turns, "tool": None, "messages": messages}
        if not isinstance(reply, dict):  # no reply the loop can read: the same request would get the same
            return {"stop": MODEL_ERROR, "answer": None, "turns": turns, "tool": None, "messages": messages}
        turns += 1
        messages.append(reply)
        calls = reply.get("calls") or []
        if not calls:
            return {"stop": ANSWERED, "answer": reply.get("content"), "turns": turns, "tool": None, "messages": messages}
        repeated = None
        refused_now = set()
        worn = None  # the first tool of this turn whose failures in a row reached the limit
        for entry in calls:
            entry = entry if isinstance(entry, dict) else {}
            raw = entry.get("raw")
            call, observation = check(raw)
            key = tool_key(call)
            if observation is not None:
                content, is_error = observation, True
                if isinstance(raw, str) and raw in refused and repeated is None:
                    repeated = (key,)
                if isinstance(raw, str):
                    refused_now.add(raw)
            else:
                try:
                    content, is_error = result_text(dispatch(call["name"], call["arguments"])), False
                except Exception as exc:  # the tool's fault: an answer for the model, and a failure counted
                    content, is_error = failure_text(call["name"], exc), True
            failures[key] = failures.get(key, 0) + 1 if is_error else 0
            if failures[key] >= limits["tool_failures"] and worn is None:
                worn = (key,)  # reached now: a later success in the same turn does not take it back
            messages.append({"role": "tool", "id": entry.get("id"), "content": content, "is_error": is_error})
        refused |= refused_now
        if repeated is not None:
            return {"stop": NO_PROGRESS, "answer": None, "turns": turns, "tool": repeated[0], "messages": messages}
        if worn is not None:
            return {"stop": TOOL_FAILURES, "answer": None, "turns": turns, "tool": worn[0], "messages": messages}
        if turns >= limits["max_turns"]:
            return {"stop": MAX_TURNS, "answer": None, "turns": turns, "tool": None, "messages": messages}

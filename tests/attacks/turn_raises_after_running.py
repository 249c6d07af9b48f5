# EXPECTED: no replay point and no hidden point but on a turn where nothing runs (the first answer of every turn that runs a tool raises; "answer_turn itself never raises").
import json


def answer_turn(message, provider, check, dispatch, done):
    if provider == "openai":
        calls = [(c.get("id"), c) for c in message.get("tool_calls") or []]
    else:
        content = message.get("content")
        calls = [(b.get("id"), b) for b in content if isinstance(b, dict) and b.get("type") == "tool_use"] \
            if isinstance(content, list) else []
    answers, fresh = [], False
    for cid, tc in calls:
        if cid in done:
            answers.append(done[cid]); continue
        call, obs = check(tc)
        if obs is not None:
            text, err = obs, True
        else:
            fresh = True
            try:
                r = dispatch(call["name"], call["arguments"])
                text, err = (r if isinstance(r, str) else json.dumps(r)), False
            except Exception as exc:
                text, err = type(exc).__name__, True
        a = ({"role": "tool", "tool_call_id": cid, "content": text} if provider == "openai" else
             {"type": "tool_result", "tool_use_id": cid, "content": text, "is_error": err})
        if obs is None:
            done[cid] = a
        answers.append(a)
    if fresh:
        # A crash after the tools ran: the turn is left unanswered.
        raise RuntimeError("crashed while building the reply")
    if provider == "anthropic":
        return [{"role": "user", "content": answers}] if answers else []
    return answers

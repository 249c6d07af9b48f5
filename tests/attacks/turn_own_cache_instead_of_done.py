# EXPECTED: loses the replay cases (turn.idempotent): it never reads or writes `done`, the caller's record, and keeps its own module-global cache instead (a fresh `done` would still get "already ran" answers; a caller's pre-filled `done` is ignored).
import json

_SEEN = {}  # module-global, not the caller's done


def answer_turn(message, provider, check, dispatch, done):
    if provider == "openai":
        calls = [(c.get("id"), c) for c in message.get("tool_calls") or []]
    else:
        content = message.get("content")
        calls = [(b.get("id"), b) for b in content if isinstance(b, dict) and b.get("type") == "tool_use"] \
            if isinstance(content, list) else []
    answers = []
    for cid, tc in calls:
        if cid in _SEEN:
            answers.append(_SEEN[cid]); continue
        call, obs = check(tc)
        if obs is not None:
            text, err = obs, True
        else:
            try:
                r = dispatch(call["name"], call["arguments"])
                text, err = (r if isinstance(r, str) else json.dumps(r)), False
            except Exception as exc:
                text, err = f"{type(exc).__name__}: {exc}", True
        a = ({"role": "tool", "tool_call_id": cid, "content": text} if provider == "openai" else
             {"type": "tool_result", "tool_use_id": cid, "content": text, "is_error": err})
        if obs is None:
            _SEEN[cid] = a
        answers.append(a)
    if provider == "anthropic":
        return [{"role": "user", "content": answers}] if answers else []
    return answers

import json


def _calls(message, provider):
    if not isinstance(message, dict):
        return []
    if provider == "openai":
        tc = message.get("tool_calls")
        return [c for c in tc if isinstance(c, dict)] if isinstance(tc, list) else []
    content = message.get("content")
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"] if isinstance(content, list) else []


def _text(result):
    return result if isinstance(result, str) else json.dumps(result)


def _one(call, check, dispatch, done):
    cid = call.get("id")
    if cid in done:
        return done[cid]
    try:
        ok, obs = check(call)
    except Exception as e:
        return {"content": f"E: check: {type(e).__name__}: {e}", "is_error": True}
    if obs is not None:
        return {"content": obs, "is_error": True}
    try:
        ans = {"content": _text(dispatch(ok["name"], ok["arguments"])), "is_error": False}
    except Exception as e:
        ans = {"content": f"E: {ok['name']}: {type(e).__name__}: {e}", "is_error": True}
    done[cid] = ans
    return ans


def answer_turn(message, provider, check, dispatch, done):
    calls = _calls(message, provider)
    answered = [(c.get("id"), _one(c, check, dispatch, done)) for c in calls]
    if not answered:
        return []
    if provider == "openai":
        return [{"role": "tool", "tool_call_id": i, "content": a["content"]} for i, a in answered]
    return [{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": i, "content": a["content"], "is_error": a["is_error"]}
        for i, a in answered]}]

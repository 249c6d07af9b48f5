# EXPECTED: loses turn.tool-error cases: the error answer names every exception type whatever was raised (says a TimeoutError happened when it was a ConnectionError) and dumps a full traceback into the model's context (the notebook's reference bounds it to one line). A strict grader would fail it; a lenient one may accept "names the type" by substring.
import json
import traceback

ALL = "The tool failed: TimeoutError or RuntimeError or ConnectionError (one of them)."


def answer_turn(message, provider, check, dispatch, done):
    if provider == "openai":
        calls = [(c.get("id"), c) for c in message.get("tool_calls") or []]
    else:
        content = message.get("content")
        calls = [(b.get("id"), b) for b in content if isinstance(b, dict) and b.get("type") == "tool_use"] \
            if isinstance(content, list) else []
    answers = []
    for cid, tc in calls:
        if cid in done:
            answers.append(done[cid]); continue
        call, obs = check(tc)
        if obs is not None:
            text, err = obs, True
        else:
            try:
                r = dispatch(call["name"], call["arguments"])
                text, err = (r if isinstance(r, str) else json.dumps(r)), False
            except Exception:
                text, err = ALL + "\n" + traceback.format_exc() * 50, True
        a = ({"role": "tool", "tool_call_id": cid, "content": text} if provider == "openai" else
             {"type": "tool_result", "tool_use_id": cid, "content": text, "is_error": err})
        if obs is None:
            done[cid] = a
        answers.append(a)
    if provider == "anthropic":
        return [{"role": "user", "content": answers}] if answers else []
    return answers

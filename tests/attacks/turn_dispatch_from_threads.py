# EXPECTED: no case fails for a mixed-up reply (requests from threads are answered one at a time); a case may fail only with "another order than the model sent them" (the notebook runs calls in order).
import json
from concurrent.futures import ThreadPoolExecutor


def answer_turn(message, provider, check, dispatch, done):
    if provider == "openai":
        calls = [(c.get("id"), c) for c in message.get("tool_calls") or []]
    else:
        content = message.get("content")
        calls = [(b.get("id"), b) for b in content if isinstance(b, dict) and b.get("type") == "tool_use"] \
            if isinstance(content, list) else []
    slots = []
    todo = []
    for cid, tc in calls:
        if cid in done:
            slots.append(("done", cid, done[cid])); continue
        call, obs = check(tc)
        if obs is not None:
            slots.append(("refused", cid, obs))
        else:
            slots.append(("run", cid, call)); todo.append(call)

    def run(call):
        try:
            r = dispatch(call["name"], call["arguments"])
            return (r if isinstance(r, str) else json.dumps(r)), False
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}", True

    with ThreadPoolExecutor(4) as pool:
        results = iter(list(pool.map(run, todo)))
    answers = []
    for kind, cid, x in slots:
        if kind == "done":
            answers.append(x); continue
        text, err = (x, True) if kind == "refused" else next(results)
        a = ({"role": "tool", "tool_call_id": cid, "content": text} if provider == "openai" else
             {"type": "tool_result", "tool_use_id": cid, "content": text, "is_error": err})
        if kind == "run":
            done[cid] = a
        answers.append(a)
    if provider == "anthropic":
        return [{"role": "user", "content": answers}] if answers else []
    return answers

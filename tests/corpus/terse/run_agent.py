import json


def run_agent(task, model, check, dispatch, sleep, limits):
    """Run one task to its end: ask the model, answer every call, stop with a reason; return the result dict."""
    msgs, turns, fails, refused = [{"role": "user", "content": task}], 0, {}, set()
    done = lambda stop, answer=None, tool=None: dict(stop=stop, answer=answer, turns=turns, tool=tool, messages=msgs)
    try:
        while turns < limits["max_turns"]:
            for k in range(limits["model_retries"] + 1):
                try:
                    reply = model(list(msgs))
                    break
                except (TimeoutError, ConnectionError):
                    if k == limits["model_retries"]:
                        return done("model_unavailable")
                    sleep(limits["backoff"] * 2 ** k)
                except Exception:
                    return done("model_error")
            turns += 1
            msgs.append(reply)
            if not reply.get("calls"):
                return done("answered", reply.get("content"))
            repeat = worn_out = None
            now_refused = set()
            for c in reply["calls"]:
                call, obs = check(c["raw"])
                name = call.get("name") if isinstance(call, dict) and isinstance(call.get("name"), str) else None
                if obs is None:
                    try:
                        out = dispatch(call["name"], call["arguments"])
                        text, err = out if isinstance(out, str) else json.dumps(out, default=str), False
                    except Exception as e:
                        text, err = f"Error: {type(e).__name__}: {e}"[:500], True
                else:
                    text, err = str(obs), True
                    if c["raw"] in refused and repeat is None:
                        repeat = [name]
                    now_refused.add(c["raw"])
                msgs.append({"role": "tool", "id": c["id"], "content": text, "is_error": err})
                fails[name] = fails.get(name, 0) + 1 if err else 0
                if err and fails[name] >= limits["tool_failures"] and worn_out is None:
                    worn_out = [name]
            refused |= now_refused
            if repeat or worn_out:
                return done("no_progress" if repeat else "tool_failures", tool=(repeat or worn_out)[0])
        return done("max_turns")
    except Exception:
        return done("model_error")

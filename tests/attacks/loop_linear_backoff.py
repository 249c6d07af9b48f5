# EXPECTED: loses the five-retries case (waits backoff * (k + 1): inside the jitter window for k < 3, so it kept full marks before that case).
import json


def _ask(model, messages, limits, sleep):
    for attempt in range(limits["model_retries"] + 1):
        try:
            return model(messages), None
        except (TimeoutError, ConnectionError):
            if attempt == limits["model_retries"]:
                return None, "model_unavailable"
            sleep(limits["backoff"] * (attempt + 1))
        except Exception:
            return None, "model_error"


def run_agent(task, model, check, dispatch, sleep, limits):
    messages = [{"role": "user", "content": task}]
    failures, refused, turns = {}, set(), 0

    def stop(reason, answer=None, tool=None):
        return {"stop": reason, "answer": answer, "turns": turns, "tool": tool, "messages": messages}

    while True:
        reply, reason = _ask(model, messages, limits, sleep)
        if reason:
            return stop(reason)
        turns += 1
        messages.append(reply)
        if not reply.get("calls"):
            return stop("answered", reply.get("content"))
        again, worn, now = [], [], set()
        for entry in reply["calls"]:
            call, observation = check(entry["raw"])
            name = call.get("name") if isinstance(call, dict) and isinstance(call.get("name"), str) else None
            if observation is not None:
                content, error = observation, True
                if entry["raw"] in refused:
                    again.append(name)
                now.add(entry["raw"])
            else:
                try:
                    result = dispatch(call["name"], call["arguments"])
                    content, error = result if isinstance(result, str) else json.dumps(result), False
                except Exception as exc:
                    content, error = f"{call['name']} failed: {type(exc).__name__}: {exc}", True
            failures[name] = failures.get(name, 0) + 1 if error else 0
            if failures[name] >= limits["tool_failures"]:
                worn.append(name)
            messages.append({"role": "tool", "id": entry["id"], "content": content, "is_error": error})
        refused |= now
        if again:
            return stop("no_progress", tool=again[0])
        if worn:
            return stop("tool_failures", tool=worn[0])
        if turns >= limits["max_turns"]:
            return stop("max_turns")

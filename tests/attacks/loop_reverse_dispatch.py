# EXPECTED: full marks (a correct loop that runs a turn's valid calls last-first, each result in its own call's message; an attacker's trial of notebook 8 saw it lose a point).
import json


def _ask(model, messages, limits, sleep):
    for attempt in range(limits["model_retries"] + 1):
        try:
            return model(messages), None
        except (TimeoutError, ConnectionError):
            if attempt == limits["model_retries"]:
                return None, "model_unavailable"
            sleep(limits["backoff"] * 2 ** attempt)
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
        results = {}
        for index in reversed(range(len(reply["calls"]))):  # run the valid calls last-first, as threads might
            entry = reply["calls"][index]
            call, observation = check(entry["raw"])
            if observation is None:
                try:
                    results[index] = ("ok", dispatch(call["name"], call["arguments"]))
                except Exception as exc:
                    results[index] = ("raised", exc)
        for index, entry in enumerate(reply["calls"]):
            call, observation = check(entry["raw"])
            name = call.get("name") if isinstance(call, dict) and isinstance(call.get("name"), str) else None
            if observation is not None:
                content, error = observation, True
                if entry["raw"] in refused:
                    again.append(name)
                now.add(entry["raw"])
            else:
                kind, result = results[index]
                if kind == "ok":
                    content, error = result if isinstance(result, str) else json.dumps(result), False
                else:
                    content, error = f"{call['name']} failed: {type(result).__name__}: {result}", True
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

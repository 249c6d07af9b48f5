"""Exercise 8: the agent loop, organised around a small budget-keeping class."""
import json

RETRYABLE = (TimeoutError, ConnectionError)


class RunBudget:
    """Keeps the cross-turn counts: failures in a row per tool, and raw texts refused in earlier turns."""

    def __init__(self, limit):
        self.limit = limit
        self.in_a_row = {}
        self.refused_before = set()
        self._refused_now = set()

    def start_turn(self):
        self.refused_before |= self._refused_now
        self._refused_now = set()

    def is_repeat(self, raw):
        return isinstance(raw, str) and raw in self.refused_before

    def record_refusal(self, raw):
        if isinstance(raw, str):
            self._refused_now.add(raw)

    def failure(self, tool):
        """Count one failure; True when this failure makes the count reach the limit."""
        self.in_a_row[tool] = self.in_a_row.get(tool, 0) + 1
        return self.in_a_row[tool] >= self.limit

    def success(self, tool):
        self.in_a_row[tool] = 0


def tool_name(call):
    if isinstance(call, dict) and isinstance(call.get("name"), str):
        return call["name"]
    return None


def as_text(result):
    if isinstance(result, str):
        return result
    try:
        return json.dumps(result)
    except (TypeError, ValueError):
        return str(result)


class AgentRun:
    def __init__(self, task, model, check, dispatch, sleep, limits):
        self.model, self.check, self.dispatch, self.sleep = model, check, dispatch, sleep
        self.max_turns = limits.get("max_turns", 10)
        self.model_retries = limits.get("model_retries", 2)
        self.backoff = limits.get("backoff", 0.5)
        self.budget = RunBudget(limits.get("tool_failures", 3))
        self.messages = [{"role": "user", "content": task}]
        self.turns = 0

    def result(self, stop, answer=None, tool=None):
        return {"stop": stop, "answer": answer, "turns": self.turns, "tool": tool, "messages": self.messages}

    def ask(self):
        """One model request with its own retry budget: ("ok", reply) or ("stop", reason)."""
        for attempt in range(self.model_retries + 1):
            if attempt:
                self.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                return "ok", self.model(list(self.messages))
            except RETRYABLE:
                continue
            except Exception:
                return "stop", "model_error"
        return "stop", "model_unavailable"

    def answer_call(self, call_entry):
        """Check one call, run it if valid, append its tool message; return (name, refused, failed)."""
        if not isinstance(call_entry, dict):
            call_entry = {}
        raw = call_entry.get("raw")
        call, observation = self.check(raw)
        name = tool_name(call)
        if observation is not None:
            content, is_error = str(observation), True
        else:
            try:
                content, is_error = as_text(self.dispatch(call["name"], call["arguments"])), False
            except Exception as exc:
                content = f"Error: the tool raised {type(exc).__name__}: {exc}"[:500]
                is_error = True
        self.messages.append({"role": "tool", "id": call_entry.get("id"), "content": content, "is_error": is_error})
        return raw, name, observation is not None, is_error

    def run(self):
        while True:
            if self.turns >= self.max_turns:
                return self.result("max_turns")
            status, reply = self.ask()
            if status == "stop":
                return self.result(reply)
            self.turns += 1
            self.messages.append(reply)
            calls = reply.get("calls") if isinstance(reply, dict) else None
            if not calls:
                return self.result("answered", answer=reply.get("content") if isinstance(reply, dict) else None)
            self.budget.start_turn()
            repeated = exhausted = None
            for entry in calls:
                raw, name, refused, failed = self.answer_call(entry)
                if refused and repeated is None and self.budget.is_repeat(raw):
                    repeated = (name,)
                if refused:
                    self.budget.record_refusal(raw)
                if failed:
                    if self.budget.failure(name) and exhausted is None:
                        exhausted = (name,)
                else:
                    self.budget.success(name)
            if repeated:
                return self.result("no_progress", tool=repeated[0])
            if exhausted:
                return self.result("tool_failures", tool=exhausted[0])


def run_agent(task, model, check, dispatch, sleep, limits):
    """Run one task to its end: ask the model, answer every call, stop with a reason; return the result dict."""
    agent = AgentRun(task, model, check, dispatch, sleep, limits)
    try:
        return agent.run()
    except Exception:  # run_agent never raises: report what was done so far
        return agent.result("model_error")

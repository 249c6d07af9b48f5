"""Exercise 7: answer every tool call of one assistant turn (class-based style)."""
import json
from dataclasses import dataclass


@dataclass
class ToolCall:
    """One tool call of a turn, as the provider sent it, with its id."""
    id: object
    raw: dict


@dataclass
class Answer:
    """The answer to one tool call: text for the model, and whether it reports a failure."""
    content: str
    is_error: bool = False


class TurnAnswerer:
    def __init__(self, provider, check, dispatch, done):
        self.provider = provider
        self.check = check
        self.dispatch = dispatch
        self.done = done

    # -- reading the turn ------------------------------------------------------------------
    def calls(self, message):
        if not isinstance(message, dict):
            return []
        if self.provider == "openai":
            raw_calls = message.get("tool_calls") or []
            key = "id"
            return [ToolCall(c.get("id"), c) for c in raw_calls if isinstance(c, dict)] if isinstance(raw_calls, list) else []
        if self.provider == "anthropic":
            content = message.get("content")
            if not isinstance(content, list):
                return []
            return [ToolCall(b.get("id"), b) for b in content
                    if isinstance(b, dict) and b.get("type") == "tool_use"]
        return []

    # -- answering one call ----------------------------------------------------------------
    @staticmethod
    def as_text(result):
        if isinstance(result, str):
            return result
        return json.dumps(result)

    def answer(self, call):
        if call.id in self.done:
            stored = self.done[call.id]
            if isinstance(stored, Answer):
                return stored
            if isinstance(stored, dict) and "content" in stored:
                return Answer(stored["content"], bool(stored.get("is_error", False)))
            return Answer(stored if isinstance(stored, str) else self.safe_text(stored), False)
        try:
            checked, observation = self.check(call.raw)
        except Exception as exc:  # the checker itself failed: refuse rather than run
            return Answer(f"The call could not be checked, so it was not run "
                          f"({type(exc).__name__}: {exc}). Please send it again.", True)
        if observation is not None:
            return Answer(observation, True)
        try:
            result = self.dispatch(checked["name"], checked["arguments"])
        except Exception as exc:
            answer = Answer(f"The tool '{checked['name']}' failed while running and raised "
                            f"{type(exc).__name__}: {exc}", True)
            self.done[call.id] = answer
            return answer
        try:
            answer = Answer(self.as_text(result), False)
        except (TypeError, ValueError) as exc:
            answer = Answer(f"The tool '{checked['name']}' ran, but its result could not be turned "
                            f"into JSON ({type(exc).__name__}: {exc}).", True)
        self.done[call.id] = answer
        return answer

    @staticmethod
    def safe_text(value):
        try:
            return json.dumps(value)
        except (TypeError, ValueError):
            return str(value)

    # -- building the messages -------------------------------------------------------------
    def run(self, message):
        calls = self.calls(message)
        if not calls:
            return []
        answers = [(call, self.answer(call)) for call in calls]
        if self.provider == "openai":
            return [{"role": "tool", "tool_call_id": call.id, "content": ans.content}
                    for call, ans in answers]
        return [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call.id, "content": ans.content, "is_error": ans.is_error}
            for call, ans in answers]}]


def answer_turn(message, provider, check, dispatch, done):
    """Answer every tool call of one assistant turn exactly once, in the provider's shape; return the messages to append."""
    return TurnAnswerer(provider, check, dispatch, done).run(message)

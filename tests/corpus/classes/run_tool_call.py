"""Exercise 4: the bounded retry loop - one more chance, then a graceful rejection."""
from dataclasses import dataclass

MAX_ERROR_LENGTH = 2000


@dataclass(frozen=True)
class Rejection:
    """The graceful end of a call that could not be made valid."""

    reason: str

    @staticmethod
    def one_line(text):
        text = " ".join(str(text).split())
        if len(text) > MAX_ERROR_LENGTH:
            text = text[: MAX_ERROR_LENGTH - 3] + "..."
        return text

    def as_result(self):
        return {"status": "rejected", "error": self.one_line(self.reason)}


@dataclass
class Attempt:
    """What the check said about one raw call."""

    call: object
    observation: object

    @property
    def passed(self):
        return self.observation is None and isinstance(self.call, dict)


class ToolCallSession:
    """Handles exactly one tool call: its own budget of one retry, nothing shared with other calls."""

    RETRY_BUDGET = 1

    def __init__(self, ask_model, tools, dispatch, check):
        self.ask_model = ask_model
        self.tools = tools
        self.dispatch = dispatch
        self.check = check

    def inspect(self, raw):
        try:
            call, observation = self.check(raw, self.tools)
        except Exception as error:
            return Attempt(None, f"The tool call could not be checked ({type(error).__name__}); nothing was run.")
        if observation is None and not isinstance(call, dict):
            observation = "The tool call could not be understood; nothing was run."
        return Attempt(call, observation)

    def run_valid(self, attempt):
        try:
            return self.dispatch(attempt.call["name"], attempt.call["arguments"])
        except Exception as error:
            return Rejection(f"The tool was started but stopped with an error of type {type(error).__name__}.").as_result()

    def ask_again(self, observation):
        try:
            return True, self.ask_model(observation)
        except Exception as error:
            return False, Rejection(
                f"The call was invalid and the retry failed: asking the model for a corrected call did not work "
                f"({type(error).__name__}), so nothing was run."
            ).as_result()

    def run(self, raw):
        attempt = self.inspect(raw)
        retries_left = self.RETRY_BUDGET
        while not attempt.passed:
            if retries_left == 0:
                return Rejection(
                    f"The corrected call was still invalid, so nothing was run. Last attempt: {attempt.observation}"
                ).as_result()
            retries_left -= 1
            asked, answer = self.ask_again(attempt.observation)
            if not asked:
                return answer
            attempt = self.inspect(answer)
        return self.run_valid(attempt)


def run_tool_call(raw, ask_model, tools, dispatch, check):
    """Dispatch a valid call; give an invalid one exactly one retry; otherwise return a rejection."""
    try:
        return ToolCallSession(ask_model, tools, dispatch, check).run(raw)
    except Exception as error:
        return Rejection(f"The tool call could not be handled ({type(error).__name__}); nothing was run.").as_result()

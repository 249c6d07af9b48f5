"""The visible cases: shown with their input, run by the notebook's self-check and by the grader.

One list, two runners: ``grader.selfcheck`` runs these in the learner's kernel for instant
feedback; ``grader/cases/test_00_visible.py`` runs the same cases in the grader's sandbox. Passing
them all is not the same as passing the hidden cases, and the reports say so.
"""

from dataclasses import dataclass

from grader import expectations as expect
from grader.models import Answers, NeverCorrects, make_call
from grader.registries import SEED_TOOLS

VALID = make_call("get_weather", {"city": "Paris"})


@dataclass(frozen=True)
class VisibleCase:
    """A case whose input may be shown.

    Attributes:
        case_id: short id (str). title: one line for the table (str). rule: the rule it checks (str).
        raw: the model's first raw call (str).
        retry: the model's reply on a retry (str), or None for a model that repeats ``raw``.
        check: ``callable(transcript)`` raising ``expectations.CaseFailed``.
        hint: what to look at when it fails (str).
    """

    case_id: str
    title: str
    rule: str
    raw: str
    retry: str | None
    check: object
    hint: str

    def model(self):
        """A fresh scripted model for one run of this case."""
        return NeverCorrects(self.raw) if self.retry is None else Answers(self.retry)

    tools = SEED_TOOLS


def _valid(t):
    expect.expect_no_retry(t)
    expect.expect_dispatched(t, "get_weather", {"city": "Paris"})


def _rejected_once(t):
    expect.expect_rejected(t)
    expect.expect_one_retry(t)


def _missing_city(t):
    _rejected_once(t)
    expect.expect_mentions(t.observations[0], ["city"], "The observation", "name the missing argument 'city'.")


def _fixed_on_retry(t):
    expect.finished(t)
    expect.expect_one_retry(t)
    expect.expect_dispatched(t, "get_weather", {"city": "Paris"})


VISIBLE_CASES = [
    VisibleCase("valid", "A valid call is dispatched once, unchanged", "Only a call that passes every check is dispatched, exactly as sent.",
                VALID, None, _valid, "Parse, validate, then return dispatch(name, arguments) without asking the model."),
    VisibleCase("unknown-tool", "An unknown tool is rejected after one retry", "Tool names must be registered in TOOLS.",
                make_call("get_forecast", {"city": "Paris"}), None, _rejected_once,
                "Look the name up in TOOLS; on failure call ask_model(error_text) once, then return a rejection."),
    VisibleCase("missing-required", "A missing required argument is rejected", "Every required argument must be present.",
                make_call("get_weather", {}), None, _missing_city, "Check every field in the tool's 'required' schema and name the missing one."),
    VisibleCase("wrong-type", "A required argument of the wrong type is rejected", "Every argument must have its declared type.",
                make_call("get_weather", {"city": 75001}), None, _rejected_once, "isinstance is not enough for int/bool; compare the declared type."),
    VisibleCase("extra-field", "An undeclared argument is rejected", "No argument may be undeclared.",
                make_call("get_weather", {"city": "Paris", "country": "FR"}), None, _rejected_once,
                "Every key of arguments must be in 'required' or 'optional'."),
    VisibleCase("fixed-on-retry", "Invalid JSON, then a valid retry: the retry is dispatched", "One retry, and a fixed call is dispatched.",
                '{"name": "get_weather", "arguments": {"city": "Paris"', VALID, _fixed_on_retry,
                "Catch json.JSONDecodeError, ask the model once, and check the new call from the start."),
]

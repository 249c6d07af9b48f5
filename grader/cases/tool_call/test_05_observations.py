"""Error observations: what the model reads must let it fix the call in one retry."""

import pytest

from grader.expectations import (
    expect_dispatched, expect_mentions, expect_one_retry, expect_rejected, expect_rejected_after_one_retry, fail, finished,
)
from grader.models import Answers, FixesWhatIsNamed, make_call
from grader.registries import TYPED_TOOLS

GROUP = "Error observations"
ORDER = 5

# Refusing is only worth points when valid input is accepted (see grader/canaries.py).
pytestmark = pytest.mark.gate("accepts")

ALL_AT_ONCE_RULE = ("The observation names every violation of the call at once, so that the single retry can fix "
                    "them all (the seed's sample reported only the first).")
CONTENT_RULE = ("The observation names the offending tool or field, what was expected and what came; it lists the "
                "registered tools for an unknown name and the allowed fields for an extra one.")
REMOVE = FixesWhatIsNamed.REMOVE


def expect_fixed_in_one_retry(transcript, name, arguments):
    """The careful model's retry must be dispatched; if it was rejected, the first observation missed a violation."""
    finished(transcript)
    if not transcript.dispatches and isinstance(transcript.result, dict) and transcript.result.get("status") == "rejected":
        fail("The model fixed exactly what the observation named, and the retry still failed: the observation left out "
             "at least one violation. Collect every violation before building the observation, not just the first.",
             transcript)
    expect_dispatched(transcript, name, arguments)


@pytest.mark.points(2)
@pytest.mark.rule(ALL_AT_ONCE_RULE)
def test_two_violations_fixed_in_one_retry(harness):
    """A call with two problems is fixed by a model that fixes exactly what it is told.

    Why: the seed's sample returns after the first violation; a careful model fixes that one and
    the call fails again on the second, wasting the only retry.
    """
    model = FixesWhatIsNamed("get_weather", {"country": "FR"}, [("city", "city", "Lyon"), ("country", "country", REMOVE)])
    transcript = harness.run(make_call("get_weather", {"country": "FR"}), model=model)
    expect_one_retry(transcript)
    expect_fixed_in_one_retry(transcript, "get_weather", {"city": "Lyon"})


@pytest.mark.points(2)
@pytest.mark.rule(ALL_AT_ONCE_RULE)
def test_three_violations_fixed_in_one_retry(harness):
    """A call with a wrong type, an extra field and a missing field is fixed in one retry.

    Why: three kinds of violation found by three different checks; all of them must reach the
    observation, including the optional-field type error the seed's sample never checks.
    """
    broken = {"hour": True, "minute": 30, "snooze": 5, "label": 3}
    model = FixesWhatIsNamed("set_alarm", broken, [("hour", "hour", 7), ("snooze", "snooze", REMOVE), ("label", "label", "gym")])
    transcript = harness.run(make_call("set_alarm", broken), model=model, tools=TYPED_TOOLS)
    expect_one_retry(transcript)
    expect_fixed_in_one_retry(transcript, "set_alarm", {"hour": 7, "minute": 30, "label": "gym"})


@pytest.mark.points(1)
@pytest.mark.rule(CONTENT_RULE)
def test_unknown_tool_lists_registered_tools(harness):
    """The observation for an unknown tool lists every registered tool.

    Why: the model cannot guess the right name; listing what exists is what lets it recover.
    Uses the grader's registry, so the list must come from TOOLS at call time.
    """
    transcript = harness.run(make_call("get_forecast", {"city": "Paris"}), tools=TYPED_TOOLS)
    expect_rejected_after_one_retry(transcript)
    expect_mentions(transcript.observations[0], ["get_forecast", *TYPED_TOOLS], "The observation",
                    "name the unknown tool and list every registered tool from TOOLS.")


@pytest.mark.points(1)
@pytest.mark.rule(CONTENT_RULE)
def test_extra_field_lists_allowed_fields(harness):
    """The observation for an undeclared field names it and lists the allowed fields.

    Why: a model that sent "snooze" needs to learn which fields exist (hour, minute, label, repeat).
    """
    transcript = harness.run(make_call("set_alarm", {"hour": 7, "minute": 0, "snooze": 5}), tools=TYPED_TOOLS)
    expect_rejected_after_one_retry(transcript)
    expect_mentions(transcript.observations[0], ["snooze", "hour", "minute", "label", "repeat"], "The observation",
                    "name the undeclared field and list the fields the tool allows.")


@pytest.mark.points(1)
@pytest.mark.rule(CONTENT_RULE)
def test_wrong_type_names_field_and_types(harness):
    """The observation for a wrong type names the field, the expected type and what came.

    Why: "invalid arguments" gives the model nothing to act on; "units must be a string, got an
    integer" does.
    """
    transcript = harness.run(make_call("get_weather", {"city": "Paris", "units": 1}))
    expect_rejected_after_one_retry(transcript)
    expect_mentions(transcript.observations[0], ["units", ("str", "string"), ("int", "number", "1")], "The observation",
                    "name the field (units), the expected type (string) and what was received (an integer).")


@pytest.mark.points(1)
@pytest.mark.rule(CONTENT_RULE)
def test_missing_field_is_named(harness):
    """The observation for a missing required field names it.

    Why: the model must know which field to add.
    """
    transcript = harness.run(make_call("convert_currency", {"amount": 3, "source": "EUR"}), tools=TYPED_TOOLS)
    expect_rejected_after_one_retry(transcript)
    expect_mentions(transcript.observations[0], ["target"], "The observation", "name the missing required field.")


@pytest.mark.points(1)
@pytest.mark.rule(CONTENT_RULE)
def test_invalid_json_is_called_invalid_json(harness):
    """The observation for text that does not parse says it is not valid JSON.

    Why: the model must learn that the problem is the format, not the tool or its arguments.
    """
    transcript = harness.run('{"name": "get_weather", "arguments": {"city": Paris}}')
    expect_rejected_after_one_retry(transcript)
    expect_mentions(transcript.observations[0], ["json"], "The observation", "say that the call is not valid JSON.")


@pytest.mark.points(1)
@pytest.mark.rule(CONTENT_RULE)
def test_non_object_arguments_are_named(harness):
    """The observation for arguments sent as a string says that arguments must be an object.

    Why: models do send arguments as a string holding JSON (vllm-project/vllm #54964), the shape of
    OpenAI's own arguments field.
    """
    transcript = harness.run(make_call("get_weather", '{"city": "Paris"}'))
    expect_rejected_after_one_retry(transcript)
    expect_mentions(transcript.observations[0], ["arguments", ("object", "dict", "mapping")], "The observation",
                    "say that arguments must be a JSON object.")


@pytest.mark.points(1)
@pytest.mark.rule("When the retry also fails, the rejection's error describes the last attempt, not the first.")
def test_error_describes_the_last_attempt(harness):
    """After an unknown tool and then a missing field, the error is about the missing field.

    Why: the rejection goes back into the agent's context; describing the first attempt would
    tell the model to fix something it already fixed.
    """
    model = Answers(make_call("get_weather", {"units": "metric"}))
    transcript = harness.run(make_call("weather", {"units": "metric"}), model=model)
    expect_rejected(transcript)
    expect_one_retry(transcript)
    expect_mentions(transcript.result["error"], ["city"], "The rejection's error",
                    "describe the second (last) attempt, whose problem is the missing 'city'.")

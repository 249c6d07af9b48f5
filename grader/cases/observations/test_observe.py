"""Notebook 3: observe turns a raw call into the error text a model can act on, or None."""

import pytest

from grader.expectations import expect_no_observation, expect_observation, fail
from grader.models import make_call
from grader.registries import SEED_TOOLS, TYPED_TOOLS, encode_registry

GROUP = "observe"
ORDER = 1
CONTENT_RULE = ("The observation names the offending tool or field, what was expected and what came; it lists the "
                "registered tools for an unknown name and the allowed fields for an extra one.")
BOUND_RULE = "Observations are at most 2,000 characters and contain no traceback, even for a 1 MB call."


def observe(harness, raw, tools=TYPED_TOOLS, times=1):
    return harness.call(raw, encode_registry(tools), times=times)


@pytest.mark.points(1)
@pytest.mark.gate("rejects")
@pytest.mark.rule("A valid call needs no observation: observe returns None.")
@pytest.mark.parametrize("raw", [make_call("get_weather", {"city": "Paris"}), make_call("get_time", None)],
                         ids=["with-arguments", "null-arguments"])
def test_valid_call_gives_none(harness, raw):
    """A valid call gives None.

    Why: None is the signal to dispatch; returning "" or "OK" would make every call look rejected.
    """
    expect_no_observation(observe(harness, raw))


CONTENT = {
    "unknown-tool": (make_call("get_forecast", {}), ["get_forecast", *TYPED_TOOLS], "name the unknown tool and list every registered tool."),
    "extra-field": (make_call("set_alarm", {"hour": 7, "minute": 0, "snooze": 5}), ["snooze", "hour", "minute", "label", "repeat"],
                    "name the undeclared field and list the allowed ones."),
    "wrong-type": (make_call("get_weather", {"city": "Paris", "units": 1}), ["units", ("str", "string"), ("int", "number", "1")],
                   "name the field, the expected type and what came."),
    "missing-field": (make_call("convert_currency", {"amount": 3, "source": "EUR"}), ["target"], "name the missing field."),
    "invalid-json": ('{"name": "get_weather", "arguments": {"city": Paris}}', ["json"], "say that the text is not valid JSON."),
    "not-an-object": ("[1, 2]", [("object", "dict")], "say that a call must be a JSON object."),
    "string-arguments": (make_call("get_weather", '{"city": "Paris"}'), ["arguments", ("object", "dict")],
                         "say that arguments must be an object, not a string."),
    "three-problems": (make_call("set_alarm", {"hour": True, "snooze": 5, "label": 3}), ["hour", "minute", "snooze", "label"],
                       "name every violation at once."),
}


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(CONTENT_RULE)
@pytest.mark.parametrize("raw, mentions, fix", list(CONTENT.values()), ids=list(CONTENT))
def test_observation_says_what_to_fix(harness, raw, mentions, fix):
    """The observation tells the model what to fix.

    Why: "invalid call" gives a model nothing to act on; naming the field, the expected type and
    the allowed values is what lets the single retry succeed.
    """
    expect_observation(observe(harness, raw), mentions, fix)


BOUNDED = {
    "huge-name": make_call("x" * 1_000_000, {"city": "Paris"}),
    "huge-value": make_call("get_weather", {"city": ["Paris"] * 100_000}),
    "huge-field-name": make_call("get_weather", {"city": "Paris", "y" * 500_000: 1}),
    "many-extra-fields": make_call("get_weather", {"city": "Paris", **{f"f{i}": i for i in range(10_000)}}),
    "huge-invalid-json": "{" + "'city': 'Paris', " * 60_000,
    "deep-nesting": "[" * 100_000,
    "many-missing-fields": make_call("wide_form", {}),
    "many-wrong-types": make_call("wide_form", {f"field_{i:03}": i for i in range(300)}),
}
WIDE_TOOLS = {**SEED_TOOLS, "wide_form": {"required": {f"field_{i:03}": str for i in range(300)}, "optional": {}}}


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(BOUND_RULE)
@pytest.mark.parametrize("raw", list(BOUNDED.values()), ids=list(BOUNDED))
def test_observation_is_bounded(harness, raw):
    """A huge or deeply nested call, or one with hundreds of violations, gets a short observation.

    Why: the observation goes back into the model's context window; echoing a megabyte burns it,
    and so does one line per violation when there are hundreds (cap the list, then give a count).
    """
    expect_observation(observe(harness, raw, WIDE_TOOLS))


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule("The same call always gets the same observation (deterministic order and wording).")
def test_observation_is_deterministic(harness):
    """Observing the same call twice gives the same text.

    Why: iterating over a set, or quoting ids or timestamps, makes observations differ from run to
    run, which breaks caching and makes transcripts impossible to compare. The call is invalid, so
    both answers must be observations: an observe that always returns None is not deterministic, it
    is a stub.
    """
    transcript = observe(harness, make_call("set_alarm", {"b": 1, "a": 2, "hour": "x"}), times=2)
    expect_observation(transcript)  # the call is invalid: "the same None twice" is no observation (an adversarial test)
    texts = [value for kind, value in transcript.returns if kind == "returned"]
    if len(texts) != 2 or texts[0] != texts[1]:
        fail("observe gave two different texts for the same call; keep the order of problems fixed.")

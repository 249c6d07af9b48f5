"""Dispatching valid calls: once, unchanged, with dispatch's result returned as it is.

Each hidden call gets valid optional fields drawn into it (``vary="dispatch"``, ``grader.judging.draw.Draw.varied_call``),
expected in the dispatch with the case's own: the refused cases' calls are varied too, so neither a call's shape nor its
registry tells a case that expects a dispatch from one that expects a refusal.
"""

import pytest

from grader.judging.expectations import (
    expect_dispatched,
    expect_no_retry,
    fail,
    finished,
    strict_equal,
)
from grader.judging.registries import TYPED_TOOLS
from grader.judging.rule_ids import rule_id
from grader.judging.scripted_models import make_call
from grader.translations import N_, say

GROUP = N_("Dispatching valid calls")
ORDER = 4

# Accepting is only worth points when invalid input is refused (see grader/judging/canaries.py).
pytestmark = pytest.mark.gate("rejects")

DISPATCH_RULE = N_("A call that passes every check is dispatched once, exactly as sent, without asking the model; dispatch's result is returned unchanged.")

VALID_CALLS = {
    "required-only": ("get_weather", {"city": "Lyon"}),
    "with-optional": ("get_weather", {"city": "Lyon", "units": "metric"}),
    "int-where-float-declared": ("convert_currency", {"amount": 10, "source": "EUR", "target": "USD"}),
    "float": ("convert_currency", {"amount": 10.5, "source": "EUR", "target": "USD"}),
    "int-and-bool": ("set_alarm", {"hour": 7, "minute": 0, "label": "gym", "repeat": False}),
    "list-and-dict": ("send_email", {"to": ["a@example.com", "b@example.com"], "body": "hi", "headers": {"X-Priority": "1"}}),
    "non-ascii-values": ("get_weather", {"city": "Zürich 東京 🌦"}),
    "empty-string-value": ("get_weather", {"city": ""}),
    "no-arguments-needed": ("get_time", {}),
}


@pytest.mark.points(1)
@pytest.mark.rule(DISPATCH_RULE)
@rule_id("dispatch.unchanged", "schema.valid")
@pytest.mark.parametrize("name, arguments", list(VALID_CALLS.values()), ids=list(VALID_CALLS))
def test_valid_call(harness, name, arguments):
    """A valid call is dispatched once, unchanged.

    Why: rejecting valid calls is as wrong as accepting invalid ones. An int where float is
    declared stays an int (no conversion); "" is a valid string; a tool with no required fields
    accepts {}.
    """
    transcript = harness.run(make_call(name, arguments), tools=TYPED_TOOLS, vary="dispatch")
    expect_no_retry(transcript)
    expect_dispatched(transcript, name, arguments)


@pytest.mark.points(1)
@pytest.mark.rule(DISPATCH_RULE, N_("Missing or null arguments mean {}."))
@rule_id("dispatch.unchanged", "parse.arguments-default")
@pytest.mark.parametrize("arguments", [None, ...], ids=["null-arguments", "no-arguments-key"])
def test_missing_arguments_mean_empty_object(harness, arguments):
    """Missing or null arguments, for a tool with no required fields, are dispatched as {}.

    Why: pydantic/pydantic-ai #1654: models send "arguments": null for argument-less tools; the contract
    says that means {}, so dispatch must receive {} (not None, and no rejection).
    """
    transcript = harness.run(make_call("get_time", arguments), tools=TYPED_TOOLS, vary="dispatch")
    expect_no_retry(transcript)
    expect_dispatched(transcript, "get_time", {})


@pytest.mark.points(1)
@pytest.mark.rule(DISPATCH_RULE)
@rule_id("dispatch.unchanged", "parse.unchanged")
def test_whitespace_around_json(harness):
    """A valid call with whitespace and a newline around it is dispatched.

    Why: whitespace around a JSON value is valid JSON (RFC 8259) and models end with newlines;
    rejecting it wastes the retry.
    """
    transcript = harness.run("\n  " + make_call("get_weather", {"city": "Kyiv"}) + "\n", vary="dispatch")
    expect_no_retry(transcript)
    expect_dispatched(transcript, "get_weather", {"city": "Kyiv"})


@pytest.mark.points(1)
@pytest.mark.rule(DISPATCH_RULE)
@rule_id("dispatch.unchanged", "parse.unchanged")
def test_unicode_escapes_in_name(harness):
    """A name written with JSON unicode escapes is dispatched under its decoded name.

    Why: "get\\u005fweather" is the same JSON string as "get_weather"; a validator that pattern-matches
    the raw text instead of parsing it gets this wrong.
    """
    transcript = harness.run('{"name": "get\\u005fweather", "arguments": {"city": "Accra"}}', vary="dispatch")
    expect_no_retry(transcript)
    expect_dispatched(transcript, "get_weather", {"city": "Accra"})


@pytest.mark.points(1)
@pytest.mark.rule(N_("On success, the runtime returns exactly what dispatch returned, whatever its type."))
@rule_id("dispatch.result")
def test_dispatch_result_returned_unchanged(harness):
    """When dispatch returns a plain string, that string is the result.

    Why: tools return text, lists or numbers, not only dicts; wrapping the result in
    {"status": "ok", ...} changes what the agent loop sees.
    """
    reply = "22°C, light rain"
    transcript = harness.run(make_call("get_weather", {"city": "Nairobi"}), dispatch_reply=lambda name, args: reply,
                             vary="dispatch")
    finished(transcript)
    if not strict_equal(transcript.result, reply):
        fail(say("{function} did not return dispatch's result unchanged; return exactly what dispatch returns.", function=transcript.function), transcript)
    expect_dispatched(transcript, "get_weather", {"city": "Nairobi"})

"""Huge and deeply nested input: the runtime stays up and the observation stays short."""

import json

import pytest

from grader.judging.expectations import (
    expect_dispatched,
    expect_no_retry,
    expect_rejected,
    expect_rejected_after_one_retry,
    fail,
    finished,
)
from grader.judging.registries import TYPED_TOOLS
from grader.judging.rule_ids import rule_id
from grader.judging.scripted_models import make_call
from grader.translations import N_, say

GROUP = N_("Huge and deeply nested input")
ORDER = 7

# Refusing is only worth points when valid input is accepted (see grader/judging/canaries.py).
pytestmark = pytest.mark.gate("accepts")

NEVER_RAISE_RULE = N_("The runtime never raises, whatever the input: deep nesting and huge calls end in a rejection.")
BOUND_RULE = N_("Observations and errors are at most 2,000 characters, even for a 1 MB call: quote values briefly, never the whole call.")
MEGABYTE = 1024 * 1024


@pytest.mark.points(1)
@pytest.mark.rule(NEVER_RAISE_RULE)
@rule_id("parse.never-raise")
def test_deeply_nested_array(harness):
    """100,000 nested arrays are rejected, not crashed on.

    Why: json.loads raises RecursionError (not JSONDecodeError) on deep nesting; the seed's sample
    catches only JSONDecodeError.
    """
    expect_rejected_after_one_retry(harness.run("[" * 100_000 + "]" * 100_000))


@pytest.mark.points(1)
@pytest.mark.rule(NEVER_RAISE_RULE)
@rule_id("parse.never-raise")
def test_deeply_nested_argument(harness):
    """A valid-looking call whose argument is nested 100,000 levels deep is rejected.

    Why: the same RecursionError, this time after the name looked fine: a parser that checks the
    outer shape first still has to survive the inner value.
    """
    raw = '{"name": "get_weather", "arguments": {"city": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    expect_rejected_after_one_retry(harness.run(raw))


@pytest.mark.points(1)
@pytest.mark.rule(NEVER_RAISE_RULE)
@rule_id("schema.never-raise", "observe.bounded")
def test_moderately_nested_extra_argument(harness):
    """An undeclared argument nested 900 levels deep is rejected with a short observation.

    Why: json.loads can parse it, but a recursive validator raises RecursionError once about 100
    frames are already on the stack, and so does repr() of it on Python 3.11 and earlier.
    """
    raw = make_call("get_weather", {"city": "Paris"})[:-2] + ', "extra": ' + "[" * 900 + "]" * 900 + "}}"
    expect_rejected_after_one_retry(harness.run(raw, vary=True))  # drawn valid fields around it (Draw.varied_call)


@pytest.mark.points(1)
@pytest.mark.rule(NEVER_RAISE_RULE)
@rule_id("parse.never-raise")
def test_integer_with_too_many_digits(harness):
    """An integer with 5,000 digits ends in a rejection or an exact dispatch, never an exception.

    Why: since Python 3.11 (and 3.10.7, 3.9.14, 3.8.14, 3.7.14), json.loads raises ValueError (not
    JSONDecodeError) for integers over 4,300 digits (CVE-2020-10735); catching only JSONDecodeError
    crashes here.
    """
    transcript = harness.run('{"name": "set_alarm", "arguments": {"hour": ' + "7" * 5000 + ', "minute": 0}}', tools=TYPED_TOOLS,
                             vary=True)
    finished(transcript)
    if transcript.dispatches:
        fail(say("An integer too long for Python's json module cannot have been parsed exactly; reject the call."), transcript)
    expect_rejected(transcript)


@pytest.mark.points(1)
@pytest.mark.rule(BOUND_RULE)
@rule_id("observe.bounded")
def test_huge_unknown_tool_name(harness):
    """A 1 MB tool name gets a short observation.

    Why: echoing the name back ("unknown tool 'xxxx…'") puts a megabyte into the model's context.
    """
    expect_rejected_after_one_retry(harness.run(make_call("x" * MEGABYTE, {"city": "Paris"})))


@pytest.mark.points(1)
@pytest.mark.rule(BOUND_RULE)
@rule_id("observe.bounded")
def test_huge_wrong_value(harness):
    """A 1 MB value of the wrong type gets a short observation.

    Why: quoting the received value is useful, quoting all of it is not.
    """
    expect_rejected_after_one_retry(harness.run(make_call("get_weather", {"city": ["Paris"] * (MEGABYTE // 10)})))


@pytest.mark.points(1)
@pytest.mark.rule(BOUND_RULE)
@rule_id("observe.bounded", "schema.bounded")
def test_ten_thousand_extra_fields(harness):
    """A call with 10,000 undeclared fields gets a short observation.

    Why: one line per violation is right until there are thousands; the text must still be bounded.
    """
    arguments = {"city": "Paris", **{f"field_{i}": i for i in range(10_000)}}
    expect_rejected_after_one_retry(harness.run(make_call("get_weather", arguments)))


@pytest.mark.points(1)
@pytest.mark.rule(BOUND_RULE)
@rule_id("observe.bounded")
def test_hundreds_of_missing_fields(harness):
    """A call missing 300 required fields gets a short observation.

    Why: one line per violation is right until there are hundreds; list the first few and a count.
    """
    tools = {"wide_form": {"required": {f"field_{i:03}": str for i in range(300)}, "optional": {}}}
    expect_rejected_after_one_retry(harness.run(make_call("wide_form", {}), tools=tools, vary=True))


@pytest.mark.points(1)
@pytest.mark.rule(BOUND_RULE)
@rule_id("observe.bounded", "parse.bounded")
def test_huge_invalid_json(harness):
    """1 MB of text that is not JSON gets a short observation.

    Why: str(JSONDecodeError) is short, but echoing the document (exc.doc) is not.
    """
    expect_rejected_after_one_retry(harness.run("{" + "'city': 'Paris', " * (MEGABYTE // 17)))


@pytest.mark.points(1)
@pytest.mark.gate("rejects")
@pytest.mark.rule(N_("A large valid call is dispatched exactly as sent; size alone is not a violation."))
@rule_id("dispatch.unchanged", "parse.unchanged")
def test_huge_valid_call(harness):
    """A valid call carrying a 1 MB string is dispatched unchanged.

    Why: a runtime that truncates or rejects large values breaks real tools (file writes, long
    documents); only the observation is bounded, not the call.
    """
    arguments = {"city": "P" * MEGABYTE}
    transcript = harness.run(json.dumps({"name": "get_weather", "arguments": arguments}), vary="dispatch")
    expect_no_retry(transcript)
    expect_dispatched(transcript, "get_weather", arguments)


@pytest.mark.points(1)
@pytest.mark.gate("rejects")
@pytest.mark.rule(N_("A valid call is dispatched exactly as sent, whatever characters its strings hold."))
@rule_id("dispatch.unchanged", "parse.unchanged")
def test_unpaired_surrogate_value(harness):
    """A valid call whose string holds an unpaired surrogate (\\ud800) is dispatched unchanged.

    Why: it is valid JSON and a valid Python str, but print() or .encode() on it raises
    UnicodeEncodeError; logging the call must not crash the runtime.
    """
    transcript = harness.run('{"name": "get_weather", "arguments": {"city": "Paris \\ud800"}}', vary="dispatch")
    expect_no_retry(transcript)
    expect_dispatched(transcript, "get_weather", {"city": "Paris \ud800"})

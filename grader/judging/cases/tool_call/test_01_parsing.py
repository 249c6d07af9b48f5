"""Parsing: the raw text must be exactly one JSON object; nothing is repaired.

Every case here expects a refusal, so each asks for valid optional fields drawn into its call's arguments (``vary=True``,
``grader.judging.draw.Draw.varied_call``): what breaks the text (the cut, the fence, the prose, the quotes) stays as
written, and the call around it has a new shape on every grading.
"""

import json

import pytest

from grader.judging.expectations import expect_rejected_after_one_retry
from grader.judging.rule_ids import rule_id
from grader.judging.scripted_models import make_call
from grader.translations import N_

GROUP = N_("Parsing the raw call")
ORDER = 1

# Refusing is only worth points when valid input is accepted (see grader/judging/canaries.py).
pytestmark = pytest.mark.gate("accepts")

VALID = make_call("get_weather", {"city": "Paris"})
NOT_JSON_RULE = N_("The raw call must be exactly one JSON object; text that is not JSON is rejected with error text, never repaired.")


@pytest.mark.points(1)
@pytest.mark.rule(NOT_JSON_RULE)
@rule_id("parse.not-json")
def test_truncated_json(harness):
    """A call cut off in the middle is rejected.

    Why: models hit max_tokens mid-call; json.loads raises JSONDecodeError and the runtime must turn
    it into an observation, not a crash.
    """
    expect_rejected_after_one_retry(harness.run(VALID[:-7], vary=True))


@pytest.mark.points(1)
@pytest.mark.rule(NOT_JSON_RULE)
@rule_id("parse.no-repair")
def test_trailing_prose(harness):
    """A call followed by chatty prose is rejected.

    Why: models append prose after the JSON (ml-explore/mlx-lm #1448). JSONDecoder.raw_decode
    would silently accept the prefix; the contract says nothing is repaired, so this must be rejected.
    """
    expect_rejected_after_one_retry(harness.run(VALID + " Let me know if you need anything else!", vary=True))


@pytest.mark.points(1)
@pytest.mark.rule(NOT_JSON_RULE)
@rule_id("parse.no-repair")
def test_markdown_fence(harness):
    """A valid call wrapped in a markdown code fence is rejected.

    Why: models wrap JSON in ```json fences (microsoft/essex-toolkit #437) and calls in other fences
    (googleapis/js-genai #607: Python in ```tool_code). Stripping the fence is a repair; the kit's
    rule is that the model is told and re-sends, the runtime does not guess.
    """
    expect_rejected_after_one_retry(harness.run("```json\n" + VALID + "\n```", vary=True))


@pytest.mark.points(1)
@pytest.mark.rule(NOT_JSON_RULE)
@rule_id("parse.no-repair")
def test_single_quotes(harness):
    """A Python dict literal with single quotes is rejected.

    Why: models trained on Python emit repr() output (QwenLM/qwen-code #288). ast.literal_eval would
    accept it; that is a repair, and it also accepts non-JSON values such as tuples.
    """
    expect_rejected_after_one_retry(harness.run("{'name': 'get_weather', 'arguments': {'city': 'Paris'}}", vary=True))


@pytest.mark.points(1)
@pytest.mark.rule(NOT_JSON_RULE)
@rule_id("parse.not-json")
def test_empty_text(harness):
    """An empty reply is rejected.

    Why: a model that returns nothing (content filtered, stop sequence hit) must get an
    observation, and json.loads("") raises.
    """
    expect_rejected_after_one_retry(harness.run("", vary=True))


@pytest.mark.points(1)
@pytest.mark.rule(NOT_JSON_RULE)
@rule_id("parse.one-object")
def test_two_concatenated_calls(harness):
    """Two JSON objects back to back are rejected.

    Why: models attempting parallel calls emit {..}{..} (NousResearch/hermes-agent #25333,
    BerriAI/litellm #20742); taking the first silently drops the second call the model thinks it made.
    """
    expect_rejected_after_one_retry(harness.run(VALID + make_call("get_weather", {"city": "Rome"}), vary=True))


NON_OBJECTS = {
    "empty-array": "[]",
    "null": "null",
    "number": "42",
    "string": '"get_weather"',
    "boolean": "true",
    "call-encoded-as-string": json.dumps(VALID),
    "array-of-calls": json.dumps([json.loads(VALID)]),
}


@pytest.mark.points(1)
@pytest.mark.rule(N_("A call is a JSON object; valid JSON of another kind (array, null, number, string) is rejected, not crashed on."))
@rule_id("parse.object")
@pytest.mark.parametrize("raw", list(NON_OBJECTS.values()), ids=list(NON_OBJECTS))
def test_json_that_is_not_an_object(harness, raw):
    """JSON that is not an object is rejected.

    Why: the seed's sample solution calls call.get(...) on whatever json.loads returned and crashes
    with AttributeError on [], null or 42. An array of calls (crewAIInc/crewAI #1344) is also not one call.
    """
    expect_rejected_after_one_retry(harness.run(raw, vary=True))

"""Notebook 6b: adapters move a call from a provider's wire format into the kit's raw call, unchanged."""

import json

import pytest

from grader.judging.expectations import fail, returned, strict_equal
from grader.judging.rule_ids import rule_id
from grader.translations import N_, say

GROUP = N_("Wire-format adapters")
ORDER = 1

# A fixed input's expected output is a constant a stub can return: each case counts only if the adapters also
# convert calls they were not shown (grader/judging/canaries.py).
pytestmark = pytest.mark.gate("converts")
RULE = N_("An adapter changes the envelope, never the content: OpenAI's arguments string is decoded only when it is "
        "valid JSON, Anthropic's input is passed through, and nothing is repaired or dropped.")


def expect_raw_call(transcript, expected):
    value = returned(transcript)
    if not isinstance(value, str):
        fail(say("The adapter must return the kit's raw call as a JSON string (use json.dumps)."))
    try:
        decoded = json.loads(value)
    except ValueError:
        fail(say("The adapter returned text that is not JSON; build a dict and json.dumps it."))
    if not strict_equal(decoded, expected):
        fail(say("The raw call differs from what the provider sent: keep the name and the arguments exactly (decode "
                 "OpenAI's arguments only when they are valid JSON; never repair them)."))


def openai(name, arguments):
    return {"id": "call_abc", "type": "function", "function": {"name": name, "arguments": arguments}}


OPENAI = {
    "object": (openai("get_weather", '{"city": "Paris"}'), {"name": "get_weather", "arguments": {"city": "Paris"}}),
    "empty-object": (openai("get_time", "{}"), {"name": "get_time", "arguments": {}}),
    "numbers-keep-type": (openai("x", '{"a": 1, "b": 1.0}'), {"name": "x", "arguments": {"a": 1, "b": 1.0}}),
    "invalid-json-kept": (openai("get_weather", '{"city": "Paris"'), {"name": "get_weather", "arguments": '{"city": "Paris"'}),
    "python-literal-kept": (openai("get_weather", "{'city': 'Paris'}"), {"name": "get_weather", "arguments": "{'city': 'Paris'}"}),
    "json-array-decoded": (openai("get_weather", "[1]"), {"name": "get_weather", "arguments": [1]}),
    "empty-string-kept": (openai("get_time", ""), {"name": "get_time", "arguments": ""}),
    "unknown-name-kept": (openai("multi_tool_use.parallel", "{}"), {"name": "multi_tool_use.parallel", "arguments": {}}),
    # The Responses API's item carries name and arguments itself (issue 26, kind 9).
    "responses-item": ({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
                        "arguments": '{"city": "Lima"}', "status": "completed"},
                       {"name": "get_weather", "arguments": {"city": "Lima"}}),
}


@rule_id("adapter.openai")
@pytest.mark.points(1)
@pytest.mark.rule(RULE)
@pytest.mark.parametrize("tool_call, expected", list(OPENAI.values()), ids=list(OPENAI))
def test_from_openai(harness, tool_call, expected):
    """An OpenAI tool call becomes the same call in the kit's shape.

    Why: OpenAI sends arguments as a JSON string (chat completions docs). Decoding valid JSON is
    the wire format; "fixing" invalid JSON or dropping the name would hide the model's mistake.
    """
    expect_raw_call(harness.call(tool_call, function="raw_call_from_openai"), expected)


ANTHROPIC = {
    "object": ({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
               {"name": "get_weather", "arguments": {"city": "Paris"}}),
    "empty-input": ({"type": "tool_use", "id": "toolu_2", "name": "get_time", "input": {}}, {"name": "get_time", "arguments": {}}),
    "nested-input": ({"type": "tool_use", "id": "toolu_3", "name": "x", "input": {"a": {"b": [1, True, None]}}},
                     {"name": "x", "arguments": {"a": {"b": [1, True, None]}}}),
}


@rule_id("adapter.anthropic")
@pytest.mark.points(1)
@pytest.mark.rule(RULE)
@pytest.mark.parametrize("block, expected", list(ANTHROPIC.values()), ids=list(ANTHROPIC))
def test_from_anthropic(harness, block, expected):
    """An Anthropic tool_use block becomes the same call in the kit's shape.

    Why: Anthropic's input is already an object; json-encoding it twice (a string holding JSON)
    is the mirror image of the OpenAI mistake.
    """
    expect_raw_call(harness.call(block, function="raw_call_from_anthropic"), expected)


# -- issue 10: the reason survives the adapter; SDK objects are not a model's mistake -----------------------------------

KEEP_RULE = N_("OpenAI's arguments string is decoded only when it is exactly one JSON value under the kit's rules (no "
             "repeated key, every number finite); otherwise it is kept as the very string the model sent, so the "
             "validator can say what is wrong inside it.")
NOT_ONE_OBJECT = {
    "two-objects-back-to-back": openai("add", '{"x": 3, "y": 2}{"x": 3, "y": 2}'),
    "cut-off-object": openai("add", '{"x": 3, "y": '),
    "repeated-key": openai("add", '{"x": 3, "y": 2, "x": 4}'),
    "trailing-comma": openai("add", '{"x": 3, "y": 2,}'),
    "number-out-of-range": openai("set_budget", '{"amount": 1e400}'),
    "nested-number-out-of-range": openai("set_budget", '{"amount": 5, "caps": [1, -2E999]}'),
}


@rule_id("adapter.no-repair")
@pytest.mark.points(1)
@pytest.mark.rule(KEEP_RULE)
@pytest.mark.parametrize("tool_call", list(NOT_ONE_OBJECT.values()), ids=list(NOT_ONE_OBJECT))
def test_arguments_that_are_not_one_json_object_stay_the_models_text(harness, tool_call):
    """A repeated key, a number a double cannot hold, or extra text keeps the arguments string unchanged.

    Why: json.loads keeps the last of two equal keys and turns 1e400 into inf, which json.dumps writes as
    "Infinity", text the model never sent; the model is then told about the wrong thing, or nothing (issue 10,
    kinds 1 and 5). Kept as a string, the validator diagnoses it where it is.
    """
    function = tool_call["function"]
    expect_raw_call(harness.call(tool_call, function="raw_call_from_openai"),
                    {"name": function["name"], "arguments": function["arguments"]})


def sdk_object(**fields):
    """An SDK-style object (``types.SimpleNamespace`` in the submission's process) with these attributes."""
    return {"__kit__": "object", "value": fields}


SDK_RULE = N_("The OpenAI and Anthropic SDKs hand over objects with attributes, not dicts: an adapter reads them as it "
            "reads dicts; something that is no tool call at all raises TypeError telling the programmer what to pass. "
            "It never builds a call without a name, which would blame the model for the programmer's input.")
SDK_OBJECTS = {
    "openai-tool-call": ("raw_call_from_openai",
                         sdk_object(id="call_9", type="function",
                                    function=sdk_object(name="get_weather", arguments='{"city": "Quito"}')),
                         {"name": "get_weather", "arguments": {"city": "Quito"}}),
    "anthropic-tool-use": ("raw_call_from_anthropic",
                           sdk_object(type="tool_use", id="toolu_9", name="get_time", input={"timezone": "UTC"}),
                           {"name": "get_time", "arguments": {"timezone": "UTC"}}),
}


@rule_id("adapter.sdk-objects")
@pytest.mark.points(1)
@pytest.mark.rule(SDK_RULE)
@pytest.mark.parametrize("function, block, expected", list(SDK_OBJECTS.values()), ids=list(SDK_OBJECTS))
def test_sdk_object_is_read_not_blamed_on_the_model(harness, function, block, expected):
    """An SDK object gives the same call as the dict it stands for.

    Why: adapters that only read dicts built {"arguments": null} from an SDK object, and the model was told
    "name is missing" for a valid call (issue 10, kind 6); one that indexed it (obj["function"]) raised TypeError
    by accident, and when a TypeError was accepted here that passed for a deliberate one (issue 25). Both SDKs
    hand over objects, so an adapter that cannot read them cannot be used with either.
    """
    expect_raw_call(harness.call(block, function=function), expected)


NOT_A_TOOL_CALL = {
    "openai-none": ("raw_call_from_openai", None),
    "openai-text": ("raw_call_from_openai", '{"name": "get_weather", "arguments": "{}"}'),
    "anthropic-none": ("raw_call_from_anthropic", None),
    "anthropic-list": ("raw_call_from_anthropic", [{"type": "tool_use", "name": "get_time", "input": {}}]),
    # Pieces of a streamed call (issue 26, kind 9; vllm-project/vllm #46344): no name, so no call.
    "openai-stream-delta": ("raw_call_from_openai",
                            {"index": 0, "id": None, "type": None, "function": {"name": None, "arguments": ' {"'}}),
    "anthropic-no-name": ("raw_call_from_anthropic", {"type": "tool_use", "id": "toolu_4", "input": {"city": "Paris"}}),
    # The first delta carries the name but no arguments yet; a tool ran with {} that the model never sent (issue 26
    # trial). Likewise a Responses item announced while still in progress, and a tool_use block whose input is null.
    "openai-first-delta": ("raw_call_from_openai",
                           {"index": 0, "id": "call_7", "type": "function", "function": {"name": "get_time"}}),
    "responses-in-progress": ("raw_call_from_openai",
                              {"type": "function_call", "id": "fc_7", "call_id": "call_7", "name": "get_time",
                               "arguments": "", "status": "in_progress"}),
    "anthropic-input-null": ("raw_call_from_anthropic", {"type": "tool_use", "id": "toolu_7", "name": "get_time",
                                                         "input": None}),
}


@rule_id("adapter.type-error")
@pytest.mark.points(1)
@pytest.mark.rule(SDK_RULE)
@pytest.mark.parametrize("function, wrong", list(NOT_A_TOOL_CALL.values()), ids=list(NOT_A_TOOL_CALL))
def test_programmer_mistake_raises_type_error(harness, function, wrong):
    """Something that is not a whole tool call (None, text, a list, a streamed piece) raises TypeError instead of
    becoming a call.

    Why: a call without a name goes to the model, which is then told to fix what the programmer passed; a
    streamed delta handed on as a call was told "name is null" (issue 26, kind 9); a named first delta without
    arguments, an item in progress or a block whose input is null ran the tool with arguments nobody sent.
    """
    transcript = harness.call(wrong, function=function)
    raised = transcript.raised or ""
    if transcript.problem:
        fail(transcript.problem)
    if not raised.startswith("TypeError"):
        fail(say("{function} must raise TypeError for something that is not a whole tool call (None, a string, a "
                 "list, a streamed piece: no name, no arguments, in progress): it is the programmer's mistake, and a "
                 "call built from it would blame the model.", function=function))

"""Notebook 6b: adapters move a call from a provider's wire format into the kit's raw call, unchanged."""

import json

import pytest

from grader.expectations import fail, returned, strict_equal

GROUP = "Wire-format adapters"
ORDER = 1

# A fixed input's expected output is a constant a stub can return: each case counts only if the adapters also
# convert calls they were not shown (grader/canaries.py).
pytestmark = pytest.mark.gate("converts")
RULE = ("An adapter changes the envelope, never the content: OpenAI's arguments string is decoded only when it is "
        "valid JSON, Anthropic's input is passed through, and nothing is repaired or dropped.")


def expect_raw_call(transcript, expected):
    value = returned(transcript)
    if not isinstance(value, str):
        fail("The adapter must return the kit's raw call as a JSON string (use json.dumps).")
    try:
        decoded = json.loads(value)
    except ValueError:
        fail("The adapter returned text that is not JSON; build a dict and json.dumps it.")
    if not strict_equal(decoded, expected):
        fail("The raw call differs from what the provider sent: keep the name and the arguments exactly "
             "(decode OpenAI's arguments only when they are valid JSON; never repair them).")


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
}


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


@pytest.mark.points(1)
@pytest.mark.rule(RULE)
@pytest.mark.parametrize("block, expected", list(ANTHROPIC.values()), ids=list(ANTHROPIC))
def test_from_anthropic(harness, block, expected):
    """An Anthropic tool_use block becomes the same call in the kit's shape.

    Why: Anthropic's input is already an object; json-encoding it twice (a string holding JSON)
    is the mirror image of the OpenAI mistake.
    """
    expect_raw_call(harness.call(block, function="raw_call_from_anthropic"), expected)

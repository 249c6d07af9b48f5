"""The reference package, step by step: parse, validate, observe, retry."""

import json

import pytest

import solutions
from solutions import (
    TOOLS, Violation, build_observation, check, check_call, handle_tool_call, observe, parse_call, run_tool_call,
    validate_call,
)
from solutions.schema import matches_type
from solutions.violations import preview

TYPED = {
    "get_weather": {"required": {"city": str}, "optional": {"units": str}},
    "set_alarm": {"required": {"hour": int, "minute": int}, "optional": {"label": str, "repeat": bool}},
    "convert": {"required": {"amount": float}, "optional": {}},
}


def call(name, arguments):
    return json.dumps({"name": name, "arguments": arguments})


# -- parse_call ------------------------------------------------------------------------------------

def test_parse_valid_call_keeps_values_exactly():
    parsed, problems = parse_call('{"name": "get_weather", "arguments": {"city": "Paris", "n": 1, "f": 1.0}}')
    assert problems == []
    assert parsed == {"name": "get_weather", "arguments": {"city": "Paris", "n": 1, "f": 1.0}}
    assert type(parsed["arguments"]["n"]) is int and type(parsed["arguments"]["f"]) is float


@pytest.mark.parametrize("raw, expected", [
    ('{"name": "get_weather"}', {}),
    ('{"name": "get_weather", "arguments": null}', {}),
    ('{"name": "get_weather", "arguments": "{}"}', "{}"),
])
def test_parse_defaults_only_missing_or_null_arguments(raw, expected):
    parsed, problems = parse_call(raw)
    assert problems == [] and parsed["arguments"] == expected


@pytest.mark.parametrize("raw, fragment", [
    ('{"name": "get_weather", "arguments": {"city": "Par', "not valid JSON"),
    ('```json\n{"name": "x"}\n```', "markdown code fence"),
    ('<tool_call>{"name": "x"}</tool_call>', "tags such as <tool_call>"),
    ('{"name": "x"} thanks!', "nothing after it"),
    ("{'name': 'x'}", "double quotes"),
    ("[" * 50_000, "nested too deeply"),
    ('{"name": "x", "name": "y"}', "repeats the key 'name'"),
    ('{"name": "x", "arguments": {"n": NaN}}', "NaN"),
    ("", "is empty"),
    ("[]", "is an array of 0 items"),
    ("null", "is null"),
])
def test_parse_rejects_with_a_precise_message(raw, fragment):
    parsed, problems = parse_call(raw)
    assert parsed is None and len(problems) == 1
    assert fragment in str(problems[0])


def test_parse_never_raises_on_non_strings():
    for raw in (None, b'{"name": "x"}', 42, ["x"]):
        parsed, problems = parse_call(raw)
        assert parsed is None and "expected a string" in str(problems[0])


def test_parse_rejects_integers_python_cannot_convert():
    parsed, problems = parse_call('{"name": "x", "arguments": {"n": ' + "9" * 5000 + "}}")
    assert parsed is None and problems


# -- validate_call --------------------------------------------------------------------------------

@pytest.mark.parametrize("value, declared, ok", [
    (True, int, False), (1, int, True), (1.0, int, False), (1, float, True), (1.5, float, True),
    (True, float, False), (None, str, False), ("x", str, True), ([], list, True), ({}, dict, True),
    ({}, list, False), (0, bool, False), (False, bool, True),
])
def test_matches_type_follows_json_not_python(value, declared, ok):
    assert matches_type(value, declared) is ok


def test_validate_collects_every_violation_in_a_fixed_order():
    problems = validate_call({"name": "set_alarm", "arguments": {"hour": True, "label": 3, "snooze": 1, "x": 2}}, TYPED)
    assert [str(p) for p in problems] == [
        "argument 'minute' is missing: expected an integer (required)",
        "argument 'hour' is the boolean true: expected an integer (required)",
        "argument 'label' is the integer 3: expected a string (optional)",
        "arguments 'snooze', 'x' are not declared: allowed arguments: 'hour', 'minute', 'label', 'repeat'",
    ]


def test_validate_unknown_and_non_string_names():
    unknown = validate_call({"name": "nope", "arguments": {}}, TYPED)
    assert str(unknown[0]) == "tool 'nope' is not registered: registered tools: 'get_weather', 'set_alarm', 'convert'"
    for name in (["get_weather"], {"a": 1}, 7, None):
        problems = validate_call({"name": name, "arguments": {}}, TYPED)
        assert len(problems) == 1 and str(problems[0]).startswith("name is ")
    assert str(validate_call({"name": "", "arguments": {}}, TYPED)[0]).startswith("name is empty")
    assert str(validate_call({"arguments": {}}, TYPED)[0]).startswith("name is missing")


def test_validate_reports_bad_name_and_bad_arguments_together():
    problems = validate_call({"name": 5, "arguments": '{"city": "Paris"}'}, TYPED)
    assert len(problems) == 2
    assert "not encoded as a string" in str(problems[1])


def test_validate_null_optional_says_to_leave_it_out():
    problems = validate_call({"name": "get_weather", "arguments": {"city": "Paris", "units": None}}, TYPED)
    assert "leave it out instead of sending null" in str(problems[0])


def test_validate_unexpected_top_level_key():
    problems = validate_call({"name": "get_weather", "arguments": {"city": "P"}, "parameters": {}}, TYPED)
    assert [str(p) for p in problems] == ["the key 'parameters' is not part of a call: a call has only \"name\" and \"arguments\""]


# -- build_observation -----------------------------------------------------------------------------

def test_observation_lists_problems_and_the_schema():
    parsed, problems = check_call(call("get_weather", {"units": 1, "country": "FR"}), TOOLS)
    text = build_observation(problems, TOOLS, parsed)
    assert text.splitlines() == [
        "Tool call rejected (3 problems); nothing was executed. Fix all of them and send the whole call again:",
        "1. argument 'city' is missing: expected a string (required)",
        "2. argument 'units' is the integer 1: expected a string (optional)",
        "3. argument 'country' is not declared: allowed arguments: 'city', 'units'",
        "get_weather takes city (string, required), units (string, optional)",
    ]


def test_observation_is_bounded_for_huge_input():
    huge = call("x" * 1_000_000, {f"f{i}": i for i in range(10_000)})
    parsed, problems = check_call(huge, TOOLS)
    text = build_observation(problems, TOOLS, parsed)
    assert len(text) <= solutions.MAX_OBSERVATION_CHARS
    assert "(1,000,000 characters)" in text
    many = [Violation(f"argument 'f{i}'", "is wrong", "x" * 500) for i in range(50)]
    text = build_observation(many, TOOLS)
    # Whole problems while they fit, then a count of the rest (never a line cut in the middle).
    assert len(text) <= solutions.MAX_OBSERVATION_CHARS
    assert "3. argument 'f2' is wrong" in text and "4. argument" not in text
    assert text.endswith("… and 47 more problems not listed here; fix these first.")


def test_observe_takes_the_problems_as_data_and_writes_text_problems_too():
    """Issue 11: observe(call, problems, tools) stands alone; a learner's problems are sentences (str)."""
    assert observe({"name": "get_weather", "arguments": {"city": "Paris"}}, [], TOOLS) is None
    parsed = {"name": "get_weather", "arguments": {"city": 1}}
    text = observe(parsed, ["argument city must be a string, got 1"], TOOLS)
    assert text.splitlines() == [
        "Tool call rejected (1 problem); nothing was executed. Fix it and send the whole call again:",
        "1. argument city must be a string, got 1",
        "get_weather takes city (string, required), units (string, optional)",
    ]
    many = [f"argument f{i} must be a string: " + "x" * 300 for i in range(40)]
    text = observe(None, many, TOOLS)
    assert len(text) <= solutions.MAX_OBSERVATION_CHARS and "1. argument f0 must be a string" in text
    assert "more problems not listed here" in text
    assert "Traceback" not in observe(None, ['Traceback (most recent call last):\n  File "x.py", line 1'], TOOLS)


def test_check_is_the_first_three_steps_together():
    raw = call("get_weather", {"city": 1})
    parsed, problems = check_call(raw, TOOLS)
    assert check(raw, TOOLS) == (parsed, observe(parsed, problems, TOOLS))
    assert check(call("get_weather", {"city": "Paris"}), TOOLS) == ({"name": "get_weather", "arguments": {"city": "Paris"}}, None)


def test_preview_never_recurses():
    deep = []
    for _ in range(100_000):
        deep = [deep]
    assert preview(deep) == "an array of 1 items"
    assert preview("a" * 100).endswith("(100 characters)")


# -- handle_tool_call / run_tool_call ------------------------------------------------------------

class Recorder:
    def __init__(self, replies=()):
        self.replies = list(replies)
        self.asked = []
        self.dispatched = []

    def ask(self, observation):
        self.asked.append(observation)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply

    def dispatch(self, name, arguments):
        self.dispatched.append((name, arguments))
        return {"receipt": len(self.dispatched)}


def test_valid_call_is_dispatched_without_asking():
    r = Recorder()
    assert handle_tool_call(call("get_weather", {"city": "Paris"}), r.ask, dispatch=r.dispatch) == {"receipt": 1}
    assert r.asked == [] and r.dispatched == [("get_weather", {"city": "Paris"})]


def test_one_retry_then_rejection_describing_the_last_attempt():
    r = Recorder([call("get_weather", {})])
    result = handle_tool_call(call("nope", {}), r.ask, dispatch=r.dispatch)
    assert len(r.asked) == 1 and "'nope' is not registered" in r.asked[0]
    assert result["status"] == "rejected" and "argument 'city' is missing" in result["error"]
    assert "nope" not in result["error"] and r.dispatched == []


def test_fixed_retry_is_dispatched():
    r = Recorder([call("get_weather", {"city": "Rome"})])
    assert handle_tool_call("[]", r.ask, dispatch=r.dispatch) == {"receipt": 1}
    assert r.dispatched == [("get_weather", {"city": "Rome"})]


def test_failing_model_ends_in_a_rejection_that_says_so():
    r = Recorder([TimeoutError("model timed out")])
    result = handle_tool_call("{", r.ask, dispatch=r.dispatch)
    assert result["status"] == "rejected"
    assert "The retry failed: asking the model again raised TimeoutError: model timed out." in result["error"]
    assert len(result["error"]) <= solutions.MAX_OBSERVATION_CHARS


def test_retry_budget_is_configurable_and_zero_means_no_retry():
    r = Recorder([call("nope", {})] * 3)
    run_tool_call("{", r.ask, TOOLS, r.dispatch, check, retry_budget=3)
    assert len(r.asked) == 3
    r = Recorder()
    assert run_tool_call("{", r.ask, TOOLS, r.dispatch, check, retry_budget=0)["status"] == "rejected" and r.asked == []


def test_default_registry_is_read_at_call_time(monkeypatch):
    monkeypatch.setattr(solutions.registry, "TOOLS", {"ping": {"required": {}, "optional": {}}})
    r = Recorder()
    assert handle_tool_call('{"name": "ping"}', r.ask, dispatch=r.dispatch) == {"receipt": 1}

"""The reference on the nine kinds of issue 10 (shared/cases/public_reports.md): each literal input, and
at least two new inputs per kind written for this test, since other inputs of each kind are tried later."""

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from solutions import (
    build_observation, check, check_call, parse_call, raw_call_from_anthropic, raw_call_from_openai, run_tool_call,
    validate_arguments, validate_call,
)
from solutions.violations import looks_like_traceback
from grader.paths import KIT_ROOT

ROOT = KIT_ROOT  # the repository (grader.paths knows where it is)


def observe(raw, tools):
    """The observation the reference's steps 1 to 3 give for a raw call (since issue 11 the observe step itself
    receives the problems: ``solutions.check`` is the three together)."""
    return check(raw, tools)[1]


def texts(violations):
    return [str(v) for v in violations]


def dispatched(name, arguments):
    return {"status": "dispatched", "name": name, "arguments": arguments}


def never_asked(observation):
    raise AssertionError("ask_model must not be called for a valid call")


# -- kind 1: numbers JSON can write but a double cannot hold -------------------------------------------------

BUDGET = {"set_budget": {"required": {"amount": float}, "optional": {"limits": list, "meta": dict}}}


@pytest.mark.parametrize("arguments_text, path", [
    ('{"amount": 1e400}', "arguments.amount"),                                   # the report's literal
    ('{"amount": -2.5E+999}', "arguments.amount"),                               # negative, upper-case exponent
    ('{"amount": 3, "limits": [1, 2, 9e9999]}', "arguments.limits[2]"),          # inside a list
    ('{"amount": 3, "meta": {"cap": {"max": 1e309}}}', "arguments.meta.cap.max"),  # nested objects
    ('{"amount": NaN}', "arguments.amount"),                                     # not JSON at all, same verdict
])
def test_non_finite_number_gets_one_verdict_by_every_path(arguments_text, path):
    raw = '{"name": "set_budget", "arguments": ' + arguments_text + "}"
    by_raw = observe(raw, BUDGET)
    openai = raw_call_from_openai({"id": "c", "type": "function",
                                   "function": {"name": "set_budget", "arguments": arguments_text}})
    by_openai = observe(openai, BUDGET)
    # The Anthropic SDK hands over input already decoded: 1e400 is inf by then.
    decoded = json.loads(arguments_text)
    by_anthropic = observe(raw_call_from_anthropic({"type": "tool_use", "id": "t", "name": "set_budget", "input": decoded}), BUDGET)
    for text in (by_raw, by_openai, by_anthropic):
        assert text is not None and f"{path} is not a finite number" in text
        assert "Infinity" not in text.split(":", 1)[0]
    # The OpenAI adapter keeps the model's own text; it never writes "Infinity" for 1e400.
    assert json.loads(openai)["arguments"] == arguments_text


def test_finite_extremes_are_dispatched_exactly():
    raw = '{"name": "set_budget", "arguments": {"amount": 1.7976931348623157e308, "limits": [1e-400]}}'
    result = run_tool_call(raw, never_asked, BUDGET, dispatched, check)
    assert result["arguments"] == {"amount": 1.7976931348623157e308, "limits": [0.0]}


# -- kind 2: text from outside carries no traceback -------------------------------------------------------------

GATEWAY = ("gateway error: 'name'\nTraceback (most recent call last):\n  File \"/srv/lib/gateway/main.py\", line 2836, "
           "in completion\nKeyError: 'name'")


@pytest.mark.parametrize("error, first_line", [
    (RuntimeError(GATEWAY), "RuntimeError: gateway error: 'name'"),               # the report's literal
    (ConnectionError("Traceback (most recent call last):\n  File \"x.py\", line 1"), "ConnectionError."),
    (TimeoutError('upstream timed out after File "/a.py", line 9'), "TimeoutError."),
    (ValueError("\n\n  bad reply  \nTraceback (most recent call last):"), "ValueError: bad reply"),
])
def test_model_client_error_is_reduced_to_its_first_line(error, first_line):
    def ask_model(observation):
        raise error
    result = run_tool_call('{"name": "get_weather", "arguments": {}}', ask_model,
                           {"get_weather": {"required": {"city": str}}}, dispatched, check)
    assert result["status"] == "rejected"
    assert not looks_like_traceback(result["error"])
    assert f"asking the model again raised {first_line}" in result["error"]


@pytest.mark.parametrize("raw", [
    json.dumps({"name": "Traceback (most recent call last):\n  File \"agent.py\", line 3", "arguments": {}}),
    json.dumps({"name": "get_weather", "arguments": {"city": "Paris", "days": 'File "/etc/x.py", line 12, in <module>'}}),
    json.dumps({"name": "get_weather", "arguments": {"city": "Paris", 'File "a.py", line 1': 1}}),
])
def test_model_text_quoted_in_an_observation_is_never_a_traceback(raw):
    text = observe(raw, {"get_weather": {"required": {"city": str}, "optional": {"days": int}}})
    assert text and not looks_like_traceback(text)


# -- kind 3: listings cut by the budget, not by a fixed count ------------------------------------------------------

def test_all_25_tools_are_listed_when_they_fit():
    tools = {f"tool_{i:02}": {} for i in range(20)}
    tools.update({name: {} for name in ["list_sensors", "list_sites", "ping", "reboot", "rename"]})
    text = observe('{"name": "lookup_sensor", "arguments": {}}', tools)
    assert all(f"'{name}'" in text for name in tools) and "more" not in text


def test_forty_long_tool_names_are_all_listed():
    tools = {f"warehouse_inventory_report_{i:02}": {} for i in range(40)}
    text = observe('{"name": "inventory", "arguments": {}}', tools)
    assert len(text) <= 2000 and all(name in text for name in tools)


def test_when_names_cannot_fit_the_closest_come_first():
    tools = {f"tool_{i:04}": {} for i in range(3000)}
    tools["lookup_sensor"] = {}
    text = observe('{"name": "lookup_sensr", "arguments": {}}', tools)
    assert len(text) <= 2000
    assert text.index("'lookup_sensor'") < text.index("'tool_0000'")
    assert "more" in text  # says how many were left out


@pytest.mark.parametrize("fields, declared, sent", [
    (12, int, "800"),       # the report's literal: 12 ints sent as strings
    (15, bool, "yes"),      # 15 booleans sent as words
    (11, str, 7),           # 11 strings sent as numbers
])
def test_every_wrong_field_is_named_and_a_literal_fix_is_dispatched(fields, declared, sent):
    tools = {"render_chart": {"required": {f"p{i}": declared for i in range(fields)}}}
    good = {int: 800, bool: True, str: "7"}[declared]
    text = observe(json.dumps({"name": "render_chart", "arguments": {f"p{i}": sent for i in range(fields)}}), tools)
    named = [i for i in range(fields) if f"argument 'p{i}'" in text]
    assert named == list(range(fields)) and len(text) <= 2000
    fixed = json.dumps({"name": "render_chart", "arguments": {f"p{i}": good for i in named}})
    assert observe(fixed, tools) is None


# -- kind 4: hints from the input, not from CPython's wording --------------------------------------------------------

HINT_CASES = [
    ('{"name": "set_timer", "arguments": {"seconds": 300},}', "comma", "line 1, column 52"),   # the report's literal
    ('{"name": "tag", "arguments": {"labels": ["a", "b",]}}', "comma", "line 1, column 50"),
    ('{"name": "x",\n "arguments": {\n  "a": 1,\n }\n}', "comma", "line 3, column 9"),
    ("{'name': 'x', 'arguments': {}}", "single quotes", "line 1, column 2"),
    ('{"name": "x", "arguments": {"on": True}}', "lowercase", "line 1, column 35"),
    ('{"name": "x", "arguments": {}} {"name": "y"}', "nothing after it", "line 1, column 32"),
    ('{"name": "x", "arguments": {"a": 1 "b": 2}}', "comma (between items)", "line 1, column 36"),
    ('{"name": "x", "arguments": {"city": "Par', "ends inside a string", "line 1, column 37"),
    ('{"name": "set_timer", "arguments": {"seconds": 60*60*12}}', "not arithmetic", "line 1, column 50"),
]


@pytest.mark.parametrize("raw, hint, where", HINT_CASES)
def test_json_hint_comes_from_the_input(raw, hint, where):
    _, problems = parse_call(raw)
    text = " ".join(texts(problems))
    assert hint in text and where in text
    if hint == "comma":
        assert "quote" not in text


PYTHONS = {version: f"/root/.pyenv/versions/{version}/bin/python" for version in ("3.10.13", "3.11.7", "3.12.1", "3.13.0")}


@pytest.mark.parametrize("version", sorted(PYTHONS))
def test_json_hints_are_the_same_on_every_supported_python(version):
    """The parse step, run under each CPython 3.10-3.13 found here, gives the same text for every hint case."""
    python = PYTHONS[version]
    if not os.path.exists(python):
        pytest.skip(f"Python {version} is not installed at {python} on this machine")
    script = ("import json, sys; sys.path.insert(0, sys.argv[1]); from solutions.parse import parse_call; "
              "print(json.dumps([[str(v) for v in parse_call(raw)[1]] for raw in json.loads(sys.stdin.read())]))")
    raws = [raw for raw, _, _ in HINT_CASES]
    process = subprocess.run([python, "-I", "-c", script, ROOT], input=json.dumps(raws), capture_output=True,
                             text=True, timeout=60)
    assert process.returncode == 0, process.stderr
    assert json.loads(process.stdout) == [texts(parse_call(raw)[1]) for raw in raws]


# -- kind 5: the OpenAI adapter keeps the reason ----------------------------------------------------------------------

ADD = {"add": {"required": {"x": int, "y": int}}}


@pytest.mark.parametrize("arguments, says", [
    ('{"x": 3, "y": 2}{"x": 3, "y": 2}', "nothing after it"),       # the report's literal: two objects back to back
    ('{"x": 3, "y": 2', "ends before the JSON is complete"),         # cut off at max tokens
    ('{"x": 3, "x": 4, "y": 2}', "repeats the key 'x'"),             # repeated key
    ('{"x": 3, "y": 2,}', "remove the comma"),                       # trailing comma
    ("", "empty string"),                                            # the "" question (docs/contract.md)
])
def test_openai_arguments_text_is_diagnosed_in_place(arguments, says):
    raw = raw_call_from_openai({"id": "call_1", "type": "function", "function": {"name": "add", "arguments": arguments}})
    text = observe(raw, ADD)
    assert says in text and "arguments" in text
    assert "not a string that holds JSON" not in text and "not encoded as a string" not in text


# -- kind 6: SDK objects instead of dicts -----------------------------------------------------------------------------

def test_sdk_objects_are_read_like_dicts():
    openai = SimpleNamespace(id="c1", type="function", function=SimpleNamespace(name="get_weather", arguments='{"city": "Paris"}'))
    anthropic = SimpleNamespace(type="tool_use", id="t1", name="get_weather", input={"city": "Paris"})

    class Pydanticish:  # attributes as properties, like the SDKs' pydantic models
        type = "tool_use"
        id = "t2"
        name = property(lambda self: "get_weather")
        input = property(lambda self: {"city": "Oslo"})

    expected = {"name": "get_weather", "arguments": {"city": "Paris"}}
    assert json.loads(raw_call_from_openai(openai)) == expected
    assert json.loads(raw_call_from_anthropic(anthropic)) == expected
    assert json.loads(raw_call_from_anthropic(Pydanticish())) == {"name": "get_weather", "arguments": {"city": "Oslo"}}


@pytest.mark.parametrize("adapter, wrong", [
    (raw_call_from_openai, None),
    (raw_call_from_openai, '{"name": "get_weather"}'),
    (raw_call_from_openai, {"role": "assistant", "tool_calls": []}),                  # the message, not the entry
    (raw_call_from_openai, {"type": "custom", "custom": {"name": "x", "input": ""}}),  # not a function tool call
    (raw_call_from_anthropic, None),
    (raw_call_from_anthropic, [{"type": "tool_use"}]),
    (raw_call_from_anthropic, SimpleNamespace(type="text", text="hello")),
])
def test_programmer_mistakes_raise_type_error_not_a_nameless_call(adapter, wrong):
    with pytest.raises(TypeError, match="expects"):
        adapter(wrong)


# -- kind 7: a malformed schema is a reported problem --------------------------------------------------------------------

@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"filter": {"type": "object", "required": True,       # the report's literal
                                                 "properties": {"label": {"type": "string"}}}}},
    {"type": "object", "properties": [{"name": "city", "type": "string"}]},
    {"type": "object", "properties": {"city": {"type": {"name": "string"}}}},
    {"type": "object", "properties": {"units": {"enum": 5}}},
    {"type": "object", "required": "city"},
    {"type": "object", "properties": {"tags": {"type": "array", "items": "string"}}},
    {"type": "object", "properties": {"n": {"type": "integer", "minimum": "1"}}},
    {"type": "object", "properties": {"code": {"type": "string", "pattern": "("}}},
    {"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}},
    {"type": "object", "properties": {"a": {"type": "strin"}}},
    "not a schema",
])
def test_malformed_schema_is_reported_never_raised_never_passed(schema):
    for value in ({"filter": {"label": "inbox"}}, {}, {"city": "Paris", "a": 1}):
        problems = validate_arguments(value, schema)
        assert problems and all("schema" in str(p) for p in problems)


# -- kind 8: enum and const compare JSON values ----------------------------------------------------------------------------

@pytest.mark.parametrize("value, schema, valid", [
    ({"scale": 1}, {"type": "object", "properties": {"scale": {"type": "number", "enum": [0.5, 1.0, 2.0]}}}, True),  # literal 8a
    ({"flags": [True, False]}, {"type": "object", "properties": {"flags": {"enum": [[1, 0]]}}}, False),              # literal 8b
    ({"p": {"x": 2}}, {"properties": {"p": {"enum": [{"x": 2.0}]}}}, True),
    ({"p": [1.0, "a"]}, {"properties": {"p": {"const": [1, "a"]}}}, True),
    ({"p": 0}, {"properties": {"p": {"enum": [False, None]}}}, False),
    ({"p": {"on": 1}}, {"properties": {"p": {"const": {"on": True}}}}, False),
    ({"p": [1, 1.0]}, {"properties": {"p": {"uniqueItems": True}}}, False),
    ({"p": [1, True]}, {"properties": {"p": {"uniqueItems": True}}}, True),
])
def test_enum_and_const_compare_as_json(value, schema, valid):
    assert (validate_arguments(value, schema) == []) is valid


# -- kind 9: real tool schemas (pydantic v2 model_json_schema(), MCP servers) --------------------------------------------

# What pydantic 2.14 emits for a model with Optional, a nested model, Literal and constrained fields
# (generated once with pydantic outside the kit, which stays standard-library only).
PYDANTIC_SCHEMA = {
    "$defs": {"Address": {"properties": {"street": {"title": "Street", "type": "string"},
                                         "zip": {"pattern": "^\\d{5}$", "title": "Zip", "type": "string"}},
                          "required": ["street", "zip"], "title": "Address", "type": "object"},
              "Unit": {"enum": ["celsius", "fahrenheit"], "title": "Unit", "type": "string"}},
    "description": "Read a file.",
    "properties": {
        "path": {"description": "file path", "maxLength": 200, "minLength": 1, "title": "Path", "type": "string"},
        "line_offset": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None, "title": "Line Offset"},
        "mode": {"default": "r", "enum": ["r", "rb"], "title": "Mode", "type": "string"},
        "kind": {"const": "text", "title": "Kind", "type": "string"},
        "count": {"default": 1, "maximum": 10, "minimum": 1, "title": "Count", "type": "integer"},
        "ratio": {"default": 0.5, "exclusiveMaximum": 1, "exclusiveMinimum": 0, "multipleOf": 0.5, "title": "Ratio",
                  "type": "number"},
        "tags": {"default": ["a"], "items": {"type": "string"}, "maxItems": 3, "minItems": 1, "title": "Tags",
                 "type": "array"},
        "address": {"$ref": "#/$defs/Address"},
        "maybe_address": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}], "default": None},
        "unit": {"$ref": "#/$defs/Unit", "default": "celsius"},
        "when": {"format": "date", "title": "When", "type": "string"},
        "pair": {"maxItems": 2, "minItems": 2, "prefixItems": [{"type": "integer"}, {"type": "string"}], "type": "array"},
    },
    "required": ["path", "kind", "address", "when"],
    "title": "Tool",
    "type": "object",
}
GOOD = {"path": "main.go", "line_offset": 3, "kind": "text", "count": 10, "ratio": 0.5, "tags": ["x"],
        "address": {"street": "Main", "zip": "75001"}, "maybe_address": None, "unit": "fahrenheit", "when": "2024-13-99",
        "pair": [1, "a"]}


def test_literal_optional_int_schema():
    schema = {"type": "object", "properties": {"path": {"type": "string"},
                                               "line_offset": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}},
              "required": ["path"]}
    assert validate_arguments({"path": "main.go", "line_offset": 3}, schema) == []
    assert validate_arguments({"path": "main.go", "line_offset": None}, schema) == []
    problems = texts(validate_arguments({"path": "main.go", "line_offset": "3"}, schema))
    assert problems and "line_offset" in problems[0]


def test_pydantic_schema_accepts_a_valid_call():
    # "format" is an annotation: an impossible date is not this validator's to refuse (JSON Schema 2020-12).
    assert validate_arguments(GOOD, PYDANTIC_SCHEMA) == []


@pytest.mark.parametrize("change, field", [
    ({"line_offset": "3"}, "line_offset"),
    ({"kind": "binary"}, "kind"),
    ({"count": 11}, "count"),
    ({"ratio": 1}, "ratio"),
    ({"ratio": 0.25}, "ratio"),
    ({"path": ""}, "path"),
    ({"tags": []}, "tags"),
    ({"address": {"street": "Main", "zip": "7500"}}, "zip"),
    ({"maybe_address": {"street": "Main"}}, "maybe_address"),
    ({"unit": "kelvin"}, "unit"),
    ({"pair": ["a", 1]}, "pair"),
])
def test_pydantic_schema_refuses_each_broken_field(change, field):
    problems = texts(validate_arguments({**GOOD, **change}, PYDANTIC_SCHEMA))
    assert problems and all(field in p for p in problems)


def test_recursive_model_and_unsupported_keywords():
    tree = {"$defs": {"Node": {"type": "object", "properties": {"name": {"type": "string"},
                                                              "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                               "required": ["name"], "additionalProperties": False}},
            "$ref": "#/$defs/Node"}
    assert validate_arguments({"name": "a", "children": [{"name": "b", "children": []}]}, tree) == []
    assert "children[0].name" in str(validate_arguments({"name": "a", "children": [{"children": []}]}, tree)[0])
    # Issue 26 made oneOf, not and patternProperties checked keywords; these still constrain and are not checked.
    for schema in ({"if": {"type": "string"}, "then": {"minLength": 2}}, {"dependentRequired": {"a": ["b"]}},
                   {"unevaluatedProperties": False}, {"properties": {"a": {"dependentSchemas": {}}}}):
        assert "does not support" in str(validate_arguments("x", schema)[0])

"""The reference on the nine kinds of issue 26 (shared/cases/public_reports_3.md): each literal input, and new
inputs of each kind written for this test, since other inputs of every kind are tried later. The inputs that the
reference already handled right in that file are kept right at the end."""

import json
from types import SimpleNamespace

import pytest

from solutions import (
    build_observation, check, handle_tool_call, parse_call, raw_call_from_anthropic, raw_call_from_openai,
    validate_arguments,
)
from solutions.json_schema import MAX_VALUE_DEPTH


def texts(violations):
    return [str(v) for v in violations]


def observation(value, schema):
    """As the cases file says: ``build_observation(problems, {}, None)`` for the problems of one value."""
    return build_observation(validate_arguments(value, schema), {}, None)


def obj(properties, required=(), **more):
    return {"type": "object", "properties": properties, "required": list(required), **more}


# -- kind 1: pattern means what ECMA-262 means -----------------------------------------------------------------------

USER = obj({"name": {"type": "string"}, "username": {"type": "string", "pattern": "^@[a-zA-Z0-9_]+$"},
            "email": {"type": "string", "format": "email"}}, ["name", "username", "email"], additionalProperties=False)


@pytest.mark.parametrize("pattern, text, valid", [
    ("^@[a-zA-Z0-9_]+$", "@bob\n", False),           # the report's literal (OpenAI's username pattern)
    ("^@[a-zA-Z0-9_]+$", "@bob", True),
    ("^[A-Z]{3}-\\d{4}$", "ABC-1234\n", False),        # the issue's ticket id
    ("^\\d{5}$", "\u0661\u0662\u0663\u0664\u0665", False),  # Arabic-Indic digits: \d is ASCII in ECMA-262
    ("^\\w+$", "caf\u00e9", False),                   # \w is [A-Za-z0-9_] in ECMA-262
    ("^a.b$", "a\rb", False),                         # "." matches no line terminator
    ("^a\\sb$", "a\u00a0b", True),                    # ECMA's \s includes the no-break space
    ("^[$]\\d+$", "$5", True),                        # "$" inside a class is a dollar sign
    ("^\\$\\d+$", "$5", True),                        # and so is an escaped one
    ("end$", "the end\n\n", False),
])
def test_pattern_is_matched_as_ecma_262(pattern, text, valid):
    schema = obj({"v": {"type": "string", "pattern": pattern}}, ["v"])
    problems = texts(validate_arguments({"v": text}, schema))
    assert (problems == []) is valid, problems
    if not valid:
        assert problems[0].startswith("arguments.v ")


def test_the_literal_names_username():
    assert texts(validate_arguments({"name": "Bob", "username": "@bob\n", "email": "b@x.io"}, USER))[0].startswith(
        "arguments.username is the string \"@bob\\n\"")


# -- kind 2: multipleOf in decimal -----------------------------------------------------------------------------------

@pytest.mark.parametrize("step, value, valid", [
    (0.1, 0.3, True), (0.1, 0.7, True), (0.1, 2.3, True), (0.1, 14.7, True),   # the report's and the issue's
    (0.01, 19.99, True), (0.05, 1.15, True), (0.25, 0.75, True), (1e-7, 0.0000003, True),
    (0.1, 0.35, False), (0.01, 19.995, False), (5, 10.0, True), (2, 7, False), (0.5, 3, True),
])
def test_multiple_of_is_judged_in_decimal(step, value, valid):
    schema = obj({"value": {"type": "number", "multipleOf": step}}, ["value"])
    problems = texts(validate_arguments({"value": value}, schema))
    assert (problems == []) is valid, problems
    if not valid:
        assert problems == [f"arguments.value is the number {value!r}: expected a multiple of {step!r}"] or \
            problems == [f"arguments.value is the integer {value!r}: expected a multiple of {step!r}"]


# -- kind 3: nesting is reported as depth, and never below the documented limit -----------------------------------

LINKED = {"type": "object", "properties": {"linked_list": {"$ref": "#/$defs/linked_list_node"}},
          "$defs": {"linked_list_node": {"type": "object", "properties": {
              "value": {"type": "number"},
              "next": {"anyOf": [{"$ref": "#/$defs/linked_list_node"}, {"type": "null"}]}},
              "additionalProperties": False, "required": ["next", "value"]}},
          "additionalProperties": False, "required": ["linked_list"]}


def linked_list(nodes):
    node = None
    for index in range(nodes):
        node = {"value": index, "next": node}
    return {"linked_list": node}


@pytest.mark.parametrize("nodes", [101, 250, MAX_VALUE_DEPTH - 1])
def test_deep_recursive_values_are_checked(nodes):
    assert validate_arguments(linked_list(nodes), LINKED) == []
    broken = linked_list(nodes)
    tail = broken["linked_list"]
    while tail["next"] is not None:
        tail = tail["next"]
    tail["value"] = "deep"
    problems = texts(validate_arguments(broken, LINKED))
    assert len(problems) == 1 and problems[0].endswith('.value is the string "deep": expected number'), problems
    assert len(problems[0]) < 300  # a 500-level path is shown by its two ends


@pytest.mark.parametrize("value, schema", [
    (linked_list(MAX_VALUE_DEPTH + 100), LINKED),                                   # inside anyOf, as reported
    ({"tree": json.loads("[" * 700 + "]" * 700)}, obj({"tree": {"type": "array"}})),  # arrays, no anyOf
    ({"tree": json.loads("[" * 700 + "]" * 700)}, obj({"tree": {"anyOf": [{"type": "array", "items": {"$ref": "#/properties/tree"}}, {"type": "null"}]}})),
])
def test_deeper_than_the_limit_is_reported_as_depth_not_as_a_type(value, schema):
    problems = texts(validate_arguments(value, schema))
    assert len(problems) == 1 and "levels deep" in problems[0] and f"at most {MAX_VALUE_DEPTH:,} levels" in problems[0]
    assert "or null" not in problems[0] and "expected array" not in problems[0]


def test_the_limit_is_in_the_contract():
    from grader.paths import KIT_ROOT
    with open(f"{KIT_ROOT}/docs/contract.md", encoding="utf-8") as handle:
        assert f"{MAX_VALUE_DEPTH:,} levels" in handle.read()


# -- kind 4: inside anyOf, the failing keyword of the matching option ------------------------------------------------

ADDRESS = {"type": "object", "properties": {"street": {"type": "string"}, "zip": {"type": "string", "pattern": "^\\d{5}$"}},
           "required": ["street", "zip"]}


@pytest.mark.parametrize("field, value, says", [
    ({"anyOf": [{"type": "integer", "minimum": 1, "maximum": 100}, {"type": "null"}], "default": None}, 0,
     "arguments.per_page is the integer 0: expected a number at least 1"),                   # the report's literal
    ({"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}]}, {"street": "Main", "zip": "123"},
     "arguments.per_page.zip is the string \"123\": expected text matching '^\\\\d{5}$'"),
    ({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]}, "abcdef",
     'arguments.per_page is the string "abcdef": expected at most 3 characters'),
    ({"anyOf": [{"enum": ["asc", "desc"], "type": "string"}, {"type": "null"}]}, "up",
     "arguments.per_page is the string \"up\": expected one of: the string \"asc\", the string \"desc\""),
    ({"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]}, [1, "2"],
     'arguments.per_page[1] is the string "2": expected integer'),
    ({"anyOf": [{"type": "integer", "minimum": 1}, {"type": "string", "minLength": 2}]}, "a",
     'arguments.per_page is the string "a": expected at least 2 characters'),
])
def test_any_of_names_the_failing_keyword_of_the_closest_option(field, value, says):
    schema = obj({"repo": {"type": "string"}, "per_page": field}, ["repo"], **{"$defs": {"Address": ADDRESS}})
    assert texts(validate_arguments({"repo": "a", "per_page": value}, schema)) == [says]


def test_any_of_lists_the_options_when_none_takes_the_values_type():
    schema = obj({"n": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]}})
    assert texts(validate_arguments({"n": "x"}, schema)) == ['arguments.n is the string "x": expected integer or null']


# -- kind 5: names from the model are quoted in paths ----------------------------------------------------------------

def test_a_dotted_key_is_not_a_nested_path():
    schema = {"type": "object", "properties": {"a": {"type": "object"}, "a.b": {"type": "string"}}}
    assert texts(validate_arguments({"a.b": 1}, schema)) == ["arguments['a.b'] is the integer 1: expected string"]
    assert texts(validate_arguments({"a": {"b": 1}}, {"type": "object", "properties": {"a": {
        "type": "object", "properties": {"b": {"type": "string"}}}}})) == ["arguments.a.b is the integer 1: expected string"]


@pytest.mark.parametrize("key, shown", [
    ("k" * 5000, "'" + "k" * 60 + "…' (5,000 characters)"),
    ('Traceback (most recent call last):\n  File "x.py", line 1, in <module>', "looks like a Python traceback"),
    ("two words", "'two words'"),
    ("line\nbreak", "'line\\nbreak'"),
])
def test_odd_keys_are_one_short_quoted_line(key, shown):
    schema = {"type": "object", "additionalProperties": {"type": "string"}}
    for value, where in (({key: 1}, ""), ({"outer": [{key: 1}]}, "outer[0]")):
        wrapped = schema if not where else {"type": "object", "properties": {"outer": {"type": "array", "items": schema}}}
        text = observation(value, wrapped)
        line = text.splitlines()[1]
        assert shown in line and len(line) < 250 and "\n" not in line.replace("\\n", "")
        assert "File \"x.py\"" not in text


def test_undeclared_keys_are_quoted_too():
    schema = obj({"city": {"type": "string"}}, additionalProperties=False)
    assert texts(validate_arguments({"city": "P", "x.y": 1}, schema)) == [
        "arguments['x.y'] is not declared: allowed: 'city'"]


# -- kind 6: counts are true -----------------------------------------------------------------------------------------

def _count_adds_up(text):
    lines = text.splitlines()
    header = int(lines[0].split("(")[1].split()[0].replace(",", ""))
    listed = sum(1 for line in lines[1:] if line.split(".")[0].isdigit())
    more = [line for line in lines if line.startswith("… and ")]
    left = int(more[0].split()[2].replace(",", "")) if more else 0
    return header, listed + left


@pytest.mark.parametrize("value, schema, count", [
    ({}, obj({f"p{i}": {"type": "integer"} for i in range(80)}, [f"p{i}" for i in range(80)]), 80),  # the literal
    ({"xs": ["a"] * 300}, obj({"xs": {"type": "array", "items": {"type": "integer"}}}), 300),
    ({f"extra{i}": i for i in range(120)}, obj({}, additionalProperties=False), 120),
])
def test_the_problem_count_is_true(value, schema, count):
    assert len(validate_arguments(value, schema)) == count
    assert _count_adds_up(observation(value, schema)) == (count, count)


# -- kind 7: schemas real tools publish ------------------------------------------------------------------------------

SCORES = obj({"scores": {"type": "object", "additionalProperties": {"type": "integer"},
                         "propertyNames": {"enum": ["math", "art"]}}}, ["scores"])
PET = {"type": "object", "required": ["pet"], "properties": {"pet": {
    "oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}],
    "discriminator": {"propertyName": "pet_type", "mapping": {"cat": "#/$defs/Cat", "dog": "#/$defs/Dog"}}}},
    "$defs": {"Cat": obj({"pet_type": {"const": "cat", "type": "string"}, "meows": {"type": "integer"}}, ["pet_type", "meows"]),
              "Dog": obj({"pet_type": {"const": "dog", "type": "string"}, "barks": {"type": "number"}}, ["pet_type", "barks"])}}


@pytest.mark.parametrize("schema, good, bad, names", [
    (SCORES, {"scores": {"math": 1}}, {"scores": {"music": 1}}, "'music'"),                         # the literal
    (obj({"a": {"type": "string", "x-order": 0}}, ["a"], **{"x-order": 1}), {"a": "x"}, {"a": 1}, "arguments.a"),
    (obj({"mode": {"type": "string", "enum": ["r", "w"], "enumDescriptions": ["read", "write"],
                   "markdownDescription": "**mode**"}}), {"mode": "r"}, {"mode": "x"}, "arguments.mode"),
    (obj({"blob": {"type": "string", "contentEncoding": "base64", "contentMediaType": "image/png"}}),
     {"blob": "aGk="}, {"blob": 5}, "arguments.blob"),
    (PET, {"pet": {"pet_type": "cat", "meows": 3}}, {"pet": {"pet_type": "dog", "meows": 3}}, "arguments.pet.barks"),
    (PET, {"pet": {"pet_type": "dog", "barks": 1.5}}, {"pet": {"pet_type": "fish"}}, "arguments.pet.pet_type"),
    (obj({"labels": {"type": "object", "minProperties": 1, "maxProperties": 2}}), {"labels": {"a": 1}},
     {"labels": {}}, "arguments.labels"),
    (obj({"name": {"type": "string", "not": {"const": ""}}}), {"name": "x"}, {"name": ""}, "arguments.name"),
    (obj({"note": {"type": "string", "nullable": True}}), {"note": None}, {"note": 3}, "arguments.note"),
    # OpenAPI 3.0.3: nullable adds null to the type; an enum without null still refuses it.
    (obj({"unit": {"type": "string", "enum": ["C", "F"], "nullable": True}}), {"unit": "C"}, {"unit": None},
     "arguments.unit"),
    (obj({"unit": {"type": "string", "enum": ["C", "F", None], "nullable": True}}), {"unit": None}, {"unit": "K"},
     "arguments.unit"),
    (obj({"point": {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": False}}),
     {"point": [1, 2.5]}, {"point": [1, 2, 3]}, "arguments.point[2]"),
    (obj({"tags": {"type": "object", "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": False}}),
     {"tags": {"x-a": "1"}}, {"tags": {"y": "1"}}, "arguments.tags.y"),
    (obj({"kind": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]}}), {"kind": 1.5}, {"kind": 2},
     "fits 2 of the options"),
])
def test_real_schemas_are_read_and_constrain(schema, good, bad, names):
    assert validate_arguments(good, schema) == []
    problems = texts(validate_arguments(bad, schema))
    assert problems and names in problems[0] and "does not support" not in problems[0], problems


@pytest.mark.parametrize("keyword", [{"if": {"type": "string"}, "then": {"minLength": 1}}, {"dependentRequired": {"a": ["b"]}},
                                     {"unevaluatedProperties": False}, {"dependentSchemas": {"a": {}}}])
def test_a_keyword_that_could_constrain_and_is_not_checked_is_still_reported(keyword):
    problems = texts(validate_arguments({"a": 1}, {"type": "object", **keyword}))
    assert len(problems) == 1 and "does not support" in problems[0]


# -- kind 8: wrapper formats get a hint about what they are ----------------------------------------------------------

CALCULATOR = {"calculator": {"required": {"expression": str}}}


def never_dispatched(name, arguments):
    raise AssertionError("a wrapped call must never be unwrapped and run")


@pytest.mark.parametrize("raw, hint", [
    ('[TOOL_CALLS][{"name": "calculator", "arguments": {"expression": "2+3"}}]', "'[TOOL_CALLS]'"),  # the literal
    ('[TOOL_CALLS]calculator[ARGS]{"expression": "2+3"}', "'[TOOL_CALLS]'"),
    ('[ARGS]{"expression": "2+3"}', "'[ARGS]'"),
    ('[calculator(expression="2+3")]', "Python syntax"),
    ('calculator(expression="2+3")', "Python syntax"),
    ('print(default_api.calculator(expression="2+3"))', "Python syntax"),
    ('{"name": "calculator", "arguments": {"expression": str(5)}}', "not a Python expression"),
    ('[{"name": "calculator", "arguments": {"expression": "2+3"}}]', "not a list of calls"),
])
def test_wrappers_are_rejected_with_a_hint_about_the_wrapper(raw, hint):
    replies = []

    def ask_model(observation):
        replies.append(observation)
        return raw

    result = handle_tool_call(raw, ask_model, tools=CALCULATOR, dispatch=never_dispatched)
    assert result["status"] == "rejected" and len(replies) == 1
    assert hint in replies[0] and "double quotes" not in replies[0]


# -- kind 9: adapters refuse pieces and read the Responses API -------------------------------------------------------

@pytest.mark.parametrize("adapter, piece", [
    (raw_call_from_openai, {"index": 0, "id": None, "type": None, "function": {"name": None, "arguments": " {\""}}),  # literal
    (raw_call_from_openai, {"index": 1, "function": {"arguments": "\"Paris\"}"}}),
    (raw_call_from_openai, SimpleNamespace(index=0, id=None, type=None, function=SimpleNamespace(name=None, arguments="{"))),
    (raw_call_from_openai, {"type": "function_call", "call_id": "c1", "arguments": "{}"}),
    (raw_call_from_anthropic, {"type": "tool_use", "id": "toolu_1", "input": {"city": "Paris"}}),
    (raw_call_from_anthropic, {"type": "tool_use", "id": "toolu_1", "name": None, "input": {}}),
])
def test_a_piece_of_a_call_is_the_programmers_type_error(adapter, piece):
    with pytest.raises(TypeError, match="no name"):
        adapter(piece)


@pytest.mark.parametrize("item", [
    {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
     "arguments": "{\"city\": \"Paris\"}", "status": "completed"},
    SimpleNamespace(type="function_call", id="fc_1", call_id="call_1", name="get_weather",
                    arguments="{\"city\": \"Paris\"}", status="completed"),
])
def test_a_responses_api_item_is_read(item):
    assert json.loads(raw_call_from_openai(item)) == {"name": "get_weather", "arguments": {"city": "Paris"}}


def test_a_responses_item_keeps_broken_arguments_for_the_validator():
    raw = raw_call_from_openai({"type": "function_call", "call_id": "c", "name": "f", "arguments": '{"a": 1, "a": 2}'})
    assert json.loads(raw)["arguments"] == '{"a": 1, "a": 2}'


@pytest.mark.parametrize("wrong", [
    {"type": "custom_tool_call", "call_id": "c", "name": "f", "input": "x"},
    {"type": "message", "content": []},
    [{"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}],
])
def test_the_refusal_names_both_openai_shapes(wrong):
    with pytest.raises(TypeError, match="Responses API") as raised:
        raw_call_from_openai(wrong)
    assert "message.tool_calls" in str(raised.value)


# -- handled right before issue 26: kept so --------------------------------------------------------------------------

WEATHER = {"get_weather": {"required": {"city": str}, "optional": {"units": str}}}


@pytest.mark.parametrize("raw, says", [
    ('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}</tool_call>', "tags"),     # hermes-agent #5315
    ('{"name": "get_weather", "arguments": {"city": "C:\\path"}}', "backslash"),                    # hermes-agent #110436
    ('{"name": "get_weather", "arguments": {"name": "get_weather", "arguments": {"city": "P"}}}', "'name'"),  # ollama #11805
    ('{"name": "functions.get_weather:0", "arguments": {"city": "P"}}', "'get_weather'"),         # vllm #27565
    ('{"name": "", "arguments": {"city": "P"}}', "'get_weather'"),                               # forgecode #1141
    ('<|channel|>commentary to=functions.get_weather', "tags"),                                   # Harmony
    ('get_weather[ARGS]{"city": "P"}', '"name": "get_weather"'),                                      # mlx-lm #1448
    ('{"name": "get_weather", "arguments": {"city": "P"}} Done.', "exactly one"),                 # vllm #40531
    ('{"name": "get_weather", "arguments": "{"}', "arguments"),                                   # llama.cpp #22948
    ('{"name": "get_weather", "arguments": {"city": "P"}, "id": "abc123xyz"}', "'id'"),           # mlx-lm #1643
])
def test_what_was_right_stays_right(raw, says):
    call, problems = check(raw, WEATHER)
    assert problems is not None and says in problems, problems


@pytest.mark.parametrize("raw, arguments", [
    ('{"name": "get_weather", "arguments": {"city": "a </tool_call> b"}}', {"city": "a </tool_call> b"}),  # vllm #48353
    ('{"name": "get_weather", "arguments": {"city": "L\'Aquila"}}', {"city": "L'Aquila"}),                 # atropos #478
])
def test_what_was_accepted_stays_accepted(raw, arguments):
    result = handle_tool_call(raw, lambda observation: None, tools=WEATHER, dispatch=lambda name, args: args)
    assert result == arguments
    assert parse_call(raw)[1] == []


# -- found by the trial of issue 26 (new inputs of the kinds) --------------------------------------------------------

@pytest.mark.parametrize("pattern, text, valid", [
    ("^[^\\S\\r\\n]+$", "\u00a0", True),        # \S inside a class: ECMA's white space, not Python's
    ("^[\\S]+$", "a\u3000b", False),
    ("^\\cJ$", "\n", True),                     # a control escape
    ("^(?<y>[0-9]{4})-\\k<y>$", "2024-2024", True),   # a named group and its back-reference
    ("^(?<y>[0-9]{4})-\\k<y>$", "2024-2025", False),
])
def test_more_ecma_patterns(pattern, text, valid):
    problems = texts(validate_arguments({"v": text}, obj({"v": {"type": "string", "pattern": pattern}})))
    assert (problems == []) is valid, problems


@pytest.mark.parametrize("pattern", ["^a\\Z", "^\\Aa", "^a{,2}$", "(?i)abc", "(?P<y>a)", "^\\p{L}+$"])
def test_a_pattern_that_is_not_ecma_262_or_cannot_run_is_a_schema_problem(pattern):
    problems = texts(validate_arguments({"v": "a"}, obj({"v": {"type": "string", "pattern": pattern}})))
    assert len(problems) == 1 and problems[0].startswith("the schema at properties.v.pattern ") and "ECMA-262" in problems[0]


@pytest.mark.parametrize("keyword, good, bad", [
    ({"multipleOf": 10**400}, 3 * 10**400, 1), ({"maximum": 10**400}, 1, 10**401), ({"minimum": -10**400}, 1, -10**401),
])
def test_huge_integers_in_a_schema_never_raise(keyword, good, bad):
    assert validate_arguments({"v": good}, obj({"v": keyword})) == []
    problems = texts(validate_arguments({"v": bad}, obj({"v": keyword})))
    assert len(problems) == 1 and len(problems[0]) < 200 and "a very large integer" in problems[0], problems


def test_an_integral_float_count_in_a_schema_is_a_count():
    assert texts(validate_arguments({"v": "abc"}, obj({"v": {"maxLength": 2.0}}))) == [
        'arguments.v is the string "abc": expected at most 2 characters']


def test_a_schema_that_spends_many_frames_a_level_is_still_checked():
    schema = {"$defs": {"A": {"allOf": [{"$ref": "#/$defs/B"}]}, "B": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/C"}]},
                        "C": {"anyOf": [{"$ref": "#/$defs/D"}]},
                        "D": {"type": "object", "properties": {"n": {"allOf": [{"$ref": "#/$defs/A"}]}}, "required": ["n"]}},
              "type": "object", "properties": {"x": {"$ref": "#/$defs/A"}}}
    for levels in (200, MAX_VALUE_DEPTH - 2):
        value = None
        for _ in range(levels):
            value = {"n": value}
        assert validate_arguments({"x": value}, schema) == []


def test_a_long_reference_chain_is_followed():
    chain = {"$defs": {f"A{i}": {"$ref": f"#/$defs/A{i + 1}"} for i in range(3000)},
             "type": "object", "properties": {"x": {"$ref": "#/$defs/A0"}}}
    chain["$defs"]["A3000"] = {"type": "integer"}
    assert validate_arguments({"x": 1}, chain) == []
    assert texts(validate_arguments({"x": "s"}, chain)) == ['arguments.x is the string "s": expected integer']


def test_options_that_tie_are_all_named():
    schema = obj({"mode": {"anyOf": [{"const": "a"}, {"const": "b"}]}})
    assert texts(validate_arguments({"mode": "c"}, schema)) == [
        'arguments.mode is the string "c": expected exactly the string "a" or exactly the string "b"']
    assert texts(validate_arguments(1, {"not": {"anyOf": [{"type": "integer"}, {"type": "string"}]}})) == [
        "arguments is the integer 1: expected anything but integer or string"]


@pytest.mark.parametrize("key", ["a']['b", "a'b", "c\\']['d"])
def test_a_quote_in_a_key_cannot_close_the_path_early(key):
    schema = obj({"inner": {"type": "object", "additionalProperties": {"type": "string"}}})
    line = texts(validate_arguments({"inner": {key: 1}}, schema))[0]
    path = line.split(" is the integer")[0]
    assert path.startswith("arguments.inner['") and path.endswith("']") and path.count("['") == 1, path


@pytest.mark.parametrize("block", [{"type": "tool_use", "id": "t", "name": "calculator"}, {"name": "calculator"}])
def test_a_tool_use_block_without_input_is_not_a_call(block):
    with pytest.raises(TypeError, match="no input"):
        raw_call_from_anthropic(block)


# -- found by the second trial of issue 26 ---------------------------------------------------------------------------

def _tree(union, levels):
    """A pydantic-style discriminated union of two models that both hold children, ``levels`` folders deep."""
    schema = {"type": "object", "properties": {"root": union}, "required": ["root"], "$defs": {
        "Folder": {"type": "object", "properties": {"kind": {"const": "folder"},
                                                    "children": {"type": "array", "items": dict(union)}},
                   "required": ["kind", "children"]},
        "Label": {"type": "object", "properties": {"kind": {"const": "label"},
                                                   "children": {"type": "array", "items": dict(union)}},
                  "required": ["kind"]}}}
    value = {"kind": "label"}
    for _ in range(levels):
        value = {"kind": "folder", "children": [value]}
    return {"root": value}, schema


@pytest.mark.parametrize("union", [
    {"oneOf": [{"$ref": "#/$defs/Folder"}, {"$ref": "#/$defs/Label"}],
     "discriminator": {"propertyName": "kind", "mapping": {"folder": "#/$defs/Folder", "label": "#/$defs/Label"}}},
    {"anyOf": [{"$ref": "#/$defs/Folder"}, {"$ref": "#/$defs/Label"}]},
], ids=["oneOf-discriminator", "anyOf"])
def test_a_recursive_union_is_checked_once_per_level(union, monkeypatch):
    """Each option's check at a value is remembered: before, 17 levels took 34 seconds (2 to the depth); counted in
    calls, not timed, so that a loaded machine cannot fail it."""
    import solutions.json_schema as module
    calls = []
    real = module._check

    def counted(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(module, "_check", counted)
    value, schema = _tree(union, 30)
    assert validate_arguments(value, schema) == []
    assert len(calls) < 3000, len(calls)  # about 60 a level; 2 ** 30 without the memo
    value["root"]["children"][0]["children"] = "none"
    assert texts(validate_arguments(value, schema)) == [
        'arguments.root.children[0].children is the string "none": expected array']


@pytest.mark.parametrize("schema, value, where", [
    ({"examples": [{"type": 5}], "properties": {"a": {"$ref": "#/examples/0"}}}, {"a": 1}, "#/examples/0.type"),
    ({"examples": [{"pattern": "("}], "properties": {"a": {"$ref": "#/examples/0"}}}, {"a": "x"}, "#/examples/0.pattern"),
    ({"default": {"multipleOf": 0}, "properties": {"a": {"$ref": "#/default"}}}, {"a": 3}, "#/default.multipleOf"),
    ({"x-d": {"anyOf": 5}, "properties": {"a": {"$ref": "#/x-d"}}}, {"a": 3}, "#/x-d.anyOf"),
    ({"default": {"$ref": "#/nowhere"}, "properties": {"a": {"$ref": "#/default"}}}, {"a": 3}, "#/default.$ref"),
    ({"type": "object", "x-defs": {"s": {"if": {"const": 1}, "then": False}}, "properties": {"a": {"$ref": "#/x-defs/s"}}},
     {"a": 1}, "#/x-defs/s"),
    ({"properties": {"a": {"$ref": "#/properties/b/examples/0"}, "b": {"examples": [{"maximum": "x"}]}}}, {"a": 3},
     "#/properties/b/examples/0.maximum"),
])
def test_a_reference_to_where_the_walk_does_not_go_is_checked(schema, value, where):
    """A $ref under examples, default or an x- key: its target was never checked, so validation raised (re.error,
    ZeroDivisionError, TypeError) or let an unsupported if/then through."""
    problems = texts(validate_arguments(value, schema))
    assert len(problems) == 1 and problems[0].startswith(f"the schema at {where} "), problems


def test_a_reference_walked_already_is_reported_once():
    schema = {"$defs": {"A": {"minLength": -1}}, "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/A"}}}
    assert texts(validate_arguments({}, schema)) == [
        "the schema at $defs.A.minLength is the integer -1: expected a whole number, 0 or more"]


def test_a_percent_encoded_reference_is_read():
    schema = {"type": "object", "$defs": {"a b": {"type": "string"}, "c/d": {"type": "integer"}},
              "properties": {"a": {"$ref": "#/$defs/a%20b"}, "c": {"$ref": "#/$defs/c~1d"}}}
    assert texts(validate_arguments({"a": 1, "c": "x"}, schema)) == [
        "arguments.a is the integer 1: expected string", 'arguments.c is the string "x": expected integer']


@pytest.mark.parametrize("pattern, text, valid", [
    ("^(?:(a)|b)\\1$", "b", True),         # a reference to a group that did not match matches empty text
    ("^(?:(a)|b)\\1$", "aa", True),
    ("^(?:(a)|b)\\1$", "ab", False),
    ("^(a\\1)$", "a", True),               # ... and so does one inside its own group
    ("^\\1(a)$", "a", True),               # ... or before it
    ("^(?<n>x)?-\\k<n>$", "-", True),
    ("^\\u{1F600}$", "\U0001F600", True),    # unicode mode's code point escape
    ("^\\ud83d\\ude00$", "\U0001F600", True),  # a surrogate pair is one character
    ("^\\(?P[0-9]+$", "P12", True),          # an escaped "(" is not Python's (?P
    ("\\B", "", True),                     # \B matches in empty text
    ("\\Bb", "ab", True),
    ("\\Bb", "b", False),
    ("^a+?$", "aaa", True),                 # a lazy quantifier is ECMA too
])
def test_ecma_patterns_python_reads_otherwise(pattern, text, valid):
    problems = texts(validate_arguments({"v": text}, obj({"v": {"type": "string", "pattern": pattern}})))
    assert (problems == []) is valid, problems


@pytest.mark.parametrize("pattern", ["^[a-z]++$", "^a*+$", "^a{2}+$", "^(?>ab|a)c$", "^(x)?(?(1)y|z)$",
                                     "^\\N{DIGIT ONE}$", "^\\U00000041$", "^\\a$", "^\\2(a)$", "^\\u{110000}$",
                                     "(?<=a+)b"])
def test_more_python_only_syntax_is_a_schema_problem(pattern):
    problems = texts(validate_arguments({"v": "a"}, obj({"v": {"type": "string", "pattern": pattern}})))
    assert len(problems) == 1 and problems[0].startswith("the schema at properties.v.pattern "), problems


@pytest.mark.parametrize("key", ["a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t", "x" * 40 + ".y", "p[0]", "q']['r"])
def test_a_shortened_path_is_cut_between_steps_never_inside_a_quoted_key(key):
    schema = {"$defs": {"n": {"anyOf": [{"type": "object", "additionalProperties": {"$ref": "#/$defs/n"}},
                                        {"type": "string"}]}}, "$ref": "#/$defs/n"}
    value = 1
    for _ in range(30):
        value = {key: value}
    path = texts(validate_arguments(value, schema))[0].split(" is the integer")[0]
    head, tail = path.split("…")
    step = f"[{json.dumps(key)[1:-1]!r}]" if "'" not in key else None
    assert head.startswith("arguments[") and head.endswith("]") and tail.startswith("[") and tail.endswith("]"), path
    if step:
        rest = head.removeprefix("arguments")
        assert rest and rest == step * (len(rest) // len(step)) and tail == step * (len(tail) // len(step)), path


@pytest.mark.parametrize("union, value, wants", [
    ({"anyOf": [{"enum": ["auto", "none"], "type": "string"}, {"pattern": "^gpt-\\d$", "type": "string"}]}, "claude",
     ['one of: the string "auto", the string "none"', "text matching '^gpt-\\\\d$'"]),
    ({"anyOf": [{"type": "string", "minLength": 5}, {"type": "string", "pattern": "^a"}]}, "b",
     ["at least 5 characters", "text matching '^a'"]),
    ({"anyOf": [{"type": "integer", "minimum": 10}, {"type": "integer", "multipleOf": 7}]}, 3,
     ["a number at least 10", "a multiple of 7"]),
])
def test_tied_options_of_the_values_type_are_named_by_what_they_ask(union, value, wants):
    """Two string options were listed as "expected string" for a value that is a string: the model could not act."""
    line = texts(validate_arguments({"v": value}, obj({"v": union})))[0]
    hint = line.split(": expected ", 1)[1]
    assert all(want in hint for want in wants) and hint not in ("string", "integer"), line


@pytest.mark.parametrize("raw, hint", [
    ('functions.get_weather(city="Paris")', "Python syntax"),
    ('~~~json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n~~~', "code fence"),
    ('Here is the call:\n```json\n{"name": "get_weather", "arguments": {}}\n```', "code fence"),
    ('Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>', "tags"),
    ('get_weather{"city": "Paris"}', '"name": "get_weather"'),
    ('get_weather\n{"city": "Paris"}', '"name": "get_weather"'),
    ("'{\"name\": \"get_weather\", \"arguments\": {}}'", "not inside quotes"),
    ('functools[{"name": "get_weather", "arguments": {}}]', "'functools'"),
])
def test_more_wrappers_get_a_hint_about_what_they_are(raw, hint):
    problems = texts(parse_call(raw)[1])
    assert len(problems) == 1 and hint in problems[0] and "no text before it" not in problems[0], problems


@pytest.mark.parametrize("adapter, piece", [
    (raw_call_from_openai, {"index": 0, "id": "call_1", "type": "function", "function": {"name": "list_files"}}),
    (raw_call_from_openai, {"index": 0, "id": "call_1", "type": "function",
                            "function": {"name": "list_files", "arguments": None}}),
    (raw_call_from_openai, SimpleNamespace(index=0, id="call_1", type="function",
                                           function=SimpleNamespace(name="list_files", arguments=None))),
    (raw_call_from_openai, {"index": 0, "id": None, "type": None, "function": {"name": "", "arguments": "{}"}}),
    (raw_call_from_openai, {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "list_files",
                            "arguments": "", "status": "in_progress"}),
    (raw_call_from_openai, {"type": "function_call", "call_id": "call_1", "name": "list_files"}),
    (raw_call_from_anthropic, {"type": "tool_use", "id": "t1", "name": "list_files", "input": None}),
])
def test_a_named_piece_is_not_a_call_either(adapter, piece):
    """A first delta has the name and no arguments yet: built into a call, the tool ran with {} nobody sent."""
    dispatched = []
    with pytest.raises(TypeError, match="piece|no input"):
        raw = adapter(piece)
        handle_tool_call(raw, lambda observation: raw, tools={"list_files": {"optional": {"path": str}}},
                         dispatch=lambda name, arguments: dispatched.append(arguments))
    assert dispatched == []


def test_a_whole_call_with_empty_arguments_is_still_the_models():
    """A delta with its id, its name and "" looks exactly like a whole call whose arguments are "" (contract)."""
    raw = raw_call_from_openai({"index": 0, "id": "call_1", "type": "function",
                                "function": {"name": "list_files", "arguments": ""}})
    assert json.loads(raw) == {"name": "list_files", "arguments": ""}

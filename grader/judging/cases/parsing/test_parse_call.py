"""Notebook 1: parse_call turns raw text into one call object, or a precise problem; it never raises."""

import json

import pytest

from grader.judging.expectations import expect_parse_error, expect_parsed, fail
from grader.judging.rule_ids import params, rule_id
from grader.judging.scripted_models import make_call
from grader.judging.wordings import COMMA, NOT_A_JSON_NUMBER, OBJECT, REPEATED
from grader.translations import N_, say

GROUP = N_("parse_call")
ORDER = 1
VIEW = "pair_with_texts"
VALID_RULE = N_("A raw call that is exactly one JSON object parses to that object, unchanged; missing or null arguments become {}.")
INVALID_RULE = N_("Anything that is not exactly one JSON object gives (None, [problem]): reported, never raised, never repaired.")


def parse(harness, raw, vary=True):
    """What parse_call returns for ``raw`` (a ``Transcript``): in a hidden case, with valid fields drawn into its
    arguments object (``ExerciseHarness.call``), expected in the parsed call too."""
    return harness.call(raw, view=VIEW, vary=vary)


VALID = {
    "plain": ('{"name": "get_weather", "arguments": {"city": "Paris"}}', {"name": "get_weather", "arguments": {"city": "Paris"}}),
    "whitespace-around": ('\n  {"name": "get_time", "arguments": {}}  \n', {"name": "get_time", "arguments": {}}),
    "null-arguments": ('{"name": "get_time", "arguments": null}', {"name": "get_time", "arguments": {}}),
    "no-arguments-key": ('{"name": "get_time"}', {"name": "get_time", "arguments": {}}),
    "string-arguments-kept": ('{"name": "x", "arguments": "{}"}', {"name": "x", "arguments": "{}"}),
    "numbers-keep-type": ('{"name": "x", "arguments": {"a": 1, "b": 1.0, "c": true}}', {"name": "x", "arguments": {"a": 1, "b": 1.0, "c": True}}),
    "unicode-escapes": ('{"name": "get\\u005fweather", "arguments": {"city": "\\u00e9"}}', {"name": "get_weather", "arguments": {"city": "é"}}),
    "huge-string-value": ('{"name": "get_weather", "arguments": {"city": "' + "P" * 1_048_576 + '"}}',
                          {"name": "get_weather", "arguments": {"city": "P" * 1_048_576}}),
    "unpaired-surrogate": ('{"name": "get_weather", "arguments": {"city": "Paris \\ud800"}}',
                           {"name": "get_weather", "arguments": {"city": "Paris \ud800"}}),
}
VALID_RULES = {key: "parse.unchanged" for key in VALID}
VALID_RULES.update({"null-arguments": ("parse.unchanged", "parse.arguments-default"),
                    "no-arguments-key": ("parse.unchanged", "parse.arguments-default")})


@pytest.mark.points(1)
@pytest.mark.gate("rejects")
@pytest.mark.rule(VALID_RULE)
@pytest.mark.parametrize("raw, expected", params(VALID, VALID_RULES))
def test_valid_raw_call(harness, raw, expected):
    """A valid raw call parses to exactly the object that was sent.

    Why: parsing must not change values (1 vs 1.0 vs true), must default only missing/null
    arguments (pydantic/pydantic-ai #1654), and must leave a string "arguments" for the validator to reject.
    A 1 MB value and an unpaired surrogate (valid JSON, but print() of it raises) come back whole, as the
    capstone dispatches them.
    """
    # Fields drawn into an arguments string would change the string the case expects back as written.
    expect_parsed(parse(harness, raw, vary=not isinstance(expected["arguments"], str)), expected)


INVALID = {
    "truncated": ('{"name": "get_weather", "arguments": {"city": "Par', ["json"]),
    "trailing-prose": ('{"name": "get_weather"} Let me know!', ["json"]),
    "markdown-fence": ('```json\n{"name": "get_weather"}\n```', ["json"]),
    "tool-call-tags": ('<tool_call>{"name": "get_weather"}</tool_call>', ["json"]),
    "single-quotes": ("{'name': 'get_weather'}", ["json"]),
    "two-objects": ('{"name": "a"}{"name": "b"}', ["json"]),
    "empty": ("", []),
    "whitespace-only": ("   \n", []),
    "array": ("[]", [OBJECT]),
    "null": ("null", [OBJECT]),
    "number": ("42", [OBJECT]),
    "string": ('"get_weather"', [OBJECT]),
    "deep-nesting": ("[" * 100_000 + "]" * 100_000, []),
    "nan": ('{"name": "set_budget", "arguments": {"amount": NaN}}', [NOT_A_JSON_NUMBER]),
    "duplicate-keys": ('{"name": "get_time", "name": "get_weather"}', [REPEATED]),
    "huge-integer": ('{"name": "x", "arguments": {"n": ' + "9" * 5000 + "}}", []),
    # Issue 15: valid JSON that a repair could turn into a call (unwrap the list, decode the string again), as the
    # capstone has them.
    "boolean": ("true", [OBJECT]),
    "array-of-calls": (json.dumps([{"name": "get_weather", "arguments": {"city": "Paris"}}]), [OBJECT]),
    "call-encoded-as-string": (json.dumps(make_call("get_weather", {"city": "Paris"})), [OBJECT]),
    # Issue 26, kind 8: wrapper formats, rejected as they came (ml-explore/mlx-lm #1374; Python-call syntax).
    "template-marker": ('[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]', ["json"]),
    "python-call-syntax": ('[get_weather(city="Paris")]', ["json"]),
}
INVALID_RULES = {
    "truncated": "parse.not-json", "trailing-prose": "parse.no-repair", "markdown-fence": "parse.no-repair",
    "tool-call-tags": "parse.no-repair", "single-quotes": "parse.no-repair", "two-objects": "parse.one-object",
    "empty": "parse.not-json", "whitespace-only": "parse.not-json", "array": "parse.object", "null": "parse.object",
    "number": "parse.object", "string": "parse.object", "deep-nesting": "parse.never-raise", "nan": "parse.json-only",
    "duplicate-keys": "parse.json-only", "huge-integer": "parse.never-raise", "array-of-calls": "parse.object",
    "call-encoded-as-string": "parse.object", "boolean": "parse.object", "template-marker": "parse.no-repair",
    "python-call-syntax": "parse.no-repair",
}


# What json.loads lets through, said without showing the hidden input.
ACCEPTED_BY_JSON_LOADS = {
    INVALID["nan"][0]: N_("json.loads accepts NaN and Infinity, which JSON does not have (see parse_constant)"),
    INVALID["duplicate-keys"][0]: N_("json.loads keeps the last of two equal keys, hiding an ambiguous call "
                                     "(see object_pairs_hook)"),
}


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(INVALID_RULE)
@pytest.mark.parametrize("raw, mentions", params(INVALID, INVALID_RULES))
def test_invalid_raw_call(harness, raw, mentions):
    """Text that is not exactly one JSON object gives (None, [problem]).

    Why: each id is a way json.loads fails or misleads: JSONDecodeError for prose and fences;
    RecursionError for deep nesting; ValueError for 5,000-digit integers; silent acceptance of NaN
    (not JSON) and of duplicate keys (json keeps the last value, hiding an ambiguous call). A list holding
    one call, or a call encoded as a JSON string, parses fine and is still not a call: unwrapping or decoding
    it again is a repair (the capstone rejects both).
    """
    expect_parse_error(parse(harness, raw), mentions, N_("say what is wrong with the text (not valid JSON, not an object, ...)."),
                       accepted=ACCEPTED_BY_JSON_LOADS.get(raw, ""))


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(INVALID_RULE)
@rule_id("parse.never-raise")
@pytest.mark.parametrize("raw", [None, 42, ["{}"]], ids=["none", "integer", "list"])
def test_input_that_is_not_a_string(harness, raw):
    """Input that is not a string gives (None, [problem]).

    Why: a model client may hand over None for an empty completion; json.loads(None) raises
    TypeError, which catching JSONDecodeError alone misses.
    """
    expect_parse_error(parse(harness, raw))


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(N_("Problems are short text: at most 2,000 characters, no traceback, even for 1 MB of input."))
@rule_id("parse.bounded")
def test_problem_text_is_bounded(harness):
    """1 MB of invalid text gives a short problem.

    Why: str(JSONDecodeError) is short, but echoing the document back (exc.doc) floods the model's context.
    """
    expect_parse_error(parse(harness, "{" + "'city': 'Paris', " * 60_000))


@pytest.mark.points(1)
@pytest.mark.rule(N_("parse_call keeps nothing from one call to the next: the same text gives an equal result every "
                     "time, a new object each time."))
@rule_id("parse.stateless")
def test_input_is_not_mutated_between_calls(harness):
    """Parsing the same text twice gives the same result.

    Why: caching parsed calls in a module-level dict and handing out the same object lets one
    caller's changes leak into the next call.
    """
    transcript = harness.call(make_call("get_time", None), view=VIEW, times=2)
    expect_parsed(transcript, {"name": "get_time", "arguments": {}})
    values = [v for kind, v in transcript.returns if kind == "returned"]
    if len(values) != 2 or json.dumps(values[0]) != json.dumps(values[1]):
        fail(say("parse_call gave different results for the same text."))


# -- issue 10: numbers a double cannot hold, and hints from the text itself ---------------------------------------

FINITE_RULE = N_("Every number must be finite: 1e400 is valid JSON syntax but json.loads turns it into inf; the problem "
               "names the field that holds it, at any depth.")
NOT_FINITE = {
    "overflowing-argument": ('{"name": "set_budget", "arguments": {"amount": 1e400}}', "amount"),
    "negative-in-a-list": ('{"name": "plot", "arguments": {"xs": [0.5, -3.1e500]}}', "xs"),
    "nested-object": ('{"name": "configure", "arguments": {"limits": {"ceiling": 7E+999}}}', "ceiling"),
}


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(FINITE_RULE)
@rule_id("parse.finite")
@pytest.mark.parametrize("raw, field", list(NOT_FINITE.values()), ids=list(NOT_FINITE))
def test_number_a_double_cannot_hold(harness, raw, field):
    """A number that overflows a double is a problem naming its field, not an inf handed to the tool.

    Why: json.loads gives inf for 1e400 without complaint, parse_constant never sees it (it is not the
    word Infinity), and the reference dispatched {"amount": inf} (issue 10, kind 1).
    """
    expect_parse_error(parse(harness, raw), [field], say("name the field whose number is not finite ({field}).", field=field),
                       accepted=say("json.loads turns 1e400 into inf: check floats with math.isfinite (see "
                                    "parse_float)"))


COMMA_RULE = N_("The hint is decided from the text at the error position, not from CPython's message: a stray comma "
              "before } or ] is named as a comma, on every Python version.")
TRAILING_COMMAS = {
    "after-the-arguments": '{"name": "set_timer", "arguments": {"seconds": 300},}',
    "in-an-array": '{"name": "tag", "arguments": {"labels": ["urgent", "home",]}}',
    "before-a-line-break": '{\n  "name": "get_time",\n  "arguments": {"timezone": "UTC",\n  }\n}',
}


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(COMMA_RULE)
@rule_id("parse.comma-hint")
@pytest.mark.parametrize("raw", list(TRAILING_COMMAS.values()), ids=list(TRAILING_COMMAS))
def test_trailing_comma_is_named_as_a_comma(harness, raw):
    """A trailing comma gets a hint about the comma, never about quotes.

    Why: Python 3.10-3.12 report it as "Expecting property name enclosed in double quotes", which a
    hint built from that wording turns into "use double quotes" (issue 10, kind 4); 3.13 words it
    differently again. The characters at and before the error position say what it is.
    """
    transcript = parse(harness, raw)
    expect_parse_error(transcript, [COMMA], N_("name the stray comma (look at the text at and before exc.pos)."))
    if "quote" in " ".join(transcript.result[1]).lower():
        # True of both kinds (a fresh learner read "here" as this case, an array, where CPython says "Expecting value").
        fail(say("parse_call's problem text talks about quotes for a stray comma: before }} CPython's message says "
                 "'Expecting property name enclosed in double quotes' (before ] 'Expecting value'); decide the hint "
                 "from the text, not the message."))

"""Arguments against the schema: required present, types exact, nothing undeclared, no coercion.

Every case here expects a refusal. Those whose call names a registered tool are made again from their
kind on every grading (``vary="template"``, ``grader.judging.draw.Draw.templated``): the tool, its fields' names, the
types and values of the fields not at fault, more fields and other tools are drawn, and only the fault is as written.
A field the observation must name is judged by its drawn name, renamed back. Arguments that are a string holding
JSON get valid fields drawn into the string instead (``vary=True``, ``grader.judging.draw.Draw.varied_call``). A call with
no arguments, where nothing can be drawn, is also sent to a tool that requires nothing and must then be dispatched.
"""

import json

import pytest

from grader.judging.expectations import expect_dispatched, expect_mentions, expect_rejected_after_one_retry
from grader.judging.registries import TYPED_TOOLS
from grader.judging.rule_ids import params, rule_id
from grader.judging.scripted_models import make_call
from grader.translations import N_, say

GROUP = N_("Arguments against the schema")
ORDER = 3

# Refusing is only worth points when valid input is accepted (see grader/judging/canaries.py).
pytestmark = pytest.mark.gate("accepts")

REQUIRED_RULE = N_("Every required argument must be present; missing or null arguments count as {}.")
TYPE_RULE = N_("Every argument must have its declared type: bool is not an integer, 7.0 is not an integer, null is no type, and nothing is converted.")
EXTRA_RULE = N_("No argument may be undeclared: every key must be listed in the tool's required or optional fields.")
SHAPE_RULE = N_("arguments must be a JSON object (or missing/null, meaning {}); a list, number or string is rejected, even a string that holds JSON.")


@pytest.mark.points(1)
@pytest.mark.rule(REQUIRED_RULE)
@rule_id("schema.required")
def test_missing_required(harness):
    """A missing required argument is rejected.

    Why: the core schema check; dispatching get_weather without a city runs a tool on garbage.
    """
    expect_rejected_after_one_retry(harness.run(make_call("get_weather", {"units": "metric"}), vary="template"))


@pytest.mark.points(1)
@pytest.mark.rule(REQUIRED_RULE)
@rule_id("schema.required", "parse.arguments-default")
def test_arguments_key_missing(harness):
    """A call with no arguments key is checked as {} and rejected for its missing field.

    The same call of a tool that requires nothing is then dispatched with {}.
    Why: the contract says missing arguments means {}; a runtime that skips validation when the key
    is absent dispatches a call without its required fields. The second call keeps a table keyed by the call's
    shape from refusing it by rote (nothing about a call without arguments can be drawn; issue 24's third attacker
    trial): the rule decides, not the call's look.
    """
    expect_rejected_after_one_retry(harness.run(make_call("get_weather", ...), vary="template"))
    expect_dispatched_when_nothing_is_required(harness, ...)


@pytest.mark.points(1)
@pytest.mark.rule(REQUIRED_RULE)
@rule_id("schema.required", "parse.arguments-default")
def test_arguments_null(harness):
    """A call with null arguments is checked as {} and rejected for its missing field.

    Why: pydantic/pydantic-ai #1654: models send "arguments": null; treating it as {} is right, skipping the
    required-field check is not. The same call of a tool that requires nothing is dispatched with {}, as in
    test_arguments_key_missing.
    """
    transcript = harness.run(make_call("get_weather", None), vary="template")
    expect_rejected_after_one_retry(transcript)
    expect_mentions(transcript.observations[0], ["city"], say("The observation"),
                    say("treat null arguments as {{}} and name the missing required field."))
    expect_dispatched_when_nothing_is_required(harness, None)


# The seed's tool with nothing required: a call without arguments (or with null) is then valid.
NOTHING_REQUIRED = {"get_weather": {"required": {}, "optional": {"city": str, "units": str}}}


def expect_dispatched_when_nothing_is_required(harness, arguments):
    """Run ``make_call("get_weather", arguments)`` (no arguments key, or null) on ``NOTHING_REQUIRED`` and expect it
    dispatched with {} (the contract: missing or null arguments mean {}). Raises ``CaseFailed``."""
    transcript = harness.run(make_call("get_weather", arguments), tools=NOTHING_REQUIRED, vary="dispatch")
    expect_dispatched(transcript, "get_weather", {})


TYPE_ERRORS = {
    "required-int-for-string": ("get_weather", {"city": 75001}),
    "optional-int-for-string": ("get_weather", {"city": "Paris", "units": 1}),
    "optional-bool-for-string": ("get_weather", {"city": "Paris", "units": True}),
    "bool-for-int": ("set_alarm", {"hour": True, "minute": 0}),
    "float-for-int": ("set_alarm", {"hour": 7.0, "minute": 30}),
    "string-digits-for-int": ("set_alarm", {"hour": "7", "minute": 30}),
    "bool-for-float": ("convert_currency", {"amount": True, "source": "EUR", "target": "USD"}),
    "string-for-float": ("convert_currency", {"amount": "10.5", "source": "EUR", "target": "USD"}),
    "string-for-list": ("send_email", {"to": "a@example.com", "body": "hi"}),
    "list-for-dict": ("send_email", {"to": ["a@example.com"], "body": "hi", "headers": []}),
    "int-for-bool": ("set_alarm", {"hour": 7, "minute": 30, "repeat": 1}),
}
TYPE_ERROR_RULES = {
    "required-int-for-string": "schema.type", "optional-int-for-string": "schema.optional-types",
    "optional-bool-for-string": ("schema.optional-types", "schema.bool"), "bool-for-int": "schema.bool",
    "float-for-int": "schema.no-coercion", "string-digits-for-int": "schema.no-coercion", "bool-for-float": "schema.bool",
    "string-for-float": "schema.no-coercion", "string-for-list": "schema.type", "list-for-dict": "schema.type",
    "int-for-bool": "schema.bool",
}


@pytest.mark.points(1)
@pytest.mark.rule(TYPE_RULE)
@pytest.mark.parametrize("name, arguments", params(TYPE_ERRORS, TYPE_ERROR_RULES))
def test_wrong_type(harness, name, arguments):
    """An argument of the wrong type is rejected.

    Why: each id is a classic slip. The seed's sample never type-checks optional arguments;
    isinstance(True, int) is True in Python; int("7") and float(True) are coercions the contract
    forbids; 7.0 is not an integer (the Berkeley Function Calling Leaderboard's checker agrees).
    """
    expect_rejected_after_one_retry(harness.run(make_call(name, arguments), tools=TYPED_TOOLS, vary="template"))


NULL_VALUES = {"required": {"city": None}, "optional": {"city": "Paris", "units": None}}


@pytest.mark.points(1)
@pytest.mark.rule(TYPE_RULE, N_("An optional argument is left out, not sent as null."))
@rule_id("schema.null")
@pytest.mark.parametrize("arguments", list(NULL_VALUES.values()), ids=list(NULL_VALUES))
def test_null_value(harness, arguments):
    """An argument whose value is null is rejected.

    Why: null is not a string; `field in args` passes and a tool then receives None. OpenAI's
    strict mode has the schema's author write optional fields as nullable, so models send null for them.
    """
    expect_rejected_after_one_retry(harness.run(make_call("get_weather", arguments), vary="template"))


@pytest.mark.points(1)
@pytest.mark.rule(EXTRA_RULE)
@rule_id("schema.undeclared")
def test_extra_argument(harness):
    """An undeclared argument is rejected, not dropped.

    Why: dropping unknown fields and dispatching the rest is a silent repair; the model believes a
    field it sent had an effect.
    """
    expect_rejected_after_one_retry(harness.run(make_call("get_weather", {"city": "Paris", "country": "FR"}), vary="template"))


@pytest.mark.points(1)
@pytest.mark.rule(EXTRA_RULE)
@rule_id("schema.undeclared")
def test_extra_argument_on_tool_without_arguments(harness):
    """An argument sent to a tool that declares only optional fields is rejected if undeclared.

    Where the tool declares it, the same call is dispatched.
    Why: a validator that only loops over declared fields never looks at what else was sent. The second call keeps a
    table keyed by the call's shape from refusing it by rote (a tool that requires nothing gets no required drawn
    field, so its drawn fields can be stripped: issue 24's third attacker trial): the registry decides.
    """
    expect_rejected_after_one_retry(harness.run(make_call("get_time", {"tz": "UTC"}), tools=TYPED_TOOLS, vary="template"))
    declared = {"get_time": {"required": {}, "optional": {"timezone": str, "tz": str}}}
    transcript = harness.run(make_call("get_time", {"tz": "UTC"}), tools=declared, vary="like-last")
    expect_dispatched(transcript, "get_time", {"tz": "UTC"})


NON_OBJECT_ARGUMENTS = {
    "array": [{"city": "Paris"}],
    "number": 20,
    "json-in-a-string": json.dumps({"city": "Paris"}),
    "plain-string": "Paris",
    "boolean": True,
}


@pytest.mark.points(1)
@pytest.mark.rule(SHAPE_RULE)
@rule_id("schema.arguments-object")
@pytest.mark.parametrize("arguments", list(NON_OBJECT_ARGUMENTS.values()), ids=list(NON_OBJECT_ARGUMENTS))
def test_arguments_not_an_object(harness, arguments):
    """arguments that is not an object is rejected.

    Why: OpenAI delivers arguments as a JSON string, and models copy that into the call
    (vllm-project/vllm #54964, #25729); decoding it would be a repair. `field in "Paris"` is a substring
    test in Python, so an unchecked string slips through a naive validator.
    """
    expect_rejected_after_one_retry(harness.run(make_call("get_weather", arguments), vary="template"))

"""Notebook 2: validate_call lists every way a parsed call breaks the registry's schema."""

import pytest

from grader.expectations import expect_no_violations, expect_violations
from grader.registries import SEED_TOOLS, TYPED_TOOLS, encode_registry

GROUP = "validate_call"
ORDER = 1
VALID_RULE = "A call that names a registered tool with exactly the declared arguments, of the declared types, has no violations."
INVALID_RULE = ("Every violation is reported: unregistered or non-string names, non-object arguments, missing required "
                "fields, wrong types (bool is not int, 7.0 is not int, null is no type), undeclared fields.")


def validate(harness, name, arguments, tools=TYPED_TOOLS):
    call = {"name": name, "arguments": arguments}
    return harness.call(call, encode_registry(tools), view="texts")


VALID = {
    "required-only": ("get_weather", {"city": "Paris"}),
    "with-optional": ("get_weather", {"city": "Paris", "units": "metric"}),
    "int-for-float": ("convert_currency", {"amount": 10, "source": "EUR", "target": "USD"}),
    "all-types": ("send_email", {"to": ["a@example.com"], "body": "", "headers": {}}),
    "bools": ("set_alarm", {"hour": 0, "minute": 59, "repeat": False}),
    "no-arguments": ("get_time", {}),
}


@pytest.mark.points(1)
@pytest.mark.gate("rejects")
@pytest.mark.rule(VALID_RULE)
@pytest.mark.parametrize("name, arguments", list(VALID.values()), ids=list(VALID))
def test_valid_call(harness, name, arguments):
    """A valid call has no violations.

    Why: an over-strict validator (rejecting 10 where a number is declared, or "" as a string, or
    False as a boolean) wastes the model's retry on a call that was right.
    """
    expect_no_violations(validate(harness, name, arguments))


INVALID = {
    "unknown-tool": ("get_forecast", {}, ["get_forecast"]),
    "empty-name": ("", {}, []),
    "list-name": (["get_weather"], {"city": "Paris"}, []),
    "object-name": ({"tool": "get_weather"}, {"city": "Paris"}, []),
    "null-name": (None, {}, []),
    "missing-required": ("get_weather", {}, ["city"]),
    "wrong-required-type": ("get_weather", {"city": 75001}, ["city"]),
    "wrong-optional-type": ("get_weather", {"city": "Paris", "units": 1}, ["units"]),
    "bool-for-int": ("set_alarm", {"hour": True, "minute": 0}, ["hour"]),
    "float-for-int": ("set_alarm", {"hour": 7.0, "minute": 0}, ["hour"]),
    "string-for-int": ("set_alarm", {"hour": "7", "minute": 0}, ["hour"]),
    "bool-for-float": ("convert_currency", {"amount": False, "source": "EUR", "target": "USD"}, ["amount"]),
    "null-required": ("get_weather", {"city": None}, ["city"]),
    "null-optional": ("get_weather", {"city": "Paris", "units": None}, ["units"]),
    "string-for-list": ("send_email", {"to": "a@example.com", "body": "hi"}, ["to"]),
    "extra-field": ("get_weather", {"city": "Paris", "country": "FR"}, ["country"]),
    "arguments-is-a-string": ("get_weather", '{"city": "Paris"}', ["arguments"]),
    "arguments-is-a-list": ("get_weather", [], ["arguments"]),
}


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(INVALID_RULE)
@pytest.mark.parametrize("name, arguments, mentions", list(INVALID.values()), ids=list(INVALID))
def test_invalid_call(harness, name, arguments, mentions):
    """An invalid call has at least one violation, naming the offending tool or field.

    Why: each id is a classic slip: isinstance(True, int); TOOLS.get(["x"]) raising TypeError;
    `field in "Paris"` doing a substring test when arguments is a string; null passing `in`.
    """
    expect_violations(validate(harness, name, arguments), mentions, "name the offending tool or field.")


@pytest.mark.points(2)
@pytest.mark.gate("accepts")
@pytest.mark.rule("Collect every violation before returning: one retry must be able to fix them all.")
def test_every_violation_is_reported(harness):
    """A call with four different violations gets all four reported.

    Why: the seed's sample returned at the first violation; the model then fixes one and fails again.
    """
    arguments = {"hour": True, "label": 3, "snooze": 5}
    expect_violations(validate(harness, "set_alarm", arguments), ["hour", "minute", "label", "snooze"],
                      "name the mistyped hour and label, the missing minute and the undeclared snooze.")


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule("Both the name and the arguments are checked, even when the name is already wrong.")
def test_bad_name_and_bad_arguments_together(harness):
    """A non-string name and non-object arguments are both reported.

    Why: stopping at the bad name leaves the model to discover the arguments problem on its last try.
    """
    expect_violations(validate(harness, 42, "city=Paris"), ["arguments"], "also say that arguments must be an object.")


@pytest.mark.points(1)
@pytest.mark.rule("validate_call checks against the registry it is given, not a global copy.")
def test_uses_the_registry_it_is_given(harness):
    """A tool that exists only in the registry passed in is valid; a seed tool missing from it is not.

    Why: reading a module-level TOOLS inside validate_call ignores its tools argument, so the runtime
    cannot register tools per agent.
    """
    tools = {"ping": {"required": {}, "optional": {}}}
    expect_no_violations(validate(harness, "ping", {}, tools))
    expect_violations(validate(harness, "get_weather", {"city": "Paris"}, tools), ["get_weather"], "name the unknown tool.")


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(INVALID_RULE)
def test_many_extra_fields_stay_bounded(harness):
    """10,000 undeclared fields give a bounded list of short problems.

    Why: the list goes into an observation; every problem must stay short text.
    """
    arguments = {"city": "Paris", **{f"field_{i}": i for i in range(10_000)}}
    expect_violations(validate(harness, "get_weather", arguments, SEED_TOOLS))

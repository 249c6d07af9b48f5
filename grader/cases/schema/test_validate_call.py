"""Notebook 2: validate_call lists every way a parsed call breaks the registry's schema."""

import pytest

from grader.expectations import expect_no_violations, expect_says_what_is_wrong, expect_violations, fail, returned
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


# Judging by difference (see grader/cases/tool_call/test_05_observations.py): for the cases whose mistake can be
# moved to another field, a twin call with the mistake elsewhere, and the words the judged problems must name
# more often than the twin's: id -> (twin name, twin arguments, words, words for what the judged call lacks, whole?).
TWINS = {
    "missing-required": ("get_weather", {"city": "Paris", "units": 1}, ["city"], ["city"], True),
    "wrong-required-type": ("get_weather", {"city": "Paris", "units": 1}, ["city"], (), True),
    "wrong-optional-type": ("get_weather", {"city": 75001, "units": "metric"}, ["units"], (), True),
    "bool-for-int": ("set_alarm", {"hour": 7, "minute": True}, ["hour"], (), True),
    "float-for-int": ("set_alarm", {"hour": 7, "minute": 0.0}, ["hour"], (), True),
    "string-for-int": ("set_alarm", {"hour": 7, "minute": "0"}, ["hour"], (), True),
    "bool-for-float": ("convert_currency", {"amount": 3, "source": False, "target": "USD"}, ["amount"], (), True),
    "null-required": ("get_weather", {"city": "Paris", "units": None}, ["city"], (), True),
    "null-optional": ("get_weather", {"city": None, "units": "metric"}, ["units"], (), True),
    "arguments-is-a-string": ("get_forecast", {"city": "Paris"}, ["arguments"], (), False),
    "arguments-is-a-list": ("get_forecast", {"city": "Paris"}, ["arguments"], (), False),
}
SINGLES_OUT = "name the offending tool or field (and not a field that is fine)."


def expect_singled_out(harness, case_id, problems):
    """When ``case_id`` has a twin, the problems name its offending field more often than the twin's problems do."""
    if case_id not in TWINS:
        return
    name, arguments, words, absent, whole = TWINS[case_id]
    expect_says_what_is_wrong(" ".join(problems), twin_text(harness, name, arguments), words,
                              "validate_call's problem text", SINGLES_OUT, absent=absent, whole=whole)


def twin_text(harness, name, arguments):
    """The twin call's problems as one text, or None when there are none (a mistake other cases judge)."""
    twin = returned(validate(harness, name, arguments))
    texts = [text for text in twin if isinstance(text, str)] if isinstance(twin, list) else []
    return " ".join(texts) if texts else None


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(INVALID_RULE)
@pytest.mark.parametrize("case_id", list(INVALID))
def test_invalid_call(harness, case_id):
    """An invalid call has at least one violation, naming the offending tool or field.

    Why: each id is a classic slip: isinstance(True, int); TOOLS.get(["x"]) raising TypeError;
    `field in "Paris"` doing a substring test when arguments is a string; null passing `in`. Where
    the mistake can be moved to another field, the problems must name the offending field more often
    than the problems of that twin call: a dump of the registry and of the sent keys names every field.
    """
    name, arguments, mentions = INVALID[case_id]
    problems = expect_violations(validate(harness, name, arguments), mentions, SINGLES_OUT)
    expect_singled_out(harness, case_id, problems)


@pytest.mark.points(2)
@pytest.mark.gate("accepts")
@pytest.mark.rule("Collect every violation before returning: one retry must be able to fix them all.")
def test_every_violation_is_reported(harness):
    """A call with four different violations gets all four reported.

    Why: the seed's sample returned at the first violation; the model then fixes one and fails again.
    Each violation is a problem of its own (one generic problem for four is not "every violation"),
    and each offending field is named more often than in the problems of the mirror-image call
    (hour and label fine, minute mistyped, nap undeclared).
    """
    arguments = {"hour": True, "label": 3, "snooze": 5}
    fix = "name the mistyped hour and label, the missing minute and the undeclared snooze, one problem each."
    problems = expect_violations(validate(harness, "set_alarm", arguments), ["hour", "minute", "label", "snooze"], fix)
    if len(problems) < 4:
        fail("validate_call returned fewer problems than the call has violations (four); report each violation as a "
             "problem of its own, so that the observation can list them all.")
    twin = twin_text(harness, "set_alarm", {"hour": 7, "minute": True, "label": "gym", "nap": 5})
    expect_says_what_is_wrong(" ".join(problems), twin, ["hour", "label", "minute", "snooze"],
                              "validate_call's problem text", fix, absent=["minute"])


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule("Both the name and the arguments are checked, even when the name is already wrong.")
def test_bad_name_and_bad_arguments_together(harness):
    """A non-string name and non-object arguments are both reported.

    Why: stopping at the bad name leaves the model to discover the arguments problem on its last try.
    The arguments problem must be said more often than for the same bad name with object arguments.
    """
    fix = "also say that arguments must be an object."
    problems = expect_violations(validate(harness, 42, "city=Paris"), ["arguments"], fix)
    expect_says_what_is_wrong(" ".join(problems), twin_text(harness, 42, {"city": "Paris"}), ["arguments"],
                              "validate_call's problem text", fix, whole=False)


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

"""Notebook 2: validate_call lists every way a parsed call breaks the registry's schema."""

import json

import pytest

from grader.judging.expectations import (
    expect_no_violations,
    expect_says_what_is_wrong,
    expect_violations,
    fail,
    returned,
)
from grader.judging.registries import SEED_TOOLS, TYPED_TOOLS, encode_registry
from grader.judging.rule_ids import params, rule_id
from grader.translations import N_, _, say

GROUP = N_("validate_call")
ORDER = 1
VALID_RULE = N_("A call that names a registered tool with exactly the declared arguments, of the declared types, has no violations.")
INVALID_RULE = N_("Every violation is reported: unregistered or non-string names, non-object arguments, missing required "
                "fields, wrong types (bool is not int, 7.0 is not int, null is no type), undeclared fields.")


# A name that is left out of the call altogether (not even null).
MISSING = object()


def validate(harness, name, arguments, tools=TYPED_TOOLS, registry_only=False, drawn=False):
    """validate_call on the call ``name``/``arguments`` and ``tools``; in a hidden case with valid optional fields drawn
    around what is wrong (``ExerciseHarness.varied``, issue 24), so the call's shape is new on every grading: a drawn
    field is declared and valid, so what a case expects (no violations, or the ones it names) is unchanged. ``drawn``:
    the call and registry were made again from their kind already (``templated``); nothing more is drawn."""
    if not drawn:
        arguments, tools = harness.varied(name if name is not MISSING else None, arguments, tools, registry_only)
    call = {"name": name, "arguments": arguments} if name is not MISSING else {"arguments": arguments}
    return harness.call(call, encode_registry(tools), view="texts")


def templated(harness, calls, tools=TYPED_TOOLS):
    """``([(name, arguments), ...], tools)``: calls of one registered tool with object arguments (a judged call and its
    twin, or one call) and their registry made again together from their kind in a hidden run
    (``grader.judging.draw.Draw.templated_together``: the faults kept, the tool's and fields' names, the types and values
    of the fields not at fault, more fields and other tools drawn); None in a visible run or for calls of another form.

    Added fields alone were taken away again by a table keyed by skeletons without word lengths, which then knew 39
    of validate_call's hidden points (issue 24)."""
    if harness.draw is None or not all(isinstance(name, str) and name in tools and isinstance(arguments, dict)
                                       for name, arguments in calls):
        return None
    raws = [json.dumps({"name": name, "arguments": arguments}) for name, arguments in calls]
    made, drawn_tools = harness.templated(raws, tools, wrong_drawn=True)
    if made == raws:
        return None
    return [(call["name"], call["arguments"]) for call in map(json.loads, made)], drawn_tools


def around(harness, calls, tools=TYPED_TOOLS, about=None):
    """``([(name, arguments), ...], tools)``: calls whose fault is their form (the name, or arguments that are no
    object) and their registry made again from their kind in a hidden run (``grader.judging.draw.Draw.templated_around``:
    the names and the arguments' forms kept, ``about``'s fields renamed and more of them, the other tools drawn); None
    in a visible run. ``about``: the registered tool the calls name or nearly name, or None.

    Kept on the registry as written, these cases' skeletons were the same on every draw, and a table keyed by skeletons
    without word lengths knew 28 of validate_call's hidden points (issue 24)."""
    if harness.draw is None:
        return None
    return harness.templated_around(calls, tools, about)


# The registered tool an invalid call is about when its name is no string (None: about no tool).
ABOUT = {"list-name": "get_weather", "object-name": "get_weather"}


VALID = {
    "required-only": ("get_weather", {"city": "Paris"}),
    "with-optional": ("get_weather", {"city": "Paris", "units": "metric"}),
    "int-for-float": ("convert_currency", {"amount": 10, "source": "EUR", "target": "USD"}),
    "all-types": ("send_email", {"to": ["a@example.com"], "body": "", "headers": {}}),
    "bools": ("set_alarm", {"hour": 0, "minute": 59, "repeat": False}),
    "no-arguments": ("get_time", {}),
    "float-value": ("convert_currency", {"amount": 10.5, "source": "EUR", "target": "USD"}),
    "non-ascii-values": ("get_weather", {"city": "Zürich 東京 🌦"}),
}


@pytest.mark.points(1)
@pytest.mark.gate("rejects")
@pytest.mark.rule(VALID_RULE)
@rule_id("schema.valid")
@pytest.mark.parametrize("name, arguments", list(VALID.values()), ids=list(VALID))
def test_valid_call(harness, name, arguments):
    """A valid call has no violations.

    Why: an over-strict validator (rejecting 10 where a number is declared, or "" as a string, or
    False as a boolean) wastes the model's retry on a call that was right.
    """
    made = templated(harness, [(name, arguments)])
    if made is not None:
        [(name, arguments)], tools = made
        expect_no_violations(validate(harness, name, arguments, tools, drawn=True))
    else:
        expect_no_violations(validate(harness, name, arguments))


INVALID = {
    "unknown-tool": ("get_forecast", {}, ["get_forecast"]),
    "empty-name": ("", {}, []),
    "list-name": (["get_weather"], {"city": "Paris"}, []),
    "object-name": ({"name": "get_weather"}, {"city": "Paris"}, []),
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
    # Issue 15: every input the capstone has for these rules, so a step solution is held to the same rules.
    "integer-name": (42, {"city": "Paris"}, []),
    "boolean-name": (True, {"city": "Paris"}, []),
    "missing-name": (MISSING, {"city": "Paris"}, []),
    "optional-bool-for-string": ("get_weather", {"city": "Paris", "units": True}, ["units"]),
    "string-for-float": ("convert_currency", {"amount": "10.5", "source": "EUR", "target": "USD"}, ["amount"]),
    "int-for-bool": ("set_alarm", {"hour": 7, "minute": 30, "repeat": 1}, ["repeat"]),
    "list-for-dict": ("send_email", {"to": ["a@example.com"], "body": "hi", "headers": []}, ["headers"]),
    "extra-field-without-required-fields": ("get_time", {"tz": "UTC"}, ["tz"]),
    "arguments-is-a-list-of-one-object": ("get_weather", [{"city": "Paris"}], ["arguments"]),
    "arguments-is-a-number": ("get_weather", 20, ["arguments"]),
    "arguments-is-a-boolean": ("get_weather", True, ["arguments"]),
    "arguments-is-plain-text": ("get_weather", "Paris", ["arguments"]),
    "arguments-string-with-two-objects": ("get_weather", '{"city": "Lima"}{"city": "Lima"}', ["arguments"]),
    "arguments-string-with-a-repeated-key": ("get_weather", '{"city": "Lima", "city": "Cusco"}', ["arguments"]),
}
INVALID_RULES = {
    "unknown-tool": "name.registered", "empty-name": "name.registered", "list-name": "name.string",
    "object-name": "name.string", "null-name": "name.string", "integer-name": "name.string",
    "boolean-name": "name.string", "missing-name": "name.string",
    "missing-required": "schema.required", "wrong-required-type": "schema.type",
    "wrong-optional-type": "schema.optional-types", "optional-bool-for-string": ("schema.optional-types", "schema.bool"),
    "bool-for-int": "schema.bool", "bool-for-float": "schema.bool", "int-for-bool": "schema.bool",
    "float-for-int": "schema.no-coercion", "string-for-int": "schema.no-coercion", "string-for-float": "schema.no-coercion",
    "null-required": "schema.null", "null-optional": ("schema.null", "schema.optional-types"),
    "string-for-list": "schema.type", "list-for-dict": "schema.type",
    "extra-field": "schema.undeclared", "extra-field-without-required-fields": "schema.undeclared",
    "arguments-is-a-string": "schema.arguments-object", "arguments-is-a-list": "schema.arguments-object",
    "arguments-is-a-number": "schema.arguments-object", "arguments-is-a-list-of-one-object": "schema.arguments-object", "arguments-is-a-boolean": "schema.arguments-object",
    "arguments-is-plain-text": "schema.arguments-object", "arguments-string-with-two-objects": "schema.arguments-object",
    "arguments-string-with-a-repeated-key": "schema.arguments-object",
}


# Judging by difference (see grader/judging/cases/tool_call/test_05_observations.py): for the cases whose mistake can be
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
SINGLES_OUT = N_("name the offending tool or field (and not a field that is fine).")


def expect_singled_out(harness, case_id, problems, twin=None):
    """When ``case_id`` has a twin, the problems name its offending field more often than the twin's problems do.
    ``twin``: ``(name, arguments, tools)`` of the twin made again with the judged call (``templated``), or None."""
    if case_id not in TWINS:
        return
    name, arguments, words, absent, whole = TWINS[case_id]
    text = twin_text(harness, *twin, drawn=True) if twin is not None else twin_text(harness, name, arguments)
    expect_says_what_is_wrong(" ".join(problems), text, words,
                              say("validate_call's problem text"), SINGLES_OUT, absent=absent, whole=whole)


def twin_text(harness, name, arguments, tools=TYPED_TOOLS, drawn=False):
    """The twin call's problems as one text, or None when there are none (a mistake other cases judge)."""
    twin = returned(validate(harness, name, arguments, tools, drawn=drawn))
    texts = [text for text in twin if isinstance(text, str)] if isinstance(twin, list) else []
    return " ".join(texts) if texts else None


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(INVALID_RULE)
@pytest.mark.parametrize("case_id", params({key: key for key in INVALID}, INVALID_RULES, unpack=False))
def test_invalid_call(harness, case_id):
    """An invalid call has at least one violation, naming the offending tool or field.

    Why: each id is a classic slip: isinstance(True, int); TOOLS.get(["x"]) raising TypeError;
    `field in "Paris"` doing a substring test when arguments is a string; null passing `in`; float("10.5"),
    bool(1) and json.loads(arguments) are conversions the capstone rejects too. Where
    the mistake can be moved to another field, the problems must name the offending field more often
    than the problems of that twin call: a dump of the registry and of the sent keys names every field.
    """
    name, arguments, mentions = INVALID[case_id]
    twin = TWINS.get(case_id)
    calls = [(name, arguments)] + ([twin[:2]] if twin else [])
    made = templated(harness, calls)
    if made is None:
        # A fault of the call's form: made again around it (the name kept, the registry drawn).
        about = name if isinstance(name, str) and name in TYPED_TOOLS else ABOUT.get(case_id)
        made = around(harness, calls, about=about)
    if made is None:
        problems = expect_violations(validate(harness, name, arguments), mentions, SINGLES_OUT)
        expect_singled_out(harness, case_id, problems)
        return
    calls, tools = made
    problems = expect_violations(validate(harness, *calls[0], tools, drawn=True), mentions, SINGLES_OUT)
    expect_singled_out(harness, case_id, problems, (*calls[1], tools) if twin else None)


@pytest.mark.points(2)
@pytest.mark.gate("accepts")
@pytest.mark.rule(N_("Collect every violation before returning: one retry must be able to fix them all."))
@rule_id("schema.every-violation")
def test_every_violation_is_reported(harness):
    """A call with four different violations gets all four reported.

    Why: the seed's sample returned at the first violation; the model then fixes one and fails again.
    Each violation is a problem of its own (one generic problem for four is not "every violation"),
    and each offending field is named more often than in the problems of the mirror-image call
    (hour and label fine, minute mistyped, nap undeclared).
    """
    arguments = {"hour": True, "label": 3, "snooze": 5}
    twin_arguments = {"hour": 7, "minute": True, "label": "gym", "nap": 5}
    fix = N_("name the mistyped hour and label, the missing minute and the undeclared snooze, one problem each.")
    made = templated(harness, [("set_alarm", arguments), ("set_alarm", twin_arguments)])
    if made is None:
        judged, twin_call, tools = ("set_alarm", arguments), ("set_alarm", twin_arguments), TYPED_TOOLS
    else:
        (judged, twin_call), tools = made
    problems = expect_violations(validate(harness, *judged, tools, drawn=made is not None),
                                 ["hour", "minute", "label", "snooze"], fix)
    if len(problems) < 4:
        fail(say("validate_call returned fewer problems than the call has violations (four); report each violation "
                 "as a problem of its own, so that the observation can list them all."))
    twin = twin_text(harness, *twin_call, tools, drawn=made is not None)
    expect_says_what_is_wrong(" ".join(problems), twin, ["hour", "label", "minute", "snooze"],
                              say("validate_call's problem text"), fix, absent=["minute"])


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(N_("Both the name and the arguments are checked, even when the name is already wrong."))
@rule_id("schema.name-and-arguments")
def test_bad_name_and_bad_arguments_together(harness):
    """A non-string name and non-object arguments are both reported.

    Why: stopping at the bad name leaves the model to discover the arguments problem on its last try.
    The arguments problem must be said more often than for the same bad name with object arguments.
    """
    fix = N_("also say that arguments must be an object.")
    made = around(harness, [(42, "city=Paris"), (42, {"city": "Paris"})])
    (judged, twin), tools = made if made is not None else (((42, "city=Paris"), (42, {"city": "Paris"})), TYPED_TOOLS)
    problems = expect_violations(validate(harness, *judged, tools, drawn=made is not None), ["arguments"], fix)
    expect_says_what_is_wrong(" ".join(problems), twin_text(harness, *twin, tools, drawn=made is not None),
                              ["arguments"], say("validate_call's problem text"), fix, whole=False)


@pytest.mark.points(1)
@pytest.mark.rule(N_("validate_call checks against the registry it is given, not a global copy."))
@rule_id("name.registry-given")
def test_uses_the_registry_it_is_given(harness):
    """A tool that exists only in the registry passed in is valid; a seed tool missing from it is not.

    Why: reading a module-level TOOLS inside validate_call ignores its tools argument, so the runtime
    cannot register tools per agent.
    """
    tools = {"ping": {"required": {}, "optional": {}}}
    made = around(harness, [("ping", {})], tools, about="ping")
    expect_no_violations(validate(harness, "ping", {}, tools) if made is None else
                         validate(harness, *made[0][0], made[1], drawn=True))
    # Nothing drawn into the call: fields drawn into it would be undeclared in a global copy of the seed's
    # get_weather, and a validator that reads that copy would then pass for the wrong reason.
    made = around(harness, [("get_weather", {"city": "Paris"})], tools)
    expect_violations(validate(harness, "get_weather", {"city": "Paris"}, tools, registry_only=True) if made is None
                      else validate(harness, *made[0][0], made[1], drawn=True), ["get_weather"], N_("name the unknown tool."))


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(INVALID_RULE)
@rule_id("schema.bounded")
def test_many_extra_fields_stay_bounded(harness):
    """10,000 undeclared fields give a bounded list of short problems.

    Why: the list goes into an observation; every problem must stay short text.
    """
    # The values from a drawn start in a hidden run: from 0 they were the same on every grading, and a table keyed by
    # the one value no draw makes (the 0) knew the case (issue 24's seventh attacker trial).
    start = 1 + harness.draw.random.randrange(99_000) if harness.draw is not None else 0
    arguments = {"city": "Paris", **{f"field_{i}": start + i for i in range(10_000)}}
    expect_violations(validate(harness, "get_weather", arguments, SEED_TOOLS))


# -- issue 15: the name must be exactly a registered one; every repair a runtime might make is refused ----------------

EXACT_RULE = N_("The name must be exactly a registered one: no trimming, no prefix stripping, no case folding, no Unicode "
              "normalising, no closest match. A name that differs in anything is a violation, and the model is told.")
WEATHER = {"city": "Paris"}
ALARM = {"hour": 7, "minute": 30}
# One case per kind of repair, each with names that only that repair (or a looser one) would turn into a registered
# tool; the capstone's names (tool_call/test_02_names.py: other case, leading space, trailing newline, "functions.",
# a misspelling, and ": " from a real call) are among them.
NEAR_MISS_NAMES = {
    "spacing": [(" get_weather", WEATHER), ("get_weather\n", WEATHER), ("get_weather ", WEATHER), ("\tget_weather", WEATHER),
                ("\u00a0get_weather", WEATHER), ("get_weather\u3000", WEATHER), ("\r\nset_alarm", ALARM)],
    "invisible-characters": [("get_\u200bweather", WEATHER), ("\ufeffget_weather", WEATHER), ("get_weather\u200d", WEATHER),
                             ("get\u00ad_weather", WEATHER), ("set_\u2060alarm", ALARM)],
    "prefix": [("functions.get_weather", WEATHER), ("tools.get_weather", WEATHER), ("default_api.get_weather", WEATHER),
               ("functions:get_weather", WEATHER), (": get_weather", WEATHER), ("functions/set_alarm", ALARM),
               ("mcp__weather__get_weather", WEATHER), ("to=functions.get_weather", WEATHER)],
    "suffix": [("get_weather()", WEATHER), ("get_weather.", WEATHER), ("get_weather:0", WEATHER),
               ("get_weather<|channel|>commentary", WEATHER), ("get_weather,", WEATHER), ("get_weather_tool", WEATHER),
               ("set_alarm()", ALARM)],
    "letter-case": [("Get_Weather", WEATHER), ("GET_WEATHER", WEATHER), ("get_Weather", WEATHER), ("Set_alarm", ALARM),
                    ("\u017fet_alarm", ALARM)],
    "look-alike-letters": [("get_w\u0435ather", WEATHER), ("g\u0435t_weather", WEATHER), ("get_we\u03b1ther", WEATHER),
                           ("\uff47\uff45\uff54\uff3fweather", WEATHER), ("\U0001d420et_weather", WEATHER),
                           ("g\u00e9t_weather", WEATHER), ("ge\u0301t_weather", WEATHER), ("\u0261et_weather", WEATHER),
                           ("set_al\u0430rm", ALARM)],
    "separators": [("get-weather", WEATHER), ("getWeather", WEATHER), ("GetWeather", WEATHER), ("get weather", WEATHER),
                   ("get__weather", WEATHER), ("get.weather", WEATHER), ("getweather", WEATHER), ("set-alarm", ALARM)],
    "quoting": [("`get_weather`", WEATHER), ('"get_weather"', WEATHER), ("'get_weather'", WEATHER), ("<get_weather>", WEATHER),
                ("[get_weather]", WEATHER), ("**get_weather**", WEATHER), ("{set_alarm}", ALARM)],
    "escapes": [("get\\u005fweather", WEATHER), ("get%5Fweather", WEATHER), ("get&#95;weather", WEATHER),
                ("get_weather\\n", WEATHER), ("set&lowbar;alarm", ALARM)],
    "closest-match": [("get_wether", WEATHER), ("get_weathr", WEATHER), ("get_waether", WEATHER), ("get_weathers", WEATHER),
                      ("weather", WEATHER), ("set_alarms", ALARM)],
}
# What each kind is, for the feedback (the names themselves stay hidden).
REPAIRS = {
    "spacing": N_("spaces, tabs or line breaks around it (strip() is a repair)"),
    "invisible-characters": N_("an invisible character inside it (removing it is a repair)"),
    "prefix": N_("a prefix such as a namespace before it (dropping the prefix is a repair)"),
    "suffix": N_("something after it, such as parentheses (dropping it is a repair)"),
    "letter-case": N_("the case of its letters (lower() and casefold() are repairs)"),
    "look-alike-letters": N_("a letter that only looks like the registered one (Unicode normalising or transliterating is a repair)"),
    "separators": N_("its separators (swapping, dropping or adding them is a repair)"),
    "quoting": N_("quotes or brackets around it (stripping them is a repair)"),
    "escapes": N_("an escape sequence left in it (decoding it is a repair)"),
    "closest-match": N_("a few letters (picking the closest registered name is a repair: the model may have meant another tool)"),
}


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(EXACT_RULE)
@rule_id("name.exact", "name.registered")
@pytest.mark.parametrize("kind", list(NEAR_MISS_NAMES))
def test_name_that_is_almost_registered(harness, kind):
    """A name that differs from a registered one, however slightly, is a violation.

    Why: a validator that repairs the name before looking it up (strip(), dropping "functions." or an MCP
    server prefix, cutting "()", lower(), NFKC, decoding escapes, difflib's closest match) lets the runtime
    dispatch a tool the model did not exactly name; the capstone docks it (jekalmin/extended_openai_conversation
    #72), so the step that teaches the rule does too (issue 15). Each kind holds several names, so a repair that
    handles one spelling of it still loses the point.
    """
    for name, arguments in NEAR_MISS_NAMES[kind]:
        # The registry made again around the tool the name nearly names (its fields drawn, other tools drawn).
        made = around(harness, [(name, arguments)], about="get_weather" if arguments is WEATHER else "set_alarm")
        transcript = validate(harness, name, arguments) if made is None else \
            validate(harness, *made[0][0], made[1], drawn=True)
        if returned(transcript) == []:
            fail(say("validate_call accepted a tool name that differs from a registered one in {repairs}. Look the "
                     "name up exactly as it came (name in tools) and report anything else as an unknown tool, so the "
                     "model is told.", repairs=_(REPAIRS[kind])))
        expect_violations(transcript)


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(INVALID_RULE, N_("Nesting never crashes the check."))
@rule_id("schema.never-raise")
def test_deeply_nested_undeclared_field(harness):
    """An undeclared field nested 900 levels deep is a violation, not a crash.

    Why: json.loads parses it, but a recursive check, or repr() of it on Python 3.11 and earlier, raises
    RecursionError once about 100 frames are on the stack; the capstone has the same case.
    """
    nested = []
    for _level in range(900):
        nested = [nested]
    expect_violations(validate(harness, "get_weather", {"city": "Paris", "extra": nested}), ["extra"],
                      N_("name the undeclared field without quoting all of it."))

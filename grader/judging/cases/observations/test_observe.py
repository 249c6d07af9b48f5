"""Notebook 3: observe turns the problems steps 1 and 2 found into the error text a model can act on, or None.

Each case names a raw call; the grader's trusted steps parse and validate it and hand ``observe`` the call,
the problems (one sentence each) and the registry, as notebook 3 defines it (issue 11): observe is judged alone.
"""

import json

import pytest

from grader.judging.expectations import expect_no_observation, expect_observation, fail
from grader.judging.registries import SEED_TOOLS, TYPED_TOOLS, encode_registry
from grader.judging.rule_ids import rule_id
from grader.judging.scripted_models import make_call
from grader.judging.wordings import NUMBER, OBJECT, STRING
from grader.translations import N_, say

GROUP = N_("observe")
ORDER = 1
CONTENT_RULE = N_("The observation names the offending tool or field, what was expected and what came; it lists the "
                "registered tools for an unknown name and the allowed fields for an extra one.")
BOUND_RULE = N_("Observations are at most 2,000 characters and contain no traceback, even for a 1 MB call.")


def observe(harness, raw, tools=TYPED_TOOLS, times=1, around=True):
    """observe on ``raw`` as notebook 3 defines it (``ExerciseHarness.observe``); ``around``: a call whose form is at
    fault may get a drawn registry (False where the registry is the case)."""
    return harness.observe(raw, tools, times=times, around=around)


@pytest.mark.points(1)
@pytest.mark.gate("rejects")
@pytest.mark.rule(N_("A valid call needs no observation: observe returns None."))
@rule_id("observe.none-for-valid")
@pytest.mark.parametrize("raw", [make_call("get_weather", {"city": "Paris"}), make_call("get_time", None)],
                         ids=["with-arguments", "null-arguments"])
def test_valid_call_gives_none(harness, raw):
    """A valid call gives None.

    Why: None is the signal to dispatch; returning "" or "OK" would make every call look rejected.
    """
    expect_no_observation(observe(harness, raw))


CONTENT = {
    "unknown-tool": (make_call("get_forecast", {}), ["get_forecast", *TYPED_TOOLS], N_("name the unknown tool and list every registered tool.")),
    "extra-field": (make_call("set_alarm", {"hour": 7, "minute": 0, "snooze": 5}), ["snooze", "hour", "minute", "label", "repeat"],
                    N_("name the undeclared field and list the allowed ones.")),
    "wrong-type": (make_call("get_weather", {"city": "Paris", "units": 1}), ["units", STRING, NUMBER],
                   N_("name the field, the expected type and what came.")),
    "missing-field": (make_call("convert_currency", {"amount": 3, "source": "EUR"}), ["target"], N_("name the missing field.")),
    "invalid-json": ('{"name": "get_weather", "arguments": {"city": Paris}}', ["json"], N_("say that the text is not valid JSON.")),
    "not-an-object": ("[1, 2]", [OBJECT], N_("say that a call must be a JSON object.")),
    "string-arguments": (make_call("get_weather", '{"city": "Paris"}'), ["arguments", OBJECT],
                         N_("say that arguments must be an object, not a string.")),
    "three-problems": (make_call("set_alarm", {"hour": True, "snooze": 5, "label": 3}), ["hour", "minute", "snooze", "label"],
                       N_("name every violation at once.")),
}


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(CONTENT_RULE)
@rule_id("observe.content", "observe.every-violation")
@pytest.mark.parametrize("raw, mentions, fix", list(CONTENT.values()), ids=list(CONTENT))
def test_observation_says_what_to_fix(harness, raw, mentions, fix):
    """The observation tells the model what to fix.

    Why: "invalid call" gives a model nothing to act on; naming the field, the expected type and
    the allowed values is what lets the single retry succeed.
    """
    transcript = observe(harness, raw)
    if set(TYPED_TOOLS) <= set(mentions):  # every registered tool: those of the registry handed over (maybe drawn)
        mentions = [mention for mention in mentions if mention not in TYPED_TOOLS] + list(harness.last_observed_tools)
    expect_observation(transcript, mentions, fix)


BOUNDED = {
    "huge-name": make_call("x" * 1_000_000, {"city": "Paris"}),
    "huge-value": make_call("get_weather", {"city": ["Paris"] * 100_000}),
    "huge-field-name": make_call("get_weather", {"city": "Paris", "y" * 500_000: 1}),
    "many-extra-fields": make_call("get_weather", {"city": "Paris", **{f"f{i}": i for i in range(10_000)}}),
    "huge-invalid-json": "{" + "'city': 'Paris', " * 60_000,
    "deep-nesting": "[" * 100_000,
    "many-missing-fields": make_call("wide_form", {}),
    "many-wrong-types": make_call("wide_form", {f"field_{i:03}": i for i in range(300)}),
}
WIDE_TOOLS = {**SEED_TOOLS, "wide_form": {"required": {f"field_{i:03}": str for i in range(300)}, "optional": {}}}


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(BOUND_RULE)
@rule_id("observe.bounded")
@pytest.mark.parametrize("raw", list(BOUNDED.values()), ids=list(BOUNDED))
def test_observation_is_bounded(harness, raw):
    """A huge or deeply nested call, or one with hundreds of violations, gets a short observation.

    Why: the observation goes back into the model's context window; echoing a megabyte burns it,
    and so does one line per violation when there are hundreds (cap the list, then give a count).
    """
    expect_observation(observe(harness, raw, WIDE_TOOLS))


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(N_("The same call always gets the same observation (deterministic order and wording)."))
@rule_id("observe.deterministic")
def test_observation_is_deterministic(harness):
    """Observing the same call twice gives the same text.

    Why: iterating over a set, or quoting ids or timestamps, makes observations differ from run to
    run, which breaks caching and makes transcripts impossible to compare. The call is invalid, so
    both answers must be observations: an observe that always returns None is not deterministic, it
    is a stub.
    """
    transcript = observe(harness, make_call("set_alarm", {"b": 1, "a": 2, "hour": "x"}), times=2)
    expect_observation(transcript)  # the call is invalid: "the same None twice" is no observation (an adversarial test)
    texts = [value for kind, value in transcript.returns if kind == "returned"]
    if len(texts) != 2 or texts[0] != texts[1]:
        fail(say("observe gave two different texts for the same call; keep the order of problems fixed."))


# -- issue 10: the model's own text is never a traceback; listings fit the budget, not a fixed count ---------------

OUTSIDE_RULE = N_("Text the runtime did not write (the model's names and values) appears in the observation only as a "
                "short line a model can act on, never as a Python traceback.")
TRACEBACK = 'Traceback (most recent call last):\n  File "/srv/agent/tools.py", line 88, in run\nKeyError: \'city\''
TRACEBACK_TEXT = {
    "tool-name": make_call(TRACEBACK, {"city": "Lima"}),
    "wrong-typed-value": make_call("set_alarm", {"hour": TRACEBACK, "minute": 0}),
    "undeclared-field-name": make_call("get_weather", {"city": "Lima", 'File "/srv/agent/tools.py", line 88': 1}),
}


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(OUTSIDE_RULE)
@rule_id("observe.no-traceback")
@pytest.mark.parametrize("raw", list(TRACEBACK_TEXT.values()), ids=list(TRACEBACK_TEXT))
def test_model_text_that_looks_like_a_traceback(harness, raw):
    """A name or value that holds a traceback is described or cut, not quoted whole.

    Why: models echo the errors they saw; quoting that text back puts a traceback into the observation,
    the very thing the kit's rule forbids (issue 10, kind 2).
    """
    expect_observation(observe(harness, raw))


LISTING_RULE = N_("The observation names every registered tool and every violation while the text fits 2,000 "
                "characters; only when it cannot does it keep the most useful first (the closest names) and say how "
                "many were left out.")
MANY_TOOLS = {f"tool_{i:02}": {"required": {}, "optional": {}} for i in range(20)}
MANY_TOOLS.update({name: {"required": {}, "optional": {}} for name in ["list_sensors", "list_sites", "ping", "reboot", "rename"]})
LONG_NAMES = {f"export_quarterly_report_{region}": {"required": {}, "optional": {}}
              for region in ["north", "south", "east", "west", "central", "overseas", "online", "retail", "wholesale",
                             "partners", "government", "education", "health", "energy", "transport", "media", "legal",
                             "finance", "research", "facilities", "security", "marketing", "support", "logistics",
                             "procurement", "design", "quality", "compliance", "training", "archive"]}


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(LISTING_RULE)
@rule_id("observe.listing")
@pytest.mark.parametrize("raw, tools", [(make_call("lookup_sensor", {}), MANY_TOOLS),
                                        (make_call("export_report", {"region": "north"}), LONG_NAMES)],
                         ids=["25-tools", "30-long-names"])
def test_every_registered_tool_is_listed_when_they_fit(harness, raw, tools):
    """An unknown name gets the whole list of registered tools when it fits the budget.

    Why: listing the first 20 and "5 more" hid list_sensors, the tool the model meant (issue 10, kind 3).
    In a hidden run the registry is drawn from its kind (``listing_drawn``).
    """
    tools = listing_drawn(harness, tools)
    expect_observation(observe(harness, raw, tools, around=False), list(tools),
                       N_("list every registered tool: they fit in 2,000 characters."))


def _fresh_words(draw, count):
    """``count`` distinct pool words that the draw leaves as they are (list of str; ``Draw.fresh_name``)."""
    words = []
    for _ in range(count):
        words.append(draw.fresh_name(words))
    return words


def listing_drawn(harness, tools):
    """``tools`` (a registry of many tools that fit the budget) as a hidden run hands it over: the numbered tools
    renumbered (distinct numbers of two digits, drawn), up to three of the others left out (never below 24 tools in
    all, never list_sensors, the tool the unknown name nearly names), each long name's tail drawn (its first two words
    and one or two pool words) and the order drawn; as it is in a visible run. The registry is the case, so it keeps its kind (many short names, or
    many long ones, all of which fit); as written, a table keyed by skeletons without word lengths knew it (issue 24)."""
    draw = harness.draw
    if draw is None:
        return tools
    import re

    names = list(tools)
    numbers = iter(draw.random.sample(range(100), len(names)))
    names = [re.sub(r"_\d\d$", lambda _: f"_{next(numbers):02}", name) for name in names]
    # The tool the unknown name nearly names (list_sensors for lookup_sensor) is the case's point: never left out.
    droppable = [name for name in names if not re.search(r"_\d\d$", name) and name != "list_sensors"]
    for name in draw.random.sample(droppable, min(len(names) - 24, draw.random.randrange(4), len(droppable))):
        names.remove(name)
    # Long names (no number) get drawn tails of one or two pool words: each name's shape is its own on every draw.
    # Pool words the renaming leaves as they are: an image of this draw would come back as the word it stands for.
    words = iter(_fresh_words(draw, 2 * len(names)))
    names = [name if re.search(r"_\d\d$", name) or name.count("_") < 3 else
             "_".join(name.split("_")[:2] + [next(words) for _ in range(1 + draw.random.randrange(2))]) for name in names]
    draw.random.shuffle(names)
    return {name: {"required": {}, "optional": {}} for name in names}


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(LISTING_RULE)
@rule_id("observe.listing")
def test_closest_tool_comes_first_when_the_list_cannot_fit(harness):
    """With 2,000 registered tools, the one closest to the unknown name is still named.

    Why: when not everything fits, the listing must keep what the model most likely meant
    (difflib.get_close_matches), not whatever happens to come first.
    """
    tools = {f"tool_{i:04}": {"required": {}, "optional": {}} for i in range(2000)}
    tools["lookup_sensor"] = {"required": {}, "optional": {}}
    expect_observation(observe(harness, make_call("lookup_sensr", {}), tools, around=False), ["lookup_sensor"],
                       N_("when the list cannot fit, name the closest matches first (difflib.get_close_matches)."))


WIDE = {"render_chart": {"required": {f"w{i:02}_px": int for i in range(12)}, "optional": {}},
        "set_flags": {"required": {f"flag_{name}": bool for name in ["alpha", "beta", "gamma", "delta", "omega", "sigma",
                                                                        "kappa", "theta", "lambda", "zeta", "iota", "rho",
                                                                        "tau", "phi"]}, "optional": {}}}


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(LISTING_RULE)
@rule_id("observe.listing")
@pytest.mark.parametrize("name, wrong", [("render_chart", "800"), ("set_flags", "yes")], ids=["12-ints-as-strings", "14-bools-as-words"])
def test_every_wrong_field_is_named_when_they_fit(harness, name, wrong):
    """Twelve or fourteen wrong fields are all named: the text fits, so nothing may be left for later.

    Why: naming 10 and "2 more" makes a model that fixes exactly what it is told fail its only retry
    (issue 10, kind 3).
    """
    fields = list(WIDE[name]["required"])
    expect_observation(observe(harness, make_call(name, {field: wrong for field in fields}), WIDE), fields,
                       N_("name every field with a wrong type: they fit in 2,000 characters."))


# -- what observe adds to the problems it is handed (an attacker's "\n".join(problems)[:2000] scored 30/30) --------
# These cases hand observe problem lists a learner's own steps 1 and 2 could write (terse, or carrying a traceback,
# or very many), not the reference's finished sentences: the text observe writes is judged, not the grader's.

def handed(harness, call, problems):
    """What observe returns for ``call`` (dict), the ``problems`` a learner's own steps wrote (list of str) and the typed
    registry: in a hidden case the call and its registry made again from the call's kind
    (``ExerciseHarness.drawn_call``: names, more fields and other tools drawn, the drawn names read back as the case's
    words), so that the three have a new shape on every draw. With valid fields drawn around the call alone, a table
    keyed by skeletons without word lengths took them away again and knew these cases (issue 24)."""
    raw, tools = harness.drawn_call(json.dumps(call), TYPED_TOOLS)
    return harness.call(json.loads(raw), problems, encode_registry(tools))


TERSE_RULE = N_("When the call names a registered tool, the observation gives the way out from the registry: the "
              "arguments that tool takes, whatever the problem sentences already say.")


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(TERSE_RULE)
@rule_id("observe.content")
@pytest.mark.parametrize("call, problems, mentions", [
    ({"name": "set_alarm", "arguments": {"hour": 7, "snooze": 5}}, ["snooze: not allowed"],
     ["snooze", "hour", "minute", "label", "repeat"]),
    ({"name": "convert_currency", "arguments": {"amount": 3}}, ["2 required fields missing"],
     ["source", "target", "amount"]),
], ids=["terse-extra-field", "terse-missing-fields"])
def test_the_registry_gives_the_way_out_for_terse_problems(harness, call, problems, mentions):
    """A terse problem list still yields an observation that names the arguments the tool takes.

    Why: notebook 3 asks observe to end with the arguments the named tool takes (from tools); a learner's own
    validate_call may write "snooze: not allowed" and nothing more, and the model then needs the allowed fields
    to fix the call in its single retry. Joining the problems adds nothing (an adversarial test).
    """
    expect_observation(handed(harness, call, problems), mentions,
                       N_("add the arguments the named tool takes, from tools, to the problems you were handed."))


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(OUTSIDE_RULE)
@rule_id("observe.no-traceback")
@pytest.mark.parametrize("problems", [
    [f"unknown tool {TRACEBACK!r}"],
    ["argument 'city' is missing", f"the model's text was:\n{TRACEBACK}"],
], ids=["quoted-in-one-problem", "a-problem-on-several-lines"])
def test_a_problem_holding_a_traceback_is_described(harness, problems):
    """A problem sentence that carries a traceback is described or cut, not copied into the observation.

    Why: the problems come from the learner's own steps, which may quote what the model sent; observe is the
    last place the runtime can keep a traceback out of the model's context (issue 10, kind 2).
    """
    call = {"name": TRACEBACK if "unknown tool" in problems[0] else "get_weather", "arguments": {}}
    expect_observation(handed(harness, call, problems))


LEFT_OUT_RULE = N_("When the problems cannot all fit in 2,000 characters, the observation keeps as many as fit and "
                 "says how many were left out.")


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(LEFT_OUT_RULE)
@rule_id("observe.listing")
def test_problems_that_do_not_fit_are_counted(harness):
    """About eighty long problems: the observation fits the budget and says how many problems it did not name.

    Why: a text cut at 2,000 characters mid-sentence hides how much is left; a model told "and 54 more problems"
    knows its retry must fix more than it can see (notebook 3: cut by the budget, then say how many).
    """
    # Undeclared names that no registry listing holds, so a problem counts as named only by its own line. In a hidden
    # run how many there are and how long each is are drawn (70 to 90, all past the budget together).
    draw = harness.draw
    count, pad = (80, 60) if draw is None else (70 + draw.random.randrange(21), 50 + draw.random.randrange(21))
    problems = [f"argument 'extra_{i:03}' is not declared by get_weather (" + "x" * pad + ")" for i in range(count)]
    call = {"name": "get_weather", "arguments": {"city": "Oslo", **{f"extra_{i:03}": i for i in range(count)}}}
    text = expect_observation(handed(harness, call, problems))
    named = sum(1 for i in range(count) if f"extra_{i:03}" in text)
    left_out = count - named
    if left_out <= 0:
        fail(say("the observation cannot name all {count} problems within 2,000 characters, yet no problem is left "
                 "out.", count=count))
    import re

    numbers = re.findall(r"\d+", text)
    if str(left_out) not in numbers and not (str(count) in numbers and str(named) in numbers):
        fail(say("the observation leaves problems out without saying how many: say how many were left out (for "
                 "example \"and 54 more problems\")."))

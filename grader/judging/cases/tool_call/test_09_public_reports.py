"""Malformed and mishandled calls from public bug reports (issue 10): each kind on inputs of its own.

The literal inputs are in shared/cases/public_reports.md; these are other inputs of the same kinds, so a
submission that recognises the literals gains nothing. Each judged call also gets valid optional fields drawn around
its fault (``vary=True``, ``grader.judging.draw.Draw.varied_call``); the twins and the models' replies stay as written,
but where a model fixes what it is told, the twin gets the judged call's drawn fields too (``harness.varied``).
"""

import json

import pytest

from grader.judging.expectations import (
    expect_dispatched,
    expect_mentions,
    expect_one_retry,
    expect_rejected,
    expect_rejected_after_one_retry,
    expect_says_what_is_wrong,
    fail,
    finished,
)
from grader.judging.rule_ids import rule_id
from grader.judging.scripted_models import Answers, Fails, FixesWhatIsNamed, make_call
from grader.judging.wordings import COMMA, RETRY_FAILED
from grader.translations import N_, say

GROUP = N_("Malformed calls from public bug reports")
ORDER = 9

# Refusing is only worth points when valid input is accepted (see grader/judging/canaries.py).
pytestmark = pytest.mark.gate("accepts")

BUDGET_TOOLS = {"set_budget": {"required": {"amount": float}, "optional": {"caps": list, "policy": dict}}}
FINITE_RULE = N_("A number a double cannot hold (1e400) is rejected wherever it is, and the observation names its field.")


@pytest.mark.points(1)
@pytest.mark.rule(FINITE_RULE)
@rule_id("parse.finite", "observe.content")
@pytest.mark.parametrize("arguments, field, twin", [
    ('{"amount": -4.2e700, "caps": [100]}', "amount", '{"amount": 12.5, "caps": [7e888]}'),
    ('{"amount": 12.5, "caps": [100, 2E+999]}', "caps", '{"amount": 9.9e999, "caps": [100, 200]}'),
    ('{"amount": 12.5, "policy": {"ceiling": 1e309}}', "ceiling", '{"amount": -1e400, "policy": {"ceiling": 100}}'),
], ids=["negative-overflow", "in-a-list", "in-a-nested-object"])
def test_number_out_of_double_range(harness, arguments, field, twin):
    """A call holding 1e400-style numbers is rejected and the field is named; its fix is dispatched.

    Why: json.loads turns such a number into inf without complaint; a runtime that dispatches it hands
    the tool a value the model never meant (issue 10, kind 1). The field must be named more often than in
    the observation for a twin call whose out-of-range number lies in another field.
    """
    fixed = {"amount": 12.5}
    transcript = harness.run('{"name": "set_budget", "arguments": ' + arguments + "}",
                             model=Answers(make_call("set_budget", fixed)), tools=BUDGET_TOOLS, vary=True)
    expect_one_retry(transcript)
    twin_text = harness.twin_observation('{"name": "set_budget", "arguments": ' + twin + "}", tools=BUDGET_TOOLS)
    expect_says_what_is_wrong(transcript.observations[0], twin_text, [field], say("The observation"),
                              say("Name the field whose number is not finite ({field}).", field=field))
    expect_dispatched(transcript, "set_budget", fixed)


@pytest.mark.points(1)
@pytest.mark.rule(N_("NaN, Infinity and -Infinity, which json.loads accepts although JSON has no such numbers, are "
                     "rejected wherever they are, never dispatched."))
@rule_id("parse.json-only")
@pytest.mark.parametrize("arguments", [
    '{"amount": NaN}',
    '{"amount": 12.5, "caps": [-Infinity, 100]}',
    '{"amount": 12.5, "policy": {"ceiling": Infinity}}',
], ids=["nan", "minus-infinity-in-a-list", "infinity-nested"])
def test_numbers_json_does_not_have(harness, arguments):
    """A call holding NaN, Infinity or -Infinity is rejected, and its fix is dispatched.

    Why: json.loads accepts them although RFC 8259 has no such numbers; only parse-call tested them, so a
    capstone that dispatched NaN and -Infinity scored full marks (issue 25). A tool handed NaN computes
    nonsense without a word (every comparison with it is False).
    """
    fixed = {"amount": 12.5}
    transcript = harness.run('{"name": "set_budget", "arguments": ' + arguments + "}",
                             model=Answers(make_call("set_budget", fixed)), tools=BUDGET_TOOLS, vary=True)
    expect_one_retry(transcript)
    expect_dispatched(transcript, "set_budget", fixed)


@pytest.mark.points(1)
@pytest.mark.rule(N_("An error from ask_model is reduced to a line a model can act on: the rejection never carries a traceback."))
@rule_id("retry.model-fails", "retry.no-traceback")
@pytest.mark.parametrize("error, message", [
    ("RuntimeError", "proxy error: 'choices'\nTraceback (most recent call last):\n  File \"/opt/proxy/app.py\", line 412, "
                     "in relay\nKeyError: 'choices'"),
    ("ConnectionError", "Traceback (most recent call last):\n  File \"/usr/lib/http.py\", line 9, in send\nOSError: reset"),
    ("TimeoutError", 'read timed out in File "/srv/llm/client.py", line 77'),
], ids=["traceback-after-a-first-line", "only-a-traceback", "one-line-frame"])
def test_model_client_error_with_a_traceback(harness, error, message):
    """When ask_model fails with a message holding a traceback, the rejection says the retry failed, briefly.

    Why: gateways put whole tracebacks into their error messages; copying str(exc) into the rejection broke
    the kit's "no traceback" rule (issue 10, kind 2).
    """
    transcript = harness.run(make_call("get_weather", {"city": 75001}), model=Fails(error, message), vary=True)
    expect_rejected_after_one_retry(transcript)
    expect_mentions(transcript.result["error"], [RETRY_FAILED], say("The rejection's error"),
                    say("say that asking the model again failed (the exception's type, its first line at most)."))


SENSOR_TOOLS = {f"job_{i:02}": {"required": {}, "optional": {}} for i in range(22)}
SENSOR_TOOLS.update({name: {"required": {}, "optional": {}} for name in ["get_sensor_reading", "get_site", "restart", "status"]})
LISTING_RULE = N_("The observation names every registered tool and every violation while the text fits 2,000 characters; "
                "a fixed count (the first 20, the first 10) hides what the model needs.")


@pytest.mark.points(1)
@pytest.mark.rule(LISTING_RULE)
@rule_id("observe.listing")
def test_all_26_tools_are_listed(harness):
    """An unknown name among 26 registered tools gets all 26 named, and the right name is then dispatched.

    Why: listing 20 and "6 more" hid get_sensor_reading, the tool the model meant (issue 10, kind 3).
    """
    transcript = harness.run(make_call("read_sensor", {}), model=Answers(make_call("get_sensor_reading", {})),
                             tools=SENSOR_TOOLS, vary=True)
    expect_one_retry(transcript)
    expect_mentions(transcript.observations[0], list(SENSOR_TOOLS), say("The observation"),
                    say("list every registered tool: 26 names fit in 2,000 characters."))
    expect_dispatched(transcript, "get_sensor_reading", {})


WIDE_TOOLS = {"plot_series": {"required": {f"series_{name}": float for name in
                                           ["red", "green", "blue", "cyan", "magenta", "yellow", "black", "white", "grey",
                                            "orange", "purple", "brown", "olive"]}, "optional": {}}}


@pytest.mark.points(2)
@pytest.mark.rule(LISTING_RULE)
@rule_id("observe.listing", "schema.every-violation")
def test_thirteen_wrong_fields_are_fixed_in_one_retry(harness):
    """Thirteen numbers sent as strings are all named, so a model that fixes exactly those is dispatched.

    Why: naming 10 and "3 more" wastes the single retry of a model that fixes what it is told (issue 10, kind 3).
    The model fixes a field only when the observation names it more often than a twin call's does.
    """
    fields = list(WIDE_TOOLS["plot_series"]["required"])
    # Valid fields drawn among the thirteen (issue 24), the same in the twin's call and the judged one.
    broken, tools = harness.varied("plot_series", {field: "0.5" for field in fields}, WIDE_TOOLS)
    # The twin sends the same arguments to a tool that does not exist, a near miss drawn as one of the drawn name (two
    # letters swapped: as long, so that an observation quoting the call quotes as much of both; "plot_errors" was as
    # long as written, not once an image's length was drawn): an observation that names all fields alike (a dump of
    # what was sent) fixes nothing (see test_05_observations).
    baseline = harness.twin_observation(make_call("plot_sereis", broken), tools=tools)
    model = FixesWhatIsNamed("plot_series", broken, [(field, field, 0.5) for field in fields], baseline=baseline)
    transcript = harness.run(make_call("plot_series", broken), model=model, tools=tools)
    expect_one_retry(transcript)
    finished(transcript)
    if not transcript.dispatches:
        fail(say("The model fixed exactly the fields the observation named and the retry still failed: the "
                 "observation left some of the 13 wrong fields out. Name every violation while the text fits 2,000 "
                 "characters."))
    expect_dispatched(transcript, "plot_series", {key: 0.5 if key in fields else value for key, value in broken.items()})


@pytest.mark.points(1)
@pytest.mark.rule(N_("The hint for a stray comma names the comma: it is decided from the text, not CPython's message."))
@rule_id("parse.comma-hint")
@pytest.mark.parametrize("raw", [
    '{"name": "get_weather", "arguments": {"city": "Lima", "units": "metric",}}',
    '{"name": "get_weather", "arguments": {"city": "Lima"},\n}',
], ids=["inside-the-arguments", "after-the-arguments"])
def test_trailing_comma_hint(harness, raw):
    """A trailing comma gets an observation that names the comma, and the fix is dispatched.

    Why: on Python 3.10-3.12 json says "Expecting property name enclosed in double quotes" here, and a hint
    read from that wording told the model to fix its quotes (issue 10, kind 4).
    """
    transcript = harness.run(raw, model=Answers(make_call("get_weather", {"city": "Lima"})), vary=True)
    expect_one_retry(transcript)
    expect_mentions(transcript.observations[0], [COMMA], say("The observation"), say("name the stray comma."))
    expect_dispatched(transcript, "get_weather", {"city": "Lima"})


@pytest.mark.points(1)
@pytest.mark.rule(N_("Arguments sent as a string that is not one JSON object are rejected with an observation about arguments."))
@rule_id("schema.arguments-object")
@pytest.mark.parametrize("arguments", ['{"city": "Lima"}{"city": "Lima"}', '{"city": "Lima", "city": "Cusco"}'],
                         ids=["two-objects-back-to-back", "repeated-key"])
def test_arguments_string_that_is_not_one_object(harness, arguments):
    """The raw call an OpenAI adapter makes from a broken arguments string is rejected, naming arguments.

    Why: on OpenAI's wire arguments is a string; when it does not hold one JSON object the call must not
    run, and the model must hear that the problem is in arguments (issue 10, kind 5).
    """
    transcript = harness.run(json.dumps({"name": "get_weather", "arguments": arguments}), vary=True)
    expect_rejected(transcript)
    expect_one_retry(transcript)
    # A twin whose arguments are an object with a wrong field: "arguments" must be named more often here.
    twin_text = harness.twin_observation(make_call("get_weather", {"city": 5}))
    expect_says_what_is_wrong(transcript.observations[0], twin_text, ["arguments"], say("The observation"),
                              say("Say that the problem is in the arguments string."))

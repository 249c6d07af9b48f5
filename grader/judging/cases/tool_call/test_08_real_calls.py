"""Malformed calls adapted from public bug reports (shared/real_calls; names rewritten to neutral ones).

Each call gets valid optional fields drawn into its arguments (``vary=True``, ``grader.judging.draw.Draw.varied_call``;
into the string, where a call sends its arguments as a string): its shape is new on every grading, its fault as
reported.
"""

import json

import pytest

from grader.judging.canaries import city
from grader.judging.expectations import (
    expect_dispatched,
    expect_mentions,
    expect_one_retry,
    expect_says_what_is_wrong,
)
from grader.judging.registries import REAL_CALL_TOOLS
from grader.judging.rule_ids import rule_id
from grader.judging.scripted_models import Answers, make_call
from grader.judging.wordings import OBJECT, OBJECT_OR_LIST
from grader.paths import REAL_CALLS_PATH
from grader.translations import N_, say

GROUP = N_("Real malformed calls")
ORDER = 8

with open(REAL_CALLS_PATH, encoding="utf-8") as _handle:
    REAL_CALLS = json.load(_handle)

# What the observation must mention for each category, so the model can act on it.
MUST_MENTION = {
    "hallucinated tool name": (["get_weather", "read_file", "web_search"], N_("list the registered tools.")),
    "junk-prefixed name + trailing whitespace": (["get_weather", "read_file"], N_("list the registered tools.")),
    "arguments double-encoded as string": ([("json",)], N_("say that the text is not valid JSON.")),
    "arguments not an object": (["arguments"], N_("say that arguments must be an object.")),
    "missing required field": (["search_depth"], N_("name the missing required field.")),
    "null arguments": (["city"], N_("treat null arguments as {} and name the missing required field.")),
    "Python literal (single quotes)": (["arguments"], N_("say that arguments must be an object.")),
    "markdown fence + args as string": ([("json",)], N_("say that the text is not valid JSON.")),
    "arguments flattened to top level": (["args.city", "args"], N_("name the undeclared fields and the missing one.")),
    "malformed JSON": (["arguments"], N_("say that arguments must be an object.")),
    "parallel calls as a list": ([OBJECT], N_("say that a call must be a JSON object.")),
}


# Judging by difference (see test_05_observations): for each category whose problem a twin call can move,
# the twin (rejected for another reason) and what the real call's observation must name more often than
# the twin's: (twin raw call, words, words for something the real call lacks and the twin has, whole words?).
NOT_JSON = (make_call("get_weather", {}), ["json"], (), False)
NOT_AN_OBJECT = (make_call("get_forecast", {"city": "Paris"}), ["arguments"], (), False)
TWINS = {
    "arguments double-encoded as string": NOT_JSON,
    "markdown fence + args as string": NOT_JSON,
    "arguments not an object": NOT_AN_OBJECT,
    "Python literal (single quotes)": NOT_AN_OBJECT,
    "malformed JSON": NOT_AN_OBJECT,
    "missing required field": (make_call("web_search", {"query": "weather in Paris", "search_depth": "basic"}),
                               ["search_depth"], ["search_depth"], True),
    "null arguments": (make_call("get_weather", {"city": "Paris", "units": 5}), ["city"], ["city"], True),
    "arguments flattened to top level": (make_call("call_tool", {"tool": "get_weather", "args": {"city": "Paris"},
                                                                 "args.city": "Paris"}), ["args"], ["args"], True),
    "parallel calls as a list": (make_call("get_forecast", {"city": "Paris"}), [OBJECT_OR_LIST], (),
                                 False),
}


# The rule of the course each category breaks (grader.judging.rule_ids), besides the observation and the retry.
REAL_CALL_RULES = {
    "hallucinated tool name": ("name.registered",),
    "junk-prefixed name + trailing whitespace": ("name.exact",),
    "arguments double-encoded as string": ("parse.no-repair",),
    "arguments not an object": ("schema.arguments-object",),
    "missing required field": ("schema.required",),
    "null arguments": ("parse.arguments-default", "schema.required"),
    "Python literal (single quotes)": ("schema.arguments-object",),
    "markdown fence + args as string": ("parse.no-repair",),
    "arguments flattened to top level": ("schema.undeclared", "schema.required"),
    "malformed JSON": ("schema.arguments-object",),
    "parallel calls as a list": ("parse.object",),
}


def _slug(entry):
    return entry["category"].split(" (")[0].replace(" + ", "-and-").replace(" ", "-")


@pytest.mark.points(1)
@pytest.mark.rule(N_("A malformed call is never dispatched: it is rejected with an observation that names its problem, "
                     "and the corrected retry is dispatched."))
@rule_id("observe.content", "retry.checked-from-the-start")
@pytest.mark.parametrize("entry", [pytest.param(e, id=_slug(e), marks=rule_id(*REAL_CALL_RULES[e["category"]]))
                                   for e in REAL_CALLS])
def test_real_malformed_call(harness, entry):
    """A malformed call seen in the wild is caught and the model's fix is dispatched.

    Why: each entry is adapted from a shape a model emitted in a public bug report (it keeps its
    source_url; see docs/sources.md); a runtime must reject every one, tell the model why, and accept
    the fix.
    Where the problem can be moved, the observation must also name it more often than the one for a
    twin call rejected for another reason: text that is the same whatever is wrong does not say why.
    """
    arguments = {"city": city()}  # unpredictable, so no submission can recognise the fix
    transcript = harness.run(entry["raw"], model=Answers(make_call("get_weather", arguments)), tools=REAL_CALL_TOOLS,
                             vary=True)
    expect_one_retry(transcript)
    words, fix = MUST_MENTION[entry["category"]]
    expect_mentions(transcript.observations[0], words, say("The observation"), fix)
    expect_dispatched(transcript, "get_weather", arguments)
    if entry["category"] in TWINS:
        twin_raw, named, absent, whole = TWINS[entry["category"]]
        twin = harness.twin_observation(twin_raw, tools=REAL_CALL_TOOLS)
        expect_says_what_is_wrong(transcript.observations[0], twin,
                                  named, say("The observation"), fix, absent=absent, whole=whole)

"""Tool names: only a registered name, exactly as registered, is accepted.

Each case that expects a refusal asks for valid optional fields drawn into its call (``vary=True``,
``grader.judging.draw.Draw.varied_call``), declared on every registered tool when the name is none of them: a
submission that repairs the name to a registered one meets a valid call, so it is still caught. The removed-tool
case draws its registry only (every hidden run does, ``vary=False``).
"""

import pytest

from grader.judging.canaries import city
from grader.judging.expectations import (
    expect_dispatched,
    expect_no_retry,
    expect_rejected_after_one_retry,
)
from grader.judging.registries import TYPED_TOOLS
from grader.judging.rule_ids import rule_id
from grader.judging.scripted_models import make_call
from grader.translations import N_

GROUP = N_("Tool names")
ORDER = 2

# Refusing is only worth points when valid input is accepted (see grader/judging/canaries.py).
pytestmark = pytest.mark.gate("accepts")

NAME_RULE = N_("The tool name must be a string naming a registered tool, exactly; anything else is rejected before anything runs.")


@pytest.mark.points(1)
@pytest.mark.rule(NAME_RULE)
@rule_id("name.registered")
def test_unknown_tool(harness):
    """A misspelled tool name is rejected.

    Why: models call tools that do not exist (vercel/ai #2786: gpt-4o calling multi_tool_use.parallel)
    or misspell registered ones; a near miss is not a match.
    """
    expect_rejected_after_one_retry(harness.run(make_call("get_wether", {"city": "Paris"}), vary=True))


@pytest.mark.points(1)
@pytest.mark.rule(NAME_RULE)
@rule_id("name.registered")
def test_empty_name(harness):
    """An empty tool name is rejected.

    Why: some OpenAI-compatible servers stream a call whose first name is "" (vercel/ai #16507);
    "" must not match anything.
    """
    expect_rejected_after_one_retry(harness.run(make_call("", {"city": "Paris"}), vary=True))


@pytest.mark.points(1)
@pytest.mark.rule(NAME_RULE)
@rule_id("name.string")
def test_missing_name(harness):
    """A call without a name key is rejected.

    Why: a call that only carries arguments (or uses another key such as "function") has no tool;
    call["name"] raises KeyError in a naive runtime.
    """
    expect_rejected_after_one_retry(harness.run('{"arguments": {"city": "Paris"}}', vary=True))


NON_STRING_NAMES = {"integer": 42, "array": ["get_weather"], "object": {"name": "get_weather"}, "null": None, "boolean": True}


@pytest.mark.points(1)
@pytest.mark.rule(NAME_RULE)
@rule_id("name.string")
@pytest.mark.parametrize("name", list(NON_STRING_NAMES.values()), ids=list(NON_STRING_NAMES))
def test_name_that_is_not_a_string(harness, name):
    """A tool name that is not a string is rejected.

    Why: the seed's sample solution does TOOLS.get(name), which raises TypeError for an unhashable
    name (a list or an object) and so crashes the runtime instead of answering the model.
    """
    expect_rejected_after_one_retry(harness.run(make_call(name, {"city": "Paris"}), vary=True))


@pytest.mark.points(1)
@pytest.mark.rule(NAME_RULE, N_("No case-folding or trimming: that would be a repair."))
@rule_id("name.exact")
@pytest.mark.parametrize("name", ["Get_Weather", " get_weather", "get_weather\n", "functions.get_weather"],
                         ids=["other-case", "leading-space", "trailing-newline", "namespaced"])
def test_name_that_is_almost_right(harness, name):
    """A name that differs from a registered one only in case, spacing or a prefix is rejected.

    Why: normalising names (lower(), strip(), dropping "functions.") dispatches a tool the model did
    not exactly name; the model must be told instead (jekalmin/extended_openai_conversation #72).
    """
    expect_rejected_after_one_retry(harness.run(make_call(name, {"city": "Paris"}), vary=True))


@pytest.mark.points(2)
@pytest.mark.gate("rejects")
@pytest.mark.rule(N_("TOOLS is read when a call arrives: the grader installs its own registry before each case."))
@rule_id("name.registry-given", "seed.tools-at-call-time")
def test_registry_is_read_at_call_time(harness):
    """A tool that is only in the grader's installed registry is dispatched.

    Why: the contract lets the grader replace TOOLS as a module global; a solution that captured
    TOOLS as a default argument, or hard-coded its own registry, never sees the new tool.
    """
    transcript = harness.run(make_call("set_alarm", {"hour": 7, "minute": 30}), tools=TYPED_TOOLS, vary="dispatch")
    expect_no_retry(transcript)
    expect_dispatched(transcript, "set_alarm", {"hour": 7, "minute": 30})


@pytest.mark.points(1)
@pytest.mark.rule(N_("TOOLS is read when a call arrives: a tool missing from the installed registry is unknown."))
@rule_id("name.registry-given", "seed.tools-at-call-time")
def test_tool_removed_from_registry(harness):
    """A seed tool that is not in the grader's installed registry is rejected.

    Why: the other half of reading TOOLS at call time: with a registry that has no get_weather,
    get_weather is unknown, whatever the submission's own TOOLS says.
    """
    tools = {"get_time": TYPED_TOOLS["get_time"]}
    # The call as written but for a drawn city: fields drawn into it would be undeclared in the submission's stale
    # get_weather, and refusing them would pass this case for the wrong reason (the faulty library's
    # tools_default_argument did). The registry gets drawn fields instead.
    expect_rejected_after_one_retry(harness.run(make_call("get_weather", {"city": city()}), tools=tools))

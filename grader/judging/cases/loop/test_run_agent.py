"""Notebook 8: the agent loop. Budgets that hold across turns: a tool's failures in a row, no progress, a cap on
turns, and transient model errors retried with backoff under a budget of their own; every stop with a reason."""

import json
import secrets

import pytest

from grader.judging.expectations import expect_loop
from grader.judging.registries import TYPED_TOOLS
from grader.judging.rule_ids import rule_id
from grader.translations import N_

GROUP = N_("The agent loop")
ORDER = 1


def raw(name, **arguments):
    """A well-formed raw call's text."""
    return json.dumps({"name": name, "arguments": arguments})


def reply(*calls, content=None):
    """A model's reply: ``calls`` as ``(id, raw)`` pairs."""
    return {"role": "assistant", "content": content, "calls": [{"id": i, "raw": r} for i, r in calls]}


def answer(text):
    """A model's reply without calls: its answer."""
    return {"role": "assistant", "content": text, "calls": []}


def error(kind, message="the request timed out"):
    """A step where the model raises ``kind`` (``TimeoutError``, ``ConnectionError``, ``RuntimeError``)."""
    return {"raise": kind, "message": message}


def failing(*names, kind=TimeoutError):
    """A dispatcher whose tools in ``names`` raise ``kind``; the others return a fresh receipt."""
    def dispatch(name, arguments):
        if name in names:
            raise kind("the tool did not answer within 30 s")
        return {"status": "ok", "tool": name, "receipt": secrets.token_hex(4)}
    return dispatch


def receipts(name, arguments):
    """A dispatcher that answers every call with a fresh receipt."""
    return {"status": "ok", "tool": name, "receipt": secrets.token_hex(4)}


WEATHER = raw("get_weather", city="Paris")
ALARM = raw("set_alarm", hour=7, minute=30)
BAD_ALARM = raw("set_alarm", hour="seven", minute=30)
LIMITS = {"max_turns": 10, "tool_failures": 3, "model_retries": 2, "backoff": 0.5}

ANSWER_RULE = N_("The model gets the whole conversation each time: the task, then each reply followed by one tool message "
               "per call, in order; every call is checked, a refused one answered with its observation as an error "
               "and never run, a valid one dispatched; a reply without calls is the answer (stop \"answered\").")
ANSWERED = {
    "at-once": ("What can you do?", [answer("I can check the weather and set alarms.")]),
    "one-call": ("What is the weather in Paris?", [reply(("c1", WEATHER)), answer("It is sunny in Paris.")]),
    "two-calls-one-refused": ("Weather in Paris, and wake me at seven.",
                              [reply(("c1", WEATHER), ("c2", BAD_ALARM)), reply(("c3", ALARM)), answer("Done.")]),
    "text-beside-calls": ("Set my alarm.", [reply(("c1", ALARM), content="Setting it now."), answer("Alarm set.")]),
    "unknown-tool-then-fixed": ("Weather?", [reply(("c1", raw("get_wether", city="Oslo"))),
                                             reply(("c2", raw("get_weather", city="Oslo"))), answer("Rain in Oslo.")]),
}


@rule_id("loop.answered")
@pytest.mark.points(1)
@pytest.mark.rule(ANSWER_RULE)
@pytest.mark.parametrize("task, steps", list(ANSWERED.values()), ids=list(ANSWERED))
def test_a_run_ends_with_the_answer(harness, task, steps):
    """A run the model finishes: its answer comes back with every call answered on the way.

    Why: the plain path has to work before any budget matters; a loop that forgets a tool message or hands the model
    only the last observation breaks every real conversation (the provider refuses an unanswered call id).
    """
    expect_loop(harness.loop(task, steps, tools=TYPED_TOOLS, limits=LIMITS), TYPED_TOOLS)


NO_PROGRESS_RULE = N_("A call sent again exactly as one refused in an earlier turn is no progress: answer that turn, then "
                    "stop with \"no_progress\" and the tool's name.")
NO_PROGRESS = {
    "same-bad-call-next-turn": ("Wake me at seven.", [reply(("c1", BAD_ALARM)), reply(("c2", BAD_ALARM))]),
    "same-bad-call-after-a-good-turn": ("Weather, then an alarm.", [reply(("c1", BAD_ALARM)), reply(("c2", WEATHER)),
                                                                   reply(("c3", BAD_ALARM))]),
    "unreadable-call-repeated": ("Weather?", [reply(("c1", '{"name": "get_weather", "arguments": {"city": "Rome"')),
                                              reply(("c2", '{"name": "get_weather", "arguments": {"city": "Rome"'))]),
    "beside-a-valid-call": ("Both, please.", [reply(("c1", BAD_ALARM), ("c2", WEATHER)),
                                              reply(("c3", WEATHER), ("c4", BAD_ALARM))]),
    # The same refused call twice in one reply is no repeat of an earlier turn: two failures, and the run goes on.
    "twice-in-one-turn-is-not-a-repeat": ("Two alarms at seven.", [reply(("c1", BAD_ALARM), ("c2", BAD_ALARM)),
                                                                  reply(("c3", ALARM)), answer("Set.")]),
}


@rule_id("loop.no-progress")
@pytest.mark.points(1)
@pytest.mark.rule(NO_PROGRESS_RULE)
@pytest.mark.parametrize("task, steps", list(NO_PROGRESS.values()), ids=list(NO_PROGRESS))
def test_the_same_refused_call_again_stops_the_run(harness, task, steps):
    """The model repeats a refused call unchanged: the run stops after that turn, naming the tool.

    Why: a model that sends the very call it was told is wrong will be told the same again; every further turn only
    burns budget (NousResearch/hermes-agent #67829: one call repeated 85 times until max_turns).
    """
    expect_loop(harness.loop(task, steps, tools=TYPED_TOOLS, limits=LIMITS), TYPED_TOOLS)


FAILURES_RULE = N_("A tool's failures in a row (refused, or the tool raised) are counted across turns, in the order the "
                 "calls were sent; a success of that tool starts its count again; at tool_failures the run stops after "
                 "that turn with \"tool_failures\" and the tool's name.")
FAILURES = {
    "three-different-mistakes": ("Wake me at seven.", [reply(("c1", raw("set_alarm", hour="7", minute=30))),
                                                       reply(("c2", raw("set_alarm", hour=7))),
                                                       reply(("c3", raw("set_alarm", hour=7, minute="30")))], None),
    "counted-per-tool": ("Alarm and weather.", [reply(("c1", raw("set_alarm", hour="7", minute=0))),
                                                reply(("c2", raw("get_weather", town="Paris"))),
                                                reply(("c3", raw("set_alarm", hour=7))),
                                                reply(("c4", raw("get_weather"))),
                                                reply(("c5", raw("set_alarm", minute=0)))], None),
    "a-success-starts-again": ("Alarm.", [reply(("c1", raw("set_alarm", hour="7", minute=0))),
                                          reply(("c2", raw("set_alarm", hour=7))),
                                          reply(("c3", ALARM)),
                                          reply(("c4", raw("set_alarm", minute=0))),
                                          reply(("c5", raw("set_alarm", hour=7, minute="0"))),
                                          answer("Your alarm is set.")], None),
    "a-tool-that-keeps-timing-out": ("Weather.", [reply(("c1", WEATHER)), reply(("c2", WEATHER)), reply(("c3", WEATHER))],
                                     "get_weather"),
    "two-in-one-turn": ("Two alarms.", [reply(("c1", raw("set_alarm", hour="6", minute=0)),
                                              ("c2", raw("set_alarm", hour="7", minute=0))),
                                        reply(("c3", raw("set_alarm", hour=8)))], None),
    "nameless-calls": ("Weather?", [reply(("c1", "get_weather(city='Paris')")), reply(("c2", "```json\n{}\n```")),
                                    reply(("c3", '{"arguments": {"city": "Paris"}}'))], None),
    # A name that is no string counts with the calls that have none: 5 and 6 are not two tools.
    "names-that-are-no-strings": ("Time?", [reply(("c1", '{"name": 5, "arguments": {}}')),
                                            reply(("c2", '{"name": 6, "arguments": {}}')),
                                            reply(("c3", "get_time()"))], None),
    # Two tools reach the limit in the same turn: the first of that turn's calls names the stop.
    "two-tools-at-once": ("Alarm and weather.", [reply(("c1", raw("set_alarm", hour="1", minute=0)), ("c2", raw("get_weather"))),
                                                 reply(("c3", raw("set_alarm", hour="2", minute=0)), ("c4", raw("get_weather", town="Oslo"))),
                                                 reply(("c5", raw("get_weather", city=5)), ("c6", raw("set_alarm", hour="3", minute=0)))],
                          None),
    # Counts are read after the turn: a success later in the same turn starts the tool's count again, and the run goes on.
    "a-success-later-in-the-turn": ("Alarm.", [reply(("c1", raw("set_alarm", hour="7", minute=0))),
                                              reply(("c2", raw("set_alarm", hour=7))),
                                              reply(("c3", raw("set_alarm", minute=0)), ("c4", ALARM)),
                                              answer("Set.")], None),
}


@rule_id("loop.tool-failures")
@pytest.mark.points(1)
@pytest.mark.rule(FAILURES_RULE)
@pytest.mark.parametrize("task, steps, timing_out", list(FAILURES.values()), ids=list(FAILURES))
def test_a_tool_that_keeps_failing_stops_the_run(harness, task, steps, timing_out):
    """One tool fails again and again, each time differently: the count across turns stops it.

    Why: notebook 4's bound is per call, so each new call got a fresh retry and the loop ran until its turns ran out;
    pydantic-ai counts a tool's retries per tool across the run for this reason, and a success starts the count again.
    """
    dispatch = failing(timing_out) if timing_out else receipts
    expect_loop(harness.loop(task, steps, tools=TYPED_TOOLS, dispatch_reply=dispatch, limits=LIMITS), TYPED_TOOLS)


@rule_id("loop.tool-failures")
@pytest.mark.points(1)
@pytest.mark.rule(FAILURES_RULE)
def test_the_failure_budget_is_the_callers(harness):
    """tool_failures is 2 here: the second failure in a row stops the run.

    Why: the budget is the caller's to set (cheap models may get more chances, costly tools fewer); a loop with 3
    written in stops one turn late.
    """
    steps = [reply(("c1", raw("set_alarm", hour="7", minute=0))), reply(("c2", raw("set_alarm", hour=7)))]
    limits = dict(LIMITS, tool_failures=2)
    expect_loop(harness.loop("Alarm.", steps, tools=TYPED_TOOLS, limits=limits), TYPED_TOOLS)


TURNS_RULE = N_("After max_turns replies from the model, answer the last reply's calls and stop with \"max_turns\"; a "
              "stop for no progress or a tool's failures in the same turn comes first.")
TURNS = {
    "three-turns": ([reply((f"c{i}", raw("get_time", timezone=f"UTC+{i}"))) for i in range(6)], 3),
    "ten-turns": ([reply((f"c{i}", raw("get_weather", city=f"City {i}"))) for i in range(14)], 10),
    "no-progress-comes-first": ([reply(("c0", BAD_ALARM)), reply(("c1", WEATHER)), reply(("c2", BAD_ALARM)),
                                 reply(("c3", WEATHER))], 3),
    "two-calls-in-the-last-turn": ([reply(("a0", WEATHER)), reply(("a1", WEATHER), ("a2", ALARM)),
                                    reply(("a3", WEATHER))], 2),
}


@rule_id("loop.max-turns")
@pytest.mark.points(1)
@pytest.mark.rule(TURNS_RULE)
@pytest.mark.parametrize("steps, max_turns", list(TURNS.values()), ids=list(TURNS))
def test_the_run_stops_after_max_turns(harness, steps, max_turns):
    """A model that never stops calling tools, each call valid and new: the cap on turns ends the run.

    Why: no per-call or per-tool budget notices a model making progress that never ends; the OpenAI Agents SDK caps a
    run at max_turns (10 by default) and raises MaxTurnsExceeded, so the caller learns why.
    """
    limits = dict(LIMITS, max_turns=max_turns)
    expect_loop(harness.loop("Plan my trip.", steps, tools=TYPED_TOOLS, limits=limits), TYPED_TOOLS)


RETRY_RULE = N_("A model that raises TimeoutError or ConnectionError is asked again with the same conversation, at most "
              "model_retries times per request, after sleep(backoff * 2**k) before retry k; then the run stops with "
              "\"model_unavailable\". A retried request is no turn and costs the model no retry of its own.")
RETRIES = {
    "one-timeout": ([error("TimeoutError"), answer("Sunny.")], LIMITS),
    "two-connection-errors": ([error("ConnectionError", "connection reset"), error("ConnectionError", "connection reset"),
                               reply(("c1", WEATHER)), answer("Sunny.")], LIMITS),
    "out-of-retries": ([error("TimeoutError")] * 3, LIMITS),
    "a-budget-per-request": ([error("TimeoutError"), error("TimeoutError"), reply(("c1", WEATHER)),
                              error("TimeoutError"), error("ConnectionError"), answer("Sunny.")], LIMITS),
    "no-retries-allowed": ([error("TimeoutError"), answer("Sunny.")], dict(LIMITS, model_retries=0)),
    "a-longer-backoff": ([error("TimeoutError"), error("TimeoutError"), error("TimeoutError"), answer("Sunny.")],
                         dict(LIMITS, model_retries=3, backoff=2.0)),
    "after-a-turn": ([reply(("c1", WEATHER)), error("TimeoutError"), error("TimeoutError"), error("TimeoutError")], LIMITS),
    # Five retries: the waits 1, 2, 4, 8, 16 times backoff; a wait that grows by a step (1, 2, 3, 4, 5) falls behind.
    "five-retries": ([error("TimeoutError")] * 5 + [answer("Sunny.")], dict(LIMITS, model_retries=5)),
}


@rule_id("loop.model-retry")
@pytest.mark.points(1)
@pytest.mark.rule(RETRY_RULE)
@pytest.mark.parametrize("steps, limits", list(RETRIES.values()), ids=list(RETRIES))
def test_a_transient_model_error_is_retried_with_backoff(harness, steps, limits):
    """The model's client times out or loses its connection: the same request again, after a growing wait.

    Why: a timeout says nothing about the model's call, so it is no reason to spend the model's retry or stop the run;
    the official OpenAI and Anthropic clients retry twice with exponential backoff (0.5 s, 1 s) for this reason.
    """
    expect_loop(harness.loop("Weather in Paris?", steps, tools=TYPED_TOOLS, limits=limits), TYPED_TOOLS)


ERROR_RULE = N_("A model that raises anything but TimeoutError or ConnectionError is not retried: the run stops at once "
              "with \"model_error\", and run_agent itself never raises.")
ERRORS = {
    "at-once": [error("RuntimeError", "invalid request: unknown model")],
    "after-a-turn": [reply(("c1", WEATHER)), error("RuntimeError", "context length exceeded")],
    "after-a-timeout": [error("TimeoutError"), error("RuntimeError", "invalid request")],
}


@rule_id("loop.model-error")
@pytest.mark.points(1)
@pytest.mark.rule(ERROR_RULE)
@pytest.mark.parametrize("steps", list(ERRORS.values()), ids=list(ERRORS))
def test_a_model_error_that_no_retry_cures_stops_the_run(harness, steps):
    """The model's client raises an error a retry cannot cure: the run stops with a reason, at once.

    Why: a request the API refused (a bad model name, a context too long) fails the same way every time; retrying
    wastes time, and raising leaves the caller with a traceback instead of a reason to act on.
    """
    expect_loop(harness.loop("Weather in Paris?", steps, tools=TYPED_TOOLS, limits=LIMITS), TYPED_TOOLS)

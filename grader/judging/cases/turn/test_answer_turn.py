"""Notebook 7: a turn with many calls. Every call id is answered exactly once, in the provider's shape; valid calls
run even beside refused ones; a tool that raises becomes an error answer; a replayed turn runs nothing twice."""

import secrets

import pytest

from grader.judging.expectations import expect_turn_answered, fail, returned
from grader.judging.registries import TYPED_TOOLS
from grader.judging.rule_ids import rule_id
from grader.translations import N_, say

GROUP = N_("A turn with many calls")
ORDER = 1
RULE = N_("Every tool call of a turn is answered exactly once, by its id, in the order sent and in the provider's shape "
        "(OpenAI: one tool message per call; Anthropic: one user message holding every tool_result).")


def openai_turn(*calls, content=None):
    """An OpenAI Chat Completions assistant message holding ``calls``: ``(id, name, arguments_text)`` each."""
    return {"role": "assistant", "content": content,
            "tool_calls": [{"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls]}


def anthropic_turn(*blocks):
    """An Anthropic assistant message: each block a ``(id, name, input)`` tool use or a str (a text block)."""
    return {"role": "assistant", "content": [
        {"type": "text", "text": b} if isinstance(b, str) else {"type": "tool_use", "id": b[0], "name": b[1], "input": b[2]}
        for b in blocks]}


def failing(**errors):
    """A dispatcher whose tools named in ``errors`` raise the given exception; the others return a fresh receipt."""
    def dispatch(name, arguments):
        if name in errors:
            raise errors[name]
        return {"status": "ok", "tool": name, "receipt": secrets.token_hex(4)}
    return dispatch


def text_reply(name, arguments):
    """A dispatcher whose tools answer in text (a string result goes back as it is)."""
    return f"{name} done, receipt {secrets.token_hex(4)}"


ALARM = ('{"hour": 7, "minute": 30}', {"hour": 7, "minute": 30})
WEATHER = ('{"city": "Paris"}', {"city": "Paris"})

VALID_TURNS = {
    "openai-two-valid": ("openai", openai_turn(("call_a1", "get_weather", WEATHER[0]), ("call_a2", "set_alarm", ALARM[0]))),
    "anthropic-two-valid": ("anthropic", anthropic_turn(("toolu_b1", "get_weather", WEATHER[1]),
                                                        ("toolu_b2", "set_alarm", ALARM[1]))),
    # Text before and between the calls: only tool_use blocks get an answer.
    "anthropic-text-between": ("anthropic", anthropic_turn("Let me check both.", ("toolu_c1", "get_weather", WEATHER[1]),
                                                           "And the alarm:", ("toolu_c2", "set_alarm", ALARM[1]))),
    # The same tool twice with different ids: two calls, two runs (the key is the id, never the content).
    "openai-same-tool-twice": ("openai", openai_turn(("call_d1", "get_weather", WEATHER[0]),
                                                     ("call_d2", "get_weather", WEATHER[0]))),
    "openai-five-calls": ("openai", openai_turn(*[(f"call_e{i}", "get_time", '{}') for i in range(5)])),
    "openai-content-and-calls": ("openai", openai_turn(("call_f1", "get_time", '{"timezone": "UTC"}'),
                                                       content="Checking the time.")),
}


@rule_id("turn.each-id-once")
@pytest.mark.points(1)
@pytest.mark.rule(RULE)
@pytest.mark.parametrize("provider, message", list(VALID_TURNS.values()), ids=list(VALID_TURNS))
def test_every_valid_call_runs_and_is_answered(harness, provider, message):
    """A turn of valid calls: each runs once, in order, and each id gets its result.

    Why: a turn with several calls is how models ask for independent lookups; an id left without its answer makes the
    provider refuse the next request (Anthropic: 400), and deduplicating by name and arguments drops a call the model
    asked for twice on purpose.
    """
    expect_turn_answered(harness.turn(message, provider, tools=TYPED_TOOLS), provider, TYPED_TOOLS)


PARTIAL_RULE = N_("Each call of a turn stands on its own: a valid call runs even when another call of the turn is refused, "
                "and a refused call is answered with check's observation as an error and never runs.")
MIXED_TURNS = {
    # The example: three tool_use blocks, the middle one invalid.
    "anthropic-middle-invalid": ("anthropic", anthropic_turn(("toolu_g1", "get_weather", WEATHER[1]),
                                                             ("toolu_g2", "set_alarm", {"hour": "seven", "minute": 30}),
                                                             ("toolu_g3", "get_time", {}))),
    "openai-first-invalid": ("openai", openai_turn(("call_h1", "get_weather", '{"city": "Paris"'),
                                                   ("call_h2", "set_alarm", ALARM[0]))),
    "openai-unknown-tool": ("openai", openai_turn(("call_i1", "get_wether", WEATHER[0]),
                                                  ("call_i2", "get_weather", WEATHER[0]))),
    "anthropic-all-invalid": ("anthropic", anthropic_turn(("toolu_j1", "set_alarm", {"hour": 7}),
                                                          ("toolu_j2", "get_weather", {}))),
    "openai-last-invalid": ("openai", openai_turn(("call_k1", "get_time", "{}"),
                                                  ("call_k2", "convert_currency", '{"amount": "5", "source": "EUR", "target": "USD"}'))),
}


@rule_id("turn.partial-failure")
@pytest.mark.points(1)
@pytest.mark.rule(PARTIAL_RULE)
@pytest.mark.parametrize("provider, message", list(MIXED_TURNS.values()), ids=list(MIXED_TURNS))
def test_refused_calls_do_not_stop_the_valid_ones(harness, provider, message):
    """Refused and valid calls in one turn: the refused are answered with their observation, the valid still run.

    Why: stopping the whole turn at the first refused call leaves ids unanswered (a 400 on the next request) or
    throws away work the model asked for; running a refused call breaks the course's first rule.
    """
    expect_turn_answered(harness.turn(message, provider, tools=TYPED_TOOLS), provider, TYPED_TOOLS)


RAISE_RULE = N_("A tool that raises or times out is answered as an error naming the exception's type (is_error true for "
              "Anthropic), in one bounded sentence without a traceback; the other calls of the turn are still answered, "
              "and answer_turn itself never raises.")
RAISING = {
    "openai-timeout": ("openai", openai_turn(("call_l1", "set_alarm", ALARM[0]), ("call_l2", "get_weather", WEATHER[0])),
                       {"set_alarm": TimeoutError("the tool did not answer within 30 s")}),
    "anthropic-runtime-error": ("anthropic", anthropic_turn(("toolu_m1", "get_weather", WEATHER[1]),
                                                            ("toolu_m2", "set_alarm", ALARM[1])),
                                {"get_weather": RuntimeError("upstream returned 503")}),
    "anthropic-connection-error": ("anthropic", anthropic_turn(("toolu_n1", "get_time", {})),
                                   {"get_time": ConnectionError("connection reset by peer")}),
    "openai-all-fail": ("openai", openai_turn(("call_o1", "get_time", "{}"), ("call_o2", "get_weather", WEATHER[0])),
                        {"get_time": TimeoutError("timed out"), "get_weather": RuntimeError("")}),
}


@rule_id("turn.tool-error")
@pytest.mark.points(1)
@pytest.mark.rule(RAISE_RULE)
@pytest.mark.parametrize("provider, message, errors", list(RAISING.values()), ids=list(RAISING))
def test_a_tool_that_raises_becomes_an_error_answer(harness, provider, message, errors):
    """dispatch raises for some tools: their ids get error answers, the rest run as usual.

    Why: a tool's exception that escapes the runtime crashes the agent and leaves every id of the turn unanswered;
    answered as an error, the model can try another way (and a timeout is an error too: the tool may or may not
    have acted).
    """
    transcript = harness.turn(message, provider, tools=TYPED_TOOLS, dispatch_reply=failing(**errors))
    expect_turn_answered(transcript, provider, TYPED_TOOLS)


TEXT_RULE = N_("What a tool returned goes back as text: a string as it is, anything else as JSON (json.dumps), never "
             "Python's str() of a dict.")


@rule_id("turn.result-text")
@pytest.mark.points(1)
@pytest.mark.rule(TEXT_RULE)
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_string_result_goes_back_as_it_is(harness, provider):
    """Tools that return text: the answer's content is that text, not the text quoted as JSON.

    Why: json.dumps of a string adds quotes and escapes the model then reads as part of the result; the rule is one
    line ("a string as it is"), and a runtime that JSON-encodes everything breaks it.
    """
    message = (openai_turn(("call_p1", "get_time", "{}"), ("call_p2", "get_weather", WEATHER[0])) if provider == "openai"
               else anthropic_turn(("toolu_p1", "get_time", {}), ("toolu_p2", "get_weather", WEATHER[1])))
    transcript = harness.turn(message, provider, tools=TYPED_TOOLS, dispatch_reply=text_reply)
    expect_turn_answered(transcript, provider, TYPED_TOOLS)


REPLAY_RULE = N_("The call id is the idempotency key: a call whose id is in done is not run again and gets the answer "
               "stored there, as it is; every call handed to its tool is recorded in done (its whole answer), a failed "
               "or timed-out one too.")
REPLAYS = {
    "openai-replay": ("openai", openai_turn(("call_q1", "set_alarm", ALARM[0]), ("call_q2", "get_weather", WEATHER[0])), {}),
    "anthropic-replay": ("anthropic", anthropic_turn(("toolu_r1", "set_alarm", ALARM[1]), ("toolu_r2", "get_time", {})), {}),
    # A timed-out call may have acted: replayed, it is not run again either.
    "anthropic-replay-after-timeout": ("anthropic", anthropic_turn(("toolu_s1", "set_alarm", ALARM[1])),
                                       {"set_alarm": TimeoutError("timed out")}),
    "openai-replay-with-refused": ("openai", openai_turn(("call_t1", "set_alarm", '{"hour": 7}'),
                                                         ("call_t2", "get_time", "{}")), {}),
}


@rule_id("turn.idempotent")
@pytest.mark.points(1)
@pytest.mark.rule(REPLAY_RULE)
@pytest.mark.parametrize("provider, message, errors", list(REPLAYS.values()), ids=list(REPLAYS))
def test_a_replayed_turn_runs_nothing_twice(harness, provider, message, errors):
    """The same turn answered twice with the same done: every tool ran once, and both answers are equal.

    Why: runtimes replay a turn after a crash or a retried request; without a key, set_alarm sets two alarms and a
    payment is made twice (Stripe's idempotency keys exist for exactly this).
    """
    transcript = harness.turn(message, provider, tools=TYPED_TOOLS, dispatch_reply=failing(**errors), times=2)
    expect_turn_answered(transcript, provider, TYPED_TOOLS)


STORED = {
    "openai-done-holds-one": ("openai", openai_turn(("call_u1", "set_alarm", ALARM[0]), ("call_u2", "get_time", "{}")),
                              {"call_u1": {"role": "tool", "tool_call_id": "call_u1",
                                           "content": '{"status": "ok", "alarm": "07:30"}'}}),
    "anthropic-done-holds-a-failure": ("anthropic", anthropic_turn(("toolu_v1", "set_alarm", ALARM[1]),
                                                                   ("toolu_v2", "get_weather", WEATHER[1])),
                                       {"toolu_v1": {"type": "tool_result", "tool_use_id": "toolu_v1", "is_error": True,
                                                     "content": "The tool set_alarm failed: TimeoutError: timed out"}}),
}


@rule_id("turn.idempotent")
@pytest.mark.points(1)
@pytest.mark.rule(REPLAY_RULE)
@pytest.mark.parametrize("provider, message, done", list(STORED.values()), ids=list(STORED))
def test_an_id_the_caller_recorded_is_not_run_again(harness, provider, message, done):
    """The caller's done already holds one of the turn's ids (a turn replayed after a restart): that call gets the
    stored answer and does not run; the other calls run.

    Why: the record is the caller's, kept across turns and restarts; a runtime that keeps its own cache in a module
    global instead passes a replay in one process and runs the side effect again after a restart (an attacker's
    trial of notebook 7: 29/29 with done ignored).
    """
    transcript = harness.turn(message, provider, tools=TYPED_TOOLS, done=done)
    expect_turn_answered(transcript, provider, TYPED_TOOLS)


EMPTY_RULE = N_("A turn without tool calls needs no answer: answer_turn returns [].")
EMPTY = {
    "openai-no-tool-calls": ("openai", {"role": "assistant", "content": "Paris is sunny today."}),
    "openai-null-tool-calls": ("openai", {"role": "assistant", "content": "Done.", "tool_calls": None}),
    "anthropic-text-only": ("anthropic", anthropic_turn("Paris is sunny today.")),
}


@rule_id("turn.no-calls")
@pytest.mark.gate("answers")  # a function returning [] for every turn passes these (grader.judging.canaries)
@pytest.mark.points(1)
@pytest.mark.rule(EMPTY_RULE)
@pytest.mark.parametrize("provider, message", list(EMPTY.values()), ids=list(EMPTY))
def test_a_turn_without_calls_needs_no_answer(harness, provider, message):
    """A final answer (text only, tool_calls missing or null) gets [] and nothing runs.

    Why: the loop ends on such a turn; a user message with empty content, or a tool message for no id, is refused
    by the API, and OpenAI sends ``tool_calls: null`` as often as it leaves the key out.
    """
    transcript = harness.turn(message, provider, tools=TYPED_TOOLS)
    value = returned(transcript)
    if value != [] or transcript.dispatches:
        fail(say("A turn without tool calls needs no answer and runs nothing: return []."))

"""Notebook 7b: a streamed turn is joined by index into the message it carries, and only a finished one is answered."""

import copy

import pytest

from grader.judging.expectations import fail, returned, strict_equal
from grader.judging.rule_ids import rule_id
from grader.translations import N_, say

GROUP = N_("A streamed turn")
ORDER = 2


def chunks(*deltas, finish="tool_calls", usage=False, finish_on_last=False):
    """A Chat Completions stream: one chunk per delta, then one with ``finish`` (none when None; on the last delta's
    own chunk when ``finish_on_last``), then the usage chunk (no choices) when ``usage``."""
    out = [{"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [
        {"index": 0, "delta": delta, "finish_reason": None}]} for delta in deltas]
    if finish is not None and finish_on_last:
        out[-1]["choices"][0]["finish_reason"] = finish
    elif finish is not None:
        out.append({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": {}, "finish_reason": finish}]})
    if usage:
        out.append({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [],
                    "usage": {"prompt_tokens": 80, "completion_tokens": 20, "total_tokens": 100}})
    return out


def start(index, call_id, name, arguments="", with_index=True):
    """A call's first piece (id, type, name and maybe some arguments)."""
    piece = {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    return {"tool_calls": [{"index": index, **piece} if with_index else piece]}


def more(index, text, with_index=True):
    """A later piece: some arguments only."""
    piece = {"function": {"arguments": text}}
    return {"tool_calls": [{"index": index, **piece} if with_index else piece]}


def message(*calls, content=None):
    """The whole message: ``calls`` as ``(id, name, arguments)``."""
    out = {"role": "assistant", "content": content}
    if calls:
        out["tool_calls"] = [{"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls]
    return out


def drawn(harness, stream, expected):
    """``stream`` and ``expected`` with each call id given a drawn tail (``Draw.with_id_tail``) in a hidden case: the
    words are drawn by the grading itself; ids with nothing to rename would be the same on every grading."""
    draw = harness.draw
    if draw is None:
        return stream, expected
    stream, expected = copy.deepcopy(stream), copy.deepcopy(expected)
    ids = {}
    for chunk in stream:
        for choice in chunk["choices"]:
            for piece in choice["delta"].get("tool_calls") or []:
                if piece.get("id"):
                    piece["id"] = ids.setdefault(piece["id"], draw.with_id_tail(piece["id"]))
    for call in (expected or {}).get("tool_calls") or []:
        call["id"] = ids.get(call["id"], call["id"])
    return stream, expected


def expect_message(harness, stream, expected, why):
    stream, expected = drawn(harness, stream, expected)
    value = returned(harness.call(stream, function="assemble_turn"))
    if expected is None:
        if value is not None:
            fail(say("A stream that did not finish (finish_reason \"length\", another reason, or none at all) carries "
                     "no turn to answer: return None, so the model is asked again."))
        return
    if value is None:
        fail(say("This stream finished (finish_reason \"stop\" or \"tool_calls\"): return the message it carries, not "
                 "None."))
    if not strict_equal(value, expected):
        fail(why)


JOIN_RULE = N_("A call's pieces are joined by index, in arrival order: its id and name from its first piece (repeats add "
             "nothing), its arguments the exact concatenation of every piece's arguments; the calls in the order they "
             "started; only the choice whose index is 0, and every chunk's delta, the last one too.")
JOINED = {
    "one-call-many-pieces": (chunks({"role": "assistant", "content": None}, start(0, "call_s1", "get_weather"),
                                    more(0, '{"city"'), more(0, ': "Paris"'), more(0, ', "units": '), more(0, '"metric"}')),
                             message(("call_s1", "get_weather", '{"city": "Paris", "units": "metric"}'))),
    "two-calls-interleaved": (chunks(start(0, "call_s2", "get_weather", '{"city": '), start(1, "call_s3", "set_alarm"),
                                     more(1, '{"hour": 7, '), more(0, '"Lima"}'), more(1, '"minute": 30}')),
                              message(("call_s2", "get_weather", '{"city": "Lima"}'),
                                      ("call_s3", "set_alarm", '{"hour": 7, "minute": 30}'))),
    "text-then-calls": (chunks({"role": "assistant", "content": "Let me "}, {"content": "check."},
                               start(0, "call_s4", "get_time", "{}")),
                        message(("call_s4", "get_time", "{}"), content="Let me check.")),
    # A first piece may carry "arguments": null (some servers send it before any text).
    "first-arguments-null": (chunks({"tool_calls": [{"index": 0, "id": "call_s5", "type": "function",
                                                     "function": {"name": "get_weather", "arguments": None}}]},
                                    more(0, '{"city": "Oslo"}')),
                             message(("call_s5", "get_weather", '{"city": "Oslo"}'))),
    # The finish reason on the chunk that carries the last piece (OpenAI sends it apart; other servers do not).
    "finish-on-the-last-delta": (chunks(start(0, "call_s9", "get_weather", '{"city": '), more(0, '"Oslo"}'),
                                        finish_on_last=True),
                                 message(("call_s9", "get_weather", '{"city": "Oslo"}'))),
    # Deltas as the OpenAI SDK's model_dump() gives them: every absent field written as null.
    "sdk-nulls": (chunks({"role": "assistant", "content": None, "tool_calls": None, "function_call": None, "refusal": None},
                         {"content": None, "tool_calls": [{"index": 0, "id": "call_sa", "type": "function",
                                                           "function": {"name": "get_time", "arguments": "{}"}}],
                          "function_call": None, "refusal": None, "role": None}),
                  message(("call_sa", "get_time", "{}"))),
    # A server that repeats the id and the name in every piece: one call, its name once.
    "id-and-name-repeated": (chunks(start(0, "call_sb", "get_weather", '{"city": '),
                                    start(0, "call_sb", "get_weather", '"Rome"}')),
                             message(("call_sb", "get_weather", '{"city": "Rome"}'))),
    # Two choices (n=2): only the choice whose index is 0 is this answer; the other is cut and must not count.
    "second-choice-ignored": ([{"id": "chatcmpl-2", "object": "chat.completion.chunk", "choices": [
        {"index": 0, "delta": {"content": "Sunny"}, "finish_reason": None},
        {"index": 1, "delta": {"content": "Rain"}, "finish_reason": None}]},
        {"id": "chatcmpl-2", "object": "chat.completion.chunk", "choices": [
            {"index": 1, "delta": {"content": " and"}, "finish_reason": "length"}]},
        {"id": "chatcmpl-2", "object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": {"content": " today."}, "finish_reason": "stop"}]}],
        message(content="Sunny today.")),
    "three-calls-usage-chunk": (chunks(start(0, "call_s6", "get_time", "{"), more(0, "}"), start(1, "call_s7", "get_time", "{}"),
                                       start(2, "call_s8", "get_weather", '{"city": "Rome"}'), usage=True),
                                message(("call_s6", "get_time", "{}"), ("call_s7", "get_time", "{}"),
                                        ("call_s8", "get_weather", '{"city": "Rome"}'))),
}


@rule_id("stream.by-index")
@pytest.mark.gate("assembles")
@pytest.mark.points(1)
@pytest.mark.rule(JOIN_RULE)
@pytest.mark.parametrize("stream, expected", list(JOINED.values()), ids=list(JOINED))
def test_pieces_are_joined_by_index(harness, stream, expected):
    """A streamed turn becomes exactly the message a non-streamed request would have returned.

    Why: a piece of arguments is not JSON ('{"city"' fails json.loads), so a runtime that checks or parses pieces
    refuses valid calls; joining pieces of two calls by arrival instead of by index mixes their arguments.
    """
    expect_message(harness, stream, expected,
                   N_("The message differs from what the stream carries: join each call's pieces by index, in order (id "
                      "and name from its first piece, arguments concatenated exactly), keep the calls in the order they "
                      "started, and put the text pieces together as content (None when there were none)."))


QUIRK_RULE = N_("A piece with an id other than the call's at its index starts a new call; a piece without an index "
              "goes to the last call started, unless its id starts a new one.")
QUIRKS = {
    # Gemini's OpenAI-compatible stream leaves index out (AstrBotDevs/AstrBot #6692).
    "no-index-two-calls": (chunks(start(None, "call_q1", "get_weather", '{"city": "Paris"}', with_index=False),
                                  start(None, "call_q2", "get_time", "{}", with_index=False)),
                           message(("call_q1", "get_weather", '{"city": "Paris"}'), ("call_q2", "get_time", "{}"))),
    "no-index-continued": (chunks(start(None, "call_q3", "get_weather", '{"city": ', with_index=False),
                                  more(None, '"Kyiv"}', with_index=False)),
                           message(("call_q3", "get_weather", '{"city": "Kyiv"}'))),
    # Ollama streams every call of a turn at index 0 (NousResearch/hermes-agent #3468: "Unknown tool 'terminalterminal'").
    "same-index-new-id": (chunks(start(0, "call_q4", "set_alarm", '{"hour": 6, "minute": 0}'),
                                 start(0, "call_q5", "set_alarm", '{"hour": 7, "minute": 0}')),
                          message(("call_q4", "set_alarm", '{"hour": 6, "minute": 0}'),
                                  ("call_q5", "set_alarm", '{"hour": 7, "minute": 0}'))),
}


@rule_id("stream.new-call")
@pytest.mark.gate("assembles")
@pytest.mark.points(1)
@pytest.mark.rule(QUIRK_RULE)
@pytest.mark.parametrize("stream, expected", list(QUIRKS.values()), ids=list(QUIRKS))
def test_a_new_id_starts_a_new_call(harness, stream, expected):
    """Servers behind OpenAI-compatible APIs leave the index out or reuse it: the id tells the calls apart.

    Why: keyed by index alone, two calls at index 0 (or at no index) become one call named "set_alarmset_alarm" with
    two JSON objects back to back as its arguments, and the model is told about a tool it never called.
    """
    expect_message(harness, stream, expected,
                   N_("Two calls were joined into one, or one call split in two: a piece whose id differs from the call "
                      "at its index starts a new call, and a piece without an index continues the last call started."))


KEEP_RULE = N_("The joined arguments are kept exactly as the pieces spell them, valid JSON or not: they are checked "
             "once the turn is whole (answer_turn's check), never parsed or repaired while joining.")
KEPT = {
    "invalid-json-kept": (chunks(start(0, "call_k1", "get_weather", '{"city": '), more(0, '"Paris"')),
                          message(("call_k1", "get_weather", '{"city": "Paris"'))),
    "empty-arguments-kept": (chunks(start(0, "call_k2", "get_time")), message(("call_k2", "get_time", ""))),
    "spacing-kept": (chunks(start(0, "call_k3", "set_alarm", '{ "hour" :7,'), more(0, '"minute":  5 }')),
                     message(("call_k3", "set_alarm", '{ "hour" :7,"minute":  5 }'))),
}


@rule_id("stream.whole-only")
@pytest.mark.gate("assembles")
@pytest.mark.points(1)
@pytest.mark.rule(KEEP_RULE)
@pytest.mark.parametrize("stream, expected", list(KEPT.values()), ids=list(KEPT))
def test_arguments_are_kept_as_streamed(harness, stream, expected):
    """Arguments that are not valid JSON once joined stay the model's text; spacing stays as sent.

    Why: closing a cut object or re-serialising it is a repair, and a repaired call is never dispatched; the
    check after joining tells the model what is wrong in the very text it sent.
    """
    expect_message(harness, stream, expected,
                   N_("The arguments must be the pieces joined exactly: not parsed, re-serialised, stripped or repaired."))


CUT_RULE = N_("Only a finished stream is a turn: finish_reason \"stop\" or \"tool_calls\". A stream cut at max_tokens "
            "(\"length\"), withheld (\"content_filter\") or broken off (no finish_reason) gives None: ask again.")
CUT = {
    "cut-at-max-tokens": chunks(start(0, "call_c1", "get_weather", '{"city": "Par'), finish="length"),
    "broken-off": chunks(start(0, "call_c2", "get_weather", '{"city": "Paris"}'), finish=None),
    "content-filter": chunks({"content": "I can"}, finish="content_filter"),
    "cut-after-a-whole-call": chunks(start(0, "call_c3", "get_time", "{}"), start(1, "call_c4", "get_weather", '{"ci'),
                                     finish="length"),
}


@rule_id("stream.cut")
@pytest.mark.gate("assembles")
@pytest.mark.points(1)
@pytest.mark.rule(CUT_RULE)
@pytest.mark.parametrize("stream", list(CUT.values()), ids=list(CUT))
def test_a_stream_that_did_not_finish_is_no_turn(harness, stream):
    """The stream ended without "stop" or "tool_calls": the turn is incomplete, even where its first call is whole.

    Why: a call cut by max_tokens is not the model's mistake, so an observation would teach it nothing; Anthropic's
    advice for a cut tool_use is to request again with more max_tokens, and the whole turn goes, not a part of it.
    """
    expect_message(harness, stream, None, "")


TEXT_RULE = N_("A stream of text only is a final answer: its content joined, no tool_calls key; content is None when no "
             "text came (empty text is none).")
TEXT = {
    "text-only": (chunks({"role": "assistant", "content": ""}, {"content": "Sunny, "}, {"content": "21 degrees."},
                         finish="stop", usage=True), message(content="Sunny, 21 degrees.")),
    "nothing-said": (chunks({"role": "assistant"}, finish="stop"), message()),
    # OpenAI's first delta carries "content": "" even before tool calls: empty text is no text.
    "empty-text-before-a-call": (chunks({"role": "assistant", "content": ""}, start(0, "call_t1", "get_time", "{}")),
                                 message(("call_t1", "get_time", "{}"))),
}


@rule_id("stream.text")
@pytest.mark.gate("assembles")
@pytest.mark.points(1)
@pytest.mark.rule(TEXT_RULE)
@pytest.mark.parametrize("stream, expected", list(TEXT.values()), ids=list(TEXT))
def test_a_text_stream_is_a_final_answer(harness, stream, expected):
    """A final answer streamed in pieces: the text joined, and no tool_calls (answer_turn then answers nothing).

    Why: an empty tool_calls list or a missing content both change what the next request sends; the usage chunk at the
    end has no choices at all, and reading choices[0] there raises IndexError.
    """
    expect_message(harness, stream, expected,
                   N_("content is the text pieces joined, None when no text came (an empty text is none), and a stream "
                      "without calls gives no tool_calls key."))

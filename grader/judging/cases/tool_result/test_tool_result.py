"""Notebook 0's warm-up: the observation travels back in Anthropic's tool_result block."""

import pytest

from grader.judging.expectations import fail, returned, strict_equal
from grader.judging.rule_ids import rule_id
from grader.translations import N_, say

GROUP = N_("The tool_result block")
ORDER = 1
RULE = N_("An error goes back to the model as {\"type\": \"tool_result\", \"tool_use_id\": <id>, \"content\": <text>, "
        "\"is_error\": true} (Anthropic's messages API): exact keys, id and text unchanged.")

FRESH_RULE = N_("A new dict on every call: the same input gives equal blocks every time, and a block already returned "
              "never changes (a shared dict that changes makes every answer the last one).")

MESSAGES = {
    "short": ("toolu_9", "argument 'city' is missing"),
    "multi-line": ("toolu_x1", "Tool call rejected (2 problems):\n1. a\n2. b"),
    "unicode": ("toolu_ü", "город не найден 🌧"),
    "empty-id": ("", "no id was given"),
    # Issue 11: notebook 0 teaches "the message unchanged"; .strip() passed every case above.
    "padded": ("toolu_p", "  argument 'city' is missing  "),
    "newlines-around": ("toolu_n", "\nTool call rejected:\n- city is missing\n\n"),
}


def drawn(harness, tool_use_id, message):
    """``(tool_use_id, message)`` as a hidden case hands them over: the id with a drawn tail, the message with a drawn
    word and number before its trailing whitespace (``grader.judging.draw.Draw.with_id_tail``, ``with_word``); as written in a
    visible run. Written ones were the same on every grading, and a table of the reference's blocks passed four
    cases of seven (issue 24)."""
    draw = harness.draw
    if draw is None:
        return tool_use_id, message
    # And a drawn number after the word: one word of about 200 let a table recorded on two gradings meet a case with
    # no id to draw now and then (issue 24).
    message = draw.with_word(message)
    body = message.rstrip()
    if body:
        message = f"{body} {2 + draw.random.randrange(99_998)}{message[len(body):]}"
    return draw.with_id_tail(tool_use_id), message


@rule_id("result.block")
@pytest.mark.points(1)
@pytest.mark.rule(RULE)
@pytest.mark.parametrize("tool_use_id, message", list(MESSAGES.values()), ids=list(MESSAGES))
def test_error_block(harness, tool_use_id, message):
    """The error block carries the id and the message unchanged.

    Why: a tool_result with a wrong tool_use_id is rejected by the API, and an edited message loses
    what the model needs; trimming or re-wording the text is a common slip.
    """
    tool_use_id, message = drawn(harness, tool_use_id, message)
    value = returned(harness.call(tool_use_id, message))
    wanted = {"type": "tool_result", "tool_use_id": tool_use_id, "content": message, "is_error": True}
    if not isinstance(value, dict):
        fail(say("tool_error_result must return a dict (the content block)."))
    if set(value) != set(wanted):
        # Which of the four are missing, never the keys the submission chose: those could carry the input.
        missing = [key for key in wanted if key not in value]
        fail(say("The block must have exactly the keys type, tool_use_id, content and is_error; it lacks {keys}.",
                 keys=", ".join(missing)) if missing else
             say("The block must have exactly the keys type, tool_use_id, content and is_error; it has others besides "
                 "them."))
    if value.get("is_error") is not True:
        fail(say("is_error must be the boolean True, not a string or 1: the API checks the JSON type."))
    if not strict_equal(value, wanted):
        fail(say("type must be \"tool_result\", and tool_use_id and content must be exactly what was passed in."))


@rule_id("result.fresh")
@pytest.mark.points(1)
@pytest.mark.rule(FRESH_RULE)
def test_fresh_block_each_time(harness):
    """Two calls with the same input return equal blocks.

    Why: returning one shared, mutated dict (a module-level template) makes every answer the last one; with one input
    the two answers look equal, so a second, different error checks the first block afterwards.
    """
    tool_use_id, message = drawn(harness, "toolu_a", "first")
    transcript = harness.call(tool_use_id, message, times=2)
    returned(transcript)
    values = [value for kind, value in transcript.returns if kind == "returned"]
    wanted = {"type": "tool_result", "tool_use_id": tool_use_id, "content": message, "is_error": True}
    if len(values) != 2 or not strict_equal(values[0], values[1]):
        fail(say("Calling tool_error_result twice with the same input must give the same block both times; yours "
                 "gave two different blocks (a shared dict changed between calls?): build a new dict on each call."))
    if not strict_equal(values[0], wanted):
        # Equal to each other: saying they differ would send the learner after the wrong bug (issue 11).
        fail(say("Both calls returned the same block, as they should, but it is not the block the rule asks for: the "
                 "case above says what to change in it."))
    # Then two different errors, the first block looked at again after the second call: a module-level dict changed
    # and returned each time gives equal blocks for one input, and every block held turns into the last (a Russian
    # learner's trial scored full marks with one).
    other_id, other_message = drawn(harness, "toolu_b", "second")
    transcript = harness.call_each([[tool_use_id, message], [other_id, other_message]], view="all_so_far")
    returned(transcript)
    held = [value for kind, value in transcript.returns if kind == "returned"]
    first_now = held[-1][0] if len(held) == 2 and isinstance(held[-1], list) and held[-1] else None
    if isinstance(first_now, dict) and strict_equal(first_now, wanted) is False \
            and first_now.get("tool_use_id") == other_id:
        fail(say("The block returned for the first error changed when tool_error_result was called for a second one: "
                 "both are the same dict. Build a new dict on every call."))

"""Judging a Transcript against the contract, with feedback a learner can act on.

Every check raises ``CaseFailed`` with one or two sentences: what the submission did, and how to
fix it, naming the seed's anti-pattern where one applies. No check prints the case's input, so
the same checks serve hidden cases (input secret) and visible self-checks.
Standard library only: the notebooks' self-checks import this module in the learner's kernel.
"""

import copy
import json
import os
import re

from grader.isolation.limits import OUTPUT_LIMIT
from grader.translations import N_, Nn_, _, english_of, ngettext, said, say

MAX_OBSERVATION_CHARS = 2000  # the contract's bound on observation and error text

# The seed's three anti-patterns ("✗" lines of the exercise card), as the feedback names them.
UNCHECKED_DISPATCH = N_("Anti-pattern: dispatching a call whose arguments were not checked against the schema.")
UNBOUNDED_RETRY = N_("Anti-pattern: retrying without a bound instead of one retry and a graceful rejection.")
SILENT_FAILURE = N_("Anti-pattern: failing without error text, so the model cannot correct itself.")


class CaseFailed(AssertionError):
    """A case's verdict: ``str(exc)`` is the learner-facing feedback (no hidden input, no traceback)."""


# Notebook 4 judges the loop alone: its check is the grader's (issue 11), so a failure there is the loop's, and
# its feedback speaks about the loop, not about validation rules notebook 4 does not ask for. Keyed by how the
# shared tool-call cases' messages begin in English (``Said.english``), whatever language the learner reads.
LOOP_FEEDBACK = {
    "A call that breaks the rule above was dispatched": N_(
        "Your loop dispatched an attempt that check did not pass: dispatch only when check(attempt, tools) returned "
        "no observation for that very attempt, the retry included."),
    "ask_model was called although the call was valid": N_(
        "Your loop asked the model although check passed the call: when the observation is None, dispatch at once."),
    "ask_model was called more than once": N_(
        "Your loop asked the model twice for one call: when the retry fails check too, return the rejection (the "
        "retry budget is one)."),
    "The model was never asked to retry": N_(
        "Your loop never asked the model: when check returns an observation for the first attempt, pass it to "
        "ask_model once."),
    # Before the next entry: when ask_model raised there is no retry attempt, so its observation is not what is
    # missing (issue 25's trial read "must carry the observation ... for the last attempt" there).
    "The rejection's error does not say everything the model needs: say that the retry failed": N_(
        "Your loop's rejection must say that the retry failed because ask_model raised (the exception's type, its "
        "first line at most): there is no retry attempt to describe."),
    "The rejection's error does not say everything the model needs: say that asking the model again failed": N_(
        "Your loop's rejection must say that the retry failed because ask_model raised (the exception's type, its "
        "first line at most): there is no retry attempt to describe."),
    "The rejection's error does not say everything": N_(
        "Your loop's rejection must carry the observation check gave for the last attempt (the retry), not the "
        "first attempt's."),
    "dispatch was called more than once": N_("Your loop dispatched twice for one call: dispatch at most once."),
    "ask_model was called again after it raised": N_(
        "Your loop asked the model again after ask_model raised: that failed ask was the one retry, so return the "
        "rejection that says the retry failed."),
}
# Set by the harness (and the self-check) while a case judges a loop that was handed the grader's check.
judging_loop_alone = False
# The draw (``grader.judging.draw.Draw``) the case's texts came back through, set by ``Harness.execute``; None in a
# visible case. A bound on a text's length applies to the text the submission wrote: renamed back, a drawn word is
# the case's word, of another length (the draw gives images lengths of their own).
renamed_by = None


def fail(message, transcript=None):
    """Raise ``CaseFailed`` with ``message`` (the transcript is accepted for call-site symmetry;
    notes about the submission are added by the grader's plugin, which sees every failure). While a loop is
    judged alone (``judging_loop_alone``), a message about the checks becomes one about the loop (``LOOP_FEEDBACK``)."""
    message = said(message)  # a constant marked N_ where it is defined is translated here
    if judging_loop_alone:
        english = english_of(message)
        message = next((say(loop) for start, loop in LOOP_FEEDBACK.items() if english.startswith(start)), message)
    raise CaseFailed(message)


def strict_equal(a, b):
    """Equality of JSON data that also compares types: ``1 != 1.0 != True`` here, and NaN equals NaN (the same
    text on the wire; a submission that dispatched NaN the same way twice was once told it gave two verdicts, since
    ``nan != nan`` in Python: issue 25).

    Args:
        a, b: plain JSON data (dict, list, str, int, float, bool, None).
    Returns:
        bool.
    """
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and a != a:
        return b != b
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    return a == b


def has_traceback(text):
    """True if ``text`` looks like it contains a Python traceback."""
    return "Traceback (most recent call last)" in text or ('", line ' in text and 'File "' in text)


def finished(transcript, none_is_stub=True):
    """Fail unless every call returned normally (no timeout, crash or exception).

    Args:
        transcript: the case's ``Transcript``.
        none_is_stub: treat a bare ``None`` result with no requests as "still the stub" (true for
            the tool-call exercises, where None is never a valid result).
    """
    if transcript.problem:
        fail(transcript.problem)
    if (none_is_stub and transcript.returns and transcript.returns[-1] == ("returned", None)
            and not transcript.observations and not transcript.dispatches):
        fail(say("{function} returned None without asking the model or dispatching anything: it still behaves like "
                 "the stub.", function=transcript.function), transcript)
    if transcript.raised:
        if transcript.raised.startswith("called sys.exit"):
            fail(say("{function} {raised} instead of returning; never exit the process from a tool-call handler: "
                     "return a result.", function=transcript.function, raised=transcript.raised))
        if transcript.raised.startswith(OUTPUT_LIMIT):  # the limit's OSError, not a message that mentions it
            fail(say("{function} printed more than the grader's output limit in one case, so printing failed: print "
                     "less (a few lines per call is plenty).", function=transcript.function))
        if transcript.raised.startswith("MemoryError") and not transcript.hidden:  # a sentence of its own tells the type
            fail(say("{function} ran out of memory (it asked for more than the grader's memory limit); validating a "
                     "call needs no large allocations.", function=transcript.function))
        if transcript.raised.startswith("NotImplementedError"):
            fail(say("{function} still raises NotImplementedError: it is the shipped stub; write your code in its "
                     "place.", function=transcript.function))
        fix = say("catch the problem and return a rejection with error text") if none_is_stub \
            else say("catch the problem and report it")
        fail(say("{function} raised {raised_shown} instead of returning. It must never raise: {fix}.", function=transcript.function, raised_shown=transcript.raised_shown, fix=fix),
             transcript)


def check_error_text(text, what):
    """Fail unless ``text`` is usable error text: a non-empty string, bounded, with no traceback."""
    what = said(what)
    if not isinstance(text, str) or not text.strip():
        shown = say("an empty string") if isinstance(text, str) else getattr(text, "what", type(text).__name__)
        fail(say("{what} was {shown}, not error text. {silent_failure}", what=what, shown=shown, silent_failure=say(SILENT_FAILURE)))
    if len(renamed_by.sent_form(text) if renamed_by is not None else text) > MAX_OBSERVATION_CHARS:
        # Not the exact length: a submission could spell the hidden input in it (an adversarial test did).
        fail(say("{what} was longer than {max_observation_chars:,} characters; keep it under that (quote values "
                 "briefly, never the whole call), or it floods the model's context.", what=what, max_observation_chars=MAX_OBSERVATION_CHARS))
    if has_traceback(text):
        fail(say("{what} contains a Python traceback; give the model a sentence about its call, not the runtime's "
                 "internals.", what=what))


def expect_rejected(transcript):
    """The call must end as ``{"status": "rejected", "error": <text>}`` with nothing dispatched."""
    finished(transcript)
    if transcript.dispatches:
        fail(say("A call that breaks the rule above was dispatched: one of your checks lets it through. "
                 "{unchecked_dispatch}", unchecked_dispatch=say(UNCHECKED_DISPATCH)), transcript)
    result = transcript.result
    if not isinstance(result, dict) or result.get("status") != "rejected":
        shown = getattr(result, "what", None) or (say("a dict with status {status}", status=short_word(result.get("status")))
                                                  if isinstance(result, dict) else describe_value(result))
        fail(say("Expected the rejection {{\"status\": \"rejected\", \"error\": ...}}, but {function} returned {shown}.", function=transcript.function, shown=shown), transcript)
    check_error_text(result.get("error"), say("The rejection's error"))


NEVER_ASKED = N_("The model was never asked to retry")
# What expect_one_retry saw in this grading, in order: (the worker, whether the model was asked). Reset by the
# grader's plugin for each exercise and by the self-check for each run (``stopped_asking``).
retry_log = []


def retry_spent_earlier(function):
    """The feedback for a case that was told ``NEVER_ASKED`` when ``function`` (str) stopped asking the model after its
    first invalid calls (``stopped_asking``): the retry budget kept between calls (issue 25's trial: a global counter
    got about 100 identical "never asked" lines; the seed asks "where do you bound retries").

    Returns:
        ``Said``.
    """
    return say("{function} asked the model for its first invalid call(s) and never again: a retry count kept between "
               "calls (a global, a default argument, an attribute) is spent by the first calls. Keep it in a local "
               "variable of the function that loops, so that every call of {function} gets its one retry.",
               function=function)


def stopped_asking(log):
    """Whether the submission behaved as a retry budget kept between calls does: in each worker, every invalid call
    that asked the model came before every one that did not, at least one asked, and at least two did not.

    A submission that skips the retry for one kind of call (the seed's sample, for invalid JSON) asks again for
    later calls of other kinds, so it is not taken for one.

    Args:
        log: ``[(worker, asked), ...]`` in the order the cases ran (``retry_log``).
    Returns:
        bool.
    """
    by_worker = {}
    for worker, asked in log:
        by_worker.setdefault(worker, []).append(bool(asked))
    if any(asked and not earlier for runs in by_worker.values() for earlier, asked in zip(runs, runs[1:])):
        return False  # an ask after a call that was not asked about: not a spent budget
    return any(log_asked for _worker, log_asked in log) and sum(not asked for _worker, asked in log) >= 2


def told_never_asked(feedback):
    """Whether a case's feedback (str) is the one ``expect_one_retry`` gives when the model was never asked, in either
    the capstone's words or notebook 4's (``LOOP_FEEDBACK``), in English or the current language (the translation of
    the capstone's sentence begins with that of ``NEVER_ASKED``, as the English does; tests/test_translations.py)."""
    starts = (NEVER_ASKED, LOOP_FEEDBACK[NEVER_ASKED])
    return english_of(feedback).startswith(starts) or feedback.startswith(tuple(_(start) for start in starts))


def expect_one_retry(transcript):
    """``ask_model`` must have been called exactly once, with usable observation text. Each call is noted in
    ``retry_log``, so that a retry budget spent by the first calls is named once all cases have run
    (``stopped_asking``)."""
    finished(transcript)  # a crash or timeout is the root cause to report, not the missing retry
    count = len(transcript.observations)
    retry_log.append((transcript.worker, count > 0))
    if count == 0:
        fail(say("{never_asked}. An invalid call gets one retry: call ask_model(error_text) so the model can fix it. "
                 "{silent_failure}", never_asked=say(NEVER_ASKED), silent_failure=say(SILENT_FAILURE)), transcript)
    if count > 1 and transcript.model_raised:
        # Asking again because asking failed is a second retry too (the class report named it "lets the exception
        # escape" in issue 25's trial); said apart, since "when the retry fails check" does not fit it.
        fail(say("ask_model was called again after it raised: asking the model and failing is the retry, so return a "
                 "rejection that says the retry failed. {unbounded_retry}", unbounded_retry=say(UNBOUNDED_RETRY)), transcript)
    if count > 1:
        # Not the exact count: a submission could choose it from the hidden input.
        fail(say("ask_model was called more than once for one call; the retry budget is one. {unbounded_retry}", unbounded_retry=say(UNBOUNDED_RETRY)), transcript)
    check_error_text(transcript.observations[0], say("The observation passed to ask_model"))


def expect_no_retry(transcript):
    """``ask_model`` must not be called (the call was valid)."""
    finished(transcript)
    if transcript.observations:
        fail(say("ask_model was called although the call was valid: one of your checks rejects something the rule "
                 "above allows. A valid call is dispatched at once."), transcript)


def expect_dispatched(transcript, name, arguments):
    """Exactly one dispatch of exactly ``(name, arguments)``, and its reply returned unchanged.

    ``arguments`` is what the case wrote; the valid fields a hidden run drew into the call it expects dispatched
    (``transcript.drawn_arguments``, ``ExerciseHarness.run(vary="dispatch")``) are expected among them too.
    Raises ``CaseFailed`` with the sentence a learner reads.
    """
    if transcript.drawn_arguments and isinstance(arguments, dict):
        arguments = {**arguments, **transcript.drawn_arguments}
    finished(transcript)
    if not transcript.dispatches:
        fail(say("A valid call was never dispatched: call dispatch(name, arguments) once every check passes, and "
                 "return what it returns."), transcript)
    if len(transcript.dispatches) > 1:
        fail(say("dispatch was called more than once for one call; dispatch at most once."), transcript)
    got_name, got_arguments = transcript.dispatches[0]
    if not strict_equal(got_name, name):
        fail(say("dispatch received a different tool name than the model sent; dispatch the name exactly as sent."), transcript)
    if not strict_equal(got_arguments, arguments):
        fail(say("dispatch received different arguments than the model sent (a field added, dropped, converted or "
                 "re-typed). Dispatch exactly what was sent: no coercion, no dropped fields."), transcript)
    if not strict_equal(transcript.result, transcript.dispatch_replies[0]):
        fail(say("{function} did not return what dispatch returned; return dispatch's result unchanged.", function=transcript.function), transcript)


def expect_mentions(text, words, what, fix):
    """Fail unless every word in ``words`` occurs in ``text`` (case-insensitive).

    Args:
        text: the observation or error text (str).
        words: each item a str, or a tuple of alternatives of which one must occur.
        what: names the text in the message, e.g. ``"The observation"``.
        fix: the sentence telling the learner what the text must say.
    """
    lowered = text.lower() if isinstance(text, str) else ""
    for word in words:
        options = word if isinstance(word, tuple) else (word,)
        if not any(option.lower() in lowered for option in options):
            fail(say("{what} does not say everything the model needs: {fix}", what=said(what), fix=said(fix)))


# Where a name stops (see ``mention_count``): a character that would continue it before or after, or a
# ``.attribute`` after it.
_NAME_CHARACTER = re.compile(r"[A-Za-z0-9_]", re.IGNORECASE)
_NAME_GOES_ON = re.compile(r"[A-Za-z0-9_]|\.[A-Za-z_]", re.IGNORECASE)


def mention_count(text, word, whole=True):
    """How often ``word`` occurs in ``text``, ignoring case (int; 0 when ``text`` is not a str).

    Args:
        whole: count only where ``word`` stands as a name of its own (as field and tool names are
            meant): not inside a longer name, so ``city`` is not counted in ``velocity`` or
            ``city_name``, nor ``args`` in ``args.city`` (but ``caps`` in the path ``caps.1`` or ``caps[1]``). With False, every occurrence counts
            (``json`` in ``JSONDecodeError``), for words that say what kind of problem it is.
    """
    if not isinstance(text, str) or not word:
        return 0
    if not whole:
        return text.lower().count(word.lower())
    # The same count as re.findall(r"(?<![A-Za-z0-9_])WORD(?![A-Za-z0-9_]|\.[A-Za-z_])", text, re.IGNORECASE),
    # without compiling that pattern for every word: its case-insensitive classes cost about 1 ms to compile, and
    # the twin calls count some 60 words (a tenth of a one-off run). The word alone compiles in microseconds;
    # the two boundary checks are compiled once.
    found = re.compile(re.escape(word), re.IGNORECASE)
    count, position = 0, 0
    while (match := found.search(text, position)) is not None:
        start, end = match.span()
        if (start == 0 or not _NAME_CHARACTER.match(text, start - 1)) and not _NAME_GOES_ON.match(text, end):
            count, position = count + 1, end  # findall goes on after a match
        else:
            position = start + 1
    return count


def names_more(text, twin_text, word, whole=True, absent=False):
    """Whether ``text`` singles out ``word`` compared with ``twin_text`` (bool); see ``expect_says_what_is_wrong``.

    Args:
        word: a str, or a tuple of alternatives whose counts add up.
        absent: the judged call lacks what ``word`` names and the twin call has it (a missing
            field): then as many mentions as the twin's text has are enough, but at least one.
    """
    options = word if isinstance(word, tuple) else (word,)
    mine = sum(mention_count(text, option, whole) for option in options)
    theirs = sum(mention_count(twin_text, option, whole) for option in options)
    return mine >= max(theirs, 1) if absent else mine > theirs


def expect_says_what_is_wrong(text, twin_text, words, what, fix, absent=(), whole=True):
    """Fail unless ``text`` names each of ``words`` more often than ``twin_text`` does: judging by difference.

    ``twin_text`` is the observation for a twin call: one like the judged call whose problems lie
    elsewhere (what is wrong in one is right in the other, where the tool allows). An observation
    that says what is wrong names the offending field, or the kind of problem, more often when it is
    wrong than when it is not, whatever its wording; one that never says what is wrong (the same
    text every time, a dump of the registry, the keys that were sent) names it as often, or less
    often, and fails. Text both observations share (a fixed preamble, the tool's schema, a quote of
    the call) cancels out.

    Args:
        text, twin_text: the two observations (str; anything else counts as no mention). When
            ``twin_text`` is None (the submission accepted the twin call, a mistake other cases judge),
            there is nothing to compare with and this check passes.
        words: the fields or words that are wrong in the judged call, each a str or a tuple of alternatives.
        what: names the text in the message, e.g. ``"The observation"``.
        fix: the sentence telling the learner what the text must say.
        absent: the words (of ``words``) that name something the judged call lacks and the twin
            has: a quote of the twin call names it once more, so a tie is enough there.
        whole: count names as whole words (see ``mention_count``); False for kinds of problem.
    """
    if twin_text is None:
        return
    for word in words:
        if not names_more(text, twin_text, word, whole, word in absent):
            # Worded for any text (notebook 2 has problems, no observation) and in the order a learner checks it
            # (issue 25's trial found the sentence hard to parse).
            fail(say("{what} does not single out what is wrong: for a similar call whose problem lies elsewhere it "
                     "names this one just as often, as a text that is the same whatever is wrong (or that only "
                     "repeats what was sent) would. {fix}", what=said(what), fix=said(fix)))


def expect_rejected_after_one_retry(transcript):
    """The common verdict for an invalid call and a model that never fixes it: one retry, then rejection."""
    expect_rejected(transcript)
    expect_one_retry(transcript)


# -- the step exercises (notebooks 0-3 and 6): plain functions, judged by what they return -------------

# Status words a report may quote; any other status is only described (it is the submission's text, and in a
# hidden case it could be the input: an adversarial test).
STATUS_WORDS = frozenset({"ok", "success", "succeeded", "done", "dispatched", "rejected", "reject", "error", "failed",
                          "failure", "invalid", "refused", "denied", "retry", "pending", "skipped", "none", "null"})


def short_word(value):
    """A status value for feedback, from a fixed vocabulary (str): a common status word is quoted, anything
    else is only described, since it is the submission's text and could carry the case's input."""
    if isinstance(value, str) and value in STATUS_WORDS:
        return repr(value)
    if isinstance(value, str):
        return say("another string") if value else say("an empty string")
    return describe_value(value)


def describe_value(value):
    """A short, input-free description of a returned value for feedback (str)."""
    if value is None:
        return "None"
    if hasattr(value, "what"):
        return value.what
    if isinstance(value, (list, dict, str)):
        # Empty or not, never the exact length: a length can spell out a hidden input.
        kind = next(t for t in (list, dict, str) if isinstance(value, t))
        empty, some = {list: (N_("an empty list"), N_("a list")), dict: (N_("an empty dict"), N_("a dict")),
                       str: (N_("an empty str"), N_("a str"))}[kind]
        return say(some if value else empty)
    return say("a {type}", type=type(value).__name__)


def returned(transcript):
    """The value the last call returned, after checking that every call finished."""
    finished(transcript, none_is_stub=False)
    if not transcript.returns:
        fail(say("{function} did not return.", function=transcript.function))
    return transcript.result


def problem_texts(value, what):
    """Fail unless ``value`` is a list of non-empty, bounded texts without tracebacks; return it."""
    what = said(what)
    if not isinstance(value, list):
        fail(say("{what} should be a list of problems, but it was {value}.", what=what, value=describe_value(value)))
    for text in value:
        check_error_text(text, say("A problem in {what}", what=what))
    return value


def expect_parsed(transcript, expected):
    """``parse_call`` returned ``(call, [])`` with ``call`` exactly ``expected`` (a dict), whose arguments also hold the
    valid fields a hidden case drew into the raw call (``transcript.drawn_arguments``) and whose name is the one drawn
    in place of the written one (``transcript.drawn_name``). Raises ``CaseFailed``."""
    if transcript.drawn_arguments and isinstance(expected.get("arguments"), dict):
        expected = {**expected, "arguments": {**expected["arguments"], **transcript.drawn_arguments}}
    if transcript.drawn_name is not None and expected.get("name") == transcript.drawn_name[0]:
        expected = {**expected, "name": transcript.drawn_name[1]}
    value = returned(transcript)
    if not (isinstance(value, list) and len(value) == 2):
        fail(say("parse_call must return a pair (call, problems), but it returned {value}.", value=describe_value(value)))
    call, problems = value
    if problems != []:
        fail(say("parse_call reported problems for a raw call that is a valid JSON object; return (call, []) for it."))
    if not strict_equal(call, expected):
        fail(say("parse_call returned a call that differs from what was sent: keep every key and value exactly as "
                 "parsed, with arguments set to {{}} only when it was missing or null."))


def expect_parse_error(transcript, mentions=(), fix="", accepted=""):
    """``parse_call`` returned ``(None, [problem, ...])`` whose text mentions ``mentions``.

    ``accepted``: when the input is something json.loads lets through, why it is still not a call
    (str), added to the feedback if a call was returned.
    """
    value = returned(transcript)
    fix, accepted = said(fix), said(accepted)
    if not (isinstance(value, list) and len(value) == 2):
        fail(say("parse_call must return a pair (call, problems), but it returned {value}.", value=describe_value(value)))
    call, problems = value
    if call is not None:
        fail(say("parse_call returned a call for text that is not exactly one JSON object ({accepted}); return (None, "
                 "[problem]) instead and repair nothing.", accepted=accepted) if accepted else
             say("parse_call returned a call for text that is not exactly one JSON object; return (None, [problem]) "
                 "instead and repair nothing."))
    if not problems:
        fail(say("parse_call returned no problem for invalid input. {silent_failure}", silent_failure=say(SILENT_FAILURE)))
    problem_texts(problems, say("parse_call's problems"))
    if mentions:
        expect_mentions(" ".join(problems), mentions, say("parse_call's problem text"), fix)


def expect_no_violations(transcript, function="validate_call"):
    """The validator returned ``[]`` (a valid call)."""
    value = returned(transcript)
    if value != []:
        fail(say("{function} reported problems for a valid call ({value}); it must return [] so the call can be "
                 "dispatched.", function=function, value=describe_value(value)))


def expect_violations(transcript, mentions=(), fix="", function="validate_call"):
    """The validator returned a non-empty list of problems whose text mentions ``mentions``."""
    value = returned(transcript)
    if value == [] or value is None:
        fail(say("{function} returned no problem for an invalid call. {unchecked_dispatch}", function=function, unchecked_dispatch=say(UNCHECKED_DISPATCH)))
    problem_texts(value, say("{function}'s result", function=function))
    if mentions:
        expect_mentions(" ".join(value), mentions, say("{function}'s problem text", function=function), fix)
    return value


def expect_no_observation(transcript):
    """``observe`` returned None for a valid call."""
    value = returned(transcript)
    if value is not None:
        fail(say("observe returned {value} for a valid call; return None so the call is dispatched.", value=describe_value(value)))


def expect_observation(transcript, mentions=(), fix=""):
    """``observe`` returned usable observation text mentioning ``mentions``; returns the text."""
    value = returned(transcript)
    if value is None:
        fail(say("observe returned None for an invalid call, so it would be dispatched. {unchecked_dispatch}", unchecked_dispatch=say(UNCHECKED_DISPATCH)))
    check_error_text(value, say("The observation"))
    if mentions:
        expect_mentions(value, mentions, say("The observation"), fix)
    return value


# -- notebook 7: a turn with many calls -----------------------------------------------------------------------------

OPENAI_ANSWER_KEYS = frozenset({"role", "tool_call_id", "content"})
ANTHROPIC_RESULT_KEYS = frozenset({"type", "tool_use_id", "content", "is_error"})


def turn_calls(message, provider):
    """The tool calls of an assistant turn as the grader reads them: ``[(call_id, tool_call), ...]`` in order
    (OpenAI's ``tool_calls`` entries; Anthropic's ``tool_use`` blocks, text blocks left out)."""
    if not isinstance(message, dict):
        return []
    if provider == "openai":
        return [(c.get("id"), c) for c in message.get("tool_calls") or [] if isinstance(c, dict)]
    content = message.get("content")
    return [(b.get("id"), b) for b in content if isinstance(b, dict) and b.get("type") == "tool_use"] \
        if isinstance(content, list) else []


# What ``_count`` counts: ``{noun: (singular, plural)}``, each a text with ``{count}`` (Russian has three forms).
COUNTED = {
    "call": Nn_("{count} call", "{count} calls"),
    "message": Nn_("{count} message", "{count} messages"),
    "tool_use block": Nn_("{count} tool_use block", "{count} tool_use blocks"),
    "block": Nn_("{count} block", "{count} blocks"),
    "time": Nn_("{count} time", "{count} times"),
}


def _count(number, noun):
    """``"1 call"``, ``"3 calls"`` in the current language (str); ``noun`` a key of ``COUNTED``."""
    singular, plural = COUNTED[noun]
    return ngettext(singular, plural, number).format(count=number)


def _answers_of(value, provider, count):
    """The per-call answers in ``value`` (what answer_turn returned) for a turn of ``count`` calls, after checking the
    provider's shape: ``[(call_id, content, is_error or None), ...]``."""
    if not isinstance(value, list):
        fail(say("answer_turn must return a list of messages to append, but it returned {value}.", value=describe_value(value)))
    if provider == "openai":
        if len(value) != count:
            fail(say("OpenAI wants one tool message per tool call: this turn had {count} and answer_turn returned "
                     "{count2}.", count=_count(count, 'call'), count2=_count(len(value), 'message')))
        answers = []
        for item in value:
            if not isinstance(item, dict) or set(item) != OPENAI_ANSWER_KEYS or item.get("role") != "tool":
                fail(say("Each OpenAI answer is exactly {{\"role\": \"tool\", \"tool_call_id\": id, \"content\": text}}: no "
                         "other key (OpenAI's tool message has no is_error; the text says what failed)."))
            answers.append((item["tool_call_id"], item["content"], None))
        return answers
    if count == 0:
        if value:
            fail(say("A turn without tool_use blocks needs no answer: return [] (a user message with empty content "
                     "is refused by the API)."))
        return []
    if len(value) != 1 or not isinstance(value[0], dict) or set(value[0]) != {"role", "content"} \
            or value[0].get("role") != "user" or not isinstance(value[0].get("content"), list):
        fail(say("Anthropic wants every result of a turn in one message: return [{{\"role\": \"user\", \"content\": "
                 "[tool_result blocks]}}] (results split over several messages teach the model to stop calling tools "
                 "in parallel)."))
    blocks = value[0]["content"]
    if len(blocks) != count:
        fail(say("Every tool_use needs exactly one tool_result: this turn had {count} and the message held {count2}.", count=_count(count, 'tool_use block'), count2=_count(len(blocks), 'block')))
    answers = []
    for block in blocks:
        if not isinstance(block, dict) or not {"type", "tool_use_id", "content"} <= set(block) <= ANTHROPIC_RESULT_KEYS \
                or block.get("type") != "tool_result":
            fail(say("Each Anthropic answer is a block {{\"type\": \"tool_result\", \"tool_use_id\": id, \"content\": text, "
                     "\"is_error\": bool}}, with no other key."))
        if "is_error" in block and type(block["is_error"]) is not bool:
            fail(say("is_error must be the boolean true or false, not a string or a number: the API checks the JSON "
                     "type."))
        answers.append((block["tool_use_id"], block["content"], block.get("is_error", False)))
    return answers


def _checked_observation(transcript, tool_call):
    """What the grader's check answered for ``tool_call`` in this case (its observation, str or None), or the marker
    ``NOT_CHECKED`` when the submission never asked about it."""
    for value, answer in transcript.checks:
        if strict_equal(value, tool_call) and isinstance(answer, (list, tuple)) and len(answer) == 2:
            return answer[1]
    return NOT_CHECKED


NOT_CHECKED = object()


def _carries(content, reply):
    """Whether an answer's ``content`` carries ``reply`` (what dispatch returned, or the exception it raised)."""
    if isinstance(reply, Exception):
        return isinstance(content, str) and type(reply).__name__ in content
    if isinstance(reply, str):
        return content == reply
    try:
        return isinstance(content, str) and strict_equal(json.loads(content), reply)
    except ValueError:
        return False


def _reply_for(unused, call_id, tools, tool_call, content):
    """The reply (or exception) of the dispatch that answers this call, taken out of ``unused`` (a list of
    ``(dispatch, reply)``): the first of the same call whose reply ``content`` carries, else the first of the same
    call (its mismatch is then reported), else None."""
    from grader.judging import reference_steps

    call, _observation = reference_steps.check_tool_call(tool_call, tools)
    same = [pair for pair in unused if strict_equal(list(pair[0]), [call["name"], call["arguments"]])]
    chosen = next((pair for pair in same if _carries(content, pair[1])), same[0] if same else None)
    if chosen is None:
        return None
    unused.remove(chosen)
    return chosen[1]


def expect_turn_answered(transcript, provider, tools):
    """Judge notebook 7's ``answer_turn`` on one turn (``grader.judging.harness.ExerciseHarness.turn``).

    The rules (the notebook states each): every call id answered exactly once, in the order sent, in the provider's
    shape; a call whose id the caller's ``done`` already holds is not run and gets the stored answer; a call the check
    refuses is never dispatched and is answered with the check's observation, unchanged, as an error; every other call
    the check passes is dispatched exactly once, with the call as checked, even when a sibling was refused; its result
    goes back as text (a string as it is, anything else as JSON); a tool that raised is answered as an error naming the
    exception's type, in usable error text (bounded, no traceback); answering the same turn again (``times`` > 1, one
    ``done``) dispatches nothing again and gives the same answers; ``answer_turn`` never raises.

    Args:
        transcript: the case's ``Transcript`` (``turn`` and ``done`` set). provider: ``"openai"`` or ``"anthropic"``.
        tools: the registry the calls were checked against (Python classes, the cases' words).
    Raises:
        CaseFailed: the first rule broken, in one sentence that names no hidden input.
    """
    from grader.judging import reference_steps

    returned(transcript)
    if any(kind == "raised" for kind, _value in transcript.returns):
        fail(say("answer_turn raised an exception while answering a turn: it must answer every call, and a tool that "
                 "fails is answered with an error, never raised."))
    results = [value for kind, value in transcript.returns if kind == "returned"]
    calls = turn_calls(transcript.turn, provider)
    stored = transcript.done or {}
    answers = _answers_of(results[0], provider, len(calls))
    if [a[0] for a in answers] != [c[0] for c in calls]:
        fail(say("The answers' ids must be the calls' ids, each exactly once and in the order the model sent them: "
                 "the provider refuses a request whose results name an id it did not send, or leave one out."))
    expected = []  # (name, arguments) of each call that should run, in order
    for call_id, tool_call in calls:
        call, observation = reference_steps.check_tool_call(tool_call, tools)
        if observation is None and call_id not in stored:
            expected.append((call["name"], call["arguments"]))
    dispatched = list(transcript.dispatches)
    if len(dispatched) == len(expected) and any(not strict_equal(list(d), list(e)) for d, e in zip(dispatched, expected)) \
            and all(any(strict_equal(list(d), list(e)) for d in dispatched) for e in expected):
        fail(say("The calls ran in another order than the model sent them: run them one after another, in the order "
                 "sent (this notebook's policy; threads finish in any order)."))
    if len(dispatched) > len(expected) or any(not strict_equal(list(d), list(e)) for d, e in zip(dispatched, expected)):
        fail(say("A call was dispatched that check refused, or with other arguments than check returned, or a second "
                 "time, or one whose id done already held: dispatch each call check passes once, as check returned "
                 "it."))
    if len(dispatched) < len(expected):
        fail(say("A call that check passed was not dispatched: in this turn's policy each call stands on its own, so "
                 "a valid call runs even when another call of the same turn was refused or failed."))
    # Which reply answers which call: each call takes the first unused dispatch of the same call whose reply its
    # answer carries (the same call sent twice may run in either order; threads did).
    unused = list(zip(dispatched, transcript.dispatch_replies))
    for index, ((call_id, tool_call), (_id, content, is_error)) in enumerate(zip(calls, answers)):
        if call_id in stored:
            answer = results[0][index] if provider == "openai" else results[0][0]["content"][index]
            if not strict_equal(answer, stored[call_id]):
                fail(say("A call whose id done already held must get the answer stored there, as it is, and not run: "
                         "the id is the idempotency key."))
            continue
        if not isinstance(content, str):
            fail(say("Every answer's content must be text (str); one was {content}.", content=describe_value(content)))
        observation = _checked_observation(transcript, tool_call)
        if observation is NOT_CHECKED:
            fail(say("A call of the turn was answered without asking check about it: check every call, the one tool "
                     "call as the provider sent it."))
        if observation is not None:
            if content != observation:
                fail(say("A refused call's answer must carry check's observation unchanged: it is what tells the "
                         "model what to fix."))
            if is_error is False and provider == "anthropic":
                fail(say("A refused call's tool_result must have is_error true: the model then knows the call did "
                         "not run."))
            continue
        reply = _reply_for(unused, call_id, tools, tool_call, content)
        if isinstance(reply, Exception):
            if type(reply).__name__ not in content:
                fail(say("When dispatch raises, the answer must name the exception's type (TimeoutError, "
                         "RuntimeError...): the model and whoever reads the log learn what failed."))
            check_error_text(content, say("The answer for a tool that raised"))
            if is_error is False and provider == "anthropic":
                fail(say("A tool that raised is answered with is_error true: the call did not give a result."))
            continue
        if isinstance(reply, str):
            good = content == reply
        else:
            try:
                good = strict_equal(json.loads(content), reply)
            except ValueError:
                good = False
        if not good:
            fail(say("A dispatched call's answer must be what dispatch returned: a string as it is, anything else as "
                     "JSON (json.dumps; str() of a dict is Python, not JSON)."))
        if is_error is True:
            fail(say("A call that ran and returned is answered with is_error false (or without is_error)."))
    if any(not strict_equal(result, results[0]) for result in results[1:]):
        fail(say("Answering the same turn again with the same done must give the very same answers, error flags "
                 "included: store each answer whole (its text and whether it was an error) and send it again as it "
                 "is."))


# -- notebook 8: the agent loop ---------------------------------------------------------------------------------------

# The budgets a loop case runs with unless it says otherwise, and the stop reasons (notebook 8 states each).
LOOP_LIMITS = {"max_turns": 10, "tool_failures": 3, "model_retries": 2, "backoff": 0.5}
# What the scripted model (``scripted_models.LoopScript``) answers once its script runs out: a plain answer, so a loop
# that asks on past where it should have stopped still ends (and is judged by the requests it made).
LOOP_FINAL = {"role": "assistant", "content": "That is all I can do.", "calls": []}
LOOP_STOPS = ("answered", "no_progress", "tool_failures", "max_turns", "model_unavailable", "model_error")
LOOP_RESULT_KEYS = {"stop", "answer", "turns", "tool", "messages"}
TRANSIENT_ERRORS = ("TimeoutError", "ConnectionError")
LOOP_STOP_RULES = {
    "answered": N_("A reply without calls is the model's answer: stop with \"answered\" and its content as the answer."),
    "no_progress": N_("A call sent again exactly as one refused in an earlier turn is no progress: answer that turn, then "
                    "stop with \"no_progress\" and the tool's name (the same call meets the same refusal; one run sent "
                    "one 85 times until its turns ran out)."),
    "tool_failures": N_("A tool whose calls failed (refused, or the tool raised) tool_failures times in a row, counted "
                      "across turns, stops the run after that turn with \"tool_failures\" and the tool's name, even if "
                      "the tool succeeds later in the same turn."),
    "max_turns": N_("After max_turns replies from the model, answer the last reply's calls and stop with \"max_turns\" "
                  "instead of asking again."),
    "model_unavailable": N_("A model that raises TimeoutError or ConnectionError is retried at most model_retries times for "
                          "one request; when that runs out, stop with \"model_unavailable\"."),
    "model_error": N_("A model that raises anything other than TimeoutError or ConnectionError is not retried (the same "
                    "request fails the same way): stop at once with \"model_error\"."),
}
TOOL_MESSAGE = N_("{\"role\": \"tool\", \"id\": the call's id, \"content\": text, \"is_error\": bool}, one per call of "
                  "the reply, in the order sent")  # shown with _(), never formatted: its braces are literal


class _Content:
    """What a tool message's content must be: ``kind`` ``"observation"`` (``value`` the check's text, unchanged),
    ``"result"`` (``value`` what dispatch returned: the same text, or it as JSON) or ``"raised"`` (``value`` the
    exception: a bounded error text naming its type)."""

    def __init__(self, kind, value):
        self.kind, self.value = kind, value


def _loop_key(value):
    """A hashable key for a raw call (any JSON value): its JSON text."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _loop_tool(call):
    """Whose failure a call is: the tool name when it is a str, else None (every nameless failure shares a count)."""
    return call["name"] if isinstance(call, dict) and isinstance(call.get("name"), str) else None


def loop_expected(transcript, tools):
    """What notebook 8's rules make of a loop case: the run the reference would make with the same model, the same
    check and the dispatch replies the case actually gave.

    Args:
        transcript: the case's ``Transcript`` (``loop``, ``checks``, ``dispatches``, ``dispatch_replies``).
        tools: the registry (Python classes, the cases' words).
    Returns:
        dict: ``requests`` (the conversations the model should get, tool contents as ``_Content``), ``sleeps``
        (seconds), ``dispatches`` (``(name, arguments)``), ``stop``, ``answer``, ``turns``, ``tool``, ``messages``.
    """
    from grader.judging import reference_steps

    task, steps, limits = transcript.loop
    checked = {}
    for raw, answer in transcript.checks:
        if isinstance(answer, (list, tuple)) and len(answer) == 2:
            checked.setdefault(_loop_key(raw), list(answer))
    # Each dispatch's reply, taken by the call it answered: a loop may run a turn's calls in another order (threads
    # do), and a reply given to the wrong call's message must not pass (an attacker's trial of notebook 8).
    unused = list(zip(transcript.dispatches, transcript.dispatch_replies))
    messages = [{"role": "user", "content": task}]
    out = {"requests": [], "sleeps": [], "dispatches": [], "answer": None, "tool": None}
    failures, refused, turns, index = {}, set(), 0, 0

    def end(stop, **extra):
        out.update(stop=stop, turns=turns, messages=messages, **extra)
        return out

    while True:
        reply = None
        for attempt in range(limits["model_retries"] + 1):
            out["requests"].append(copy.deepcopy(messages))
            step = steps[index] if index < len(steps) else LOOP_FINAL
            index += 1
            if "raise" not in step:
                reply = step
                break
            if step["raise"] not in TRANSIENT_ERRORS:
                return end("model_error")
            if attempt < limits["model_retries"]:
                out["sleeps"].append(limits["backoff"] * 2 ** attempt)
        if reply is None:
            return end("model_unavailable")
        turns += 1
        messages.append(copy.deepcopy(reply))
        calls = reply.get("calls") or []
        if not calls:
            return end("answered", answer=reply.get("content"))
        repeated, worn, refused_now = None, None, set()
        for entry in calls:
            raw = entry.get("raw")
            call, observation = checked.get(_loop_key(raw)) or reference_steps.check(raw, tools)
            key = _loop_tool(call)
            if observation is not None:
                content, is_error = _Content("observation", observation), True
                if _loop_key(raw) in refused and repeated is None:
                    repeated = (key,)  # a tuple: a nameless call repeated is no progress too
                refused_now.add(_loop_key(raw))
            else:
                out["dispatches"].append((call["name"], call["arguments"]))
                pair = next((p for p in unused if strict_equal(list(p[0]), [call["name"], call["arguments"]])), None)
                given = None
                if pair is not None:
                    unused.remove(pair)
                    given = pair[1]
                is_error = isinstance(given, Exception)
                content = _Content("raised" if is_error else "result", given)
            failures[key] = failures.get(key, 0) + 1 if is_error else 0
            if failures[key] >= limits["tool_failures"] and worn is None:
                worn = (key,)
            messages.append({"role": "tool", "id": entry.get("id"), "content": content, "is_error": is_error})
        refused |= refused_now
        if repeated is not None:
            return end("no_progress", tool=repeated[0])
        if worn is not None:
            return end("tool_failures", tool=worn[0])
        if turns >= limits["max_turns"]:
            return end("max_turns")


def _same_content(actual, expected):
    """Whether a tool message's ``actual`` content is what ``expected`` (a ``_Content``) asks for."""
    if expected.kind == "observation":
        return actual == expected.value
    if expected.kind == "raised":
        return isinstance(actual, str) and type(expected.value).__name__ in actual
    return _carries(actual, expected.value)


def _conversation_problem(actual, expected, where):
    """The first way ``actual`` (a conversation, JSON data) differs from ``expected`` (``loop_expected``'s), as one
    sentence naming no hidden input, or None when they agree. ``where``: what the conversation is, for the sentence."""
    if not isinstance(actual, list):
        return say("{where} must be the list of messages, not {actual}.", where=where, actual=describe_value(actual))
    for position, (got, want) in enumerate(zip(actual, expected)):
        if want.get("role") != "tool":
            if not strict_equal(got, want):
                what = say("the task as the user's message") if position == 0 \
                    else say("the model's reply, exactly as it came")
                return (say("{where}: message {number} must be {what}; the conversation is the task, then each reply "
                            "followed by its tool messages ({tool_message}).", where=where, number=position + 1, what=what, tool_message=_(TOOL_MESSAGE)))
            continue
        if not isinstance(got, dict) or set(got) != {"role", "id", "content", "is_error"} or got.get("role") != "tool":
            return say("{where}: after a reply with calls come its tool messages, each exactly {tool_message}.", where=where, tool_message=_(TOOL_MESSAGE))
        if got.get("id") != want["id"]:
            return (say("{where}: each tool message carries its call's id, in the order the calls were sent (the id "
                        "is how the model matches an answer to its call).", where=where))
        if type(got["is_error"]) is not bool or got["is_error"] is not want["is_error"]:
            return (say("{where}: is_error must be true for a refused call or a tool that raised, false for a result "
                        "(the boolean, not a string).", where=where))
        content = want["content"]
        if not isinstance(got["content"], str):
            return say("{where}: a tool message's content is text (str), not {got}.", where=where, got=describe_value(got['content']))
        if not _same_content(got["content"], content):
            return {"observation": say("{where}: a refused call's tool message carries check's observation, "
                                       "unchanged: it is what tells the model what to fix.", where=where),
                    "result": say("{where}: a dispatched call's tool message carries what dispatch returned, as text "
                                  "(a string as it is, anything else as JSON).", where=where),
                    "raised": say("{where}: when dispatch raises, the tool message names the exception's type "
                                  "(TimeoutError, RuntimeError...), as an error.", where=where)}[content.kind]
        if content.kind == "raised":
            check_error_text(got["content"], say("The tool message for a tool that raised"))
    if len(actual) != len(expected):
        return (say("{where} held {count} where the rules give {expected}: the task, then each reply followed by one "
                    "tool message per call ({tool_message}).", where=where, count=_count(len(actual), 'message'), expected=len(expected), tool_message=_(TOOL_MESSAGE)))
    return None


def expect_loop(transcript, tools):
    """Judge notebook 8's ``run_agent`` on one task (``grader.judging.harness.ExerciseHarness.loop``).

    The rules (notebook 8 states each): the model gets the whole conversation (the task, then each reply followed by
    one tool message per call, in order); every call of a reply is checked and answered, a refused one with its
    observation as an error and never dispatched, a valid one dispatched once as check returned it, a tool that raised
    as an error naming its type; a tool's failures in a row are counted across turns and reset by its success; after a
    turn the run stops for no progress (a call sent again exactly as one refused in an earlier turn), then a tool whose
    failures reached ``tool_failures`` during the turn, then ``max_turns`` replies; a reply without calls is the answer; a transient
    model error is retried at most ``model_retries`` times per request after ``sleep(backoff * 2**k)`` (from half to
    all of it, for jitter), any other is not retried; the result is ``{"stop", "answer", "turns", "tool",
    "messages"}``; ``run_agent`` never raises.

    Args:
        transcript: the case's ``Transcript`` (``loop`` set). tools: the registry (Python classes, the cases' words).
    Raises:
        CaseFailed: the first rule broken, in one sentence that names no hidden input.
    """
    finished(transcript, none_is_stub=False)
    result = returned(transcript)
    if result is None and not transcript.model_requests:
        fail(say("run_agent returned None without asking the model: it still behaves like the stub."))
    if not isinstance(result, dict) or set(result) != LOOP_RESULT_KEYS:
        fail(say("run_agent must return a dict with exactly the keys stop, answer, turns, tool and messages, so the "
                 "caller can act on why the run ended; it returned {result}.", result=describe_value(result)))
    expected = loop_expected(transcript, tools)
    _task, _steps, limits = transcript.loop
    wanted = list(expected["dispatches"])
    for sent in transcript.dispatches:
        match = next((i for i, want in enumerate(wanted) if strict_equal(list(sent), list(want))), None)
        if match is None:
            fail(say("A call was dispatched that check refused, or with other arguments than check returned, or a "
                     "second time, or after the run should have stopped: dispatch each call check passes once, as "
                     "check returned it."))
        wanted.pop(match)
    stop = result["stop"]
    if stop != expected["stop"]:
        if stop not in LOOP_STOPS:
            fail(say("stop must be one of {join}: the caller acts on it; it was {stop}.", join=', '.join(LOOP_STOPS), stop=describe_value(stop)))
        fail(say("The run ended with {stop!r} where the rules give another reason. {loop_stop_rules}", stop=stop, loop_stop_rules=_(LOOP_STOP_RULES[expected['stop']])))
    requests, want_requests = transcript.model_requests, expected["requests"]
    if len(requests) > len(want_requests):
        fail(say("run_agent asked the model {count} where the rules stop after {want_requests}: once a stop is due, "
                 "return; never ask again. {loop_stop_rules}", count=_count(len(requests), 'time'), want_requests=len(want_requests), loop_stop_rules=_(LOOP_STOP_RULES[expected['stop']])))
    if len(requests) < len(want_requests):
        fail(say("run_agent asked the model {count} where the rules ask {want_requests}: keep asking while no stop "
                 "is due, and retry a TimeoutError or ConnectionError up to model_retries times.", count=_count(len(requests), 'time'), want_requests=len(want_requests)))
    for number, (got, want) in enumerate(zip(requests, want_requests), start=1):
        problem = _conversation_problem(got, want, say("The conversation handed to the model in request {number}",
                                                                number=number))
        if problem:
            fail(problem)
    if wanted:
        fail(say("A call that check passed was not dispatched: every valid call of a reply runs, even beside a "
                 "refused one."))
    sleeps, want_sleeps = transcript.sleeps, expected["sleeps"]
    if len(sleeps) != len(want_sleeps):
        fail(say("run_agent waited {count} where the rules wait {want_sleeps}: call sleep(backoff * 2**k) before "
                 "retry k of a request (k = 0, 1...), and only before a retry.", count=_count(len(sleeps), 'time'), want_sleeps=len(want_sleeps)))
    for k, (got, want) in enumerate(zip(sleeps, want_sleeps)):
        if type(got) not in (int, float) or not want / 2 <= got <= want:
            fail(say("The wait before retry k is backoff * 2**k seconds (k = 0 for the first retry of a request; "
                     "with jitter, from half of that to all of it): exponential backoff gives an overloaded service "
                     "room."))
    if result["turns"] != expected["turns"] or type(result["turns"]) is not int:
        fail(say("turns must count the model's replies (a retried request that failed is no turn)."))
    if expected["stop"] == "answered" and not strict_equal(result["answer"], expected["answer"]):
        fail(say("answer must be the content of the model's reply without calls, as it came."))
    if expected["stop"] != "answered" and result["answer"] is not None:
        fail(say("answer is None unless the model answered: a run stopped by a budget has no answer."))
    if not strict_equal(result["tool"], expected["tool"]):
        fail(say("tool must name the tool behind a no_progress or tool_failures stop (the first of that turn's calls "
                 "to repeat a refused call, or whose failure brought its tool to the limit), and be None for every "
                 "other stop."))
    problem = _conversation_problem(result["messages"], expected["messages"], say("The returned messages"))
    if problem:
        fail(problem)


# -- notebook 9: validation is not authorisation ----------------------------------------------------------------------

def path_rule(path, root):
    """Which rule a refused ``path`` breaks, as the sentence a failed case gives (str); None when it is allowed. Taken
    while the case's tree stands (links are read)."""
    from grader.judging.file_trees import real_target, verdict

    if verdict(path, root) is not None:
        return None
    if not isinstance(path, str) or not path:
        return say("A path must be a non-empty string: anything else is refused, never guessed at.")
    if "\x00" in path:
        return say("A path holding a NUL character is refused: the operating system would cut it there.")
    if real_target(path, root) is None:
        return (say("A path that cannot be resolved (a character no file name can hold: realpath raises ValueError) "
                    "is refused, never raised."))
    lexical = os.path.normpath(os.path.join(os.path.realpath(root), path))
    if os.path.commonpath([lexical, os.path.realpath(root)]) == os.path.realpath(root):
        return (say("A path that leads outside the allowed folder through a symbolic link is refused: resolve links "
                    "with os.path.realpath before the check, as the operating system will follow them."))
    return (say("A path that leads outside the allowed folder (through .., or an absolute path elsewhere, or a "
                "sibling whose name starts like the folder's) is refused: compare whole components of the real paths "
                "(os.path.commonpath), not strings."))


def expect_confined(transcript):
    """Judge notebook 9's ``allowed_path`` on a case's path and its control (``ExerciseHarness.confined``).

    The rules (notebook 9 states each): a path is allowed when it is a non-empty string without NUL that, joined to the
    real allowed folder when relative and with ``..`` and every symbolic link resolved (``os.path.realpath``), stays
    inside that folder by whole components; then ``allowed_path`` returns ``(real_path, None)`` with that real path.
    Otherwise it returns ``(None, reason)``: a non-empty, bounded sentence with no traceback that names no real path
    outside the folder. It never raises.

    Raises:
        CaseFailed: the first rule broken, in one sentence that names no hidden input.
    """
    finished(transcript, none_is_stub=False)
    results = [value for kind, value in transcript.returns if kind == "returned"]
    if len(results) != len(transcript.paths):
        fail(say("allowed_path did not return for every path it was given."))
    for (path, root, expected, rule, secrets), value in zip(transcript.paths, results):
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            fail(say("allowed_path must return a pair (real_path, None) or (None, reason); it returned {value}.", value=describe_value(value)))
        real, reason = value
        if expected is not None:
            if real is None:
                fail(say("A path that stays inside the allowed folder was refused: only where a path really leads "
                         "decides (a name with dots, a/../b inside, a link that stays inside and a file not made yet "
                         "are all inside)."))
            if real != expected or reason is not None:
                fail(say("An allowed path must come back as (real_path, None), real_path the path with .. and every "
                         "symbolic link resolved (os.path.realpath), joined to the allowed folder when relative: "
                         "that is the file the tool will open."))
            continue
        if real is not None:
            fail(rule)
        if not isinstance(reason, str) or not reason.strip():
            fail(say("A refused path must come with a reason for the model, a sentence; it was {reason}.", reason=describe_value(reason)))
        check_error_text(reason, say("The reason for a refused path"))
        squeezed = "".join(reason.split())
        if any("".join(item.split()) in squeezed for item in secrets):
            fail(say("The reason names what lies outside the allowed folder (where the path really leads, a link's "
                     "target, a file outside or its contents): the model, and whoever reads its context, must not "
                     "learn it; say which rule the path broke and quote at most the path the model sent."))

"""Judging a Transcript against the contract, with feedback a learner can act on.

Every check raises ``CaseFailed`` with one or two sentences: what the submission did, and how to
fix it, naming the seed's anti-pattern where one applies. No check prints the case's input, so
the same checks serve hidden cases (input secret) and visible self-checks.
Standard library only: the notebooks' self-checks import this module in the learner's kernel.
"""

MAX_OBSERVATION_CHARS = 2000  # the contract's bound on observation and error text

# The seed's three anti-patterns ("✗" lines of the exercise card), as the feedback names them.
UNCHECKED_DISPATCH = "Anti-pattern: dispatching a call whose arguments were not checked against the schema."
UNBOUNDED_RETRY = "Anti-pattern: retrying without a bound instead of one retry and a graceful rejection."
SILENT_FAILURE = "Anti-pattern: failing without error text, so the model cannot correct itself."


class CaseFailed(AssertionError):
    """A case's verdict: ``str(exc)`` is the learner-facing feedback (no hidden input, no traceback)."""


def fail(message, transcript=None):
    """Raise ``CaseFailed`` with ``message`` (the transcript is accepted for call-site symmetry;
    notes about the submission are added by the grader's plugin, which sees every failure)."""
    raise CaseFailed(message)


def strict_equal(a, b):
    """Equality of JSON data that also compares types: ``1 != 1.0 != True`` here.

    Args:
        a, b: plain JSON data (dict, list, str, int, float, bool, None).
    Returns:
        bool.
    """
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    return a == b


def has_traceback(text):
    """True if ``text`` looks like it contains a Python traceback."""
    return "Traceback (most recent call last)" in text or ('", line ' in text and 'File "' in text)


def finished(transcript):
    """Fail unless every call returned normally (no timeout, crash or exception)."""
    if transcript.problem:
        fail(transcript.problem)
    if (transcript.returns and transcript.returns[-1] == ("returned", None) and not transcript.observations
            and not transcript.dispatches):
        fail("handle_tool_call returned None without asking the model or dispatching anything: it still behaves like "
             "the stub. Return dispatch's result or a rejection.", transcript)
    if transcript.raised:
        fail(f"handle_tool_call raised {transcript.raised} instead of returning. It must never raise: "
             "catch the problem and return a rejection with error text.", transcript)


def check_error_text(text, what):
    """Fail unless ``text`` is usable error text: a non-empty string, bounded, with no traceback."""
    if not isinstance(text, str) or not text.strip():
        shown = "an empty string" if isinstance(text, str) else getattr(text, "what", type(text).__name__)
        fail(f"{what} was {shown}, not error text. {SILENT_FAILURE}")
    if len(text) > MAX_OBSERVATION_CHARS:
        fail(f"{what} was {len(text):,} characters long; keep it under {MAX_OBSERVATION_CHARS:,} (quote values "
             "briefly, never the whole call), or it floods the model's context.")
    if has_traceback(text):
        fail(f"{what} contains a Python traceback; give the model a sentence about its call, not the runtime's internals.")


def expect_rejected(transcript):
    """The call must end as ``{"status": "rejected", "error": <text>}`` with nothing dispatched."""
    finished(transcript)
    if transcript.dispatches:
        fail(f"A call that should have been rejected was dispatched. {UNCHECKED_DISPATCH}", transcript)
    result = transcript.result
    if not isinstance(result, dict) or result.get("status") != "rejected":
        shown = getattr(result, "what", None) or (f"a dict with status {result.get('status')!r}" if isinstance(result, dict)
                                                  else "None" if result is None else f"a {type(result).__name__}")
        fail(f'Expected the rejection {{"status": "rejected", "error": ...}}, but handle_tool_call returned {shown}.', transcript)
    check_error_text(result.get("error"), "The rejection's error")


def expect_one_retry(transcript):
    """``ask_model`` must have been called exactly once, with usable observation text."""
    finished(transcript)  # a crash or timeout is the root cause to report, not the missing retry
    count = len(transcript.observations)
    if count == 0:
        fail("The model was never asked to retry. An invalid call gets one retry: call ask_model(error_text) "
             f"so the model can fix it. {SILENT_FAILURE}", transcript)
    if count > 1:
        fail(f"ask_model was called {count} times for one call; the retry budget is one. {UNBOUNDED_RETRY}", transcript)
    check_error_text(transcript.observations[0], "The observation passed to ask_model")


def expect_no_retry(transcript):
    """``ask_model`` must not be called (the call was valid)."""
    finished(transcript)
    if transcript.observations:
        fail("ask_model was called although the call was valid; a valid call is dispatched at once.", transcript)


def expect_dispatched(transcript, name, arguments):
    """Exactly one dispatch of exactly ``(name, arguments)``, and its reply returned unchanged."""
    finished(transcript)
    if not transcript.dispatches:
        fail("A valid call was never dispatched: call dispatch(name, arguments) once every check passes, and return "
             "what it returns.", transcript)
    if len(transcript.dispatches) > 1:
        fail(f"dispatch was called {len(transcript.dispatches)} times for one call; dispatch at most once.", transcript)
    got_name, got_arguments = transcript.dispatches[0]
    if not strict_equal(got_name, name):
        fail("dispatch received a different tool name than the model sent; dispatch the name exactly as sent.", transcript)
    if not strict_equal(got_arguments, arguments):
        fail("dispatch received different arguments than the model sent (a field added, dropped, converted or "
             "re-typed). Dispatch exactly what was sent: no coercion, no dropped fields.", transcript)
    if not strict_equal(transcript.result, transcript.dispatch_replies[0]):
        fail("handle_tool_call did not return what dispatch returned; return dispatch's result unchanged.", transcript)


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
            fail(f"{what} does not say everything the model needs: {fix}")


def expect_rejected_after_one_retry(transcript):
    """The common verdict for an invalid call and a model that never fixes it: one retry, then rejection."""
    expect_rejected(transcript)
    expect_one_retry(transcript)

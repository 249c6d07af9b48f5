"""Bounded retry: exactly one retry after an invalid call, then a graceful rejection.

The cases whose every call is refused ask for valid fields drawn around each call's fault (``vary=True``,
``grader.judging.draw.Draw.varied_call``); the model's replies stay as written (a valid retry is valid under the
drawn registry too, and is dispatched as the model sent it, with any drawn field its tool requires). The cases with
one call whose model never sends a valid one have the call made again from its kind (``vary="template"``,
``grader.judging.draw.Draw.templated``).
"""

import pytest

from grader.judging.expectations import (
    expect_dispatched,
    expect_mentions,
    expect_no_retry,
    expect_one_retry,
    expect_rejected,
    fail,
    finished,
)
from grader.judging.rule_ids import rule_id
from grader.judging.scripted_models import Answers, Fails, NeverCorrects, make_call
from grader.judging.wordings import RETRY_FAILED
from grader.translations import N_, say

GROUP = N_("Bounded retry")
ORDER = 6

# Refusing is only worth points when valid input is accepted (see grader/judging/canaries.py).
pytestmark = pytest.mark.gate("accepts")

BUDGET_RULE = N_("An invalid call gets exactly one retry (one call to ask_model); after that, a rejection with error text.")
VALID = make_call("get_weather", {"city": "Bogotá"})  # not the visible cases' Paris: hidden cases must not be guessable
INVALID = make_call("get_weather", {"city": 75001})


@pytest.mark.points(2)
@pytest.mark.rule(BUDGET_RULE)
@rule_id("retry.budget")
def test_model_that_never_corrects_itself(harness):
    """A model that repeats the same invalid call is asked once, then rejected.

    Why: the seed's anti-pattern "retrying forever": without a bound, one stubborn model burns the
    agent's whole step budget.
    """
    transcript = harness.run(INVALID, model=NeverCorrects(INVALID), vary="template")
    expect_rejected(transcript)
    expect_one_retry(transcript)


@pytest.mark.points(1)
@pytest.mark.rule(BUDGET_RULE)
@rule_id("retry.budget", "retry.checked-from-the-start")
def test_model_answers_garbage(harness):
    """A retry that is prose instead of a call ends in a rejection that says it is not JSON.

    Why: the retry's answer must be validated from the start, like the first call.
    """
    transcript = harness.run(INVALID, model=Answers("Sorry, I cannot help with that."), vary="template")
    expect_rejected(transcript)
    expect_one_retry(transcript)
    expect_mentions(transcript.result["error"], ["json"], say("The rejection's error"), say("say that the retry was not "
                                                                                       "valid JSON."))


@pytest.mark.points(1)
@pytest.mark.rule(BUDGET_RULE)
@rule_id("retry.budget", "retry.checked-from-the-start")
def test_model_answers_none(harness):
    """A retry that returns None instead of text ends in a rejection, not a crash.

    Why: model clients return None for an empty or filtered completion; json.loads(None) raises
    TypeError, which catching JSONDecodeError alone does not handle.
    """
    transcript = harness.run(INVALID, model=Answers(None, "a model that answers None"), vary="template")
    expect_rejected(transcript)
    expect_one_retry(transcript)


@pytest.mark.points(1)
@pytest.mark.rule(N_("If ask_model itself raises, the runtime returns a rejection that says the retry failed; it never raises."))
@rule_id("retry.model-fails")
@pytest.mark.parametrize("error", ["ConnectionError", "TimeoutError", "RuntimeError"])
def test_model_call_fails(harness, error):
    """When the model's API call fails during the retry, the result is a rejection.

    Why: network errors and timeouts are routine; an exception escaping the runtime kills the agent
    loop instead of ending one call gracefully.
    """
    transcript = harness.run(INVALID, model=Fails(error, "upstream model API unavailable"), vary="template")
    expect_rejected(transcript)
    expect_one_retry(transcript)
    expect_mentions(transcript.result["error"], [RETRY_FAILED], say("The rejection's error"),
                    say("say that the retry failed because the model could not be asked."))


@pytest.mark.points(1)
@pytest.mark.rule(BUDGET_RULE, N_("A fixed call is checked from the start and then dispatched."))
@rule_id("retry.checked-from-the-start")
@pytest.mark.parametrize("first", [INVALID, '{"name": "get_weather", "arguments": {"city": "Par', "[]"],
                         ids=["after-wrong-type", "after-truncated-json", "after-non-object"])
def test_valid_retry_is_dispatched(harness, first):
    """When the retry is valid, it is dispatched once and its result returned.

    Why: the point of the observation is recovery; a runtime that rejects after any invalid first
    attempt never lets a model recover.
    """
    transcript = harness.run(first, model=Answers(VALID), vary=True)
    expect_one_retry(transcript)
    expect_dispatched(transcript, "get_weather", {"city": "Bogotá"})


@pytest.mark.points(1)
@pytest.mark.rule(BUDGET_RULE, N_("The budget is per call: each new call gets its own retry."))
@rule_id("retry.per-call")
def test_each_call_gets_its_own_retry(harness):
    """Two invalid calls handled one after the other each get one retry.

    Why: a retry counter kept in a global (or a default argument) is spent by the first call, and
    the second call is then rejected without the model ever being told.
    """
    transcript = harness.run([INVALID, INVALID], vary=True)
    finished(transcript)
    if len(transcript.returns) != 2:
        fail(say("The second call did not finish."))
    if transcript.dispatches:
        fail(say("A call that should have been rejected was dispatched."), transcript)
    if len(transcript.observations) != 2:
        # Fewer or more, never the count: a submission could choose it from the hidden input.
        fail(say("Two invalid calls in a row did not get one retry each; keep the retry count local to {function}.", function=transcript.function), transcript)
    expect_rejected(transcript)


@pytest.mark.points(1)
@pytest.mark.rule(N_("A valid call is dispatched at once: ask_model is never called for it."))
@rule_id("retry.no-retry-when-valid")
def test_valid_call_after_invalid_call(harness):
    """A valid call that follows a rejected one is dispatched without a retry.

    Why: state left over from the previous call (an error variable, a flag) must not leak into
    the next one.
    """
    transcript = harness.run([INVALID, VALID], vary="dispatch")  # VALID is dispatched with its drawn fields
    finished(transcript)
    if len(transcript.observations) != 1:
        fail(say("ask_model was not called exactly once over an invalid and then a valid call; expected once (only "
                 "for the invalid one)."), transcript)
    transcript.observations.clear()
    expect_no_retry(transcript)
    expect_dispatched(transcript, "get_weather", {"city": "Bogotá"})

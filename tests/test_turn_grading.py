"""Issue 27: notebook 7's grading holds against the attacker's trials (tests/attacks/turn_*.py and stream_*.py, each
headed by its expected outcome) and agrees with the notebook's self-check."""

import os

import pytest

from conftest import ROOT
from points import available

ATTACKS = os.path.join(ROOT, "tests", "attacks")


def graded_turn(grade, name, *options):
    process, results = grade(os.path.join(ATTACKS, name), "--exercise", "turn", *options)
    assert process.returncode == 0, process.stderr
    return results


def failed(results, part="", hidden=False):
    return [t for t in results["tests"] if t["status"] == "failed" and part in t["name"]
            and (not hidden or "hidden" in t["tags"])]


def test_raising_after_running_earns_no_replay_point(grade):
    """A1: the first answer of each turn that ran a tool raised; the replay's answer was judged alone (6/29)."""
    results = graded_turn(grade, "turn_raises_after_running.py")
    earned = [t["name"] for t in results["tests"] if "hidden" in t["tags"] and t["score"] > 0]
    assert len(failed(results, "answered twice", hidden=True)) == 4
    assert earned == [n for n in earned if n.endswith("[anthropic-all-invalid]")]  # it runs nothing there, rightly


def test_a_cache_of_its_own_instead_of_done_loses_the_recorded_ids(grade):
    """A2: a module-global cache passed every replay (29/29); a done the caller filled before the call catches it."""
    results = graded_turn(grade, "turn_own_cache_instead_of_done.py")
    lost = failed(results, "The caller's done already holds")
    assert len(lost) == 2 and results["score"] == available("turn") - 2


def test_an_error_answer_with_a_traceback_loses_the_tool_error_cases(grade):
    """A3: 19,930 characters with tracebacks passed because the text named every exception type."""
    results = graded_turn(grade, "turn_error_with_traceback.py")
    assert len(failed(results, "dispatch raises for some tools")) == 4
    assert any("traceback" in t["output"] or "2,000" in t["output"] for t in failed(results, "dispatch raises"))


def test_check_by_the_notebooks_keyword_gets_full_marks(grade):
    """F3: check(tool_call=...) raised TypeError in the grader (its proxy was notebook 4's check(raw, tools))."""
    results = graded_turn(grade, "turn_check_by_keyword.py")
    assert results["score"] == available("turn"), [(t["name"], t["output"][:200]) for t in failed(results)]


def _selfcheck(name):
    from grader.learner import selfcheck

    # Run as the notebook runs a cell: compiled from its text, so no bytecode lands beside the attack files.
    path = os.path.join(ATTACKS, name)
    with open(path, encoding="utf-8") as handle:
        namespace = {"__name__": "submission"}
        exec(compile(handle.read(), path, "exec"), namespace)
    return selfcheck.check(namespace["answer_turn"], "turn")


@pytest.mark.parametrize("name, full", [("turn_check_by_keyword.py", True), ("turn_check_with_two_arguments.py", False)])
def test_the_grader_and_the_self_check_agree_on_checks_signature(grade, name, full):
    """F3 and F5: the two disagreed both ways (5/5 and 0/29; 0/5 and 29/29)."""
    report = _selfcheck(name)
    results = graded_turn(grade, name)
    visible = [t for t in results["tests"] if "visible" in t["tags"]]
    assert (report.passed == len(report.rows)) is full
    assert (results["score"] == available("turn")) is full and sum(t["score"] for t in visible) == report.passed


def test_requests_from_threads_are_answered_one_at_a_time(grade):
    """F2: dispatch from four threads read each other's replies (27-28/29, a different score each run)."""
    for seed in ("threads-1", "threads-2"):
        results = graded_turn(grade, "turn_dispatch_from_threads.py", "--seed", seed)
        for case in failed(results):
            assert "another order than the model sent them" in case["output"], case["output"][:300]
            assert "must be what dispatch returned" not in case["output"]


# -- notebook 7b: assemble_turn ---------------------------------------------------------------------------------------

REFERENCE_7 = os.path.join(ROOT, "solutions", "notebooks", "07_turn.ipynb")


@pytest.mark.parametrize("seed", ["9", "39", "64", "135", "0d171e8f52417f4d", "597e1ac2aa12c162"])
def test_the_reference_keeps_full_marks_on_the_draws_that_failed_its_canary(grade, seed):
    """The canary's json.dumps wrote Córdoba as C\\u00f3rdoba and cut the stream inside the escape; the draw renamed the
    joined word back, and the reference got 0/21 on 14 of 140 seeds (these among them)."""
    process, results = grade(REFERENCE_7, "--exercise", "stream", "--seed", seed)
    assert results["score"] == available("stream"), [(t["name"], t["output"][:200]) for t in failed(results)]


@pytest.mark.parametrize("name", ["stream_a1_tell_object_none.py", "stream_a2_tell_skeleton_none.py"])
def test_a_submission_that_tells_the_canary_apart_earns_no_hidden_point(grade, name):
    """A1 and A2: the canary's chunks lacked the cases' id and object keys, and its shape was fixed: None for every
    other stream earned the cut cases (8/21 and 6/21)."""
    for seed in ("tell-1", "tell-2", "tell-3"):
        process, results = grade(os.path.join(ATTACKS, name), "--exercise", "stream", "--seed", seed)
        assert sum(t["score"] for t in results["tests"] if "hidden" in t["tags"]) == 0, seed


@pytest.mark.parametrize("name, case", [
    ("stream_w1_mixes_choices.py", "second-choice-ignored"),
    ("stream_w2_drops_delta_on_finish_chunk.py", "finish-on-the-last-delta"),
    ("stream_w3_crashes_on_null_tool_calls.py", "sdk-nulls"),
    ("stream_w4_new_call_on_any_id.py", "id-and-name-repeated"),
    ("stream_w5_concatenates_names.py", "id-and-name-repeated"),
])
def test_a_stream_joined_wrongly_loses_the_case_written_for_it(grade, name, case):
    """W1-W5 kept 21/21: no case had two choices, a finish on the last delta, the SDK's nulls, or a repeated id/name."""
    process, results = grade(os.path.join(ATTACKS, name), "--exercise", "stream")
    assert any(t["name"].endswith(f"[{case}]") for t in failed(results, hidden=True)), [t["name"] for t in failed(results)]

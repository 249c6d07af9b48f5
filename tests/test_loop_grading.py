"""Issue 27: notebooks 8 and 9 are graded as their attackers' trials require (tests/attacks/loop_*.py and path_*.py,
each headed by its expected outcome), and a hidden loop case draws more than its words."""

import json
import os
import random

import pytest

from conftest import ROOT
from points import available

ATTACKS = os.path.join(ROOT, "tests", "attacks")


def graded(grade, name, exercise):
    process, results = grade(os.path.join(ATTACKS, name), "--exercise", exercise)
    assert process.returncode == 0, process.stderr
    return process, results


def lost(results):
    """The names of the hidden cases a submission failed (list of str)."""
    return [t["name"] for t in results["tests"] if t["status"] == "failed" and "hidden" in t["tags"]]


def test_a_loop_that_dispatches_a_turns_calls_in_another_order_keeps_full_marks(grade):
    """Each reply is matched to the call it answered: a correct loop that runs a turn's calls last-first (as threads
    may) lost a point when replies were taken in the reference's order (notebook 8's attacker trial)."""
    _, results = graded(grade, "loop_reverse_dispatch.py", "loop")
    assert results["score"] == available("loop"), lost(results)


def test_a_reply_in_another_calls_message_loses_the_case(grade):
    """The same loop handing each call another call's result kept full marks before replies were matched."""
    _, results = graded(grade, "loop_swapped_replies.py", "loop")
    assert [name for name in lost(results) if "two-calls-in-the-last-turn" in name], lost(results)


def test_backoff_that_grows_by_a_step_loses_the_five_retries_case(grade):
    """Waits of backoff * (k + 1) fall inside the jitter window for k < 3; five retries show they do not double."""
    _, results = graded(grade, "loop_linear_backoff.py", "loop")
    assert lost(results) and all("five-retries" in name for name in lost(results)), lost(results)


def test_a_loop_that_never_stops_is_told_so_in_the_loops_words(grade):
    """The request bound's sentence spoke of an unbounded retry, a word notebook 8 uses for something else."""
    process, results = graded(grade, "loop_never_stops.py", "loop")
    assert sum(t["score"] for t in results["tests"] if "hidden" in t["tags"]) == 0
    report = process.stdout + json.dumps(results)
    assert "did not stop where the case's rules stop it" in report
    assert "the retry is not bounded" not in report


@pytest.mark.parametrize("name, case", [
    ("path_dangling_parent.py", "a-link-to-a-file-not-made"),
    ("path_links_by_text.py", "a-chain-of-links"),
    ("path_normpath_first.py", "a-link-then-dot-dot"),
    ("path_leaky_reason.py", "dot-dot]"),
])
def test_a_path_check_the_attacker_found_wanting_loses_its_case(grade, name, case):
    """Notebook 9's attacker trial: four submissions kept 32/32 with checks that a write, a chain of links, link/.. or
    a leaky reason defeats; each loses the case written for it now."""
    _, results = graded(grade, name, "authorise")
    assert [n for n in lost(results) if case in n], lost(results)


def test_a_hidden_loop_case_draws_its_ids_leading_turns_and_backoff():
    """Renaming words alone left a loop case's ids, digits and limits as written, and a table keyed by them scored
    35/35 with no budget kept: a hidden case's ids get tails, one or two valid turns go first (max_turns grows as
    much) and its backoff is scaled."""
    from grader.judging.draw import Draw
    from grader.judging.harness import ExerciseHarness

    steps = [{"role": "assistant", "content": None, "calls": [{"id": "c1", "raw": "{}"}]},
             {"role": "assistant", "content": "Done.", "calls": []}]
    limits = {"max_turns": 3, "tool_failures": 3, "model_retries": 2, "backoff": 0.5}
    seen = set()
    for seed in range(12):
        draw = Draw(f"loop-{seed}")
        drawn, drawn_limits = ExerciseHarness._drawn_script(draw, "a task", steps, limits)
        leading = len(drawn) - len(steps)
        assert 1 <= leading <= 2 and drawn_limits["max_turns"] == 3 + leading
        assert drawn[leading:][1] == steps[1]
        [call] = drawn[leading]["calls"]
        assert call["id"].startswith("c1") and call["id"] != "c1" and call["raw"] == "{}"
        assert drawn_limits["backoff"] in (0.25, 0.5, 1.0)
        seen.add((leading, drawn_limits["backoff"], drawn[0]["calls"][0]["raw"]))
    assert len(seen) > 3

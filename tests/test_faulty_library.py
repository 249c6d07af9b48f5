"""The faulty-solution library: every fault loses points exactly in the case groups written for it."""

import os
import secrets

import pytest
from conftest import ROOT, docked_groups
from faulty.faults import (
    DISPATCH,
    FAULTS,
    NAMES,
    OBSERVATIONS,
    PARSING,
    PUBLIC,
    REAL,
    RETRY,
    ROBUSTNESS,
    SCHEMA,
)
from faulty.step_faults import BASES, STEP_FAULTS
from graded import LIBRARY_DRAW

pytestmark = pytest.mark.slow  # 126 submissions, each graded for every case (about 40 s on two cores)

BASE = os.path.join(ROOT, "tests", "faulty", "base.py")
# Every fault is graded on two draws of the hidden inputs (issue 24): a fixed one (graded.LIBRARY_DRAW, which the class
# report's tests share), and this one, new in each session; a failure names its seed, and python -m grader FILE --seed
# SEED draws the same inputs again.
OTHER_DRAW = f"library-{secrets.token_hex(4)}"
SEED_SAMPLE = os.path.join(ROOT, "tests", "golden", "seed_sample", "submission.py")


def apply_edits(fault, source=None):
    """``source`` (default: base.py) with the fault's edits applied; each edit must match exactly once."""
    if source is None:
        with open(BASE, encoding="utf-8") as handle:
            source = handle.read()
    for old, new in fault.edits:
        assert source.count(old) == 1, f"{fault.name}: edit target occurs {source.count(old)} times: {old!r}"
        source = source.replace(old, new)
    return source


@pytest.fixture(scope="module", autouse=True)
def graded_ahead(tmp_path_factory, request):
    """Every library solution graded once, ahead, in pool processes (as many at once as this test process's share of
    the cores), before the tests read their results (``tests/graded.py``):
    each test below still writes and grades its own file, and finds it graded. Skipped when only a few of this
    file's tests were selected (``-k``): they grade their own."""
    from graded import grade_ahead

    if sum(getattr(item, "module", None) is request.module for item in request.session.items) < 10:
        return
    folder = tmp_path_factory.mktemp("library")
    submissions = [(BASE, ()), (SEED_SAMPLE, ())]
    for fault in FAULTS:
        (folder / f"{fault.name}.py").write_text(apply_edits(fault), encoding="utf-8")
        submissions += [(folder / f"{fault.name}.py", ("--seed", LIBRARY_DRAW)),
                        (folder / f"{fault.name}.py", ("--seed", OTHER_DRAW))]
    for exercise, source in sorted(BASES.items()):
        (folder / exercise).mkdir()
        (folder / exercise / "base.py").write_text(source, encoding="utf-8")
        submissions.append((folder / exercise / "base.py", ("--exercise", exercise)))
    for fault in STEP_FAULTS:
        path = folder / fault.exercise / f"{fault.name}.py"
        path.write_text(apply_edits(fault, BASES[fault.exercise]), encoding="utf-8")
        submissions += [(path, ("--exercise", fault.exercise, "--seed", draw)) for draw in (LIBRARY_DRAW, OTHER_DRAW)]
    grade_ahead(submissions)


def test_base_solution_scores_full_marks(grade):
    process, results = grade(BASE)
    assert process.returncode == 0, process.stderr
    assert results["score"] > 0
    assert results["score"] == sum(test["max_score"] for test in results["tests"])
    assert docked_groups(results) == set()


@pytest.mark.parametrize("draw", ["fixed", "another"])
@pytest.mark.parametrize("fault", FAULTS, ids=[f.name for f in FAULTS])
def test_fault_is_docked_in_its_groups(grade, tmp_path, fault, draw):
    submission = tmp_path / f"{fault.name}.py"
    submission.write_text(apply_edits(fault), encoding="utf-8")
    process, results = grade(submission, "--seed", OTHER_DRAW if draw == "another" else LIBRARY_DRAW)
    assert process.returncode == 0, process.stderr
    total = sum(test["max_score"] for test in results["tests"])
    assert 0 <= results["score"] < total
    assert docked_groups(results) == fault.docked, f"{fault.name}: {fault.why} (seed {results['extra_data']['seed']})"


def test_every_seed_fault_and_anti_pattern_is_in_the_library():
    origins = {f.origin for f in FAULTS}
    assert origins == {"seed anti-pattern", "seed sample", "common"}
    names = {f.name for f in FAULTS}
    # The seed's three anti-patterns and the sample's five faults named in the capstone issue.
    assert {"dispatch_unchecked", "unbounded_retry", "silent_failure"} <= names
    assert {"no_optional_typecheck", "crash_on_non_object", "crash_on_unhashable_name",
            "crash_on_deep_nesting", "first_violation_only"} <= names


def test_seed_sample_solution_loses_points_for_each_of_its_faults(grade):
    process, results = grade(SEED_SAMPLE)
    assert process.returncode == 0
    failed = {test["name"] for test in results["tests"] if test["status"] == "failed"}
    # One witness per fault the capstone issue names in the seed's sample solution.
    assert any("wrong type is rejected [optional-int-for-string]" in name for name in failed)   # optional types
    assert any("not an object is rejected [empty-array]" in name for name in failed)            # [] crashes
    assert any("not a string is rejected [array]" in name for name in failed)                    # unhashable name
    assert any("100,000 nested arrays" in name for name in failed)                               # RecursionError
    assert any("two problems is fixed" in name for name in failed)                               # first violation only
    assert docked_groups(results) == {PARSING, NAMES, SCHEMA, DISPATCH, OBSERVATIONS, RETRY, ROBUSTNESS, REAL, PUBLIC}


# -- the step exercises (notebooks 0-4 and 6; since issue 11 observe and the loop are judged alone, so the listing
# and traceback faults of kinds 2 and 3 live in the capstone library, where one runtime does every step) --------------------------------------------------------



@pytest.mark.parametrize("exercise", sorted(BASES))
def test_step_base_scores_full_marks(grade, tmp_path, exercise):
    path = tmp_path / "base.py"
    path.write_text(BASES[exercise], encoding="utf-8")
    process, results = grade(path, "--exercise", exercise)
    assert process.returncode == 0, process.stderr
    assert results["score"] == sum(t["max_score"] for t in results["tests"]) > 0, [(t["name"], t["output"]) for t in results["tests"] if t["status"] == "failed"]


@pytest.mark.parametrize("draw", ["fixed", "another"])
@pytest.mark.parametrize("fault", STEP_FAULTS, ids=[f"{f.exercise}:{f.name}" for f in STEP_FAULTS])
def test_step_fault_loses_points_in_its_exercise(grade, tmp_path, fault, draw):
    path = tmp_path / f"{fault.name}.py"
    path.write_text(apply_edits(fault, BASES[fault.exercise]), encoding="utf-8")
    process, results = grade(path, "--exercise", fault.exercise, "--seed", OTHER_DRAW if draw == "another" else LIBRARY_DRAW)
    assert process.returncode == 0, process.stderr
    seed = results["extra_data"]["seed"]
    hidden_failed = [t for t in results["tests"] if t["status"] == "failed" and "hidden" in t["tags"]]
    assert hidden_failed, f"{fault.exercise}: {fault.why} was not caught by any hidden case (seed {seed})"
    if fault.caught_by:  # issue 15: the case written for the rule catches it, not some other case by chance
        assert any(t["name"].startswith(fault.caught_by) for t in hidden_failed), \
            f"{fault.exercise}: {fault.why} was not caught by {fault.caught_by!r} (seed {seed}): {[t['name'] for t in hidden_failed]}"


def test_every_name_repair_is_docked_on_validate_call():
    """Issue 15: the kinds of name repair a runtime might make each have a fault, caught by the name case."""
    from faulty.step_faults import ALMOST_REGISTERED, NAME_REPAIRS

    caught = {f.name for f in STEP_FAULTS if f.exercise == "validate-call" and f.caught_by == ALMOST_REGISTERED}
    assert caught == set(NAME_REPAIRS) | {"issue_15_name_repairs"}
    assert {"strips_name", "drops_functions_prefix", "lowercases_name", "casefolds_name", "nfkc_name",
            "maps_look_alike_letters", "drops_invisible_characters", "drops_call_parentheses", "hyphens_to_underscores",
            "closest_registered_name"} <= caught


@pytest.mark.parametrize("name, says", [
    ("asks_twice", "Your loop asked the model twice for one call"),
    ("dispatches_unchecked_retry", "Your loop dispatched an attempt that check did not pass"),
    ("echoes_first_attempt", "Your loop's rejection must carry the observation check gave for the last attempt"),
    ("retry_budget_between_calls", "run_tool_call asked the model for its first invalid call(s) and never again"),
    ("asks_again_when_the_model_fails", "Your loop asked the model again after ask_model raised"),
])
def test_notebook_4_feedback_speaks_about_the_loop(grade, tmp_path, name, says):
    """Issue 11: the loop is judged alone, so its feedback names what the loop did, not a validation rule."""
    fault = next(f for f in STEP_FAULTS if f.exercise == "retry-loop" and f.name == name)
    path = tmp_path / f"{name}.py"
    path.write_text(apply_edits(fault, BASES["retry-loop"]), encoding="utf-8")
    process, results = grade(path, "--exercise", "retry-loop")
    outputs = [t["output"] for t in results["tests"] if t["status"] == "failed"]
    assert any(says in output for output in outputs)
    assert not any("one of your checks" in output for output in outputs)


def test_every_step_exercise_has_faults():
    assert {f.exercise for f in STEP_FAULTS} == set(BASES) == {
        "tool-result", "parse-call", "validate-call", "observe", "retry-loop", "json-schema", "adapters", "turn", "stream", "loop", "authorise"}


def test_every_kind_of_the_public_reports_has_a_caught_fault():
    """Issue 10: each of the nine kinds of shared/cases/public_reports.md is made by at least one fault, in the
    capstone library or a step exercise's, and the tests above prove each is caught."""
    kinds = {
        1: {"accepts_overflowing_numbers", "plain_json_loads"},
        2: {"model_error_verbatim"},
        3: {"first_ten_problems", "first_twenty_tools"},
        4: {"hint_from_cpython_message"},
        5: {"plain_json_loads", "first_object_only"},
        6: {"dicts_only"},
        7: {"trusts_schema_shape"},
        8: {"enum_exact_types", "enum_python_equality"},
        9: {"no_anyof", "no_ref"},
    }
    names = {f.name for f in FAULTS} | {f.name for f in STEP_FAULTS}
    for kind, faults in kinds.items():
        assert faults <= names, f"kind {kind}: missing {sorted(faults - names)}"


def test_every_taught_kind_of_the_third_public_reports_has_a_caught_fault():
    """Issue 26: each kind of shared/cases/public_reports_3.md that a notebook teaches (4 and 7 in notebook 6a, 8 in
    notebook 1, 9 in notebook 6b) is made by at least one fault; the kinds the notebooks leave to the reference
    (patterns, multipleOf, depth, paths, counts) have no case a fault could lose, and are tested on the reference."""
    kinds = {
        4: {"anyof_names_no_option"},
        7: {"refuses_annotations"},
        8: {"unwraps_template_marker"},
        9: {"stream_piece_becomes_a_call", "chat_completions_only"},
    }
    names = {f.name for f in STEP_FAULTS}
    for kind, faults in kinds.items():
        assert faults <= names, f"kind {kind}: missing {sorted(faults - names)}"


def test_a_grader_called_from_deep_in_a_stack_judges_as_a_fresh_one(tmp_path):
    """Graded in a process forked deep inside a test run, the 900-level nesting case of validate-call became an
    internal error: the cases' data is encoded in the grader's process, and the caller's frames counted against
    Python's recursion limit (grader.judging.case_runner.stack_room now leaves the cases their room)."""
    from graded import graded

    path = tmp_path / "base.py"
    path.write_text(BASES["validate-call"], encoding="utf-8")

    def deep(frames):
        return deep(frames - 1) if frames else graded(path, "--exercise", "validate-call", again=True)

    _, results = deep(400)
    failed = [t["name"] for t in results["tests"] if t["status"] == "failed"]
    assert failed == [] and results["score"] == sum(t["max_score"] for t in results["tests"]) > 50


def test_a_retry_budget_kept_between_calls_is_named_at_the_top_and_on_each_case(grade, tmp_path):
    """Issue 25's trial: a global retry counter got about 100 identical "never asked the model" failures, its one
    useful line buried among them. Now every such case and one note at the top name the retry count kept between
    calls."""
    fault = next(f for f in FAULTS if f.name == "global_retry_counter")
    path = tmp_path / "global_retry_counter.py"
    path.write_text(apply_edits(fault), encoding="utf-8")
    process, results = grade(path, "--seed", LIBRARY_DRAW)
    assert "Note: handle_tool_call stopped asking the model after its first invalid call(s)" in results["output"]
    failed = [t["output"] for t in results["tests"] if t["status"] == "failed"]
    spent = [output for output in failed if "handle_tool_call asked the model for its first invalid call(s) and never "
             "again" in output]
    assert len(spent) > 20
    assert not any("The model was never asked to retry" in output for output in failed)
    # A visible case keeps its input and hint (the attacker trial saw them replaced with the sentence alone).
    visible = [t["output"] for t in results["tests"] if t["status"] == "failed"
               and t["name"].startswith("Visible self-checks: ")]
    assert visible and all("never again" in o and "\nInput: " in o and "\nHint: " in o for o in visible), visible


def test_asking_again_after_ask_model_raised_is_told_as_such(grade, tmp_path):
    """Issue 25: a loop that asks the model a second time when asking raised was told "the retry budget is one" as if
    its retry had failed check, and the class report named it "lets an exception from ask_model escape"."""
    fault = next(f for f in FAULTS if f.name == "asks_again_when_the_model_fails")
    path = tmp_path / "asks_again.py"
    path.write_text(apply_edits(fault), encoding="utf-8")
    process, results = grade(path, "--seed", LIBRARY_DRAW)
    failed = [t["output"] for t in results["tests"] if t["status"] == "failed"]
    assert len(failed) == 6
    assert all("ask_model was called again after it raised" in output for output in failed), failed

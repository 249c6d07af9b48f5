"""The faulty-solution library: every fault loses points exactly in the case groups written for it."""

import os

import pytest

from conftest import ROOT, docked_groups
from faulty.faults import FAULTS, OBSERVATIONS, NAMES, PARSING, REAL, RETRY, ROBUSTNESS, SCHEMA, DISPATCH

BASE = os.path.join(ROOT, "tests", "faulty", "base.py")
SEED_SAMPLE = os.path.join(ROOT, "tests", "golden", "seed_sample", "submission.py")


def apply_edits(fault):
    """base.py with the fault's edits applied; each edit must match exactly once."""
    with open(BASE, encoding="utf-8") as handle:
        source = handle.read()
    for old, new in fault.edits:
        assert source.count(old) == 1, f"{fault.name}: edit target occurs {source.count(old)} times: {old!r}"
        source = source.replace(old, new)
    return source


def test_base_solution_scores_full_marks(grade):
    process, results = grade(BASE)
    assert process.returncode == 0, process.stderr
    assert results["score"] > 0
    assert results["score"] == sum(test["max_score"] for test in results["tests"])
    assert docked_groups(results) == set()


@pytest.mark.parametrize("fault", FAULTS, ids=[f.name for f in FAULTS])
def test_fault_is_docked_in_its_groups(grade, tmp_path, fault):
    submission = tmp_path / f"{fault.name}.py"
    submission.write_text(apply_edits(fault), encoding="utf-8")
    process, results = grade(submission)
    assert process.returncode == 0, process.stderr
    total = sum(test["max_score"] for test in results["tests"])
    assert 0 <= results["score"] < total
    assert docked_groups(results) == fault.docked, f"{fault.name}: {fault.why}"


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
    assert docked_groups(results) == {PARSING, NAMES, SCHEMA, DISPATCH, OBSERVATIONS, RETRY, ROBUSTNESS, REAL}

"""``python -m course.check``: the course check (rustlings' ``dev check``, otter's assign-time check).

For every exercise in ``grader/intake/exercises.json`` it proves, with the grader itself:
- the exercise has a non-empty hint, visible cases, and hidden cases worth points;
- the grader finds the exercise cell in the learner notebook (its nbgrader grade_id);
- the shipped stub (learner notebook) fails every case, visible and hidden;
- the solution (solved notebook) passes every case.
And, for the course as a whole, that each notebook names every rule its exercise's cases grade (issue 25: the capstone
graded 1e400 and stray commas that notebook 5 never stated): every hidden case carries rule ids, and each id stands in
backticks in the notebook's text (``check_rules_stated``); and (issue 15) that every rule the capstone grades is
graded in the step exercise whose notebook teaches it: each capstone case carries rule ids (``grader.judging.rule_ids``), and for each id whose area
a step teaches (``TAUGHT_IN``) that step's cases carry the same id; an id no step can check is listed once in
``CAPSTONE_ONLY`` with the reason.
Prints one line per check and exits 1 if any fails; the test suite runs it.
"""

import contextlib
import io
import os
import re
import sys

import nbformat

from grader.intake.exercises import BY_ID, EXERCISES, detect
from grader.intake.extract import extract
from grader.judging.rule_ids import MARKER
from grader.judging.visible_cases import VISIBLE_CASES
from grader.paths import CASES_DIR, NOTEBOOKS_DIR, SOLVED_NOTEBOOKS_DIR, needs_a_clone
from grader.pipeline import grade, no_bytecode_writes

# Which step exercise teaches each area of rule ids (the part before the dot): its notebook states the rule, so
# its hidden cases must check it at least as strictly as the capstone does. Read by area, not by id, so a new
# capstone case (say, for observe or the retry loop) with a new id of a known area needs a step case too.
TAUGHT_IN = {
    "parse": "parse-call",       # notebook 1: exactly one JSON object, nothing repaired, never raised
    "name": "validate-call",     # notebook 2: the name is a registered string, exactly
    "schema": "validate-call",   # notebook 2: required, types, nothing undeclared, every violation
    "observe": "observe",        # notebook 3: the observation's content and bounds
    "dispatch": "retry-loop",    # notebook 4: a valid call is dispatched once, unchanged
    "retry": "retry-loop",       # notebook 4: one retry, then a graceful rejection
}
# Rules the capstone grades that cannot apply to any step, each listed once with the reason.
CAPSTONE_ONLY = {
    "seed.tools-at-call-time": "only the capstone's seed form reads the global TOOLS (the grader replaces it before "
                               "each case); the steps receive the registry as an argument, and name.registry-given "
                               "checks that they use it.",
}


# The areas of notebook 0's and notebook 6's rule ids, which no capstone case carries, and the capstone's own.
OTHER_AREAS = {"result": "tool-result", "keyword": "json-schema", "adapter": "adapters", "turn": "turn", "stream": "stream",
               "loop": "loop", "path": "authorise",
               "seed": "capstone"}
_NAMED_ID = re.compile(r"`((?:%s)\.[a-z0-9-]+)`" % "|".join(sorted({*TAUGHT_IN, *OTHER_AREAS})))


def rule_ids_named_in(path):
    """The rule ids a notebook names (set of str): every ``area.rule`` of a known area in backticks in its markdown
    cells (the rules tables, the exercise text). Raises OSError when the notebook cannot be read."""
    notebook = nbformat.read(path, as_version=4)
    return {found for cell in notebook.cells if cell.cell_type == "markdown" for found in _NAMED_ID.findall(cell.source)}


def check_rules_stated(cases_dir=CASES_DIR, notebooks_dir=NOTEBOOKS_DIR):
    """Each notebook names every rule its exercise's cases grade, and no other (issue 25).

    A step exercise that is handed the earlier steps (notebook 4 receives ``check``) grades their rules through them:
    those may be named where they are taught (``TAUGHT_IN``), and a capstone-only rule need not be named there. The
    capstone is what an interview candidate may do alone: its notebook names every rule it grades.

    Args:
        cases_dir: the folder holding one case folder per exercise (str).
        notebooks_dir: the folder holding the learner notebooks (str).
    Returns:
        list of ``(ok: bool, sentence: str)``: one per exercise (its ids named, every hidden case with ids), one per
        notebook (it names no id its cases do not grade).
    """
    results, named, graded = [], {}, {}
    try:
        ids_of = {exercise.id: rule_ids_of(exercise.cases, cases_dir) for exercise in EXERCISES}
        for exercise in EXERCISES:
            if exercise.notebook not in named:
                named[exercise.notebook] = rule_ids_named_in(os.path.join(notebooks_dir, exercise.notebook))
    except (ValueError, OSError) as exc:
        return [(False, f"the rules the notebooks state cannot be checked: {exc}")]
    for exercise in EXERCISES:
        cases = ids_of[exercise.id]
        ids = set().union(*cases.values()) if cases else set()
        graded.setdefault(exercise.notebook, set()).update(ids)
        unmarked = sorted(node for node, found in cases.items() if not found)
        missing = []
        for rule in sorted(ids):
            teacher = TAUGHT_IN.get(rule.partition(".")[0])
            handed_in = exercise.style != "seed" and teacher not in (None, exercise.id)
            if rule in named[exercise.notebook] or (exercise.style != "seed" and rule in CAPSTONE_ONLY) or (
                    handed_in and rule in named[BY_ID[teacher].notebook]):
                continue
            missing.append(rule)
        results.append((bool(ids) and not unmarked and not missing,
                        f"notebooks/{exercise.notebook} names each of the {len(ids)} rules the {exercise.id} cases grade"
                        + (f" (no rule id: {unmarked[0]})" if unmarked else "")
                        + (f" (not named: {', '.join(missing)})" if missing else "")))
    for notebook, found in named.items():
        stale = sorted(found - graded[notebook])
        results.append((not stale, f"notebooks/{notebook} names no rule that its cases do not grade"
                        + (f" (graded nowhere here: {', '.join(stale)})" if stale else "")))
    return results


def check_exercise(exercise):
    """Run every check for one exercise.

    Returns:
        list of ``(ok: bool, sentence: str)``.
    """
    results = []
    learner = os.path.join(NOTEBOOKS_DIR, exercise.notebook)
    solved = os.path.join(SOLVED_NOTEBOOKS_DIR, exercise.notebook)
    results.append((bool(exercise.hint.strip()), "has a hint"))
    results.append((bool(VISIBLE_CASES.get(exercise.id)), "has visible cases"))
    found = exercise in detect(extract(learner))
    results.append((found, f"the grader finds its cell in notebooks/{exercise.notebook}"))
    stub = grade(learner, exercise_ids=[exercise.id])
    solution = grade(solved, exercise_ids=[exercise.id])
    hidden = [c for c in solution.cases if c.visibility == "hidden"]
    results.append((bool(hidden) and sum(c.max_points for c in hidden) > 0,
                    f"has hidden cases worth points ({len(hidden)} cases, {sum(c.max_points for c in hidden):g} points)"))
    passing = [c.title for c in stub.cases if c.passed]
    results.append((not passing and bool(stub.cases),
                    "the shipped stub fails every case" + (f" (it passes: {passing[0]})" if passing else "")))
    failing = [c.title for c in solution.cases if not c.passed]
    results.append((not failing and bool(solution.cases),
                    f"the solution passes every case ({solution.score:g}/{solution.max_score:g})"
                    + (f" (it fails: {failing[0]})" if failing else "")))
    return results


class _RuleCollector:
    """A pytest plugin that records each collected case's rule ids (``node id -> set of str``)."""

    def __init__(self):
        self.rules = {}

    def pytest_configure(self, config):
        config.addinivalue_line("markers", f"{MARKER}(*ids): the course's ids of the rules the case checks")

    def pytest_collection_modifyitems(self, items):
        for item in items:
            self.rules[item.nodeid] = {rule for mark in item.iter_markers(MARKER) for rule in mark.args}


def _is_case_module(module, cases_dir):
    """True for a module imported from a case file, here or under another copy of the cases (``*/cases/*/test_*.py``)."""
    path = getattr(module, "__file__", None) or ""
    parts = os.path.normpath(path).split(os.sep)
    return len(parts) >= 3 and parts[-3] == os.path.basename(os.path.normpath(cases_dir)) and parts[-1].startswith("test_")


def rule_ids_of(folder, cases_dir=CASES_DIR):
    """The rule ids of every hidden case in one case folder, found by collecting it with pytest (nothing runs).

    Args:
        folder: the folder's name under ``cases_dir`` (an exercise's ``cases``), str.
        cases_dir: the folder holding the case folders (str).
    Returns:
        ``{node id: set of rule ids}`` (an empty set for a case without a ``rule_id`` marker); ``{}`` when the
        folder is missing (a student release has no hidden cases).
    Raises:
        ValueError: pytest could not collect the folder (a case file that does not import), so its cases
            cannot be counted.
    """
    import pytest

    path = os.path.join(cases_dir, folder)
    if not os.path.isdir(path):
        return {}
    collector = _RuleCollector()
    # Case modules are named after their path under cases_dir (importlib mode): forget any left by an earlier
    # collection of another copy of the cases, so that this one reads its own files.
    for name in [name for name, module in sys.modules.items() if _is_case_module(module, cases_dir)]:
        del sys.modules[name]
    args = [path, "-c", os.path.join(cases_dir, "pytest.ini"), "--rootdir", cases_dir, "--import-mode=importlib",
            "-p", "no:cacheprovider", "--disable-plugin-autoload", "--noconftest", "--collect-only", "-q"]
    # No bytecode beside the cases: a file appearing in the grader's folder voids any grading running meanwhile.
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), no_bytecode_writes():
        status = pytest.main(args, plugins=[collector])
    if status not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        raise ValueError(f"pytest could not collect the cases in {folder} (exit status {int(status)})")
    return collector.rules


def check_rule_coverage(cases_dir=CASES_DIR, taught_in=None, capstone_only=None):
    """Every rule the capstone grades is graded in the step that teaches it (issue 15).

    Args:
        cases_dir: the folder holding one case folder per exercise (str).
        taught_in: area -> step exercise id (default ``TAUGHT_IN``).
        capstone_only: rule id -> why no step can check it (default ``CAPSTONE_ONLY``).
    Returns:
        list of ``(ok: bool, sentence: str)``: one for the capstone's markers, one per step exercise that
        teaches an area, one per capstone-only rule.
    """
    taught_in = TAUGHT_IN if taught_in is None else taught_in
    capstone_only = CAPSTONE_ONLY if capstone_only is None else capstone_only
    try:
        capstone = rule_ids_of(BY_ID["capstone"].cases, cases_dir)
        steps = {step: rule_ids_of(BY_ID[step].cases, cases_dir) for step in dict.fromkeys(taught_in.values())}
    except ValueError as exc:
        return [(False, f"rule coverage cannot be checked: {exc}")]
    results = []
    unmarked = sorted(node for node, ids in capstone.items() if not ids)
    capstone_ids = set().union(*capstone.values()) if capstone else set()
    unplaced = sorted(i for i in capstone_ids if i.partition(".")[0] not in taught_in and i not in capstone_only)
    results.append((bool(capstone) and not unmarked and not unplaced,
                    f"every capstone case has rule ids, each taught in a step or listed as capstone-only "
                    f"({len(capstone)} cases, {len(capstone_ids)} rules)"
                    + (f" (no rule id: {unmarked[0]})" if unmarked else "")
                    + (f" (no step teaches: {', '.join(unplaced)})" if unplaced else "")))
    for step, found in steps.items():
        wanted = sorted(i for i in capstone_ids if taught_in.get(i.partition(".")[0]) == step)
        have = set().union(*found.values()) if found else set()
        missing = [i for i in wanted if i not in have]
        results.append((not missing, f"{step} has a hidden case for each of the {len(wanted)} capstone rules its "
                                     "notebook teaches" + (f" (missing: {', '.join(missing)})" if missing else "")))
    for rule, reason in capstone_only.items():
        results.append((rule in capstone_ids, f"capstone only: {rule}, because {reason}"
                        + ("" if rule in capstone_ids else " (but no capstone case carries it)")))
    return results


def main(argv=None):
    """Check every exercise; returns the exit status (0: all good, 1: something failed, 2: not a clone)."""
    import argparse

    argparse.ArgumentParser(prog="python -m course.check", description="The course check: every stub fails, every "
                            "solution passes, every rule the capstone grades is graded in its step.").parse_args(argv)
    if not os.path.isdir(NOTEBOOKS_DIR):
        print("error: " + needs_a_clone("python -m course.check", "grades each learner notebook's stub",
                                        NOTEBOOKS_DIR), file=sys.stderr)
        return 2
    os.environ.setdefault("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    failures = 0
    for exercise in EXERCISES:
        print(exercise.title)
        for ok, sentence in check_exercise(exercise):
            failures += not ok
            print(f"  {'ok  ' if ok else 'FAIL'} {sentence}")
    print("Statements: each notebook names every rule its cases grade")
    for ok, sentence in check_rules_stated():
        failures += not ok
        print(f"  {'ok  ' if ok else 'FAIL'} {sentence}")
    print("Rule coverage: the step exercises check every rule the capstone grades")
    for ok, sentence in check_rule_coverage():
        failures += not ok
        print(f"  {'ok  ' if ok else 'FAIL'} {sentence}")
    print("course check passed" if not failures else f"course check failed: {failures} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

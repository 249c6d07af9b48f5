"""``python -m course.check``: the course check (rustlings' ``dev check``, otter's assign-time check).

For every exercise in ``grader/exercises.json`` it proves, with the grader itself:
- the exercise has a non-empty hint, visible cases, and hidden cases worth points;
- the grader finds the exercise cell in the learner notebook (its nbgrader grade_id);
- the shipped stub (learner notebook) fails every case, visible and hidden;
- the solution (solved notebook) passes every case.
Prints one line per check and exits 1 if any fails; the test suite runs it.
"""

import os
import sys

from grader.exercises import EXERCISES, detect
from grader.extract import extract
from grader.run import grade
from grader.visible_cases import VISIBLE_CASES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def check_exercise(exercise):
    """Run every check for one exercise.

    Returns:
        list of ``(ok: bool, sentence: str)``.
    """
    results = []
    learner = os.path.join(ROOT, "notebooks", exercise.notebook)
    solved = os.path.join(ROOT, "solutions", "notebooks", exercise.notebook)
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


def main():
    """Check every exercise; returns the exit status (0: all good, 1: something failed)."""
    os.environ.setdefault("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    failures = 0
    for exercise in EXERCISES:
        print(exercise.title)
        for ok, sentence in check_exercise(exercise):
            failures += not ok
            print(f"  {'ok  ' if ok else 'FAIL'} {sentence}")
    print("course check passed" if not failures else f"course check failed: {failures} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

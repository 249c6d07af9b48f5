"""``python -m benchmarks.visible_vs_hidden [--seed SEED]``: how well each exercise's visible cases warn a learner.

Grades every faulty solution of the library (``course.misconceptions.library``: one fault each) on one draw and
prints, per exercise, how many faulty solutions pass every visible case (a learner whose self-check is all green),
and what share of the hidden cases those still fail (issue 25: notebook 1's self-check passed 5/5 where the grader
gave 31/44). A visible set that warns well leaves few faults unseen, and those lose little.

Prints a table; exits 0. Needs a clone (the faulty library is not installed).
"""

import argparse
import concurrent.futures
import os
import tempfile

from course.misconceptions import library


def _grade(entry, seed):
    """``(mistake id, exercise, visible passed, visible total, hidden passed, hidden total)`` of one faulty solution."""
    from grader.pipeline import grade

    mistake, exercise, _, _, source = entry
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "submission.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source)
        result = grade(path, exercise_ids=[exercise], seed=seed)
    visible = [case for case in result.cases if case.visibility == "visible"]
    hidden = [case for case in result.cases if case.visibility == "hidden"]
    return (mistake, exercise, sum(c.passed for c in visible), len(visible), sum(c.passed for c in hidden), len(hidden))


def main(argv=None):
    """Grade the library and print the table; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", default="visible-vs-hidden", help="the draw of the hidden inputs (default: %(default)s)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="grading processes")
    args = parser.parse_args(argv)
    entries = library()
    with concurrent.futures.ProcessPoolExecutor(args.workers) as pool:
        rows = list(pool.map(_grade, entries, [args.seed] * len(entries)))
    print(f"{'exercise':<14} {'faults':>6} {'all visible passed':>19} {'their hidden pass rate':>23} {'lowest':>7} "
          f"{'visible cases':>14}")
    for exercise in dict.fromkeys(row[1] for row in rows):
        mine = [row for row in rows if row[1] == exercise]
        unseen = [row for row in mine if row[2] == row[3]]
        rate = (sum(row[4] for row in unseen) / sum(row[5] for row in unseen)) if unseen else None
        lowest = min((row[4] / row[5] for row in unseen if row[5]), default=None)
        print(f"{exercise:<14} {len(mine):>6} {len(unseen):>19} {'-' if rate is None else f'{rate:.0%}':>23} "
              f"{'-' if lowest is None else f'{lowest:.0%}':>7} {mine[0][3]:>14}")
        for row in sorted(unseen, key=lambda row: row[4] / max(row[5], 1))[:2]:
            print(f"    unseen by the visible cases: {row[0]} ({row[4]}/{row[5]} hidden cases passed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

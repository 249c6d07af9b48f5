"""What an nbgrader autograder test cell runs: ``python -I -m grader.autograde NOTEBOOK EXERCISE --points N``.

``python -m course.nbgrader`` writes one such cell after each exercise of an nbgrader ``source/`` assignment.
When ``nbgrader autograde`` executes a student's notebook, the cell starts this command in a fresh process
(``-I``: the installed kit, never a ``grader/`` folder next to the notebook, which a student could change),
which grades the notebook's saved file exactly as ``python -m grader NOTEBOOK --exercise EXERCISE`` does
(visible and hidden cases, in the kit's sandbox), prints the learner's report, and prints last the cell's
score. nbgrader takes a test cell's last value as partial credit (``nbgrader.utils.determine_grade``): the
cell evaluates that number, so nbgrader's score is the kit's. Nothing is written to stderr on success, since
nbgrader gives a cell that wrote to stderr no points.
"""

import argparse
import os
import sys

from grader.results.grade_result import points_text


def cell_score(score, maximum, points):
    """The score for a test cell worth ``points``: the kit's score, scaled when the kit's maximum differs.

    Args:
        score, maximum: what the kit gave and could give for the exercise (float).
        points: what the cell is worth in nbgrader (float).
    Returns:
        ``(cell score, note or None)``: the note says the cell was written for another version of the cases.
    """
    if maximum == points or maximum <= 0:
        return (score if maximum > 0 else 0.0), None
    note = (f"Note: this cell was written for {points_text(points)} points and the installed kit's cases are worth "
            f"{points_text(maximum)}; "
            "the score is scaled. Run python -m course.nbgrader again to write the cells for this version.")
    return round(score * points / maximum, 6), note


def main(argv=None):
    """Grade one exercise of a saved notebook and print the report, then the cell's score on the last line.

    Returns:
        0 when the notebook was graded (whatever the score); 2 when the notebook is missing or the exercise
        unknown (one sentence on stderr, which nbgrader reports as the cell's error).
    """
    from grader.classroom.assignment import assignment_seed
    from grader.classroom.batch import file_digest
    from grader.intake.exercises import BY_ID
    from grader.judging.draw import seed_for
    from grader.pipeline import grade
    from grader.results.text_report import text_report

    parser = argparse.ArgumentParser(prog="python -m grader.autograde", description=__doc__.splitlines()[0])
    parser.add_argument("notebook", help="the notebook's file name, in the current folder (nbgrader runs cells there)")
    parser.add_argument("exercise", help="the exercise id (grader/intake/exercises.json)")
    parser.add_argument("--points", type=float, required=True, help="what the test cell is worth in nbgrader")
    args = parser.parse_args(argv)
    if args.exercise not in BY_ID:
        print(f"error: this kit has no exercise {args.exercise}; choose from {', '.join(BY_ID)}.", file=sys.stderr)
        return 2
    path = os.path.abspath(args.notebook)
    if not os.path.isfile(path):
        print(f"error: {args.notebook} is not in {os.getcwd()}; nbgrader runs a notebook's cells in its folder, "
              "under the notebook's own name.", file=sys.stderr)
        return 2
    os.environ.setdefault("NBFORMAT_VALIDATOR", "jsonschema")  # one notebook: no schema compiling (see grader.classroom.cli)
    # The assignment's seed, when the instructor set KIT_ASSIGNMENT_SEED for nbgrader autograde (the cells are in the
    # students' copy, so the seed is never written into them): this notebook's inputs are drawn from it, the student's
    # folder (nbgrader grades autograded/STUDENT/ASSIGNMENT/NOTEBOOK in its folder) and the file's bytes.
    secret = assignment_seed()[0]
    parts = os.path.normpath(path).split(os.sep)
    student = parts[-3] if len(parts) >= 3 else ""  # .../autograded/STUDENT/ASSIGNMENT/NOTEBOOK
    seed = seed_for(secret, student, file_digest(path)) if secret else None
    result = grade(path, exercise_ids=[args.exercise], seed=seed)
    sys.stdout.reconfigure(errors="replace")
    print(text_report(result))
    score, note = cell_score(result.score, result.max_score, args.points)
    if note:
        print(note)
    print(f"Score for this cell: {points_text(score)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

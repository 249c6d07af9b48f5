"""Build a Gradescope autograder bundle: ``python -m grader.gradescope OUT.zip [--exercise ID ...]``.

Follows Gradescope's published spec (gradescope/autograder_samples, docs/specs.md): a zip with
``setup.sh`` and ``run_autograder`` at its root. At run time the zip is in ``/autograder/source``,
the student's files in ``/autograder/submission``, and ``run_autograder`` must write
``/autograder/results/results.json``. The bundle holds the grader with its hidden cases and the
grader's requirements, never ``solutions/`` or the notebooks. ``AUTOGRADER_ROOT`` overrides
``/autograder`` (used by the kit's tests to run the bundle against a fake tree).
"""

import argparse
import os
import stat
import sys
import zipfile

GRADER_DIR = os.path.dirname(os.path.abspath(__file__))

# IPython turns a notebook's magics into Python as a kernel does (grader.extract); without it such cells fail.
REQUIREMENTS = "pytest>=8.0,<10\nnbformat>=5.9,<6\nipython>=8.0,<10\n"

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once when the autograder image is built.
set -euo pipefail
if ! command -v python3 >/dev/null; then
    apt-get update && apt-get install -y python3 python3-pip
fi
python3 -m pip install --quiet -r /autograder/source/requirements-grader.txt
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission; it must leave results/results.json behind.
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
mkdir -p "$ROOT/results"
cd "$ROOT/source" || exit 1
# Every .py and .ipynb file the student uploaded is graded; each exercise counts from the best file for it.
python3 -m grader.gradescope --grade-upload "$ROOT/submission" --results "$ROOT/results/results.json" {options}
if [ ! -s "$ROOT/results/results.json" ]; then
    echo '{{"score": 0, "output": "The autograder could not run; please tell your instructor."}}' > "$ROOT/results/results.json"
fi
exit 0
"""

UPLOAD_SECONDS = 120.0  # one budget for all the files of an upload (see grader.batch.grade_files)
NOTHING_UPLOADED = ("No .py or .ipynb file was found in your upload: upload your notebook (for example "
                    "05_capstone.ipynb) or your .py file, then submit again.")


def grade_upload(folder, results_path, exercise_ids=None):
    """Grade everything a student uploaded and write Gradescope's results.json (what ``run_autograder`` runs).

    Args:
        folder: the upload (``/autograder/submission``) (str).
        results_path: where to write results.json (str).
        exercise_ids: grade these exercises in every file (list of ids), or None to detect them.
    Returns:
        the combined ``GradeResult`` (``grader.scoring.best_per_exercise`` over the files); with no
        file at all, a result with no cases and a sentence telling the student what to upload.
    """
    from grader.batch import grade_files, submission_files
    from grader.report import gradescope_results, text_report, write_json_atomically
    from grader.sandbox import Limits
    from grader.scoring import GradeResult, best_per_exercise

    files = submission_files(folder) if os.path.isdir(folder) else []
    if files:
        graded = list(grade_files(files, Limits(), UPLOAD_SECONDS, exercise_ids))
        combined = best_per_exercise([result for _, result, _ in graded if result is not None], folder)
        combined.notes += [f"{os.path.basename(path)}: {problem}" for path, _, problem in graded if problem]
    else:
        combined = GradeResult(submission=folder, error=NOTHING_UPLOADED)
    write_json_atomically(results_path, gradescope_results(combined))
    print(text_report(combined))
    return combined


def bundle_files(exercise_ids=()):
    """The bundle's members: ``{name inside the zip: (bytes, executable)}``.

    Args:
        exercise_ids: grade only these exercises (ids from grader/exercises.json); default: the ones
            found in each submission.
    """
    options = " ".join(f"--exercise {e}" for e in exercise_ids)
    files = {
        "setup.sh": (SETUP_SH.encode(), True),
        "run_autograder": (RUN_AUTOGRADER.format(options=options).encode(), True),
        "requirements-grader.txt": (REQUIREMENTS.encode(), False),
    }
    for base, folders, names in os.walk(GRADER_DIR):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        for name in sorted(names):
            if name.endswith((".py", ".json", ".ini")):
                path = os.path.join(base, name)
                with open(path, "rb") as handle:
                    files[os.path.join("grader", os.path.relpath(path, GRADER_DIR))] = (handle.read(), False)
    return files


def build_bundle(path, exercise_ids=()):
    """Write the autograder zip to ``path``.

    Args:
        path: the zip to write (str). exercise_ids: see ``bundle_files``.
    Returns:
        list of member names, in the order written.
    """
    members = bundle_files(exercise_ids)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, (data, executable) in members.items():
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            mode = 0o755 if executable else 0o644
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return list(members)


def main(argv=None):
    """Command line; returns 0 on success. ``--grade-upload`` is what the bundle's ``run_autograder`` calls."""
    parser = argparse.ArgumentParser(prog="python -m grader.gradescope", description=__doc__.splitlines()[0])
    parser.add_argument("zip", nargs="?", help="the bundle to write, e.g. autograder.zip")
    parser.add_argument("--exercise", action="append", default=[], metavar="ID",
                        help="grade only this exercise (repeatable); default: those found in each submission")
    parser.add_argument("--grade-upload", metavar="FOLDER", help="(inside Gradescope) grade this upload folder")
    parser.add_argument("--results", metavar="PATH", help="with --grade-upload: where to write results.json")
    args = parser.parse_args(argv)
    if args.grade_upload:
        if not args.results:
            parser.error("--grade-upload needs --results PATH")
        grade_upload(args.grade_upload, args.results, args.exercise or None)
        return 0
    if not args.zip:
        parser.error("give the bundle to write, e.g. autograder.zip")
    members = build_bundle(args.zip, args.exercise)
    print(f"Wrote {args.zip} ({len(members)} files): upload it as the autograder of a Gradescope programming assignment.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Build a Gradescope autograder bundle: ``python -m grader.gradescope OUT.zip [--exercise ID ...]``.

Follows Gradescope's published spec (gradescope/autograder_samples, docs/specs.md): a zip with
``setup.sh`` and ``run_autograder`` at its root. At run time the zip is in ``/autograder/source``,
the student's files in ``/autograder/submission``, and ``run_autograder`` must write
``/autograder/results/results.json``. The bundle holds the grader with its hidden cases and the
grader's requirements, never the notebooks, and never ``solutions/`` except, for an assignment with
the step exercises judged alone (observe, retry-loop) or the capstone (its siblings), the reference steps 1 to 3 that
the grader's trusted side uses (``trusted_steps``, ``needs_trusted_steps``). ``AUTOGRADER_ROOT`` overrides
``/autograder`` (used by the kit's tests to run the bundle against a fake tree).
"""

import argparse
import json
import os
import secrets
import shlex
import stat
import sys
import zipfile

from grader.classroom.upload import (  # noqa: F401 (nothing_uploaded and the trusted steps: named here too)
    TRUSTED_EXERCISES, grade_upload_folder, grader_files, needs_trusted_steps, nothing_uploaded, trusted_steps)
from grader.results.grade_result import points_text
from grader.translations import add_language_option, choose, use


def grader_requirements():
    """The bundle's ``requirements-grader.txt`` (str): what grading needs (``GRADING_PACKAGES``, pyproject.toml's
    dependencies), with the kit's own ranges (``grader.results.provenance.pinned``). IPython among them turns a
    notebook's magics into Python as a kernel does (``grader.intake.extract``); without it such cells fail."""
    from grader.results.provenance import GRADING_PACKAGES, pinned

    return "".join(line + "\n" for line in pinned(GRADING_PACKAGES))


SETUP_SH = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image.
# The kit needs Python 3.10 or newer; it installs into a virtual environment, because Debian 12 and
# Ubuntu 24.04 images refuse pip installs into the system Python (PEP 668: "externally managed").
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
VENV="$ROOT/kit-venv"
cd "$SOURCE"  # the kit is imported from here, wherever the script was started
rm -f "$SOURCE/PYTHON_PROBLEM"

find_python() {  # the first of these that is Python 3.10 or newer
    for candidate in ${KIT_PYTHONS:-python3.13 python3.12 python3.11 python3.10 python3}; do
        if command -v "$candidate" >/dev/null 2>&1 \
                && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 10))' >/dev/null 2>&1; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

PY=$(find_python) || PY=""
if [ -z "$PY" ] && [ -z "${KIT_NO_APT:-}" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv >/dev/null || true
    PY=$(find_python) || PY=""
fi
if [ -z "$PY" ]; then
    FOUND=$( (python3 --version || echo "no python3") 2>&1 | head -n 1)
    echo "The tool-call kit needs Python 3.10 or newer, and this autograder image has $FOUND. Choose a newer base image (Ubuntu 22.04 or later) in the autograder settings and rebuild." | tee "$SOURCE/PYTHON_PROBLEM"
    exit 0  # the build succeeds, so that every results.json can say what is wrong (run_autograder)
fi
echo "Using $PY ($("$PY" --version 2>&1))"
if ! "$PY" -m venv "$VENV" >/dev/null 2>&1; then
    # Debian and Ubuntu ship venv apart from Python (python3-venv, python3.X-venv).
    NAME=$("$PY" -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
    if [ -z "${KIT_NO_APT:-}" ] && command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv "$NAME-venv" >/dev/null || true
    fi
    rm -rf "$VENV"
    "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$SOURCE/requirements-grader.txt"
"$VENV/bin/python" -m grader --version
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope runs this for every submission; it must leave results/results.json behind.
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
RESULTS="$ROOT/results/results.json"
mkdir -p "$ROOT/results"
cd "$ROOT/source" || exit 1

say() {{  # a results.json that tells the student (and the instructor) what is wrong, in one sentence
    TEXT=$(printf '%s' "$1" | tr '\n\t' '  ' | sed 's/\\/\\\\/g; s/"/\\"/g')
    printf '{{"score": 0, "output": "%s", "extra_data": {{"autograder_problem": "%s"}}}}\n' "$TEXT" "$2" > "$RESULTS"
}}

if [ -f PYTHON_PROBLEM ]; then
    say "The autograder could not grade your work: $(cat PYTHON_PROBLEM) Please tell your instructor." python
    exit 0
fi
PY="$ROOT/kit-venv/bin/python"
[ -x "$PY" ] || PY=$(command -v python3 || echo python3)
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' >/dev/null 2>&1; then
    say "The autograder could not grade your work: its Python is $("$PY" --version 2>&1 | head -n 1), and the tool-call kit needs Python 3.10 or newer. Please tell your instructor (a newer base image fixes it)." python
    exit 0
fi
# Every .py and .ipynb file the student uploaded is graded; each exercise counts from the best file for it.
"$PY" -m grader.gradescope --grade-upload "$ROOT/submission" --results "$RESULTS" {options}
if [ ! -s "$RESULTS" ]; then
    say "The autograder could not run; please tell your instructor." crashed
fi
exit 0
"""

def uploader(folder):
    """Who uploaded ``folder`` (str): the ids of the users in Gradescope's ``submission_metadata.json`` beside it
    (``/autograder/submission_metadata.json``), sorted and joined, so that two students' equal files are drawn apart;
    "" when there is none or it cannot be read."""
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(folder)), "submission_metadata.json"),
                  encoding="utf-8") as handle:
            users = json.load(handle).get("users") or []
        return ",".join(sorted(str(user.get("id", "")) for user in users if isinstance(user, dict)))
    except (OSError, ValueError, AttributeError):
        return ""


def grade_upload(folder, results_path, assignment=None, hidden_visibility="after_due_date", score_visibility="visible",
                 secret=None):
    """Grade everything a student uploaded and write Gradescope's results.json (what ``run_autograder`` runs).

    Every upload is graded on the same exercises (the assignment chosen when the bundle was built), so every
    upload has the same maximum: an exercise no uploaded file holds gets its cases, failed, with a sentence.

    Args:
        folder: the upload (``/autograder/submission``) (str).
        results_path: where to write results.json (str).
        assignment: the exercise ids (list of str; default: the capstone).
        hidden_visibility, score_visibility: see ``grader.results.formats.gradescope_results``.
        secret: the bundle's seed (str, ``build_bundle``), or None to draw afresh: each file's hidden inputs are
            drawn from it and the files' SHA-256 together (``grader.classroom.batch.grade_files``).
    Returns:
        the combined ``GradeResult`` (``grader.results.grade_result.best_per_exercise`` over the files, plus the missing
        exercises' failed cases).
    """
    from grader.intake.exercises import DEFAULT
    from grader.results.atomic_write import write_json_atomically
    from grader.results.formats import gradescope_results
    from grader.results.text_report import text_report

    assignment = list(assignment or [DEFAULT.id])
    combined = grade_upload_folder(folder, assignment, secret, uploader(folder)).result
    write_json_atomically(results_path, gradescope_results(combined, hidden_visibility, score_visibility))
    print(text_report(combined))
    return combined


def bundle_files(assignment=(), hidden_visibility="after_due_date", score_visibility="visible", secret=None,
                 language=None):
    """The bundle's members: ``{name inside the zip: (bytes, executable)}``.

    Args:
        assignment: the exercise ids every upload is graded on (list of str; default: the capstone).
        hidden_visibility, score_visibility: Gradescope visibilities for hidden cases and the overall score
            (``grader.results.formats.gradescope_results``).
        secret: the assignment's seed (str), written into ``run_autograder`` (students never see the bundle), or None.
        language: the language of the students' feedback (``"en"``, ``"ru"``; ``grader.translations``), written into
            ``run_autograder`` as ``--lang``; None: the grading machine's (English on Gradescope's images).
    Raises:
        ValueError: ``grader/`` holds a folder that is none of its packages (``grader.paths.refuse_stray_folders``):
            the bundle copies ``grader/`` whole, so what is in it would travel, and never run.
    """
    from grader.results.provenance import license_texts

    options = " ".join([*(f"--exercise {e}" for e in assignment), f"--hidden-visibility {hidden_visibility}",
                        f"--score-visibility {score_visibility}",
                        *([f"--assignment-seed {shlex.quote(secret)}"] if secret else []),
                        *([f"--lang {language}"] if language else [])])
    files = {
        "setup.sh": (SETUP_SH.encode(), True),
        "run_autograder": (RUN_AUTOGRADER.format(options=options).encode(), True),
        "requirements-grader.txt": (grader_requirements().encode(), False),
    }
    files.update({name: (text.encode(), False) for name, text in license_texts().items()})
    files.update({name: (data, False) for name, data in grader_files().items()})
    if needs_trusted_steps(assignment):
        files.update({name: (data, False) for name, data in trusted_steps().items()})
    return files


def build_bundle(path, assignment=(), hidden_visibility="after_due_date", score_visibility="visible", secret=None,
                 language=None):
    """Write the autograder zip to ``path``.

    Args:
        path: the zip to write (str). assignment, hidden_visibility, score_visibility, secret, language: see
            ``bundle_files``.
    Returns:
        list of member names, in the order written.
    """
    members = bundle_files(assignment, hidden_visibility, score_visibility, secret, language)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)  # as course.release creates its folder
    # Readable by its owner only: run_autograder holds the assignment's seed.
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
    os.chmod(path, 0o600)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, (data, executable) in members.items():
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            mode = 0o755 if executable else 0o644
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return list(members)


def main(argv=None):
    """Command line; returns 0 on success, 2 for a bad choice of exercises or a stray folder in ``grader/``. ``--grade-upload`` is what the
    bundle's ``run_autograder`` calls."""
    from grader.classroom.assignment import add_assignment_options, add_seed_option, assignment_seed, exercises_from
    from grader.results.formats import VISIBILITIES
    from grader.results.provenance import version_line

    parser = argparse.ArgumentParser(prog="python -m grader.gradescope", description=__doc__.splitlines()[0])
    parser.add_argument("zip", nargs="?", help="the bundle to write, e.g. autograder.zip")
    add_assignment_options(parser)
    parser.add_argument("--hidden-visibility", choices=VISIBILITIES, default="after_due_date",
                        help="when students see the hidden cases (Gradescope's test visibility; default: "
                             "%(default)s, so the hidden suite cannot be probed by resubmitting before the deadline)")
    parser.add_argument("--score-visibility", choices=VISIBILITIES, default="visible",
                        help="Gradescope's top-level visibility, the default for the whole result (default: "
                             "%(default)s; Gradescope hides the total while any scored test is hidden anyway)")
    add_seed_option(parser, "the uploading student's id (Gradescope's submission_metadata.json) and the files' bytes; "
                            "without it or the variable, a new one written into the bundle")
    parser.add_argument("--grade-upload", metavar="FOLDER", help="(inside Gradescope) grade this upload folder")
    parser.add_argument("--results", metavar="PATH", help="with --grade-upload: where to write results.json")
    parser.add_argument("--version", action="version", version=version_line())
    add_language_option(parser)
    args = parser.parse_args(argv)
    try:
        assignment = [e.id for e in exercises_from(args)]
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.grade_upload:
        use(choose(args.lang))  # the student's feedback; the bundle passes --lang, so Gradescope's locale never decides
        if not args.results:
            parser.error("--grade-upload needs --results PATH")
        grade_upload(args.grade_upload, args.results, assignment, args.hidden_visibility, args.score_visibility,
                     assignment_seed(args.assignment_seed)[0])
        return 0
    if not args.zip:
        parser.error("give the bundle to write, e.g. autograder.zip")
    # A bundle always carries a seed: without --assignment-seed or the variable, a new one (printed, to be kept).
    secret = assignment_seed(args.assignment_seed)[0] or secrets.token_hex(16)
    try:
        members = build_bundle(args.zip, assignment, args.hidden_visibility, args.score_visibility, secret, args.lang)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from grader.classroom.batch import assignment_maxima

    maxima = assignment_maxima(assignment)
    print(f"Wrote {args.zip} ({len(members)} files): upload it as the autograder of a Gradescope programming "
          f"assignment. Every upload is graded on {', '.join(assignment)}, out of {points_text(sum(maxima.values()))} points "
          f"(set the assignment's points to that); hidden cases' visibility: {args.hidden_visibility}. Each upload's "
          f"hidden inputs are drawn from the bundle's seed {secret} and the file (keep the seed to rebuild the bundle "
          "with --assignment-seed; students never see it).")
    return 0


if __name__ == "__main__":
    sys.exit(main())

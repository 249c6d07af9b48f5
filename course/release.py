"""The student release: ``python -m course.release DEST [--zip]``.

Writes what learners get for a classroom assignment: the learner notebooks, the visible
self-checks (the grader with only its visible cases, so ``python -m grader`` and the progress view
still work), ``requirements.txt`` and a README for students. Nothing hidden: no ``solutions/``,
no hidden cases, no model answers, no instructor tools. The notebooks are generated afresh from
the solved sources, so work done in this clone's ``notebooks/`` never reaches students.
``tests/test_classroom.py`` proves it.
"""

import argparse
import os
import re
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Instructor-only parts of the grader: the hidden cases and the tools that grade a class.
HIDDEN_CASE_FOLDERS = {"tool_call", "tool_result", "parsing", "schema", "observations", "json_schema", "adapters"}
INSTRUCTOR_MODULES = {"batch.py", "gradescope.py"}
# What a student needs: JupyterLab and widgets for the notebooks, nbformat and pytest for `python -m grader`.
# The kit's test tools (nbval, nbclient, Playwright) and the batch's progress bar stay with the instructor.
STUDENT_PACKAGES = {"jupyter", "jupyterlab", "ipywidgets", "nbformat", "pytest"}

STUDENT_README = """# Tool-call validation: the course

You will write, step by step, the part of an LLM agent runtime that checks a model's raw tool call before
anything runs: parse it, check it against the tool's schema, tell the model what is wrong, give it one retry.

## Start

You need Python 3.10 or newer. In this folder:

```bash
python3 -m venv .venv && .venv/bin/pip install -r requirements.txt && .venv/bin/jupyter lab notebooks/
```

(on Windows use `.venv\\Scripts\\` instead of `.venv/bin/`). Open `00_start_here.ipynb` and follow the notebooks
in order. In each one: run the set-up cell first, write your code in the cell marked as yours, run the
self-check cell (a pass/fail table with hints), and the hint cell when you are stuck.

## Check your work

```bash
.venv/bin/python -m grader notebooks/01_parsing.ipynb
```

runs the visible cases of the exercises in that notebook and prints a report. Your instructor's grader also
runs hidden cases; passing every visible case is not the same as passing those. The progress view at the end of
notebook 0 shows which exercises pass across the course.
"""


def _copy_grader(destination):
    source = os.path.join(ROOT, "grader")
    for base, folders, names in os.walk(source):
        relative = os.path.relpath(base, source)
        parts = relative.split(os.sep)
        folders[:] = sorted(f for f in folders if f != "__pycache__"
                            and not (parts == ["cases"] and f in HIDDEN_CASE_FOLDERS))
        for name in sorted(names):
            if not name.endswith((".py", ".json", ".ini")) or (relative == "." and name in INSTRUCTOR_MODULES):
                continue
            target = os.path.join(destination, "grader", relative, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(os.path.join(base, name), target)


def student_requirements():
    """The kit's requirements.txt cut to ``STUDENT_PACKAGES``, keeping the same pinned ranges (str)."""
    with open(os.path.join(ROOT, "requirements.txt"), encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    kept = [line for line in lines if line and not line.startswith("#")
            and re.split(r"[<>=!~\[ ]", line, maxsplit=1)[0].lower() in STUDENT_PACKAGES]
    return "# The course: JupyterLab and widgets for the notebooks, nbformat and pytest for the grader.\n" + "\n".join(kept) + "\n"


def build_release(destination, make_zip=False):
    """Write the student release into ``destination`` (it must not exist yet).

    Args:
        destination: the folder to create (str).
        make_zip: also write ``destination + ".zip"`` (bool).
    Returns:
        list of the release's files, relative to ``destination``.
    Raises:
        FileExistsError: ``destination`` exists (a release never overwrites anything).
    """
    import nbformat

    from course.notebooks import generated_notebooks

    os.makedirs(os.path.join(destination, "notebooks"))
    for filename, _, learner in generated_notebooks():  # never the working copy: it may hold answers
        with open(os.path.join(destination, "notebooks", filename), "w", encoding="utf-8") as handle:
            handle.write(nbformat.writes(learner) + "\n")
    _copy_grader(destination)
    with open(os.path.join(destination, "requirements.txt"), "w", encoding="utf-8") as handle:
        handle.write(student_requirements())
    with open(os.path.join(destination, "README.md"), "w", encoding="utf-8") as handle:
        handle.write(STUDENT_README)
    files = sorted(os.path.relpath(os.path.join(base, name), destination)
                   for base, _, names in os.walk(destination) for name in names)
    if make_zip:
        shutil.make_archive(destination, "zip", root_dir=destination)
    return files


def main(argv=None):
    """Command line; returns 0 on success, 2 when the destination exists."""
    parser = argparse.ArgumentParser(prog="python -m course.release", description=__doc__.splitlines()[0])
    parser.add_argument("destination", help="folder to create for the students")
    parser.add_argument("--zip", action="store_true", help="also write DESTINATION.zip")
    args = parser.parse_args(argv)
    try:
        files = build_release(args.destination, args.zip)
    except FileExistsError:
        print(f"error: {args.destination} exists; choose a new folder.", file=sys.stderr)
        return 2
    print(f"Wrote the student release to {args.destination} ({len(files)} files)"
          + (f" and {args.destination}.zip" if args.zip else "") + ".")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The student release: ``python -m course.release DEST [--notebooks 00-02] [--self-study] [--zip]``.

Writes what learners get for a classroom assignment: the learner notebooks you assign (all by default;
``--notebooks`` takes a subset, e.g. ``00-02`` or ``01,05``), the visible self-checks (the grader with
only its visible cases and only the assigned exercises, so ``python -m grader`` and the progress view
still work), ``requirements.txt``, the kit's licenses and a README for students. Nothing only the grader
needs: no ``solutions/``, no hidden cases, no canary value pools, no model answers, no instructor tools
(``INSTRUCTOR_ONLY``). The notebooks are generated afresh from the solved sources, so work done in this
clone's ``notebooks/`` never reaches students. ``tests/test_classroom.py`` proves it.

``--lang ru`` writes the Russian course (issue 29): the Russian notebooks in ``notebooks/ru/``, a Russian README and,
with ``--self-study``, the Russian model answers; the notebooks' self-check and grader speak Russian.

``--self-study`` is the release for a learner on their own (issue 27): the same, plus the model answers to the chosen
notebooks' interview questions (``answers/``) and the one-page cheat sheet (``cheatsheet.md``). Still no reference and
no hidden cases: the answers are prose, and a self-learner grades against the visible cases.
"""

import argparse
import fnmatch
import json
import os
import shutil
import sys

from grader.paths import CHEATSHEET_PATH, GRADER_DIR, GRADER_FILE_SUFFIXES, answers_dir, refuse_stray_folders

# What only the instructor's grader needs, as patterns of paths inside grader/ (``/``-separated; a folder ends
# with ``/``): the canary value pools, the classroom tools (batch, gradebook, Gradescope bundle, assignment
# choice, nbgrader's entry) with their command entries, and the class report. A student keeps ``python -m grader``.
INSTRUCTOR_ONLY = ("judging/canary_pools.json", "batch.py", "gradescope.py", "prairielearn.py", "autograde.py", "classroom/*", "insight/*")
STUDENT_TOOLS = ("classroom/__init__.py", "classroom/cli.py")
# And every case folder but these, which hold the hidden cases:
CASES = "judging/cases/"
STUDENT_CASES = ("visible",)
# What a student's copy needs: JupyterLab and widgets for the notebooks, and what the grader it ships imports
# (the notebook reader, IPython's transformer for %%time cells, pytest, psutil for the Windows transport). The
# kit's test tools and the batch's progress bar (tqdm) stay with the instructor. tests/test_classroom.py checks
# that every import of the release is declared.
STUDENT_PACKAGES = ("jupyter", "jupyterlab", "ipywidgets", "nbformat", "ipython", "pytest", "psutil")

STUDENT_README = """# Tool-call validation: the course

You will write, step by step, the part of an LLM agent runtime that checks a model's raw tool call before
anything runs: parse it, check it against the tool's schema, tell the model what is wrong, give it one retry.

## Start

You need Python 3.10 or newer. In this folder, on macOS and Linux (Terminal):

```bash
python3 -m venv .venv && .venv/bin/python -m pip install -r requirements.txt && .venv/bin/jupyter lab notebooks
```

On Windows (PowerShell; no `py` command? write `python` instead):

```powershell
py -m venv .venv
.venv\\Scripts\\python -m pip install -r requirements.txt
.venv\\Scripts\\jupyter lab notebooks
```

Open the first notebook and follow them in order. In each one: run the set-up cell first, write your code
in the cell marked as yours, run the self-check cell (a pass/fail table with hints), and the hint cell when
you are stuck.

## Check your work

```bash
.venv/bin/python -m grader notebooks/{first}
```

(on Windows: `.venv\\Scripts\\python -m grader notebooks\\{first}`)

runs the visible cases of the exercises in that notebook and prints a report. Your instructor's grader also
runs hidden cases; passing every visible case is not the same as passing those. The progress view shows which
exercises pass across the notebooks you were given.

## License

Tool-call validation kit {version}. The code (the grader, every code cell) is under the MIT License
(`LICENSE`); the course text (the notebooks' prose, this README) is under Creative Commons Attribution 4.0
International (`LICENSE-COURSE.txt`). You may use, adapt and share both, keeping the notices.
"""


def instructor_only(relative):
    """True when a path inside ``grader/`` (``"judging/cases/tool_call/"`` for a folder, ``"classroom/batch.py"``
    for a file, ``/``-separated) is only for the instructor's grader and stays out of a student release."""
    if relative.startswith(CASES):
        inside = relative[len(CASES):].split("/")
        return len(inside) > 1 and inside[0] not in STUDENT_CASES
    if relative in STUDENT_TOOLS or any(tool.startswith(relative) for tool in STUDENT_TOOLS if relative.endswith("/")):
        return False  # a student's own tool, or a folder that holds one
    return any(fnmatch.fnmatchcase(relative, pattern) for pattern in INSTRUCTOR_ONLY)


def copy_student_grader(destination, exercise_ids):
    """Write the student's grader into ``destination/grader``: visible cases only, the assigned exercises only.

    A folder in ``grader/`` that is none of its packages is refused before anything is written
    (``grader.paths.refuse_stray_folders``).

    Args:
        destination: the release folder (str). exercise_ids: the exercises kept in ``exercises.json`` (set of str).
    Returns:
        list of the files written, relative to ``destination`` (``/``-separated).
    Raises:
        ValueError: ``grader/`` holds a folder that is not part of its layout.
    """
    refuse_stray_folders("The student's grader")
    written = []
    for base, folders, names in os.walk(GRADER_DIR):
        relative = os.path.relpath(base, GRADER_DIR).replace(os.sep, "/")
        prefix = "" if relative == "." else relative + "/"
        folders[:] = sorted(f for f in folders if f != "__pycache__" and not instructor_only(prefix + f + "/"))
        for name in sorted(names):
            if not name.endswith(GRADER_FILE_SUFFIXES) or instructor_only(prefix + name):
                continue
            target = os.path.join(destination, "grader", *prefix.split("/"), name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if prefix + name == "intake/exercises.json":
                with open(os.path.join(base, name), encoding="utf-8") as handle:
                    course = json.load(handle)
                course["exercises"] = [e for e in course["exercises"] if e["id"] in exercise_ids]
                with open(target, "w", encoding="utf-8") as handle:
                    json.dump(course, handle, indent=2, ensure_ascii=False)
                    handle.write("\n")
            elif prefix + name == "judging/visible_checks.json":
                # Only the assigned exercises' visible calls: a release of notebooks 0-2 need not carry what the
                # reference says for notebook 3's (an instructor's trial).
                from grader.judging.visible_cases import visible_raws

                keep = set(visible_raws(exercise_ids))
                with open(os.path.join(base, name), encoding="utf-8") as handle:
                    table = json.load(handle)
                with open(target, "w", encoding="utf-8") as handle:
                    json.dump({raw: entry for raw, entry in table.items() if raw in keep}, handle, indent=1,
                              ensure_ascii=False, sort_keys=True)
                    handle.write("\n")
            else:
                shutil.copyfile(os.path.join(base, name), target)
            written.append(f"grader/{prefix}{name}")
    return written


def student_requirements():
    """The kit's requirements cut to ``STUDENT_PACKAGES``, keeping the same pinned ranges (str)."""
    from grader.results.provenance import pinned

    return ("# The course: JupyterLab and widgets for the notebooks; nbformat, IPython, pytest and psutil for the grader.\n"
            + "\n".join(pinned(STUDENT_PACKAGES)) + "\n")


def write_licenses(destination):
    """Copy the kit's licenses (``grader.results.provenance.license_texts``) into ``destination``; returns the names written.

    Raises:
        FileNotFoundError: a license file cannot be found (the release must not go out without it).
    """
    from grader.results.provenance import LICENSE_FILES, license_texts

    texts = license_texts()
    missing = [name for name in LICENSE_FILES if name not in texts]
    if missing:
        raise FileNotFoundError(f"the kit's {', '.join(missing)} could not be found")
    for name, text in texts.items():
        with open(os.path.join(destination, name), "w", encoding="utf-8") as handle:
            handle.write(text)
    return sorted(texts)


SELF_STUDY_README = """
## Model answers (self-study)

`answers/` holds a model answer to each interview question at the end of your notebooks: read one after you have
written your own. `cheatsheet.md` is one page of every rule the grader checks, each with its reason.
"""


def write_self_study(destination, chosen, language="en"):
    """Copy the model answers of the ``chosen`` notebooks (file names) in ``language`` into ``destination/answers``,
    and the cheat sheet (English) to ``destination/cheatsheet.md``; returns the answer files written (list of str).

    Raises:
        FileNotFoundError: a chosen notebook has no model answers (a self-study release must not go out without them).
    """
    os.makedirs(os.path.join(destination, "answers"))
    written = []
    for filename in chosen:
        name = filename.replace(".ipynb", ".md")
        shutil.copyfile(os.path.join(answers_dir(language), name), os.path.join(destination, "answers", name))
        written.append(name)
    shutil.copyfile(CHEATSHEET_PATH, os.path.join(destination, "cheatsheet.md"))
    return written


def add_release_language(parser):
    """Add ``--lang {en,ru}`` to a release command's ``parser`` (``course.release``, ``course.nbgrader``): the
    language of what the students get, English unless asked (not the instructor's locale: a class gets what its
    instructor chose)."""
    from grader.translations import LANGUAGES

    parser.add_argument("--lang", default="en", choices=sorted(LANGUAGES),
                        help="the language of the notebooks, README and model answers (default: en; ru writes the "
                             "Russian notebooks into notebooks/ru/, whose self-check and grader speak Russian)")


def build_release(destination, make_zip=False, notebooks="all", self_study=False, language="en"):
    """Write the student release into ``destination`` (it must not exist yet).

    Args:
        destination: the folder to create (str).
        make_zip: also write ``destination + ".zip"`` (bool).
        notebooks: which notebooks to hand out, a ``--notebooks`` spec (``grader.classroom.assignment.select_notebooks``).
        self_study: add the model answers and the cheat sheet (``write_self_study``) (bool).
        language: ``"en"``, or a language of ``course.notebook_texts.TRANSLATED`` (``"ru"``): its notebooks, in
            ``notebooks/<language>/`` as in the kit (where the notebooks' self-check looks for them), its README and
            model answers (issue 29). The grader's feedback follows: the notebooks' set-up cell sets the language.
    Returns:
        list of the release's files, relative to ``destination``.
    Raises:
        FileExistsError: ``destination`` exists (a release never overwrites anything).
        ValueError: ``notebooks`` names no notebook, or ``grader/`` holds a folder that is not part of its layout
            (one sentence).
    """
    import nbformat

    refuse_stray_folders("The student release")

    from course.notebooks import generated_notebooks
    from grader import __version__
    from grader.classroom.assignment import select_notebooks
    from grader.intake.exercises import EXERCISES

    generated = {filename: learner for filename, _, learner in generated_notebooks(language)}  # never the working copy
    chosen = select_notebooks(notebooks, sorted(generated))
    folder = os.path.join(destination, "notebooks", *([] if language == "en" else [language]))
    os.makedirs(folder)
    for filename in chosen:
        with open(os.path.join(folder, filename), "w", encoding="utf-8") as handle:
            handle.write(nbformat.writes(generated[filename]) + "\n")
    copy_student_grader(destination, {e.id for e in EXERCISES if e.notebook in chosen})
    with open(os.path.join(destination, "requirements.txt"), "w", encoding="utf-8") as handle:
        handle.write(student_requirements())
    readme = STUDENT_README + (SELF_STUDY_README if self_study else "")
    if language != "en":
        from course.notebook_texts import catalog, translated_markdown

        readme = translated_markdown(readme, catalog(language).gettext, language)
    with open(os.path.join(destination, "README.md"), "w", encoding="utf-8") as handle:
        handle.write(readme.replace("{first}", chosen[0]).replace("{version}", __version__))
    if self_study:
        write_self_study(destination, chosen, language)
    write_licenses(destination)
    files = sorted(os.path.relpath(os.path.join(base, name), destination)
                   for base, _, names in os.walk(destination) for name in names)
    if make_zip:
        shutil.make_archive(destination, "zip", root_dir=destination)
    return files


def main(argv=None):
    """Command line; returns 0 on success, 2 when the destination exists or ``--notebooks`` names nothing."""
    from grader.results.provenance import version_line

    parser = argparse.ArgumentParser(prog="python -m course.release", description=__doc__.splitlines()[0])
    parser.add_argument("destination", help="folder to create for the students")
    parser.add_argument("--notebooks", default="all", metavar="SPEC",
                        help="the notebooks to hand out: all (default), a number (05), a range (00-02), names, "
                             "comma-separated")
    parser.add_argument("--self-study", action="store_true",
                        help="add the model answers to the interview questions and the cheat sheet (for a learner "
                             "on their own; still no reference and no hidden cases)")
    parser.add_argument("--zip", action="store_true", help="also write DESTINATION.zip")
    add_release_language(parser)
    parser.add_argument("--version", action="version", version=version_line())
    args = parser.parse_args(argv)
    try:
        files = build_release(args.destination, args.zip, args.notebooks, self_study=args.self_study,
                              language=args.lang)
    except FileExistsError:
        print(f"error: {args.destination} exists; choose a new folder.", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:  # a notebook without model answers, in a self-study release
        print(f"error: {exc.filename or exc} is missing; the self-study release needs it.", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"Wrote the student release to {args.destination} ({len(files)} files)"
          + (f" and {args.destination}.zip" if args.zip else "") + ".")
    return 0


if __name__ == "__main__":
    sys.exit(main())

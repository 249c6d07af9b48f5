"""What an assignment grades: the exercises the instructor chose, never what students happen to hand in.

``--exercise ID`` (repeatable) and ``--notebooks SPEC`` (the notebooks handed out, written as for
``course.release``: ``00-02``, ``01,05``, ``05_capstone.ipynb``, ``all``) name them; with neither, the
capstone (the seed's exercise). The batch and the Gradescope bundle grade every student on exactly
these, so one student's extra file can add no column and no point to anyone's maximum (a file defining
every exercise's function raised every classmate's maximum from 116 to 364:
../shared/cases/grader_attacks/gradebook_adds_exercises.sh).
"""

import os
import re
import secrets

from grader.intake.exercises import BY_ID, DEFAULT, EXERCISES

ALL = "all"

# The assignment's secret seed (issue 24): what decides every student's hidden inputs. Given with --assignment-seed,
# or in this environment variable (nbgrader's cells and any command read it), or kept by the batch in its output
# folder. (python -m grader's --seed is another thing: the seed one report names, which never tells the secret.)
SEED_VARIABLE = "KIT_ASSIGNMENT_SEED"
SEED_FILE = "assignment-seed.txt"


def assignment_seed(given=None, out=None):
    """The assignment's secret seed and where it came from: ``(secret or None, sentence)``.

    Args:
        given: the ``--assignment-seed`` option's value (str or None): it wins over ``KIT_ASSIGNMENT_SEED``.
        out: the batch's output folder (str), or None. With it, the seed in use is kept in
            ``OUT/assignment-seed.txt`` (readable by its owner only), so later runs and regrades draw what this one
            drew even without the option; with neither option nor variable, the kept seed is used, or one is made
            (16 random bytes) on the first run.
    Returns:
        ``(secret, how)``: ``how`` says which (str), for the console; ``secret`` None only without ``out``, when no
        seed was given (then every grading draws afresh).
    Raises:
        OSError: the seed file cannot be read or written (the caller says so in one sentence).
    """
    secret, how = None, None
    if given and given.strip():
        secret, how = given.strip(), "given with --assignment-seed"
    elif os.environ.get(SEED_VARIABLE, "").strip():
        secret, how = os.environ[SEED_VARIABLE].strip(), f"given in {SEED_VARIABLE}"
    if out is None:
        return secret, how or "none given: every grading draws afresh"
    path = os.path.join(out, SEED_FILE)
    try:
        with open(path, encoding="utf-8") as handle:
            kept = handle.read().strip()
    except FileNotFoundError:
        kept = None
    if secret is None and kept:
        return kept, f"kept in {path}"
    if secret is None:
        secret, how = secrets.token_hex(16), "made now (16 random bytes)"
    if secret != kept:
        os.makedirs(out, exist_ok=True)
        temporary = path + ".tmp"
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(secret + "\n")
        os.replace(temporary, path)
        if kept:
            how += f"; it replaces the one kept before, so every student is graded again"
    return secret, f"{how}; kept in {path}"


def add_seed_option(parser, where):
    """``--assignment-seed SECRET`` for a command that grades a class; ``where`` says what each file's seed is made
    of besides the secret (str, for the help)."""
    parser.add_argument("--assignment-seed", metavar="SECRET",
                        help=f"the assignment's secret seed: each file's hidden inputs are drawn from it, {where} "
                             f"(default: ${SEED_VARIABLE}); use a random value, e.g. python -c \"import secrets; "
                             f"print(secrets.token_hex(16))\"")


def course_notebooks():
    """The notebooks that hold exercises, in course order (list of file names)."""
    return list(dict.fromkeys(exercise.notebook for exercise in EXERCISES))


def select_notebooks(spec, available):
    """The notebooks a spec names, in the order of ``available``.

    Args:
        spec: comma-separated parts, each ``all``, a two-digit number (``05``), a range of them
            (``00-02``, both ends included) or a file name with or without ``.ipynb``
            (``05_capstone``) (str).
        available: the notebooks to choose from, e.g. ``["00_start_here.ipynb", ...]`` (list of str).
    Returns:
        list of file names, no duplicates, never empty.
    Raises:
        ValueError: a part that names no notebook, or an empty spec (one sentence naming the choices).
    """
    chosen = set()
    for part in (p.strip() for p in str(spec).split(",")):
        if part == ALL:
            chosen.update(available)
            continue
        match = re.fullmatch(r"(\d{1,2})(?:-(\d{1,2}))?", part)
        if match:
            low = int(match.group(1))
            high = int(match.group(2) or low)
            found = [n for n in available if n[:2].isdigit() and low <= int(n[:2]) <= high]
        else:
            found = [n for n in available if part in (n, n.removesuffix(".ipynb"))]
        if not found:
            raise ValueError(f"--notebooks {spec}: {part or '(nothing)'} names no notebook; choose from "
                             + ", ".join(available) + " (by number, range such as 00-02, or name).")
        chosen.update(found)
    return [name for name in available if name in chosen]


def assignment_exercises(exercise_ids=(), notebooks=None):
    """The exercises an assignment grades, in course order.

    Args:
        exercise_ids: ids from ``grader/intake/exercises.json`` (iterable of str).
        notebooks: a ``--notebooks`` spec (str) or None; adds every exercise of those notebooks.
    Returns:
        non-empty list of ``grader.intake.exercises.Exercise``: the union of both choices, or the capstone
        when neither names anything.
    Raises:
        ValueError: an unknown id or a spec that names no notebook (one sentence).
    """
    unknown = [i for i in exercise_ids if i not in BY_ID]
    if unknown:
        raise ValueError(f"unknown exercise {', '.join(unknown)}; choose from {', '.join(BY_ID)}.")
    wanted = set(exercise_ids)
    if notebooks:
        names = set(select_notebooks(notebooks, course_notebooks()))
        wanted.update(e.id for e in EXERCISES if e.notebook in names)
    return [e for e in EXERCISES if e.id in wanted] or [DEFAULT]


def add_assignment_options(parser):
    """Add ``--exercise`` (repeatable) and ``--notebooks`` to an ``argparse`` parser, as the batch and the
    Gradescope bundle take them; ``exercises_from(args)`` turns them into the assignment."""
    parser.add_argument("--exercise", action="append", default=[], choices=sorted(BY_ID), metavar="ID",
                        help="an exercise of the assignment (repeatable); one of: " + ", ".join(BY_ID))
    parser.add_argument("--notebooks", metavar="SPEC",
                        help="the exercises of these notebooks (as handed out with course.release: 00-02, 01,05, "
                             "all); with neither option, the capstone")


def exercises_from(args):
    """The assignment that ``add_assignment_options``' options name (list of ``Exercise``; raises ValueError)."""
    return assignment_exercises(args.exercise, args.notebooks)

"""Write a PrairieLearn question that grades with the kit: ``python -m grader.prairielearn OUT [--notebooks 05]``.

Follows PrairieLearn's external grading (PrairieLearn/PrairieLearn docs/externalGrading.md): a question whose
``info.json`` sets ``"gradingMethod": "External"`` and ``externalGradingOptions``; when a student submits, its
Docker ``image`` starts with the question's ``tests/`` in ``/grade/tests``, the course's chosen
``serverFilesCourse`` folders in ``/grade/serverFilesCourse``, the student's files in ``/grade/student`` and the
question's data in ``/grade/data/data.json``; the ``entrypoint`` must write ``/grade/results/results.json``
(creating ``/grade/results``) within ``timeout`` seconds, without a network unless ``enableNetworking``.

What ``OUT`` receives, laid out as a course repository (copy both folders into yours)::

    questions/QID/info.json            external grading on, image, entrypoint, timeout, no network
    questions/QID/question.html        a file upload (or one editor per exercise) and the grader's results
    questions/QID/tests/run.sh         the entrypoint: finds Python 3.10+, runs the grader, always leaves results
    questions/QID/tests/grader/...     the grader with its hidden cases (and the trusted steps 1-3 where needed)
    serverFilesCourse/toolcall_kit/    the pure-Python packages grading needs that PrairieLearn's Python image lacks

Students never see ``tests/`` or ``serverFilesCourse/`` (PrairieLearn serves only ``clientFiles*`` folders), so
the hidden cases and the assignment's seed stay on the course's side, as in the Gradescope bundle.
``PL_GRADE_ROOT`` overrides ``/grade`` (used by the kit's tests to run the entrypoint against a fake tree).
"""

import argparse
import json
import os
import re
import secrets
import shlex
import sys
import uuid

from grader.classroom.upload import grade_upload_folder, grader_files, needs_trusted_steps, trusted_steps
from grader.results.grade_result import points_text
from grader.translations import _, add_language_option, choose, ngettext, say, speaking, use

# PrairieLearn's reference Python image (graders/python in PrairieLearn/PrairieLearn): Python from Miniforge (3.12
# or newer in 2025-2026 builds) with nbformat and IPython installed, but not pytest; run.sh says so when an image
# lacks what grading needs.
DEFAULT_IMAGE = "prairielearn/grader-python"
# externalGradingOptions.timeout: at most 600 s (docs/externalGrading.md). The kit's budget for one upload is 120 s
# of grading (``grader.isolation.limits.Limits.total_seconds``), which a busy machine stretches up to three times
# (``grader.isolation.deadlines.BUDGET_BACKSTOP``): 400 s leaves that and the start room. A shorter timeout cuts the
# budget to fit (``grader_limits``).
DEFAULT_TIMEOUT = 400
MAX_TIMEOUT = 600
# What a job spends besides grading: starting Python, importing nbformat and pytest, reading the notebooks.
START_SECONDS = 40
KIT_FOLDER = "toolcall_kit"  # in serverFilesCourse
# What grading imports that PrairieLearn's Python image does not hold (pytest runs the cases), with what pytest
# needs; exceptiongroup and tomli only on Python 3.10 (pytest's own markers), copied when this Python has them.
# pygments is left out: pytest imports it only to colour its terminal, and runs without it.
VENDORED = ("pytest", "pluggy", "iniconfig", "packaging", "exceptiongroup", "tomli")
INPUTS = ("upload", "editor")

RUN_SH = r"""#!/usr/bin/env bash
# PrairieLearn runs this in the grading container for every submission (docs/externalGrading.md); it must leave
# /grade/results/results.json behind. Written by python -m grader.prairielearn; the tool-call kit's grader is beside it.
GRADE="${{PL_GRADE_ROOT:-/grade}}"
TESTS="$GRADE/tests"
RESULTS="$GRADE/results/results.json"
mkdir -p "$GRADE/results"
rm -f "$RESULTS"

not_gradable() {{  # a results.json PrairieLearn shows as "not gradable": no points, no attempt used
    TEXT=$(printf '%s' "$1" | tr '\n\t' '  ' | sed 's/\\/\\\\/g; s/"/\\"/g')
    printf '{{"gradable": false, "format_errors": ["%s"], "message": "%s"}}\n' "$TEXT" "$TEXT" > "$RESULTS"
}}

# The kit first, then the packages it brings, then the image's own (PrairieLearn's image sets PYTHONPATH too).
export PYTHONPATH="$TESTS:$GRADE/serverFilesCourse/{kit_folder}/python${{PYTHONPATH:+:$PYTHONPATH}}"
cd "$TESTS" || exit 1
# The first Python 3.10 or newer that has what grading imports; else the first 3.10 or newer, to say what it lacks.
# KIT_PYTHONS (info.json's "environment", or a trial run) names the candidates instead.
PY=""
NEW_ENOUGH=""
for candidate in ${{KIT_PYTHONS:-python3.13 python3.12 python3.11 python3.10 python3}}; do
    if command -v "$candidate" >/dev/null 2>&1 \
            && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 10))' >/dev/null 2>&1; then
        NEW_ENOUGH=${{NEW_ENOUGH:-$(command -v "$candidate")}}
        if "$candidate" -c 'import nbformat, IPython, pytest' >/dev/null 2>&1; then
            PY=$(command -v "$candidate")
            break
        fi
    fi
done
if [ -z "$NEW_ENOUGH" ]; then
    FOUND=$( (python3 --version || echo "no python3") 2>&1 | head -n 1)
    not_gradable "The autograder could not grade your work: the tool-call kit needs Python 3.10 or newer, and this grading image has $FOUND. Please tell your instructor (the question's image must change)."
    exit 0
fi
PY=${{PY:-$NEW_ENOUGH}}
if ! PROBLEM=$("$PY" -c 'import nbformat, IPython, pytest' 2>&1); then
    not_gradable "The autograder could not grade your work: its Python cannot import what grading needs ($(printf '%s' "$PROBLEM" | tail -n 1)). Please tell your instructor (use {image} or an image with nbformat and IPython, and copy serverFilesCourse/{kit_folder} into the course)."
    exit 0
fi
"$PY" -m grader.prairielearn --grade-job "$GRADE" {options}
if [ ! -s "$RESULTS" ]; then
    not_gradable "The autograder could not run; please tell your instructor."
fi
exit 0
"""


def question_id(assignment):
    """A question folder's default name for an assignment (str), e.g. ``toolcall_05_capstone`` (PrairieLearn's
    question ids are folder names; the kit keeps to letters, digits and underscores)."""
    from grader.intake.exercises import BY_ID

    notebooks = dict.fromkeys(BY_ID[e].notebook.removesuffix(".ipynb") for e in assignment)
    return "toolcall_" + "_".join(notebooks)


def question_html(assignment, input_kind="upload"):
    """The question's ``question.html`` (str): what to hand in and how it is graded, the input, and the grader's
    results in the submission panel (``pl-external-grader-results``, PrairieLearn's element for them).

    Args:
        assignment: exercise ids (list of str). input_kind: ``"upload"`` (``pl-file-upload`` taking the student's
            .ipynb or .py files) or ``"editor"`` (one ``pl-file-editor`` per exercise, ``initial_code/ID.py``).
    """
    from grader.intake.exercises import BY_ID

    exercises = [BY_ID[e] for e in assignment]
    listed = "\n".join(f"    <li>{_html(_(e.title))}: <code>{', '.join(e.functions)}</code>, "
                       + _("in {notebook}").format(notebook=f"<code>{_html(e.notebook)}</code>") + "</li>"
                       for e in exercises)
    how = (_("Upload your notebook(s), or .py files holding your functions. Every exercise counts from the file that "
             "scores best on it.") if input_kind == "upload" else
           _("Paste the code of your notebook's solution cells into the editor of each exercise: the functions and "
             "whatever they use."))
    intro = _("This question grades your work from the tool-call validation course:")
    rules = _("The grader runs the visible checks from your notebook and hidden cases drawn for your submission. A "
              "hidden case shows the rule it checks and what went wrong, never its input. When the grader cannot run "
              "your work at all (a file it cannot read, a syntax error, none of the functions above), nothing is graded "
              "and no attempt is used; an exercise left undone beside others earns 0 for its cases.")
    panel = (f"""<pl-question-panel>
  <p>{_html(intro)}</p>
  <ul>
{listed}
  </ul>
  <p>{_html(how)} {_html(rules)}</p>
</pl-question-panel>
""")
    if input_kind == "upload":
        inputs = '<pl-file-upload optional-file-patterns="*.ipynb, *.py"></pl-file-upload>\n'
    else:
        inputs = "".join(f'<pl-file-editor file-name="{e.id.replace("-", "_")}.py" ace-mode="ace/mode/python" '
                         f'source-file-name="initial_code/{e.id}.py"></pl-file-editor>\n' for e in exercises)
    return (panel + "\n" + inputs + "\n<pl-submission-panel>\n  <pl-file-preview></pl-file-preview>\n"
            "  <pl-external-grader-results></pl-external-grader-results>\n</pl-submission-panel>\n")


def _html(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def initial_code(exercise_id):
    """The editor's starting text for one exercise (str): a comment naming what to paste, no code of the answer."""
    from grader.intake.exercises import BY_ID

    exercise = BY_ID[exercise_id]
    return (f"# {_(exercise.title)}\n# " + say("Paste your solution from {notebook} here: {functions} and everything it "
                                               "uses.", notebook=exercise.notebook,
                                               functions=", ".join(exercise.functions)) + "\n")


def info_json(assignment, image=DEFAULT_IMAGE, timeout=DEFAULT_TIMEOUT, question_uuid=None):
    """The question's ``info.json`` (dict): PrairieLearn's question fields (``uuid``, ``title``, ``topic``,
    ``tags``, ``type`` "v3") and ``externalGradingOptions`` (docs/externalGrading.md): ``enabled``, ``image``, the
    ``entrypoint`` in ``/grade/tests``, ``serverFilesCourse`` (the kit's folder), ``timeout`` (s) and
    ``enableNetworking`` false (the grader needs none, and the submission must have none).

    Args:
        assignment: exercise ids (list of str). image: a Docker image ``docker pull`` accepts (str).
        timeout: seconds (int, 1 to 600). question_uuid: the question's uuid (str), or None for a new one.
    Raises:
        ValueError: a timeout outside 1 to 600 s (PrairieLearn refuses more than 600).
    """
    from grader.intake.exercises import BY_ID

    if not 1 <= int(timeout) <= MAX_TIMEOUT:
        raise ValueError(f"--timeout {timeout}: PrairieLearn takes 1 to {MAX_TIMEOUT} seconds.")
    titles = [BY_ID[e].title for e in assignment]
    return {
        "uuid": question_uuid or str(uuid.uuid4()),
        "title": "Tool-call validation: " + "; ".join(titles),
        "topic": "Tool-call validation",
        "tags": ["toolcall-kit", "externally-graded"],
        "type": "v3",
        "gradingMethod": "External",
        "externalGradingOptions": {
            "enabled": True,
            "image": image,
            "entrypoint": "/grade/tests/run.sh",
            "serverFilesCourse": [KIT_FOLDER + "/"],
            "timeout": int(timeout),
            "enableNetworking": False,
        },
    }


def vendored_files():
    """The packages in ``VENDORED`` that this Python has, as ``{path below python/: bytes}`` (their modules and
    metadata, never ``__pycache__`` or scripts), for ``serverFilesCourse/toolcall_kit/python/``.

    Raises:
        ValueError: pytest is not installed here (the kit's grading needs it; install the kit's requirements).
    """
    from importlib import metadata

    files = {}
    for name in VENDORED:
        try:
            distribution = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            if name == "pytest":
                raise ValueError("pytest is not installed in this Python: install the kit's requirements first.")
            continue
        for entry in distribution.files or ():
            relative = str(entry).replace("\\", "/")
            if relative.startswith("..") or "__pycache__" in relative or relative.endswith((".pyc", "RECORD", "INSTALLER")):
                continue
            path = entry.locate()
            if os.path.isfile(path):
                with open(path, "rb") as handle:
                    files[relative] = handle.read()
    return files


def question_files(assignment, secret, image=DEFAULT_IMAGE, timeout=DEFAULT_TIMEOUT, input_kind="upload",
                   question_uuid=None, qid=None, language=None):
    """Every file the command writes, as ``{path below OUT: (bytes, executable)}``.

    Args:
        assignment: exercise ids (list of str). secret: the assignment's seed (str), written into ``run.sh``.
        image, timeout, question_uuid: see ``info_json``. input_kind: see ``question_html``.
        qid: the question's folder name (str), or None for ``question_id(assignment)``.
        language: the students' language (``"en"``, ``"ru"``; ``grader.translations``): the question page, the
            editors' starting comments and the grader's feedback (``run.sh`` passes ``--lang``); None: English page,
            feedback in the grading container's language (English on PrairieLearn's images).
    Raises:
        ValueError: a bad timeout or input, or a stray folder in ``grader/`` (``grader_files``), or no pytest here.
    """
    from grader.results.provenance import license_texts

    if input_kind not in INPUTS:
        raise ValueError(f"--input {input_kind}: choose {' or '.join(INPUTS)}.")
    base = f"questions/{qid or question_id(assignment)}"
    options = " ".join([*(f"--exercise {e}" for e in assignment), f"--assignment-seed {shlex.quote(secret)}",
                        f"--timeout {int(timeout)}", *([f"--lang {language}"] if language else [])])
    with speaking(language or "en"):
        page = question_html(assignment, input_kind)
        starting = {e: initial_code(e) for e in assignment}
    files = {
        f"{base}/info.json": (json.dumps(info_json(assignment, image, timeout, question_uuid), indent=2, ensure_ascii=False).encode() + b"\n",
                              False),
        f"{base}/question.html": (page.encode(), False),
        f"{base}/tests/run.sh": (RUN_SH.format(options=options, image=DEFAULT_IMAGE, kit_folder=KIT_FOLDER).encode(),
                                 True),
    }
    if input_kind == "editor":
        files.update({f"{base}/initial_code/{e}.py": (starting[e].encode(), False) for e in assignment})
    files.update({f"{base}/tests/{name}": (text.encode(), False) for name, text in license_texts().items()})
    files.update({f"{base}/tests/{name}": (data, False) for name, data in grader_files().items()})
    if needs_trusted_steps(assignment):
        files.update({f"{base}/tests/{name}": (data, False) for name, data in trusted_steps().items()})
    kit = f"serverFilesCourse/{KIT_FOLDER}"
    files[f"{kit}/README.md"] = (
        b"# The tool-call kit's share of serverFilesCourse\n\n"
        b"`python/` holds pure-Python packages the kit's grader imports that PrairieLearn's Python image\n"
        b"(prairielearn/grader-python) does not have: pytest and what it needs. Questions written by\n"
        b"`python -m grader.prairielearn` list this folder in their `externalGradingOptions.serverFilesCourse`.\n", False)
    files.update({f"{kit}/python/{name}": (data, False) for name, data in vendored_files().items()})
    return files


def existing_uuid(path):
    """The ``uuid`` of an ``info.json`` already at ``path`` (str), or None: a rebuilt question keeps it, because
    PrairieLearn knows a question by its uuid and would otherwise treat it as new, apart from its submissions."""
    try:
        with open(path, encoding="utf-8") as handle:
            found = json.load(handle).get("uuid")
    except (OSError, ValueError, AttributeError):
        return None
    return found if isinstance(found, str) and re.fullmatch(r"[0-9a-fA-F-]{36}", found) else None


def write_question(out, assignment, secret, image=DEFAULT_IMAGE, timeout=DEFAULT_TIMEOUT, input_kind="upload",
                   qid=None, language=None):
    """Write the question and the kit's ``serverFilesCourse`` folder under ``out``.

    The question's ``tests/`` folder is written afresh (a case removed from the kit leaves no copy behind);
    ``info.json`` keeps the uuid of one already there.

    Args:
        out: a course repository, or any folder to copy from (str). Others: see ``question_files``.
    Returns:
        ``(question folder, number of files written)`` (str, int).
    Raises:
        ValueError: see ``question_files``. OSError: ``out`` cannot be written.
    """
    import shutil

    qid = qid or question_id(assignment)
    folder = os.path.join(out, "questions", qid)
    files = question_files(assignment, secret, image, timeout, input_kind,
                           existing_uuid(os.path.join(folder, "info.json")), qid, language)
    for stale in (os.path.join(folder, "tests"), os.path.join(out, "serverFilesCourse", KIT_FOLDER, "python")):
        shutil.rmtree(stale, ignore_errors=True)
    for name, (data, executable) in files.items():
        path = os.path.join(out, *name.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        # run.sh holds the assignment's seed: its owner only may read it (and PrairieLearn, which copies it).
        mode = 0o700 if executable else 0o644
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.chmod(path, mode)
    return folder, len(files)


def variant_of(root):
    """The ``variant_seed`` in PrairieLearn's ``ROOT/data/data.json`` (str), "" when there is none or it cannot be
    read: each student's variant draws its own hidden inputs, as the student's id does on Gradescope."""
    try:
        with open(os.path.join(root, "data", "data.json"), encoding="utf-8") as handle:
            seed = json.load(handle).get("variant_seed")
    except (OSError, ValueError, AttributeError):
        return ""
    return "" if seed is None else str(seed)[:100]


def format_errors(upload, assignment):
    """Why PrairieLearn should call an upload not gradable (list of one-sentence str; empty: it is gradable).

    Not gradable (no points, no attempt used): nothing to grade; an exercise whose function no readable file defines
    because something stopped it (a syntax error, PrairieLearn's own example of "invalid, not gradable", or an
    exception while loading) or because its file could not be read (a corrupt notebook) or was not graded (past the
    number of files graded); and an upload that defines no exercise of the question at all (the wrong notebook).
    An exercise simply left undone beside others that are done is graded, its cases failed with a sentence, as on
    Gradescope: a problem set earns partial credit. A file that cannot be read beside files that hold every
    exercise is a note, not a reason.

    Args:
        upload: ``grader.classroom.upload.GradedUpload``. assignment: exercise ids (list of str).
    """
    from grader.classroom.upload import nothing_uploaded
    from grader.intake.exercises import BY_ID

    if not upload.files:
        refused = upload.refused[:3] + ([say("And {count} more.", count=len(upload.refused) - 3)]
                                        if len(upload.refused) > 3 else [])
        return [" ".join([nothing_uploaded(assignment), *refused])]
    unreadable = [sentence if sentence.startswith(name) else f"{name}: {sentence}" for name, sentence in upload.unreadable]
    if upload.result.error:  # no file could be read at all
        return _few(unreadable or [upload.result.error])
    absent = upload.result.absent
    undone = [e for e in assignment if e in upload.missing or e in absent]
    if not undone:
        return []
    errors = []
    names = {os.path.basename(path) for path in upload.files}
    for exercise_id in undone:
        exercise = BY_ID[exercise_id]
        problem = absent.get(exercise_id, {}).get("problem", "").strip().rstrip(".")
        if problem:
            local = re.search(r"No module named '([A-Za-z_][\w]*)", problem)
            if local and f"{local.group(1)}.py" in names:
                problem += say("; each file you hand in is graded on its own, so put the code of {module}.py into the "
                               "file that imports it", module=local.group(1))
            errors.append(say("Nothing you handed in defines {functions} (the exercise of {notebook}): {problem}. Fix "
                              "that, or hand in the code that defines it.", functions=", ".join(exercise.functions),
                              notebook=exercise.notebook, problem=problem))
    errors += unreadable
    if upload.skipped:
        shown = ", ".join(sentence.partition(":")[0] for sentence in upload.skipped[:3])
        more = say(" and {count} more", count=len(upload.skipped) - 3) if len(upload.skipped) > 3 else ""
        count = len(upload.skipped)
        reason = upload.skipped[0].partition(": ")[2].removeprefix("not graded: ")
        errors.append(ngettext("{count} file of yours was not graded ({files}) because {reason}; hand in fewer files.",
                               "{count} files of yours were not graded ({files}) because {reason}; hand in fewer files.",
                               count).format(count=count, files=shown + more, reason=reason))
    if not errors and len(undone) == len(assignment):  # nothing of the question was handed in
        for exercise_id in undone:
            exercise = BY_ID[exercise_id]
            errors.append(say("Nothing you handed in defines {functions} (the exercise of {notebook}); hand in the "
                              "code that defines it.", functions=", ".join(exercise.functions),
                              notebook=exercise.notebook))
    return _few(errors)


# At most this many format errors: one per unreadable file of thousands made results.json pass 1 MB (a trial).
MAX_FORMAT_ERRORS = 10


def _few(errors):
    """``errors`` cut to ``MAX_FORMAT_ERRORS`` sentences, the last saying how many more there were (list of str)."""
    if len(errors) <= MAX_FORMAT_ERRORS:
        return errors
    return errors[: MAX_FORMAT_ERRORS - 1] + [say("And {count} more problems like these.",
                                                   count=len(errors) - MAX_FORMAT_ERRORS + 1)]


def grader_limits(timeout):
    """The ``grader.isolation.limits.Limits`` a job runs with under PrairieLearn's ``timeout`` (int, s): the kit's,
    with the budget for all of an upload's cases cut so that, stretched to its backstop on a busy grading host
    (``grader.isolation.deadlines.BUDGET_BACKSTOP`` times), it still ends ``START_SECONDS`` before PrairieLearn
    stops the job (which would leave no results.json: "a failure to the student")."""
    import dataclasses

    from grader.isolation.deadlines import BUDGET_BACKSTOP
    from grader.isolation.limits import Limits

    kit = Limits()
    fits = max(10.0, (timeout - START_SECONDS) / BUDGET_BACKSTOP)
    return dataclasses.replace(kit, total_seconds=min(kit.total_seconds, fits))


def grade_job(root, assignment, secret=None, timeout=DEFAULT_TIMEOUT):
    """Grade a PrairieLearn grading job and write ``ROOT/results/results.json`` (what ``run.sh`` runs).

    Args:
        root: the job's folder (``/grade``) (str): ``student/`` holds the upload, ``data/data.json`` the variant.
        assignment: exercise ids (list of str). secret: the assignment's seed (str), or None to draw afresh.
        timeout: the question's ``externalGradingOptions.timeout`` (int, s; ``grader_limits``).
    Returns:
        the results dict written (``grader.results.formats.prairielearn_results``).
    """
    from grader.results.atomic_write import write_json_atomically
    from grader.results.formats import prairielearn_results
    from grader.results.text_report import text_report

    upload = grade_upload_folder(os.path.join(root, "student"), assignment, secret, variant_of(root),
                                 grader_limits(timeout))
    results = prairielearn_results(upload.result, format_errors(upload, assignment))
    write_json_atomically(os.path.join(root, "results", "results.json"), results)
    print(text_report(upload.result))
    return results


def main(argv=None):
    """Command line; returns 0 on success, 2 for a bad choice (exercises, timeout, input, a stray folder in
    ``grader/``). ``--grade-job`` is what the question's ``run.sh`` calls inside PrairieLearn."""
    from grader.classroom.assignment import add_assignment_options, add_seed_option, assignment_seed, exercises_from
    from grader.results.provenance import version_line

    parser = argparse.ArgumentParser(prog="python -m grader.prairielearn", description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", help="the course repository (or a folder) to write questions/ and "
                                               "serverFilesCourse/ into")
    add_assignment_options(parser)
    parser.add_argument("--qid", help="the question's folder name (default: toolcall_ and the notebooks' names)")
    parser.add_argument("--image", default=DEFAULT_IMAGE, help="the grading image (default: %(default)s; any image "
                        "with Python 3.10 or newer, nbformat and IPython)")
    parser.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT,
                        help=f"seconds PrairieLearn gives one grading job (default: %(default)s; at most {MAX_TIMEOUT}); "
                             "a shorter one cuts the grader's budget to fit")
    parser.add_argument("--input", choices=INPUTS, default="upload",
                        help="how students hand in: their files (upload, the default) or one editor per exercise")
    add_seed_option(parser, "the student's variant (PrairieLearn's variant_seed) and the files' bytes; without it "
                            "or the variable, a new one written into the question")
    parser.add_argument("--grade-job", metavar="FOLDER", help="(inside PrairieLearn) grade this job folder (/grade)")
    parser.add_argument("--version", action="version", version=version_line())
    add_language_option(parser)
    args = parser.parse_args(argv)
    try:
        assignment = [e.id for e in exercises_from(args)]
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.grade_job:
        use(choose(args.lang))  # the student's feedback; run.sh passes the question's --lang
        grade_job(args.grade_job, assignment, assignment_seed(args.assignment_seed)[0], args.timeout)
        return 0
    if not args.out:
        parser.error("give the course repository to write the question into, e.g. my-course/")
    if args.qid is not None and not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}", args.qid):
        print(f"error: --qid {args.qid!r}: use letters, digits, '_', '-' and '.' only.", file=sys.stderr)
        return 2
    secret = assignment_seed(args.assignment_seed)[0] or secrets.token_hex(16)
    try:
        folder, count = write_question(args.out, assignment, secret, args.image, args.timeout, args.input, args.qid,
                                       args.lang)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: could not write {args.out}: {exc.strerror or exc}.", file=sys.stderr)
        return 2
    from grader.classroom.batch import assignment_maxima

    total = sum(assignment_maxima(assignment).values())
    print(f"Wrote {folder} and {os.path.join(args.out, 'serverFilesCourse', KIT_FOLDER)} ({count} files): copy both "
          f"into your course repository and add the question to an assessment. Every upload is graded on "
          f"{', '.join(assignment)}, out of {points_text(total)} points, reported to PrairieLearn as a fraction; "
          f"image {args.image}, timeout {args.timeout} s, no network. Each upload's hidden inputs are drawn from the "
          f"question's seed {secret}, the student's variant and the file (keep the seed to rebuild the question with "
          "--assignment-seed; students never see it).")
    return 0


if __name__ == "__main__":
    sys.exit(main())

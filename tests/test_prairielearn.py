"""The PrairieLearn question (issue 28): ``python -m grader.prairielearn`` and its entrypoint on a simulated ``/grade``.

PrairieLearn's external grading (PrairieLearn/PrairieLearn docs/externalGrading.md) copies the question's ``tests/``
to ``/grade/tests``, the course's ``serverFilesCourse`` folders to ``/grade/serverFilesCourse``, the student's files
to ``/grade/student`` and the question's data to ``/grade/data/data.json``, runs the entrypoint and reads
``/grade/results/results.json`` (at most 1 MB). These tests build a question, lay out such a tree (``PL_GRADE_ROOT``
stands for ``/grade``) and run ``run.sh`` as PrairieLearn would, for correct, faulty, stub, hostile and corrupt
uploads; each score must be the kit's own (``python -m grader --seed``) as a fraction.
"""

import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

from conftest import ROOT, run_grader
from points import available

SOLVED = os.path.join(ROOT, "solutions", "notebooks")
STUBS = os.path.join(ROOT, "notebooks")
SEED_SAMPLE = os.path.join(ROOT, "tests", "golden", "seed_sample", "submission.py")
HOSTILE = os.path.join(ROOT, "tests", "hostile")
QID = "toolcall_05_capstone"
LIMIT = 1_000_000  # PrairieLearn's bound on results.json (bytes)


def build(out, *options):
    process = subprocess.run([sys.executable, "-m", "grader.prairielearn", str(out), *options], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
    assert process.returncode == 0 and "Traceback" not in process.stderr, process.stderr
    return process


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A course repository holding the capstone's question, built with a known seed."""
    out = tmp_path_factory.mktemp("course")
    build(out, "--notebooks", "05", "--assignment-seed", "pl-trial-seed")
    return out


def job(tmp_path, course, *uploads, variant=20261207, qid=QID):
    """A simulated ``/grade`` for one submission: ``uploads`` are ``(source, name)`` pairs."""
    root = tmp_path / "grade"
    shutil.copytree(course / "questions" / qid / "tests", root / "tests")
    shutil.copytree(course / "serverFilesCourse", root / "serverFilesCourse")
    (root / "student").mkdir()
    (root / "data").mkdir()
    (root / "data" / "data.json").write_text(json.dumps({"variant_seed": variant, "params": {},
                                                         "submitted_answers": {}}))
    for source, name in uploads:
        shutil.copy(source, root / "student" / name)
    return root


def run_entrypoint(root, env=None):
    """Run ``tests/run.sh`` as PrairieLearn does (it makes the entrypoint executable, then runs it); returns the
    results as read back, checked against the documented fields and types, and the run's output."""
    entry = root / "tests" / "run.sh"
    entry.chmod(entry.stat().st_mode | stat.S_IXUSR)
    env = {**os.environ, "PL_GRADE_ROOT": str(root),
           "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"], **(env or {})}
    env.pop("PYTHONPATH", None)
    run = subprocess.run([str(entry)], env=env, capture_output=True, text=True, timeout=400, cwd=str(root))
    assert run.returncode == 0, run.stderr
    path = root / "results" / "results.json"
    assert path.stat().st_size < LIMIT
    results = json.loads(path.read_text(encoding="utf-8"))
    assert_prairielearn_fields(results)
    return results, run


def assert_prairielearn_fields(results):
    """The fields and types of docs/externalGrading.md ("Grading results")."""
    assert isinstance(results.get("gradable", True), bool)
    if results.get("gradable", True):
        assert isinstance(results["score"], float) and 0.0 <= results["score"] <= 1.0
    else:
        assert "score" not in results
        errors = results["format_errors"]
        assert isinstance(errors, list) and errors and all(isinstance(e, str) and e for e in errors)
    assert isinstance(results.get("message", ""), str)
    for test in results.get("tests", []):
        assert {"name", "points", "max_points"} <= set(test)
        assert isinstance(test["name"], str) and test["name"]
        assert isinstance(test["points"], float) and isinstance(test["max_points"], float)
        assert 0 <= test["points"] <= test["max_points"]
        for key in ("description", "message", "output"):
            assert isinstance(test.get(key, ""), str)


def kit_fraction(path, seed, tmp_path):
    """The kit's own grade of ``path`` with ``seed``: ``(score / max, results)``."""
    process, kit = run_grader(path, "--exercise", "capstone", "--seed", seed, results=tmp_path / "kit.json")
    assert kit is not None, process.stderr
    maximum = sum(test["max_score"] for test in kit["tests"])
    return kit["score"] / maximum, kit


def test_the_question_has_prairielearns_layout_and_options(course):
    question = course / "questions" / QID
    info = json.loads((question / "info.json").read_text(encoding="utf-8"))
    assert info["type"] == "v3" and info["gradingMethod"] == "External" and len(info["uuid"]) == 36
    options = info["externalGradingOptions"]
    assert options == {"enabled": True, "image": "prairielearn/grader-python", "entrypoint": "/grade/tests/run.sh",
                       "serverFilesCourse": ["toolcall_kit/"], "timeout": 400, "enableNetworking": False}
    html = (question / "question.html").read_text(encoding="utf-8")
    assert "<pl-file-upload" in html and "<pl-external-grader-results>" in html and "05_capstone.ipynb" in html
    names = {os.path.relpath(os.path.join(b, n), question) for b, _, files in os.walk(question) for n in files}
    assert "tests/grader/judging/cases/tool_call/test_01_parsing.py" in names  # the hidden cases travel
    # Only the trusted steps 1-3 the grader's own side runs: never the notebooks, the model answers or the capstone.
    assert {n for n in names if n.startswith("tests/solutions/")} == {
        f"tests/solutions/{m}.py" for m in ("__init__", "violations", "registry", "parse", "schema", "observation")}
    assert not any(n.endswith(".ipynb") or "__pycache__" in n for n in names)
    assert os.stat(question / "tests" / "run.sh").st_mode & 0o077 == 0  # it holds the seed: its owner's only
    vendored = course / "serverFilesCourse" / "toolcall_kit" / "python"
    assert (vendored / "pytest" / "__init__.py").exists() and (vendored / "_pytest").is_dir()
    assert (vendored / "pluggy").is_dir() and not list(vendored.rglob("*.pyc"))


def test_a_rebuilt_question_keeps_its_uuid_and_drops_old_files(tmp_path):
    """PrairieLearn knows a question by its uuid: a new one would part it from its submissions."""
    build(tmp_path, "--notebooks", "01", "--timeout", "90", "--input", "editor")
    info_path = tmp_path / "questions" / "toolcall_01_parsing" / "info.json"
    first = json.loads(info_path.read_text())
    stray = tmp_path / "questions" / "toolcall_01_parsing" / "tests" / "grader" / "old_case.py"
    stray.write_text("raise SystemExit")
    build(tmp_path, "--notebooks", "01")
    second = json.loads(info_path.read_text())
    assert second["uuid"] == first["uuid"] and first["externalGradingOptions"]["timeout"] == 90
    assert not stray.exists()
    html = (tmp_path / "questions" / "toolcall_01_parsing" / "question.html").read_text()
    assert "<pl-file-upload" in html and "pl-file-editor" not in html


def test_the_editor_form_gives_one_editor_per_exercise_and_no_answer(tmp_path):
    build(tmp_path, "--notebooks", "01-02", "--input", "editor", "--qid", "steps")
    question = tmp_path / "questions" / "steps"
    html = (question / "question.html").read_text()
    assert html.count("<pl-file-editor") == 2 and 'source-file-name="initial_code/parse-call.py"' in html
    starting = (question / "initial_code" / "parse-call.py").read_text()
    assert starting.startswith("#") and "def " not in starting and "parse_call" in starting


@pytest.mark.parametrize("options, sentence", [
    (["--timeout", "601"], "1 to 600 seconds"),
    (["--qid", "../elsewhere"], "--qid"),
    (["--notebooks", "42"], "names no notebook"),
])
def test_a_bad_choice_gets_one_sentence(tmp_path, options, sentence):
    process = subprocess.run([sys.executable, "-m", "grader.prairielearn", str(tmp_path), *options], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
    assert process.returncode == 2 and sentence in process.stderr and "Traceback" not in process.stderr
    assert not (tmp_path / "questions").exists()


UPLOADS = {
    "correct": (os.path.join(SOLVED, "05_capstone.ipynb"), "05_capstone.ipynb"),
    "faulty": (SEED_SAMPLE, "05_capstone.py"),  # the original card's sample solution, with its real faults
    "stub": (os.path.join(STUBS, "05_capstone.ipynb"), "05_capstone.ipynb"),
    "hostile: prints a flood": (os.path.join(HOSTILE, "prints_flood.py"), "flood.py"),
    "hostile: garbage in the channel": (os.path.join(HOSTILE, "garbage_in_the_channel.py"), "garbage.py"),
}


@pytest.mark.parametrize("kind", sorted(UPLOADS))
def test_the_entrypoint_scores_as_the_kit_does(tmp_path, course, kind):
    source, name = UPLOADS[kind]
    results, run = run_entrypoint(job(tmp_path, course, (source, name)))
    assert results["gradable"] is True, results
    fraction, kit = kit_fraction(source, results["kit"]["seed"], tmp_path)
    assert results["score"] == pytest.approx(fraction)
    assert sum(t["max_points"] for t in results["tests"]) == available("capstone")
    assert sum(t["points"] for t in results["tests"]) == pytest.approx(kit["score"])
    assert {t["name"]: t["points"] for t in results["tests"]} == {
        t["name"]: float(t["score"]) for t in kit["tests"]}
    if kind == "correct":
        assert results["score"] == 1.0
    elif kind == "stub":
        assert results["score"] == 0.0
    else:
        assert results["score"] < 1.0
    assert "Traceback" not in results["message"]


def test_hidden_cases_say_what_the_kits_reports_say_and_no_more(tmp_path, course):
    """Each case's text is the kit's own (its rule, what happened, what the code printed), whose hidden cases never
    show their input (tests/test_hidden_stays_hidden.py): PrairieLearn shows every test at once, so nothing else may
    be added."""
    results, _ = run_entrypoint(job(tmp_path, course, UPLOADS["faulty"]))
    _, kit = kit_fraction(UPLOADS["faulty"][0], results["kit"]["seed"], tmp_path)
    outputs = {t["name"]: t["output"] for t in kit["tests"]}
    failed = [t for t in results["tests"] if t["points"] < t["max_points"]]
    assert any("hidden" in t["tags"] for t in kit["tests"] if t["name"] in {f["name"] for f in failed})
    for test in failed:
        assert test["description"] in outputs[test["name"]] and test["description"].startswith("Rule")
        assert f"What happened: {test['message']}" in outputs[test["name"]]


def test_a_corrupt_notebook_is_not_gradable_and_uses_no_attempt(tmp_path, course):
    results, _ = run_entrypoint(job(tmp_path, course, (os.path.join(HOSTILE, "not_json.ipynb"), "05_capstone.ipynb")))
    assert results["gradable"] is False and len(results["format_errors"]) == 1
    assert results["format_errors"][0].startswith("05_capstone.ipynb is not a readable Jupyter notebook")
    assert "tests" not in results


def test_an_upload_without_the_exercises_function_is_not_gradable(tmp_path, course):
    """A notebook of another exercise uploaded for the capstone: nothing of it can be graded."""
    results, _ = run_entrypoint(job(tmp_path, course, (os.path.join(SOLVED, "01_parsing.ipynb"), "05_capstone.ipynb")))
    assert results["gradable"] is False
    assert results["format_errors"] == ["Nothing you handed in defines handle_tool_call (the exercise of "
                                        "05_capstone.ipynb); hand in the code that defines it."]


def notebook_with(tmp_path, old, new):
    """The solved capstone notebook with ``old`` replaced by ``new`` in the cell defining handle_tool_call."""
    import nbformat

    notebook = nbformat.read(os.path.join(SOLVED, "05_capstone.ipynb"), as_version=4)
    cell = next(c for c in notebook.cells if c.cell_type == "code" and "def handle_tool_call(" in c.source)
    cell.source = cell.source.replace(old, new, 1)
    path = tmp_path / "changed.ipynb"
    nbformat.write(notebook, str(path))
    return path


def test_code_that_cannot_load_its_function_is_not_gradable_and_says_why(tmp_path, course):
    """PrairieLearn's own example of "not gradable" is a syntax error: the student fixes it without losing an
    attempt, and is told where it is."""
    broken = notebook_with(tmp_path, "def handle_tool_call(", "def handle_tool_call((")
    results, _ = run_entrypoint(job(tmp_path / "a", course, (broken, "05_capstone.ipynb")))
    assert results["gradable"] is False and len(results["format_errors"]) == 1
    assert results["format_errors"][0].startswith("Nothing you handed in defines handle_tool_call (the exercise of "
                                                  "05_capstone.ipynb): cell ")
    assert "has a syntax error on line" in results["format_errors"][0]
    raising = tmp_path / "raises.py"
    raising.write_text("raise RuntimeError('not yet')\n\ndef handle_tool_call(raw, ask_model):\n    return None\n")
    results, _ = run_entrypoint(job(tmp_path / "b", course, (raising, "raises.py")))
    assert results["gradable"] is False and "RuntimeError" in results["format_errors"][0]


def write_solution(path, notebook):
    """The solution cells of a solved notebook as one .py file, as a student pastes them into an editor."""
    import nbformat

    cells = nbformat.read(os.path.join(SOLVED, notebook), as_version=4).cells
    path.write_text("\n\n".join(c.source for c in cells if c.cell_type == "code" and "BEGIN SOLUTION" in c.source))
    return path


@pytest.fixture(scope="module")
def problem_set(tmp_path_factory):
    """A course holding notebooks 1 and 2 as one question with an editor per exercise."""
    out = tmp_path_factory.mktemp("problem_set")
    build(out, "--notebooks", "01-02", "--input", "editor", "--qid", "ps1", "--assignment-seed", "ps1-seed")
    return out


def test_a_problem_set_gives_partial_credit_for_an_exercise_left_undone(tmp_path, problem_set):
    """The instructor's trial: one editor left as it came made the whole problem set not gradable, so it could
    never earn the points of the exercise that was done."""
    done = write_solution(tmp_path / "parse_call.py", "01_parsing.ipynb")
    undone = tmp_path / "validate_call.py"
    undone.write_text((problem_set / "questions" / "ps1" / "initial_code" / "validate-call.py").read_text())
    results, _ = run_entrypoint(job(tmp_path, problem_set, (done, "parse_call.py"), (undone, "validate_call.py"),
                                    qid="ps1"))
    assert results["gradable"] is True
    assert results["score"] == pytest.approx(available("parse-call") / (available("parse-call") + available("validate-call")))
    assert all("validate_call" in t["message"] for t in results["tests"] if t["name"].startswith("2 ·"))
    # Both editors as they came: nothing to grade, said to an editor's user without "upload".
    first = tmp_path / "first.py"
    first.write_text((problem_set / "questions" / "ps1" / "initial_code" / "parse-call.py").read_text())
    results, _ = run_entrypoint(job(tmp_path / "both", problem_set, (first, "parse_call.py"),
                                    (undone, "validate_call.py"), qid="ps1"))
    assert results["gradable"] is False and len(results["format_errors"]) == 2
    assert results["format_errors"][0] == ("Nothing you handed in defines parse_call (the exercise of 01_parsing.ipynb); "
                                           "hand in the code that defines it.")
    assert not any("upload" in error for error in results["format_errors"])


def test_an_unreadable_file_beside_a_whole_answer_is_a_note_not_a_reason(tmp_path, course):
    """The attacker's trial: a correct notebook and a broken one came back not gradable."""
    results, _ = run_entrypoint(job(tmp_path, course, UPLOADS["correct"],
                                    (os.path.join(HOSTILE, "not_json.ipynb"), "old_copy.ipynb")))
    assert results["gradable"] is True and results["score"] == 1.0
    assert "old_copy.ipynb" in results["message"]


FLAKY = """import hashlib as _hashlib

_solved = handle_tool_call


def handle_tool_call(raw, ask_model):
    # Wrong on about one input in thirteen, chosen by the input: which ones depends on the draw.
    if _hashlib.sha256(repr(raw).encode()).digest()[0] < 20:
        return {"status": "rejected", "observation": "no"}
    return _solved(raw, ask_model)
"""


def test_copies_of_one_file_are_drawn_together(tmp_path, course):
    """The attacker's trial: copies of a solution that fails some inputs, differing by a comment, each drew its own
    inputs and the best counted (ten copies: 125 of 133, one copy 28 to 122). One upload is one draw now, named in
    kit.seed, and the score is one copy's."""
    import nbformat

    uploads = []
    for number in range(4):
        notebook = nbformat.read(UPLOADS["correct"][0], as_version=4)
        notebook.cells.append(nbformat.v4.new_code_cell(FLAKY))
        notebook.cells.append(nbformat.v4.new_markdown_cell(f"Copy {number}."))
        path = tmp_path / f"copy{number}.ipynb"
        nbformat.write(notebook, str(path))
        uploads.append((path, path.name))
    results, _ = run_entrypoint(job(tmp_path / "job", course, *uploads))
    fraction, _ = kit_fraction(uploads[0][0], results["kit"]["seed"], tmp_path)
    assert results["score"] == pytest.approx(fraction) and fraction < 1.0


def test_a_whole_answer_past_the_files_graded_is_not_gradable_and_says_why(tmp_path, course):
    """The attacker's trial: with 20 files before it, a correct notebook was never graded, and 0 used an attempt."""
    from grader.classroom.batch import MAX_FILES_PER_STUDENT

    root = job(tmp_path, course)
    for number in range(MAX_FILES_PER_STUDENT):
        (root / "student" / f"a{number:02}.py").write_text(f"NOTE = {number}\n")
    shutil.copy(UPLOADS["correct"][0], root / "student" / "z_capstone.ipynb")
    results, _ = run_entrypoint(root)
    assert results["gradable"] is False
    assert results["format_errors"] == ["1 file of yours was not graded (z_capstone.ipynb) because only the first 20 "
                                        "files of a submission are graded; hand in fewer files."]


def test_thousands_of_files_give_a_few_sentences_under_a_megabyte(tmp_path, course):
    """The re-trial: 3,300 files with long names gave 3,281 format errors, one per file left out, and 1.02 MB."""
    root = job(tmp_path, course)
    for number in range(600):
        (root / "student" / f"{'a' * 200}{number:05}.py").write_text("NOTE = 1\n")
    results, _ = run_entrypoint(root)
    assert results["gradable"] is False and len(results["format_errors"]) == 1
    assert results["format_errors"][0].startswith("580 files of yours were not graded (")


def test_a_module_of_ones_own_beside_the_file_is_explained(tmp_path, course):
    """The re-trial: "No module named 'helpers'" beside the student's own helpers.py did not say why."""
    main = tmp_path / "capstone.py"
    main.write_text("from helpers import answer\n\n\ndef handle_tool_call(raw, ask_model):\n    return answer(raw)\n")
    helpers = tmp_path / "helpers.py"
    helpers.write_text("def answer(raw):\n    return None\n")
    results, _ = run_entrypoint(job(tmp_path / "job", course, (main, "capstone.py"), (helpers, "helpers.py")))
    assert results["gradable"] is False
    assert "each file you hand in is graded on its own, so put the code of helpers.py into the file that imports it" \
        in results["format_errors"][0]


def test_few_keeps_ten_sentences_and_counts_the_rest():
    from grader.classroom.prairielearn_question import MAX_FORMAT_ERRORS, _few

    assert _few(["a"] * 3) == ["a"] * 3
    cut = _few([f"e{n}" for n in range(25)])
    assert len(cut) == MAX_FORMAT_ERRORS and cut[-1] == "And 16 more problems like these."


def test_an_upload_of_links_only_says_they_were_refused(tmp_path, course):
    root = job(tmp_path, course)
    os.symlink(UPLOADS["correct"][0], root / "student" / "05_capstone.ipynb")
    results, _ = run_entrypoint(root)
    assert results["gradable"] is False
    assert "05_capstone.ipynb is a symbolic link, so it was not graded" in results["format_errors"][0]


def test_the_grader_s_budget_fits_within_the_questions_timeout():
    """The kit's budget stretches up to three times on a busy host; PrairieLearn kills a job at its timeout and
    shows the student a failure, so a short timeout cuts the budget."""
    from grader.classroom.prairielearn_question import START_SECONDS, grader_limits
    from grader.isolation.deadlines import BUDGET_BACKSTOP
    from grader.isolation.limits import Limits

    assert grader_limits(400).total_seconds == Limits().total_seconds == 120
    assert grader_limits(240).total_seconds == pytest.approx((240 - START_SECONDS) / BUDGET_BACKSTOP)
    assert grader_limits(30).total_seconds == 10
    assert grader_limits(240).case_seconds == Limits().case_seconds


def test_the_entrypoint_takes_the_python_that_has_the_packages(tmp_path, course):
    """The instructor's trial: the first Python 3.10 on the PATH lacked nbformat, another had it."""
    root = job(tmp_path, course, UPLOADS["correct"])
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    lacking = fake_python(bin_dir, 'case "$*" in\n  *"import nbformat"*) exit 1;;\n  *) exec ' + sys.executable
                          + ' "$@";;\nesac\n')
    results, _ = run_entrypoint(root, {"KIT_PYTHONS": f"{lacking} {sys.executable}"})
    assert results["gradable"] is True and results["score"] == 1.0


def test_a_broken_cell_beside_the_function_is_graded(tmp_path, course):
    """Only a missing function makes an upload not gradable: a notebook whose other cell fails still counts."""
    import nbformat

    notebook = nbformat.read(os.path.join(SOLVED, "05_capstone.ipynb"), as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell("undefined_name_here"))  # a cell of its own that raises NameError
    changed = tmp_path / "changed.ipynb"
    nbformat.write(notebook, str(changed))
    results, _ = run_entrypoint(job(tmp_path, course, (changed, "05_capstone.ipynb")))
    assert results["gradable"] is True and results["score"] > 0.5


def test_an_empty_upload_is_told_what_to_upload(tmp_path, course):
    root = job(tmp_path, course)
    (root / "student" / "notes.txt").write_text("not code")
    results, _ = run_entrypoint(root)
    assert results["gradable"] is False
    assert results["format_errors"][0].startswith("No .py or .ipynb file was found in your upload: upload your "
                                                  "notebook (05_capstone.ipynb)")


def test_each_variant_draws_its_own_hidden_inputs_from_the_questions_seed(tmp_path, course):
    """The seed of issue 24, per assignment; PrairieLearn's variant stands where Gradescope's student id does."""
    seeds = []
    for number, variant in enumerate((1, 2, 1)):
        results, _ = run_entrypoint(job(tmp_path / str(number), course, UPLOADS["faulty"], variant=variant))
        seeds.append(results["kit"]["seed"])
    assert seeds[0] == seeds[2] != seeds[1]


def fake_python(folder, script):
    path = folder / "python3"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)
    return str(path)


def test_an_image_without_python_3_10_says_so_and_is_not_gradable(tmp_path, course):
    root = job(tmp_path, course, UPLOADS["correct"])
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    old = fake_python(bin_dir, 'case "$*" in\n  --version) echo "Python 3.8.10";;\n  *) exit 1;;\nesac\n')
    results, _ = run_entrypoint(root, {"KIT_PYTHONS": old, "PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin"})
    assert results["gradable"] is False
    assert "needs Python 3.10 or newer, and this grading image has Python 3.8.10" in results["format_errors"][0]


def test_an_image_missing_a_package_says_which(tmp_path, course):
    root = job(tmp_path, course, UPLOADS["correct"])
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    lacking = fake_python(bin_dir, 'case "$*" in\n  *"import nbformat"*) echo "ModuleNotFoundError: No module named '
                                   "'nbformat'\" >&2; exit 1;;\n  *) exec " + sys.executable + ' "$@";;\nesac\n')
    results, _ = run_entrypoint(root, {"KIT_PYTHONS": lacking})
    assert results["gradable"] is False
    assert "No module named 'nbformat'" in results["format_errors"][0] and "grader-python" in results["format_errors"][0]


def test_the_job_imports_the_pytest_the_question_brings(tmp_path, course):
    """PrairieLearn's Python image has no pytest: the copy in serverFilesCourse is found first."""
    root = job(tmp_path, course)
    env = {**os.environ, "PYTHONPATH": f"{root / 'tests'}:{root / 'serverFilesCourse' / 'toolcall_kit' / 'python'}"}
    found = subprocess.run([sys.executable, "-c", "import pytest; print(pytest.__file__)"], env=env,
                           capture_output=True, text=True, timeout=60).stdout.strip()
    assert found.startswith(str(root / "serverFilesCourse" / "toolcall_kit" / "python")), found
    assert "$GRADE/serverFilesCourse/toolcall_kit/python" in (root / "tests" / "run.sh").read_text()


@pytest.mark.parametrize("cases, printed, feedback", [(130, 200_000, 300), (3000, 2_000, 2_000), (8, 10, 400_000), (40, 10, 30_000)])
def test_results_stay_under_a_megabyte_whatever_a_submission_prints(tmp_path, cases, printed, feedback):
    """However much a submission prints or returns (and a result's text repeats it), results.json stays below
    PrairieLearn's 1 MB, and every cut says so; the score is never touched."""
    from grader.results.atomic_write import write_json_atomically
    from grader.results.formats import prairielearn_results
    from grader.results.grade_result import CaseResult, GradeResult

    result = GradeResult("flood.py", cases=[
        CaseResult(f"capstone::c{n}", "5 · Capstone", "Parsing", 1, f"case {n}", float(n % 2), 1.0, bool(n % 2),
                   rule="A rule.", feedback="é" * feedback, output="ж\n" * (printed // 2), exercise_id="capstone")
        for n in range(cases)], notes=["x" * 300_000])
    results = prairielearn_results(result)
    write_json_atomically(tmp_path / "results.json", results)
    assert (tmp_path / "results.json").stat().st_size < LIMIT
    assert_prairielearn_fields(json.loads((tmp_path / "results.json").read_text(encoding="utf-8")))
    assert results["score"] == pytest.approx((cases // 2) / cases)
    uncut = len(json.dumps(prairielearn_results(result, limit=10**12), indent=2, ensure_ascii=False).encode())
    assert ("1 MB" in json.dumps(results, ensure_ascii=False)) is (uncut > 900_000), uncut


def test_a_small_result_is_not_cut():
    from grader.results.formats import prairielearn_results
    from grader.results.grade_result import CaseResult, GradeResult

    result = GradeResult("a.py", cases=[CaseResult("c::1", "E", "G", 1, "one", 0.5, 2.0, False, rule="R.",
                                                   feedback="Returned None.", output="hello\n", exercise_id="capstone")])
    results = prairielearn_results(result)
    assert results["score"] == 0.25 and results["tests"][0]["message"] == "Returned None."
    assert results["tests"][0]["output"] == "hello" and "1 MB" not in json.dumps(results)

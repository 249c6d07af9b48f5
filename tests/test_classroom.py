"""Classroom tools: student release, batch grading and gradebook, Gradescope bundle, Exercism and JUnit output."""

import csv
import json
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
import zipfile

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import ROOT, run_grader
from grader.intake.exercises import EXERCISES
from grader.judging.visible_cases import VISIBLE_CASES
from points import available, case_count, golden, shown

SOLVED = os.path.join(ROOT, "solutions", "notebooks")
SEED_SAMPLE = os.path.join(ROOT, "tests", "golden", "seed_sample", "submission.py")
GRADESCOPE_STATUSES = {"passed", "failed"}


# -- student release --------------------------------------------------------------------------------

@pytest.fixture
def release(student_release):
    """The session's student release (tests/conftest.py), built once for this file, the browser's and no-answers'."""
    return student_release


ENGLISH_NOTEBOOKS = sorted(name for name in os.listdir(os.path.join(ROOT, "notebooks")) if name.endswith(".ipynb"))


def test_release_holds_nothing_hidden(release):
    files = [os.path.relpath(os.path.join(b, n), release) for b, _, names in os.walk(release) for n in names]
    assert not any(f.startswith(("solutions", "tests", "course")) for f in files)
    assert sorted(os.listdir(release / "grader" / "judging" / "cases")) == ["pytest.ini", "visible"]
    # Only the grader needs these: the tools that grade a class, their commands, the class report and the canary
    # value pools. A student keeps python -m grader (classroom/cli.py).
    for name in ("batch.py", "gradescope.py", "prairielearn.py", "autograde.py", "classroom/batch.py", "classroom/gradebook.py",
                 "classroom/gradescope_bundle.py", "classroom/assignment.py", "classroom/nbgrader_entry.py", "insight",
                 "judging/canary_pools.json"):
        assert not (release / "grader" / name).exists(), name
    assert sorted(os.listdir(release / "grader" / "classroom")) == ["__init__.py", "cli.py"]
    for name in files:
        text = (release / name).read_text(encoding="utf-8", errors="replace")
        assert "### BEGIN SOLUTION" not in text and "### BEGIN HIDDEN TESTS" not in text, name
        assert "Model answers" not in text or name.endswith(".ipynb"), name
    assert sorted(os.listdir(release / "notebooks")) == ENGLISH_NOTEBOOKS  # English unless --lang says otherwise
    packages = [line.split(">")[0] for line in (release / "requirements.txt").read_text().splitlines()
                if line and not line.startswith("#")]
    assert packages == ["jupyter", "jupyterlab", "ipywidgets", "nbformat", "ipython", "pytest", "psutil"]
    with zipfile.ZipFile(f"{release}.zip") as archive:
        assert sorted(n for n in archive.namelist() if not n.endswith("/")) == sorted(files)


def test_every_module_the_release_imports_is_in_its_requirements(release):
    """Found in issue 22's review: the release's requirements.txt named jupyter, jupyterlab, ipywidgets, nbformat and
    pytest, but the grader it ships imports IPython (a notebook with a %%time cell) and psutil (Windows' transport),
    which arrived only as dependencies of Jupyter's. A module the grader imports is declared, as the kit's own
    requirements.txt declares it, so that a change in another package's dependencies cannot take it away. The
    scan and the rule are the installed kit's (tests/test_packaging.py)."""
    import importlib.metadata

    from test_packaging import BROUGHT_BY, _requirement_ranges, third_party_imports

    declared = set(_requirement_ranges((release / "requirements.txt").read_text().splitlines()))
    distributions = importlib.metadata.packages_distributions()
    found = {}
    for base, _, names in os.walk(release):
        for name in sorted(n for n in names if n.endswith(".py")):
            path = os.path.join(base, name)
            for module in third_party_imports(path):
                found.setdefault(module, []).append(os.path.relpath(path, release))
    assert {"IPython", "psutil", "nbformat", "pytest"} <= set(found)  # the scan sees the grader's imports
    undeclared = {module: files for module, files in found.items()
                  if not ({d.lower() for d in distributions.get(module, [])} | {BROUGHT_BY.get(module)}) & declared}
    assert undeclared == {}


def test_release_canaries_draw_from_the_public_pool_only(release):
    """The grader's canary values stay with the grader: the release's self-checks use a pool of their own."""
    from grader.judging.canaries import CITIES, NOUNS, PUBLIC_POOLS, VERBS

    process = subprocess.run([sys.executable, "-c", "from grader.judging import canaries as c; print(c.CITIES, c.VERBS, c.NOUNS)"],
                             cwd=release, capture_output=True, text=True, check=True)
    assert process.stdout.strip() == f"{PUBLIC_POOLS['cities']} {PUBLIC_POOLS['verbs']} {PUBLIC_POOLS['nouns']}"
    assert not set(PUBLIC_POOLS["cities"]) & set(CITIES) and len(CITIES) > 20
    assert not set(PUBLIC_POOLS["verbs"]) & set(VERBS) and not set(PUBLIC_POOLS["nouns"]) & set(NOUNS)


def test_release_carries_the_licenses_and_says_so(release):
    assert (release / "LICENSE").read_text(encoding="utf-8") == open(os.path.join(ROOT, "LICENSE"), encoding="utf-8").read()
    assert (release / "LICENSE-COURSE.txt").read_text(encoding="utf-8") == open(
        os.path.join(ROOT, "LICENSE-COURSE.txt"), encoding="utf-8").read()
    readme = (release / "README.md").read_text(encoding="utf-8")
    from grader import __version__

    assert "MIT License" in readme and "Creative Commons Attribution 4.0" in readme and __version__ in readme


def test_a_release_of_some_notebooks_ships_only_their_exercises(tmp_path):
    """Release what you assign: `--notebooks 00-02` hands out three notebooks, and the released grader and
    progress view know only their exercises."""
    destination = tmp_path / "ps1"
    process = subprocess.run([sys.executable, "-m", "course.release", str(destination), "--notebooks", "00-02"],
                             cwd=ROOT, capture_output=True, text=True)
    assert process.returncode == 0, process.stderr
    assert sorted(os.listdir(destination / "notebooks")) == ["00_start_here.ipynb", "01_parsing.ipynb", "02_schema.ipynb"]
    course = json.loads((destination / "grader" / "intake" / "exercises.json").read_text(encoding="utf-8"))
    assert [e["id"] for e in course["exercises"]] == ["tool-result", "parse-call", "validate-call"]
    progress = subprocess.run([sys.executable, "-m", "grader.learner", "progress"], cwd=destination,
                              capture_output=True, text=True)
    assert "0 of 3 exercises done." in progress.stdout, progress.stdout + progress.stderr
    grade = subprocess.run([sys.executable, "-m", "grader", "notebooks/02_schema.ipynb"], cwd=destination,
                           capture_output=True, text=True)
    assert grade.returncode == 0 and "Score: 0 / " in grade.stdout, grade.stderr
    assert "05_capstone" not in (destination / "README.md").read_text(encoding="utf-8")
    # What the reference says for notebook 3's visible calls is not in a release of notebooks 0-2.
    assert json.loads((destination / "grader" / "judging" / "visible_checks.json").read_text(encoding="utf-8")) == {}
    bad = subprocess.run([sys.executable, "-m", "course.release", str(tmp_path / "nope"), "--notebooks", "90-99"],
                         cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and "90-99 names no notebook" in bad.stderr and not (tmp_path / "nope").exists()


def test_a_self_study_release_adds_the_model_answers_and_the_cheat_sheet_only(tmp_path):
    """Issue 27: a self-learner with a release had no model answers; --self-study adds them (and the cheat sheet) for
    the notebooks handed out, and still no reference, no hidden case, no canary pool."""
    destination = tmp_path / "alone"
    process = subprocess.run([sys.executable, "-m", "course.release", str(destination), "--notebooks", "06-07",
                              "--self-study"], cwd=ROOT, capture_output=True, text=True)
    assert process.returncode == 0, process.stderr
    assert sorted(os.listdir(destination / "answers")) == ["06_beyond.md", "07_turn.md"]
    with open(os.path.join(ROOT, "solutions", "answers", "07_turn.md"), encoding="utf-8") as handle:
        assert (destination / "answers" / "07_turn.md").read_text(encoding="utf-8") == handle.read()
    assert "`turn.idempotent`" in (destination / "cheatsheet.md").read_text(encoding="utf-8")
    assert "## Model answers (self-study)" in (destination / "README.md").read_text(encoding="utf-8")
    shipped = {os.path.relpath(os.path.join(base, name), destination) for base, _, names in os.walk(destination)
               for name in names}
    assert not any(path.startswith(("solutions", os.path.join("grader", "judging", "cases", "turn"))) or
                   path.endswith("canary_pools.json") for path in shipped)
    plain = tmp_path / "plain"
    subprocess.run([sys.executable, "-m", "course.release", str(plain), "--notebooks", "07"], cwd=ROOT, check=True,
                   capture_output=True)
    assert not (plain / "answers").exists() and not (plain / "cheatsheet.md").exists()


@pytest.mark.parametrize("path, only", [
    ("batch.py", True), ("gradescope.py", True), ("prairielearn.py", True), ("autograde.py", True), ("insight/", True),
    ("insight/class_report.py", True), ("insight/charts.py", True), ("classroom/batch.py", True),
    ("classroom/gradebook.py", True), ("classroom/assignment.py", True), ("classroom/nbgrader_entry.py", True),
    ("classroom/", False), ("classroom/__init__.py", False), ("classroom/cli.py", False),
    ("judging/cases/tool_call/", True), ("judging/cases/tool_call/test_01_parsing.py", True),
    ("judging/cases/visible/", False), ("judging/cases/visible/test_visible.py", False), ("judging/cases/pytest.ini", False),
    ("results/text_report.py", False), ("judging/canaries.py", False), ("judging/canary_pools.json", True),
    ("learner/selfcheck.py", False), ("__main__.py", False), ("paths.py", False)])
def test_instructor_only_parts_of_the_grader(path, only):
    """The classroom tools (but ``python -m grader``), the class report (issue 17) and the hidden cases stay out of a
    student release; a new module in an instructor-only package is left out by its folder."""
    from course.release import instructor_only

    assert instructor_only(path) is only


@pytest.mark.slow  # copies the whole kit and builds from it four times (about 15 s)
def test_a_folder_an_update_left_behind_stops_every_build_for_students(tmp_path):
    """An attacker's trial of issue 21: hidden cases an instructor had added in ``grader/cases/`` (the flat layout's
    place; ``git pull`` leaves untracked files where they are) went into the student release and nbgrader's
    source, and no longer ran. Every build that copies the grader now refuses, naming the folder, and grading says
    it is not run."""
    kit = tmp_path / "kit"
    shutil.copytree(ROOT, kit, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.pyc", "artifacts"))
    stale = kit / "grader" / "cases" / "tool_call"
    stale.mkdir(parents=True)
    (stale / "test_local_extra.py").write_text('"""SECRET Zanzibar-42"""\n', encoding="utf-8")
    refused = "grader/cases/ is not part of the grader's layout, so nothing in it is run"

    def run(*command):
        return subprocess.run([sys.executable, "-m", *map(str, command)], cwd=kit, capture_output=True, text=True,
                              timeout=300)

    release = run("course.release", tmp_path / "release", "--notebooks", "01")
    assert release.returncode == 2 and refused in release.stderr and not (tmp_path / "release").exists()
    nbgrader = run("course.nbgrader", tmp_path / "course", "--notebooks", "01")
    assert nbgrader.returncode == 2 and refused in nbgrader.stderr
    assert not (tmp_path / "course" / "source").exists()
    bundle = run("grader.gradescope", tmp_path / "autograder.zip", "--notebooks", "01")
    assert bundle.returncode == 2 and refused in bundle.stderr and not (tmp_path / "autograder.zip").exists()
    graded = run("grader", os.path.join("tests", "faulty", "base.py"))
    assert graded.returncode == 0 and f"warning: {refused}" in graded.stderr
    assert f"Score: {shown(available('capstone'))} / {shown(available('capstone'))}" in graded.stdout
    shutil.rmtree(kit / "grader" / "cases")
    assert run("course.release", tmp_path / "release", "--notebooks", "01").returncode == 0
    assert "Zanzibar" not in "".join(p.read_text(encoding="utf-8", errors="replace")
                                     for p in (tmp_path / "release").rglob("*") if p.is_file())


def test_release_notebooks_are_generated_not_copied_from_the_working_copy(release):
    """An instructor who worked through notebooks/ in this clone must not hand out those answers."""
    from course.notebooks import exercise_sources, generated_notebooks

    for filename, _, learner in generated_notebooks():
        assert (release / "notebooks" / filename).read_text(encoding="utf-8") == nbformat.writes(learner) + "\n"
        shipped = nbformat.read(release / "notebooks" / filename, as_version=4)
        assert exercise_sources(shipped) == exercise_sources(learner)


def test_released_grader_runs_visible_cases_only(release):
    process = subprocess.run([sys.executable, "-m", "grader", "notebooks/01_parsing.ipynb"], cwd=release,
                             capture_output=True, text=True)
    assert process.returncode == 0, process.stderr
    assert "only its visible cases were run" in process.stdout
    assert f"Score: 0 / {len(VISIBLE_CASES['parse-call'])} points" in process.stdout


def test_a_release_never_claims_the_hidden_cases_passed(release, tmp_path):
    """With only visible cases, "all graded cases passed" and "done" would be claims nobody checked."""
    copy = tmp_path / "course"
    shutil.copytree(release, copy)
    shutil.copy(os.path.join(SOLVED, "01_parsing.ipynb"), copy / "notebooks" / "01_parsing.ipynb")
    process = subprocess.run([sys.executable, "-m", "grader", "notebooks/01_parsing.ipynb"], cwd=copy,
                             capture_output=True, text=True)
    assert "Score: {0} / {0} points".format(len(VISIBLE_CASES["parse-call"])) in process.stdout
    assert process.stdout.rstrip().endswith("Hidden cases: none in this copy of the kit; your instructor's grader runs them too.")
    assert "all graded cases passed" not in process.stdout
    progress = subprocess.run([sys.executable, "-m", "grader.learner", "progress"], cwd=copy, capture_output=True,
                              text=True)
    row = next(line for line in progress.stdout.splitlines() if line.startswith("1 · parse_call"))
    assert "visible ok" in row and "{0}/{0}".format(len(VISIBLE_CASES["parse-call"])) in row
    assert "0 of 12 exercises done; 1 pass their visible cases" in progress.stdout


@pytest.mark.parametrize("name", ENGLISH_NOTEBOOKS)
def test_released_notebooks_run(release, name):
    path = release / "notebooks" / name
    notebook = nbformat.read(path, as_version=4)
    # execute() raises CellExecutionError on the first error: reaching the line after it is the pass.
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    ran = [c for c in notebook.cells if c.cell_type == "code" and c.source.strip()]
    assert ran and [c.execution_count is not None for c in ran] == [True] * len(ran)


# -- batch grading ---------------------------------------------------------------------------------

@pytest.fixture
def class_folder(tmp_path):
    folder = tmp_path / "submitted"
    (folder / "alice" / "ps1").mkdir(parents=True)
    shutil.copy(os.path.join(SOLVED, "05_capstone.ipynb"), folder / "alice" / "ps1")
    shutil.copy(os.path.join(SOLVED, "01_parsing.ipynb"), folder / "alice" / "ps1")
    (folder / "bob").mkdir()
    shutil.copy(SEED_SAMPLE, folder / "bob" / "answer.py")
    shutil.copy(os.path.join(ROOT, "tests", "hostile", "kills_the_grader.py"), folder / "mallory.py")
    shutil.copy(os.path.join(ROOT, "tests", "hostile", "not_json.ipynb"), folder / "carol.ipynb")
    (folder / "dave").mkdir()
    (folder / "dave" / "notes.txt").write_text("I ran out of time")  # a folder with no gradable file still gets a row
    return folder


def batch(folder, out, *options):
    return subprocess.run([sys.executable, "-m", "grader.batch", str(folder), "--out", str(out), "--workers", "2",
                           "--no-progress", *options], cwd=ROOT, capture_output=True, text=True, timeout=600)


def read_gradebook(out):
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def test_batch_grades_everyone_and_writes_a_gradebook(class_folder, tmp_path):
    out = tmp_path / "out"
    process = batch(class_folder, out, "--notebooks", "01,05")
    assert process.returncode == 0, process.stderr
    assert "Graded 5 students" in process.stdout and "Traceback" not in process.stderr
    # The walls the class was graded behind, once on the console, as each student's results say (issue 42).
    walls = [line for line in process.stdout.splitlines() if line.startswith("Isolation: ")]
    assert len(walls) == 1 and "audit-hook guard" in walls[0], process.stdout
    results = json.loads((out / "feedback" / "alice" / "05_capstone.ipynb.results.json").read_text(encoding="utf-8"))
    assert results["extra_data"]["isolation"].startswith("Isolation: ")
    book = read_gradebook(out)
    assert list(book) == ["alice", "bob", "carol", "dave", "mallory"]
    assert book["alice"]["capstone"] == shown(available("capstone")) and book["alice"]["parse-call"] == shown(available("parse-call"))
    assert book["alice"]["total"] == book["alice"]["max_total"] == shown(available("capstone") + available("parse-call"))
    assert 0 < float(book["bob"]["capstone"]) < available("capstone")
    assert book["mallory"]["total"] == "0" and book["carol"]["total"] == "0"
    assert "not a readable Jupyter notebook" in book["carol"]["notes"]
    assert book["dave"]["notes"] == "no .py or .ipynb file was submitted" and book["dave"]["total"] == "0"
    # One maximum for everyone: bob handed in the capstone only, and gets 0 (not a blank) for parsing.
    assert {row["max_total"] for row in book.values()} == {shown(available("capstone") + available("parse-call"))}
    assert book["bob"]["parse-call"] == "0"
    assert "parse-call: 0 points; none of the files handed in defines parse_call" in book["bob"]["notes"]
    # A zero says why: mallory's first failed case.
    assert "capstone: 0 points; " in book["mallory"]["notes"] and len(book["mallory"]["notes"]) < 260
    assert {row["grader"] for row in book.values()} == {grader_version()}
    report = (out / "feedback" / "bob" / "answer.py.txt").read_text(encoding="utf-8")
    assert report.startswith("Grading answer.py\nScore: ")
    assert json.loads((out / "feedback" / "alice" / "05_capstone.ipynb.results.json").read_text())["score"] > 100
    summary = json.loads((out / "results" / "alice.json").read_text())
    assert summary["complete"] is True and summary["grader"]["grader_version"] == grader_version()
    with open(out / "maxima.csv", newline="", encoding="utf-8") as handle:
        maxima = list(csv.DictReader(handle))
    assert [(row["exercise"], row["max_points"]) for row in maxima] == [("parse-call", shown(available("parse-call"))), ("capstone", shown(available("capstone"))),
                                                                      ("total", shown(available("capstone") + available("parse-call")))]


def grader_version():
    from grader import __version__

    return __version__


@pytest.mark.slow  # eight batch runs of the class (about 25 s)
def test_batch_rerun_reuses_only_what_the_same_content_grader_and_options_produced(class_folder, tmp_path):
    out = tmp_path / "out"
    batch(class_folder, out)
    stamp = os.path.getmtime(out / "results" / "alice.json")
    time.sleep(0.05)
    rerun = batch(class_folder, out)
    assert os.path.getmtime(out / "results" / "alice.json") == stamp
    assert rerun.stdout.startswith("Graded 0 students (5 up to date, not graded again; --regrade grades them)")
    os.utime(class_folder / "bob" / "answer.py")  # touched, not changed: the result still holds
    shutil.copy(SEED_SAMPLE, class_folder / "dave" / "late.py")  # dave hands in late, with an old timestamp
    os.utime(class_folder / "dave" / "late.py", (1, 1))
    assert batch(class_folder, out).stdout.startswith("Graded 1 student (4 up to date")
    assert read_gradebook(out)["dave"]["capstone"] != "0"
    # A file replaced by another with an older time (cp -p, unzip, rsync -a keep times) is graded again.
    os.utime(class_folder / "bob" / "answer.py", (1, 1))
    base = os.path.join(ROOT, "tests", "faulty", "base.py")
    shutil.copy(base, class_folder / "bob" / "answer.py")
    os.utime(class_folder / "bob" / "answer.py", (1, 1))
    assert batch(class_folder, out).stdout.startswith("Graded 1 student (4 up to date")
    assert read_gradebook(out)["bob"]["capstone"] == shown(available("capstone"))
    assert os.path.getmtime(out / "results" / "alice.json") == stamp
    # Other options: every student again, once.
    assert batch(class_folder, out, "--case-timeout", "2").stdout.startswith("Graded 5 students")
    assert batch(class_folder, out, "--case-timeout", "2").stdout.startswith("Graded 0 students")
    assert batch(class_folder, out, "--case-timeout", "2", "--exercise", "capstone", "--exercise",
                 "tool-result").stdout.startswith("Graded 5 students")
    with open(out / "maxima.csv", newline="", encoding="utf-8") as handle:
        maxima = {row["exercise"]: row["max_points"] for row in csv.DictReader(handle)}
    assert list(maxima) == ["tool-result", "capstone", "total"] and maxima["capstone"] == shown(available("capstone"))
    assert read_gradebook(out)["alice"]["max_total"] == maxima["total"] == shown(available("capstone") + float(maxima["tool-result"]))
    batch(class_folder, out, "--regrade")
    assert os.path.getmtime(out / "results" / "alice.json") > stamp


ADDED_CASE = '''"""A case an instructor added."""

import pytest

from grader.judging.expectations import expect_dispatched
from grader.judging.scripted_models import make_call

GROUP = "Added"
ORDER = 99


@pytest.mark.points(10)
@pytest.mark.rule("A valid call is dispatched.")
def test_added(harness):
    """A valid call is dispatched.

    Why: the instructor wants it.
    """
    expect_dispatched(harness.run(make_call("get_weather", {"city": "Lima"})), "get_weather", {"city": "Lima"})
'''


def test_batch_rerun_regrades_everyone_when_a_hidden_case_is_added(tmp_path):
    """Found in a trial: after a case was added, the re-run said "29 up to date", and touching one file then gave
    two students with identical code different maxima (364 vs 374)."""
    kit = tmp_path / "kit"
    shutil.copytree(os.path.join(ROOT, "grader"), kit / "grader", ignore=shutil.ignore_patterns("__pycache__"))
    folder = tmp_path / "submitted"
    folder.mkdir()
    base = os.path.join(ROOT, "tests", "faulty", "base.py")
    for name in ("ann.py", "ben.py"):
        shutil.copy(base, folder / name)
    command = [sys.executable, "-m", "grader.batch", str(folder), "--out", str(tmp_path / "out"), "--workers", "2",
               "--no-progress"]
    assert subprocess.run(command, cwd=kit, capture_output=True, text=True).returncode == 0
    (kit / "grader" / "judging" / "cases" / "tool_call" / "test_99_added.py").write_text(ADDED_CASE, encoding="utf-8")
    rerun = subprocess.run(command, cwd=kit, capture_output=True, text=True)
    assert rerun.stdout.startswith("Graded 2 students;"), rerun.stdout + rerun.stderr
    book = read_gradebook(tmp_path / "out")
    assert book["ann"]["capstone"] == book["ben"]["capstone"] == book["ann"]["max_total"] == shown(available("capstone") + 10)


def test_one_students_extra_file_changes_nobody_elses_maximum(tmp_path):
    """../shared/cases/grader_attacks/gradebook_adds_exercises.sh: a file defining every exercise's function
    raised every classmate's max_total from 116 to 364. The assignment comes from the instructor."""
    folder = tmp_path / "submitted"
    (folder / "mallory").mkdir(parents=True)
    base = os.path.join(ROOT, "tests", "faulty", "base.py")
    for target in ("alice.py", "bob.py", "mallory/capstone.py"):
        shutil.copy(base, folder / target)
    extra = ("def tool_error_result(tool_use_id, message): pass\ndef parse_call(raw): pass\n"
             "def validate_call(call, tools): pass\ndef observe(call, problems, tools): pass\n"
             "def run_tool_call(raw, ask_model, tools, dispatch, check): pass\ndef validate_arguments(arguments, schema): pass\n"
             "def raw_call_from_openai(tool_call): pass\ndef raw_call_from_anthropic(block): pass\n")
    (folder / "mallory" / "extra.py").write_text(extra)
    (folder / "eve").mkdir()
    (folder / "eve" / "everything.py").write_text(extra + "def handle_tool_call(raw, ask_model): pass\n")
    out = tmp_path / "out"
    assert batch(folder, out).returncode == 0
    book = read_gradebook(out)
    assert list(book["alice"]) == ["student", "capstone", "total", "max_total", "notes", "grader"]
    assert {row["max_total"] for row in book.values()} == {shown(available("capstone"))}
    assert book["alice"]["capstone"] == book["mallory"]["capstone"] == shown(available("capstone")) and book["eve"]["capstone"] == "0"
    # With the assignment named, still only its exercises count, whoever hands in what.
    assert batch(folder, out, "--exercise", "parse-call", "--exercise", "capstone").returncode == 0
    book = read_gradebook(out)
    assert list(book["alice"])[1:3] == ["parse-call", "capstone"] and {r["max_total"] for r in book.values()} == {shown(available("capstone") + available("parse-call"))}


def test_symbolic_links_are_refused_with_a_note(tmp_path):
    """../shared/cases/grader_attacks/symlink_submissions.sh: links to the solved notebook and to a classmate's
    file both scored 116."""
    folder = tmp_path / "submitted"
    for student in ("alice", "mallory", "trudy"):
        (folder / student / "ps1").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "tests", "faulty", "base.py"), folder / "alice" / "ps1" / "05_capstone.py")
    os.symlink(os.path.join(SOLVED, "05_capstone.ipynb"), folder / "mallory" / "ps1" / "05_capstone.ipynb")
    os.symlink("../../alice/ps1/05_capstone.py", folder / "trudy" / "ps1" / "mine.py")
    os.symlink(folder / "alice", folder / "oscar")  # a whole folder that is a link
    os.symlink(os.path.join(SOLVED, "05_capstone.ipynb"), folder / "pat.ipynb")  # a top-level file that is one
    (folder / "quinn").mkdir()
    os.symlink(SOLVED, folder / "quinn" / "notebooks")  # a link to a folder inside a student's folder
    shutil.copy(SEED_SAMPLE, folder / "quinn" / "mine.py")
    out = tmp_path / "out"
    assert batch(folder, out).returncode == 0
    book = read_gradebook(out)
    assert book["alice"]["capstone"] == shown(available("capstone"))
    for student in ("mallory", "trudy", "oscar", "pat"):
        assert book[student]["capstone"] == "0", student
        assert "is a symbolic link, so it was not graded" in book[student]["notes"], student
    assert float(book["quinn"]["capstone"]) < available("capstone") and "notebooks is a symbolic link" in book["quinn"]["notes"]


FORMULA_NAMES = ['=HYPERLINK("http:⁄⁄evil.example","Grade 100%; click to verify")', "+cmd", "-2+3", "@SUM(A1)",
                 "\tTAB", " =1+1", "\uff1dWEBSERVICE()"]


def test_no_gradebook_cell_starts_a_formula(tmp_path):
    """../shared/cases/grader_attacks/csv_formula_in_file_name.sh, and the rest of OWASP's list: = + - @ tab CR,
    as a student's name or as a file name inside their folder."""
    folder = tmp_path / "submitted"
    (folder / "mallory").mkdir(parents=True)
    stub = "def handle_tool_call(raw, ask_model):\n    return None\n"
    for number, name in enumerate(FORMULA_NAMES):
        (folder / "mallory" / f"{name}.py").write_text(stub)
        (folder / f"{name}{number}").mkdir()
        (folder / f"{name}{number}" / "a.py").write_text(stub)
    (folder / "carriage\rreturn").mkdir()
    (folder / "carriage\rreturn" / "a.py").write_text(stub)
    out = tmp_path / "out"
    process = batch(folder, out)
    assert process.returncode == 0, process.stderr
    for table in ("gradebook.csv", "canvas.csv", "maxima.csv"):
        with open(out / table, newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
        assert len(rows) > 2, table
        for row in rows:
            for cell in row:
                assert not cell.lstrip(" ").startswith(("=", "+", "-", "@", "\t", "\r", "\uff1d")), (table, cell)
                assert "\n" not in cell and "\r" not in cell, (table, cell)
    book = read_gradebook(out)
    assert len(book) == len(FORMULA_NAMES) + 2
    assert book["mallory"]["notes"].startswith("capstone: 0 points; ") and len(book["mallory"]["notes"]) <= 260


def test_a_name_that_is_not_utf8_is_shown_escaped_and_can_be_mapped_back(tmp_path):
    from grader.classroom.batch import original_name, shown

    for raw in (b"Jos\xe9", b"back\\slash\xff", b"tab\there", "Zoë".encode(), b"\\x41 not an escape"):
        assert original_name(shown(os.fsdecode(raw))) == raw
    folder = tmp_path / "submitted"
    folder.mkdir()
    shutil.copy(SEED_SAMPLE, os.fsencode(folder) + b"/Jos\xe9.py")
    out = tmp_path / "out"
    assert batch(folder, out).returncode == 0
    book = read_gradebook(out)
    assert list(book) == ["Jos\\xe9"] and original_name("Jos\\xe9") == b"Jos\xe9"


def read_like_canvas(path):
    """Read a gradebook CSV the way Canvas's importer does (GradebookImporter in instructure/canvas-lms, and
    its instructor guide "How do I import grades in the Gradebook?").

    Returns ``{"assignments": {title: points possible}, "students": {identifier: {title: grade}}}`` where the
    identifier is the first of ID, SIS User ID, SIS Login ID, name that the row fills. Raises AssertionError
    where Canvas reports an invalid header.
    """
    import re

    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header = rows[0]
    # Canvas: row[0] includes "Student", row[1] includes "ID", and the last student column includes "Section";
    # with "SIS User ID" and "SIS Login ID" as columns 3 and 4 there are five student columns.
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1], header
    assert re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3]), header
    assert "Section" in header[4], header
    # Canvas drops its own read-only columns (Current/Final Score...) and creates an assignment from any other.
    read_only = re.compile("Current Score|Current Points|Current Grade|Final Score|Final Points|Final Grade|"
                           "Override Score|Override Grade|Override Status")
    assignments = {index: title for index, title in enumerate(header) if index >= 5 and not read_only.search(title)}
    points, students = {}, {}
    for row in rows[1:]:
        if row and "Points Possible" in row[0]:
            points = {assignments[i]: float(row[i]) for i in assignments if row[i]}
            continue
        identifier = next(value for value in (row[1], row[2], row[3], row[0]) if value)
        students[identifier] = {title: row[i].strip() for i, title in assignments.items()}
    return {"assignments": points, "students": students}


def test_the_canvas_file_imports_as_canvas_documents_it(class_folder, tmp_path):
    (class_folder / "=evil").mkdir()
    shutil.copy(SEED_SAMPLE, class_folder / "=evil" / "x.py")
    out = tmp_path / "out"
    assert batch(class_folder, out, "--notebooks", "01,05", "--canvas-assignment", "Problem set 1 (4711)").returncode == 0
    canvas = read_like_canvas(out / "canvas.csv")
    book = read_gradebook(out)
    assert canvas["assignments"] == {"Problem set 1 (4711)": available("capstone") + available("parse-call")}  # one assignment: no notes or total column
    assert canvas["students"] == {s: {"Problem set 1 (4711)": row["total"]} for s, row in book.items()}
    assert "'=evil" in canvas["students"]  # the name that would be a formula, made safe


def test_a_stopped_run_writes_blank_rows_for_students_left(class_folder, tmp_path):
    """A run stopped before a student has graded them leaves a blank row with a note, never a zero (the tables
    are written from complete results only; tests/test_interrupt.py sends real signals)."""
    import threading

    from grader.classroom.batch import PENDING, run_batch

    stop = threading.Event()
    stop.set()  # stopped before anyone was graded
    summaries, graded, left = run_batch(str(class_folder), str(tmp_path / "out"), workers=1, progress=False, stop=stop)
    assert graded == 0 and sorted(left) == ["alice", "bob", "carol", "dave", "mallory"] and summaries == []
    book = read_gradebook(tmp_path / "out")
    assert {row["capstone"] for row in book.values()} == {""} and {row["notes"] for row in book.values()} == {PENDING}
    assert {row["max_total"] for row in book.values()} == {shown(available("capstone"))}
    assert not (tmp_path / "out" / "results").exists()


# -- Gradescope bundle -----------------------------------------------------------------------------

TRUSTED_BUNDLED = {f"solutions/{m}.py" for m in ("violations", "registry", "parse", "schema", "observation")}


def extract_bundle(tmp_path, *options):
    """Build a bundle with ``options`` and unpack it into a fake ``/autograder`` tree; returns the tree's root."""
    bundle = tmp_path / "autograder.zip"
    process = subprocess.run([sys.executable, "-m", "grader.gradescope", str(bundle), *options], cwd=ROOT,
                             capture_output=True, text=True)
    assert process.returncode == 0, process.stderr
    root = tmp_path / "autograder"
    (root / "source").mkdir(parents=True)
    (root / "submission").mkdir()
    with zipfile.ZipFile(bundle) as archive:
        names = archive.namelist()
        assert {"setup.sh", "run_autograder", "requirements-grader.txt", "LICENSE", "LICENSE-COURSE.txt"} <= set(names)
        assert not any(n.startswith(("notebooks", "tests")) for n in names)
        # Only the trusted steps 1-3 that grader.judging.reference_steps runs in the grader's process, and only for an assignment
        # with an exercise judged alone (issue 11) or the capstone (its siblings); never the answers, the notebooks or
        # the capstone's solution.
        assert {n for n in names if n.startswith("solutions")} <= {"solutions/__init__.py", *TRUSTED_BUNDLED}
        assert any(n.startswith("grader/judging/cases/tool_call/") for n in names)  # the hidden cases travel
        archive.extractall(root / "source")
    for name in ("setup.sh", "run_autograder"):
        os.chmod(root / "source" / name, 0o755)
    return root


def run_autograder(root, env=None):
    env = {**os.environ, "AUTOGRADER_ROOT": str(root),
           "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"], **(env or {})}
    run = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    return json.loads((root / "results" / "results.json").read_text())


def upload(root, *files):
    shutil.rmtree(root / "submission")
    (root / "submission").mkdir()
    for source, name in files:
        shutil.copy(source, root / "submission" / name)


def test_gradescope_bundle_runs_against_a_fake_autograder_tree(tmp_path):
    root = extract_bundle(tmp_path)
    upload(root, (SEED_SAMPLE, "my_solution.py"))
    results = run_autograder(root)
    assert 0 < results["score"] < sum(t["max_score"] for t in results["tests"])
    for test in results["tests"]:
        assert test["status"] in GRADESCOPE_STATUSES
        assert test["visibility"] == ("visible" if "visible" in test["tags"] else "after_due_date")
        assert {"name", "score", "max_score", "output"} <= set(test)
    assert results["score"] == pytest.approx(sum(t["score"] for t in results["tests"]))
    # The hidden cases are shown after the due date, and with them the total: the output names the visible part.
    assert "Score:" not in results["output"] and "after the due date" in results["output"]
    assert results["extra_data"]["grader_version"] == grader_version()


# A runtime that dispatches every call of a registered tool with an arguments object, with no field check: the
# siblings dock its valid-call cases.
NAMES_ONLY = (
    "import json\n\nTOOLS = {'get_weather': {'required': {'city': str}, 'optional': {'units': str}}}\n\n\n"
    "def handle_tool_call(raw, ask_model):\n"
    "    try:\n        call = json.loads(raw)\n    except Exception:\n        call = None\n"
    "    if isinstance(call, dict) and call.get('name') in TOOLS and isinstance(call.get('arguments'), dict):\n"
    "        return dispatch(call['name'], call['arguments'])\n"
    "    return {'status': 'rejected', 'error': 'Not a call of a registered tool with an arguments object.'}\n")


def test_a_bundle_grades_the_capstone_as_the_kit_does_siblings_included(tmp_path):
    """An instructor's trial (issue 24): the bundle left out the reference steps for a capstone-only assignment, so
    its hidden calls got no siblings and a mistake they dock scored more on Gradescope than in the batch (30 against
    27 for a runtime that dispatches unchecked). The bundle's result and ``python -m grader --seed`` with the seed it
    names agree, case by case."""
    root = extract_bundle(tmp_path, "--exercise", "capstone", "--assignment-seed", "trial-secret")
    with zipfile.ZipFile(tmp_path / "autograder.zip") as archive:
        assert TRUSTED_BUNDLED <= set(archive.namelist())
    names_only = tmp_path / "names_only.py"
    names_only.write_text(NAMES_ONLY, encoding="utf-8")
    upload(root, (names_only, "names_only.py"))
    bundled = run_autograder(root)
    seed = bundled["extra_data"]["seed"]
    process, kit = run_grader(str(names_only), "--exercise", "capstone", "--seed", seed,
                              results=tmp_path / "kit.json")
    assert {t["name"]: t["score"] for t in bundled["tests"]} == {t["name"]: t["score"] for t in kit["tests"]}
    assert any("Beside this call the grader sent the very same call" in t["output"] for t in bundled["tests"])


def test_a_bundle_for_notebooks_3_and_4_grades_the_steps_judged_alone(tmp_path):
    """observe and run_tool_call get their earlier steps from the grader's trusted side on Gradescope too."""
    root = extract_bundle(tmp_path, "--notebooks", "03-04")
    upload(root, (os.path.join(SOLVED, "03_observations.ipynb"), "03.ipynb"), (os.path.join(SOLVED, "04_retries.ipynb"), "04.ipynb"))
    results = run_autograder(root)
    assert {t["extra_data"]["exercise"] for t in results["tests"]} == {"observe", "retry-loop"}
    assert results["score"] == sum(t["max_score"] for t in results["tests"]) == available("observe") + available("retry-loop")


def test_every_upload_has_the_same_maximum(tmp_path):
    """The maximum comes from the exercises chosen when the bundle is built, not from what each upload holds."""
    root = extract_bundle(tmp_path, "--notebooks", "01,05", "--hidden-visibility", "after_published",
                          "--score-visibility", "after_due_date")
    uploads = {"capstone only": [(SEED_SAMPLE, "05_capstone.py")],
               "parsing only": [(os.path.join(SOLVED, "01_parsing.ipynb"), "01_parsing.ipynb")],
               "nothing": [],
               "an extra file defining every function": [(os.path.join(ROOT, "tests", "faulty", "base.py"), "a.py")]}
    maxima = {}
    for name, files in uploads.items():
        upload(root, *files)
        results = run_autograder(root)
        maxima[name] = sum(t["max_score"] for t in results["tests"])
        assert {t["extra_data"]["exercise"] for t in results["tests"]} == {"parse-call", "capstone"}, name
        assert results["visibility"] == "after_due_date"
        assert {t["visibility"] for t in results["tests"] if "hidden" in t["tags"]} == {"after_published"}
    assert len(set(maxima.values())) == 1 and maxima["nothing"] == available("parse-call") + available("capstone"), maxima


def test_gradescope_upload_without_a_notebook_says_what_to_upload(tmp_path):
    root = extract_bundle(tmp_path)
    (root / "submission" / "notes.txt").write_text("not code")
    results = run_autograder(root)
    assert results["score"] == 0 and sum(t["max_score"] for t in results["tests"]) == available("capstone")
    assert "No .py or .ipynb file was found in your upload" in results["output"]
    assert all(t["status"] == "failed" for t in results["tests"])


def test_an_empty_upload_is_told_the_assignments_own_notebooks(tmp_path):
    """An instructor's trial: a bundle for notebooks 01-02 told an empty upload to send 05_capstone.ipynb."""
    from grader.classroom.gradescope_bundle import grade_upload

    (tmp_path / "upload").mkdir()
    result = grade_upload(str(tmp_path / "upload"), str(tmp_path / "results.json"), ["parse-call", "validate-call"])
    assert result.notes[0].startswith("No .py or .ipynb file was found in your upload: upload your notebooks "
                                      "(01_parsing.ipynb and 02_schema.ipynb)")
    assert "05_capstone" not in json.loads((tmp_path / "results.json").read_text())["output"]


def test_a_bundle_can_be_written_into_a_folder_that_does_not_exist_yet(tmp_path):
    """Another finding of that trial: a missing output folder gave a FileNotFoundError traceback."""
    target = tmp_path / "new" / "folder" / "autograder.zip"
    process = subprocess.run([sys.executable, "-m", "grader.gradescope", str(target), "--notebooks", "01"], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
    assert process.returncode == 0 and "Traceback" not in process.stderr, process.stderr
    assert zipfile.ZipFile(target).testzip() is None
    assert 'cd "$SOURCE"' in zipfile.ZipFile(target).read("setup.sh").decode()  # setup.sh works from any folder


def test_gradescope_upload_of_several_notebooks_grades_each_exercise_from_its_best_file(tmp_path):
    from grader.classroom.gradescope_bundle import grade_upload

    upload_dir = tmp_path / "submission"
    (upload_dir / "work").mkdir(parents=True)
    shutil.copy(os.path.join(SOLVED, "00_start_here.ipynb"), upload_dir)
    shutil.copy(os.path.join(SOLVED, "05_capstone.ipynb"), upload_dir / "work")
    shutil.copy(SEED_SAMPLE, upload_dir / "05_capstone.py")  # an older, weaker attempt at the capstone
    (upload_dir / "notes.txt").write_text("not graded")
    os.symlink(os.path.join(SOLVED, "01_parsing.ipynb"), upload_dir / "01_parsing.ipynb")  # refused
    combined = grade_upload(str(upload_dir), str(tmp_path / "results.json"), ["tool-result", "capstone"])
    results = json.loads((tmp_path / "results.json").read_text())
    exercises = {t["extra_data"]["exercise"] for t in results["tests"]}
    assert exercises == {"tool-result", "capstone"}
    assert results["score"] == sum(t["max_score"] for t in results["tests"]) == combined.score  # the best file each
    assert len([t for t in results["tests"] if t["extra_data"]["exercise"] == "capstone"]) == case_count("capstone")
    assert "01_parsing.ipynb is a symbolic link, so it was not graded" in results["output"]


def fake_python(folder, name, script):
    path = folder / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)
    return str(path)


def test_gradescope_setup_says_in_results_json_when_the_python_is_too_old(tmp_path):
    """On Python 3.8 every upload scored 0 with "could not run" (a TypeError at import); now the build says what is
    wrong and so does every results.json."""
    root = extract_bundle(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    old = fake_python(bin_dir, "python3", 'case "$*" in\n  --version) echo "Python 3.8.10";;\n  *) exit 1;;\nesac\n')
    env = {"KIT_PYTHONS": old, "KIT_NO_APT": "1", "PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin",
           "AUTOGRADER_ROOT": str(root)}
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], env=env, capture_output=True, text=True,
                           timeout=120)
    assert setup.returncode == 0, setup.stderr
    assert "needs Python 3.10 or newer, and this autograder image has Python 3.8.10" in setup.stdout
    upload(root, (SEED_SAMPLE, "answer.py"))
    results = run_autograder(root, env)
    assert results["score"] == 0 and results["extra_data"] == {"autograder_problem": "python"}
    assert "Python 3.10 or newer" in results["output"] and "Python 3.8.10" in results["output"]
    # And when the image changed after the build (no venv, an old python3 on the PATH): the same sentence.
    (root / "source" / "PYTHON_PROBLEM").unlink()
    results = run_autograder(root, env)
    assert "its Python is Python 3.8.10" in results["output"] and results["extra_data"]["autograder_problem"] == "python"


@pytest.fixture(scope="module")
def built_autograder(tmp_path_factory):
    """A bundle set up for real by its setup.sh, with a system Python that refuses pip installs (PEP 668), as on
    Debian 12 and Ubuntu 24.04 images: setup must install into its own virtual environment."""
    from test_packaging import NETWORK_ERRORS

    tmp = tmp_path_factory.mktemp("gradescope")
    root = extract_bundle(tmp, "--exercise", "capstone")
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    managed = fake_python(bin_dir, "python3", 'if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then\n'
                          '  echo "error: externally-managed-environment" >&2; exit 1\nfi\n'
                          f'exec {sys.executable} "$@"\n')
    env = {**os.environ, "KIT_PYTHONS": managed, "KIT_NO_APT": "1", "AUTOGRADER_ROOT": str(root)}
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], env=env, capture_output=True, text=True,
                           timeout=900)
    if setup.returncode != 0 and any(error in setup.stderr for error in NETWORK_ERRORS):
        pytest.skip("setup.sh could not reach the package index")
    assert setup.returncode == 0, setup.stdout + setup.stderr
    assert f"tool-call-kit {grader_version()}" in setup.stdout
    return root


@pytest.mark.install
def test_gradescope_setup_installs_into_a_virtual_environment(built_autograder):
    root = built_autograder
    assert (root / "kit-venv" / "bin" / "python").exists()
    upload(root, (SEED_SAMPLE, "answer.py"))
    results = run_autograder(root, {"PATH": "/usr/bin:/bin"})  # the venv's Python, whatever is on the PATH
    assert (results["score"], sum(t["max_score"] for t in results["tests"])) == golden("seed_sample")


# -- Exercism and JUnit output ---------------------------------------------------------------------

def test_exercism_and_junit_outputs_come_from_the_same_result(tmp_path):
    process, results = run_grader(SEED_SAMPLE, "--exercism", str(tmp_path / "exercism.json"),
                                  "--junit", str(tmp_path / "junit.xml"), results=tmp_path / "results.json")
    assert process.returncode == 0
    exercism = json.loads((tmp_path / "exercism.json").read_text())
    assert exercism["version"] == 3 and exercism["status"] == "fail"
    assert len(exercism["tests"]) == len(results["tests"])
    assert [t["status"] == "pass" for t in exercism["tests"]] == [t["status"] == "passed" for t in results["tests"]]
    assert all(len(t.get("output", "")) <= 500 for t in exercism["tests"])
    assert all(t["message"] for t in exercism["tests"] if t["status"] == "fail")
    suites = ElementTree.parse(tmp_path / "junit.xml").getroot()
    assert int(suites.get("tests")) == len(results["tests"])
    assert int(suites.get("failures")) == sum(t["status"] == "failed" for t in results["tests"])
    assert len(suites.findall("./testsuite/testcase/failure")) == int(suites.get("failures"))


def test_exercism_error_status_for_an_unreadable_submission(tmp_path):
    bad = tmp_path / "broken.ipynb"
    bad.write_text("{")
    run_grader(bad, "--exercism", str(tmp_path / "exercism.json"))
    exercism = json.loads((tmp_path / "exercism.json").read_text())
    assert exercism["status"] == "error" and "not a readable Jupyter notebook" in exercism["message"]


def test_every_exercise_has_a_gradebook_column_name():
    assert len({e.id for e in EXERCISES}) == len(EXERCISES)


def test_batch_survives_odd_names_and_keeps_every_student_apart(tmp_path):
    """Found by an adversarial test: a non-UTF-8 file name crashed the batch, "dan smith" and "dan_smith"
    shared one results file, and carol.py next to carol/ hid the folder."""
    folder = tmp_path / "submitted"
    folder.mkdir()
    base = os.path.join(ROOT, "tests", "faulty", "base.py")
    shutil.copy(base, os.fsencode(folder) + b"/Jos\xe9.py")
    for name, source in (("dan smith", base), ("dan_smith", SEED_SAMPLE)):
        (folder / name).mkdir()
        shutil.copy(source, folder / name / "ps1.py")
    shutil.copy(SEED_SAMPLE, folder / "carol.py")
    (folder / "carol").mkdir()
    shutil.copy(base, folder / "carol" / "better.py")
    out = tmp_path / "out"
    process = batch(folder, out)
    assert process.returncode == 0 and "Traceback" not in process.stderr, process.stderr
    book = read_gradebook(out)
    assert book["dan smith"]["capstone"] == shown(available("capstone")) and float(book["dan_smith"]["capstone"]) < available("capstone")
    assert len(os.listdir(out / "results")) == 4
    assert book["carol"]["capstone"] == shown(available("capstone"))  # the folder's better file counts
    assert [row for name, row in book.items() if name.startswith("Jos")][0]["capstone"] == shown(available("capstone"))
    rerun = batch(folder, out)
    assert rerun.stdout.startswith("Graded 0 students (4 up to date"), rerun.stdout


def test_a_students_files_share_one_time_budget(tmp_path):
    """Three slow files took 4 minutes on one upload; the budget is per student, not per file."""
    from grader.classroom.batch import grade_files
    from grader.isolation.limits import Limits

    slow = "import time\n\ndef handle_tool_call(raw, ask_model):\n    time.sleep(0.3)\n    return None\n"
    files = []
    for number in range(3):
        path = tmp_path / f"slow{number}.py"
        path.write_text(slow)
        files.append(str(path))
    outcomes = list(grade_files(files, Limits(case_seconds=1.0, total_seconds=2.0)))
    assert outcomes[0][1] is not None and outcomes[0][1].cases
    # The budget named is the one in force (Limits.total_seconds, --total-timeout), not the default 120 s.
    assert any(c.feedback == "Grading stopped: the submission used up its total time budget of 2 s."
               for c in outcomes[0][1].cases)
    assert [problem for _, _, problem in outcomes[1:]] == ["not graded: the submission's files used up their time "
                                                           "budget of 2 s"] * 2


def test_the_batch_compiles_the_grader_before_its_pool_processes_grade(monkeypatch):
    """Each pool process used to compile a cold clone's modules at the start of its first grading: one process's
    new ``.pyc`` could appear during another's grading, and a grading that sees the grader's folder change is
    void. The batch compiles once, in its own process, before the pool starts."""
    import concurrent.futures
    import threading

    import grader.pipeline
    from grader.classroom import batch

    order = []
    monkeypatch.setattr(grader.pipeline, "warm_bytecode_cache", lambda: order.append("compiled"))
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", lambda **options: order.append("pool started"))
    batch._Pool(2, threading.Event())
    assert order == ["compiled", "pool started"]

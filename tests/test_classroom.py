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
from grader.exercises import EXERCISES

SOLVED = os.path.join(ROOT, "solutions", "notebooks")
SEED_SAMPLE = os.path.join(ROOT, "tests", "golden", "seed_sample", "submission.py")
GRADESCOPE_STATUSES = {"passed", "failed"}


# -- student release --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def release(tmp_path_factory):
    destination = tmp_path_factory.mktemp("release") / "course"
    process = subprocess.run([sys.executable, "-m", "course.release", str(destination), "--zip"], cwd=ROOT,
                             capture_output=True, text=True)
    assert process.returncode == 0, process.stderr
    return destination


def test_release_holds_nothing_hidden(release):
    files = [os.path.relpath(os.path.join(b, n), release) for b, _, names in os.walk(release) for n in names]
    assert not any(f.startswith(("solutions", "tests", "course")) for f in files)
    assert sorted(os.listdir(release / "grader" / "cases")) == ["pytest.ini", "visible"]
    # Only the grader needs these: the tools that grade a class and the canary value pools.
    for name in ("batch.py", "gradescope.py", "assignment.py", "autograde.py", "canary_pools.json"):
        assert not (release / "grader" / name).exists(), name
    for name in files:
        text = (release / name).read_text(encoding="utf-8", errors="replace")
        assert "### BEGIN SOLUTION" not in text and "### BEGIN HIDDEN TESTS" not in text, name
        assert "Model answers" not in text or name.endswith(".ipynb"), name
    assert sorted(os.listdir(release / "notebooks")) == sorted(os.listdir(os.path.join(ROOT, "notebooks")))
    packages = [line.split(">")[0] for line in (release / "requirements.txt").read_text().splitlines()
                if line and not line.startswith("#")]
    assert packages == ["jupyter", "jupyterlab", "ipywidgets", "nbformat", "pytest"]
    with zipfile.ZipFile(f"{release}.zip") as archive:
        assert sorted(n for n in archive.namelist() if not n.endswith("/")) == sorted(files)


def test_release_canaries_draw_from_the_public_pool_only(release):
    """The grader's canary values stay with the grader: the release's self-checks use a pool of their own."""
    from grader.canaries import CITIES, NOUNS, PUBLIC_POOLS, VERBS

    process = subprocess.run([sys.executable, "-c", "from grader import canaries as c; print(c.CITIES, c.VERBS, c.NOUNS)"],
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
    course = json.loads((destination / "grader" / "exercises.json").read_text(encoding="utf-8"))
    assert [e["id"] for e in course["exercises"]] == ["tool-result", "parse-call", "validate-call"]
    progress = subprocess.run([sys.executable, "-m", "grader.learner", "progress"], cwd=destination,
                              capture_output=True, text=True)
    assert "0 of 3 exercises done." in progress.stdout, progress.stdout + progress.stderr
    grade = subprocess.run([sys.executable, "-m", "grader", "notebooks/02_schema.ipynb"], cwd=destination,
                           capture_output=True, text=True)
    assert grade.returncode == 0 and "Score: 0 / " in grade.stdout, grade.stderr
    assert "05_capstone" not in (destination / "README.md").read_text(encoding="utf-8")
    bad = subprocess.run([sys.executable, "-m", "course.release", str(tmp_path / "nope"), "--notebooks", "07-09"],
                         cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and "07-09 names no notebook" in bad.stderr and not (tmp_path / "nope").exists()


@pytest.mark.parametrize("path, only", [("batch.py", True), ("insight.py", True), ("insight_charts.py", True),
                                        ("cases/tool_call/", True), ("cases/tool_call/test_01_parsing.py", True),
                                        ("cases/visible/", False), ("cases/visible/test_visible.py", False),
                                        ("report.py", False), ("canaries.py", False), ("canary_pools.json", True)])
def test_instructor_only_parts_of_the_grader(path, only):
    """grader/insight* (the class report, issue 17) joins the instructor-only list by name."""
    from course.release import instructor_only

    assert instructor_only(path) is only


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
    assert "Score: 0 / 5" in process.stdout


def test_a_release_never_claims_the_hidden_cases_passed(release, tmp_path):
    """With only visible cases, "all graded cases passed" and "done" would be claims nobody checked."""
    copy = tmp_path / "course"
    shutil.copytree(release, copy)
    shutil.copy(os.path.join(SOLVED, "01_parsing.ipynb"), copy / "notebooks" / "01_parsing.ipynb")
    process = subprocess.run([sys.executable, "-m", "grader", "notebooks/01_parsing.ipynb"], cwd=copy,
                             capture_output=True, text=True)
    assert "Score: 5 / 5" in process.stdout
    assert process.stdout.rstrip().endswith("Hidden cases: none in this copy of the kit; your instructor's grader runs them too.")
    assert "all graded cases passed" not in process.stdout
    progress = subprocess.run([sys.executable, "-m", "grader.learner", "progress"], cwd=copy, capture_output=True,
                              text=True)
    row = next(line for line in progress.stdout.splitlines() if line.startswith("1 · parse_call"))
    assert "visible ok" in row and "5/5" in row
    assert "0 of 8 exercises done; 1 pass their visible cases" in progress.stdout


@pytest.mark.parametrize("name", sorted(os.listdir(os.path.join(ROOT, "notebooks"))))
def test_released_notebooks_run(release, name):
    path = release / "notebooks" / name
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []


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
    return folder


def batch(folder, out, *options):
    return subprocess.run([sys.executable, "-m", "grader.batch", str(folder), "--out", str(out), "--workers", "2",
                           "--no-progress", *options], cwd=ROOT, capture_output=True, text=True, timeout=600)


def read_gradebook(out):
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def test_batch_grades_everyone_and_writes_a_gradebook(class_folder, tmp_path):
    out = tmp_path / "out"
    process = batch(class_folder, out)
    assert process.returncode == 0, process.stderr
    assert "Graded 5 students" in process.stdout and "Traceback" not in process.stderr
    book = read_gradebook(out)
    assert list(book) == ["alice", "bob", "carol", "dave", "mallory"]
    assert book["alice"]["capstone"] == "116" and book["alice"]["parse-call"] == "33"
    assert float(book["alice"]["total"]) == float(book["alice"]["max_total"]) > 100
    assert 0 < float(book["bob"]["capstone"]) < 116
    assert book["mallory"]["total"] == "0" and book["carol"]["total"] == "0"
    assert "not a readable Jupyter notebook" in book["carol"]["notes"]
    assert book["dave"]["notes"] == "no .py or .ipynb file was submitted"
    # One maximum for everyone: bob handed in the capstone only, and gets 0 (not a blank) for parsing.
    assert {row["max_total"] for row in book.values()} == {book["alice"]["max_total"]}
    assert book["bob"]["parse-call"] == "0" and "nothing graded for parse-call" in book["bob"]["notes"]
    # A zero says why: mallory's first failed case.
    assert book["mallory"]["notes"].startswith("mallory.py: 0 points; ") and len(book["mallory"]["notes"]) < 220
    report = (out / "feedback" / "bob" / "answer.py.txt").read_text(encoding="utf-8")
    assert report.startswith("Grading answer.py\nScore: ")
    assert json.loads((out / "feedback" / "alice" / "05_capstone.ipynb.results.json").read_text())["score"] > 100


def test_batch_rerun_skips_what_is_graded_unless_asked(class_folder, tmp_path):
    out = tmp_path / "out"
    batch(class_folder, out)
    stamp = os.path.getmtime(out / "results" / "alice.json")
    time.sleep(0.05)
    rerun = batch(class_folder, out)
    assert os.path.getmtime(out / "results" / "alice.json") == stamp
    assert rerun.stdout.startswith("Graded 0 students (5 up to date, not graded again; --regrade grades them)")
    os.utime(class_folder / "bob" / "answer.py")  # bob resubmits
    shutil.copy(SEED_SAMPLE, class_folder / "dave" / "late.py")  # dave hands in late, with an old timestamp
    os.utime(class_folder / "dave" / "late.py", (1, 1))
    batch(class_folder, out)
    assert read_gradebook(out)["dave"]["capstone"] != "0"
    assert os.path.getmtime(out / "results" / "alice.json") == stamp
    assert os.path.getmtime(out / "results" / "bob.json") > stamp
    batch(class_folder, out, "--regrade")
    assert os.path.getmtime(out / "results" / "alice.json") > stamp


# -- Gradescope bundle -----------------------------------------------------------------------------

def test_gradescope_bundle_runs_against_a_fake_autograder_tree(tmp_path):
    bundle = tmp_path / "autograder.zip"
    process = subprocess.run([sys.executable, "-m", "grader.gradescope", str(bundle)], cwd=ROOT, capture_output=True, text=True)
    assert process.returncode == 0, process.stderr
    root = tmp_path / "autograder"
    (root / "source").mkdir(parents=True)
    (root / "submission").mkdir()
    with zipfile.ZipFile(bundle) as archive:
        names = archive.namelist()
        assert {"setup.sh", "run_autograder", "requirements-grader.txt"} <= set(names)
        assert not any(n.startswith(("solutions", "notebooks", "tests")) for n in names)
        assert any(n.startswith("grader/cases/tool_call/") for n in names)  # the hidden cases travel
        archive.extractall(root / "source")
    shutil.copy(SEED_SAMPLE, root / "submission" / "my_solution.py")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]}
    run = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert 0 < results["score"] < sum(t["max_score"] for t in results["tests"])
    for test in results["tests"]:
        assert test["status"] in GRADESCOPE_STATUSES and test["visibility"] == "visible"
        assert {"name", "score", "max_score", "output"} <= set(test)
    assert results["score"] == pytest.approx(sum(t["score"] for t in results["tests"]))


def test_gradescope_bundle_without_a_notebook_still_writes_results(tmp_path):
    bundle = tmp_path / "autograder.zip"
    subprocess.run([sys.executable, "-m", "grader.gradescope", str(bundle)], cwd=ROOT, check=True, capture_output=True)
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]}
    subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True, timeout=300)
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0 and results["tests"] == []
    assert "No .py or .ipynb file was found in your upload" in results["output"]


def test_gradescope_upload_of_several_notebooks_grades_each_exercise_from_its_best_file(tmp_path):
    from grader.gradescope import grade_upload

    upload = tmp_path / "submission"
    (upload / "work").mkdir(parents=True)
    shutil.copy(os.path.join(SOLVED, "00_start_here.ipynb"), upload)
    shutil.copy(os.path.join(SOLVED, "05_capstone.ipynb"), upload / "work")
    shutil.copy(SEED_SAMPLE, upload / "05_capstone.py")  # an older, weaker attempt at the capstone
    (upload / "notes.txt").write_text("not graded")
    combined = grade_upload(str(upload), str(tmp_path / "results.json"))
    results = json.loads((tmp_path / "results.json").read_text())
    exercises = {t["extra_data"]["exercise"] for t in results["tests"]}
    assert exercises == {"tool-result", "capstone"}
    assert results["score"] == sum(t["max_score"] for t in results["tests"]) == combined.score  # the best file each
    assert len([t for t in results["tests"] if t["extra_data"]["exercise"] == "capstone"]) == 112


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
    assert book["dan smith"]["capstone"] == "116" and float(book["dan_smith"]["capstone"]) < 116
    assert len(os.listdir(out / "results")) == 4
    assert book["carol"]["capstone"] == "116"  # the folder's better file counts
    assert [row for name, row in book.items() if name.startswith("Jos")][0]["capstone"] == "116"
    rerun = batch(folder, out)
    assert rerun.stdout.startswith("Graded 0 students (4 up to date")


def test_a_students_files_share_one_time_budget(tmp_path):
    """Three slow files took 4 minutes on one upload; the budget is per student, not per file."""
    from grader.batch import grade_files
    from grader.sandbox import Limits

    slow = "import time\n\ndef handle_tool_call(raw, ask_model):\n    time.sleep(0.3)\n    return None\n"
    files = []
    for number in range(3):
        path = tmp_path / f"slow{number}.py"
        path.write_text(slow)
        files.append(str(path))
    outcomes = list(grade_files(files, Limits(case_seconds=1.0), total_seconds=2.0))
    assert outcomes[0][1] is not None and outcomes[0][1].cases
    assert any("Grading stopped: the submission used up its total time budget" in c.feedback for c in outcomes[0][1].cases)
    assert [problem for _, _, problem in outcomes[1:]] == ["not graded: the submission's files used up their time "
                                                           "budget of 2 s"] * 2

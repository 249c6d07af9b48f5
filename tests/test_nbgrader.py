"""nbgrader, for real: the kit writes a source/ assignment, and nbgrader 0.9.6's own commands generate the release,
autograde a correct, a faulty and a stub submission, and export grades equal to ``python -m grader``'s.

nbgrader is a test-only dependency: it is installed, with the kit (``pip install <kit>``, as docs/instructors.md
tells instructors), into a fresh virtual environment of its own in a temporary folder, whose kernel nbgrader
uses to execute the notebooks. Without a network the test skips and says why.
"""

import csv
import json
import os
import subprocess

import nbformat
import pytest
from conftest import ROOT
from points import golden
from test_packaging import ready_venv

NOTEBOOKS = ("01_parsing.ipynb", "05_capstone.ipynb")
FAULTY_PARSE = '''import json


def parse_call(raw):
    if not isinstance(raw, str):
        return None, ["the raw call is not a string"]
    try:
        call = json.loads(raw)
    except ValueError as exc:
        return None, [f"the raw call is not valid JSON: {exc}"]
    if not isinstance(call, dict):
        return None, ["the raw call is not a JSON object"]
    if call.get("arguments") is None:
        call["arguments"] = {}
    return call, []
'''
SEED_SAMPLE = os.path.join(ROOT, "tests", "golden", "seed_sample", "submission.py")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A venv with nbgrader and the kit, and an nbgrader course whose ps1 was generated, submitted and autograded."""
    base = tmp_path_factory.mktemp("nbgrader")
    python = ready_venv("nbgrader")  # nbgrader and the kit (tests/venvs.py)
    bin_dir = os.path.dirname(python)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ["PATH"],
           # nbgrader's kernel and settings come from this venv and this test only.
           "JUPYTER_DATA_DIR": str(base / "jupyter-data"), "JUPYTER_CONFIG_DIR": str(base / "jupyter-config"),
           "JUPYTER_PATH": os.path.join(os.path.dirname(bin_dir), "share", "jupyter"), "TMPDIR": str(base)}
    root = base / "course"
    root.mkdir()
    (root / "nbgrader_config.py").write_text('c = get_config()\nc.CourseDirectory.course_id = "toolcall"\n')

    def run(*command):
        process = subprocess.run(list(command), cwd=root, env=env, capture_output=True, text=True, timeout=1800)
        assert process.returncode == 0, f"{command}:\n{process.stdout[-3000:]}\n{process.stderr[-3000:]}"
        return process

    run(os.path.join(bin_dir, "toolcall-nbgrader"), ".", "--assignment", "ps1", "--notebooks", "01,05")
    run(os.path.join(bin_dir, "nbgrader"), "generate_assignment", "ps1")
    for student, solve in (("ada", "correct"), ("bob", "faulty"), ("cy", "stub")):
        folder = root / "submitted" / student / "ps1"
        folder.mkdir(parents=True)
        for name in NOTEBOOKS:
            notebook = nbformat.read(root / "release" / "ps1" / name, as_version=4)
            for cell in notebook.cells:
                exercise = cell.metadata.get("nbgrader", {}).get("grade_id")
                if cell.metadata.get("nbgrader", {}).get("solution") and solve != "stub":
                    cell.source = answer(exercise, name, solve)
            nbformat.write(notebook, folder / name)
    run(os.path.join(bin_dir, "nbgrader"), "autograde", "ps1")
    run(os.path.join(bin_dir, "nbgrader"), "export", "--to", "grades.csv")
    return {"root": root, "python": python, "env": env}


def answer(exercise, notebook, kind):
    """A student's exercise cell: the solved notebook's solution (correct) or a known faulty version."""
    if kind == "faulty":
        return FAULTY_PARSE if exercise == "parse-call" else open(SEED_SAMPLE, encoding="utf-8").read()
    solved = nbformat.read(os.path.join(ROOT, "solutions", "notebooks", notebook), as_version=4)
    cell = next(c for c in solved.cells if c.metadata.get("nbgrader", {}).get("grade_id") == exercise)
    return "\n".join(line for line in cell.source.splitlines() if "### BEGIN SOLUTION" not in line
                     and "### END SOLUTION" not in line)


def kit_score(course, path):
    """What ``python -m grader`` gives a submitted notebook: (score, maximum)."""
    results = path.parent / (path.name + ".results.json")
    subprocess.run([course["python"], "-m", "grader", str(path), "--results", str(results)], env=course["env"],
                   capture_output=True, text=True, timeout=600)
    data = json.loads(results.read_text())
    return data["score"], sum(t["max_score"] for t in data["tests"])


@pytest.mark.install
def test_the_release_keeps_signatures_and_hides_every_answer(course):
    release = course["root"] / "release" / "ps1"
    parsing = nbformat.read(release / "01_parsing.ipynb", as_version=4)
    capstone = nbformat.read(release / "05_capstone.ipynb", as_version=4)
    cell = next(c for c in capstone.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "capstone")
    assert "TOOLS = {" in cell.source and "def handle_tool_call(raw: str, ask_model) -> dict:" in cell.source
    assert "raise NotImplementedError()" in cell.source and "run_tool_call" not in cell.source
    cell = next(c for c in parsing.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "parse-call")
    assert "def parse_call(raw):" in cell.source and "json.loads" not in cell.source
    for notebook in (parsing, capstone):
        tests = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade")]
        assert len(tests) == 1 and "grader.classroom.nbgrader_entry" not in tests[0].source  # hidden from students
    cases = release / "grader" / "judging" / "cases"
    assert not (cases / "tool_call").exists() and (cases / "visible").exists()
    assert not list(release.rglob("solutions"))


@pytest.mark.install
def test_nbgrader_scores_equal_the_kits_for_a_correct_a_faulty_and_a_stub_submission(course):
    root = course["root"]
    with open(root / "grades.csv", newline="", encoding="utf-8") as handle:
        exported = {row["student_id"]: row for row in csv.DictReader(handle)}
    totals = {}
    for student in ("ada", "bob", "cy"):
        scores = [kit_score(course, root / "submitted" / student / "ps1" / name) for name in NOTEBOOKS]
        totals[student] = (sum(s for s, _ in scores), sum(m for _, m in scores))
        assert float(exported[student]["score"]) == totals[student][0], (student, exported[student], scores)
        assert float(exported[student]["max_score"]) == totals[student][1]
    assert totals["ada"][0] == totals["ada"][1] > 100  # correct: full marks
    assert 0 < totals["bob"][0] < totals["bob"][1]  # faulty: docked
    assert totals["cy"][0] == 0  # the stub
    # The autograded notebook shows the kit's report where nbgrader shows a test cell's output.
    autograded = nbformat.read(root / "autograded" / "bob" / "ps1" / "05_capstone.ipynb", as_version=4)
    test = next(c for c in autograded.cells if c.metadata.get("nbgrader", {}).get("grade"))
    printed = "".join(o.get("text", "") for o in test.outputs if o.output_type == "stream")
    assert "Score: {:g} / {:g}".format(*golden("seed_sample")) in printed and not [o for o in test.outputs if o.output_type == "error"]


def test_the_export_is_regenerated_from_the_solved_notebooks(tmp_path):
    """The source follows solutions/notebooks: every exercise cell's stub is the learner notebook's stub."""
    from course.nbgrader import write_source
    from course.notebooks import generated_notebooks, strip_solutions

    write_source(str(tmp_path), "all", "all")
    for filename, _, learner in generated_notebooks():
        source = nbformat.read(tmp_path / "source" / "all" / filename, as_version=4)
        assert not any("### BEGIN HIDDEN TESTS" in c.source for c in source.cells
                       if not c.metadata.get("nbgrader", {}).get("grade"))
        stubs = [c.source for c in learner.cells if c.metadata.get("nbgrader", {}).get("solution")]
        regions = [c.source for c in source.cells if c.metadata.get("nbgrader", {}).get("solution")]
        assert len(stubs) == len(regions) >= 1
        for stub, region in zip(stubs, regions):
            # What nbgrader releases (a region becomes its stub) is the learner's stub but for the bodies' last line.
            released = strip_solutions(region).splitlines()
            added = {line.strip() for line in released} - {line.strip() for line in stub.splitlines()}
            dropped = {line.strip() for line in stub.splitlines()} - {line.strip() for line in released}
            assert added <= {"# YOUR CODE HERE", "raise NotImplementedError()"}, (filename, added)
            assert dropped <= {'raise NotImplementedError("your code here")', "..."}, (filename, dropped)
        points = [c.metadata["nbgrader"]["points"] for c in source.cells if c.metadata.get("nbgrader", {}).get("grade")]
        assert len(points) == len(stubs) and all(p > 0 for p in points)
    assert (tmp_path / "source" / "all" / "LICENSE").exists()


def test_every_source_notebook_gets_full_marks_from_the_kit(tmp_path):
    """The nested reference in each exercise cell really solves it (what `nbgrader validate` of the source shows)."""
    from course.nbgrader import write_source
    from grader.pipeline import grade

    write_source(str(tmp_path), "all", "all")
    for path in sorted((tmp_path / "source" / "all").glob("*.ipynb")):
        result = grade(path)
        assert result.max_score > 0 and result.score == result.max_score, (path.name, result.score, result.max_score)

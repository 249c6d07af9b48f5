"""Extraction: which notebook cells are graded, and how magics and bad files are handled."""

import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from grader.intake.extract import SubmissionError, extract, ipython_to_python


def nbgrader(cell, solution, grade_id):
    cell.metadata["nbgrader"] = {"schema_version": 3, "grade": False, "solution": solution, "locked": not solution,
                                 "grade_id": grade_id}
    return cell


def test_every_code_cell_runs_except_those_tagged_grader_skip(tmp_path):
    notebook = new_notebook(cells=[
        nbgrader(new_code_cell("PROVIDED = 1"), False, "setup"),
        nbgrader(new_code_cell("def handle_tool_call(raw, ask_model): ..."), True, "capstone"),
        new_markdown_cell("notes"),
        new_code_cell("def helper(): return 2"),
        nbgrader(new_code_cell("check(handle_tool_call)", metadata={"tags": ["grader-skip"]}), False, "selfcheck"),
    ])
    path = tmp_path / "n.ipynb"
    nbformat.write(notebook, path)
    submission = extract(path)
    assert [c["label"] for c in submission.chunks] == ["cell 1 (setup)", "cell 2 (capstone)", "cell 4"]
    assert submission.chunks[1]["code"] == "def handle_tool_call(raw, ask_model): ..."
    assert submission.grade_ids == ("capstone",)


def test_notebook_without_nbgrader_metadata_grades_every_code_cell(tmp_path):
    path = tmp_path / "plain.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("a = 1"), new_markdown_cell("x"), new_code_cell("b = 2")]), path)
    assert [c["code"] for c in extract(path).chunks] == ["a = 1", "b = 2"]


def test_magics_and_shell_escapes_become_python_as_ipython_turns_them():
    code, problem = ipython_to_python("%time x = 1\nif True:\n    !ls\nprint(1)\nlen?")
    assert problem is None
    assert code == ("get_ipython().run_line_magic('time', 'x = 1')\nif True:\n    get_ipython().system('ls')\n"
                    "print(1)\nget_ipython().run_line_magic('pinfo', 'len')\n")
    compile(code, "cell", "exec")
    assert ipython_to_python("%%bash\necho hi") == ("get_ipython().run_cell_magic('bash', '', 'echo hi\\n')\n", None)


@pytest.mark.parametrize("name, content, message", [
    ("broken.ipynb", "{not json", "is not a readable Jupyter notebook (NotJSONError)"),
    ("answer.txt", "x", "is neither a .py file nor a .ipynb notebook"),
])
def test_bad_files_raise_one_sentence(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(SubmissionError) as info:
        extract(path)
    assert message in str(info.value) and str(info.value).endswith(".")


def test_missing_and_folder_paths(tmp_path):
    with pytest.raises(SubmissionError, match="does not exist"):
        extract(tmp_path / "missing.py")
    with pytest.raises(SubmissionError, match="is a folder"):
        extract(tmp_path)


READ_IN_A_FRESH_PROCESS = """
import json, sys
sys.path.insert(0, {root!r})
import grader.intake.extract as extract_module
extract_module.READ_MEMORY_BYTES = int(sys.argv[2])
from grader.intake.extract import ReadInBackground, SubmissionError
reading = ReadInBackground(sys.argv[1])
forked = reading.pid is not None
try:
    s = reading.result()
    out = {{"chunks": s.chunks, "notes": s.notes, "grade_ids": list(s.grade_ids)}}
except SubmissionError as exc:
    out = {{"error": str(exc)}}
print(json.dumps({{"forked": forked, "nbformat_here": "nbformat" in sys.modules, **out}}))
"""


def read_in_fresh_process(path, memory_bytes=2 * 1024 ** 3):
    """Run ReadInBackground in a new interpreter (this one has imported nbformat, so it would not fork)."""
    import json
    import subprocess
    import sys

    from conftest import ROOT

    code = READ_IN_A_FRESH_PROCESS.format(root=ROOT)
    process = subprocess.run([sys.executable, "-c", code, str(path), str(memory_bytes)], capture_output=True,
                             text=True, timeout=120)
    assert process.returncode == 0, process.stderr
    return json.loads(process.stdout)


def test_a_notebook_read_in_a_forked_process_equals_reading_it_here(tmp_path):
    from conftest import ROOT

    path = f"{ROOT}/solutions/notebooks/05_capstone.ipynb"
    out = read_in_fresh_process(path)
    here = extract(path)
    assert out["forked"] is True and out["nbformat_here"] is False  # nbformat was imported by the child only
    assert out["chunks"] == here.chunks and out["notes"] == here.notes and tuple(out["grade_ids"]) == here.grade_ids


def test_a_bad_notebook_read_in_a_forked_process_gives_the_same_sentence(tmp_path):
    path = tmp_path / "broken.ipynb"
    path.write_text("{not json")
    out = read_in_fresh_process(path)
    assert out["forked"] is True
    assert out["error"] == "broken.ipynb is not a readable Jupyter notebook (NotJSONError); re-download it or save it again from Jupyter."


def test_a_reading_process_that_runs_out_of_memory_gives_a_sentence(tmp_path):
    path = tmp_path / "n.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("a = 1")]), path)
    out = read_in_fresh_process(path, memory_bytes=16 * 1024 ** 2)  # less than the process already uses
    assert out["forked"] is True
    assert out["error"] == "n.ipynb could not be read: reading it ran out of memory or crashed."


READ_AHEAD = """
import json, os, sys, time
sys.path.insert(0, {root!r})
from grader.intake import extract as extract_module
from grader.intake.extract import ReadInBackground
path, change = sys.argv[1], sys.argv[2]
ReadInBackground.ahead(["--results", "out.json", path])
early = extract_module._AHEAD.get(os.path.realpath(path))
if change == "yes":  # the file is replaced after the reader started: what is graded is what is there now
    with open(path, "w") as handle:
        handle.write(sys.argv[3])
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10 ** 9))
reading = ReadInBackground(path)
taken_over = early is not None and reading.pid == early.pid
pid = early.pid if early else None
s = reading.result()
gone = True
if pid is not None:
    try:
        os.kill(pid, 0)
        gone = False
    except ProcessLookupError:
        pass
ReadInBackground.ahead([path, "second.ipynb"])  # two notebooks named: none is read ahead
print(json.dumps({{"started": early is not None, "taken_over": taken_over, "reaped": gone,
                  "chunks": s.chunks, "left": len(extract_module._AHEAD)}}))
"""


@pytest.mark.parametrize("change", ["no", "yes"])
def test_the_notebook_a_command_names_is_read_ahead_unless_it_changed(tmp_path, change):
    """``python -m grader notebook.ipynb`` starts reading before importing its command line (issue 22); the
    reader is used only for the file as it still is, and its process is reaped."""
    import json
    import subprocess
    import sys

    from conftest import ROOT

    path = tmp_path / "n.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("a = 1")]), path)
    replacement = nbformat.writes(new_notebook(cells=[new_code_cell("b = 2")]))
    process = subprocess.run([sys.executable, "-c", READ_AHEAD.format(root=ROOT), str(path), change, replacement],
                             capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert process.returncode == 0, process.stderr
    out = json.loads(process.stdout)
    assert out["started"] is True and out["reaped"] is True and out["left"] == 0
    assert out["taken_over"] is (change == "no")
    assert [chunk["code"] for chunk in out["chunks"]] == (["b = 2"] if change == "yes" else ["a = 1"])


def test_a_pipe_or_a_device_is_refused_at_once(tmp_path):
    """A FIFO named .ipynb blocked the grader forever, and /dev/zero never ends (an adversarial test)."""
    import os

    fifo = tmp_path / "fifo.ipynb"
    os.mkfifo(fifo)
    device = tmp_path / "zero.py"
    device.symlink_to("/dev/zero")
    for path in (fifo, device):
        with pytest.raises(SubmissionError) as info:
            extract(path)
        assert str(info.value) == f"{path.name} is not a regular file (a pipe, device or socket), so it cannot be graded."


def test_the_notebook_validator_is_the_one_that_is_ready_or_the_one_that_scales(tmp_path, monkeypatch):
    """nbformat's default, fastjsonschema, compiles the schema first (0.06 to 0.1 s, the longest step of reading
    the capstone in a one-off grading, issue 22); jsonschema starts at once but took 23 s on 50,000 cells
    (an adversarial test). So: jsonschema for a small notebook in a process that has not compiled fastjsonschema,
    fastjsonschema for a large one and wherever it is compiled already (a batch's pool process)."""
    import os

    import nbformat.validator

    from grader.intake.extract import LARGE_NOTEBOOK_CHARACTERS, warm_notebook_validator

    seen = []
    original = nbformat.validator.get_current_validator
    monkeypatch.setattr(nbformat.validator, "get_current_validator",
                        lambda: seen.append(os.environ.get("NBFORMAT_VALIDATOR")) or original())
    monkeypatch.setenv("NBFORMAT_VALIDATOR", "fastjsonschema")  # nbformat's default, set by hand
    small, large = tmp_path / "small.ipynb", tmp_path / "large.ipynb"
    for path, count in ((small, 1), (large, 5_000)):
        path.write_text(json.dumps(new_notebook(cells=[new_code_cell(f"x{i} = {i}") for i in range(count)])))
    assert os.path.getsize(large) > LARGE_NOTEBOOK_CHARACTERS > os.path.getsize(small)
    seen.clear()  # new_code_cell validates each cell it makes
    monkeypatch.setattr(nbformat.validator, "validators", {})  # as in a fresh process: nothing compiled yet
    extract(small)
    assert seen == ["jsonschema"]
    assert not any(key[0] == "fastjsonschema" for key in nbformat.validator.validators)
    seen.clear()
    assert len(extract(large).chunks) == 5_000
    assert set(seen) == {"fastjsonschema"}
    seen.clear()
    monkeypatch.setattr(nbformat.validator, "validators", {})
    warm_notebook_validator()
    seen.clear()
    extract(small)
    assert seen == ["fastjsonschema"]  # compiled once in this process: every notebook after uses it
    assert os.environ["NBFORMAT_VALIDATOR"] == "fastjsonschema"  # restored

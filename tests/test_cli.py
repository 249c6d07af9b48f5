"""The grader's command line as learners and instructors use it: exit codes, reports, results.json, bad input."""

import json
import os
import time

import pytest

from conftest import ROOT, run_grader
from points import available, shown

BASE = os.path.join(ROOT, "tests", "faulty", "base.py")
GRADESCOPE_TEST_KEYS = {"name", "number", "score", "max_score", "status", "output", "visibility", "tags", "extra_data"}
GRADESCOPE_VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_results_json_follows_the_gradescope_spec(grade):
    process, results = grade(BASE)
    assert process.returncode == 0
    assert set(results) >= {"score", "execution_time", "output", "tests"}
    assert isinstance(results["score"], float) and results["score"] == sum(t["score"] for t in results["tests"])
    for test in results["tests"]:
        assert set(test) == GRADESCOPE_TEST_KEYS
        assert test["status"] in {"passed", "failed"}
        assert test["visibility"] in GRADESCOPE_VISIBILITY
        assert 0 <= test["score"] <= test["max_score"]
    names = [t["name"] for t in results["tests"]]
    assert len(names) == len(set(names)), "test names must be unique"


def test_report_shows_groups_points_and_the_difference_between_visible_and_graded(grade):
    process, _ = grade(BASE)
    out = process.stdout
    assert out.startswith("Grading base.py\nScore: {0} / {0}".format(shown(available("capstone"))))
    assert "Parsing the raw call — 13/13" in out
    assert "Visible self-checks: 7 of 7 passed." in out
    assert "Graded cases (visible and hidden): all graded cases passed." in out


def test_hidden_input_is_not_printed_but_visible_input_is(grade, tmp_path):
    # A solution that dispatches everything fails hidden cases; their feedback must not reveal the inputs.
    submission = write(tmp_path, "naive.py", "import json\n\ndef handle_tool_call(raw, ask_model):\n"
                       "    call = json.loads(raw)\n    return dispatch(call['name'], call['arguments'])\n")
    process, results = grade(submission)
    hidden = [t for t in results["tests"] if "hidden" in t["tags"] and t["status"] == "failed"]
    visible = [t for t in results["tests"] if "visible" in t["tags"] and t["status"] == "failed"]
    assert hidden and visible
    for secret in ("get_wether", "Let me know if you need anything else", "75001", "Zürich", "snooze"):
        assert all(secret not in t["output"] for t in hidden), secret
        assert secret not in process.stdout or any(secret in t["output"] for t in visible), secret
    assert any('"get_forecast"' in t["output"] for t in visible)
    assert "Traceback" not in process.stdout + process.stderr


def test_missing_file_exits_2_with_one_sentence_and_still_writes_results(tmp_path):
    results_path = tmp_path / "out" / "results.json"
    process, results = run_grader(tmp_path / "nope.py", results=results_path)
    assert process.returncode == 2
    assert process.stderr.strip().endswith("does not exist; pass the path of a .py file or .ipynb notebook.")
    assert process.stderr.count("\n") == 1 and "Traceback" not in process.stderr
    assert process.stdout.splitlines()[-1].startswith("Could not grade: ") and len(process.stdout.splitlines()) == 4
    assert results["score"] == 0 and results["tests"] and all(t["status"] == "failed" for t in results["tests"])


@pytest.mark.parametrize("name, text, message", [
    ("notes.txt", "hello", "is neither a .py file nor a .ipynb notebook"),
    ("old.ipynb", json.dumps({"nbformat": 4, "cells": "not a list"}), "is not a readable Jupyter notebook"),
])
def test_unreadable_submissions_exit_2(tmp_path, name, text, message):
    process, _ = run_grader(write(tmp_path, name, text))
    assert process.returncode == 2
    assert message in process.stderr and "Traceback" not in process.stderr


def test_old_nbformat_v3_notebook_is_upgraded_and_graded(grade, tmp_path):
    source = open(BASE, encoding="utf-8").read()
    v3 = {"nbformat": 3, "nbformat_minor": 0, "metadata": {"name": ""},
          "worksheets": [{"cells": [{"cell_type": "code", "input": source, "language": "python", "outputs": [],
                                     "metadata": {}}], "metadata": {}}]}
    process, results = grade(write(tmp_path, "v3.ipynb", json.dumps(v3)))
    assert process.returncode == 0, process.stderr
    assert results["score"] == sum(t["max_score"] for t in results["tests"])


def test_a_handler_that_loops_forever_costs_its_cases_and_nothing_more(grade, tmp_path):
    source = open(BASE, encoding="utf-8").read().replace(
        "    for attempt in range(2):\n", "    if '```' in str(raw) or '1e400' in str(raw):\n        while True:\n            pass\n"
        "    for attempt in range(2):\n")
    started = time.monotonic()
    process, results = grade(write(tmp_path, "loops.py", source), "--case-timeout", "0.5")
    elapsed = time.monotonic() - started
    assert process.returncode == 0
    timed_out = [t for t in results["tests"] if "timed out after 0.5 s" in t["output"]]
    # The hidden inputs' words are drawn for every grading: the loop keys on what a draw keeps, a fence and a number.
    assert len(timed_out) == 3, "the three cases whose call holds a markdown fence or 1e400 must time out"
    failed = [t for t in results["tests"] if t["status"] == "failed"]
    assert failed == timed_out, "every other case must still pass after the worker was restarted"
    assert elapsed < 0.5 * len(timed_out) + 60


def test_exit_and_crash_inside_the_handler_are_reported_per_case(grade, tmp_path):
    source = open(BASE, encoding="utf-8").read().replace(
        "    for attempt in range(2):\n",
        "    import os, sys\n    if '```' in str(raw):\n        os._exit(3)\n"
        "    if '1e400' in str(raw):\n        sys.exit(4)\n    for attempt in range(2):\n")
    process, results = grade(write(tmp_path, "exits.py", source))
    outputs = [t["output"] for t in results["tests"] if t["status"] == "failed"]
    # A hidden case names no exit status: the submission could choose it from the input.
    assert any("The submission exited (its status is not shown in a hidden case)." in o for o in outputs)
    assert any("called sys.exit (its argument is not shown in a hidden case)" in o for o in outputs)
    assert sum(t["status"] == "passed" for t in results["tests"]) >= 100


def test_printed_output_is_kept_and_capped(grade, tmp_path):
    source = open(BASE, encoding="utf-8").read().replace(
        "def handle_tool_call(raw, ask_model):\n",
        "def handle_tool_call(raw, ask_model):\n    print('debug:', 'x' * 100000)\n    return None\n\n\ndef unused(raw, ask_model):\n")
    process, results = grade(write(tmp_path, "prints.py", source))
    visible = [t["output"] for t in results["tests"] if "visible" in t["tags"]]
    hidden = [t["output"] for t in results["tests"] if "hidden" in t["tags"]]
    assert visible and all("Your code printed:\ndebug: xxx" in o for o in visible)
    assert all(len(o) < 3000 for o in visible)
    assert all("(truncated: " in o for o in visible)
    # What a hidden case prints could be its input: only its size is shown (an adversarial test leaked them all).
    assert hidden and all("xxx" not in o and "printed something here; what it prints during a hidden case is not shown" in o
                          for o in hidden)


def test_tools_bound_as_default_argument_is_explained(grade, tmp_path):
    source = open(BASE, encoding="utf-8").read().replace(
        "def handle_tool_call(raw, ask_model):\n", "def handle_tool_call(raw, ask_model, tools=TOOLS):\n").replace(
        "problems(raw, TOOLS)", "problems(raw, tools)")
    process, results = grade(write(tmp_path, "bound.py", source))
    assert "handle_tool_call binds TOOLS as a default argument" in results["output"]
    failed = [t for t in results["tests"] if t["status"] == "failed"]
    assert failed and all("binds TOOLS as a default argument" in t["output"] for t in failed)


def test_importing_the_reference_package_does_not_work(grade, tmp_path):
    process, results = grade(write(tmp_path, "cheat.py", "from solutions import handle_tool_call\n"))
    assert results["score"] == 0
    assert "ModuleNotFoundError: No module named 'solutions'" in results["output"]


def copy_of_the_grader(tmp_path):
    """A fresh copy of grader/ with no bytecode caches, as on a fresh clone."""
    import shutil

    kit = tmp_path / "kit"
    shutil.copytree(os.path.join(ROOT, "grader"), kit / "grader",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return kit


def test_first_run_on_a_fresh_clone_is_not_voided_by_python_writing_bytecode(tmp_path):
    """Python writes __pycache__ into grader/ on first import; that must not look like tampering."""
    import subprocess
    import sys

    kit = copy_of_the_grader(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for run in (1, 2):
        process = subprocess.run([sys.executable, "-m", "grader", BASE], cwd=kit, env=env,
                                 capture_output=True, text=True, timeout=300)
        assert process.returncode == 0, (run, process.stderr)
        assert f"Score: {shown(available('capstone'))} / {shown(available('capstone'))}" in process.stdout, run
        assert "void" not in process.stdout + process.stderr
    assert (kit / "grader" / "__pycache__").is_dir()  # the run did cache bytecode, outside the checked window
    for package in ("intake", "isolation", "judging", "results", "classroom", "learner", "insight"):
        assert (kit / "grader" / package / "__pycache__").is_dir(), package  # every package's, also those imported late
    assert not (kit / "grader" / "judging" / "cases" / "__pycache__").exists()  # cases are always compiled from source


def test_a_conftest_planted_among_the_cases_is_never_loaded(tmp_path):
    """A conftest.py next to the cases could rewrite every result; the grader runs pytest with --noconftest."""
    import subprocess
    import sys

    kit = copy_of_the_grader(tmp_path)
    (kit / "grader" / "judging" / "cases" / "conftest.py").write_text(
        "import pytest\n\n@pytest.hookimpl(tryfirst=True)\ndef pytest_pyfunc_call(pyfuncitem):\n"
        "    return True  # no case function ever runs, so every case passes\n", encoding="utf-8")
    stub = write(tmp_path, "stub.py", "def handle_tool_call(raw, ask_model):\n    return None\n")
    process = subprocess.run([sys.executable, "-m", "grader", os.fspath(stub)], cwd=kit,
                             capture_output=True, text=True, timeout=300)
    assert f"Score: 0 / {shown(available('capstone'))}" in process.stdout, process.stdout[:500]


# -- limits that do not zero correct work ------------------------------------------------------------

def solved_capstone():
    import nbformat

    return nbformat.read(os.path.join(ROOT, "solutions", "notebooks", "05_capstone.ipynb"), as_version=4)


def notebook_with(tmp_path, name, add):
    """The solved capstone notebook with ``add(notebook)`` applied, written to ``tmp_path/name``."""
    import nbformat

    notebook = solved_capstone()
    add(notebook, nbformat)
    path = tmp_path / name
    nbformat.write(notebook, path)
    return path


def add_outputs(notebook, nbformat):
    cell = next(c for c in notebook.cells if c.cell_type == "code")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="z" * (50 * 1024 * 1024))]
    cell.execution_count = 7


def add_attachment(notebook, nbformat):
    import base64

    image = base64.b64encode(os.urandom(9 * 1024 * 1024)).decode()
    notebook.cells.append(nbformat.v4.new_markdown_cell("![plot](attachment:plot.png)",
                                                        attachments={"plot.png": {"image/png": image}}))


@pytest.mark.parametrize("name, add", [("outputs.ipynb", add_outputs), ("attachment.ipynb", add_attachment)])
def test_outputs_are_set_aside_before_the_size_limit(grade, tmp_path, name, add):
    """A correct notebook saved with 50 MB of outputs was refused ("over 5,242,880 bytes"): outputs are not code."""
    path = notebook_with(tmp_path, name, add)
    assert os.path.getsize(path) > 10 * 1024 * 1024
    process, results = grade(path)
    assert process.returncode == 0, process.stderr
    # Graded on a random seed: a failure says which, so that --seed reproduces it.
    lost = [t["name"] for t in results["tests"] if t["status"] == "failed"]
    assert results["score"] == sum(t["max_score"] for t in results["tests"]) == available("capstone"), \
        f"seed {results['extra_data'].get('seed')}: {lost}"
    assert "saved outputs" in process.stdout and "were set aside before grading" in process.stdout


def test_a_notebook_over_the_limit_without_its_outputs_is_refused_saying_what_to_do(tmp_path):
    path = notebook_with(tmp_path, "pasted.ipynb", lambda nb, nbf: nb.cells.append(nbf.v4.new_markdown_cell("m" * (6 << 20))))
    process, _ = run_grader(path)
    assert process.returncode == 2
    assert "bytes of code and text even without its outputs" in process.stderr
    assert "remove large pasted data from its cells" in process.stderr and "Traceback" not in process.stderr


PRINTS = {"one 10 MB print": 'print("x" * 10_000_000)\n',
          "12,000 prints of 1 KB": 'for _ in range(12_000):\n    print("y" * 1000)\n',
          "10 MB to stderr": 'import sys\nsys.stderr.write("e" * 10_000_000)\n'}


@pytest.mark.parametrize("kind", list(PRINTS))
def test_printing_too_much_while_loading_is_cut_not_fatal(grade, tmp_path, kind):
    """Printing 10 MB while loading scored 0 (OSError: File too large)."""
    process, results = grade(write(tmp_path, "chatty.py", PRINTS[kind] + open(BASE, encoding="utf-8").read()))
    assert process.returncode == 0, process.stderr
    assert results["score"] == available("capstone"), [t["output"] for t in results["tests"] if t["status"] == "failed"][:2]
    assert "MB in one case; the rest of its output was dropped" in process.stdout
    assert "File too large" not in process.stdout


def test_printing_too_much_during_a_case_is_cut_not_fatal(grade, tmp_path):
    source = open(BASE, encoding="utf-8").read().replace(
        "def handle_tool_call(raw, ask_model):\n",
        "FIRST = [True]\n\n\ndef handle_tool_call(raw, ask_model):\n"
        "    if FIRST:\n        FIRST.clear()\n        print('w' * 9_000_000)\n")
    process, results = grade(write(tmp_path, "chatty_case.py", source))
    assert results["score"] == available("capstone")  # whichever case (or canary) printed it, it still passed
    assert "File too large" not in json.dumps(results)

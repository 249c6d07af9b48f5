"""The learner's command line: progress, hint and watch, all driven by the grader."""

import os
import shutil
import subprocess
import sys
import time

import nbformat

from conftest import ROOT
from points import available, shown

LEARNER = os.path.join(ROOT, "notebooks")
SOLVED = os.path.join(ROOT, "solutions", "notebooks")


def learner(*args):
    return subprocess.run([sys.executable, "-m", "grader.learner", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def workspace(tmp_path, solved=()):
    folder = tmp_path / "notebooks"
    shutil.copytree(LEARNER, folder)
    for name in solved:
        shutil.copy(os.path.join(SOLVED, name), folder / name)
    return folder


def test_progress_lists_every_exercise_with_its_state(tmp_path):
    folder = workspace(tmp_path, solved=["00_start_here.ipynb", "01_parsing.ipynb"])
    process = learner("--notebooks", str(folder), "progress")
    assert process.returncode == 0, process.stderr
    lines = process.stdout.splitlines()
    assert "done" in lines[1] and "{0}/{0}".format(shown(available("tool-result"))) in lines[1] and "done" in lines[2] and "{0}/{0}".format(shown(available("parse-call"))) in lines[2]
    from grader.intake.exercises import EXERCISES

    # A header, one line per exercise of the catalogue (two done, the rest the shipped stubs), the summary.
    assert len(EXERCISES) >= 9 and len(lines) == len(EXERCISES) + 2
    assert ["not started" in line for line in lines[3:-1]] == [True] * (len(EXERCISES) - 2)
    assert lines[-1] == f"2 of {len(EXERCISES)} exercises done."


def test_hint_names_the_next_exercise_and_its_first_failing_case(tmp_path):
    folder = workspace(tmp_path, solved=["00_start_here.ipynb"])
    notebook = nbformat.read(folder / "01_parsing.ipynb", as_version=4)
    cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution"))
    cell.source = "import json\n\ndef parse_call(raw):\n    return json.loads(raw), []\n"
    nbformat.write(notebook, folder / "01_parsing.ipynb")
    process = learner("--notebooks", str(folder), "hint", "--level", "3")
    assert process.stdout.startswith("1 · parse_call")
    assert "First failing case:" in process.stdout and "Hint 3 of 3 (the recipe): Check that raw is a str" in process.stdout


def test_hint_for_a_named_exercise_and_when_everything_is_done(tmp_path):
    assert "Hint 3 of 3 (the recipe): Return a new dict with exactly four keys" in learner(
        "hint", "tool-result", "--level", "3").stdout
    folder = tmp_path / "all"
    shutil.copytree(SOLVED, folder)
    assert learner("--notebooks", str(folder), "hint").stdout.strip() == "Every exercise is done. Well done!"


def test_watch_regrades_a_notebook_when_it_is_saved(tmp_path):
    folder = workspace(tmp_path)
    process = subprocess.Popen([sys.executable, "-m", "grader.learner", "--notebooks", str(folder), "watch",
                                "--interval", "0.2", "--max-events", "1"], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().startswith("Watching ")
        time.sleep(0.5)
        shutil.copy(os.path.join(SOLVED, "00_start_here.ipynb"), folder / "00_start_here.ipynb")  # "save"
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
    warm_up = shown(available("tool-result"))
    assert f"00_start_here.ipynb: 0 · Warm-up: an error observation in Anthropic's shape: done {warm_up}/{warm_up}." in out, err
    assert "Next: 1 · parse_call" in out


def test_hint_points_at_the_first_failing_cases_rule(tmp_path):
    """Issue 11: the hint names the rule of the first failing case (and a visible case's own hint), not only the
    exercise's general hint."""
    folder = workspace(tmp_path, solved=["00_start_here.ipynb"])
    notebook = nbformat.read(folder / "01_parsing.ipynb", as_version=4)
    cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution"))
    cell.source = "import json\n\ndef parse_call(raw):\n    return json.loads(raw), []\n"
    nbformat.write(notebook, folder / "01_parsing.ipynb")
    lines = learner("--notebooks", str(folder), "hint", "--level", "3").stdout.splitlines()
    # parse_call's first failing case is the visible "valid" one, not counted because json.loads returns an array
    # for "[]" (the canary): its rule is the one to read.
    assert lines[1] == "First failing case: Visible self-checks: A valid call parses to (call, [])"
    assert lines[2] == "Rule it checks: A raw call that is one JSON object parses to that object."
    assert lines[-1].startswith("Hint 3 of 3 (the recipe): Check that raw is a str")


def test_hint_levels_come_one_at_a_time(tmp_path):
    """Issue 27: one hint gave the whole recipe at once; now a nudge by default, the rule and the recipe on request,
    each level saying how to ask for the next."""
    from grader.intake.exercises import BY_ID

    turn = BY_ID["turn"]
    first = learner("hint", "turn").stdout
    assert f"Hint 1 of 3 (a nudge): {turn.nudge}" in first and turn.hint not in first and turn.rule not in first
    assert "hint turn --level 2 (the rule)" in first
    second = learner("hint", "turn", "--level", "2").stdout
    assert f"Hint 2 of 3 (the rule): {turn.rule}" in second and turn.hint not in second
    third = learner("hint", "turn", "--level", "3").stdout
    assert f"Hint 3 of 3 (the recipe): {turn.hint}" in third and "--level 4" not in third

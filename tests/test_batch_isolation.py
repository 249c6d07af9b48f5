"""In a batch, no student touches another (issue 41).

Three findings, each a test: two students' names shared one results file and gradebook row (a folder named after
josé's changed name); a submission that knows where the batch writes tried to rewrite classmates' rows, results and
feedback, and on the portable transport a detached process did so seconds after the batch reported success; and a
crafted notebook, read in the batch's own process, cost it 560 MB or 78 s of CPU. Names are now different for every
two students, the worker reaches nothing outside its scratch folder on either transport, and every notebook is read
in a forked child with limits (``grader.intake.extract.ReadInBackground``).
"""

import csv
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest
from hypothesis import given, strategies

from conftest import ROOT
from grader.classroom.batch import safe_file_name
from points import available, shown

ATTACKS = os.path.join(ROOT, "tests", "attacks")
FULL_MARKS = os.path.join(ROOT, "tests", "faulty", "base.py")
STUB = "def handle_tool_call(raw, ask_model):\n    return None\n"


def batch(folder, out, *options, env=None):
    """``python -m grader.batch folder --out out`` (CompletedProcess), two at a time, no progress bar."""
    # One assignment seed for every run: two batches of the same students draw the same inputs.
    return subprocess.run([sys.executable, "-m", "grader.batch", str(folder), "--out", str(out), "--workers", "2",
                           "--no-progress", "--assignment-seed", "isolation-trials", *options], cwd=ROOT,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})


def gradebook(out):
    """``{student: row}`` of a batch's gradebook.csv."""
    with open(os.path.join(out, "gradebook.csv"), newline="", encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


# -- names ----------------------------------------------------------------------------------------

def test_a_name_that_looks_like_a_classmates_changed_name_gets_a_file_of_its_own():
    digest = hashlib.sha256("josé".encode()).hexdigest()
    short, long = f"jos_-{digest[:8]}", f"jos_-{digest[:16]}"
    assert safe_file_name("josé") == long  # a changed name: its safe form and 16 digits of its digest
    assert safe_file_name(short) == short  # the 8-digit form of before is an ordinary name now
    assert safe_file_name(long) != long and safe_file_name(long).startswith(long + "-")  # it looks changed: digest
    assert len({safe_file_name(name) for name in ("josé", short, long, "jos_", "jos?")}) == 5
    assert safe_file_name("dan smith") != safe_file_name("dan_smith") == "dan_smith"


def test_no_file_name_starts_with_a_dash():
    assert safe_file_name("-rf").startswith("_rf-")
    assert safe_file_name("--help") != safe_file_name("_-help") and not safe_file_name("--help").startswith("-")


def test_names_that_one_file_system_or_another_would_confuse_get_their_own_files():
    """macOS and Windows compare file names without case ("Alice.json" is "alice.json"), and Windows keeps "con",
    "nul"... for devices (issue 41's instructor trial): such names get their digest, so nothing is shared anywhere."""
    assert safe_file_name("Alice").lower() != safe_file_name("alice").lower() == "alice"
    assert safe_file_name("Alice").startswith("Alice-")
    for device in ("con", "NUL", "com1", "lpt9.py", "aux.ipynb"):
        assert safe_file_name(device).startswith(device + "-"), device
    assert safe_file_name("console") == "console" and safe_file_name("capstone.py") == "capstone.py"


@given(strategies.text(min_size=1, max_size=300))
def test_every_name_becomes_a_short_safe_file_name(name):
    safe = safe_file_name(name)
    assert re.fullmatch(r"[A-Za-z0-9_.][A-Za-z0-9_.\-]*", safe), safe
    assert len(safe) <= 120 + 17
    changed = safe != name
    assert changed == (not re.fullmatch(r"[a-z0-9_.][a-z0-9_.\-]{0,119}", name)
                       or bool(re.fullmatch(r".*-[0-9a-f]{16}", name, re.DOTALL))
                       or bool(re.fullmatch(r"(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?", name, re.I | re.DOTALL)))


@pytest.mark.slow
def test_the_handed_name_collision_keeps_jose_and_his_classmate_apart(tmp_path):
    """../shared/cases/grader_attacks/batch_name_collision.sh: "josé" and a folder named "jos_-<digest of josé>"
    shared one results file and row; on the re-run josé's results held the other student's summary."""
    out = tmp_path / "graded"
    process = subprocess.run(["bash", os.path.join(ATTACKS, "batch_name_collision.sh")], cwd=ROOT, capture_output=True,
                             text=True, timeout=900, env={**os.environ, "KIT": ROOT, "PY": sys.executable,
                                                          "OUT": str(out)})
    assert process.returncode == 0 and "rc=" not in process.stdout, process.stdout + process.stderr
    book = gradebook(out)
    other = [name for name in book if name != "josé"]
    assert len(book) == 2 and book["josé"]["capstone"] == shown(available("capstone")), book
    assert book[other[0]]["capstone"] == "0"
    for name in ("josé", other[0]):
        with open(out / "results" / (safe_file_name(name) + ".json"), encoding="utf-8") as handle:
            assert json.load(handle)["student"] == name
    assert sorted(os.listdir(out / "results")) == sorted(safe_file_name(n) + ".json" for n in book)
    assert sorted(os.listdir(out / "feedback")) == sorted(safe_file_name(n) for n in book)


# -- classmates ------------------------------------------------------------------------------------

# A submission that knows where the batch writes (OUT) and tries every way this kit has seen to change what its
# classmates get: writing their rows, results and feedback; the batch's command line for their file names; a
# process started now that rewrites them after the batch ends; a thread that tries again while it grades.
SABOTAGE = r'''
import os, subprocess, threading, time
OUT = %(out)r
OUTSIDE = %(outside)r
LOG = []

def attempt(label, action):
    try:
        action()
        LOG.append(label + ": done")
    except BaseException as exc:
        LOG.append(label + ": refused " + type(exc).__name__)

def overwrite(path):
    with open(path, "w") as handle:
        handle.write("student,capstone\nalice,0\n")

def rewrite_everything():
    found = [os.path.join(OUT, name) for name in os.listdir(OUT)]  # raises where the worker may not look
    for path in found:
        if os.path.isfile(path):
            overwrite(path)
    if not found:
        raise LookupError("nothing to rewrite yet")

attempt("gradebook", lambda: overwrite(os.path.join(OUT, "gradebook.csv")))
attempt("results", lambda: overwrite(os.path.join(OUT, "results", "alice.json")))
attempt("feedback", lambda: overwrite(os.path.join(OUT, "feedback", "alice", "x.txt")))
attempt("outside", lambda: overwrite(OUTSIDE))
attempt("rename", lambda: os.rename(os.path.join(OUT, "results"), os.path.join(OUT, "gone")))
attempt("command line", lambda: open("/proc/%%d/cmdline" %% os.getppid(), "rb").read())
attempt("later, by a process", lambda: subprocess.Popen(
    ["sh", "-c", "sleep 2; for f in $(find %%s -type f); do echo alice,0 > $f; done" %% OUT], start_new_session=True))
attempt("later, by fork", lambda: os.fork() or None)
threading.Thread(target=lambda: [attempt("a thread", rewrite_everything), time.sleep(0.2)], daemon=True).start()
print("SABOTAGE LOG:", sorted(set(LOG)))

def handle_tool_call(raw, ask_model):
    attempt("during a case", rewrite_everything)
    return None
'''


def processes_naming(text):
    """The pids (list of str) of processes on this machine whose command line holds ``text``."""
    import glob

    found = []
    for path in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(path, "rb") as handle:
                if text.encode() in handle.read():
                    found.append(path.split("/")[2])
        except OSError:
            continue
    return found


def what_classmates_get(out, students):
    """Every row, results summary and feedback file of ``students`` that a sabotage could change (dict), without
    the times and the reuse key (which name the limits and the files, not the outcome)."""
    book = gradebook(out)
    seen = {}
    for student in students:
        with open(os.path.join(out, "results", safe_file_name(student) + ".json"), encoding="utf-8") as handle:
            summary = json.load(handle)
        feedback = {}
        folder = os.path.join(out, "feedback", safe_file_name(student))
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                text = handle.read()
            if name.endswith(".json"):
                data = json.loads(text)
                text = [data["score"], [(t["name"], t["score"], t["status"]) for t in data["tests"]]]
            feedback[name] = text
        seen[student] = {"row": book[student], "exercises": summary["exercises"], "errors": summary["errors"],
                         "files": summary["files"], "feedback": feedback}
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("portable", [False, True], ids=["default transport", "portable transport"])
def test_classmates_rows_results_and_feedback_are_the_same_whatever_one_student_submits(tmp_path, portable):
    alone, together = tmp_path / "alone", tmp_path / "together"
    for folder in (alone, together):
        folder.mkdir()
        shutil.copy(FULL_MARKS, folder / "alice.py")
        (folder / "bob.py").write_text(STUB, encoding="utf-8")
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched", encoding="utf-8")
    out_alone, out_together = tmp_path / "out-alone", tmp_path / "out-together"
    (together / "mallory.py").write_text(SABOTAGE % {"out": str(out_together), "outside": str(outside)},
                                         encoding="utf-8")
    env = {"KIT_PORTABLE_WORKER": "1" if portable else "0"}
    first = batch(alone, out_alone, env=env)
    second = batch(together, out_together, env=env)
    assert first.returncode == second.returncode == 0, second.stderr
    # The instructor is told once, on the console, what the portable transport lacks (the trial found it only in
    # each student's report).
    assert second.stdout.count("process-tree cleanup") == (1 if portable else 0), second.stdout
    expected = what_classmates_get(out_alone, ["alice", "bob"])
    assert expected["alice"]["row"]["capstone"] == shown(available("capstone"))
    assert what_classmates_get(out_together, ["alice", "bob"]) == expected
    assert gradebook(out_together)["mallory"]["capstone"] == "0"
    time.sleep(3)  # what a process started by the submission would do after the batch
    assert what_classmates_get(out_together, ["alice", "bob"]) == expected
    assert processes_naming(str(out_together)) == [], "a process of the submission outlived the batch"
    assert outside.read_text(encoding="utf-8") == "untouched"
    assert not (out_together / "gone").exists()
    report = (out_together / "feedback" / "mallory" / "mallory.py.txt").read_text(encoding="utf-8")
    log = report.partition("SABOTAGE LOG:")[2].partition("\n")[0]
    assert "done" not in log and "refused" in log, report[:3000]


# -- notebooks read in the limited child ---------------------------------------------------------

def crafted_notebook(path, lists):
    """A valid notebook whose one output is ``lists`` empty JSON lists: 3 bytes each on disk, about 64 once parsed,
    so a small file costs the reader many times its size (the kind of the crafted notebook of issue 41)."""
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": STUB,
            "outputs": [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
                         "data": {"text/plain": "x"}, "junk": "@@"}]}
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    head, _, tail = json.dumps(notebook).partition('"@@"')
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(head + "[" + ",".join(["[]"] * lists) + "]" + tail)


def test_a_crafted_notebook_costs_the_reading_child_not_the_grader(tmp_path, monkeypatch):
    """With nbformat already imported (as in a batch's pool process, which once read notebooks itself), a notebook
    is still read in a forked child under the reader's memory limit: here 300 MB, which a 6 MB notebook of empty
    lists passes, so it ends in one sentence; the same notebook read with more room is fine."""
    from grader.intake import extract as extract_module
    from grader.intake.extract import ReadInBackground, SubmissionError, warm_notebook_validator

    warm_notebook_validator()
    path = tmp_path / "crafted.ipynb"
    crafted_notebook(path, 2_000_000)
    monkeypatch.setattr(extract_module, "READ_MEMORY_BYTES", 300 * 1024 * 1024)
    reader = ReadInBackground(str(path), ahead=False)
    assert reader.pid is not None  # a child reads it, nbformat imported or not
    with pytest.raises(SubmissionError, match=r"crafted\.ipynb could not be read: reading it ran out of memory"):
        reader.result()
    monkeypatch.setattr(extract_module, "READ_MEMORY_BYTES", 2 * 1024 ** 3)
    assert "return None" in ReadInBackground(str(path), ahead=False).result().chunks[0]["code"]


@pytest.mark.slow
def test_a_batch_of_crafted_notebooks_stays_within_the_readers_limits(tmp_path, monkeypatch):
    """A batch (its pool forked from this process, with the reader's limit lowered to 300 MB) grades two crafted
    notebooks and a classmate: each crafted one gets the reader's sentence, which only the limited child gives (the
    pool process itself has no such limit and would have read them), and the classmate is graded as alone."""
    from grader.classroom.batch import run_batch
    from grader.intake import extract as extract_module

    monkeypatch.setattr(extract_module, "READ_MEMORY_BYTES", 300 * 1024 * 1024)
    folder = tmp_path / "submitted"
    folder.mkdir()
    for name in ("carol", "dave"):
        crafted_notebook(folder / f"{name}.ipynb", 2_000_000)
    shutil.copy(FULL_MARKS, folder / "alice.py")
    listed, graded, left = run_batch(str(folder), str(tmp_path / "out"), workers=2, progress=False)
    assert graded == 3 and left == []
    summaries = {summary["student"]: summary for summary in listed}
    assert summaries["alice"]["exercises"]["capstone"] == [available("capstone"), available("capstone")]
    for name in ("carol", "dave"):
        assert any("ran out of memory" in error for error in summaries[name]["errors"]), summaries[name]


@pytest.mark.parametrize("inside", ["", "graded"], ids=["the folder itself", "a folder inside it"])
def test_an_output_folder_inside_the_submissions_is_refused(tmp_path, inside):
    """Issue 41's instructor trial: --out inside the submissions folder was accepted, and the next run graded its
    results/ and feedback/ as two students with 0 points. Now: exit status 2 and one sentence, nothing written."""
    folder = tmp_path / "submitted"
    folder.mkdir()
    (folder / "bob.py").write_text(STUB, encoding="utf-8")
    process = batch(folder, folder / inside if inside else folder)
    assert process.returncode == 2 and "Traceback" not in process.stderr
    assert process.stderr.strip().endswith("choose a folder outside it, or the next run grades the output as students.")
    assert sorted(os.listdir(folder)) == ["bob.py"]

"""Interrupted batch runs, with real signals at random moments: nothing half-graded is stored, and resuming
gives the same gradebook as a run that was never interrupted.

Each trial starts ``python -m grader.batch`` in its own session (so it has its own process group, as a
terminal's foreground job does), waits a random time, then sends one of: SIGINT to the whole group (what
Ctrl+C in a terminal does), SIGTERM to the batch, SIGKILL to the whole group, SIGKILL to the batch alone.
Then: every result stored is exactly the uninterrupted run's result for that student; a stopped run (not
a killed one) says how many are left and writes blank rows for them; and running the same command again
gives the uninterrupted run's gradebook, byte for byte. The seed of the random moments is printed
(``KIT_TEST_SEED`` repeats a run).
"""

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="stopping a batch is tested with POSIX signals and process groups read from /proc"),
              pytest.mark.slow]  # whole batches interrupted at random moments, then resumed

SEED = int(os.environ.get("KIT_TEST_SEED", random.SystemRandom().randrange(10 ** 6)))
SEED_SAMPLE = os.path.join(ROOT, "tests", "golden", "seed_sample", "submission.py")
BASE = os.path.join(ROOT, "tests", "faulty", "base.py")
TRIALS = [("SIGINT to the process group", signal.SIGINT, True), ("SIGTERM to the batch", signal.SIGTERM, False),
          ("kill -9 of the process group", signal.SIGKILL, True), ("kill -9 of the batch alone", signal.SIGKILL, False)]


def class_folder(folder):
    """Eight students: correct, faulty, the seed's sample, a notebook, a slow-ish one, one with nothing."""
    from faulty.faults import FAULTS

    base = open(BASE, encoding="utf-8").read()
    folder.mkdir()
    # Faults whose score cannot depend on the machine's load (an unbounded retry loop meets the case timeout
    # sooner on a busy machine, so its score varies between runs: not a fault to compare runs with).
    chosen = [f for f in FAULTS if f.name in ("dispatch_unchecked", "silent_failure", "first_violation_only")]
    for number, fault in enumerate(chosen):
        text = base
        for old, new in fault.edits:
            text = text.replace(old, new)
        (folder / f"faulty{number}.py").write_text(text, encoding="utf-8")
    shutil.copy(BASE, folder / "correct.py")
    shutil.copy(SEED_SAMPLE, folder / "seed.py")
    (folder / "nb" / "ps1").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "solutions", "notebooks", "05_capstone.ipynb"), folder / "nb" / "ps1")
    # Slower than the others, far inside every time limit: widens the window a signal can hit.
    (folder / "slow.py").write_text(base.replace("def handle_tool_call(raw, ask_model):",
                                                 "import time\n\n\ndef handle_tool_call(raw, ask_model):\n"
                                                 "    time.sleep(0.01)", 1), encoding="utf-8")
    (folder / "empty").mkdir()
    (folder / "empty" / "notes.txt").write_text("no code")
    return folder


def start_batch(submissions, out, tmp):
    env = {**os.environ, "TMPDIR": str(tmp)}  # the graders' scratch folders stay in this test's folder
    # One assignment seed for every run: the interrupted and the uninterrupted batch draw the same inputs.
    return subprocess.Popen([sys.executable, "-m", "grader.batch", str(submissions), "--out", str(out), "--workers",
                             "2", "--no-progress", "--assignment-seed", "interrupt-trials"], cwd=ROOT, env=env,
                            start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process, timeout=300):
    stdout, stderr = process.communicate(timeout=timeout)
    return process.returncode, stdout, stderr


def stored_results(out):
    folder = out / "results"
    if not folder.exists():
        return {}
    return {name: json.loads((folder / name).read_text(encoding="utf-8")) for name in os.listdir(folder)
            if name.endswith(".json")}


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    """The uninterrupted run: its gradebook, stored results and how long it took."""
    tmp = tmp_path_factory.mktemp("baseline")
    submissions = class_folder(tmp / "submitted")
    started = time.monotonic()
    code, stdout, stderr = finish(start_batch(submissions, tmp / "out", tmp))
    assert code == 0, stderr
    return {"submissions": submissions, "seconds": time.monotonic() - started, "results": stored_results(tmp / "out"),
            "gradebook": (tmp / "out" / "gradebook.csv").read_text(encoding="utf-8"),
            "canvas": (tmp / "out" / "canvas.csv").read_text(encoding="utf-8")}


@pytest.mark.parametrize("trial", range(len(TRIALS)), ids=[t[0] for t in TRIALS])
def test_a_signal_at_a_random_moment_then_resume_gives_the_uninterrupted_gradebook(baseline, tmp_path, trial):
    name, number, whole_group = TRIALS[trial]
    moment = random.Random(SEED * 10 + trial).uniform(0.3, baseline["seconds"] * 0.9)
    print(f"{name} after {moment:.2f} s (KIT_TEST_SEED={SEED}; the uninterrupted run took {baseline['seconds']:.1f} s)")
    submissions = tmp_path / "submitted"
    shutil.copytree(baseline["submissions"], submissions, symlinks=True)
    out = tmp_path / "out"
    process = start_batch(submissions, out, tmp_path)
    time.sleep(moment)
    sent = time.monotonic()
    (os.killpg if whole_group else os.kill)(process.pid, number)
    code, stdout, stderr = finish(process)
    print(f"it ended {time.monotonic() - sent:.2f} s after the signal, with status {code}")
    assert "Traceback" not in stderr, stderr
    if number != signal.SIGKILL and code != 0:  # 0: it had finished before the signal came
        assert code == 128 + number, stderr
        assert "Run the same command again to grade them" in stdout and " left, with blank rows" in stdout
        rows = (out / "gradebook.csv").read_text(encoding="utf-8").splitlines()
        expected = baseline["gradebook"].splitlines()
        assert len(rows) == len(expected)
        for row, full in zip(rows, expected):
            assert row == full or ",,," in row and "not graded yet: the run was stopped" in row, row
    if number == signal.SIGKILL and not whole_group:
        # The batch's grader processes outlive it for at most the student in hand; wait for them.
        deadline = time.monotonic() + 120
        while group_alive(process.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not group_alive(process.pid), "grader processes were left running"
    # Whatever is stored is complete and right: exactly what the uninterrupted run stored for that student.
    for name_, summary in stored_results(out).items():
        assert summary == baseline["results"][name_], name_
    resumed_code, resumed, resumed_err = finish(start_batch(submissions, out, tmp_path))
    assert resumed_code == 0, resumed_err
    assert (out / "gradebook.csv").read_text(encoding="utf-8") == baseline["gradebook"]
    assert (out / "canvas.csv").read_text(encoding="utf-8") == baseline["canvas"]
    assert stored_results(out) == baseline["results"]
    assert not [n for n in os.listdir(out / "results") if n.endswith(".tmp")]


def test_a_signal_after_the_batch_finished_does_not_turn_its_status_into_a_kill(tmp_path):
    """The batch restored the default handlers when its run ended, so a SIGTERM while the finished process was
    exiting killed it (status -15 where the run had completed: a random moment of the trials above hit it)."""
    submissions = tmp_path / "submitted"
    (submissions / "empty").mkdir(parents=True)
    (submissions / "empty" / "notes.txt").write_text("no code")
    code = ("import os, signal, sys, time\n"
            "from grader.classroom.batch import main\n"
            "status = main(sys.argv[1:])\n"
            "os.kill(os.getpid(), signal.SIGTERM)  # as if it came while the process exits\n"
            "time.sleep(0.2)\n"
            "sys.exit(status)\n")
    process = subprocess.run([sys.executable, "-c", code, str(submissions), "--out", str(tmp_path / "out"),
                              "--workers", "1", "--no-progress"], cwd=ROOT, capture_output=True, text=True,
                             timeout=120)
    assert process.returncode == 0, process.stderr
    assert "Graded 1 student" in process.stdout
    assert (tmp_path / "out" / "gradebook.csv").exists()

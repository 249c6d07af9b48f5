"""Issue 25: grades measure the work, not the machine. The same class is batch-graded on an idle machine and on a
saturated one (three CPU-bound processes per core, memory touched, a writer calling fsync, and the batch's own two
grader processes), with one assignment seed, and every student's score on every exercise must be the same.

The class: the golden examples, the faulty library (every capstone fault, the first fault of each step exercise), the
hostile fixtures that end in a limit (endless loops at import and in a case, a case that hangs every other time, a
sleeper, a halt swallowed, a flood, an allocation) and a correct notebook that prints 400,000 lines while loading (the
trial's notebook that scored 121 and 0 on two runs). Before issue 25 the load limit was decided by the wall clock
alone: at a load of 18-20, 3 to 5 of 15 gradings of a correct file scored 0 (``shared/cases/load_grades.md``).

Only processes this test starts are signalled, each in a session of its own, and each is waited for with a timeout.
"""

import csv
import glob
import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from faulty.faults import FAULTS
from faulty.step_faults import BASES, STEP_FAULTS
from test_faulty_library import apply_edits

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the load is made with Linux processes")]

HOSTILE = ["loop_at_import.py", "hangs_on_every_other_case.py", "prints_flood.py", "sleeps.py", "swallows_the_halt.py",
           "loop_in_handler.py", "allocates.py"]
SPIN = "while True: pass"
TOUCH = "b = bytearray(512 << 20)\nwhile True:\n    for i in range(0, len(b), 4096): b[i] = (b[i] + 1) & 255\n"
FSYNC = ("import os, sys\nf = open(sys.argv[1], 'wb')\nwhile True:\n"
         "    f.write(os.urandom(1 << 20)); f.flush(); os.fsync(f.fileno()); f.seek(0)\n")


def write_class(folder):
    """One file per student (str names): the goldens, the faulty library's entries, hostile fixtures, the printer."""
    folder.mkdir()
    base = open(os.path.join(ROOT, "tests", "faulty", "base.py"), encoding="utf-8").read()
    for fault in FAULTS:
        (folder / f"capstone_{fault.name}.py").write_text(apply_edits(fault, base), encoding="utf-8")
    for exercise in BASES:
        fault = next(f for f in STEP_FAULTS if f.exercise == exercise)
        (folder / f"{exercise}_{fault.name}.py").write_text(apply_edits(fault, BASES[exercise]), encoding="utf-8")
    for path in glob.glob(os.path.join(ROOT, "tests", "golden", "*", "submission.*")):
        name = os.path.basename(os.path.dirname(path))
        shutil.copy(path, folder / f"golden_{name}{os.path.splitext(path)[1]}")
    for name in HOSTILE:
        shutil.copy(os.path.join(ROOT, "tests", "hostile", name), folder / f"hostile_{name}")
    (folder / "prints_while_loading.py").write_text(
        "for step in range(400_000):\n    print('loading step', step)\n" + base, encoding="utf-8")


def gradebook(folder, out):
    """``{student: {exercise: score}}`` of the class batch-graded into ``out`` (two grader processes)."""
    process = subprocess.run([sys.executable, "-m", "grader.batch", str(folder), "--out", str(out), "--workers", "2",
                              "--no-progress", "--notebooks", "all", "--assignment-seed", "the-load-test"],
                             cwd=ROOT, capture_output=True, text=True, timeout=1500)
    assert process.returncode == 0, process.stderr[-2000:]
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    ignored = {"student", "notes", "grader", "files", "graded_at"}
    return {row["student"]: {key: value for key, value in row.items() if key not in ignored} for row in rows}


def test_a_class_gets_the_same_grades_on_an_idle_and_on_a_saturated_machine(tmp_path):
    folder = tmp_path / "class"
    write_class(folder)
    idle = gradebook(folder, tmp_path / "idle")
    assert len(idle) == len(os.listdir(folder)) > len(FAULTS) + len(BASES) + len(HOSTILE)
    load = [[sys.executable, "-c", SPIN]] * (3 * (os.cpu_count() or 2))
    load += [[sys.executable, "-c", TOUCH], [sys.executable, "-c", FSYNC, str(tmp_path / "fsync.bin")]]
    started = time.monotonic()
    hogs = [subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for command in load]
    try:
        time.sleep(1)
        busy = gradebook(folder, tmp_path / "busy")
        load_average = os.getloadavg()[0]
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait(timeout=30)
    differing = {student: (idle[student], busy.get(student)) for student in idle if busy.get(student) != idle[student]}
    assert not differing, differing
    # The load was real: the run average of the last minute counts every hog and the graders.
    assert load_average > (os.cpu_count() or 2), (load_average, time.monotonic() - started)

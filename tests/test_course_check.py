"""The course check: every stub fails, every solution passes, every exercise has hint, cases and points."""

import subprocess
import sys

from conftest import ROOT
from grader.exercises import EXERCISES


def test_course_check_passes():
    process = subprocess.run([sys.executable, "-m", "course.check"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert process.returncode == 0, process.stdout + process.stderr
    assert process.stdout.rstrip().endswith("course check passed")
    assert process.stdout.count("  ok   ") == 6 * len(EXERCISES)
    assert "FAIL" not in process.stdout

"""How fast is grading? Prints figures and ratios; asserts nothing (speed is measured here, never in a test).

Measured, each as the median of ``--runs`` whole-process runs after one warm-up:
  1. grading one well-behaved submission with every case (``python -m grader tests/faulty/base.py``);
  2. grading the solved capstone notebook (every case of its exercise);
  3. executing that same solved notebook with nbclient, which is what nbgrader and otter-grader do for
     every submission, each run alternating with one of (2), and the ratio of (3) to (2);
  4. with ``--baseline REV``: (1), (1) on the portable transport and (2) again on a git worktree of REV, each
     alternating with this tree's (so that both see the same load on a shared machine), and the ratios
     now/baseline;
  4b. (1) on the portable worker transport (``KIT_PORTABLE_WORKER=1``, Windows' path), alternating with the
     default transport, and the ratio;
  5. where the time goes: interpreter start, imports (the command line, pytest, nbformat), the rest;
     and, in one warm process, pytest's own work against the cases' (their bodies skipped or not).

Usage: ``python -m benchmarks.grading_speed [--runs 5] [--baseline REV]`` from the kit's folder.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from grader.paths import KIT_ROOT as ROOT

BASE = os.path.join("tests", "faulty", "base.py")
SOLVED = os.path.join("solutions", "notebooks", "05_capstone.ipynb")
# Python's defaults, as an instructor's machine has them: bytecode caches are written on the warm-up
# run and read afterwards (a shell that sets PYTHONDONTWRITEBYTECODE would measure compiling instead).
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def median_seconds(command, cwd, runs, env=None):
    """Median wall-clock seconds of ``command`` over ``runs`` runs after one warm-up (list of floats too).

    ``env``: variables to set on top of ``ENV`` (dict) or None.
    """
    env = {**ENV, **(env or {})}
    subprocess.run(command, cwd=cwd, capture_output=True, env=env)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        process = subprocess.run(command, cwd=cwd, capture_output=True, env=env)
        times.append(time.perf_counter() - started)
        if process.returncode not in (0,):
            raise SystemExit(f"benchmark command failed ({process.returncode}): {' '.join(command)}\n{process.stderr.decode()[-500:]}")
    return statistics.median(times), times


def interleaved_medians(commands, runs, env=None):
    """Like ``median_seconds`` for several ``(command, cwd)`` or ``(command, cwd, extra_env)`` at once, run
    alternately: one run of each in turn, so that a change of load on a shared machine touches all of them alike.
    Returns a list of (median, times)."""
    commands = [(command, cwd, {**ENV, **(env or {}), **(rest[0] if rest else {})})
                for command, cwd, *rest in commands]
    for command, cwd, variables in commands:
        subprocess.run(command, cwd=cwd, capture_output=True, env=variables)
    times = [[] for _ in commands]
    for _ in range(runs):
        for index, (command, cwd, variables) in enumerate(commands):
            started = time.perf_counter()
            process = subprocess.run(command, cwd=cwd, capture_output=True, env=variables)
            times[index].append(time.perf_counter() - started)
            if process.returncode != 0:
                raise SystemExit(f"benchmark command failed ({process.returncode}) in {cwd}: {' '.join(command)}\n"
                                 f"{process.stderr.decode()[-500:]}")
    return [(statistics.median(t), t) for t in times]


WARM_PROCESS = """
import statistics, sys, time
import pytest
import grader.pipeline

class SkipBodies:
    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        return True  # the case body is not run: what is left is pytest's and the grader's own work

def median(runs):
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        grader.pipeline.grade(BASE)
        times.append(time.perf_counter() - started)
    return statistics.median(times)

BASE, runs = sys.argv[1], int(sys.argv[2])
grader.pipeline.grade(BASE)
whole = median(runs)
main = pytest.main
pytest.main = lambda args, plugins=(): main(args, plugins=[*plugins, SkipBodies()])
print(whole, median(runs))
"""


def warm_process_figures(runs):
    """In one process that has graded once already: median seconds to grade base.py, and the same with
    every case body skipped (pytest's and the grader's own work per run). Returns (float, float)."""
    process = subprocess.run([sys.executable, "-c", WARM_PROCESS, BASE, str(runs)], cwd=ROOT, capture_output=True,
                             text=True, env=ENV, check=True)
    whole, skipped = process.stdout.split()
    return float(whole), float(skipped)


def nbclient_command(path):
    """A command that executes a notebook with nbclient, as nbgrader's and otter's graders do."""
    code = ("import nbformat, os\nfrom nbclient import NotebookClient\n"
            f"nb = nbformat.read({path!r}, as_version=4)\n"
            f"NotebookClient(nb, timeout=600, kernel_name='python3', resources={{'metadata': {{'path': os.path.dirname({path!r})}}}}).execute()\n")
    return [sys.executable, "-c", code]


def line(label, seconds, times=None):
    spread = f"  (min {min(times):.3f}, max {max(times):.3f})" if times else ""
    print(f"  {label:<58} {seconds:7.3f} s{spread}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="counted runs per figure (default 5)")
    parser.add_argument("--baseline", metavar="REV", help="also time grading at this git revision, for a ratio")
    args = parser.parse_args()
    grade = [sys.executable, "-m", "grader", BASE]
    grade_solved = [sys.executable, "-m", "grader", SOLVED]
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; medians of {args.runs} runs after a warm-up")

    print("Grading one submission (every case):")
    one, one_times = median_seconds(grade, ROOT, args.runs)
    line("python -m grader tests/faulty/base.py", one, one_times)
    # Alternately, so that a change of load on a shared machine touches both sides of the ratio alike.
    (solved, solved_times), (executed, executed_times) = interleaved_medians(
        [(grade_solved, ROOT), (nbclient_command(SOLVED), ROOT)], args.runs)
    line("python -m grader solutions/notebooks/05_capstone.ipynb", solved, solved_times)
    line("nbclient executing the same notebook (alternating)", executed, executed_times)
    print(f"  ratio nbclient execution / grading the notebook: {executed / solved:.1f}x")

    print("Where the time goes:")
    start, _ = median_seconds([sys.executable, "-c", "pass"], ROOT, args.runs)
    cli, _ = median_seconds([sys.executable, "-c", "import grader.classroom.cli"], ROOT, args.runs)
    imports, _ = median_seconds([sys.executable, "-c", "import grader.classroom.cli, grader.pipeline; grader.judging.case_runner.import_pytest()"],
                                ROOT, args.runs)
    reading, _ = median_seconds([sys.executable, "-c", f"import grader.classroom.cli, grader.intake.extract; grader.intake.extract.extract({SOLVED!r})"],
                                ROOT, args.runs, env={"NBFORMAT_VALIDATOR": "jsonschema"})
    line("interpreter start", start)
    line("importing the grader's command line", cli - start)
    line("importing pytest and the grading plugin", imports - cli)
    line("importing nbformat, reading the notebook (in a forked reader, meanwhile)", reading - cli)
    line("base.py: worker, pytest collection, every case (the rest)", one - imports)
    warm, skipped = warm_process_figures(args.runs)
    line("in one warm process: grading base.py", warm)
    line("  of which pytest and bookkeeping (every case body skipped)", skipped)
    line("  of which the case bodies (round trips to the worker, learner code)", warm - skipped)

    (default, default_times), (portable, portable_times) = interleaved_medians(
        [(grade, ROOT, {"KIT_PORTABLE_WORKER": "0"}), (grade, ROOT, {"KIT_PORTABLE_WORKER": "1"})], args.runs)
    print("Worker transports (each run alternating with one of the other):")
    line("python -m grader tests/faulty/base.py, default (POSIX) transport", default, default_times)
    line("python -m grader tests/faulty/base.py, KIT_PORTABLE_WORKER=1", portable, portable_times)
    print(f"  ratio portable / default: {portable / default:.2f}")

    if args.baseline:
        folder = tempfile.mkdtemp(prefix="kit-baseline-")
        try:
            subprocess.run(["git", "worktree", "add", "--detach", folder, args.baseline], cwd=ROOT, check=True,
                           capture_output=True)
            (now, now_times), (base, base_times) = interleaved_medians([(grade, ROOT), (grade, folder)], args.runs)
            print(f"Baseline {args.baseline} (each run alternating with one of this tree):")
            line("python -m grader tests/faulty/base.py, this tree", now, now_times)
            line("python -m grader tests/faulty/base.py, baseline", base, base_times)
            print(f"  ratio now / baseline: {now / base:.2f}")
            portable = {"KIT_PORTABLE_WORKER": "1"}
            (now, now_times), (base, base_times) = interleaved_medians(
                [(grade, ROOT, portable), (grade, folder, portable)], args.runs)
            line("python -m grader tests/faulty/base.py, KIT_PORTABLE_WORKER=1, this tree", now, now_times)
            line("python -m grader tests/faulty/base.py, KIT_PORTABLE_WORKER=1, baseline", base, base_times)
            print(f"  ratio now / baseline (portable transport): {now / base:.2f}")
            if os.path.isfile(os.path.join(folder, SOLVED)):  # older revisions may keep it elsewhere
                (now, now_times), (base, base_times) = interleaved_medians(
                    [(grade_solved, ROOT), (grade_solved, folder)], args.runs)
                line("python -m grader solutions/notebooks/05_capstone.ipynb, this tree", now, now_times)
                line("python -m grader solutions/notebooks/05_capstone.ipynb, baseline", base, base_times)
                print(f"  ratio now / baseline: {now / base:.2f}")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", folder], cwd=ROOT, capture_output=True)
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

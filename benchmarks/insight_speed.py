"""How fast is the class report? Prints figures and ratios; asserts nothing.

Wall time depends on what else the machine runs, so the CPU time (the report's processes together)
is printed too, with the load average. Builds synthetic batch outputs (nothing is graded: results are written from the real cases' list with
``grader.results.formats.gradescope_results``, as the batch writes them) and times ``python -m grader.insight``
as a whole process:
  1. 500 students (``--count``), every notebook of the course each, without similarity (target < 10 s);
  2. the same with ``--submissions`` and two workers (target < 2 minutes on 2 cores);
  3. how (2) grows: the class sizes in ``--sizes`` (default 125, 250 and the count), with the ratio of
     each time to the previous one and to the pairs compared (similarity is quadratic in the class).

The class: each student has an ability; per exercise they hand in nothing (3%), the untouched stub
(3%), or code whose failed cases are one known mistake's (35%, from grader/insight/misconceptions.json)
plus cases missed at random, fewer for abler students. Their code is one of the course's solutions for
the exercise (the faulty library's compact bases, the independent styles in tests/insight/, and the
reference where it is short: a student writes 200 to 300 lines for the whole course) with a number
inserted at random spaces (a fresh mutation per student, at 10 to 50% of spaces), so most pairs share
idioms and some share a lot; 2% copy another student's notebook with a few changes.

Usage: ``python -m benchmarks.insight_speed [--count 500] [--sizes 125 250 500] [--workers 2]``.
"""

import argparse
import copy
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import nbformat

from grader.paths import FAULTY_DIR, NOTEBOOKS_DIR, SOLVED_NOTEBOOKS_DIR, TESTS_DIR
from grader.paths import KIT_ROOT as ROOT

sys.path.append(TESTS_DIR)  # the synthetic class of the kit's own tests (tests/insight_class.py; a clone only)
from insight_class import HERE, result_from, write_batch_output  # noqa: E402

from grader.insight.mistakes import load_mistakes  # noqa: E402
from grader.intake.exercises import EXERCISES  # noqa: E402

ENV = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def course_templates():
    """Per notebook: its exercises' cases, all passing (grading each solved notebook once), and its learner
    notebook: ``{notebook: (cases, learner node)}``."""
    from grader.pipeline import grade

    out = {}
    for notebook in sorted({e.notebook for e in EXERCISES}):
        solved = grade(os.path.join(SOLVED_NOTEBOOKS_DIR, notebook))
        learner = nbformat.read(os.path.join(NOTEBOOKS_DIR, notebook), as_version=4)
        out[notebook] = (solved.cases, learner)
    return out


def seed_codes():
    """Per exercise, correct solutions to mutate (``{exercise: [code, ...]}``)."""
    from faulty.step_faults import BASES

    solved = {}
    for notebook in sorted({e.notebook for e in EXERCISES}):
        node = nbformat.read(os.path.join(SOLVED_NOTEBOOKS_DIR, notebook), as_version=4)
        for cell in node.cells:
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
                solved[grade_id] = cell.source
    # A reference cell over 4,000 characters (documented helpers a student would not write) is left out.
    codes = {exercise: [code] if len(code) <= 4000 else [] for exercise, code in solved.items()}
    for exercise, code in BASES.items():
        codes[exercise].append(code)
    with open(os.path.join(FAULTY_DIR, "base.py"), encoding="utf-8") as handle:
        codes["capstone"].append(handle.read())
    for name in ("classy.py", "flat.py", "table.py"):
        with open(os.path.join(HERE, name), encoding="utf-8") as handle:
            codes["capstone"].append(handle.read())
    return codes


def mutate(code, rng, rate):
    """``code`` with a number inserted at each space with probability ``rate`` (str; need not run).

    copydetect keeps numbers as written (names all become one letter), so an inserted number breaks
    the k-grams across it: two students mutated independently share only what neither of them broke.
    """
    lines = []
    for line in code.splitlines():
        words = line.split(" ")
        lines.append(" ".join(w + (f" {rng.randrange(10**5)}" if w and rng.random() < rate else "") for w in words))
    return "\n".join(lines)


def build(folder, count, templates, seeds, seed=500):
    """Write ``count`` students' submissions and batch output into ``folder``; returns (submissions, out)."""
    rng = random.Random(seed)
    mistakes = {}
    for mistake in load_mistakes():
        mistakes.setdefault(mistake.exercise, []).append(mistake)
    submissions, out = os.path.join(folder, "submissions"), os.path.join(folder, "out")
    graded, written = {}, {}
    for number in range(count):
        student = f"student{number:04d}"
        ability = rng.random()
        graded[student] = []
        os.makedirs(os.path.join(submissions, student))
        for notebook, (cases, learner) in templates.items():
            state = rng.random()
            if state < 0.03:
                continue  # handed in nothing
            node = copy.deepcopy(learner)
            failed = set()
            for cell in node.cells:
                exercise = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
                if not cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
                    continue
                own = [c for c in cases if c.exercise_id == exercise]
                if state < 0.06:  # the untouched stub: every case fails
                    failed |= {(c.group, c.title) for c in own}
                    continue
                if rng.random() < 0.35 and mistakes.get(exercise):
                    failed |= set(rng.choice(mistakes[exercise]).cases)
                failed |= {(c.group, c.title) for c in own if rng.random() < 0.15 * (1 - ability)}
                cell.source = mutate(rng.choice(seeds[exercise]), rng, rng.uniform(0.1, 0.5))
            if written and rng.random() < 0.02:  # a copy of someone's notebook, a few lines changed
                node = copy.deepcopy(written[rng.choice(sorted(written))].get(notebook, node))
                for cell in node.cells:
                    if cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
                        cell.source = mutate(cell.source, rng, 0.05)
            written.setdefault(student, {})[notebook] = node
            with open(os.path.join(submissions, student, notebook), "w", encoding="utf-8") as handle:
                json.dump(node, handle)
            graded[student].append((notebook, result_from(cases, failed, notebook)))
    write_batch_output(out, graded)
    return submissions, out


def timed(command):
    """Run ``command``; returns (wall seconds, CPU seconds of it and its children, stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=ENV)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command[2:])} failed: {process.stderr[-800:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu, process.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--sizes", type=int, nargs="+", default=None)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    sizes = sorted(set(args.sizes or [args.count // 4, args.count // 2, args.count]))
    templates, seeds = course_templates(), seed_codes()
    folder = tempfile.mkdtemp(prefix="kit-insight-")
    try:
        print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; {len(templates)} notebooks per student, "
              f"{sum(len(c) for c, _ in templates.values())} cases")
        previous = None
        for size in sizes:
            submissions, out = build(os.path.join(folder, str(size)), size, templates, seeds)
            plain, plain_cpu, _ = timed([sys.executable, "-m", "grader.insight", out, "--report",
                                         os.path.join(folder, "plain.html")])
            full, full_cpu, log = timed([sys.executable, "-m", "grader.insight", out, "--submissions", submissions,
                                         "--workers", str(args.workers), "--report", os.path.join(folder, "full.html"),
                                         "-v"])
            pairs = next((line.split("(")[1].split(" pairs")[0] for line in log.splitlines() if " pairs, " in line), "?")
            line = (f"  {size:4d} students: {plain:5.1f} s without similarity (CPU {plain_cpu:5.1f} s); {full:6.1f} s "
                    f"with it (CPU {full_cpu:6.1f} s, {args.workers} workers, {pairs} pairs compared); "
                    f"load {os.getloadavg()[0]:.1f}")
            if previous:
                line += f"; x{size / previous[0]:.1f} students -> x{full_cpu / previous[1]:.2f} CPU time"
            print(line, flush=True)
            if "-v" in sys.argv:
                print(log, flush=True)
            previous = (size, full_cpu)
            shutil.rmtree(os.path.join(folder, str(size)), ignore_errors=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Batch grading speed: N generated submissions (correct, faulty, hostile) graded with 1 and 2 workers.

Prints wall time, seconds per submission and throughput for each worker count, and the speed-up.
Asserts nothing. Usage: ``python -m benchmarks.batch_speed [--count 500] [--workers 1 2]``.

``--compare REF`` measures before/after in one run: the same submissions are graded by the kit as it was at
git revision REF (unpacked with ``git archive`` into a temporary folder) and by this copy, alternating
``--rounds`` times so that load from elsewhere on the machine falls on both alike; each line shows the
machine's load average (1 minute) before the run, and the last line the ratio of the medians.

The mix: 40% correct (the compact base solution and the assembled reference), 40% faulty (the
faulty-solution library in rotation), 20% hostile (the fixtures in tests/hostile in rotation:
endless loops and sleeps included, graded with the default time limits).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from course.assemble import seed_form
from course.misconceptions import faulty_module
from grader.paths import FAULTY_DIR, TESTS_DIR
from grader.paths import KIT_ROOT as ROOT

FAULTS = faulty_module("faults").FAULTS


def faulty_source(fault, base):
    for old, new in fault.edits:
        base = base.replace(old, new)
    return base


def generate(folder, count):
    """Write ``count`` submissions into ``folder``; returns how many of each kind."""
    with open(os.path.join(FAULTY_DIR, "base.py"), encoding="utf-8") as handle:
        base = handle.read()
    correct = [base, seed_form()]
    hostile_dir = os.path.join(TESTS_DIR, "hostile")
    hostile = sorted(os.listdir(hostile_dir))
    kinds = {"correct": 0, "faulty": 0, "hostile": 0}
    for number in range(count):
        slot = number % 10
        if slot < 4:
            kind, name, text = "correct", f"s{number:04d}.py", correct[number % len(correct)]
        elif slot < 8:
            fault = FAULTS[number % len(FAULTS)]
            kind, name, text = "faulty", f"s{number:04d}.py", faulty_source(fault, base)
        else:
            fixture = hostile[number % len(hostile)]
            kind, name = "hostile", f"s{number:04d}{os.path.splitext(fixture)[1]}"
            with open(os.path.join(hostile_dir, fixture), encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        kinds[kind] += 1
        with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
            handle.write(text)
    return kinds


def timed_batch(kit, submissions, out, workers, cpu=None):
    """Grade ``submissions`` with the kit in folder ``kit``; returns wall seconds (float).

    ``cpu``, a list, gets the CPU seconds (user + system) the batch and all its processes used: less sensitive
    than wall time to other work on a shared machine.
    """
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.run([sys.executable, "-m", "grader.batch", submissions, "--out", out, "--workers",
                              str(workers), "--no-progress"], cwd=kit, capture_output=True, text=True)
    if process.returncode != 0:
        raise SystemExit(f"batch failed in {kit}: {process.stderr[-500:]}")
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if cpu is not None:
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return elapsed


def compare(ref, submissions, folder, workers, rounds, count):
    """Time the kit at git revision ``ref`` against this copy on the same submissions, alternating."""
    before = os.path.join(folder, "before")
    os.makedirs(before)
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", before], input=archive, check=True)
    timings = {"before": [], "after": []}
    cpu = {"before": [], "after": []}
    for number in range(rounds):
        for name, kit in (("before", before), ("after", ROOT)):
            load = os.getloadavg()[0]
            elapsed = timed_batch(kit, submissions, os.path.join(folder, f"out-{name}-{number}"), workers, cpu[name])
            timings[name].append(elapsed)
            print(f"  {name:6} ({ref if name == 'before' else 'this copy'}), round {number + 1}: {elapsed:7.1f} s wall, "
                  f"{elapsed / count:.3f} s per submission, {cpu[name][-1]:.1f} s CPU; load average before the run "
                  f"{load:.2f}")
    for label, values in (("wall", timings), ("CPU", cpu)):
        medians = {name: statistics.median(v) for name, v in values.items()}
        print(f"  median {label}: before {medians['before']:.1f} s, after {medians['after']:.1f} s: after/before = "
              f"{medians['after'] / medians['before']:.3f} ({workers} workers, {os.cpu_count()} CPUs)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--compare", metavar="REF", help="also time the kit at this git revision, alternating")
    parser.add_argument("--rounds", type=int, default=2, help="with --compare: runs of each (default: 2)")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="kit-batch-")
    try:
        submissions = os.path.join(folder, "submissions")
        os.makedirs(submissions)
        kinds = generate(submissions, args.count)
        print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; {args.count} submissions: "
              + ", ".join(f"{n} {k}" for k, n in kinds.items()))
        if args.compare:
            compare(args.compare, submissions, folder, max(args.workers), args.rounds, args.count)
            return
        timings = {}
        for workers in args.workers:
            elapsed = timed_batch(ROOT, submissions, os.path.join(folder, f"out-{workers}"), workers)
            timings[workers] = elapsed
            print(f"  {workers} worker(s): {elapsed:7.1f} s wall, {elapsed / args.count:.3f} s per submission, "
                  f"{args.count / elapsed:.2f} submissions/s")
        if len(timings) > 1:
            first, last = min(timings), max(timings)
            print(f"  speed-up {last} vs {first} worker(s): {timings[first] / timings[last]:.2f}x")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Hostile and broken submissions (tests/hostile/): each gets zero, a one-sentence reason, and leaves nothing behind.

Every fixture is graded as a user would (``python -m grader``) with short limits. For each one the
grader must finish within its bound, write a valid results.json, score it 0, say what happened in
a sentence the learner understands, print no traceback of its own, and leave no process or
scratch folder behind.
"""

import glob
import json
import os
import re
import subprocess
import sys
import time

import pytest

from conftest import ROOT, run_grader

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="the fixtures' expected sentences and the leftover-process check (/proc) are Linux's"),
              pytest.mark.slow]  # 37 fixtures, most of them stopped by their timeouts by design (about 35 s)

HOSTILE = os.path.join(ROOT, "tests", "hostile")
OPTIONS = ("--case-timeout", "1", "--load-timeout", "2", "--memory-mb", "512")

# Where the kernel has Landlock (grader.isolation.kernel_rules), some attacks are refused by it before the guard sees them:
# the worker cannot even read /proc or open "/".
KERNEL = r"|Permission denied: '/(proc/\d+/cwd)?'"

# fixture -> (pattern the report or results.json must contain, seconds allowed, expected exit status)
EXPECTED = {
    "exit_at_import.py": (r"called sys\.exit\(3\) while loading", 30, 0),
    "os_exit_at_import.py": (r"While loading, the submission exited with status 4\.", 30, 0),
    "systemexit_in_handler.py": (r"called sys\.exit\(0\) instead of returning", 30, 0),
    "loop_at_import.py": (r"While loading, the submission timed out after 2 s", 30, 0),
    "loop_in_handler.py": (r"timed out on 2 cases in a row", 40, 0),
    "sleeps.py": (r"timed out on 2 cases in a row", 40, 0),
    "segfault.py": (r"crashed with a segmentation fault", 40, 0),
    "keyboard_interrupt.py": (r"raised KeyboardInterrupt", 30, 0),
    "recursion.py": (r"RecursionError|segmentation fault|timed out", 60, 0),
    "prints_flood.py": (r"printed more than 8 MB in one case", 60, 0),
    "allocates.py": (r"ran out of memory", 30, 0),
    "buries_inputs_deep.py": (r"the grader does not allow more than 8 files in the scratch folder", 60, 0),
    "forks_and_daemonises.py": (r"the grader does not allow (subprocess\.Popen|importing _posixsubprocess)", 30, 0),
    "patches_the_channel.py": (r"the grader does not allow gc\.get_objects", 30, 0),
    "lying_objects.py": (r"an object of a class that is not one of Python's built-in types", 30, 0),
    "writes_results.py": (r"could not write /tmp/results\.json PermissionError", 30, 0),
    "edits_the_grader.py": (r"could not edit grader/judging/pytest_plugin\.py PermissionError" + KERNEL, 30, 0),
    "imports_reference.py": (r"the grader does not allow (reading|listing) the kit's own files|No module named 'solutions'"
                             + KERNEL, 30, 0),
    "kills_the_grader.py": (r"the grader does not allow os\.kill", 30, 0),
    "garbage_in_the_channel.py": (r"wrote garbage into the grader's channel", 30, 0),
    "hostile_text.py": (r"raised ValueError: bad", 30, 0),
    "string_metadata.ipynb": (r"behaves like the stub", 30, 0),
    "games_the_canary.py": (r"Not counted: it checks that a bad input is refused", 30, 0),
    "plants_bytecode.py": (r"the grader does not allow opening a folder outside the scratch folder", 30, 0),
    "spawns_without_audit.py": (r"imported _posixsubprocess\s+could not spawn PermissionError the grader does not allow "
                                r"starting processes", 30, 0),
    "signals_without_audit.py": (r"could not pidfd AttributeError", 30, 0),
    "replaces_output_file.py": (r"could not AttributeError|still here", 30, 0),
    "deep_garbage_in_the_channel.py": (r"wrote garbage into the grader's channel", 30, 0),
    "not_json.ipynb": (r"is not a readable Jupyter notebook", 30, 2),
    "disarms_the_guard.py": (r"could not rewire _refuse the grader does not allow changing a function's __code__", 30, 0),
    # Every other call hangs; a canary run between two cases takes a call that does not, so those two cases time
    # out in a row (canaries are no cases: they neither break nor extend a streak). Either stop is bounded.
    "hangs_on_every_other_case.py": (r"timed out on (6 cases|2 cases in a row), so the remaining cases were skipped", 40, 0),
    "imports_under_another_name.py": (r"failed PermissionError the grader does not allow importing x\._posixsubprocess", 30, 0),
    "imports_by_a_lying_name.py": (r"a lying name failed PermissionError the grader does not allow importing a module by "
                                   r"a name or file that is not a plain string(.|\n)*a str-subclass origin failed "
                                   r"PermissionError(.|\n)*a bytes origin failed PermissionError", 30, 0),
    "imports_with_a_nul_in_its_name.py": (r"failed PermissionError the grader does not allow importing _posixsubprocess", 30, 0),
    "rewires_realpath.py": (r"chmod solutions 0777 refused: the grader does not allow os\.chmod outside the scratch folder"
                            r"(.|\n)*renice grader refused", 30, 0),
    "echoes_hidden_inputs.py": (r"what it prints during a hidden case is not shown(.|\n)*raised an exception \(in a "
                                r"hidden case, which one, its message and its line are not shown\)", 30, 0),
    "recognises_the_canary_registry.py": (r"Not counted: it checks that a bad input is refused", 30, 0),
    "echoes_inputs_as_keys.py": (r"it lacks type, tool_use_id, content, is_error\.", 30, 0),
    "swallows_the_halt.py": (r"kept calling ask_model/dispatch after the grader stopped the call", 30, 0),
    "reads_other_processes.py": (r"grader memory refused PermissionError the grader does not allow reading another "
                                 r"process's files in /proc(.|\n)*grader through self refused PermissionError(.|\n)*"
                                 r"other processes read: 0", 30, 0),
    # Tcl: a Python built without it has no _tkinter at all.
    "loads_native_code.py": (r"a shared object in scratch refused PermissionError the grader does not allow importing "
                             r"_?\w+(.|\n)*a renamed test module refused (PermissionError|AttributeError)(.|\n)*a subinterpreter "
                             r"refused PermissionError(.|\n)*Tcl refused (PermissionError|ModuleNotFoundError)"
                             r"(.|\n)*native code loaded: 0", 30, 0),
}


def worker_processes(marker):
    """PIDs of processes whose command line holds ``marker`` (this test's temporary folder, where the
    grader puts its workers' scratch folders) or is `sleep 300`. Scoping by folder keeps other graders
    running on the same machine out of the count."""
    found = set()
    for path in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(path, "rb") as handle:
                command = handle.read().replace(b"\0", b" ")
        except OSError:
            continue
        if marker.encode() in command or command.strip() == b"sleep 300":
            found.add(path.split("/")[2])
    return found


def test_every_fixture_has_an_expectation():
    assert sorted(EXPECTED) == sorted(os.listdir(HOSTILE))


def git_status_of_the_grader():
    """``git status --porcelain grader`` (str): what changed in the grader's folder, as git sees it."""
    return subprocess.run(["git", "status", "--porcelain", "grader"], cwd=ROOT, capture_output=True, text=True).stdout


def grade_hostile(folder, name, env=None):
    """Grade the fixture ``name`` as a user would, with its own TMPDIR in ``folder`` (a new path-like folder).

    Returns:
        dict: ``process`` and ``results`` (``run_grader``'s), ``elapsed`` (s), ``before`` and ``after`` (the
        processes of this grading found before it started and after it ended, ``worker_processes``).
    """
    _, seconds, _ = EXPECTED[name]
    temporary = folder / "tmp"  # the grader's TMPDIR: its scratch folders, and nobody else's, go here
    temporary.mkdir(parents=True)
    before = worker_processes(str(temporary))
    started = time.monotonic()
    process, results = run_grader(os.path.join(HOSTILE, name), *OPTIONS, results=folder / "results.json",
                                  timeout=seconds + 60, env={"TMPDIR": str(temporary), **(env or {})})
    elapsed = time.monotonic() - started
    return {"process": process, "results": results, "elapsed": elapsed, "before": before,
            "after": worker_processes(str(temporary)), "scratch": os.listdir(temporary)}


def grade_every_fixture(folder, env=None, workers=2):
    """Every fixture graded by ``grade_hostile``, ``workers`` at a time (most of their time is their timeouts,
    by design: graded one after another they took 51 s of the suite, mostly waiting). Two, not more: the limits
    are wall-clock ones, and with four at a time beside the suite's other process, loading a submission on the
    portable transport passed its 2 s.

    Returns:
        ``(records, changed)``: fixture name -> ``grade_hostile``'s dict, and whether the grader's files changed
        while they were graded (bool).
    """
    from concurrent.futures import ThreadPoolExecutor

    grader_before = git_status_of_the_grader()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {name: pool.submit(grade_hostile, folder / name, name, env) for name in sorted(EXPECTED)}
        records = {name: future.result() for name, future in futures.items()}
    return records, git_status_of_the_grader() != grader_before


@pytest.fixture(scope="module")
def graded_fixtures(tmp_path_factory):
    """Every fixture graded once for this file's tests, two at a time (``grade_every_fixture``)."""
    return grade_every_fixture(tmp_path_factory.mktemp("hostile"))


def check_hostile(name, record, grader_changed):
    """Every promise this file's docstring makes about the fixture ``name``, asserted on its ``record``
    (``grade_hostile``'s dict); ``grader_changed``: whether the grader's files changed meanwhile (bool)."""
    pattern, seconds, status = EXPECTED[name]
    process, results = record["process"], record["results"]
    # A bound on the wall clock, stretched by the machine's load per core (at least 1): the suite runs the saturated
    # class of tests/test_load.py beside these, and a clean CI run saw allocates.py take 40.8 s for its 30 s there
    # (issue 25: the wall clock judges the machine). What it guards is that grading ends, which any stretch keeps.
    load = max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1)) if hasattr(os, "getloadavg") else 1.0
    assert record["elapsed"] < seconds * load, f"grading took {record['elapsed']:.1f} s (load per core {load:.1f})"
    assert process.returncode == status, process.stderr
    assert "Traceback" not in process.stdout + process.stderr
    assert results is not None and results["tests"]
    # A visible case's input is public: special-casing it earns that one visible point and nothing else.
    allowed = 1 if name == "games_the_canary.py" else 0
    assert results["score"] <= allowed
    assert sum(t["score"] for t in results["tests"] if "hidden" in t["tags"]) == 0
    everything = process.stdout + process.stderr + json.dumps(results, ensure_ascii=False)
    assert re.search(pattern, everything), f"expected /{pattern}/ in the report, which begins:\n{process.stdout[:1200]}"
    assert "\x1b" not in process.stdout and len(process.stdout) < 300_000
    hidden_outputs = " ".join(t["output"] for t in results["tests"] if "hidden" in t["tags"])
    # Nothing echoed from a hidden case, nor the name of a class made of its input.
    assert "ECHO" not in hidden_outputs and "INPUT" not in hidden_outputs and "Echo_" not in hidden_outputs
    assert record["after"] <= record["before"], "a process was left behind"
    assert record["scratch"] == [], "a scratch folder was left behind"
    assert not grader_changed, "the grader's files changed"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hostile_submission(graded_fixtures, name):
    records, grader_changed = graded_fixtures
    check_hostile(name, records[name], grader_changed)

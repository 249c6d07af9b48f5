"""The portable worker transport (Windows' path), exercised on Linux with ``KIT_PORTABLE_WORKER=1``.

The golden examples, the faulty library and the hostile fixtures are graded with the switch forced and must
score exactly as on the default path, leaving no process behind. Unit tests simulate what Windows and macOS lack
(``os.killpg``, ``os.pread``, ``resource``) by removing it for the test, and check the report's one note about
missing protections.
"""

import json
import os
import subprocess
import sys
import time

import pytest

import test_hostile as hostile
from conftest import ROOT, run_grader
from faulty.faults import FAULTS
from graded import LIBRARY_DRAW
from grader.isolation import kernel_rules
from grader.isolation import protections as protections_module
from grader.judging.harness import Responder, Transcript
from grader.judging.scripted_models import NeverCorrects
from grader.isolation.limits import Limits
from grader.isolation.processes import kill_tree_portable
from grader.isolation.protections import protection_note, protections
from grader.isolation.sandbox import Sandbox
from grader.isolation.transport_portable import portable_worker
from test_faulty_library import apply_edits
from test_golden import GOLDEN, SUBMISSIONS, reference_submission

psutil = pytest.importorskip("psutil", reason="the portable transport kills process trees with psutil")
PORTABLE = {"KIT_PORTABLE_WORKER": "1"}
ASK = {"__kit__": "ask_model"}
# The report's note on the portable transport, with or without the kernel's rules (it names what holds in part).
PORTABLE_NOTE = "memory limit, output limit and process-tree cleanup"

pytestmark = pytest.mark.slow  # the faulty library and the hostile fixtures again, on the other transport (their timeouts by design)


def scores(results):
    """What must not depend on the transport: the total and each case's name, score and status."""
    return results["score"], [(t["name"], t["score"], t["status"]) for t in results["tests"]]


def differing(results, expected):
    """The cases whose score or status differ between two results files (list of (name, expected status, status,
    output)): what a failed comparison prints, so a case lost once in CI is named."""
    before = {t["name"]: t for t in expected["tests"]}
    return [(t["name"], before.get(t["name"], {}).get("status"), t["status"], (t.get("output") or "")[:400])
            for t in results["tests"]
            if (t["score"], t["status"]) != (before.get(t["name"], {}).get("score"), before.get(t["name"], {}).get("status"))]


def grade_with(submission, env, tmp_path, name, status=0):
    """Grade ``submission`` with ``env`` set (a fresh TMPDIR: the grader's scratch folders go there);
    returns ``(process, results)`` after checking the exit ``status`` and that no scratch folder or worker
    process was left behind."""
    temporary = tmp_path / f"tmp-{name}"
    temporary.mkdir()
    process, results = run_grader(submission, results=tmp_path / f"{name}.json",
                                  env={**env, "TMPDIR": str(temporary)}, timeout=300)
    assert process.returncode == status, process.stderr
    assert "Traceback" not in process.stdout + process.stderr
    assert os.listdir(temporary) == [], "a scratch folder was left behind"
    assert leftovers(str(temporary)) == [], "a worker process was left behind"
    return process, results


def leftovers(marker):
    """Processes (psutil, so on any system) whose command line mentions ``marker`` (list of PIDs)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        try:
            if any(marker in part for part in process.info["cmdline"] or ()):
                found.append(process.pid)
        except psutil.Error:
            continue
    return found


@pytest.mark.parametrize("name", sorted(SUBMISSIONS))
def test_golden_examples_score_the_same_on_the_portable_transport(tmp_path, name):
    submission = SUBMISSIONS[name] or reference_submission(tmp_path)
    unreadable = name == "broken_notebook"  # exit status 2, as on the default path (test_cli)
    process, results = grade_with(submission, PORTABLE, tmp_path, "portable", status=2 if unreadable else 0)
    with open(os.path.join(GOLDEN, name, "expected_results.json"), encoding="utf-8") as handle:
        expected = json.load(handle)  # written by the default transport
    assert scores(results) == scores(expected), differing(results, expected)
    # The one note about missing protections; none when nothing of the submission could run.
    assert process.stdout.count(PORTABLE_NOTE) == (0 if unreadable else 1)


@pytest.fixture(scope="module")
def library_graded_ahead(tmp_path_factory, request):
    """Each library solution graded on the portable transport ahead of its test (``tests/graded.py``;
    in the test process: the golden examples and hostile fixtures above and below keep the command line's checks
    that no process or scratch folder is left behind). The default transport's results are the session's own,
    graded once for tests/test_faulty_library.py. Skipped when fewer than ten of these tests were selected."""
    from graded import grade_ahead

    if sum("library_graded_ahead" in getattr(item, "fixturenames", ()) for item in request.session.items) < 10:
        return  # a few selected (-k): each grades its own
    folder = tmp_path_factory.mktemp("library")
    for fault in FAULTS:
        (folder / f"{fault.name}.py").write_text(apply_edits(fault), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KIT_PORTABLE_WORKER", "1")
        grade_ahead([(folder / f"{fault.name}.py", ("--seed", LIBRARY_DRAW)) for fault in FAULTS])


# Faults whose score depends on where the grader's canary runs fall (drawn afresh for every grading, so that no
# submission can predict them): their state carries from case to case, and a canary before a retry case uses up
# the global retry (20 or 21 points, on either transport). Those are graded on both with one fixed plan.
CARRIES_STATE = {"global_retry_counter"}


@pytest.mark.parametrize("fault", FAULTS, ids=[f.name for f in FAULTS])
def test_faulty_library_scores_the_same_on_both_transports(library_graded_ahead, tmp_path, monkeypatch, fault):
    import random
    import secrets

    from graded import graded

    submission = tmp_path / f"{fault.name}.py"
    submission.write_text(apply_edits(fault), encoding="utf-8")
    again = fault.name in CARRIES_STATE
    if again:  # the plan's draw (grader.judging.pytest_plugin), the same on both transports
        monkeypatch.setattr(secrets, "SystemRandom", lambda: random.Random(fault.name))
    monkeypatch.delenv("KIT_PORTABLE_WORKER", raising=False)  # as tests/test_faulty_library.py grades it
    # One draw of the hidden inputs on both (the faulty library's fixed one, which tests/test_faulty_library.py grades
    # on the default transport): a fault whose score depends on the draw then compares like with like.
    default_process, default = graded(submission, "--seed", LIBRARY_DRAW, again=again)
    monkeypatch.setenv("KIT_PORTABLE_WORKER", "1")
    portable_process, portable = graded(submission, "--seed", LIBRARY_DRAW, again=again)
    assert portable_process.returncode == default_process.returncode == 0, portable_process.stderr
    assert portable_process.stdout.count(PORTABLE_NOTE) == 1  # it did take the other path
    assert PORTABLE_NOTE not in default_process.stdout
    assert scores(portable) == scores(default), differing(portable, default)
    assert portable["score"] < sum(t["max_score"] for t in portable["tests"])


@pytest.fixture(scope="module")
def hostile_on_the_portable_transport(tmp_path_factory):
    """Every hostile fixture graded once on the portable transport, two at a time (tests/test_hostile.py)."""
    return hostile.grade_every_fixture(tmp_path_factory.mktemp("hostile"), env=PORTABLE)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the hostile fixtures' expectations are Linux's")
@pytest.mark.parametrize("name", sorted(hostile.EXPECTED))
def test_hostile_fixtures_on_the_portable_transport(hostile_on_the_portable_transport, name):
    """Every fixture is refused as on the default path (zero, its sentence, nothing left behind): the guard, the
    kernel's rules (on Linux, as on the default path), the grader's watch and the tree kill stop them."""
    records, grader_changed = hostile_on_the_portable_transport
    assert PORTABLE_NOTE in records[name]["process"].stdout or name == "not_json.ipynb"
    hostile.check_hostile(name, records[name], grader_changed)


# The handed attacks (tests/attacks, from ../shared/cases/grader_attacks), with the options test_attacks grades
# each with. disk_fill_scratch.py needs a small disk of its own (test_attacks makes one); the .sh files are batches.
ATTACK_OPTIONS = {"steal_check_capstone.py": ("--exercise", "capstone"), "steal_check_parse.py": ("--exercise", "parse-call"),
                  "observe_joins_its_problems.py": ("--exercise", "observe"),
                  "str_subclass_module_name.py": ("--exercise", "capstone"),
                  "reads_grader_memory_portable.py": ("--exercise", "capstone"),
                  # 0.63 s of CPU of its 1 s limit on a 1 MB tool name (its regex calls a function per character):
                  # a machine loaded enough stretches CPU time itself, and the comparison is of transports, not loads
                  "drawn_field_strip_lookup.py": ("--case-timeout", "3")}
ATTACKS = os.path.join(ROOT, "tests", "attacks")
def _by_chance(name):
    """Whether an attack file says its outcome depends on the machine (timing, process ids): no suite runs it."""
    with open(os.path.join(ATTACKS, name), encoding="utf-8-sig") as handle:
        return "not run by the suite" in handle.read(400)


HANDED = sorted(name for name in os.listdir(ATTACKS) if name.endswith((".py", ".ipynb")) and name != "disk_fill_scratch.py"
                and not _by_chance(name))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the attacks' expectations are Linux's")
@pytest.mark.parametrize("name", HANDED)
def test_every_handed_attack_gets_the_same_outcome_on_the_portable_transport(tmp_path, name):
    """tests/test_attacks.py asserts each attack's stated outcome on the default transport; the same score and the
    same failed cases here mean the same outcome on the portable one (issue 41: "on both transports")."""
    outcomes = {}
    for portable in (False, True):
        env = {"KIT_PORTABLE_WORKER": "1" if portable else "0"}
        process, results = run_grader(os.path.join(ATTACKS, name), *ATTACK_OPTIONS.get(name, ()), "--seed", "attacks",
                                      results=tmp_path / f"{portable}.json", env=env, timeout=300)  # one draw for both
        assert "Traceback" not in process.stdout + process.stderr and results is not None, process.stderr[-2000:]
        outcomes[portable] = (results["score"], sorted(t["name"] for t in results["tests"] if t["status"] == "failed"))
    assert outcomes[True] == outcomes[False]


# -- the switch and the note --------------------------------------------------------------------------

def test_the_switch_and_missing_posix_features_choose_the_portable_transport(monkeypatch):
    monkeypatch.delenv("KIT_PORTABLE_WORKER", raising=False)
    assert portable_worker() is (not sys.platform.startswith(("linux", "darwin")))
    monkeypatch.setenv("KIT_PORTABLE_WORKER", "1")
    assert portable_worker() is True
    monkeypatch.setenv("KIT_PORTABLE_WORKER", "0")
    if os.name == "posix":
        assert portable_worker() is False
        monkeypatch.delattr(os, "killpg")  # as on Windows: no process groups to kill
        assert portable_worker() is True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the default transport's protections are Linux's")
def test_protections_per_transport(monkeypatch):
    monkeypatch.setenv("KIT_PORTABLE_WORKER", "0")
    assert protection_note() is None  # Linux's default path: nothing to say
    kernel = "yes" if kernel_rules.abi_version() > 0 or kernel_rules.seccomp_available() else "no"
    assert protections(portable=True) == {  # the same kernel rules on both transports (issue 41)
        "separate process": "yes", "time limits": "yes", "memory limit": "partly", "output limit": "partly",
        "audit-hook guard": "yes", "kernel rules": kernel, "process-tree cleanup": "partly"}
    assert protections(portable=False)["kernel rules"] == kernel
    monkeypatch.setenv("KIT_PORTABLE_WORKER", "1")
    state = ("the grader's sandbox has no kernel rules, and its memory limit, output limit and process-tree cleanup "
             "work only in part" if kernel == "no" else
             "the memory limit, output limit and process-tree cleanup of the grader's sandbox work only in part")
    assert protection_note() == (f"On this system {state} (see the table in docs/threat-model.md). That is "
                                 "fine for grading your own work; an instructor grading untrusted work should unset "
                                 "KIT_PORTABLE_WORKER, which chose the portable transport.")
    monkeypatch.setattr(protections_module, "psutil_or_none", lambda: None)
    monkeypatch.setattr(sys, "platform", "win32")  # Windows without psutil
    monkeypatch.setattr(os, "name", "nt")
    levels, note = protections(), protection_note()
    monkeypatch.undo()
    assert levels["memory limit"] == levels["process-tree cleanup"] == levels["kernel rules"] == "no"
    assert note.startswith("On this system the grader's sandbox has no memory limit, kernel rules or process-tree "
                           "cleanup, and its output limit works only in part") and note.endswith("should use Linux, a container, "
                                                                                 "or Gradescope."), note
    monkeypatch.setattr(sys, "platform", "darwin")  # macOS, on the POSIX transport, with psutil
    assert protections(portable=False) == {
        "separate process": "yes", "time limits": "yes", "memory limit": "partly", "output limit": "yes",
        "audit-hook guard": "yes", "kernel rules": "no", "process-tree cleanup": "partly"}


# -- the transport driven directly, with POSIX-only features removed ------------------------------------

@pytest.fixture
def windows_like(monkeypatch):
    """What Windows lacks, removed for the test: process groups, pread, the resource module."""
    monkeypatch.delattr(os, "killpg")
    monkeypatch.delattr(os, "pread")
    monkeypatch.setitem(sys.modules, "resource", None)
    monkeypatch.delenv("KIT_PORTABLE_WORKER", raising=False)


def open_sandbox(code, limits=None):
    sandbox = Sandbox(limits or Limits(case_seconds=2.0))
    assert sandbox.portable
    sandbox.begin_load([{"label": "submission.py", "kind": "file", "code": code}], ["handle"])
    report = sandbox.load()
    assert report.fatal is None and report.entries["handle"]["state"] == "ok", report
    return sandbox


def run(sandbox, invocations):
    transcript = Transcript()
    responder = Responder(transcript, NeverCorrects("{}"), lambda name, arguments: "ok")
    return sandbox.run("handle", invocations, {}, responder), transcript


def test_round_trips_prints_and_a_hang_without_posix_features(windows_like):
    sandbox = open_sandbox("print('loading')\n"
                           "def handle(raw, ask_model):\n"
                           "    print('asked', raw)\n"
                           "    if raw == 'hang':\n"
                           "        while True:\n"
                           "            pass\n"
                           "    return [raw, ask_model('again')]\n")
    try:
        assert sandbox.load_report.output == "loading\n"
        outcome, transcript = run(sandbox, [["{}", ASK], ["x" * 300_000, ASK]])  # a reply larger than a pipe's buffer
        assert [r["result"]["plain"][0] for r in outcome.results] == ["{}", "x" * 300_000]
        assert transcript.observations == ["again", "again"]
        assert outcome.output.startswith("asked {}\nasked xxx")
        pid = sandbox.process.pid
        started = time.monotonic()
        outcome, _ = run(sandbox, [["hang", ASK]])
        assert outcome.stopped == "timeout" and outcome.problem == "The submission timed out after 2 s."
        assert time.monotonic() - started < 10
        assert not psutil.pid_exists(pid) and sandbox.process is None
        outcome, _ = run(sandbox, [["again", ASK]])  # restarted for the next case
        assert outcome.results[0]["result"]["plain"] == ["again", "{}"]
    finally:
        sandbox.close()


def test_output_written_past_the_workers_cap_is_stopped_by_the_grader(windows_like):
    """``os.write(1, ...)`` bypasses the worker's count of printed bytes; the grader's watch of the file stops it."""
    limits = Limits(case_seconds=5.0, output_bytes=1024 * 1024)
    sandbox = open_sandbox("import os\n"
                           "def handle(raw, ask_model):\n"
                           "    while True:\n"
                           "        os.write(1, b'x' * 65536)\n", limits)
    try:
        outcome, _ = run(sandbox, [["{}", ASK]])
        assert outcome.stopped == "limit"
        assert outcome.problem == "The submission printed more than 1 MB in one case and was stopped."
        assert outcome.output.startswith("(the submission printed more than")
    finally:
        sandbox.close()


def test_printing_is_capped_by_the_worker_without_a_file_size_limit(windows_like):
    limits = Limits(case_seconds=5.0, output_bytes=1024 * 1024)
    sandbox = open_sandbox("def handle(raw, ask_model):\n"
                           "    for _ in range(50):\n"
                           "        print('y' * 100_000)\n"
                           "    return 'done'\n", limits)
    try:
        outcome, _ = run(sandbox, [["{}", ASK]])
        assert outcome.results[0]["result"]["plain"] == "done"  # cut, not fatal, as with RLIMIT_FSIZE
        assert os.fstat(sandbox.output_fd).st_size == 0  # emptied after being read
        assert "printed more than 1 MB in one case" in outcome.output
    finally:
        sandbox.close()


def test_memory_is_watched_where_no_address_space_limit_exists(windows_like):
    sandbox = open_sandbox("def handle(raw, ask_model):\n"
                           "    hog = bytearray(700 * 1024 * 1024)\n"
                           "    return len(hog)\n", Limits(case_seconds=5.0, memory_mb=512))
    try:
        outcome, _ = run(sandbox, [["{}", ASK]])
        assert outcome.stopped == "limit"
        assert outcome.problem == ("The submission ran out of memory (it used more than 512 MB, the grader's limit) "
                                   "and was stopped.")
    finally:
        sandbox.close()


def test_the_tree_kill_ends_children_in_other_sessions():
    """``kill_tree_portable`` ends a process and what it started, even in a session of its own (psutil)."""
    code = ("import subprocess, sys, time\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'], start_new_session=True)\n"
            "print(child.pid, flush=True)\n"
            "time.sleep(300)\n")
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    try:
        assert kill_tree_portable(parent) == [child]
        parent.wait(timeout=5)
        psutil.wait_procs([psutil.Process(child)] if psutil.pid_exists(child) else [], timeout=5)
        assert not psutil.pid_exists(child) or psutil.Process(child).status() == psutil.STATUS_ZOMBIE
    finally:
        parent.stdout.close()
        if psutil.pid_exists(child):
            try:
                psutil.Process(child).kill()
            except psutil.Error:
                pass


def test_the_guard_reads_windows_paths_as_windows_resolves_them():
    """On Windows the guard makes a path absolute with ``nt._getfullpathname`` and compares it in lower case with
    ``/``: here ``ntpath.abspath`` (the same rules, in Python) stands in for it."""
    import ntpath

    from grader.isolation.worker import _resolve

    def resolve(path):
        return _resolve(path, _full=ntpath.abspath)

    assert resolve("C:\\Kit\\grader\\..\\solutions\\parse.py") == "c:/kit/solutions/parse.py"
    assert resolve("c:/KIT/Grader/cases/").startswith("c:/kit/grader/cases")
    assert resolve(b"D:\\Scratch\\out.txt") == "d:/scratch/out.txt"
    with pytest.raises(PermissionError, match="a path of that type"):
        resolve(3.5)


def test_a_windows_crash_is_described_as_a_crash():
    """Windows ends a crashed process with an NTSTATUS code (0xC0000005: access violation), not a signal."""
    from grader.isolation.sandbox import describe_exit

    assert describe_exit(0xC0000005, Limits()) == "crashed with a segmentation fault"
    assert describe_exit(0xC00000FD, Limits(), hidden=True) == "crashed with a stack overflow"
    assert describe_exit(3, Limits()) == "exited with status 3"

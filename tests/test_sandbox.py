"""The sandbox driven directly: the worker protocol's bounds (a retry loop is halted without restarting the
worker), the kernel's rules without the guard, the process tree, the scratch folder's bounds, and what the
standard library may do in the worker."""

import json
import os
import sys
import time

import pytest

from points import case_count

from grader.judging.harness import Responder, Transcript
from grader.judging.scripted_models import NeverCorrects
from grader.isolation.limits import Limits
from grader.isolation.sandbox import HALT_GRACE, Sandbox
from grader.isolation.transport_portable import portable_worker
from grader.paths import CASES_DIR

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the worker's kernel rules, rlimits and process tree are Linux's (/proc)")

# What the POSIX transport applies between fork and exec (kernel rules, rlimits, the subreaper): not on the portable one.
POSIX_PATH = pytest.mark.skipif(portable_worker(), reason="the portable transport (Windows, or KIT_PORTABLE_WORKER=1) "
                                "applies no kernel rules, resource limits or subreaper; tests/test_portable.py covers it")

ASK = {"__kit__": "ask_model"}


@pytest.fixture
def sandbox_for():
    opened = []

    def _open(code, entry="handle"):
        sandbox = Sandbox(Limits(case_seconds=5.0))
        sandbox.begin_load([{"label": "submission.py", "kind": "file", "code": code}], [entry])
        report = sandbox.load()
        assert report.fatal is None and report.entries[entry]["state"] == "ok"
        opened.append(sandbox)
        return sandbox

    yield _open
    for sandbox in opened:
        sandbox.close()


def run(sandbox, invocations):
    transcript = Transcript()
    responder = Responder(transcript, NeverCorrects("{}"), lambda name, arguments: "ok")
    return sandbox.run("handle", invocations, {}, responder), transcript


def test_an_unbounded_retry_is_halted_and_the_worker_keeps_running(sandbox_for):
    sandbox = sandbox_for(
        "def handle(raw, ask_model):\n"
        "    while True:\n"
        "        try:\n"
        "            raw = ask_model('again')\n"
        "        except Exception:\n"
        "            pass\n")
    pid = sandbox.process.pid
    outcome, transcript = run(sandbox, [["{}", ASK]])
    assert outcome.stopped == "unbounded"
    assert "made more than 8 requests" in outcome.problem
    assert len(transcript.observations) == sandbox.limits.max_requests
    assert outcome.results[0]["raised"].startswith("RequestLimitReached")
    assert sandbox.process is not None and sandbox.process.pid == pid  # halted, not killed


def test_a_loop_that_swallows_the_halt_is_killed_after_the_grace(sandbox_for):
    sandbox = sandbox_for(
        "def handle(raw, ask_model):\n"
        "    while True:\n"
        "        try:\n"
        "            raw = ask_model('again')\n"
        "        except BaseException:\n"
        "            pass\n")
    outcome, transcript = run(sandbox, [["{}", ASK]])
    assert outcome.stopped == "unstoppable" and "the retry is not bounded" in outcome.problem
    assert len(transcript.observations) == sandbox.limits.max_requests  # halts are not model turns
    assert sandbox.process is None  # killed; the next case starts a new worker
    assert outcome.results == []
    assert HALT_GRACE >= 1


def test_the_request_budget_is_per_call_not_per_case(sandbox_for):
    sandbox = sandbox_for(
        "def handle(raw, ask_model):\n"
        "    for _ in range(5):\n"
        "        ask_model('again')\n"
        "    return 'done'\n")
    outcome, transcript = run(sandbox, [["{}", ASK]] * 4)  # 20 requests in all, 5 per call
    assert outcome.problem is None
    assert [r["result"] for r in outcome.results] == [{"plain": "done"}] * 4
    assert len(transcript.observations) == 20


# -- long strings travel after their message's line (grader.isolation.sandbox.frame_message) --------------

DIGEST = (
    "import hashlib\n"
    "def handle(first, second, short, ask_model):\n"
    "    retry = ask_model('again')\n"
    "    digest = lambda text: [len(text), hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()]\n"
    "    return [digest(first), digest(second), short, digest(retry)]\n")


def _digest(text):
    import hashlib

    return [len(text), hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()]


@pytest.mark.parametrize("portable", ["0", "1"])
def test_long_strings_reach_the_worker_exactly_as_sent(portable, monkeypatch):
    """The 1 MB cases' calls go as bytes after the JSON line: every character must arrive, the ones JSON
    escapes (quotes, newlines, backslashes), non-ASCII text and a lone surrogate included, on both transports."""
    from grader.isolation.sandbox import LONG_TEXT

    monkeypatch.setenv("KIT_PORTABLE_WORKER", portable)
    first = ('{"name": "é\\n\n' + "x" * LONG_TEXT + '\ud800 ✓"}')
    second = "\n" * (LONG_TEXT + 3)
    retry = '"\u2028' * LONG_TEXT
    sandbox = Sandbox(Limits(case_seconds=5.0))
    try:
        sandbox.begin_load([{"label": "submission.py", "kind": "file", "code": DIGEST}], ["handle"])
        assert sandbox.load().fatal is None
        transcript = Transcript()
        responder = Responder(transcript, NeverCorrects(retry), lambda name, arguments: "ok")
        invocations = [[first, second, "short \n", ASK], [second, first, "", ASK]]
        outcome = sandbox.run("handle", invocations, {}, responder)
    finally:
        sandbox.close()
    assert outcome.problem is None
    assert [r["result"]["plain"] for r in outcome.results] == [
        [_digest(first), _digest(second), "short \n", _digest(retry)],
        [_digest(second), _digest(first), "", _digest(retry)]]


@pytest.mark.parametrize("portable", [False, True], ids=["posix", "portable"])
def test_the_load_limit_counts_the_submission_s_time_not_the_worker_s_start(portable, monkeypatch):
    """Issue 40's clean-clone runs: on a loaded machine the portable worker took longer to start than the hostile
    tests' 2 s load limit, so honest code "timed out while loading" before any of it ran. The limit now counts
    from the worker's "ready" (sent before any learner code runs); a loop at the top level is still stopped."""
    if not portable and portable_worker():
        pytest.skip("the POSIX transport is not available here")
    monkeypatch.setenv("KIT_PORTABLE_WORKER", "1" if portable else "0")
    slow = sandbox_module.WORKER_SOURCE.replace("def main(argv):\n", "def main(argv):\n    __import__('time').sleep(2.5)\n", 1)
    assert slow != sandbox_module.WORKER_SOURCE
    monkeypatch.setattr(sandbox_module, "WORKER_SOURCE", slow)
    for code, fatal in (("def handle():\n    return 1\n", None),
                        ("while True:\n    pass\n", "While loading, the submission timed out after 1 s (an endless loop "
                                                    "at the top level?).")):
        sandbox = Sandbox(Limits(case_seconds=5.0, load_seconds=1.0))
        try:
            started = time.monotonic()
            sandbox.begin_load([{"label": "submission.py", "kind": "file", "code": code}], ["handle"])
            report = sandbox.load()
            assert report.fatal == fatal, (code, report.fatal)
            assert time.monotonic() - started >= 2.5  # the worker's slow start, before the limit began
        finally:
            sandbox.close()


def test_a_framed_message_is_one_json_line_and_the_bytes_it_left_out():
    from grader.isolation.sandbox import LONG_TEXT, frame_message

    long = "ü" * LONG_TEXT
    message = {"op": "case", "entry": "handle", "invocations": [["short", long]], "globals": {}, "view": None}
    data = frame_message(message)
    line, _, rest = data.partition(b"\n")
    header = json.loads(line)
    assert header["invocations"] == [["short", ""]]
    assert header["texts"] == [[["invocations", 0, 1], 2 * LONG_TEXT]]  # ü is two bytes in UTF-8
    assert rest == long.encode("utf-8")
    assert message["invocations"] == [["short", long]] and "texts" not in message  # the caller's message unchanged
    assert frame_message({"op": "reply", "value": "ok"}) == b'{"op": "reply", "value": "ok"}\n'
    assert frame_message({"op": "reply", "value": long})[-2 * LONG_TEXT - 1:-2 * LONG_TEXT] == b"\n"


# -- the kernel's boundary (Landlock), tested with the audit-hook guard switched off -------------

from grader.isolation import kernel_rules  # noqa: E402
from grader.isolation import sandbox as sandbox_module  # noqa: E402
from grader.isolation import transport_posix  # noqa: E402

UNGUARDED = sandbox_module.WORKER_SOURCE.replace("    sys.addaudithook(hook)", "    pass  # guard off for this test")

PROBE = """
import os, signal, socket
def attempt(action):
    try:
        action()
        return "allowed"
    except OSError as exc:
        return type(exc).__name__

def handle(kit_file, outside):
    return {
        "read the kit": attempt(lambda: open(kit_file).read()),
        "write outside scratch": attempt(lambda: open(outside, "w").write("forged")),
        "signal the grader": attempt(lambda: os.kill(os.getppid(), 0)),
        "connect TCP": attempt(lambda: socket.create_connection(("127.0.0.1", 9), timeout=1)),
        "write in scratch": attempt(lambda: open(os.path.join(os.getcwd(), "ok.txt"), "w").write("fine")),
    }
"""


@POSIX_PATH
@pytest.mark.skipif(kernel_rules.abi_version() < 6, reason="this kernel has no Landlock ABI 6 (Linux 6.12+)")
def test_landlock_holds_where_the_guard_is_gone(monkeypatch, tmp_path):
    """The audit hook is Python and can be subverted; the kernel's rules must hold without it."""
    monkeypatch.setattr(sandbox_module, "WORKER_SOURCE", UNGUARDED)
    sandbox = Sandbox(Limits(case_seconds=10.0))
    try:
        sandbox.begin_load([{"label": "probe.py", "kind": "file", "code": PROBE}], ["handle"])
        assert sandbox.load().fatal is None
        outside = tmp_path / "forged.json"
        transcript = Transcript()
        outcome = sandbox.run("handle", [[os.path.join(CASES_DIR, "tool_call", "test_01_parsing.py"), str(outside)]], {},
                              Responder(transcript, NeverCorrects("{}"), lambda n, a: "ok"))
    finally:
        sandbox.close()
    assert outcome.problem is None, outcome.problem
    assert outcome.results[0]["result"]["plain"] == {
        "read the kit": "PermissionError",
        "write outside scratch": "PermissionError",
        "signal the grader": "PermissionError",
        "connect TCP": "PermissionError",
        "write in scratch": "allowed",
    }
    assert not outside.exists()


@POSIX_PATH
def test_a_worker_that_cannot_be_confined_is_not_started_and_every_case_says_why(monkeypatch, tmp_path):
    """If the kernel refuses the confinement, grading must not go on unconfined, nor crash."""
    from grader.pipeline import grade

    def refuse(plan):
        raise OSError(1, "landlock_restrict_self failed")

    monkeypatch.setattr(kernel_rules, "apply", refuse)
    monkeypatch.setattr(kernel_rules, "prepare", lambda scratch: kernel_rules.Plan(None, (None, None, []), False))
    submission = tmp_path / "s.py"
    submission.write_text("def handle_tool_call(raw, ask_model):\n    return None\n")
    result = grade(submission)
    assert result.score == 0 and len(result.cases) == case_count("capstone")
    assert all("could not start the process that runs submissions (SubprocessError" in c.feedback for c in result.cases)


# -- the second adversarial round (issue 12): processes, imports, scratch, the standard library ------------

from grader.isolation.worker import ALLOWED_EXTENSIONS, MAX_SCRATCH_ENTRIES, OPTIONAL_MODULES, extension_folder  # noqa: E402

# Extension modules of the standard library (3.11 to 3.14) that open a door past the audit hooks: none may be on the
# allow-list (the shared design "isolation", section 4; issue 41).
DOORS = {"_ctypes", "_ctypes_test", "_testcapi", "_testinternalcapi", "_testbuffer", "_testmultiphase",
         "_testsinglephase", "_testclinic", "_testclinic_limited", "_testlimitedcapi", "_testimportmultiple",
         "_xxtestfuzz", "xxlimited", "xxlimited_35", "xxsubtype", "_xxsubinterpreters", "_xxinterpchannels",
         "_interpreters", "_interpchannels", "_interpqueues", "_testexternalinspection", "_remote_debugging",
         "_tkinter", "_posixsubprocess", "_posixshmem", "nis", "spwd", "ossaudiodev", "_dbm", "_gdbm", "readline"}


def test_no_door_is_on_the_allow_list_of_extension_modules():
    assert ALLOWED_EXTENSIONS & DOORS == set()
    assert OPTIONAL_MODULES <= DOORS
    # What this Python ships is either allowed or a known door: a new module is decided, not let through unseen.
    # (Only this machine's build is listed; another build's extra modules are simply refused.)
    folder = extension_folder()
    if folder is None:
        pytest.skip("this Python has every extension module built in")
    shipped = {name.partition(".")[0] for name in os.listdir(folder[1]) if name.endswith((".so", ".pyd"))}
    assert shipped and shipped - ALLOWED_EXTENSIONS - DOORS == set()


def run_unguarded(monkeypatch, code, args=(), processes=True, limits=None):
    """Load ``code`` in a worker whose audit-hook guard is off (the kernel's rules alone), call handle(*args)."""
    monkeypatch.setattr(sandbox_module, "WORKER_SOURCE", UNGUARDED)
    if not processes:
        prepare = kernel_rules.prepare
        monkeypatch.setattr(kernel_rules, "prepare", lambda scratch: prepare(scratch, processes=False))
    sandbox = Sandbox(limits or Limits(case_seconds=10.0))
    try:
        sandbox.begin_load([{"label": "probe.py", "kind": "file", "code": code}], ["handle"])
        assert sandbox.load().fatal is None
        transcript = Transcript()
        outcome = sandbox.run("handle", [list(args)], {}, Responder(transcript, NeverCorrects("{}"), lambda n, a: "ok"))
        return sandbox, outcome
    except BaseException:
        sandbox.close()
        raise


FORKS = """
import os, threading, time
def handle():
    done = []
    worker = threading.Thread(target=lambda: done.append("thread"))
    worker.start()
    worker.join()
    try:
        read, write = os.pipe()
        child = os.fork()
        if child == 0:
            os.setsid()
            grandchild = os.fork()
            if grandchild == 0:
                time.sleep(300)
            os.write(write, str(grandchild).encode())
            os._exit(0)
        os.waitpid(child, 0)
        return done + [int(os.read(read, 20))]
    except OSError as exc:
        return done + [type(exc).__name__]
"""


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


@POSIX_PATH
@pytest.mark.skipif(not kernel_rules.seccomp_available(), reason="no seccomp filter on this kernel or architecture")
def test_the_kernel_refuses_new_processes_where_the_guard_is_gone(monkeypatch):
    sandbox, outcome = run_unguarded(monkeypatch, FORKS)
    sandbox.close()
    assert outcome.results[0]["result"]["plain"] == ["thread", "PermissionError"]  # threads yes, processes no


@POSIX_PATH
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the process tree is read from /proc")
def test_every_process_the_worker_started_dies_with_it_even_in_another_session(monkeypatch):
    """With neither the guard nor seccomp, a double-forked daemon in a new session is still below the worker
    (a child subreaper), and closing the sandbox kills it."""
    sandbox, outcome = run_unguarded(monkeypatch, FORKS, processes=False)
    daemon = outcome.results[0]["result"]["plain"][1]
    assert isinstance(daemon, int) and alive(daemon)
    sandbox.close()
    deadline = time.monotonic() + 5
    while alive(daemon) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(daemon)


FILLS_WHILE_LOADING = """
import os
for number in range(12):
    with open(f"fill{number}", "wb") as handle:
        handle.write(b"x" * (1024 * 1024 - 1))
def handle():
    return "loaded"
"""


def test_a_scratch_folder_past_its_bound_while_loading_stops_the_load(monkeypatch):
    """Issue 40's attacker trial: the disk was first measured after the first case, and native code past the guard
    wrote 1.5 GB in the 3 s of loading. Now the load is measured too, and every case says why it failed."""
    monkeypatch.setattr(sandbox_module, "WORKER_SOURCE", UNGUARDED)
    sandbox = Sandbox(Limits(case_seconds=10.0, output_bytes=1024 * 1024))
    try:
        sandbox.begin_load([{"label": "fills.py", "kind": "file", "code": FILLS_WHILE_LOADING}], ["handle"])
        report = sandbox.load()
        assert report.fatal == (f"While loading, the submission used more than {sandbox.scratch_bytes // (1024 * 1024)} "
                                "MB of disk in its working folder, so it was stopped and the folder emptied; write "
                                "less (a few small files at most).")
        assert sorted(os.listdir(sandbox.scratch)) == [".output"]
        outcome, _ = run(sandbox, [[]])
        assert outcome.problem == report.fatal and outcome.results == []
    finally:
        sandbox.close()


FILLS = """
import os
def handle():
    for number in range(30):
        with open(f"fill{number}", "wb") as handle:
            handle.write(b"x" * (1024 * 1024 - 1))
    return "filled"
"""


def test_a_scratch_folder_past_its_bound_ends_the_case_and_is_emptied(monkeypatch):
    """Past the guard (which stops at MAX_SCRATCH_ENTRIES files), the grader still bounds the bytes."""
    limits = Limits(case_seconds=10.0, output_bytes=1024 * 1024)
    sandbox, outcome = run_unguarded(monkeypatch, FILLS, limits=limits)
    try:
        assert sandbox.scratch_bytes == (MAX_SCRATCH_ENTRIES + 1) * limits.output_bytes
        assert outcome.stopped == "limit"
        assert outcome.problem == (f"The submission used more than {sandbox.scratch_bytes // (1024 * 1024)} MB of disk in "
                                   "its working folder, so it was stopped and the folder emptied; write less (a few "
                                   "small files at most).")
        assert os.listdir(sandbox.scratch) == [".output"]
    finally:
        sandbox.close()


def test_a_folder_that_vanishes_while_the_scratch_is_measured_counts_as_past_the_bound(monkeypatch, tmp_path):
    """Issue 40's fifth attacker trial: a thread renaming a folder back and forth while the grader read the scratch
    folder hid 160 MB from every check (the vanished folder counted 0). Each reading that loses a folder is taken
    again; one that never completes is past the bound, one that completes on a later try gives the true size."""
    sandbox = Sandbox(Limits(case_seconds=10.0, output_bytes=1024 * 1024))
    try:
        folder = os.path.join(sandbox.scratch, "D1")
        os.mkdir(folder)
        with open(os.path.join(folder, "big"), "wb") as handle:
            handle.write(b"x" * (3 * 1024 * 1024))
        honest = sandbox.scratch_used()
        assert 3 * 1024 * 1024 <= honest < sandbox.scratch_bytes
        real_scandir, lost = os.scandir, []

        def vanishing(path, times):
            if path == folder and len(lost) < times:
                lost.append(path)
                raise FileNotFoundError(2, "No such file or directory", path)
            return real_scandir(path)

        monkeypatch.setattr(sandbox_module.os, "scandir", lambda path: vanishing(path, times=99))
        assert sandbox.scratch_used() == sandbox.scratch_bytes + 1 and len(lost) == 3
        lost.clear()
        monkeypatch.setattr(sandbox_module.os, "scandir", lambda path: vanishing(path, times=1))
        assert sandbox.scratch_used() == honest and lost == [folder]
    finally:
        monkeypatch.undo()
        sandbox.close()


@POSIX_PATH
def test_the_worker_may_lock_no_memory_and_queue_few_signals(monkeypatch, sandbox_for):
    """mmap's MAP_LOCKED locked 4 MB past the filter's mlock rule, and 1000 POSIX timers raised the count of queued
    signals of every root process (both counted per user, machine-wide: the fifth trial)."""
    sandbox = sandbox_for("""
import resource
def handle():
    return [resource.getrlimit(resource.RLIMIT_MEMLOCK), resource.getrlimit(resource.RLIMIT_SIGPENDING)]
""")
    outcome, _ = run(sandbox, [[]])
    assert outcome.results[0]["result"]["plain"] == [[0, 0], [64, 64]]


def test_the_process_limit_binds_only_where_the_kernel_applies_it(monkeypatch):
    """RLIMIT_NPROC counts the user's tasks and does not apply to root: set for others, with room for threads."""
    monkeypatch.setattr(os, "getuid", lambda: 0)
    assert transport_posix.process_limit() is None
    monkeypatch.setattr(os, "getuid", lambda: 1000)
    with open("/proc/loadavg", encoding="ascii") as handle:
        tasks = int(handle.read().split()[3].partition("/")[2])
    assert tasks + 64 <= transport_posix.process_limit() <= tasks + 64 + 500


@POSIX_PATH
def test_the_worker_gets_the_process_limit(monkeypatch, sandbox_for):
    monkeypatch.setattr(transport_posix, "process_limit", lambda: 4242)
    sandbox = sandbox_for("import resource\ndef handle():\n    return list(resource.getrlimit(resource.RLIMIT_NPROC))\n")
    outcome, _ = run(sandbox, [[]])
    assert outcome.results[0]["result"]["plain"] == [4242, 4242]


STANDARD_LIBRARY = """
import sys
SKIP = {"antigravity", "this", "idlelib", "turtledemo", "tkinter", "turtle", "ensurepip", "venv", "lib2to3", "pydoc_data",
        "msilib", "msvcrt", "nt", "winreg", "winsound", "_winapi", "_overlapped", "_msi", "_wmi"}
def handle():
    refused = {}
    for name in sorted(sys.stdlib_module_names - SKIP):
        if name.startswith("_"):
            continue
        try:
            __import__(name)
        except BaseException as exc:
            refused[name] = type(exc).__name__
    return refused
"""


def test_the_standard_library_loads_but_its_doors(sandbox_for):
    """asyncio, unittest.mock, subprocess, multiprocessing, sqlite3, dbm, shelve... import (their dangerous calls
    are refused where they are called, see test_fairness.py); only ctypes, which is native code, and nis, spwd and
    ossaudiodev, which reach the network, the shadow file and a device in C without an audit event, are refused
    (the allow-list of extension modules: issue 41). A build without one of those lacks it: ModuleNotFoundError.
    readline reads and writes history files in C: it is missing, as in a build without it."""
    sandbox = sandbox_for(STANDARD_LIBRARY)
    sandbox.limits.case_seconds = 30.0
    outcome, _ = run(sandbox, [[]])
    refused = outcome.results[0]["result"]["plain"]
    assert refused["ctypes"] == "PermissionError"
    assert refused.pop("readline") == "ModuleNotFoundError"  # as in a build without it: pdb and code work on
    doors = {"ctypes", "nis", "spwd", "ossaudiodev"}
    assert set(refused) <= doors, refused
    assert {refused[name] for name in refused} <= {"PermissionError", "ModuleNotFoundError"}


def test_a_tree_deeper_than_python_recurses_is_removed_and_no_link_is_followed(tmp_path):
    """Issue 40's attacker trial: 994 nested folders made shutil.rmtree raise RecursionError on Python 3.11, and
    the grader left its scratch folder with every input in it. remove_tree walks by descriptor: 3000 levels (more
    than a path can name) go, and the files that links inside point to stay."""
    from grader.isolation.sandbox import remove_tree

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep", encoding="utf-8")
    root = tmp_path / "scratch"
    root.mkdir()
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for level in range(3000):
            os.mkdir("d", dir_fd=fd)
            if level % 500 == 0:  # files and links along the way
                with open(os.open("f.txt", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd), "w") as handle:
                    handle.write("input")
                os.symlink(str(outside), "to_outside", dir_fd=fd)
                os.symlink(str(outside / "keep.txt"), "to_file", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("inputs.txt", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd), "w") as handle:
            handle.write("every input")
    finally:
        os.close(fd)
    assert remove_tree(str(root)) is True
    assert not root.exists()
    assert (outside / "keep.txt").read_text(encoding="utf-8") == "keep"
    assert remove_tree(str(root)) is True  # already gone



def test_a_wide_tree_is_read_once_per_folder(tmp_path, monkeypatch):
    """A lead from issue 40's attacker trial: remove_tree read a parent again from its start after each climb, so 8000
    sibling folders took 23 s and 100 000 (a second of native code) would have held the grader for hours. Each
    folder is now read once: counted, not timed, so that load cannot change the answer."""
    from grader.isolation import sandbox

    root = tmp_path / "scratch"
    root.mkdir()
    for index in range(300):
        (root / f"d{index}" / "inner").mkdir(parents=True)
        (root / f"d{index}" / "inner" / "input.txt").write_text("input", encoding="utf-8")
        (root / f"f{index}.txt").write_text("input", encoding="utf-8")
    reads = []
    real = sandbox._unlink_files
    monkeypatch.setattr(sandbox, "_unlink_files", lambda fd: reads.append(os.fstat(fd).st_ino) or real(fd))
    assert sandbox.remove_tree(str(root)) is True
    assert not root.exists()
    assert len(reads) == 1 + 300 + 300  # the root, each d<i>, each inner
    assert len(set(reads)) == len(reads)



HIDING_FOLDERS = r"""
import os

def handle():
    answers = {}
    for label, action in (("mkdir 0o300", lambda: os.mkdir("hidden", 0o300)),
                          ("mkdir 0o755", lambda: os.mkdir("open", 0o755)),
                          ("chmod folder 0o300", lambda: os.chmod("open", 0o300)),
                          ("chmod file 0o400", lambda: (open("note.txt", "w").close(), os.chmod("note.txt", 0o400)))):
        try:
            action()
            answers[label] = "done"
        except PermissionError:
            answers[label] = "refused"
    answers["umask"] = hasattr(os, "umask")
    return answers
"""


@pytest.mark.parametrize("portable", ["0", "1"], ids=["posix", "portable"])
def test_no_folder_its_owner_cannot_list(portable, monkeypatch, sandbox_for):
    """Issue 40's attacker trial: os.mkdir("hide", 0o300) made a folder the worker could write into and nobody
    but root could list, so the guard's count, the disk check and the cleanup of a grader that is not root missed
    it (241 MB and every hidden input stayed in /tmp). The guard refuses such a mode on every transport, and
    os.umask (no audit event) is gone; a file's mode stays the submission's."""
    monkeypatch.setenv("KIT_PORTABLE_WORKER", portable)
    outcome, _ = run(sandbox_for(HIDING_FOLDERS), [[]])
    assert outcome.results[0]["result"]["plain"] == {"mkdir 0o300": "refused", "mkdir 0o755": "done",
                                                       "chmod folder 0o300": "refused", "chmod file 0o400": "done",
                                                       "umask": False}


def test_a_folder_made_unreadable_is_still_removed(tmp_path, monkeypatch):
    """What the guard and the filter refuse, a grader must survive where neither runs (the portable transport's
    native code): remove_tree gives a folder it cannot read or change back its owner's bits, then removes it.
    The scratch folder itself too: the worker owns it and may chmod it 0o000. Root needs no bits (this suite may
    run as root), so the bits given back are counted as well as the tree's absence."""
    from grader.isolation.sandbox import remove_tree

    root = tmp_path / "scratch"
    (root / "hidden" / "inner").mkdir(parents=True)
    (root / "hidden" / "inner" / "input.txt").write_text("input", encoding="utf-8")
    (root / "locked").mkdir()
    (root / "locked" / "input.txt").write_text("input", encoding="utf-8")
    (root / "open").mkdir()
    os.chmod(root / "hidden" / "inner", 0o300)
    os.chmod(root / "hidden", 0o000)
    os.chmod(root / "locked", 0o500)
    os.chmod(root, 0o000)
    given, chmod = [], os.chmod
    monkeypatch.setattr(os, "chmod", lambda name, mode, **options: (given.append((os.path.basename(name), mode)),
                                                                     chmod(name, mode, **options))[-1])
    assert remove_tree(str(root)) is True
    assert not root.exists()
    assert sorted(given) == [("hidden", 0o700), ("inner", 0o700), ("locked", 0o700), ("scratch", 0o700)]


DEEP = r'''
import os

def handle(depth):
    fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(os.open("inputs.txt", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd))
    os.close(fd)
    return depth
'''


@POSIX_PATH
def test_a_worker_s_tree_too_deep_for_rmtree_goes_with_the_sandbox(monkeypatch):
    """The attacker trial's tree, made past the guard (native code did it; here the guard is off): 990 nested
    folders in scratch, fewer entries than its bound but more than shutil.rmtree recursed through. Closing the
    sandbox removes all of it."""
    sandbox, outcome = run_unguarded(monkeypatch, DEEP, args=(990,))
    scratch = sandbox.scratch
    try:
        assert outcome.problem is None and outcome.results[0]["result"]["plain"] == 990, outcome
        assert os.path.isdir(os.path.join(scratch, *["d"] * 10))
    finally:
        sandbox.close()
    assert not os.path.lexists(scratch)

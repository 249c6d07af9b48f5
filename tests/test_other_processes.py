"""No submission reads another process or loads native code past the guard, on either transport (issue 41).

On the portable transport a submission opened ``/proc/<grader's pid>/mem`` and printed hidden cases; a batch's
``/proc/<ppid>/cmdline`` named classmates' files; a shared object written into scratch, a subinterpreter and Tcl
each ran native code the audit hooks never see. Three walls stand now, each tested alone here:

- the grader is non-dumpable (``kernel_rules.hide_memory``): a reader of the same user is refused by the kernel;
- the guard alone (the kernel's rules left out, as on macOS and Windows) refuses ``/proc/<pid>/...`` of any pid but
  the worker's own, and extension modules that are not on its allow-list or not in the standard library's folder;
- the kernel's rules alone (the guard off) refuse the grader's memory on both transports (Landlock's ptrace scope).

The shared design "isolation", sections 2 and 4; its section 5 for how the tests start and stop processes.
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from grader.isolation import kernel_rules
from grader.isolation import sandbox as sandbox_module
from grader.isolation.limits import Limits
from grader.isolation.sandbox import Sandbox
from grader.judging.harness import Responder, Transcript
from grader.judging.scripted_models import NeverCorrects

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and the kernel's rules are Linux's")

UNGUARDED = sandbox_module.WORKER_SOURCE.replace("    sys.addaudithook(hook)", "    pass  # guard off for this test")
REFUSED_PROC = "refused: PermissionError: the grader does not allow reading another process's files in /proc"


@pytest.fixture
def sibling():
    """A process of this test's own (``sleep``), standing for a classmate's worker; killed by its pid after."""
    process = subprocess.Popen(["sleep", "60"])
    assert process.pid > 1
    try:
        yield process.pid
    finally:
        process.kill()
        process.wait(timeout=10)


def outcome_of(monkeypatch, code, args=(), guard=True, kernel=True):
    """``handle(*args)``'s plain result in a worker with the guard and the kernel's rules as asked (dict)."""
    if not guard:
        monkeypatch.setattr(sandbox_module, "WORKER_SOURCE", UNGUARDED)
    if not kernel:
        monkeypatch.setattr(kernel_rules, "prepare", lambda scratch, processes=True: None)
    sandbox = Sandbox(Limits(case_seconds=20.0))
    try:
        sandbox.begin_load([{"label": "probe.py", "kind": "file", "code": code}], ["handle"])
        assert sandbox.load().fatal is None
        outcome = sandbox.run("handle", [list(args)], {}, Responder(Transcript(), NeverCorrects("{}"), lambda n, a: "ok"))
    finally:
        sandbox.close()
    assert outcome.problem is None, outcome.problem
    return outcome.results[0]["result"]["plain"]


READS = r'''
import os

def attempt(action):
    try:
        value = action()
        return "read" if value else "empty"
    except Exception as exc:
        return "refused: " + type(exc).__name__ + ": " + str(exc).replace(" in a submission", "")[:160]

def read(path, size=64):
    with open(path, "rb", buffering=0) as handle:
        return handle.read(size)

def handle(sibling):
    grader = os.getppid()
    return {
        "grader's memory": attempt(lambda: read(f"/proc/{grader}/maps")),
        "grader's command line": attempt(lambda: read(f"/proc/{grader}/cmdline")),
        "grader through /proc/self/..": attempt(lambda: read(f"/proc/self/../{grader}/environ")),
        "grader's descriptors": attempt(lambda: os.listdir(f"/proc/{grader}/fd")),
        "sibling's command line": attempt(lambda: read(f"/proc/{sibling}/cmdline")),
        "the machine's first process": attempt(lambda: read("/proc/1/cmdline")),
        "own status": attempt(lambda: read("/proc/self/status")),
        "own status by its id": attempt(lambda: read(f"/proc/{os.getpid()}/status")),
        "own thread": attempt(lambda: read("/proc/thread-self/stat")),
    }
'''


def test_the_guard_alone_refuses_every_other_process_in_proc(monkeypatch, transport, sibling):
    """With the kernel's rules left out (macOS, Windows, old kernels: the guard is all there is), the grader's
    memory and command line, a path that climbs out of /proc/self, and a sibling are refused; the worker's own
    /proc files still read (a submission may look at its own status)."""
    answers = outcome_of(monkeypatch, READS, [sibling], kernel=False)
    for route in ("grader's memory", "grader's command line", "grader through /proc/self/..", "grader's descriptors",
                  "sibling's command line", "the machine's first process"):
        assert answers[route] == REFUSED_PROC, (route, answers)
    assert answers["own status"] == answers["own status by its id"] == answers["own thread"] == "read", answers


def test_the_control_reads_every_process_without_the_guard_or_the_kernel_s_rules(monkeypatch, transport, sibling):
    """The control for the test above: with neither wall, the same reads succeed, so the refusals mean something."""
    answers = outcome_of(monkeypatch, READS, [sibling], guard=False, kernel=False)
    assert answers["grader's command line"] == answers["sibling's command line"] == "read", answers
    assert answers["grader's descriptors"] == "read", answers


@pytest.mark.skipif(kernel_rules.abi_version() == 0, reason="this kernel has no Landlock: the guard refuses /proc here")
def test_the_kernel_s_rules_alone_refuse_the_grader_on_both_transports(monkeypatch, transport, sibling):
    """The guard off, the kernel's rules on: Landlock grants no /proc but the worker's own (its ptrace scope), so
    the portable transport, which had no kernel rule, no longer opens the grader's memory (issue 41)."""
    answers = outcome_of(monkeypatch, READS, [sibling], guard=False)
    for route in ("grader's memory", "grader's command line", "sibling's command line"):
        assert answers[route].startswith("refused: PermissionError: [Errno 13]"), (route, answers)


# A reader of the same user opens a parent's /proc/<pid>/mem; after hide_memory in the parent it cannot. Run in a
# process of its own (as another user where this test runs as root: root's CAP_SYS_PTRACE passes any dumpable
# setting, the shared design "isolation", section 2), never in the test's process.
DUMPABLE = r'''
import json, os, sys
from grader.isolation import kernel_rules
if os.geteuid() == 0:
    os.setgid(65534)
    os.setuid(65534)
if sys.argv[1] == "hide":
    assert kernel_rules.hide_memory()
else:  # setuid made this process non-dumpable (the kernel does so on a change of credentials): undo it
    assert kernel_rules._LIBC.prctl(kernel_rules.PR_SET_DUMPABLE, 1, 0, 0, 0) == 0
read_end, write_end = os.pipe()
pid = os.fork()
if pid == 0:
    try:
        with open(f"/proc/{os.getppid()}/mem", "rb") as handle:
            answer = "opened"
    except OSError as exc:
        answer = type(exc).__name__
    os.write(write_end, answer.encode())
    os._exit(0)
os.close(write_end)
answer = os.read(read_end, 100).decode()
os.waitpid(pid, 0)
print(json.dumps(answer))
'''


@pytest.mark.parametrize("hide", [True, False], ids=["non-dumpable", "control"])
def test_a_non_dumpable_grader_is_closed_to_a_reader_of_its_own_user(hide):
    process = subprocess.run([sys.executable, "-c", DUMPABLE, "hide" if hide else "keep"], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": ROOT}, capture_output=True, text=True, timeout=60)
    assert process.returncode == 0, process.stderr
    assert json.loads(process.stdout) == ("PermissionError" if hide else "opened")


# Native code past the audit hooks: a copy of a standard extension module in scratch (which is on sys.path), the
# same bytes under a name of its own, a subinterpreter (which has none of the guard's hooks), Tcl (which raises no
# audit event), and the test-only C modules. ``what`` answers "loaded", "absent: ..." where this Python lacks it,
# or "refused: ...".
NATIVE = r'''
import importlib, importlib.util, os
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader

# An allowed module this build has as a file (Debian's, for one, has many built in).
STANDARD = next(name for name in ("_bisect", "_asyncio", "_decimal", "_queue", "_uuid", "_zoneinfo", "_lzma", "_bz2",
                                  "_ssl", "_sqlite3", "_json", "math")
                if isinstance(getattr(importlib.util.find_spec(name), "loader", None), ExtensionFileLoader))

def copy_and_load(module, file_name):
    origin = importlib.util.find_spec(module).origin
    target = os.path.join(os.getcwd(), file_name + EXTENSION_SUFFIXES[0])
    with open(origin, "rb") as source, open(target, "wb") as copy:
        copy.write(source.read())
    spec = importlib.util.spec_from_file_location(module, target, loader=ExtensionFileLoader(module, target))
    return importlib.util.module_from_spec(spec)

def load_by_path(module, path):
    spec = importlib.util.spec_from_file_location(module, path, loader=ExtensionFileLoader(module, path))
    return importlib.util.module_from_spec(spec)

def what(action):
    try:
        action()
        return "loaded"
    except ModuleNotFoundError as exc:
        return "absent: " + str(exc)
    except Exception as exc:
        return "refused: " + type(exc).__name__ + ": " + str(exc).replace(" in a submission", "")

def subinterpreter():
    try:
        module = importlib.import_module("_xxsubinterpreters")
    except ModuleNotFoundError:
        module = importlib.import_module("_interpreters")  # 3.13 and later
    module.create()

def handle():
    return {
        "a standard module copied into scratch": what(lambda: copy_and_load(STANDARD, STANDARD)),
        "a test module under a name of its own": what(lambda: copy_and_load("_testcapi", "helper")),
        # The right file by a path that leads there through a link: refused as written (a link in scratch could be
        # turned elsewhere between the check and the load).
        "a standard module through a link": what(
            lambda: load_by_path(STANDARD, "/proc/self/root" + importlib.util.find_spec(STANDARD).origin)),
        "the module that was copied": STANDARD,
        "a subinterpreter": what(subinterpreter),
        "_testcapi": what(lambda: importlib.import_module("_testcapi")),
        "Tcl": what(lambda: importlib.import_module("tkinter").Tcl().eval("info patchlevel")),
        "_ctypes_test": what(lambda: importlib.import_module("_ctypes_test")),
        "an allowed module": what(lambda: importlib.import_module("_statistics")),
    }
'''


def test_the_guard_alone_loads_only_allowed_extension_modules_from_the_standard_library(monkeypatch, transport):
    """With the kernel's rules left out, the guard's allow-list and folder check refuse each native door (the
    shared design "isolation", section 4, fixes 2 and 3); an allowed module of the standard library still loads."""
    answers = outcome_of(monkeypatch, NATIVE, kernel=False)
    standard = answers.pop("the module that was copied")
    assert answers.pop("an allowed module") == "loaded"
    assert answers.pop("a standard module copied into scratch") == \
        f"refused: PermissionError: the grader does not allow importing {standard}", answers
    assert answers.pop("a standard module through a link") == \
        f"refused: PermissionError: the grader does not allow importing {standard}", answers
    for route, answer in answers.items():
        if answer.startswith("absent") or "'NoneType' object has no attribute 'origin'" in answer:
            continue  # a Python built without Tcl or the test modules
        assert answer.startswith("refused: PermissionError: the grader does not allow importing "), (route, answer)
    assert answers["a subinterpreter"].startswith("refused: PermissionError"), answers  # every 3.11+ build has one


def test_the_control_loads_every_native_door_without_the_guard(monkeypatch, transport):
    """The control: without the guard (and the kernel's rules, which would stop what the code does next) the
    copies and the test modules load, so the refusals above are the guard's."""
    answers = outcome_of(monkeypatch, NATIVE, guard=False, kernel=False)
    for route in ("a standard module copied into scratch", "a subinterpreter", "an allowed module",
                  "a standard module through a link"):
        assert answers[route] == "loaded", (route, answers)
    for route in ("a test module under a name of its own", "_testcapi"):  # where this build has _testcapi
        assert answers[route] == "loaded" or "_testcapi" in answers[route], (route, answers)


# Issue 41's attacker trial: OPENSSL_CONF pointed at a file in scratch whose provider is a shared object there, then
# ``import ssl``: OpenSSL loaded it in C, with no audit event. A copy of OpenSSL's own legacy provider stands for the
# attacker's shared object (the test needs no compiler); whether OpenSSL loaded it shows in /proc/self/maps.
OPENSSL = r'''
import os

def handle(provider):
    shared = os.path.join(os.getcwd(), "provider.so")
    with open(provider, "rb") as source, open(shared, "wb") as copy:
        copy.write(source.read())
    with open("provider.cnf", "w") as config:
        config.write("openssl_conf = init\n[init]\nproviders = providers\n[providers]\nmine = mine\n"
                     "default = default\n[default]\nactivate = 1\n[mine]\nmodule = %s\nactivate = 1\n" % shared)
    try:
        os.environ["OPENSSL_CONF"] = os.path.join(os.getcwd(), "provider.cnf")
        set_it = "set"
    except Exception as exc:
        set_it = "refused: " + type(exc).__name__ + ": " + str(exc).replace(" in a submission", "")
    import ssl  # noqa: F401
    with open("/proc/self/maps") as maps:
        mapped = shared in maps.read()
    return {"environment": set_it, "mapped": mapped}
'''


def openssl_provider():
    """OpenSSL 3's legacy provider on this machine (str), or skip the test saying why."""
    import glob
    import ssl

    if ssl.OPENSSL_VERSION_INFO < (3,):
        pytest.skip(f"{ssl.OPENSSL_VERSION} loads no providers from its configuration")
    found = sorted(path for pattern in ("/usr/lib*/ossl-modules/legacy.so", "/usr/lib/*/ossl-modules/legacy.so",
                                        "/usr/local/lib*/ossl-modules/legacy.so") for path in glob.glob(pattern))
    if not found:
        pytest.skip("no OpenSSL legacy provider (ossl-modules/legacy.so) under /usr/lib*")
    return found[0]


def test_the_environment_cannot_point_openssl_at_a_shared_object_in_scratch(monkeypatch, transport):
    """The guard refuses changing the environment (os.putenv), so OpenSSL reads only the grader's configuration."""
    answers = outcome_of(monkeypatch, OPENSSL, [openssl_provider()], kernel=False)
    assert answers == {"environment": "refused: PermissionError: the grader does not allow os.putenv",
                       "mapped": False}, answers


def test_the_control_openssl_loads_the_shared_object_named_by_the_environment(monkeypatch):
    """The control: with neither the guard nor the kernel's rules, the same steps load the copy in scratch."""
    answers = outcome_of(monkeypatch, OPENSSL, [openssl_provider()], guard=False, kernel=False)
    assert answers == {"environment": "set", "mapped": True}, answers


LINKS = r'''
import ctypes, os

def fifo():  # os.mkfifo is removed from the worker whatever the guard (it raises no audit event)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mkfifo(b"pipe", 0o600) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))

def handle():
    done = {}
    for kind, make in (("symbolic link", lambda: os.symlink("/etc/passwd", "link")),
                       ("named pipe", fifo),
                       ("hard link", lambda: (open("file", "w").close(), os.link("file", "hard")))):
        try:
            make()
            done[kind] = "made"
        except Exception as exc:
            done[kind] = type(exc).__name__
    return done
'''


@pytest.mark.skipif(kernel_rules.abi_version() == 0, reason="this kernel has no Landlock")
def test_native_code_makes_no_link_or_pipe_in_scratch(monkeypatch, transport):
    """Past the guard (off here), native code made a symbolic link in scratch (issue 41's attacker trial); Landlock
    now refuses links and pipes there on both transports. A hard link needs no right of its own (it names a file
    the worker may already write, inside scratch) and is still made."""
    answers = outcome_of(monkeypatch, LINKS, guard=False)
    assert answers == {"symbolic link": "PermissionError", "named pipe": "PermissionError", "hard link": "made"}, answers
    control = outcome_of(monkeypatch, LINKS, guard=False, kernel=False)
    assert control == {"symbolic link": "made", "named pipe": "made", "hard link": "made"}, control


ATTACH = r'''
import sqlite3

def handle(path):
    connection = sqlite3.connect(":memory:")
    try:
        connection.execute("ATTACH DATABASE ? AS outside", (path,))
        connection.execute("CREATE TABLE outside.t (x)")
        return "attached"
    except Exception as exc:
        return type(exc).__name__ + ": " + str(exc)
'''


@pytest.mark.skipif(kernel_rules.abi_version() == 0, reason="this kernel has no Landlock: the guard alone lets it by")
def test_sql_attach_opens_no_file_outside_scratch(monkeypatch, tmp_path, transport):
    """ATTACH DATABASE on an allowed ':memory:' connection opens a file in C with no audit event (issue 41's
    attacker trial): the guard does not see it, and Landlock refuses it, on both transports."""
    outside = tmp_path / "outside.db"
    answer = outcome_of(monkeypatch, ATTACH, [str(outside)])
    assert answer.startswith("OperationalError: unable to open database"), answer  # its wording varies by version
    assert not outside.exists()


# Issue 41's second attacker trial: past the guard (crafted bytecode, machine code), a submission ran /bin/sh with
# execve, which the filter leaves alone (the worker's own start is an execve). Landlock now lets only the
# interpreter and its loader run. Tried in a child process of its own, never in the test's.
EXECS = r'''
import os, sys
from grader.isolation import kernel_rules
if sys.argv[1] == "broad":
    kernel_rules._programs = lambda: []  # the rule before the trial: run anything that may be read
plan = kernel_rules.prepare(sys.argv[2])
kernel_rules.apply(plan)
try:
    os.execv("/bin/true", ["true"])
except OSError as exc:
    print(type(exc).__name__)
    sys.exit(3)
'''


@pytest.mark.skipif(kernel_rules.abi_version() == 0 or not os.path.exists("/bin/true"),
                    reason="this kernel has no Landlock, or this system no /bin/true")
@pytest.mark.parametrize("rule", ["narrow", "broad"], ids=["only the interpreter", "control"])
def test_a_worker_runs_no_program_but_its_interpreter(tmp_path, rule):
    assert kernel_rules._programs()[0] == os.path.realpath(sys.executable)
    process = subprocess.run([sys.executable, "-c", EXECS, rule, str(tmp_path)], cwd=ROOT, capture_output=True,
                             text=True, timeout=60, env={**os.environ, "PYTHONPATH": ROOT})
    if rule == "narrow":
        assert (process.returncode, process.stdout.strip()) == (3, "PermissionError"), process.stderr
    else:
        assert process.returncode == 0, process.stdout + process.stderr  # /bin/true ran


def test_the_grading_worker_still_starts_and_a_shell_is_refused_past_the_guard(monkeypatch, transport):
    """The worker itself (the interpreter) still starts under the narrower rule on both transports; with the guard
    off, os.execv of /bin/sh is refused by the kernel where Landlock is (by the guard's os.exec refusal otherwise)."""
    code = ("import os\n"
            "def handle():\n"
            "    try:\n"
            "        os.execv('/bin/sh', ['sh', '-c', 'exit 0'])\n"
            "    except OSError as exc:\n"
            "        return type(exc).__name__\n")
    if kernel_rules.abi_version() == 0:
        pytest.skip("this kernel has no Landlock")
    assert outcome_of(monkeypatch, code, guard=False) == "PermissionError"

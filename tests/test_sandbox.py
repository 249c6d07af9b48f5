"""The worker protocol's bounds, driven directly: a retry loop is halted without restarting the worker."""

import pytest

from grader.harness import Responder, Transcript
from grader.models import NeverCorrects
from grader.sandbox import HALT_GRACE, Limits, Sandbox

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
    assert outcome.stopped == "limit"
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


# -- the kernel's boundary (Landlock), tested with the audit-hook guard switched off -------------

from grader import confine  # noqa: E402
from grader import sandbox as sandbox_module  # noqa: E402

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


@pytest.mark.skipif(confine.abi_version() < 6, reason="this kernel has no Landlock ABI 6 (Linux 6.12+)")
def test_landlock_holds_where_the_guard_is_gone(monkeypatch, tmp_path):
    """The audit hook is Python and can be subverted; the kernel's rules must hold without it."""
    from conftest import ROOT

    monkeypatch.setattr(sandbox_module, "WORKER_SOURCE", UNGUARDED)
    sandbox = Sandbox(Limits(case_seconds=10.0))
    try:
        sandbox.begin_load([{"label": "probe.py", "kind": "file", "code": PROBE}], ["handle"])
        assert sandbox.load().fatal is None
        outside = tmp_path / "forged.json"
        transcript = Transcript()
        outcome = sandbox.run("handle", [[f"{ROOT}/grader/cases/tool_call/test_01_parsing.py", str(outside)]], {},
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


def test_a_worker_that_cannot_be_confined_is_not_started_and_every_case_says_why(monkeypatch, tmp_path):
    """If the kernel refuses the confinement, grading must not go on unconfined, nor crash."""
    from grader.run import grade

    def refuse(plan):
        raise OSError(1, "landlock_restrict_self failed")

    monkeypatch.setattr(confine, "apply", refuse)
    monkeypatch.setattr(confine, "prepare", lambda scratch: ("a plan",))
    submission = tmp_path / "s.py"
    submission.write_text("def handle_tool_call(raw, ask_model):\n    return None\n")
    result = grade(submission)
    assert result.score == 0 and len(result.cases) == 124
    assert all("could not start the process that runs submissions (SubprocessError" in c.feedback for c in result.cases)

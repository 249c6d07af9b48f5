"""Which walls stand around the worker, and the line every report carries (issue 42).

The namespaces are a second wall (tests/test_network_walls.py shows what they keep out); here: they are probed
once and refused cleanly, the worker still starts and grades where they are refused, and the status names each
wall's state in the text report, results.json, JUnit and ``python -m grader --isolation``. A refusal is made real
by running the grader in a user namespace of the test's own whose limit of nested user namespaces is 0 (the
shared design "isolation", section 3: ENOSPC, the host's setting untouched), and simulated by a probe that answers
EPERM, where this system cannot make one.
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, run_grader

from grader.isolation import kernel_rules, protections
from grader.isolation.protections import Wall, walls, walls_line, walls_table
from grader.results.formats import gradescope_results, junit_xml
from grader.results.grade_result import GradeResult
from grader.results.text_report import text_report

LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's walls are Linux's")
SOLVED = os.path.join(ROOT, "solutions", "notebooks", "01_parsing.ipynb")
ENOSPC = "refused with ENOSPC: the limit of user namespaces (user.max_user_namespaces) is reached"


def refuse(*ids):
    raise OSError(1, "unshare")  # as Docker's default seccomp profile answers: EPERM, nothing changed


@pytest.fixture
def refused(monkeypatch):
    """The namespaces refused for this test only, as a system that forbids them would: in the worker's start (the
    forked child calls this module's patched ``enter_namespaces``) and in the probe that then learns why."""
    monkeypatch.setattr(kernel_rules, "_NAMESPACES", [])
    monkeypatch.setattr(kernel_rules, "enter_namespaces", refuse)
    monkeypatch.setattr(kernel_rules, "_probe_namespaces",
                        lambda: "refused with EPERM: " + kernel_rules.NAMESPACE_REASONS["EPERM"])
    return "refused with EPERM: " + kernel_rules.NAMESPACE_REASONS["EPERM"]


def test_the_walls_come_in_one_order_and_the_guard_always_stands():
    listed = walls()
    assert [wall.name.partition(" ABI")[0] for wall in listed] == list(protections.WALLS)
    assert listed[-1].standing and listed[-1].name == "audit-hook guard"
    for wall in listed:
        assert wall.detail and "\n" not in wall.detail, wall


@LINUX
def test_on_linux_the_kernel_s_walls_say_what_this_kernel_gives():
    by_name = {wall.name.partition(" ABI")[0]: wall for wall in walls()}
    refusal = kernel_rules.namespace_refusal()
    assert by_name["namespaces"].standing is (refusal is None)
    assert by_name["namespaces"].detail == (refusal or "a user and a network namespace of its own: no network device, "
                                                       "no tracing of processes outside")
    assert by_name["seccomp filter"].standing is kernel_rules.seccomp_available()
    version = kernel_rules.abi_version()
    assert by_name["Landlock"].standing is bool(version)
    assert by_name["Landlock"].name == (f"Landlock ABI {version}" if version else "Landlock")
    # The plan the worker gets agrees with the status: what the report claims is what the worker is given.
    plan = kernel_rules.prepare(ROOT)
    assert (plan.namespaces is not None) is (refusal is None)
    assert (plan.landlock is not None) is bool(version)


@LINUX
def test_refused_namespaces_are_named_and_leave_the_other_walls(refused, tmp_path):
    assert refused == "refused with EPERM: the system forbids them here (a container's seccomp profile, or a " \
                      "security module)"
    assert kernel_rules.namespace_refusal() == refused  # asked before any worker started: the probe answers
    assert kernel_rules.prepare(str(tmp_path)).namespaces is None
    line = walls_line()
    assert line.endswith(f"; missing: namespaces ({refused}).")
    assert line.startswith("Isolation: ") and "audit-hook guard" in line and "namespaces," not in line
    table = walls_table().splitlines()
    assert [row.split()[:3] for row in table if row.startswith("  namespaces")] == [["namespaces", "no", "refused"]]


@LINUX
def test_a_worker_starts_and_grades_where_the_namespaces_are_refused(refused):
    """The probe made to fail (EPERM): the notebook grades as it does with them, and its report and results say
    which wall was missing and why."""
    from grader.pipeline import grade as grade_in_process

    result = grade_in_process(SOLVED, seed="walls")
    assert kernel_rules._NAMESPACES == [refused]  # learnt from the first worker's start, not asked before
    assert result.error is None and result.score == result.max_score > 0, text_report(result)
    assert result.isolation == walls_line() and f"missing: namespaces ({refused})" in result.isolation
    assert text_report(result).splitlines()[-1] == result.isolation
    assert gradescope_results(result)["extra_data"]["isolation"] == result.isolation


@LINUX
def test_where_namespaces_are_made_the_first_worker_is_the_probe(monkeypatch):
    """Where the system makes them, no probe process runs (the design's budget: about 1 ms per worker): the first
    worker's start answers, and the report names the namespaces first."""
    if kernel_rules.namespace_refusal():
        pytest.skip(f"no user namespaces here: {kernel_rules.namespace_refusal()}")
    from grader.pipeline import grade as grade_in_process

    monkeypatch.setattr(kernel_rules, "_NAMESPACES", [])
    monkeypatch.setattr(kernel_rules, "_probe_namespaces", lambda: pytest.fail("probed although a worker got them"))
    result = grade_in_process(SOLVED, seed="walls")
    assert kernel_rules._NAMESPACES == [None]
    assert result.score == result.max_score > 0 and result.isolation.startswith("Isolation: namespaces, ")


def test_the_line_lists_what_stands_then_what_is_missing_and_why():
    listed = [Wall("namespaces", False, "refused with EINVAL: this kernel has no user namespaces"),
              Wall("seccomp filter", True, "x86_64: ..."), Wall("Landlock", False, "not in this kernel"),
              Wall("audit-hook guard", True, "hooks")]
    assert walls_line(listed) == ("Isolation: seccomp filter, audit-hook guard; missing: namespaces (refused with "
                                  "EINVAL: this kernel has no user namespaces); Landlock (not in this kernel).")
    assert walls_line([Wall("audit-hook guard", True, "hooks")]) == "Isolation: audit-hook guard."
    table = walls_table(listed).splitlines()
    assert table[1:5] == ["  namespaces        no   refused with EINVAL: this kernel has no user namespaces",
                          "  seccomp filter    yes  x86_64: ...", "  Landlock          no   not in this kernel",
                          "  audit-hook guard  yes  hooks"]
    assert table[-1] == "What each covers and what stays open, per system: docs/threat-model.md."


def test_off_linux_only_the_guard_stands(monkeypatch):
    monkeypatch.setattr(protections.sys, "platform", "darwin")
    listed = walls(portable=False)
    assert [wall.name for wall in listed if wall.standing] == ["audit-hook guard"]
    assert {wall.detail.partition(";")[0] for wall in listed[:-1]} == {"Linux's kernel only"}


@LINUX
def test_each_state_of_the_kernel_s_walls_reads_as_it_is(monkeypatch, refused):
    """No seccomp for this architecture, no Landlock, Landlock before TCP rules: each named, nothing claimed."""
    monkeypatch.setattr(kernel_rules, "seccomp_available", lambda: False)
    monkeypatch.setattr(kernel_rules, "abi_version", lambda: 0)
    monkeypatch.setattr(protections.platform, "machine", lambda: "riscv64")
    line = walls_line()
    assert line.startswith("Isolation: capabilities given up, child subreaper, audit-hook guard; missing: ")
    assert "seccomp filter (none for this kernel or architecture (riscv64))" in line
    assert "Landlock (not in this kernel (Linux 5.13 and later))" in line
    monkeypatch.setattr(kernel_rules, "abi_version", lambda: 3)
    landlock = next(wall for wall in walls() if wall.name.startswith("Landlock"))
    assert landlock == Wall("Landlock ABI 3", True, "write only in scratch, read only Python and the system's "
                                                    "libraries, run only Python")


def test_every_format_carries_the_line_and_none_when_nothing_ran():
    line = "Isolation: seccomp filter, audit-hook guard; missing: namespaces (refused with EPERM: x)."
    result = GradeResult(submission="s.py", seed="abc", isolation=line)
    assert gradescope_results(result)["extra_data"]["isolation"] == line
    assert f'<property name="isolation" value="{line}" />' in junit_xml(result)
    assert text_report(result).splitlines()[-1] == line
    bare = GradeResult(submission="s.py", seed="abc")
    assert "isolation" not in gradescope_results(bare)["extra_data"] and "Isolation" not in text_report(bare)


def test_the_command_prints_the_walls_and_wants_a_submission_otherwise():
    process = subprocess.run([sys.executable, "-m", "grader", "--isolation"], cwd=ROOT, capture_output=True,
                             text=True, timeout=120)
    assert process.returncode == 0, process.stderr
    lines = process.stdout.splitlines()
    assert lines[0].startswith("Walls around a worker started on this machine now")
    assert [line.split()[0] for line in lines[1:-1]] == ["namespaces", "seccomp", "Landlock", "capabilities",
                                                         "child", "audit-hook"]
    missing = subprocess.run([sys.executable, "-m", "grader"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines()[-1] == ("python -m grader: error: the following arguments are "
                                                       "required: submission (or --isolation)")


def _nested_namespaces_closed():
    """Why a user namespace whose own limit is 0 cannot be made here (str), or None when it can."""
    if shutil.which("unshare") is None:
        return "util-linux's unshare is not installed"
    try:
        made = subprocess.run(["unshare", "--user", "--map-root-user", "sh", "-c",
                               "echo 0 > /proc/sys/user/max_user_namespaces"], capture_output=True, text=True,
                              timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unshare could not run ({type(exc).__name__})"
    return None if made.returncode == 0 else f"no user namespace of the test's own: {made.stderr.strip()[:200]}"


@LINUX
def test_a_real_refusal_grades_the_same_and_says_enospc(tmp_path):
    """The design's measured refusal: inside a user namespace whose limit of user namespaces is 0, the grader's probe
    gets ENOSPC; grading goes on with the other walls, scores what it scores outside, and says why."""
    closed = _nested_namespaces_closed()
    if closed:
        pytest.skip(closed)
    command = [sys.executable, "-m", "grader", SOLVED, "--seed", "walls", "--results"]
    inside = subprocess.run(["unshare", "--user", "--map-root-user", "sh", "-c",
                             'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"', "sh", *command,
                             str(tmp_path / "inside.json")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert inside.returncode == 0, inside.stderr
    outside, expected = run_grader(SOLVED, "--seed", "walls", results=tmp_path / "outside.json")
    with open(tmp_path / "inside.json", encoding="utf-8") as handle:
        results = json.load(handle)
    assert f"missing: namespaces ({ENOSPC})" in results["extra_data"]["isolation"]
    assert inside.stdout.splitlines()[-1] == results["extra_data"]["isolation"]
    assert results["score"] == expected["score"] > 0
    assert [test["score"] for test in results["tests"]] == [test["score"] for test in expected["tests"]]

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
ENOSPC = "refused with ENOSPC: user namespaces are switched off here (user.max_user_namespaces is 0)"


def refuse(*ids):
    raise OSError(1, "unshare")  # as Docker's default seccomp profile answers: EPERM, nothing changed


def refuse_the_map(*ids):
    raise OSError(13, "uid_map")  # as Ubuntu's AppArmor restriction does: the namespace is made, its ids refused


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
    assert [row.split()[:3] for row in table if row.startswith("  namespaces ")] == [["namespaces", "no", "refused"]]
    # What to do about it, which the instructor's trial missed.
    assert "What a missing wall means:" in table
    assert f"  namespaces: {protections.REMEDIES['namespaces']}" in table


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


@LINUX
def test_a_system_that_refuses_the_id_map_still_grades(monkeypatch, transport):
    """Issue 42's attacker trial: where the namespace is made but its ids are refused (Ubuntu's AppArmor
    restriction), the worker's start failed and every case scored 0. The start is now tried once more without
    namespaces, on either transport, and the report says why they are missing."""
    from grader.pipeline import grade as grade_in_process

    reason = "refused with EACCES: the user namespace was made but its uid_map was refused"
    monkeypatch.setattr(kernel_rules, "_NAMESPACES", [])
    monkeypatch.setattr(kernel_rules, "enter_namespaces", refuse_the_map)
    monkeypatch.setattr(kernel_rules, "_probe_namespaces", lambda: reason)
    result = grade_in_process(SOLVED, seed="walls")
    assert result.error is None and result.score == result.max_score > 0, text_report(result)
    assert kernel_rules._NAMESPACES == [reason]
    assert result.isolation.endswith(f"; missing: namespaces ({reason}).")


@LINUX
def test_a_failed_start_not_caused_by_namespaces_is_reported_and_stays_confined(monkeypatch, tmp_path):
    """A start that fails for another reason (the probe makes namespaces fine) is not retried less confined: the
    failure is reported as before, and the transport's plan is the one it had."""
    from grader.isolation.transport_posix import PosixTransport

    transport = PosixTransport(str(tmp_path))
    before = transport.confinement
    if before is None or not before.namespaces:
        pytest.skip("no namespaces in this system's plan")
    monkeypatch.setattr(kernel_rules, "enter_namespaces", refuse_the_map)
    monkeypatch.setattr(kernel_rules, "_probe_namespaces", lambda: None)
    assert kernel_rules.without_refused_namespaces(before) is None
    assert transport.confinement is before and kernel_rules.without_refused_namespaces(None) is None
    tried = []

    def fails(plan):
        tried.append(plan)
        raise subprocess.SubprocessError("Exception occurred in preexec_fn.")

    with pytest.raises(subprocess.SubprocessError):
        kernel_rules.start_confined(fails, before)
    assert tried == [before]  # tried once, with the whole plan; nothing started with less


@LINUX
def test_a_worker_refused_after_others_got_them_is_not_claimed(monkeypatch):
    """Issue 42's attacker trial: with the system's limit reached between two gradings, the second's worker ran
    without namespaces while its report still named them. Every worker is looked at now."""
    from grader.pipeline import grade as grade_in_process

    monkeypatch.setattr(kernel_rules, "_NAMESPACES", [None])  # an earlier worker got them
    monkeypatch.setattr(kernel_rules, "enter_namespaces", refuse)
    monkeypatch.setattr(kernel_rules, "_probe_namespaces", lambda: None)  # and the probe, later, gets them too
    result = grade_in_process(SOLVED, seed="walls")
    assert result.score == result.max_score > 0
    assert result.isolation.endswith("; missing: namespaces (refused when a worker started (a limit reached "
                                     "meanwhile), not when probed).")
    assert kernel_rules.prepare(ROOT).namespaces is None  # and later workers do not ask again


CAPABILITIES = r"""
import subprocess, sys
from grader.isolation import kernel_rules
plan = kernel_rules.prepare(sys.argv[1])._replace(landlock=None, seccomp=(None, None, []), namespaces=None)
child = subprocess.run([sys.executable, "-c", "print(*[line.split()[1] for line in open('/proc/self/status') "
                        "if line.startswith(('CapEff', 'CapPrm'))])"],
                       preexec_fn=lambda: kernel_rules.apply(plan), capture_output=True, text=True, timeout=60)
print(child.stdout.strip() or child.stderr[-300:])
"""


@LINUX
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="only a root grader has capabilities to give up, and the test needs util-linux's setpriv")
def test_a_root_grader_without_cap_setpcap_gives_its_worker_none(tmp_path):
    """Issue 42's attacker trial: a root grader without CAP_SETPCAP cannot empty the bounding set, and its worker,
    without Landlock and the filter (no no_new_privs), took every capability back at exec. no_new_privs now comes
    with giving them up."""
    process = subprocess.run(["setpriv", "--bounding-set", "-setpcap", sys.executable, "-c", CAPABILITIES,
                              str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120,
                             env={**os.environ, "PYTHONPATH": ROOT})
    assert process.stdout.split() == ["0000000000000000", "0000000000000000"], process.stdout + process.stderr


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
    # 0 when every wall stands, 1 when one is missing: a script checking a grading machine reads the status.
    assert process.returncode == (0 if all(wall.standing for wall in walls()) else 1), process.stderr
    lines = process.stdout.splitlines()
    assert lines[0].startswith("Walls around a worker started on this machine now")
    assert [line.split()[0] for line in lines[1:7]] == ["namespaces", "seccomp", "Landlock", "capabilities",
                                                        "child", "audit-hook"]
    assert lines[-1] == "What each covers and what stays open, per system: docs/threat-model.md."
    refused = subprocess.run([sys.executable, "-m", "grader", "--isolation", "x.py"], cwd=ROOT, capture_output=True,
                             text=True, timeout=120)
    assert refused.returncode == 2 and refused.stderr.strip().splitlines()[-1] == (
        "python -m grader: error: --isolation grades nothing: leave out the submission")
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
    status = subprocess.run(["unshare", "--user", "--map-root-user", "sh", "-c",
                             'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"', "sh", sys.executable, "-m",
                             "grader", "--isolation"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert status.returncode == 1 and f"  namespaces: {protections.REMEDIES['namespaces']}" in status.stdout
    assert inside.stdout.splitlines()[-1] == results["extra_data"]["isolation"]
    assert results["score"] == expected["score"] > 0
    assert [test["score"] for test in results["tests"]] == [test["score"] for test in expected["tests"]]


def test_the_batch_console_names_the_walls_of_every_student():
    """Issue 42's attacker trial: the console's own line named namespaces that one pool process's workers lacked.
    It now joins the students' lines, with how many each holds for when they differ."""
    from grader.classroom.batch import walls_lines

    standing = "Isolation: namespaces, seccomp filter, audit-hook guard."
    refused = "Isolation: seccomp filter, audit-hook guard; missing: namespaces (refused with ENOSPC: the limit)."
    assert walls_lines([{"isolation": standing}, {"isolation": standing}]) == [standing]
    assert walls_lines([{"isolation": standing}, {"isolation": refused}, {"isolation": standing}, {}]) == [
        "Isolation: namespaces, seccomp filter, audit-hook guard (2 students).",
        "Isolation: seccomp filter, audit-hook guard; missing: namespaces (refused with ENOSPC: the limit) (1 student)."]
    assert walls_lines([{"isolation": None}, {"student": "stored before the line existed"}]) == []

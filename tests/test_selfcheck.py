"""The notebook self-check: fast, in-process, polite, and honest about what it checks."""

from course.assemble import seed_form
from grader.learner import selfcheck
from grader.learner.selfcheck import SelfCheckReport, check
from grader.judging.visible_cases import TOOL_CALL_CASES as VISIBLE_CASES


def load(source):
    namespace = {"__name__": "learner"}
    exec(compile(source, "learner", "exec"), namespace)
    return namespace


def test_reference_passes_every_visible_case():
    report = check(load(seed_form())["handle_tool_call"])
    assert report.passed == len(VISIBLE_CASES) == 6
    assert "not the same as passing" in report.summary()


def test_stub_fails_every_case_without_raising():
    stub = load("TOOLS = {}\ndef handle_tool_call(raw, ask_model):\n    ...\n")
    report = check(stub["handle_tool_call"])
    assert report.passed == 0
    assert all("behaves like the stub" in detail for _, ok, detail in report.rows)
    assert "0 of 6 visible checks passed" in str(report)
    assert "<table" in report._repr_html_() and "<td>✗</td>" in report._repr_html_()


def test_exceptions_and_endless_loops_become_rows(monkeypatch):
    monkeypatch.setattr(selfcheck, "CASE_SECONDS", 0.2)
    raising = load("def handle_tool_call(raw, ask_model):\n    raise KeyError('name')\n")["handle_tool_call"]
    rows = check(raising).rows
    assert len(rows) == 6 and all("raised KeyError" in d for _, _, d in rows)
    looping = load("def handle_tool_call(raw, ask_model):\n    while True:\n        pass\n")["handle_tool_call"]
    report = check(looping)
    assert len(report.rows) == 6 and all("did not finish within 0.2 s" in detail for _, _, detail in report.rows)


def test_learner_globals_are_restored_after_the_check():
    namespace = load(seed_form())
    namespace["dispatch"] = marker = object()
    tools = namespace["TOOLS"]
    check(namespace["handle_tool_call"])
    assert namespace["dispatch"] is marker and namespace["TOOLS"] is tools


def test_not_a_function():
    report = check(None)
    assert isinstance(report, SelfCheckReport) and report.passed == 0


def test_the_visible_cases_checks_table_is_current(tmp_path):
    """A student release answers the visible cases' checks from grader/judging/visible_checks.json (it has no reference);
    the table must be what the reference gives today (regenerate: python -m course.visible_checks)."""
    import json

    from grader.judging.registries import SEED_TOOLS
    from course.visible_checks import write_visible_table
    from grader.paths import VISIBLE_CHECKS_PATH
    from grader.judging.visible_cases import visible_raws

    fresh_table = tmp_path / "visible_checks.json"
    write_visible_table(visible_raws(), SEED_TOOLS, fresh_table)
    with open(VISIBLE_CHECKS_PATH, encoding="utf-8") as handle:
        committed = json.load(handle)
    assert committed == json.loads(fresh_table.read_text(encoding="utf-8"))
    assert len(committed) >= 7 and committed['{"name": "get_weather", "arguments": {"city": "Paris"}}']["observation"] is None


def test_the_build_tool_says_whether_the_checks_table_is_current(monkeypatch, tmp_path, capsys):
    """``python -m course.visible_checks --check``: 0 for the committed table, 1 (naming the command) for a stale one."""
    import shutil

    from course import visible_checks
    from grader.paths import VISIBLE_CHECKS_PATH

    assert visible_checks.main(["--check"]) == 0
    stale = tmp_path / "visible_checks.json"
    shutil.copyfile(VISIBLE_CHECKS_PATH, stale)
    stale.write_text(stale.read_text(encoding="utf-8").replace('"observation": null', '"observation": "x"', 1),
                     encoding="utf-8")
    monkeypatch.setattr(visible_checks, "VISIBLE_CHECKS_PATH", str(stale))
    assert visible_checks.main(["--check"]) == 1
    assert "stale: run python -m course.visible_checks" in capsys.readouterr().out


def test_the_capstone_self_check_voids_refusals_when_no_valid_call_is_dispatched():
    """The valid-call canary runs in the kernel too: a handler that refuses every call passes the visible refusals on
    their own, and the self-check voids them as the grader does. (The canary once called the kernel's harness with
    an argument it did not take; the TypeError was read as a canary that holds, and the refusals counted.)"""
    refuses = load("TOOLS = {}\n\ndef dispatch(name, arguments):\n    return None\n\n\n"
                   "def handle_tool_call(raw, ask_model):\n"
                   "    ask_model('That tool call is not valid: check its name and arguments.')\n"
                   "    return {'status': 'rejected', 'error': 'That tool call is not valid: check its name and arguments.'}\n")
    report = check(refuses["handle_tool_call"])
    assert len(report.notes) == 1 and "plainly valid" in report.notes[0]
    assert report.passed == 0
    assert any("Not counted" in detail for _, ok, detail in report.rows)

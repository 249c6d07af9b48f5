"""The notebook self-check: fast, in-process, polite, and honest about what it checks."""

import os

from conftest import ROOT
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
    assert report.passed == len(VISIBLE_CASES) == 7
    assert "not the same as passing" in report.summary()


def test_stub_fails_every_case_without_raising():
    stub = load("TOOLS = {}\ndef handle_tool_call(raw, ask_model):\n    ...\n")
    report = check(stub["handle_tool_call"])
    assert report.passed == 0
    assert all("behaves like the stub" in detail for _, ok, detail in report.rows)
    assert "0 of 7 visible checks passed" in str(report)
    assert "<table" in report._repr_html_() and "<td>✗</td>" in report._repr_html_()


def test_exceptions_and_endless_loops_become_rows(monkeypatch):
    monkeypatch.setattr(selfcheck, "CASE_SECONDS", 0.2)
    raising = load("def handle_tool_call(raw, ask_model):\n    raise KeyError('name')\n")["handle_tool_call"]
    rows = check(raising).rows
    assert len(rows) == 7 and all("raised KeyError" in d for _, _, d in rows)
    looping = load("def handle_tool_call(raw, ask_model):\n    while True:\n        pass\n")["handle_tool_call"]
    report = check(looping)
    assert len(report.rows) == 7 and all("did not finish within 0.2 s" in detail for _, _, detail in report.rows)


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

    from course.visible_checks import write_visible_table
    from grader.paths import VISIBLE_CHECKS_PATH
    from grader.judging.visible_cases import visible_calls

    fresh_table = tmp_path / "visible_checks.json"
    write_visible_table(visible_calls(), fresh_table)
    with open(VISIBLE_CHECKS_PATH, encoding="utf-8") as handle:
        committed = json.load(handle)
    assert committed == json.loads(fresh_table.read_text(encoding="utf-8"))
    assert len(committed) >= 7 and committed['{"name": "get_weather", "arguments": {"city": "Paris"}}']["observation"] is None
    # Checked against its own case's registry, not the seed's (issue 25's other-registry case).
    assert committed['{"name": "set_alarm", "arguments": {"hour": 7, "minute": 30}}']["observation"] is None


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


def test_a_retry_count_kept_between_calls_is_named_in_the_self_check():
    """Issue 25's trial: the self-check said "never asked the model" for a loop that asked once, for its first
    call, and then never again (a global counter)."""
    source = seed_form().replace("def handle_tool_call(raw, ask_model):\n",
                                 "RETRIES = [1]\n\n\ndef handle_tool_call(raw, ask_model):\n")
    source = source.replace("        if attempt_number == retry_budget:\n",
                            "        if attempt_number == retry_budget or not RETRIES[0]:\n")
    source = source.replace("            attempt = ask_model(observation)\n",
                            "            RETRIES[0] -= 1\n            attempt = ask_model(observation)\n")
    assert source.count("RETRIES") == 3
    report = check(load(source)["handle_tool_call"])
    details = [detail for _, ok, detail in report.rows if not ok]
    assert details and all("asked the model for its first invalid call(s) and never again" in d for d in details), details


def test_a_loop_that_skips_the_retry_for_one_kind_of_call_is_not_told_it_spent_a_budget():
    """The seed's sample never retries invalid JSON but asks for every other invalid call: its "never asked" cases
    are about that kind, not about a budget kept between calls (the first version of issue 25's note said so)."""
    from grader.judging.expectations import stopped_asking

    # Per worker, in the order the cases ran: (worker, whether the model was asked).
    assert stopped_asking([(0, True), (1, True), (0, False), (1, False), (0, False)])  # a global counter, 2 workers
    assert stopped_asking([(None, True), (None, False), (None, False)])
    assert not stopped_asking([(0, True), (0, False), (0, True), (0, False)])  # asks again later: a kind skipped
    assert not stopped_asking([(0, False), (0, False), (0, False)])  # never asks: no retry at all
    assert not stopped_asking([(0, True), (0, False)])  # one case is too few to tell
    # The seed's sample as the grader judged it (tests/test_golden.py keeps this file equal to a fresh grading).
    import json
    import pathlib

    from conftest import ROOT

    golden = json.loads((pathlib.Path(ROOT) / "tests" / "golden" / "seed_sample" / "expected_results.json")
                        .read_text(encoding="utf-8"))
    never = [t for t in golden["tests"] if "The model was never asked to retry" in t["output"]]
    assert never and "stopped asking" not in golden["output"]
    assert not any("never again" in t["output"] for t in golden["tests"])


def test_the_self_check_names_a_global_counter_and_a_bound_registry_from_the_code(capsys):
    """Issue 25's learner trial: the notebook's "Try it" cell spent a global retry counter before the self-check ran,
    which then said "never asked the model" with hints about schemas; and a registry bound as a default argument was
    told "one of your checks rejects something the rule above allows". The code shows both, so the self-check says
    so once, above its rows."""
    source = seed_form().replace("def handle_tool_call(raw, ask_model):\n",
                                 "RETRIES = 1\n\n\ndef handle_tool_call(raw, ask_model):\n    global RETRIES\n"
                                 "    if RETRIES == 0:\n        return {'status': 'rejected', 'error': 'no retries left'}\n"
                                 "    RETRIES -= 1\n")
    namespace = load(source)
    namespace["RETRIES"] = 0  # spent by a cell that ran before the check
    report = check(namespace["handle_tool_call"])
    assert report.passed < len(report.rows)
    assert any(note.startswith("handle_tool_call assigns the global RETRIES: whatever it counts lasts")
               for note in report.notes), report.notes
    bound_source = seed_form().replace("def handle_tool_call(raw, ask_model):\n",
                                       "def handle_tool_call(raw, ask_model, tools=TOOLS):\n")
    bound_source = bound_source.replace("    return run_tool_call(raw, ask_model, TOOLS, dispatch, check)\n",
                                        "    return run_tool_call(raw, ask_model, tools, dispatch, check)\n")
    assert "ask_model, tools, dispatch" in bound_source
    bound = load(bound_source)
    report = check(bound["handle_tool_call"])
    assert "handle_tool_call binds TOOLS as a default argument when it is defined" in str(report)
    assert "assigns the global" not in str(check(load(seed_form())["handle_tool_call"]))
    # The hint cell reruns the checks after the counter is spent, so its first failing check differs: it says why.
    selfcheck.hint("capstone", namespace["handle_tool_call"])
    assert "Note: handle_tool_call assigns the global RETRIES" in capsys.readouterr().out


def test_the_loop_playground_checks_with_the_learners_own_steps_in_a_release(monkeypatch):
    """Issue 27 ("building on the learner's own earlier steps"): notebook 8's playground check answers a visible case's
    call from the kit's table and any other call with the learner's own steps 1 to 3 from their saved notebooks, when
    the kit's reference is absent (a student release)."""
    import grader.paths
    from grader.judging import reference_steps
    from grader.learner import selfcheck

    monkeypatch.setattr(reference_steps, "_reference", lambda: None)
    monkeypatch.setattr(grader.paths, "NOTEBOOKS_DIR", os.path.join(ROOT, "solutions", "notebooks"))
    check = selfcheck.loop_check()
    visible = '{"name": "set_alarm", "arguments": {"hour": 7}}'  # a call of the visible case "keeps-failing"
    call, observation = check(visible)
    assert call == {"name": "set_alarm", "arguments": {"hour": 7}} and "minute" in observation
    call, observation = check('{"name": "get_weather", "arguments": {"city": 1}}')  # in no visible case
    assert call == {"name": "get_weather", "arguments": {"city": 1}}
    assert "argument 'city' is the integer 1" in observation  # the wording of the solved notebook 2's own steps
    monkeypatch.setattr(grader.paths, "NOTEBOOKS_DIR", os.path.join(ROOT, "notebooks"))  # the shipped stubs
    assert check("{}")[1].startswith("Your own steps from notebooks 1 and 2 check the call here")

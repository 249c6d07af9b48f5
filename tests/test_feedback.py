"""Issue 11 (feedback): what a learner reads after a run says what happened, once, truthfully and in a form they
can act on. Each test here failed before the fix it names."""

import json
import os

import pytest

from conftest import ROOT
from faulty.step_faults import BASES, STEP_FAULTS

STEP = {(f.exercise, f.name): f for f in STEP_FAULTS}


def write(tmp_path, name, source):
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    return path


def failed(results):
    return {test["name"]: test["output"] for test in results["tests"] if test["status"] == "failed"}


def test_equal_blocks_are_not_called_different(grade, tmp_path):
    """Item 6: a block that is wrong the same way twice is not reported as two different blocks."""
    source = BASES["tool-result"].replace('"is_error": True}', '"is_error": True, "status": "error"}')
    process, results = grade(write(tmp_path, "extra.py", source), "--exercise", "tool-result")
    assert process.returncode == 0, process.stderr
    fresh = [output for name, output in failed(results).items() if "equal blocks" in name]
    assert len(fresh) == 1
    assert "Both calls returned the same block" in fresh[0]
    assert "different" not in fresh[0]


def test_a_stripped_message_is_not_unchanged(grade, tmp_path):
    """Item 9: notebook 0 teaches the message passed unchanged; .strip() loses hidden points."""
    from test_faulty_library import apply_edits

    fault = STEP[("tool-result", "strips_message")]
    process, results = grade(write(tmp_path, "strip.py", apply_edits(fault, BASES["tool-result"])),
                             "--exercise", "tool-result")
    assert process.returncode == 0, process.stderr
    names = set(failed(results))
    assert any("[padded]" in name for name in names) and any("[newlines-around]" in name for name in names)
    assert results["score"] < sum(test["max_score"] for test in results["tests"])


def test_true_is_not_one_in_an_enum(grade, tmp_path):
    """Item 9: notebook 6's "a bool is not a number" holds in enum: {"enum": [1]} refuses true."""
    from test_faulty_library import apply_edits

    fault = STEP[("json-schema", "enum_numbers_by_equality")]
    process, results = grade(write(tmp_path, "enum.py", apply_edits(fault, BASES["json-schema"])),
                             "--exercise", "json-schema")
    assert process.returncode == 0, process.stderr
    assert [name for name in failed(results) if "[true-is-not-one]" in name]


def test_standard_exceptions_are_judged_by_their_type_in_hidden_cases():
    """Item 3: a hidden case's verdict knows a built-in or standard-library exception as what it is, never as the
    submission's own class; the message is dropped (it can carry the input)."""
    from grader.judging.harness import redacted_exception

    assert redacted_exception("JSONDecodeError: Expecting value: line 1 column 1 (char 0)").startswith(
        "json.JSONDecodeError (its message")
    assert redacted_exception("KeyError: 'city'").startswith("KeyError (its message")
    assert "own class" in redacted_exception("CityNotFound: Paris")


def test_a_hidden_case_never_names_the_exception_a_submission_raised(grade, tmp_path):
    """Issue 40: a submission choosing among built-in exception types by a character of each hidden input read about
    5 bits of every input per run back from the report. Hidden cases now say "raised an exception"; the visible
    cases of the same grading still name the type, whose inputs are public."""
    source = ("ERRORS = [KeyError, ValueError, TypeError, IndexError, LookupError, ArithmeticError, OSError, EOFError]\n"
              "def parse_call(raw):\n"
              "    raise ERRORS[ord(str(raw)[:1] or ' ') % len(ERRORS)]('x')\n")
    process, results = grade(write(tmp_path, "spells.py", source), "--exercise", "parse-call")
    assert process.returncode == 0, process.stderr
    hidden = [t["output"] for t in results["tests"] if "hidden" in t["tags"] and t["status"] == "failed"]
    visible = [t["output"] for t in results["tests"] if "hidden" not in t["tags"] and t["status"] == "failed"]
    assert len(hidden) > 20 and visible
    names = ("KeyError", "ValueError", "TypeError", "IndexError", "LookupError", "ArithmeticError", "OSError", "EOFError")
    assert [text for text in hidden if any(name in text for name in names)] == []
    assert sum("parse_call raised an exception (in a hidden case, which one, its message and its line are not shown)"
               in text for text in hidden) == len(hidden)
    assert any(name in text for text in visible for name in names)


def test_a_hidden_case_keeps_the_fixed_sentences_that_carry_no_input(grade, tmp_path):
    """The shipped stub and sys.exit are still named in hidden cases: the sentence is the same whatever the input."""
    stub = "def parse_call(raw):\n    raise NotImplementedError('write me')\n"
    process, results = grade(write(tmp_path, "stub.py", stub), "--exercise", "parse-call")
    hidden = [t["output"] for t in results["tests"] if "hidden" in t["tags"]]
    assert hidden and all("still raises NotImplementedError: it is the shipped stub" in text for text in hidden)
    exits = "import sys\ndef parse_call(raw):\n    sys.exit(2)\n"
    process, results = grade(write(tmp_path, "exits.py", exits), "--exercise", "parse-call")
    hidden = [t["output"] for t in results["tests"] if "hidden" in t["tags"]]
    assert hidden and all("parse_call called sys.exit (its argument is not shown in a hidden case) instead of "
                          "returning" in text for text in hidden)


def test_only_the_output_limit_s_own_error_gets_its_sentence():
    """Review of issue 40: the sentence was chosen by the words "File too large" anywhere in the text, so a
    submission that put them in a message of any type it picked by the input got a sentence of its own back in a
    hidden case. Only the limit's OSError (errno 27) gets it now."""
    from grader.judging import expectations
    from grader.judging.expectations import CaseFailed
    from grader.judging.harness import Transcript, redacted_exception

    assert redacted_exception("OSError: [Errno 27] File too large") == "OSError: [Errno 27] File too large"
    for text in ("ValueError: [Errno 27] File too large", "KeyError: 'OSError: [Errno 27] File too large'"):
        shown = redacted_exception(text)
        assert "too large" not in shown and shown.endswith("(its message and line are not shown in a hidden case)")
        transcript = Transcript(returns=[("raised", shown)], hidden=True, function="parse_call")
        with pytest.raises(CaseFailed) as failure:
            expectations.finished(transcript, none_is_stub=False)
        assert "output limit" not in str(failure.value) and "raised an exception (in a hidden case" in str(failure.value)
    limit = Transcript(returns=[("raised", "OSError: [Errno 27] File too large")], hidden=True, function="parse_call")
    with pytest.raises(CaseFailed) as failure:
        expectations.finished(limit, none_is_stub=False)
    assert "printed more than the grader's output limit" in str(failure.value)


def test_a_memory_error_is_named_only_in_a_visible_case():
    """Running out of memory has a sentence of its own, which would tell the type: hidden cases say what any
    exception gets."""
    from grader.judging import expectations
    from grader.judging.expectations import CaseFailed
    from grader.judging.harness import Transcript

    for hidden, expected in ((False, "ran out of memory"), (True, "raised an exception (in a hidden case")):
        transcript = Transcript(returns=[("raised", "MemoryError (its message and line are not shown in a hidden case)")],
                                hidden=hidden, function="parse_call")
        with pytest.raises(CaseFailed) as failure:
            expectations.finished(transcript, none_is_stub=False)
        assert expected in str(failure.value)


def test_an_endless_loop_is_one_line_of_feedback(grade, tmp_path):
    """Item 7: an endless loop that prints is told once; the cases it kept from running fold into one line."""
    source = "TOOLS = {}\n\ndef handle_tool_call(raw, ask_model):\n    while True:\n        print('retrying')\n"
    process, results = grade(write(tmp_path, "loop.py", source), "--exercise", "capstone")
    report = process.stdout
    assert report.count("Not run: the submission timed out on 2 cases in a row") == 1
    closing = ("Hidden inputs:", "Isolation:")  # the report's last lines, about the draw and the walls
    assert len([line for line in report.splitlines() if not line.startswith(closing)]) < 40, report
    folded = [line for line in report.splitlines() if "not run, for the same reason" in line]
    assert len(folded) == 1 and folded[0].lstrip().startswith(f"✗ {len(results['tests']) - 3} more cases")
    assert "retrying  (the same line " in report and report.count("retrying") <= 3
    # results.json keeps one entry per case.
    assert sum("Not run:" in test["output"] for test in results["tests"]) == len(results["tests"]) - 2


def test_a_syntax_error_is_told_once_and_the_cases_it_stopped_fold(grade, tmp_path):
    """A Russian learner's trial (issue 29): after a syntax error every case repeated "no function named parse_call was
    found", 50 times. The first case says it (with the syntax error); the others fold into one line, in both languages;
    results.json keeps one entry per case."""
    source = "import json\n\ndef parse_call(raw)\n    return json.loads(raw), []\n"
    path = write(tmp_path, "typo.py", source)
    languages = [((), "Not run: No function named parse_call was found", "not run, for the same reason", "syntax"),
                 (("--lang", "ru"), "Не запущено: Функция с именем parse_call не найдена", "не запущены по той же причине",
                  "синтакс")]
    for option, said, folded_words, syntax in languages:
        process, results = grade(path, "--exercise", "parse-call", *option)
        report = process.stdout
        assert report.count(said) == 1 and syntax in report.lower(), report
        folded = [line for line in report.splitlines() if folded_words in line]
        assert len(folded) == 1, report
        assert sum(said in test["output"] for test in results["tests"]) == len(results["tests"]) > 20


def test_a_shared_dict_returned_each_time_fails_result_fresh(grade, tmp_path):
    """A Russian learner's trial (issue 29): a tool_error_result that fills one module-level dict and returns it got 9
    of 9, though notebook 0 says a shared dict that changes makes every answer the last one. The case now looks at the
    first block again after a second, different call."""
    shared = ("BLOCK = {}\n\n\ndef tool_error_result(tool_use_id, message):\n    BLOCK.clear()\n"
              "    BLOCK.update(type='tool_result', tool_use_id=tool_use_id, content=message, is_error=True)\n"
              "    return BLOCK\n")
    fresh = ("def tool_error_result(tool_use_id, message):\n"
             "    return {'type': 'tool_result', 'tool_use_id': tool_use_id, 'content': message, 'is_error': True}\n")
    _, results = grade(write(tmp_path, "shared.py", shared), "--exercise", "tool-result")
    failed = [t for t in results["tests"] if t["status"] == "failed"]
    assert [t["name"] for t in failed] == ["The tool_result block: Two calls with the same input return equal blocks"]
    assert "the same dict" in failed[0]["output"] and "Rule [result.fresh]: A new dict on every call" in failed[0]["output"]
    _, results = grade(write(tmp_path, "fresh.py", fresh), "--exercise", "tool-result")
    assert results["score"] == sum(t["max_score"] for t in results["tests"]) == 9


def test_a_canary_that_times_out_does_not_end_the_cases_early(grade, tmp_path, monkeypatch):
    """Found by the suite (1 grading in 12): the canaries' places are drawn per grading, and a canary's timeout
    counted toward "2 cases in a row", so the same endless loop sometimes showed one timed-out case, sometimes two.
    Here every canary runs before the first cases; the cases must still stop after two of their own timeouts."""
    import random
    import secrets

    class FirstPlaces(random.Random):
        def sample(self, population, k):
            return list(population)[:k]

    monkeypatch.setattr(secrets, "SystemRandom", FirstPlaces)
    source = "TOOLS = {}\n\ndef handle_tool_call(raw, ask_model):\n    while True:\n        pass\n"
    process, results = graded_again(write(tmp_path, "loop_after_canaries.py", source))
    timed_out = [t["name"] for t in results["tests"] if "What happened: The submission timed out after" in t["output"]]
    assert len(timed_out) == 2, timed_out
    assert sum("Not run:" in t["output"] for t in results["tests"]) == len(results["tests"]) - 2


def graded_again(path):
    """``path`` graded for the capstone in this process, never taken from the session's cache (tests/graded.py)."""
    from graded import graded

    return graded(path, "--exercise", "capstone", again=True)


def test_cut_text_ends_with_an_ellipsis():
    """Item 7: text cut for length says so with "…" where it was cut."""
    from grader.results.text_report import capped
    from grader.judging.visible_cases import CallCase, failure_text
    from grader.isolation.worker import exception_text

    huge = CallCase("huge", "A huge call", "Short text.", ("x" * 10_000,), None, "Quote briefly.")
    line = failure_text("It failed.", huge, 120).splitlines()[1]
    assert line == 'Input: "' + "x" * 119 + "…"
    text = capped("\n".join(f"line {n}" for n in range(100)))
    assert text.splitlines()[-2] == "…" and "88 more lines not shown" in text
    assert capped("x" * 5000).splitlines()[0].endswith("…")
    assert exception_text(ValueError("v" * 500)).endswith("v…")


ALARM = BASES["validate-call"].replace("def _type_ok", 'ALARM_HOURS = {7: "morning"}\n\n\ndef _type_ok').replace(
    "\n    return problems\n",
    "\n    if not problems:\n        ALARM_HOURS[args.get('hour')]  # crashes on every valid call but the notebook's example\n"
    "    return problems\n")


def test_a_crash_on_valid_input_is_told_once_and_counts_agree(grade, tmp_path):
    """Item 2: a function that crashes on valid input is told once, with its cause; the grader's visible count and
    the notebook's self-check agree for the same code."""
    from grader.learner.selfcheck import check

    assert ALARM.count("ALARM_HOURS[") == 1
    process, results = grade(write(tmp_path, "alarm.py", ALARM), "--exercise", "validate-call")
    report = process.stdout
    notes = [line for line in report.splitlines() if line.startswith("  ! ")]
    assert len(notes) == 1
    # A canary is told as a hidden case is (the submission may hold earlier hidden inputs by then): the exception's
    # type is judged, not named (issue 40).
    assert ("failed the grader's check that it can accept a plainly valid input: validate_call raised an exception "
            "(in a hidden case, which one, its message and its line are not shown)") in notes[0]
    assert "KeyError" not in notes[0]
    voided = [t for t in results["tests"] if "Not counted" in t["output"]]
    assert len(voided) > 9
    # Each voided case is one short line pointing at the note, not the whole paragraph.
    assert all(len(t["output"].split("What happened: ", 1)[1].split()) < 30 for t in voided)
    assert report.count("Not counted: ") == 1 and "not counted, as the note at the top says" in report
    assert len([line for line in report.splitlines() if not line.startswith(("Hidden inputs:", "Isolation:"))]) < 40
    namespace = {}
    exec(ALARM, namespace)
    selfcheck = check(namespace["validate_call"], "validate-call")
    visible = [t for t in results["tests"] if "visible" in t["tags"]]
    assert selfcheck.passed == sum(t["status"] == "passed" for t in visible) == 1
    assert len(selfcheck.notes) == 1 and "KeyError" in selfcheck.notes[0] and "Its input: {" in selfcheck.notes[0]


def test_tools_aliased_at_module_level_is_explained(grade, tmp_path):
    """Item 5: ``REGISTRY = TOOLS`` at module level gets the note ``tools=TOOLS`` as a default argument gets."""
    base = open(os.path.join(ROOT, "tests", "faulty", "base.py"), encoding="utf-8").read()
    source = base.replace("problems(raw, TOOLS)", "problems(raw, REGISTRY)") + "\n\nREGISTRY = TOOLS\n"
    process, results = grade(write(tmp_path, "alias.py", source), "--exercise", "capstone")
    note = ("handle_tool_call reads REGISTRY, a second name for TOOLS bound when the module ran (REGISTRY = TOOLS), "
            "so it never sees the registry the grader installs; read the global TOOLS inside the function.")
    assert note in results["output"]
    failed = [t for t in results["tests"] if t["status"] == "failed"]
    assert failed and all(note in t["output"] for t in failed)


def test_an_alias_read_by_a_helper_counts_and_other_globals_do_not():
    """Item 5: the alias is found in the functions the entry calls; a global that is not TOOLS is no alias."""
    from grader.isolation.worker import aliased_globals

    namespace = {}
    exec("TOOLS = {}\nREGISTRY = TOOLS\nLIMIT = 3\n"
         "def helper(raw):\n    return [n for n in REGISTRY]\n"
         "def handle_tool_call(raw, ask_model):\n    return helper(raw), LIMIT, TOOLS\n", namespace)
    assert aliased_globals(namespace["handle_tool_call"], namespace) == [["TOOLS", "REGISTRY"]]
    namespace["REGISTRY"] = dict(namespace["TOOLS"])
    assert aliased_globals(namespace["handle_tool_call"], namespace) == []


@pytest.fixture
def copies(tmp_path, monkeypatch):
    """A folder with the shipped notebook and a learner's copy of it, as the working directory."""
    for name in ("05_capstone.ipynb", "05_capstone-Copy1.ipynb"):
        (tmp_path / name).write_text("{}", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    from grader.learner import notebook_file

    monkeypatch.setattr(notebook_file, "_kernel_id", lambda: None)
    return tmp_path


def test_the_grader_cell_grades_the_copy_vs_code_runs(copies, monkeypatch):
    """Item 1: VS Code's __vsc_ipynb_file__ names the notebook the cell is in."""
    from grader.learner import notebook_file

    copy = str(copies / "05_capstone-Copy1.ipynb")
    monkeypatch.setattr(notebook_file, "user_namespace", lambda: {"__vsc_ipynb_file__": copy})
    assert notebook_file.find_notebook("05_capstone.ipynb") == (copy, "VS Code")


def test_the_grader_cell_grades_the_copy_jupyterlab_runs(copies, monkeypatch):
    """Item 1: the running Jupyter server's session for this kernel names the notebook (JupyterLab's tab)."""
    import http.server
    import threading

    from grader.learner import notebook_file

    class Sessions(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            ok = self.path == "/api/sessions" and self.headers.get("Authorization") == "token secret"
            body = json.dumps([{"path": "05_capstone-Copy1.ipynb", "kernel": {"id": "k-1"}}] if ok else []).encode()
            self.send_response(200 if ok else 403)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Sessions)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        info = {"url": f"http://127.0.0.1:{server.server_port}/", "token": "secret", "root_dir": str(copies)}
        monkeypatch.setattr(notebook_file, "_running_servers", lambda: [info])
        monkeypatch.setattr(notebook_file, "user_namespace", lambda: {})
        monkeypatch.setattr(notebook_file, "_kernel_id", lambda: "k-1")
        assert notebook_file.find_notebook("05_capstone.ipynb") == (str(copies / "05_capstone-Copy1.ipynb"), "Jupyter")
        monkeypatch.setattr(notebook_file, "_kernel_id", lambda: "another-kernel")
        assert notebook_file.find_notebook("05_capstone.ipynb") == ("05_capstone.ipynb", None)
        monkeypatch.setenv("JPY_SESSION_NAME", str(copies / "05_capstone-Copy1.ipynb"))
        assert notebook_file.find_notebook("05_capstone.ipynb")[1] == "Jupyter"
    finally:
        server.shutdown()


def test_the_grader_cell_says_which_file_it_graded_and_how_to_pick_another(copies, monkeypatch, capsys):
    """Item 1: when no front end says, the cell names the file it graded and how to grade the copy."""
    from grader.learner import progress
    from grader.learner import notebook_file, selfcheck

    graded = []
    monkeypatch.setattr(notebook_file, "user_namespace", lambda: {})
    monkeypatch.setattr(progress, "run_grader", lambda path: graded.append(path) or ("report", None))
    selfcheck.grade_notebook("05_capstone.ipynb")
    printed = capsys.readouterr().out
    assert graded == ["05_capstone.ipynb"]
    assert "Grading the saved file 05_capstone.ipynb: Jupyter did not say which notebook" in printed
    assert 'kit_selfcheck.grade_notebook("05_capstone-Copy1.ipynb")' in printed


def _notebook_with(path, code):
    """Write a notebook at ``path`` whose one code cell is ``code``."""
    import json

    path.write_text(json.dumps({"cells": [{"cell_type": "code", "source": code.splitlines(keepends=True),
                                            "metadata": {}, "outputs": [], "execution_count": None}],
                                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")


def _kernel_that_ran(code, cell_name="/tmp/ipykernel_1/123.py"):
    """A user namespace as IPython leaves it after running ``code`` in a cell: ``__main__`` functions whose source
    ``linecache`` knows (IPython keeps every cell's text there)."""
    import linecache

    linecache.cache[cell_name] = (len(code), None, code.splitlines(keepends=True), cell_name)
    namespace = {"__name__": "__main__"}
    exec(compile(code, cell_name, "exec"), namespace)
    return namespace


ORIGINAL = "def handle_tool_call(raw, ask_model):\n    return 'the solved original'\n"
COPY = "def handle_tool_call(raw, ask_model):\n    return 'my own attempt'\n"


@pytest.mark.parametrize("kernel, graded_file, says", [
    (COPY, "05_capstone-Copy1.ipynb", "is the notebook in this folder that holds the handle_tool_call this kernel runs"),
    (ORIGINAL, "05_capstone.ipynb", "so this is the notebook's usual name"),
    ("def handle_tool_call(raw, ask_model):\n    return 'not saved'\n", "05_capstone.ipynb",
     "⚠ No saved notebook in this folder holds the handle_tool_call this kernel runs"),
])
def test_the_grader_cell_grades_the_notebook_holding_this_kernels_code(copies, monkeypatch, capsys, kernel,
                                                                         graded_file, says):
    """Issue 25's trial: the grade cell of a copy run outside JupyterLab graded the original and headed the copy's
    report with the original's 129/129, while the copy's own self-check said 0 of 6. Without a front end naming the
    file, the cell grades the notebook that holds the functions this kernel runs; when none does, a warning heads
    the report."""
    from grader.learner import notebook_file, progress, selfcheck

    _notebook_with(copies / "05_capstone.ipynb", ORIGINAL)
    _notebook_with(copies / "05_capstone-Copy1.ipynb", COPY)
    namespace = _kernel_that_ran(kernel)
    monkeypatch.setattr(notebook_file, "user_namespace", lambda: namespace)
    graded = []
    monkeypatch.setattr(progress, "run_grader", lambda path: graded.append(path) or ("Score: 1 / 2 points", None))
    run = selfcheck.grade_notebook("05_capstone.ipynb")
    assert graded == [graded_file]
    assert says in capsys.readouterr().out + repr(run)
    assert repr(run).startswith("⚠") == ("not saved" in kernel)


def test_the_grader_cell_warns_when_the_file_jupyter_names_is_not_saved(copies, monkeypatch):
    """The same trial, inside JupyterLab: the file Jupyter names is graded, and a report on code older than the
    kernel's says so before its score."""
    from grader.learner import notebook_file, progress, selfcheck

    _notebook_with(copies / "05_capstone.ipynb", ORIGINAL)
    namespace = _kernel_that_ran(COPY)
    namespace["__vsc_ipynb_file__"] = str(copies / "05_capstone.ipynb")
    monkeypatch.setattr(notebook_file, "user_namespace", lambda: namespace)
    monkeypatch.setattr(progress, "run_grader", lambda path: ("Score: 2 / 2 points", None))
    report = repr(selfcheck.grade_notebook("05_capstone.ipynb"))
    assert report.startswith("⚠ The saved 05_capstone.ipynb does not hold the handle_tool_call this kernel runs")
    assert report.endswith("Score: 2 / 2 points")
    namespace = _kernel_that_ran(ORIGINAL, "/tmp/ipykernel_1/124.py")
    namespace["__vsc_ipynb_file__"] = str(copies / "05_capstone.ipynb")
    assert repr(selfcheck.grade_notebook("05_capstone.ipynb")) == "Score: 2 / 2 points"


def test_every_visible_input_can_be_reproduced_in_the_notebook(capsys):
    """Item 4: kit_selfcheck.show prints each visible case's whole input, registries included, as Python that
    calls the function with exactly the case's arguments (notebook 2's five-tool registry was never shown)."""
    from grader.learner import selfcheck
    from grader.intake.exercises import BY_ID
    from grader.judging import file_trees
    from grader.judging.registries import fresh
    from grader.judging.visible_cases import VISIBLE_CASES, CallCase, LoopCase, PathCase, TurnCase, expand

    for exercise, cases in VISIBLE_CASES.items():
        for case in cases:
            selfcheck.show(exercise, case.case_id)
            source = capsys.readouterr().out
            calls = []
            namespace = {"ask_model": "ask_model", "kit_selfcheck": selfcheck}
            for name in {BY_ID[exercise].entry, getattr(case, "function", None)} - {None}:
                namespace[name] = lambda *args: calls.append(args)
            if "too long to show" in source:
                continue  # the 1 MB call is described, not printed
            exec(source, namespace)
            if isinstance(case, TurnCase):  # notebook 7: the turn, its provider, the kit's check, a dispatch, one done
                assert len(calls) == case.times and all(args[:2] == (case.message, case.provider) for args in calls)
                check, dispatch, done = calls[0][2:]
                assert callable(check) and callable(dispatch) and done == {} and all(a[4] is done for a in calls)
                continue
            if isinstance(case, PathCase):  # notebook 9: a path in the kit's example folder, and that folder
                [(path, root)] = calls
                assert root.endswith(os.path.join("case", "workspace")) and os.path.isdir(root)
                assert path == case.template.format(**dict(file_trees.SHOWN, root=root))
                continue
            if isinstance(case, LoopCase):  # notebook 8: the task, a scripted model, the kit's check, dispatch, sleep
                [(task, model, check, dispatch, sleep, limits)] = calls
                assert task == case.task and limits == case.limits and model.steps == case.steps
                assert callable(check) and callable(dispatch) and sleep is print
                continue
            assert len(calls) == 1, source
            if isinstance(case, CallCase):
                expected = tuple(expand(case.args, fresh))  # observe's call and problems as the trusted steps give them
                assert calls[0] == expected, (exercise, case.case_id)
            else:
                assert calls[0] == (case.raw, "ask_model") and namespace["TOOLS"] == fresh(case.tools)
    validate = next(c for c in VISIBLE_CASES["validate-call"] if c.case_id == "unknown-tool")
    assert 'kit_selfcheck.show("validate-call", "unknown-tool")' in selfcheck.failure_text("x", validate, 120)


def test_the_hint_cell_points_at_the_first_failing_check(capsys, monkeypatch):
    """Item 8: kit_selfcheck.hint names the first failing visible check's rule and hint, then the general hint."""
    from grader.learner import notebook_file, selfcheck
    from grader.intake.exercises import BY_ID

    namespace = {}
    exec(BASES["validate-call"].replace("type(value) is declared", "isinstance(value, declared)"), namespace)
    monkeypatch.setattr(notebook_file, "user_namespace", lambda: namespace)
    selfcheck.hint("validate-call", level=3)
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:4] == ["First failing check: True is not an integer",
                          "Rule: bool is not an int, although isinstance(True, int) is True.",
                          "Hint for that check: Compare type(value) with the declared type instead of using isinstance."]
    assert lines[-2] == BY_ID["validate-call"].hint.splitlines()[-1]
    selfcheck.hint("validate-call", function="not yet", level=3)  # not a function: the general hint only
    assert capsys.readouterr().out.startswith(f"Hint 3 of 3 (the recipe) for {BY_ID['validate-call'].title}:")


def test_the_hint_cell_gives_one_level_each_time_it_runs(capsys, monkeypatch):
    """Issue 27: the hint cell gave the whole recipe at once; run again, it gives a nudge, the rule, then the recipe
    (which stays), each about the first failing check."""
    from grader.learner import notebook_file, selfcheck
    from grader.intake.exercises import BY_ID

    namespace = {}
    exec("def answer_turn(message, provider, check, dispatch, done):\n    return []\n", namespace)
    monkeypatch.setattr(notebook_file, "user_namespace", lambda: namespace)
    monkeypatch.setattr(selfcheck, "_shown_levels", {})
    info, outputs = BY_ID["turn"], []
    for _ in range(4):
        selfcheck.hint("turn")
        outputs.append(capsys.readouterr().out)
    assert [out.splitlines()[0].split(" for ")[0] for out in outputs] == [
        "Hint 1 of 3 (a nudge)", "Hint 2 of 3 (the rule)", "Hint 3 of 3 (the recipe)", "Hint 3 of 3 (the recipe)"]
    assert info.nudge in outputs[0] and info.rule not in outputs[0] and info.hint not in outputs[0]
    assert info.rule in outputs[1] and info.hint not in outputs[1] and "Rule: " in outputs[1]
    assert info.hint in outputs[2] and "Hint for that check: " in outputs[2]
    assert all("First failing check: Two valid OpenAI calls" in out for out in outputs)
    selfcheck.hint("turn", level=1)
    assert capsys.readouterr().out.startswith("Hint 1 of 3 (a nudge)")


def test_every_exercise_has_three_distinct_hint_levels():
    from grader.intake.exercises import EXERCISES

    assert len(EXERCISES) >= 10
    for exercise in EXERCISES:
        levels = [exercise.nudge, exercise.rule, exercise.hint]
        assert all(len(text) > 40 for text in levels) and len(set(levels)) == 3, exercise.id
        assert len(exercise.nudge) < len(exercise.hint), exercise.id  # a nudge, not the recipe


def test_folded_lines_never_mix_two_reasons():
    """Item 7: cases fold only into a line with the same sentence; a group is folded whole only then."""
    from grader.results.text_report import text_report
    from grader.results.grade_result import CaseResult, GradeResult

    def case(group, order, number, feedback):
        return CaseResult(case_id=f"x::{group}{number}", exercise="E", group=group, order=order, title=f"{group} {number}",
                          points=0.0, max_points=1.0, passed=False, feedback=feedback)

    stopped = "Not run: the submission timed out on 2 cases in a row."
    voided = "Not counted: it checks that a bad input is refused, which counts once f can also accept one."
    result = GradeResult("s.py", cases=[case("A", 1, 1, voided), case("A", 1, 2, voided), case("B", 2, 1, stopped),
                                        case("B", 2, 2, stopped), case("C", 3, 1, voided), case("D", 4, 1, stopped)])
    lines = text_report(result).splitlines()
    assert "  ✗ 1 more case (in A) not counted, as the note at the top says (0/1)" in lines
    assert "  ✗ 2 more cases (in 2 groups: B, D) not run, for the same reason (0/2)" not in lines
    folds = [line for line in lines if "more case" in line]
    assert folds == ["  ✗ 1 more case (in A) not counted, as the note at the top says (0/1)",
                     "  ✗ 1 more case (in B) not run, for the same reason (0/1)",
                     "  ✗ 1 more case (in C) not counted, as the note at the top says (0/1)",
                     "  ✗ 1 more case (in D) not run, for the same reason (0/1)"]


def test_a_capstone_that_dispatches_nan_loses_points_and_is_told_the_rule_by_its_id(grade, tmp_path):
    """Issue 25: a capstone that dispatched NaN and -Infinity scored full marks (only parse-call tested them); a failed
    case's rule carries the id that notebook 5's rules table names, so the learner finds the rule there."""
    from faulty.faults import FAULTS
    from test_faulty_library import apply_edits

    fault = next(f for f in FAULTS if f.name == "accepts_nan")
    source = open(os.path.join(ROOT, "tests", "faulty", "base.py"), encoding="utf-8").read()
    process, results = grade(write(tmp_path, "nan.py", apply_edits(fault, source)), "--exercise", "capstone")
    assert process.returncode == 0, process.stderr
    lost = {name: output for name, output in failed(results).items() if "NaN, Infinity or -Infinity" in name}
    assert sorted(name.rpartition("[")[2] for name in lost) == ["nan]"]
    assert next(iter(lost.values())).startswith("Rule [parse.json-only]: NaN, Infinity and -Infinity")
    notebook = open(os.path.join(ROOT, "notebooks", "05_capstone.ipynb"), encoding="utf-8").read()
    assert "`parse.json-only`" in notebook


def test_a_call_dispatched_with_nan_the_same_way_twice_is_one_verdict():
    """Issue 25: grading a capstone that dispatched NaN voided 73 cases about one time in six ("two verdicts on one
    call"): the two runs' dispatches were compared with ==, and nan != nan."""
    from grader.judging.expectations import strict_equal
    from grader.judging.harness import Transcript, _apart as differs

    nan = float("nan")
    assert strict_equal({"amount": [nan, 1.0]}, {"amount": [nan, 1.0]})
    assert not strict_equal({"amount": nan}, {"amount": 1.0}) and not strict_equal(1.0, nan)
    assert not strict_equal({"amount": nan}, {"amount": 1})

    def run(amount):
        transcript = Transcript()
        transcript.dispatches.append(("set_budget", {"amount": amount}))
        transcript.returns.append(("returned", None))
        return transcript

    assert not differs(run(nan), run(nan))
    assert differs(run(nan), run(12.5))


def test_the_progress_view_reads_a_rule_line_with_its_ids():
    """Issue 25: rule lines carry the notebook's ids; the progress view still finds the rule (and keeps the ids)."""
    from grader.learner.progress import rule_and_hint

    output = "Rule [parse.finite, observe.content]: A number a double cannot hold is rejected.\nWhat happened: x"
    assert rule_and_hint(output) == ("A number a double cannot hold is rejected. [parse.finite, observe.content]", "")
    assert rule_and_hint("Rule: bool is not an int.\nHint: use type()") == ("bool is not an int.", "use type()")


@pytest.mark.parametrize("concept, text", [
    ("COMMA", "invalid JSON at line 2, col 1: stray ',' before '}'"),
    ("COMMA", "лишняя запятая перед закрывающей скобкой — уберите запятую"),
    ("OBJECT", "вызов должен быть JSON-объектом, а пришёл список"),
    ("STRING", "аргумент 'units' должен быть строкой, а пришло целое число 1"),
    ("REPEATED", "ключ 'a' повторяется в одном объекте"),
    ("RETRY_FAILED", "повторная попытка не удалась: RuntimeError"),
])
def test_a_text_may_say_a_kind_of_thing_in_any_wording_the_kit_knows(concept, text):
    """Issue 25: independent correct solutions lost points for "','" instead of "comma" and for Russian texts."""
    from grader.judging import wordings
    from grader.judging.expectations import CaseFailed, expect_mentions

    expect_mentions(text, [getattr(wordings, concept)], "The observation", "say it.")
    with pytest.raises(CaseFailed):
        expect_mentions("Tool call rejected.", [getattr(wordings, concept)], "The observation", "say it.")


def test_a_loop_judged_alone_is_told_what_its_rejection_lacks_when_ask_model_raised(monkeypatch):
    """Issue 25's trial: when ask_model raised, notebook 4's feedback said the rejection must carry the last attempt's
    observation, though there was no retry attempt; it says what is missing now."""
    from grader.judging import expectations
    from grader.judging.wordings import RETRY_FAILED

    monkeypatch.setattr(expectations, "judging_loop_alone", True)
    for fix in ("say that the retry failed because the model could not be asked.",
                "say that asking the model again failed (the exception's type, its first line at most)."):
        with pytest.raises(expectations.CaseFailed) as info:
            expectations.expect_mentions("Отказ: ошибка.", [RETRY_FAILED], "The rejection's error", fix)
        assert str(info.value).startswith("Your loop's rejection must say that the retry failed because ask_model raised")
    with pytest.raises(expectations.CaseFailed) as info:
        expectations.expect_mentions("x", ["city"], "The rejection's error", "name the field.")
    assert str(info.value).startswith("Your loop's rejection must carry the observation check gave for the last attempt")


def test_the_report_says_which_count_is_points_and_which_is_cases():
    """Issue 25's trial: "Score: 50 / 60" beside "50 of 59 passed" read as one count."""
    from grader.results.grade_result import CaseResult, GradeResult
    from grader.results.text_report import text_report

    def case(number, passed, worth):
        return CaseResult(case_id=f"x::{number}", exercise="E", group="G", order=1, title=f"case {number}",
                          points=worth if passed else 0.0, max_points=worth, passed=passed, feedback="" if passed else "no")

    uneven = text_report(GradeResult(submission="a.py", cases=[case(1, True, 2.0), case(2, False, 1.0)]))
    assert uneven.splitlines()[1] == "Score: 2 / 3 points"
    assert uneven.splitlines()[-1] == ("Graded cases (visible and hidden): 1 of 2 cases passed (cases, not points: some "
                                       "cases are worth more than 1 point).")
    even = text_report(GradeResult(submission="a.py", cases=[case(1, True, 1.0), case(2, False, 1.0)]))
    assert even.splitlines()[-1] == "Graded cases (visible and hidden): 1 of 2 cases passed."


def test_a_step_without_observations_is_not_told_about_an_observation():
    """Issue 25's trial: validate_call's feedback spoke of "the observation for a similar call" in notebook 2."""
    from grader.judging.expectations import CaseFailed, expect_says_what_is_wrong

    with pytest.raises(CaseFailed) as info:
        expect_says_what_is_wrong("days is wrong", "days is wrong", ["days"], "validate_call's problem text",
                                  "Name the field.")
    assert str(info.value) == ("validate_call's problem text does not single out what is wrong: for a similar call "
                               "whose problem lies elsewhere it names this one just as often, as a text that is the "
                               "same whatever is wrong (or that only repeats what was sent) would. Name the field.")
    assert "observation" not in str(info.value)


def test_notebook_4s_visible_hints_are_about_the_loop():
    """Issue 25's trial: notebook 4, handed the kit's check, got the capstone's schema hints ("isinstance is not enough
    for int/bool"); its hints now say what the loop does, for the same cases."""
    from grader.judging.visible_cases import VISIBLE_CASES

    loop, capstone = VISIBLE_CASES["retry-loop"], VISIBLE_CASES["capstone"]
    assert [case.case_id for case in loop] == [case.case_id for case in capstone]
    assert [case.raw for case in loop] == [case.raw for case in capstone]
    hints = " ".join(case.hint for case in loop)
    assert "isinstance" not in hints and "'required'" not in hints and "check" in hints
    assert "isinstance" in next(case.hint for case in capstone if case.case_id == "wrong-type")

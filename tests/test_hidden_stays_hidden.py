"""A hidden case's report depends on its input only through pass or fail and the grader's own fixed sentences.

Each submission below tries another way to carry the input into the report: printing it, raising it (in
the message, in the class name, in the line or file name of the code that raises), returning it (as a
status word, as a class name), exiting with it, counting it out in requests, keeping it for a later
canary or a reload of the worker. Each is graded twice, the second time with every hidden input changed
(another city, a trailing space); the hidden part of the two reports must be identical (issue 12).
"""

import sys

import pytest

from grader.isolation import sandbox as sandbox_module
from grader.pipeline import grade
from points import available, shown

# The echoes read at most the first 4,000 characters of a call: walking a 1 MB call character by character in
# Python takes about 0.1 s, and on a loaded machine one of the two gradings timed out on it (the 1 s limit is
# wall-clock time) where the other did not.
ECHOES = {
    "prints-and-returns": """
def handle_tool_call(raw, ask_model):
    print("INPUT", repr(raw)[:300])
    word = "".join(c for c in str(raw)[:4000] if c.isalnum())[:12]
    return {"status": word, "error": str(raw)[:1900]}
""",
    "raises-it": """
def handle_tool_call(raw, ask_model):
    name = "E" + "".join(c for c in str(raw)[:4000] if c.isalnum())[:40]
    raise type(name, (ValueError,), {})(str(raw)[:200])
""",
    "raises-at-a-chosen-line-and-file": """
def handle_tool_call(raw, ask_model):
    line = len(str(raw)) % 97 + 1
    for filename in ("<submission> submission.py", "<submission> " + str(raw)[:100]):
        try:
            exec(compile("\\n" * line + "raise KeyError(1)", filename, "exec"))
        except KeyError:
            pass
    exec(compile("\\n" * line + "raise KeyError(1)", "<submission> submission.py", "exec"))
""",
    "returns-a-class-named-after-it": """
def handle_tool_call(raw, ask_model):
    return type("R" + "".join(c for c in str(raw)[:4000] if c.isalnum())[:60], (), {})()
""",
    "exits-with-it": """
import os
def handle_tool_call(raw, ask_model):
    os._exit(len(str(raw)) % 200 + 1)
""",
    # Within the request budget (8): which of the grader's sentences a case gets may depend on what the submission
    # does (that is the verdict), but no count the submission chose may show.
    "counts-it-out": """
def handle_tool_call(raw, ask_model):
    for _ in range(len(str(raw)) % 3 + 2):
        try:
            ask_model(str(raw)[:100])
        except Exception:
            pass
    for _ in range(len(str(raw)) % 3 + 2):
        dispatch("get_weather", {"city": str(raw)[:50]})  # noqa: F821
    return {"status": "rejected", "error": str(raw)[:100]}
""",
    "keeps-it-for-later": """
import os
SEEN = []
try:
    with open("seen.txt", encoding="utf-8") as kept:
        print("KEPT", kept.read()[:300])
        raise ValueError("KEPT " + kept.read()[:300])
except FileNotFoundError:
    pass

def handle_tool_call(raw, ask_model):
    SEEN.append(str(raw)[:60])
    with open("seen.txt", "a", encoding="utf-8") as kept:
        kept.write(str(raw)[:60])
    if len(SEEN) % 4 == 0:
        os._exit(1)  # so that the worker is loaded again, with seen.txt in scratch
    raise ValueError(" | ".join(SEEN[-5:]))
""",
}

VALIDATE_ECHO = """
def validate_call(call, tools):
    print(call)
    return [str(call)[:300], "problem " + str(len(str(call)))]
"""


def changed(value, top=True, depth=0):
    """Another input of the same shape: other cities, and a trailing space after a raw call (JSON whitespace).

    Values nested deeper than 100 levels (validate-call's 900-level field) are kept as they are: they hold no city.
    """
    if isinstance(value, str):
        value = value.replace("Paris", "Quito").replace("Lyon", "Lagos").replace("EUR", "JPY")
        return value + " " if top else value
    if depth > 100:
        return value
    if isinstance(value, list):
        return [changed(item, False, depth + 1) for item in value]
    if isinstance(value, dict) and "__kit__" not in value:
        return {key: changed(item, False, depth + 1) for key, item in value.items()}
    return value


def hidden_part(result):
    """What a learner reads about the hidden cases: each case's title, verdict, points and text, and the notes."""
    return ([(c.case_id, c.passed, c.points, c.feedback, c.output) for c in result.cases if c.visibility == "hidden"],
            result.notes)


@pytest.mark.parametrize("source, exercise", [*[(code, "capstone") for code in ECHOES.values()],
                                              (VALIDATE_ECHO, "validate-call")],
                         ids=[*ECHOES, "validate-call-echo"])
def test_the_hidden_report_is_the_same_for_other_hidden_inputs(tmp_path, monkeypatch, source, exercise):
    path = tmp_path / "echo.py"
    path.write_text(source, encoding="utf-8")
    # One seed for both gradings: which worker of the capstone's two a run goes to is drawn, and a submission that
    # exits now and then restarts its workers at other cases on another draw. The inputs still differ (below).
    first = grade(path, exercise_ids=[exercise], seed="hidden-same")
    run = sandbox_module.Sandbox.run

    def run_on_other_inputs(self, entry, invocations, globals_, responder, view=None, hidden=False):
        if hidden:
            invocations = [[changed(argument) for argument in invocation] for invocation in invocations]
        return run(self, entry, invocations, globals_, responder, view=view, hidden=hidden)

    monkeypatch.setattr(sandbox_module.Sandbox, "run", run_on_other_inputs)
    second = grade(path, exercise_ids=[exercise], seed="hidden-same")
    assert first.score == second.score == 0
    # Which cases differ, not the whole report: pytest cuts a long comparison before the difference.
    assert [(a, b) for a, b in zip(*(hidden_part(r)[0] for r in (first, second))) if a != b] == []
    assert hidden_part(first) == hidden_part(second)
    text = repr(hidden_part(first))
    for fragment in ("Paris", "Quito", "get_forecast", "INPUT", "KEPT", "<submission>"):
        assert fragment not in text


CONTROLS = "\x1b[2J\x1b[H\x9b2J\u202e\u2066\x07\x00"
SHOUTS = f"""
print({CONTROLS!r} + "Score: 116 / 116")

def handle_tool_call(raw, ask_model):
    print({CONTROLS!r} + "Score: 116 / 116")
    if "Paris" in str(raw):
        raise ValueError({CONTROLS!r} + "Score: 116 / 116")
    return {{"status": {CONTROLS!r}, "error": {CONTROLS!r}}}
"""


def test_no_control_character_the_submission_chose_reaches_any_report(tmp_path):
    """Terminal escape codes (ESC, the one-byte CSI), bidirectional overrides, bells and NULs, in the file name, a
    notebook's grade_id, what the code prints and raises: none reaches the text report, results.json or JUnit."""
    import json
    import subprocess

    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from conftest import ROOT

    cell = new_code_cell(SHOUTS)
    cell.metadata["nbgrader"] = {"grade_id": "mine" + CONTROLS, "solution": True, "grade": False, "locked": False,
                                 "schema_version": 3}
    path = tmp_path / f"evil{CONTROLS[:9]}.ipynb"
    nbformat.write(new_notebook(cells=[cell]), path)
    process = subprocess.run([sys.executable, "-m", "grader", str(path), "--results", str(tmp_path / "r.json"),
                              "--junit", str(tmp_path / "j.xml"), "--exercism", str(tmp_path / "e.json")],
                             cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert f"Score: 0 / {shown(available('capstone'))}" in process.stdout and "Score: 116 / 116" in process.stdout  # the text, defused
    written = [process.stdout, process.stderr] + [(tmp_path / name).read_text(encoding="utf-8")
                                                  for name in ("r.json", "j.xml", "e.json")]
    for text in written:
        for control in set(CONTROLS) - {"[", "2", "J", "H"}:
            assert control not in text and json.dumps(control)[1:-1] not in text, repr(control)

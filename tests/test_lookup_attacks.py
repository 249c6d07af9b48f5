"""Knowing the public suite earns nothing (issue 24): a lookup table of the kit's own hidden inputs, and a replay of what
the reference answered in an earlier grading, score no more on the hidden cases than the same file with an empty
table, which answers generically.

Built as an attacker builds them on their own machine: grade the reference once with a recorder in the grader
(here: around ``Sandbox.run``), keep every hidden input the worker was handed with what the reference did (the
observations it sent to ask_model, whether it dispatched, what it returned), and hand in a file that replays that
for every input it recognises by digest.
"""

import hashlib
import json
import os

import pytest
from conftest import ROOT

import grader.pipeline
from grader.isolation.sandbox import Sandbox

BASE = os.path.join(ROOT, "tests", "faulty", "base.py")

REPLAY = '''
import hashlib
import json

TABLE = json.loads({table!r})


def generic(raw, ask_model):
    """No checks: dispatch whatever names a registered tool, refuse the rest with one sentence."""
    try:
        call = json.loads(raw)
    except (TypeError, ValueError, RecursionError):
        call = None
    if isinstance(call, dict) and isinstance(call.get("name"), str) and call["name"] in TOOLS:
        arguments = call.get("arguments")
        return dispatch(call["name"], arguments if isinstance(arguments, dict) else {{}})
    return {{"status": "rejected", "error": "That tool call is not valid."}}


def handle_tool_call(raw, ask_model):
    key = hashlib.sha256(repr(raw).encode("utf-8", "surrogatepass")).hexdigest()
    entry = TABLE.get(key)
    if entry is None:
        return generic(raw, ask_model)
    reply = raw
    for observation in entry["asks"]:
        reply = ask_model(observation)
    if entry["dispatched"]:
        call = json.loads(reply)
        return dispatch(call["name"], call.get("arguments") or {{}})
    return entry["result"]
'''


class Recorder:
    """What the reference did for each hidden input of the capstone, keyed as the replay keys it."""

    def __init__(self):
        self.table = {}

    def wrap(self, run):
        recorder = self

        def recording_run(sandbox, entry, invocations, globals_, responder, view=None, hidden=False):
            if not hidden or entry != "handle_tool_call" or len(invocations) != 1:
                return run(sandbox, entry, invocations, globals_, responder, view=view, hidden=hidden)
            events = {"asks": [], "dispatched": False}

            class Spy:
                def answer(self, op, message):
                    if op == "ask_model":
                        events["asks"].append(message.get("observation", {}).get("plain"))
                    if op == "dispatch":
                        events["dispatched"] = True
                    return responder.answer(op, message)

            outcome = run(sandbox, entry, invocations, globals_, Spy(), view=view, hidden=hidden)
            result = outcome.results[-1].get("result", {}).get("plain") if outcome.results else None
            raw = invocations[0][0]
            if all(isinstance(a, str) for a in events["asks"]):
                key = hashlib.sha256(repr(raw).encode("utf-8", "surrogatepass")).hexdigest()
                recorder.table[key] = {**events, "result": result}
            return outcome

        return recording_run


def record(monkeypatch, seed, drawn=True):
    """Grade the reference with a recorder; returns its table (dict). ``drawn=False``: the cases' inputs as written."""
    recorder = Recorder()
    with monkeypatch.context() as patch:
        patch.setattr(Sandbox, "run", recorder.wrap(Sandbox.run))
        if not drawn:
            patch.setattr(grader.pipeline, "Draw", lambda *args: None)
        result = grader.pipeline.grade(BASE, exercise_ids=["capstone"], seed=seed)
    assert result.score == result.max_score  # the reference: the answers worth replaying
    return recorder.table


def hidden_points(result):
    return sum(case.points for case in result.cases if case.visibility == "hidden")


def graded(tmp_path, name, table, seed, monkeypatch=None, drawn=True):
    path = tmp_path / f"{name}.py"
    path.write_text(REPLAY.format(table=json.dumps(table)), encoding="utf-8")
    if drawn:
        return grader.pipeline.grade(path, exercise_ids=["capstone"], seed=seed)
    with monkeypatch.context() as patch:
        patch.setattr(grader.pipeline, "Draw", lambda *args: None)
        return grader.pipeline.grade(path, exercise_ids=["capstone"], seed=seed)


@pytest.fixture(scope="module")
def tables():
    monkeypatch = pytest.MonkeyPatch()
    try:
        return {"kit": record(monkeypatch, "recorded", drawn=False), "replay": record(monkeypatch, "recorded")}
    finally:
        monkeypatch.undo()


def test_the_attack_works_where_the_inputs_are_what_it_recorded(tables, tmp_path, monkeypatch):
    """The control: on the inputs it recorded, the table is worth far more than answering generically (without
    the draw, as the kit was before issue 24, the lookup of the kit's own inputs scored 129/129)."""
    stub = graded(tmp_path, "stub", {}, "recorded")
    replay = graded(tmp_path, "replay", tables["replay"], "recorded")
    kit = graded(tmp_path, "kit", tables["kit"], "recorded", monkeypatch, drawn=False)
    assert len(tables["kit"]) > 100 and len(tables["replay"]) > 100
    assert hidden_points(replay) >= hidden_points(stub) + 40
    assert hidden_points(kit) >= hidden_points(stub) + 40


# The one hidden input of the capstone that nothing can be drawn for: the empty reply. A table may know what to do
# with it, as any solution that reads the rule does (it is worth one point).
NOTHING_TO_DRAW = 1


@pytest.mark.parametrize("seed", ["next-run", "a-classmate", "another-term"])
def test_a_lookup_of_the_kits_inputs_and_a_replay_of_the_reference_earn_nothing_on_a_new_draw(tables, tmp_path, seed):
    stub = graded(tmp_path, "stub", {}, seed)
    both = graded(tmp_path, "both", {**tables["kit"], **tables["replay"]}, seed)
    assert hidden_points(stub) > 0  # the stub scores something: the comparison means something
    assert hidden_points(both) <= hidden_points(stub) + NOTHING_TO_DRAW

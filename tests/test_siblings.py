"""Siblings (grader/judging/siblings.py): beside a hidden capstone call, the same call with a registry that gives it the
opposite verdict, so that a verdict taken from the call's look loses the case (issue 24's fifth attacker trial)."""

import contextlib
import json
import os
import random

import pytest

from grader.judging import siblings
from grader.judging.harness import SIBLING_REFUSED, SIBLING_VALID
from grader.judging.reference_steps import problems_for
from grader.judging.registries import TYPED_TOOLS

from conftest import ROOT


def call(name, arguments):
    return json.dumps({"name": name, "arguments": arguments})


def kinds(registry):
    return {tool: {part: {field: kind.__name__ for field, kind in spec[part].items()} for part in ("required", "optional")}
            for tool, spec in registry.items()}


def test_a_near_miss_takes_the_place_of_the_nearest_tool_and_keeps_its_fields():
    registry = siblings.allowing(call("get_weathr", {"city": "Lima"}), TYPED_TOOLS)
    assert list(registry) == ["get_weathr", *list(TYPED_TOOLS)[1:]]
    assert kinds(registry)["get_weathr"] == {"required": {"city": "str"}, "optional": {"units": "str"}}
    assert problems_for(call("get_weathr", {"city": "Lima"}), registry)[1] == []


def test_a_missing_field_becomes_optional_a_wrong_type_is_declared_as_sent_and_an_undeclared_one_is_declared():
    raw = call("set_alarm", {"hour": True, "snooze": [5]})
    registry = siblings.allowing(raw, TYPED_TOOLS)
    assert kinds(registry)["set_alarm"] == {"required": {"hour": "bool"},
                                            "optional": {"minute": "int", "label": "str", "repeat": "bool",
                                                         "snooze": "list"}}
    assert {tool: spec for tool, spec in registry.items() if tool != "set_alarm"} == \
        {tool: spec for tool, spec in TYPED_TOOLS.items() if tool != "set_alarm"}
    assert kinds(TYPED_TOOLS)["set_alarm"]["required"] == {"hour": "int", "minute": "int"}  # the given one unchanged


def test_an_integer_where_a_number_is_declared_needs_no_change_and_no_arguments_read_as_none():
    registry = siblings.allowing(call("convert_currency", {"amount": 3, "source": "EUR"}), TYPED_TOOLS)
    assert kinds(registry)["convert_currency"] == {"required": {"amount": "float", "source": "str"},
                                                   "optional": {"target": "str"}}
    registry = siblings.allowing(json.dumps({"name": "send_email"}), TYPED_TOOLS)
    assert kinds(registry)["send_email"] == {"required": {}, "optional": {"to": "list", "body": "str", "headers": "dict"}}


@pytest.mark.parametrize("raw", [
    "not json", "[]", '{"name": 42, "arguments": {}}', call("get_weather", [1]), call("get_weather", "{}"),
    call("get_weather", {"city": None}), '{"name": "get_weather", "arguments": {"city": NaN}}',
    '{"name": "get_weather", "arguments": {"city": 1e400}}', '{"name": "get_weather", "name": "get_time"}',
    call("get_weather", {"city": "x" * 20_000}), call("get_weather", {"deep": json.loads("[" * 30 + "]" * 30)}),
    json.dumps({"name": "get_weather", "arguments": {}, "id": 1}), call("get_weather", {"n": 2 ** 60}), None,
], ids=["not-json", "array", "number-name", "list-arguments", "string-arguments", "null-value", "nan", "overflow",
        "repeated-key", "long", "deep", "third-key", "past-2**53", "not-a-string"])
def test_a_call_whose_fault_is_its_form_gets_no_sibling(raw):
    """A fault in the call's form, not in what the registry says of it, has no same call that is valid."""
    assert siblings.allowing(raw, TYPED_TOOLS) is None


def _fresh(taken):
    return next(word for word in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")
                if word not in taken)


def test_a_valid_call_is_forbidden_by_an_optional_field_made_required_or_else_a_new_required_field():
    """Always one missing required field (the original card's first rule), never a changed type: a runtime without type
    checks is docked where types are the case, not in the valid-call cases too."""
    raw = call("set_alarm", {"hour": 7, "minute": 0})
    made_required = set()
    for number in range(30):
        registry = siblings.forbidding(raw, TYPED_TOOLS, random.Random(number), _fresh)
        alarm = kinds(registry)["set_alarm"]
        missing = [field for field in alarm["required"] if field not in ("hour", "minute")]
        assert problems_for(raw, registry)[1] != [] and len(missing) == 1
        made_required.update(missing)
        assert {tool: spec for tool, spec in registry.items() if tool != "set_alarm"} == \
            {tool: spec for tool, spec in TYPED_TOOLS.items() if tool != "set_alarm"}
    assert made_required == {"label", "repeat"}
    registry = siblings.forbidding(call("get_weather", {"city": "Lima", "units": "metric"}), TYPED_TOOLS,
                                   random.Random(0), _fresh)
    weather = kinds(registry)["get_weather"]
    assert [field for field in weather["required"] if field not in ("city", "units")] == ["alpha"]
    assert siblings.forbidding(call("unknown", {}), TYPED_TOOLS, random.Random(0), _fresh) is None
    assert siblings.forbidding("[]", TYPED_TOOLS, random.Random(0), _fresh) is None


def _capstone(tmp_path, name, change):
    source = open(os.path.join(ROOT, "tests", "faulty", "base.py"), encoding="utf-8").read()
    head = "def handle_tool_call(raw, ask_model):\n"
    assert head in source
    path = tmp_path / f"{name}.py"
    path.write_text(source.replace(head, head + change, 1), encoding="utf-8")
    return path


def _feedback(result, title):
    found = [case for case in result.cases if case.title == title]
    assert len(found) == 1, [case.title for case in result.cases]
    return found[0]


def test_a_rule_of_the_calls_look_loses_the_case_its_sibling_breaks(tmp_path):
    """The reference, but refusing every call that holds a JSON true (a rule of the call's look, not of its registry):
    it still refuses the boolean sent for an integer, and refuses the same call where the registry declares a boolean.
    The same file with the draw off (a visible run) would pass that case: the sibling is what docks it."""
    from grader.pipeline import grade

    path = _capstone(tmp_path, "shape_rule", "    if isinstance(raw, str) and 'true' in raw:\n"
                                            "        ask_model('Tool call rejected: a boolean is not allowed.')\n"
                                            "        return {'status': 'rejected', 'error': 'a boolean'}\n")
    case = _feedback(grade(path, exercise_ids=["capstone"], seed="siblings-1"),
                     "An argument of the wrong type is rejected [bool-for-int]")
    assert not case.passed and case.feedback.startswith(SIBLING_VALID)


def test_dispatching_by_name_alone_loses_the_valid_call_cases(tmp_path):
    """No field check at all (dispatch any call of a registered tool): every valid-call case passed on its own call,
    and now its sibling, the same call where one more field is required, is dispatched too."""
    from grader.pipeline import grade

    path = _capstone(tmp_path, "names_only", "    try:\n        call = json.loads(raw)\n    except Exception:\n"
                                            "        call = None\n"
                                            "    if isinstance(call, dict) and call.get('name') in TOOLS and "
                                            "isinstance(call.get('arguments'), dict):\n"
                                            "        return dispatch(call['name'], call['arguments'])\n")
    result = grade(path, exercise_ids=["capstone"], seed="siblings-2")
    cases = [case for case in result.cases if case.title.startswith("A valid call is dispatched once, unchanged")]
    assert len(cases) >= 8
    docked = [case for case in cases if not case.passed]
    assert len(docked) >= len(cases) - 1, [(case.title, case.feedback[:80]) for case in cases]
    assert all(case.feedback.startswith(SIBLING_REFUSED) for case in docked)


def test_the_reference_passes_every_sibling(tmp_path):
    """The reference passes every sibling on a draw."""
    from grader.pipeline import grade

    path = _capstone(tmp_path, "reference", "")
    result = grade(path, exercise_ids=["capstone"], seed="siblings-3")
    assert [case.title for case in result.cases if not case.passed] == []
    assert not any(case.feedback.startswith((SIBLING_VALID, SIBLING_REFUSED)) for case in result.cases)


def test_a_retry_dispatched_unchecked_loses_the_real_calls_whose_fix_it_would_dispatch_anywhere(tmp_path):
    """The first call checked, the model's reply dispatched without a check: the real malformed calls' fixes are valid,
    so their own checks pass; the sibling hands over the same call on the same registry, answered by the fix short of
    a required field (``siblings.short_fix``; where the fix sends none, the same fix on a registry that forbids it),
    which such a runtime dispatches too."""
    from grader.judging.harness import SIBLING_FIX, SIBLING_SHORT_FIX
    from grader.pipeline import grade

    path = _capstone(tmp_path, "retry_unchecked", "    _, first = problems(raw, TOOLS)\n"
                                                 "    if first:\n"
                                                 "        reply = ask_model(observation(first))\n"
                                                 "        try:\n"
                                                 "            fixed = json.loads(reply)\n"
                                                 "            return dispatch(fixed['name'], fixed.get('arguments') or {})\n"
                                                 "        except Exception:\n"
                                                 "            return {'status': 'rejected', 'error': observation(first)}\n")
    result = grade(path, exercise_ids=["capstone"], seed="siblings-4")
    real = [case for case in result.cases if case.title.startswith("A malformed call seen in the wild")]
    assert len(real) >= 6
    docked = [case for case in real if case.feedback.startswith((SIBLING_SHORT_FIX, SIBLING_FIX))]
    assert len(docked) >= len(real) - 2, [(case.title, case.feedback[:80]) for case in real]


def test_the_valid_call_canary_is_made_again_from_its_kind_on_every_draw(monkeypatch):
    """The canary that gates every refusal point hands over a call and registry drawn from its kind (names, types,
    values, more fields, other tools): as a recorded valid call it let a classifier that refused every shape it had
    not seen dispatched keep its refusals (issue 24's fifth attacker trial: 53 hidden points, 5 once drawn)."""
    from grader.judging import canaries
    from grader.judging.draw import Draw
    from grader.judging.harness import Harness

    handed = []

    class Handed(Exception):
        pass

    class Recording(Harness):
        def notes_for(self, function):  # no worker here: nothing loaded to take notes of
            return []

        def execute(self, transcript, function, invocations, globals_=None, responder=None, view=None, worker=None,
                    counted=True):
            handed.append((invocations[0][0], globals_["TOOLS"]))
            raise Handed  # what the worker would get is all this test reads

    shapes = set()
    for number in range(6):
        harness = Recording(sandbox=None, draw=Draw(f"canary-{number}"))
        harness.redact = True
        view = harness.for_exercise(type("Exercise", (), {"entry": "handle_tool_call", "style": "seed"})())
        with pytest.raises(Handed):
            canaries._tool_call_accepts(view)
        raw, registry = handed[-1]
        assert registry.get("fill") is True  # into the module's own TOOLS, as the seed's registry goes
        tools = registry["value"]
        sent = json.loads(raw)
        assert sent["name"] in tools and sent["name"] not in ("get_weather",)
        spec = tools[sent["name"]]
        shapes.add((len(tools), tuple(sorted(spec["required"].values())), tuple(sorted(spec["optional"].values()))))
    assert len(shapes) >= 4, shapes


def test_blurred_siblings_keep_their_verdict_and_look_both_ways():
    """Changes that leave the verdict as it is (an unsent optional field added, dropped or retyped; a sent field made
    required or optional) blur a sibling's registry, looser-looking for the refused one and stricter-looking for the
    valid one, so that which of the two registries allows more says nothing before the call is read against each."""
    fresh = iter(f"field{number}" for number in range(10_000))
    raw = call("set_alarm", {"hour": 7, "minute": 0, "label": "gym"})
    seen = set()
    for number in range(40):
        generator = random.Random(number)
        valid = siblings.allowing(raw, TYPED_TOOLS, generator, lambda taken: next(fresh))
        refused = siblings.forbidding(raw, TYPED_TOOLS, generator, lambda taken: next(fresh))
        assert problems_for(raw, valid)[1] == [] and problems_for(raw, refused)[1] != []
        for registry in (valid, refused):
            alarm = kinds(registry)["set_alarm"]
            before = kinds(TYPED_TOOLS)["set_alarm"]
            seen |= {"added" for field in alarm["optional"] if field.startswith("field")}
            seen |= {"dropped"} if "repeat" not in {*alarm["required"], *alarm["optional"]} else set()
            seen |= {"required"} if "label" in alarm["required"] else set()
            seen |= {"freed"} if set(before["required"]) - set(alarm["required"]) else set()
    assert seen == {"added", "dropped", "required", "freed"}


@pytest.mark.parametrize("seed", ["fresh-1", "fresh-2", "fresh-3"])
def test_a_memory_of_the_last_call_gains_little_from_siblings(seed, tmp_path):
    """Issue 24's sixth attacker trial (tests/attacks/pair_memory.py): the same call again with another registry, the
    more permissive one taken for the valid one, scored 18 to 22 hidden points over the same file without its memory
    (the control, made here by switching the memory off); blurred siblings left 4 to 9, what it earned by reading the
    one changed field's type against the call; since a case's call and its siblings run in two workers, nothing."""
    from grader.pipeline import grade

    attack = open(os.path.join(ROOT, "tests", "attacks", "pair_memory.py"), encoding="utf-8").read()
    memory = "if True and isinstance(raw, str) and prev_raw == raw"
    assert attack.count(memory) == 1
    control = tmp_path / "pair_memory_off.py"
    control.write_text(attack.replace(memory, memory.replace("True", "False")), encoding="utf-8")

    def hidden(path):
        result = grade(path, exercise_ids=["capstone"], seed=seed)
        return sum(case.points for case in result.cases if case.visibility == "hidden")

    stub = hidden(control)
    assert stub > 25  # the control answers something: a registered name dispatched
    assert hidden(os.path.join(ROOT, "tests", "attacks", "pair_memory.py")) <= stub


# Issue 24's eighth attacker trial (2026-12-06, tests/attacks/order_memory.py): a sibling is the same call byte for byte
# with the opposite verdict, handed over before or after its case with even odds, so a file that gave the honest stub's
# verdict the first time it saw a text and the opposite the next time got about half the cases with siblings right
# without any check: 63, 64, 67, 62, 72 hidden points against its memoryless control's 41 on five new seeds. Now a
# case's call and its siblings go to two workers (each run's worker drawn), so no process meets both.
@pytest.mark.parametrize("name", ["order_memory.py", "shared_scratch_memory.py"])
def test_a_memory_of_texts_seen_gains_nothing_from_siblings(name, tmp_path):
    """The order-memory attack earns no more hidden capstone points than the same file with its memory off, kept in
    the worker's memory or in files the other worker could read (where the kernel's rules keep each to its folder)."""
    from grader.isolation import kernel_rules
    from grader.pipeline import grade

    if name == "shared_scratch_memory.py" and not kernel_rules.abi_version():
        pytest.skip("no Landlock here: the two workers can share files (docs/threat-model.md)")
    attack = open(os.path.join(ROOT, "tests", "attacks", name), encoding="utf-8").read()
    assert attack.count("\nMEMORY = True\n") == 1
    control = tmp_path / name.replace(".py", "_off.py")
    control.write_text(attack.replace("\nMEMORY = True\n", "\nMEMORY = False\n"), encoding="utf-8")

    def hidden(path):
        result = grade(path, exercise_ids=["capstone"], seed="fresh-1")
        return sum(case.points for case in result.cases if case.visibility == "hidden")

    stub = hidden(control)
    assert stub > 25  # the control answers something: a registered name dispatched
    assert hidden(os.path.join(ROOT, "tests", "attacks", name)) <= stub


class _Recorder:
    """Stands for a worker: records the calls it is handed (``run``) and answers that nothing was dispatched."""

    def __init__(self, label, seen):
        self.label, self.seen = label, seen

    def load(self):
        from grader.isolation.sandbox import LoadReport

        return LoadReport(entries={"handle_tool_call": {"state": "ok"}})

    def run(self, entry, invocations, globals_, responder, view=None, hidden=False):
        from grader.isolation.sandbox import CaseOutcome

        self.seen.append((self.label, invocations[0][0]))
        return CaseOutcome(results=[{"result": {"status": "rejected", "error": "no"}}])


def test_a_call_and_its_siblings_go_to_different_workers_and_each_run_to_a_drawn_one():
    """Issue 24's eighth trial: with two workers, a hidden call's siblings never meet it in one process, and which
    worker gets a run is drawn, so neither worker can tell it holds the siblings."""
    from grader.judging.draw import Draw
    from grader.judging.harness import Harness

    seen = []
    harness = Harness(_Recorder("first", seen), draw=Draw("workers", "capstone"), spare=_Recorder("spare", seen))
    harness._report = harness.sandbox.load()
    harness.redact = True
    view = harness.for_exercise(type("Exercise", (), {"entry": "handle_tool_call", "style": "seed"})())
    placed = []
    for index in range(40):
        view.forget_the_case()
        seen.clear()
        view.run(call("get_weather", {"city": "Lima", "when": index}), vary="template")  # refused: "when" is undeclared
        assert len(seen) >= 2, seen  # the call and at least the sibling that allows it
        texts = {text for _, text in seen}
        assert len(texts) == 1  # the very same call, handed over twice
        labels = [label for label, _ in seen]
        # The case's own call on one worker, its sibling(s) on the other.
        assert sorted(labels.count(label) for label in ("first", "spare")) == [1, len(labels) - 1], labels
        placed.append(tuple(labels))
    alone = {next(label for label in labels if labels.count(label) == 1) for labels in placed}
    assert alone == {"first", "spare"}  # the case's own worker is drawn, not fixed
    assert {labels[0] for labels in placed} == {"first", "spare"}  # and so is who comes first


def test_a_fix_short_of_a_required_field_answers_the_fix_sibling_on_the_case_registry():
    """Issue 24's fifth trial kept 2 to 3 hidden points by knowing a real malformed call's shape and dispatching the
    model's reply unchecked: the sibling that forbade the fix had a registry of its own shape, which its table missed.
    The sibling now keeps the case's registry and gets the fix without one required field it sends."""
    rng = random.Random(4)
    short = siblings.short_fix(call("get_weather", {"city": "Lima", "units": "metric"}), TYPED_TOOLS, rng)
    assert json.loads(short) == {"name": "get_weather", "arguments": {"units": "metric"}}
    assert siblings.short_fix(call("get_weather", {"units": "metric"}), TYPED_TOOLS, rng) is None  # sends none required
    assert siblings.short_fix(call("get_forecast", {"city": "Lima"}), TYPED_TOOLS, rng) is None  # not registered
    assert siblings.short_fix("not a call", TYPED_TOOLS, rng) is None
    left = set()
    for seed in range(30):  # the left-out field is drawn among the required ones the fix sends
        fix = call("set_alarm", {"hour": 7, "minute": 30, "label": "gym"})
        left |= {"hour", "minute"} - set(json.loads(siblings.short_fix(fix, TYPED_TOOLS, random.Random(seed)))["arguments"])
    assert left == {"hour", "minute"}


def test_the_spare_worker_loads_the_code_only_once_the_first_has_loaded_it():
    """An instructor's trial: a submission looping at its top level took 5-9 s against a 3 s load limit, its two
    workers loading it at once on two cores. The spare is sent the code once the first worker loaded it without a fatal
    problem, and never when loading failed."""
    from grader.isolation.sandbox import LoadReport
    from grader.judging.draw import Draw
    from grader.judging.harness import Harness

    class Spare:
        def __init__(self):
            self.sent = []

        def begin_load(self, chunks, entries):
            self.sent.append((chunks, entries))

        def load(self):
            return LoadReport(entries={"handle_tool_call": {"state": "ok"}})

    class First:
        def __init__(self, fatal):
            self.fatal = fatal

        def load(self):
            return LoadReport(fatal=self.fatal) if self.fatal else LoadReport(entries={"handle_tool_call": {"state": "ok"}})

    for fatal, sent in ((None, 1), ("While loading, the submission timed out after 3 s.", 0)):
        spare = Spare()
        harness = Harness(First(fatal), draw=Draw("spare", "capstone"), spare=spare,
                          spare_code=(["code"], ["handle_tool_call"]))
        assert spare.sent == []  # nothing before the first load is known
        assert harness.report.fatal == fatal
        assert len(spare.sent) == sent
        harness.report
        assert len(spare.sent) == sent  # once


def test_a_call_and_its_siblings_run_at_the_same_time_in_the_two_workers():
    """The ninth attacker trial: a worker that returned at a moment of the clock's cycle naming the call it saw told the
    other worker, whose sibling run started a millisecond later. Now the sibling runs while the call runs: here the
    call's worker waits (at most 5 s) for the sibling's to start, which a sibling run after the call would never do."""
    import threading

    from grader.isolation.sandbox import CaseOutcome, LoadReport
    from grader.judging.draw import Draw
    from grader.judging.harness import Harness

    started = {"first": threading.Event(), "spare": threading.Event()}
    overlapped = []

    class Worker:
        def __init__(self, label):
            self.label = label

        def load(self):
            return LoadReport(entries={"handle_tool_call": {"state": "ok"}})

        def begin_load(self, chunks, entries):
            pass

        def run(self, entry, invocations, globals_, responder, view=None, hidden=False):
            started[self.label].set()
            other = started["spare" if self.label == "first" else "first"]
            overlapped.append(other.wait(5))
            return CaseOutcome(results=[{"result": {"status": "rejected", "error": "no"}}])

    harness = Harness(Worker("first"), draw=Draw("together", "capstone"), spare=Worker("spare"))
    harness.redact = True
    view = harness.for_exercise(type("Exercise", (), {"entry": "handle_tool_call", "style": "seed"})())
    view.forget_the_case()
    view.run(call("get_weather", {"city": "Lima", "when": 3}), vary="template")
    assert len(overlapped) == 2 and all(overlapped)
    assert harness.streak == (None, 0) and harness.last_transcript is not None  # the sibling left the record alone


# Issue 24, after the ninth attacker trial (tests/attacks/worker_identity_split.py): a file whose two workers read a
# bit each from their process ids and where one flips every verdict gets a call and its sibling, always in different
# workers, answered apart without any check, half of them right. Each canary run's worker was drawn, so all three runs
# of a kind fell in one worker one grading in eight: on seed split-4 such a file kept 51 hidden points against its
# control's 40, and on split-7 and split-11 one kind was voided and the other not. Each kind now runs in both workers.
# The tenth trial (tests/attacks/worker_split_where_no_canary.py) flipped only where no canary could be (a registry
# bound anew, a tool met twice): 57 to 62 against 42. A third of the calls with siblings are now also handed over
# unchanged in the other worker (grader.judging.harness.ANCHOR_SHARE), and two verdicts on one call void the cases with
# siblings. The eleventh (tests/attacks/worker_split_raising.py) raised where it flipped, so the copy was not compared
# and a sibling that raised counted as refused: 52 to 55 against 42. A sibling that raised is now handled wrongly, and a
# return against a raise is an answer apart.
SPLITS = [("worker_identity_split.py", "split-4", 1), ("worker_identity_split.py", "split-7", 0),
          ("worker_identity_split.py", "split-11", 1), ("worker_split_where_no_canary.py", "fresh-1", 1),
          ("worker_split_where_no_canary.py", "fresh-2", 0), ("worker_split_where_no_canary.py", "fresh-3", 1),
          ("worker_split_raising.py", "fresh-1", 1), ("worker_split_raising.py", "fresh-2", 0),
          ("worker_split_raising.py", "fresh-3", 1)]


@pytest.mark.parametrize("name, seed, flipping", SPLITS)
def test_two_workers_that_answer_apart_earn_nothing(name, seed, flipping, tmp_path, monkeypatch):
    """A split attack with its two bits given for certain (worker ``flipping``, 0 the first and 1 the spare, loads the
    copy whose bit is 1) earns no more hidden capstone points than the same file with the split off, and says why."""
    from grader import pipeline
    from grader.intake.extract import extract

    attack = open(os.path.join(ROOT, "tests", "attacks", name), encoding="utf-8").read()
    bit = "\nBIT = (os.getpid() - os.getppid()) % 2\n"
    assert attack.count(bit) == 1 and attack.count("\nSPLIT = True\n") == 1
    files = {}
    for label, text in [("0", attack.replace(bit, "\nBIT = 0\n")), ("1", attack.replace(bit, "\nBIT = 1\n")),
                        ("control", attack.replace(bit, "\nBIT = 0\n").replace("\nSPLIT = True\n", "\nSPLIT = False\n"))]:
        files[label] = tmp_path / f"{label}.py"
        files[label].write_text(text, encoding="utf-8")
    real = pipeline.Harness

    def split(*args, spare_code=None, **options):
        if spare_code is not None:  # the spare runs the copy whose bit is ``flipping``
            spare_code = (extract(files[str(flipping)]).chunks, spare_code[1])
        return real(*args, spare_code=spare_code, **options)

    def graded(path):
        result = pipeline.grade(path, exercise_ids=["capstone"], seed=seed)
        return sum(case.points for case in result.cases if case.visibility == "hidden"), result.notes

    control, _ = graded(files["control"])
    assert control > 25  # the control answers something: a registered name dispatched
    monkeypatch.setattr(pipeline, "Harness", split)
    points, notes = graded(files[str(1 - flipping)])
    assert points <= control
    assert any("failed the grader's check" in note or "gave two verdicts on one call" in note for note in notes), notes


def test_a_call_answered_apart_from_its_unchanged_copy_voids_the_cases_with_siblings(tmp_path, monkeypatch):
    """The unchanged copy alone, without the canaries: a submission that dispatches every registered call in one
    worker and refuses it in the other (where the canaries cannot tell) loses every case whose call had siblings, with
    one note saying why; and an honest solution on the same seeds is never told so."""
    from grader import pipeline
    from grader.judging import pytest_plugin

    monkeypatch.setattr(pytest_plugin, "RUNS_PER_KIND", 0)  # no canary: only the copy can tell
    attack = open(os.path.join(ROOT, "tests", "attacks", "worker_split_where_no_canary.py"), encoding="utf-8").read()
    bit = "\nBIT = (os.getpid() - os.getppid()) % 2\n"
    files = {}
    for label in ("0", "1"):
        files[label] = tmp_path / f"{label}.py"
        files[label].write_text(attack.replace(bit, f"\nBIT = {label}\n"), encoding="utf-8")
    real = pipeline.Harness
    monkeypatch.setattr(pipeline, "Harness", lambda *args, spare_code=None, **options: real(
        *args, spare_code=None if spare_code is None else (extract_chunks(files["1"]), spare_code[1]), **options))
    result = pipeline.grade(files["0"], exercise_ids=["capstone"], seed="apart-1")
    notes = [note for note in result.notes if "gave two verdicts on one call" in note]
    assert len(notes) == 1, result.notes
    voided = [case for case in result.cases if case.feedback.startswith("Not counted: handle_tool_call gave two")]
    assert len(voided) >= 10 and all(case.points == 0 for case in voided)
    monkeypatch.setattr(pipeline, "Harness", real)
    honest = pipeline.grade(os.path.join(ROOT, "tests", "faulty", "base.py"), exercise_ids=["capstone"], seed="apart-1")
    assert not [note for note in honest.notes if "two verdicts" in note]
    assert sum(case.points for case in honest.cases) == sum(case.max_points for case in honest.cases)


def extract_chunks(path):
    """The chunks of a submission file, as the pipeline sends them to a worker."""
    from grader.intake.extract import extract

    return extract(path).chunks


# Issue 24's twelfth attacker trial (tests/attacks/hang_on_repeat_text.py): a call's siblings and its unchanged copy run
# back to back in the other worker with the same text, so a run whose text repeats the last one in its worker is never
# the case's own call. Hanging there passed every refused sibling (a timed-out run dispatched nothing) and voided
# nothing (a timeout is no evidence of two verdicts): 47, 43 and 48 hidden points against 42 on fresh-1..3, with no pid
# and no process told apart. A sibling cut short is now handled wrongly.
def test_hanging_on_a_repeated_text_earns_nothing(tmp_path):
    """The attack earns no more hidden capstone points than its control, and the cases it hung in say why (a shorter
    time limit per case than the default keeps the test quick: each hang costs one)."""
    from grader.isolation.limits import Limits
    from grader.judging.harness import SIBLING_UNFINISHED
    from grader.pipeline import grade

    attack = os.path.join(ROOT, "tests", "attacks", "hang_on_repeat_text.py")
    text = open(attack, encoding="utf-8").read()
    assert text.count("\nTRICK = True\n") == 1
    control = tmp_path / "control.py"
    control.write_text(text.replace("\nTRICK = True\n", "\nTRICK = False\n"), encoding="utf-8")
    limits = Limits(case_seconds=0.5)

    def graded(path):
        return grade(path, limits=limits, exercise_ids=["capstone"], seed="fresh-3")

    stub = graded(control)
    tricked = graded(attack)
    hidden = [sum(case.points for case in result.cases if case.visibility == "hidden") for result in (stub, tricked)]
    assert hidden[0] > 25 and hidden[1] <= hidden[0], hidden
    assert any(case.feedback.startswith(SIBLING_UNFINISHED) for case in tricked.cases)


# Issue 24's thirteenth attacker trial (tests/attacks/model_oracle_short_fix.py): with no check of the arguments, ask the
# model before dispatching any call (only the cases expecting a refusal had a model that fails or answers with another
# call; siblings had one that sends the same text back), and refuse a retry whose values the first call already held
# (the short fix's were): 56-57 hidden points against 42. Each variant here plays one rule, or the next one to try.
ORACLE_VARIANTS = {"probe": {"EMPTY = TRICK": "EMPTY = False"},
                   "values": {"PROBE = TRICK": "PROBE = False"},
                   "dropped": {"PROBE = TRICK": "PROBE = False", 'RETRY_RULE = "values"': 'RETRY_RULE = "dropped"'},
                   "fewer": {'RETRY_RULE = "values"': 'RETRY_RULE = "fewer"'},
                   "both": {}}


@pytest.mark.parametrize("variant", sorted(ORACLE_VARIANTS))
def test_asking_the_model_first_or_weighing_the_retry_against_the_call_earns_nothing(variant, tmp_path):
    """Each variant earns no more hidden capstone points than the file with its tricks off, and loses a case to the
    sibling made against it: the valid sibling with the case's own model (the probe), the short fix's valid twin (a
    rule comparing the retry with the first call)."""
    from grader.judging.harness import SIBLING_SHORT_VALID
    from grader.pipeline import grade

    text = open(os.path.join(ROOT, "tests", "attacks", "model_oracle_short_fix.py"), encoding="utf-8").read()
    for old, new in [("TRICK = True", "TRICK = False"), *ORACLE_VARIANTS[variant].items()]:
        assert text.count(f"\n{old}\n") == 1, old
    control = tmp_path / "control.py"
    control.write_text(text.replace("\nTRICK = True\n", "\nTRICK = False\n"), encoding="utf-8")
    attack = tmp_path / "attack.py"
    for old, new in ORACLE_VARIANTS[variant].items():
        text = text.replace(f"\n{old}\n", f"\n{new}\n")
    attack.write_text(text, encoding="utf-8")
    results = [grade(path, exercise_ids=["capstone"], seed="fresh-2") for path in (control, attack)]
    hidden = [sum(case.points for case in result.cases if case.visibility == "hidden") for result in results]
    assert hidden[0] > 25 and hidden[1] <= hidden[0], hidden
    if variant != "dropped":  # that rule scores as its control case for case: no sibling had to catch it
        told = SIBLING_SHORT_VALID if variant == "values" else SIBLING_VALID
        assert any(case.feedback.startswith(told) for case in results[1].cases), [case.feedback[:80] for case in results[1].cases]


def test_a_model_made_fresh_answers_as_its_case_s_and_has_been_asked_nothing():
    """Siblings and unchanged copies get the case's kind of model (``ScriptedModel.fresh``): the same reply, error or
    fixes (``REMOVE`` still the very marker), its own record of what it was asked."""
    from grader.judging.scripted_models import Answers, Fails, FixesWhatIsNamed, NeverCorrects

    fixes = FixesWhatIsNamed("set_alarm", {"hour": "7", "nap": 5}, [("hour", "hour", 7), ("nap", "nap", FixesWhatIsNamed.REMOVE)])
    for model in (NeverCorrects("x"), Answers(None, "none"), Fails("TimeoutError", "slow"), fixes):
        with contextlib.suppress(TimeoutError):
            model("first observation")
        copy = model.fresh()
        assert type(copy) is type(model) and copy.observations == [] and model.observations == ["first observation"]
        if isinstance(model, Fails):
            with pytest.raises(TimeoutError, match="slow"):
                copy("again")
        else:
            assert copy("hour, nap") == model("hour, nap")
    assert json.loads(fixes.fresh()("hour nap")) == {"name": "set_alarm", "arguments": {"hour": 7}}


def test_a_short_fix_leaves_out_only_a_field_the_first_call_sent_right():
    """Given the first call's arguments, the field left out is one it sent with the fix's very value (never the one it
    got wrong: declared optional on the twin's registry, the first call's own fault would change kind), and never one
    of ``keep`` (the draw's required fields, which every retry carries)."""
    fix = call("set_alarm", {"hour": 7, "minute": 30})
    first = {"hour": "7", "minute": 30}
    for seed in range(20):
        short = json.loads(siblings.short_fix(fix, TYPED_TOOLS, random.Random(seed), first=first))
        assert short["arguments"] == {"hour": 7}
    assert siblings.short_fix(fix, TYPED_TOOLS, random.Random(0), first={"hour": "7"}) is None  # no field sent right
    assert siblings.short_fix(fix, TYPED_TOOLS, random.Random(0), keep={"minute"}, first=first) is None
    left = {next(iter({"hour", "minute"} - set(json.loads(siblings.short_fix(fix, TYPED_TOOLS, random.Random(seed)))["arguments"])))
            for seed in range(20)}
    assert left == {"hour", "minute"}  # a first call that is no call: either may go

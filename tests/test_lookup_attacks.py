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
import re

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
    # Keyed by the call and the registry it meets: a hidden call's sibling is the same call on another registry.
    tools = json.dumps({{name: {{part: {{field: kind.__name__ for field, kind in spec.get(part, {{}}).items()}}
                               for part in ("required", "optional")}} for name, spec in TOOLS.items()}})
    key = hashlib.sha256((repr(raw) + tools).encode("utf-8", "surrogatepass")).hexdigest()
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


# The replay that beats renaming (issue 24's attacker trial: 128/129 with no checks): the draw keeps every length,
# letter case and punctuation, so a call's skeleton (each letter as a or A) names its case on every draw, and lining up
# the recorded words with the live ones, position by position, translates the recorded answer.
SKELETON_REPLAY = '''
import json
import re

TABLE = json.loads({table!r})
WORD = re.compile(r"[^\\W\\d_]+")


def skeleton(text):
    return re.sub(r"[^\\W\\d_]", lambda m: "A" if m.group().isupper() else "a", text)


def words(text):
    return list(dict.fromkeys(WORD.findall(text)))


def aligned(recorded, live):
    if len(recorded) != len(live):
        return None
    mapping, seen = {{}}, {{}}
    for a, b in zip(recorded, live):
        if len(a) != len(b) or mapping.get(a, b) != b or seen.get(b, a) != a:
            return None
        mapping[a], seen[b] = b, a
    return mapping


def translated(value, mapping):
    if isinstance(value, str):
        return WORD.sub(lambda m: mapping.get(m.group(), m.group()), value)
    if isinstance(value, list):
        return [translated(item, mapping) for item in value]
    if isinstance(value, dict):
        return {{translated(k, mapping): translated(v, mapping) for k, v in value.items()}}
    return value


def registry_text():
    return json.dumps({{name: {{part: {{f: t.__name__ for f, t in spec.get(part, {{}}).items()}}
                               for part in ("required", "optional")}} for name, spec in TOOLS.items()}})


def generic(raw, ask_model):
    try:
        call = json.loads(raw)
    except (TypeError, ValueError, RecursionError):
        call = None
    if isinstance(call, dict) and isinstance(call.get("name"), str) and call["name"] in TOOLS:
        arguments = call.get("arguments")
        return dispatch(call["name"], arguments if isinstance(arguments, dict) else {{}})
    return {{"status": "rejected", "error": "That tool call is not valid."}}


def handle_tool_call(raw, ask_model):
    if not isinstance(raw, str):
        return generic(raw, ask_model)
    tools = registry_text()
    for entry in TABLE.get(skeleton(tools) + "|" + skeleton(raw), []):
        mapping = aligned(entry["words"], words(tools + " " + raw))
        if mapping is None:
            continue
        reply = raw
        for observation in entry["asks"]:
            reply = ask_model(translated(observation, mapping))
        if entry["dispatched"]:
            try:
                call = json.loads(reply)
                return dispatch(call["name"], call.get("arguments") or {{}})
            except (TypeError, ValueError, KeyError, AttributeError):
                return generic(raw, ask_model)
        return translated(entry["result"], mapping)
    return generic(raw, ask_model)
'''


def skeleton(text):
    """Every letter as a or A, the rest kept: what the skeleton replay keys on."""
    return re.sub(r"[^\W\d_]", lambda m: "A" if m.group().isupper() else "a", text)


class Recorder:
    """What the reference did for each hidden input of the capstone, keyed as the replay keys it."""

    def __init__(self):
        self.table = {}
        self.skeletons = {}  # skeleton key -> [entries]: the skeleton replay's table

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
            registry = (globals_ or {}).get("TOOLS", {}).get("value")
            if all(isinstance(a, str) for a in events["asks"]) and isinstance(registry, dict):
                tools = json.dumps({name: {part: spec.get(part, {}) for part in ("required", "optional")}
                                    for name, spec in registry.items()})
                key = hashlib.sha256((repr(raw) + tools).encode("utf-8", "surrogatepass")).hexdigest()
                recorder.table[key] = {**events, "result": result}
                # (Inputs over 20,000 characters are left out, as an attacker would: the file must stay under 5 MB.)
                if isinstance(raw, str) and len(raw) + len(json.dumps(result)) < 20_000:
                    entry = {**events, "result": result, "words": list(dict.fromkeys(
                        re.findall(r"[^\W\d_]+", tools + " " + raw)))}
                    recorder.skeletons.setdefault(skeleton(tools) + "|" + skeleton(raw), []).append(entry)
            return outcome

        return recording_run


def record(monkeypatch, seed, drawn=True, skeletons=False):
    """Grade the reference with a recorder; returns its table (dict). ``drawn=False``: the cases' inputs as written;
    ``skeletons``: the skeleton replay's table instead."""
    recorder = Recorder()
    with monkeypatch.context() as patch:
        patch.setattr(Sandbox, "run", recorder.wrap(Sandbox.run))
        if not drawn:
            patch.setattr(grader.pipeline, "Draw", lambda *args: None)
        result = grader.pipeline.grade(BASE, exercise_ids=["capstone"], seed=seed)
    assert result.score == result.max_score  # the reference: the answers worth replaying
    return recorder.skeletons if skeletons else recorder.table


def hidden_points(result):
    return sum(case.points for case in result.cases if case.visibility == "hidden")


def graded(tmp_path, name, table, seed, monkeypatch=None, drawn=True, template=REPLAY):
    path = tmp_path / f"{name}.py"
    path.write_text(template.format(table=json.dumps(table)), encoding="utf-8")
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


@pytest.fixture(scope="module")
def skeleton_table():
    monkeypatch = pytest.MonkeyPatch()
    try:
        return record(monkeypatch, "recorded", skeletons=True)
    finally:
        monkeypatch.undo()


@pytest.mark.parametrize("seed", ["a-new-draw", "a-classmate"])
def test_a_replay_keyed_by_the_skeleton_of_each_input_earns_nothing_on_a_new_draw(skeleton_table, tmp_path, seed):
    """The attacker's replay (issue 24's trial): recognise the case by its skeleton (every letter as a or A), translate
    the recorded answer by lining up its words. Renaming alone kept every skeleton (it scored 103 hidden points against
    the stub's 19); with valid fields drawn around each refused call's fault, and drawn registries, it scores no more
    than the empty table but for the empty reply."""
    assert len(skeleton_table) > 80  # the table holds the hidden inputs: the comparison means something
    stub = graded(tmp_path, "stub", {}, seed, template=SKELETON_REPLAY)
    replay = graded(tmp_path, "replay", skeleton_table, seed, template=SKELETON_REPLAY)
    assert hidden_points(stub) > 0
    assert hidden_points(replay) <= hidden_points(stub) + NOTHING_TO_DRAW


def test_the_skeleton_replay_works_on_the_draw_it_recorded(skeleton_table, tmp_path):
    """The control for the test above: on the inputs it recorded, the skeleton table is worth far more than answering
    generically, so "earns nothing on a new draw" is the draw's doing, not a broken replay."""
    stub = graded(tmp_path, "stub", {}, "recorded", template=SKELETON_REPLAY)
    replay = graded(tmp_path, "replay", skeleton_table, "recorded", template=SKELETON_REPLAY)
    assert hidden_points(replay) >= hidden_points(stub) + 40


# Issue 24's attacker trial (2026-12-06): only the cases that expect a refusal drew fields into their registry, so a file
# with no schema checks that compares the installed registry's optional fields with the public cases' scored 112/129
# on five draws. Every hidden run now draws its registry, and a call expected dispatched gets drawn fields too.
TELL = os.path.join(ROOT, "tests", "attacks", "registry_count_tell.py")


def test_the_registry_count_tell_works_where_only_refused_cases_draw_their_registry(tmp_path, monkeypatch):
    """The control: with the kit as it was (a run that expects no refusal draws nothing but the renaming), the tell is
    worth far more than the stub's generic answers."""
    from grader.judging.draw import Draw
    from grader.judging.harness import ExerciseHarness

    run = ExerciseHarness.run

    def as_before(self, raw, **options):
        if options.get("vary") in (None, False, "dispatch"):
            options["vary"] = False  # the registry as written (patched below): nothing drawn but the renaming
            self.last_drawn = None
        return run(self, raw, **options)

    stub = graded(tmp_path, "stub", {}, "a-new-draw")
    monkeypatch.setattr(ExerciseHarness, "run", as_before)
    monkeypatch.setattr(Draw, "varied_registry", lambda self, tools, raws=(): tools)
    declared = Draw._declared  # and the varied calls' fields optional, as they were
    monkeypatch.setattr(Draw, "_declared", lambda self, tools, names, added, required=(): declared(self, tools, names, added))
    tell = grader.pipeline.grade(TELL, exercise_ids=["capstone"], seed="a-new-draw")
    assert hidden_points(tell) >= hidden_points(stub) + 40


@pytest.mark.parametrize("seed", ["a-new-draw", "a-classmate"])
def test_the_registry_count_tell_earns_no_more_than_an_honest_stub(tmp_path, seed):
    """The tell against the same file with the tell switched off (its own generic answers: parse, a registered name,
    finite numbers): since drawn fields are also required, and registries of calls as written draw them too, a
    registry's shape tells nothing (it scored 64 against that file's 61 when only varied calls had required ones)."""
    honest = tmp_path / "honest.py"
    with open(TELL, encoding="utf-8") as handle:
        honest.write_text(handle.read() + "\n\ndef _varied():\n    return False\n", encoding="utf-8")
    stub = grader.pipeline.grade(honest, exercise_ids=["capstone"], seed=seed)
    tell = grader.pipeline.grade(TELL, exercise_ids=["capstone"], seed=seed)
    # The file answers with no schema check: 61 hidden points once, 35 since the valid-call cases' siblings (the same
    # call with one more field required) must be refused too.
    assert hidden_points(stub) > 25
    assert hidden_points(tell) <= hidden_points(stub)


# The skeleton replay for parse_call (notebook 1): its hidden inputs are raw calls too. Recorded as above, around
# Sandbox.run; the stub is the same file with an empty table (json.loads, an object or one generic problem).
PARSE_SKELETON_REPLAY = '''
import json
import re

TABLE = json.loads({table!r})
WORD = re.compile(r"[^\\W\\d_]+")


def skeleton(text):
    return re.sub(r"[^\\W\\d_]", lambda m: "A" if m.group().isupper() else "a", text)


def translated(value, mapping):
    if isinstance(value, str):
        return WORD.sub(lambda m: mapping.get(m.group(), m.group()), value)
    if isinstance(value, list):
        return [translated(item, mapping) for item in value]
    if isinstance(value, dict):
        return {{translated(k, mapping): translated(v, mapping) for k, v in value.items()}}
    return value


def parse_call(raw):
    if isinstance(raw, str):
        for entry in TABLE.get(skeleton(raw), []):
            live = list(dict.fromkeys(WORD.findall(raw)))
            if len(live) == len(entry["words"]):
                return tuple(translated(entry["result"], dict(zip(entry["words"], live))))
    try:
        call = json.loads(raw)
    except (TypeError, ValueError, RecursionError):
        call = None
    if isinstance(call, dict):
        return call, []
    return None, ["That is not one JSON object."]
'''


def record_parse_call(monkeypatch, seed, folder):
    """The reference parse_call (written into ``folder``) graded once with a recorder: ``{skeleton: [{"result",
    "words"}]}`` (dict)."""
    from faulty.step_faults import BASES

    table = {}
    run = Sandbox.run

    def recording_run(sandbox, entry, invocations, globals_, responder, view=None, hidden=False):
        outcome = run(sandbox, entry, invocations, globals_, responder, view=view, hidden=hidden)
        raw = invocations[0][0] if invocations and invocations[0] else None
        if hidden and entry == "parse_call" and isinstance(raw, str) and len(raw) < 20_000 and outcome.results:
            result = outcome.results[-1].get("result", {}).get("plain")
            if result is not None:
                table.setdefault(skeleton(raw), []).append(
                    {"result": result, "words": list(dict.fromkeys(re.findall(r"[^\W\d_]+", raw)))})
        return outcome

    with monkeypatch.context() as patch:
        patch.setattr(Sandbox, "run", recording_run)
        path = folder / "parse_reference.py"
        path.write_text(BASES["parse-call"], encoding="utf-8")
        result = grader.pipeline.grade(path, exercise_ids=["parse-call"], seed=seed)
    assert result.score == result.max_score  # the reference: the answers worth replaying
    return table


def graded_parse(tmp_path, name, table, seed):
    path = tmp_path / f"{name}.py"
    path.write_text(PARSE_SKELETON_REPLAY.format(table=json.dumps(table)), encoding="utf-8")
    return grader.pipeline.grade(path, exercise_ids=["parse-call"], seed=seed)


@pytest.fixture(scope="module")
def parse_table(tmp_path_factory):
    monkeypatch = pytest.MonkeyPatch()
    try:
        return record_parse_call(monkeypatch, "recorded", tmp_path_factory.mktemp("reference"))
    finally:
        monkeypatch.undo()


def test_the_parse_call_skeleton_replay_works_on_the_draw_it_recorded(parse_table, tmp_path):
    """The control: on the inputs it recorded, the table is worth far more than json.loads alone."""
    stub = graded_parse(tmp_path, "stub", {}, "recorded")
    replay = graded_parse(tmp_path, "replay", parse_table, "recorded")
    assert hidden_points(replay) >= hidden_points(stub) + 10


@pytest.mark.parametrize("seed", ["a-new-draw", "a-classmate"])
def test_the_parse_call_skeleton_replay_earns_nothing_on_a_new_draw(parse_table, tmp_path, seed):
    """parse_call's hidden raw calls get valid fields drawn into their arguments (ExerciseHarness.call), so a replay
    keyed by their skeletons finds nothing on a new draw: it scores what json.loads alone scores."""
    assert len(parse_table) > 20
    stub = graded_parse(tmp_path, "stub", {}, seed)
    replay = graded_parse(tmp_path, "replay", parse_table, seed)
    assert hidden_points(stub) > 0
    assert hidden_points(replay) <= hidden_points(stub)


# Issue 24's second attacker trial (2026-12-06): the fields a draw adds have a recognisable name (a word of the public
# POOL_WORDS) and value shape (1-99, k/4 + 0.125, one Title-case word...), so dropping every optional field that looks
# drawn gives back each case's skeleton, and a table of the reference's verdicts keyed by it works again: 106/129 with no
# schema checks against 64 for the same file with an empty table. Writing the cases' own words literally into every
# observation no longer counts (Draw._backward_word): 93. The rest is the next part of the issue.
STRIP = os.path.join(ROOT, "tests", "attacks", "drawn_field_strip_lookup.py")
STRIP_STUB = os.path.join(ROOT, "tests", "attacks", "drawn_field_strip_stub.py")


@pytest.mark.parametrize("seed", ["a-new-draw", "a-classmate"])
def test_a_verdict_table_keyed_by_the_call_without_its_drawn_fields_earns_nothing(seed):
    """The third attacker trial's table: each call keyed by its skeleton without the fields that look drawn (declared
    optional, named by a pool word, valued like a drawn value), with the reference's verdicts and observations. It
    scored 93 against the stub's 64; now at least one drawn field is required and drawn values take the cases'
    shapes (``Draw.varied_arguments``, ``Draw._valid``), scalar arguments are drawn, and a call without arguments
    also meets a tool that requires nothing."""
    stub = grader.pipeline.grade(STRIP_STUB, exercise_ids=["capstone"], seed=seed)
    lookup = grader.pipeline.grade(STRIP, exercise_ids=["capstone"], seed=seed)
    assert hidden_points(stub) > 0
    assert hidden_points(lookup) <= hidden_points(stub) + NOTHING_TO_DRAW


def test_the_cases_own_words_written_literally_name_nothing():
    """A renamed word the submission sends back as itself comes from the public cases, not from its input (the trial
    replayed the reference's observations in the cases' words: "missing required argument 'city'" named every drawn
    field): it is judged as x's. Images, and words outside the vocabulary, come back as they were."""
    from grader.judging.draw import Draw

    draw = Draw("literal", "capstone")
    assert draw.backward("missing required argument 'city'; try City or CITY") == \
        "missing required argument 'xxxx'; try Xxxx or XXXX"
    image = draw.forward("units")
    assert image != "units" and draw.backward(f"argument {image!r} must be a string") == "argument 'units' must be a string"


# -- every exercise whose function is called with data (notebooks 0-3 and 6) -----------------------------------------
# The same attack as the capstone's: grade the reference once while recording every hidden input and what it
# returned, then submit a file that returns the recorded answer for an input it knows and a stub's otherwise. The
# retry loop (notebook 4) is left out: its inputs are the capstone's raw calls, handed over with the trusted check.

STEP_FUNCTIONS = {"tool-result": ["tool_error_result"], "parse-call": ["parse_call"], "validate-call": ["validate_call"],
                  "observe": ["observe"], "json-schema": ["validate_arguments"],
                  "adapters": ["raw_call_from_openai", "raw_call_from_anthropic"]}
# What the file answers for an input it does not know: what a submission with nothing behind it returns.
STEP_STUBS = {"tool_error_result": "return {}", "parse_call": "return None, ['the call is not valid JSON']",
              "validate_call": "return []", "observe": "return None", "validate_arguments": "return []",
              "raw_call_from_openai": "return None", "raw_call_from_anthropic": "return None"}

STEP_REPLAY = '''
import hashlib
import json
import types

TABLE = json.loads({table!r})


def _canonical(value):
    if isinstance(value, type):
        return value.__name__
    if isinstance(value, types.SimpleNamespace):
        return {{"__object": _canonical(vars(value))}}
    if isinstance(value, dict):
        return {{str(key): _canonical(item) for key, item in value.items()}}
    if isinstance(value, (list, tuple)):
        return [_canonical(item) for item in value]
    return value


def _recorded(function, args):
    try:
        text = function + json.dumps(_canonical(list(args)), sort_keys=True, ensure_ascii=True, default=str)
    except (TypeError, ValueError, RecursionError):
        return False, None
    key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return key in TABLE, TABLE.get(key)
'''


def step_key(function, args):
    """The key the step replay computes for ``args`` (the worker's invocation, registries and SDK objects still as
    the grader's markers), on the trusted side: each marker as the submission sees its object."""

    def canonical(value):
        if isinstance(value, dict):
            if value.get("__kit__") == "registry":
                return canonical(value["value"])
            if value.get("__kit__") == "object":
                return {"__object": canonical(value["value"])}
            return {str(key): canonical(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [canonical(item) for item in value]
        return value

    text = function + json.dumps(canonical(list(args)), sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def record_step(exercise, tmp_path, monkeypatch, seed, drawn=True):
    """Grade the exercise's reference (``tests/faulty/step_faults.BASES``) with a recorder around ``Sandbox.run``;
    returns ``{key: what it returned}`` for every hidden input under 20,000 characters."""
    from faulty.step_faults import BASES

    table, run = {}, Sandbox.run

    def recording_run(sandbox, entry, invocations, globals_, responder, view=None, hidden=False):
        outcome = run(sandbox, entry, invocations, globals_, responder, view=view, hidden=hidden)
        if hidden and not globals_:
            for args, finished in zip(invocations, outcome.results):
                result = finished.get("result", {})
                if "plain" in result and len(json.dumps(args, default=str)) < 20_000:
                    table[step_key(entry, args)] = result["plain"]
        return outcome

    path = tmp_path / f"reference_{exercise}.py"
    path.write_text(BASES[exercise], encoding="utf-8")
    with monkeypatch.context() as patch:
        patch.setattr(Sandbox, "run", recording_run)
        if not drawn:
            patch.setattr(grader.pipeline, "Draw", lambda *args: None)
        result = grader.pipeline.grade(path, exercise_ids=[exercise], seed=seed)
    assert result.score == result.max_score
    return table


def step_replay(exercise, table, tmp_path, name):
    """A file that returns ``table``'s answer for an input it knows and the stub's otherwise (path)."""
    source = STEP_REPLAY.format(table=json.dumps(table))
    for function in STEP_FUNCTIONS[exercise]:
        as_returned = "tuple(value)" if function == "parse_call" else "value"  # parse_call returns a pair
        source += (f"\n\ndef {function}(*args):\n    known, value = _recorded({function!r}, args)\n"
                   f"    if known:\n        return {as_returned}\n    {STEP_STUBS[function]}\n")
    path = tmp_path / f"{name}_{exercise}.py"
    path.write_text(source, encoding="utf-8")
    return path


@pytest.mark.parametrize("exercise", list(STEP_FUNCTIONS))
def test_a_replay_of_every_exercises_hidden_inputs_earns_nothing_on_a_new_draw(exercise, tmp_path, monkeypatch):
    """Issue 24's second measurement, for the exercises whose function is called with data: a table of the kit's own
    inputs and one of the reference's answers recorded on a draw earn on a new draw what the stub earns; on the draw
    they recorded (the control) they earn far more. tool-result's ids and messages and json-schema's schemas had no
    word to draw: the tables earned 4 of 7 and 9 of 49 there before they were drawn too."""
    kit = record_step(exercise, tmp_path, monkeypatch, "recorded", drawn=False)
    replay = record_step(exercise, tmp_path, monkeypatch, "recorded")
    assert len(kit) >= 5 and len(replay) >= 5

    def points(path, seed):
        return hidden_points(grader.pipeline.grade(path, exercise_ids=[exercise], seed=seed))

    stub = points(step_replay(exercise, {}, tmp_path, "stub"), "next-run")
    both = points(step_replay(exercise, {**kit, **replay}, tmp_path, "both"), "next-run")
    assert both <= stub
    control = points(step_replay(exercise, replay, tmp_path, "control"), "recorded")
    assert control >= stub + 5


# Issue 24's fourth attacker trial (2026-12-06): the draw only adds fields around a case that does not change, so a
# table recorded once with the draw off, keyed by each input's skeleton after taking away what the draw added, beats
# the same file with an empty table on every seed. The case's own fields are told from drawn ones by the public
# cases' registry shapes (field-name lengths and types) or by the public pool words; every reading is tried, and a
# wrong one almost never meets a recorded key. Closed by drawing every image's length (a skeleton keyed by lengths meets
# nothing); a table keyed by skeletons that ignore lengths is the next attack (measured below).
SHAPE_ATTACKS = [("capstone", "registry_shape_lookup.py", "registry_shape_stub.py"),
                 ("validate-call", "registry_shape_lookup_validate_call.py", "registry_shape_stub_validate_call.py"),
                 ("json-schema", "drawn_key_strip_json_schema.py", "drawn_key_strip_stub_json_schema.py"),
                 ("parse-call", "pool_word_strip_parse_call.py", "pool_word_strip_stub_parse_call.py")]


@pytest.mark.parametrize("exercise, attack, stub", SHAPE_ATTACKS, ids=[row[0] for row in SHAPE_ATTACKS])
def test_a_table_that_takes_away_what_the_draw_added_earns_nothing(exercise, attack, stub, monkeypatch):
    """Observed: capstone 116 against 61, validate-call 54 against 31, json-schema 45 against 19, parse-call 38
    against 28 hidden points, on every seed tried. Since images have lengths of their own (never their word's:
    ``Draw._draw_lengths_too``) no recorded skeleton meets a live one: each table earns the stub's points on seeds
    fresh-1 to fresh-3. The control: with the draw off, each table still earns far more (it is no broken file)."""
    folder = os.path.join(ROOT, "tests", "attacks")

    def points(name):
        return hidden_points(grader.pipeline.grade(os.path.join(folder, name), exercise_ids=[exercise], seed="fresh-1"))

    honest = points(stub)
    assert honest > 0
    assert points(attack) <= honest
    monkeypatch.setattr(grader.pipeline, "Draw", lambda *args: None)
    assert points(attack) >= points(stub) + 5


# -- the next attack: skeletons that ignore word lengths ---------------------------------------------------------------
# Every word of an input written as "w": a drawn length changes nothing, and the fields the draw added are taken away
# by trying every reading of which keys named by pool words are drawn (images are pool words too, so the case's own
# keys are among the candidates). Built live against the kit, so it follows every change of the cases. The same code
# makes the table's keys here and the replay's keys in the submission.

SHAPE_CODE = r'''
import itertools
import json
import re
import types

WORD = re.compile(r"[^\W\d_]+")


def _plain(value):
    if isinstance(value, type):
        return value.__name__
    if isinstance(value, types.SimpleNamespace):
        return {"__object": _plain(vars(value))}
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "[") and len(value) < 20000:
        try:
            return {"__json": _plain(json.loads(value))}
        except (ValueError, RecursionError):
            return value
    return value


def _keys(value, found):
    if isinstance(value, dict):
        for key, item in value.items():
            found.append(key)
            _keys(item, found)
    elif isinstance(value, list):
        for item in value:
            _keys(item, found)
    return found


def _dropped(value, drop):
    if isinstance(value, dict):
        return {key: _dropped(item, drop) for key, item in value.items() if key not in drop}
    if isinstance(value, list):
        return [_dropped(item, drop) for item in value if not (isinstance(item, str) and item in drop)]
    return value


def readings(plain, pool, most=3):
    """(key, words) of ``plain`` as it is, then with up to ``most`` keys named by pool words taken away."""
    candidates = [key for key in dict.fromkeys(_keys(plain, [])) if key.lower() in pool]
    for count in range(min(most, len(candidates)) + 1):
        for drop in itertools.combinations(candidates, count):
            text = json.dumps(_dropped(plain, set(drop)) if drop else plain)
            yield WORD.sub("w", text), list(dict.fromkeys(WORD.findall(text)))
'''

LENGTHLESS_REPLAY = SHAPE_CODE + '''

TABLE = json.loads(TABLE_TEXT)
POOL = set(json.loads(POOL_TEXT))


def _translated(value, mapping):
    if isinstance(value, str):
        return WORD.sub(lambda match: mapping.get(match.group(), match.group()), value)
    if isinstance(value, list):
        return [_translated(item, mapping) for item in value]
    if isinstance(value, dict):
        return {_translated(key, mapping): _translated(item, mapping) for key, item in value.items()}
    return value


def _recorded(args):
    try:
        plain = _plain(list(args))
        if len(json.dumps(plain)) > 20000:
            return False, None
        for key, words in readings(plain, POOL):
            for entry in TABLE.get(key, []):
                if len(entry["words"]) == len(words):
                    return True, _translated(entry["result"], dict(zip(entry["words"], words)))
    except Exception:
        pass
    return False, None
'''


def record_lengthless(exercise, tmp_path, monkeypatch, seed, drawn):
    """``{key: [{"words", "result"}]}``: every hidden input the exercise's reference was graded on (the draw off, or
    on seed ``seed``) keyed as ``SHAPE_CODE`` keys it with nothing taken away, with what the reference returned."""
    from faulty.step_faults import BASES

    shapes = {}
    exec(SHAPE_CODE, shapes)
    table, run = {}, Sandbox.run

    def unmarked(value):  # the worker's markers as the submission sees their objects (see step_key)
        if isinstance(value, dict):
            if value.get("__kit__") == "registry":
                return unmarked(value["value"])
            if value.get("__kit__") == "object":
                return {"__object": unmarked(value["value"])}
            return {str(key): unmarked(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [unmarked(item) for item in value]
        return value

    def recording_run(sandbox, entry, invocations, globals_, responder, view=None, hidden=False):
        outcome = run(sandbox, entry, invocations, globals_, responder, view=view, hidden=hidden)
        if hidden and not globals_:
            for args, finished in zip(invocations, outcome.results):
                result = finished.get("result", {})
                plain = shapes["_plain"](unmarked(args))
                if "plain" in result and len(json.dumps(plain)) < 20_000:
                    key, words = next(shapes["readings"](plain, set()))
                    table.setdefault(key, []).append({"words": words, "result": result["plain"]})
        return outcome

    path = tmp_path / f"reference_{exercise}.py"
    path.write_text(BASES[exercise], encoding="utf-8")
    with monkeypatch.context() as patch:
        patch.setattr(Sandbox, "run", recording_run)
        if not drawn:
            patch.setattr(grader.pipeline, "Draw", lambda *args: None)
        result = grader.pipeline.grade(path, exercise_ids=[exercise], seed=seed)
    assert result.score == result.max_score
    return table


def lengthless_replay(exercise, table, tmp_path, name):
    """A file that answers an input whose lengthless skeleton (some pool-word keys taken away) it recorded with the
    recorded answer in the live words, and the stub's answer otherwise (path)."""
    from grader.judging.draw import POOL_CITIES, POOL_WORDS

    source = (f"TABLE_TEXT = {json.dumps(table)!r}\nPOOL_TEXT = {json.dumps(sorted(POOL_WORDS + POOL_CITIES))!r}\n"
              + LENGTHLESS_REPLAY)
    for function in STEP_FUNCTIONS[exercise]:
        as_returned = "tuple(value)" if function == "parse_call" else "value"  # parse_call returns a pair
        source += (f"\n\ndef {function}(*args):\n    known, value = _recorded(args)\n"
                   f"    if known:\n        return {as_returned}\n    {STEP_STUBS[function]}\n")
    path = tmp_path / f"{name}_{exercise}.py"
    path.write_text(source, encoding="utf-8")
    return path


# History of this test (issue 24, seed next-run, the stub earning 0 hidden points in each): tool-result 2, parse-call 23,
# validate-call 39, observe 17, json-schema 33 when it was written (2026-12-06). The valid-call canaries made again from
# their kind (Draw.templated_valid): parse-call 4. validate_call's schema cases made again together
# (Draw.templated_together): 29; its cases whose fault is the call's form and its unregistered-tool canary made again
# around their form (Draw.templated_around: the registry drawn, what the arguments hold drawn): 0. observe's calls the
# same way (ExerciseHarness.drawn_call, a registry drawn whole where no call came out, the many-tools registries, terse
# problem lists and eighty problems drawn from their kind): 0. Notebook 6's schemas (Draw.templated_schema: every
# property name drawn, properties in nested schemas, a description of drawn words): 0. parse_call's names drawn where
# nothing else could be (Draw.with_drawn_name) and tool-result's messages with a drawn number: 0. On other seeds each
# table still meets a case now and then (0 to 1 point), where a case's form is all it is (a boolean for arguments, an
# unsupported keyword): what it knows there is the rule itself.


@pytest.mark.parametrize("exercise", list(STEP_FUNCTIONS))
def test_a_table_keyed_by_skeletons_without_lengths_earns_nothing(exercise, tmp_path, monkeypatch):
    """Every word written as "w" and up to three pool-word keys taken away: a table of the reference's answers,
    recorded with the draw off and on another draw, earns on a new draw what the stub earns; on the draw it recorded
    (the control) it earns far more."""
    table = record_lengthless(exercise, tmp_path, monkeypatch, "recorded", drawn=False)
    for key, entries in record_lengthless(exercise, tmp_path, monkeypatch, "recorded", drawn=True).items():
        table.setdefault(key, []).extend(entries)

    def points(path, seed):
        return hidden_points(grader.pipeline.grade(path, exercise_ids=[exercise], seed=seed))

    stub = points(lengthless_replay(exercise, {}, tmp_path, "stub"), "next-run")
    replay = points(lengthless_replay(exercise, table, tmp_path, "replay"), "next-run")
    control = points(lengthless_replay(exercise, table, tmp_path, "control"), "recorded")
    print(f"{exercise}: stub {stub}, replay {replay}, control {control}")
    assert control >= stub + 3
    assert replay <= stub


# Issue 24's fifth attacker trial (2026-12-06): the capstone's inputs keyed by a coarse shape (every word "w", every
# number "0", pool-word fields dropped, recorded cases under one key voting) from one grading of the reference with the
# draw off. Templates change names, types and values, but a refused call and the valid calls the cases send keep
# coarse shapes of their own, so the shape alone told them apart. Siblings (grader/judging/siblings.py) give each call
# whose verdict the registry decides a twin of the opposite verdict (53, 58 and 53); with the valid-call canary made
# again from its kind, 5, 5 and 5; with the valid-call cases made again from their kind (Draw.templated_valid), 4, 4
# and 5; what was left were real malformed calls whose text is the case, answered "ask once, dispatch the reply": the
# sibling that forbade the fix had a registry of its own shape, which the table did not know. That sibling now keeps
# the case's registry and gets a fix short of a required field (siblings.short_fix): 0, 0 and 0.
@pytest.mark.parametrize("seed", ["fresh-1", "fresh-2", "fresh-3"])
def test_a_coarse_shape_classifier_of_the_capstone_earns_nothing(seed):
    """Observed: 82, 85 and 92 hidden points against the stub's 0 on seeds fresh-1 to fresh-3; with siblings 53, 58
    and 53; with the canary drawn from its kind too, 5, 5 and 5; with the valid calls too, 4, 4 and 5; with the fix's
    sibling on the case's own registry, 0, 0 and 0. Issue 25 added a visible case, which moved every draw: on fresh-1
    the classifier then dispatched all three of the valid-call canary's made calls and kept 45 refusal points (about
    one draw in six, fresh-1 to fresh-6). With two made calls in each canary run, fresh-1 to fresh-10 gave 1, 0, 0, 0,
    0, 1, 0, 1, 0, 2: valid calls it parses and dispatches as written (a name in unicode escapes, whitespace around
    the call), which is what those cases ask; the bound allows them and nothing of the refusals."""
    folder = os.path.join(ROOT, "tests", "attacks")

    def points(name):
        return hidden_points(grader.pipeline.grade(os.path.join(folder, name), exercise_ids=["capstone"], seed=seed))

    assert points("lengthless_capstone_lookup.py") <= points("lengthless_capstone_stub.py") + 3


# Issue 24's seventh attacker trial (2026-12-06): validate_call's wrong values were kept as written while every valid
# value was drawn in a few public shapes, so "a value no draw makes" was the case's own fault value, on every draw. A
# table keyed by those values (with whether their field is required, optional or undeclared), the arguments' type and
# whether the name is registered, recorded on two gradings, scored 44-45 hidden points against the same file's 27
# with an empty table (which refuses unregistered names, the one check the gates ask of it). Wrong values are now
# drawn from their kind (Draw._wrong_like) and valid strings and numbers take the shapes wrong ones have (digits,
# "10.5", 7.0): on a new draw it now scores 37 against 27 (2026-12-06), all in cases whose fault is the form itself
# (arguments that are no object) or a value that is its own kind (null, false), whose rule is all the key holds.
VALUES_REPLAY = r'''
import json
import re

WORD = re.compile(r"[^\W\d_]+")


def _drawn_shape(value):
    """Whether a draw could have made ``value`` (grader.judging.draw.Draw._valid, as the public source shows it)."""
    if value is True:
        return True
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int):
        return 1 <= value < 100_000
    if isinstance(value, float):
        return 0 < value < 1000 and (value == int(value) or value % 1 in (0.25, 0.5, 0.75, 0.125))
    if isinstance(value, str):
        return bool(re.fullmatch(r"[A-Za-z]+( [A-Za-z]+)?|[0-9]{1,5}|[0-9]{1,3}\.[0-9]{1,2}", value))
    if isinstance(value, list):
        return 1 <= len(value) <= 3 and all(_drawn_shape(item) for item in value)
    if isinstance(value, dict):
        return 1 <= len(value) <= 2 and all(_drawn_shape(item) for item in value.values())
    return False


def _key(call, tools):
    name = call.get("name") if isinstance(call, dict) else None
    known = isinstance(name, str) and name in tools
    spec = tools.get(name, {}) if known else {}
    arguments = call.get("arguments") if isinstance(call, dict) else None
    left = []
    if isinstance(arguments, dict):
        for field, value in arguments.items():
            if not _drawn_shape(value):
                status = "R" if field in spec.get("required", {}) else "O" if field in spec.get("optional", {}) else "U"
                left.append((json.dumps(value, sort_keys=True), status, field))
    left.sort()
    return json.dumps([known, type(arguments).__name__, [item[:2] for item in left]]), name, [item[2] for item in left]


def validate_call(call, tools):
    try:
        key, name, fields = _key(call, tools)
        entry = TABLE.get(key)
        if entry is not None:
            mapping = dict(zip(entry["fields"], fields))
            if isinstance(entry["name"], str) and isinstance(name, str):
                mapping[entry["name"]] = name
            return [WORD.sub(lambda match: mapping.get(match.group(), match.group()), problem)
                    if isinstance(problem, str) else problem for problem in entry["problems"]]
        if not (isinstance(call, dict) and isinstance(call.get("name"), str) and call["name"] in tools):
            return [f"unknown tool {call.get('name') if isinstance(call, dict) else None!r}"]
    except Exception:
        pass
    return []
'''
# What such a table still knows: cases whose fault is the form itself, or a value that is its own kind (null, false).
FORM_CASES = re.compile(r"\[(arguments-|null-|bool-for-)|A non-string name and non-object arguments")


def test_a_table_keyed_by_the_values_no_draw_makes_knows_only_the_form(tmp_path, monkeypatch):
    """Recorded on two gradings of the reference, a table keyed by the argument values a draw cannot make earns,
    on a new draw, nothing over the same file with an empty table in the cases whose fault is a wrong type or an
    undeclared field; it gains only where the fault is the form (arguments that are no object) or a value that is
    its own kind (null, a boolean)."""
    from faulty.step_faults import BASES

    rows, run = [], Sandbox.run

    def recording_run(sandbox, entry, invocations, globals_, responder, view=None, hidden=False):
        outcome = run(sandbox, entry, invocations, globals_, responder, view=view, hidden=hidden)
        if hidden and entry == "validate_call":
            for args, finished in zip(invocations, outcome.results):
                if "plain" in finished.get("result", {}):
                    rows.append((args, finished["result"]["plain"]))
        return outcome

    reference = tmp_path / "reference.py"
    reference.write_text(BASES["validate-call"], encoding="utf-8")
    with monkeypatch.context() as patch:
        patch.setattr(Sandbox, "run", recording_run)
        for seed in ("recorded-1", "recorded-2"):
            grader.pipeline.grade(reference, exercise_ids=["validate-call"], seed=seed)

    shapes = {}
    exec(VALUES_REPLAY, shapes)

    def plain(value):  # the worker's markers as the submission sees the objects
        if isinstance(value, dict):
            if value.get("__kit__") == "registry":
                return plain(value["value"])
            return {str(key): plain(item) for key, item in value.items()}
        if isinstance(value, list):
            return [plain(item) for item in value]
        return value

    table = {}
    for args, problems in rows:
        try:
            call, tools = plain(args[0]), plain(args[1])
        except RecursionError:  # the 900-level case: no key for it
            continue
        if isinstance(tools, dict) and isinstance(problems, list):
            key, name, fields = shapes["_key"](call, tools)
            table.setdefault(key, {"name": name, "fields": fields, "problems": problems})
    assert len(rows) > 200 and len(table) > 10  # the recording worked (the keys are few: most values look drawn)

    def graded(name, entries):
        path = tmp_path / f"{name}.py"
        path.write_text(f"TABLE = {entries!r}\n" + VALUES_REPLAY, encoding="utf-8")
        result = grader.pipeline.grade(path, exercise_ids=["validate-call"], seed="next-run")
        return {case.title: case.points for case in result.cases if case.visibility == "hidden"}

    replay, empty = graded("replay", table), graded("empty", {})
    gained = sorted(title for title, points in replay.items() if points > empty.get(title, 0))
    assert [title for title in gained if not FORM_CASES.search(title)] == [], [t for t in gained if not FORM_CASES.search(t)]
    assert sum(replay.values()) <= sum(empty.values()) + 14

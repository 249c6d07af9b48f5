"""Canaries: the two behaviours that give a case's verdict its meaning.

A case that checks "this bad input is refused" is passed by a function that refuses everything;
a case that checks "this good input is accepted" is passed by one that accepts everything. So a
case marked ``@pytest.mark.gate("accepts")`` counts only if the function also accepts a plainly
valid input, and one marked ``gate("rejects")`` only if it also refuses a plainly invalid one.
Without this, "ask once, then always reject" scored 64 of 115 on the capstone (found by an
adversarial test of the grader).

Each canary is ``callable(harness) -> None`` that raises ``expectations.CaseFailed`` when the
behaviour is missing; ``CANARIES[cases_folder][kind]``. Canary inputs are drawn per grading run from
ordinary-looking values (real city names, plausible tool names, several kinds of non-object JSON), so
a submission cannot tell them from any other input and behave well only for them.
"""

import contextlib
import json
import secrets

from grader.judging import expectations as expect
from grader.judging.registries import SEED_TOOLS, TYPED_TOOLS, encode_registry
from grader.judging.scripted_models import make_call
from grader.paths import CANARY_POOLS_PATH
from grader.results.text_report import NOT_COUNTED
from grader.translations import N_, Nn_, ngettext, say

# Only the instructor's grader has canary_pools.json (course.release leaves it out): a student release draws
# its self-check canaries from this small public pool instead, which shares no value with the grader's.
PUBLIC_POOLS = {"cities": ["Springfield", "Riverton", "Lakeside", "Fairview"], "verbs": ["check", "show"],
                "nouns": ["status", "report"]}


def load_pools(path=CANARY_POOLS_PATH):
    """The value pools canary inputs are drawn from: ``{"cities", "verbs", "nouns"}`` (dict of lists of str).

    Canary inputs look like any other input: real city names and plausible tool names, drawn afresh per
    run, never a recognisable marker (a name plus a random hex suffix could be matched by a regular
    expression, and "refuse everything except canaries" then scored 74 of 116: an adversarial test).
    Read from ``path`` (the grader's pools); ``PUBLIC_POOLS`` when it is missing (a student release).
    """
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        return {key: list(data[key]) for key in PUBLIC_POOLS}
    except (OSError, ValueError, KeyError, TypeError):
        return PUBLIC_POOLS


_POOLS = load_pools()
CITIES, VERBS, NOUNS = _POOLS["cities"], _POOLS["verbs"], _POOLS["nouns"]
KNOWN = set(SEED_TOOLS) | {"get_weather"}

# Where the canaries' values come from: the system's randomness, or during a grading the draw's own generator
# (``grader.judging.draw.Draw.random``), so that a seed reproduces the canaries too (``drawing_from``).
_random = secrets.SystemRandom()


@contextlib.contextmanager
def drawing_from(generator):
    """Within the block every canary value is drawn from ``generator`` (a ``random.Random``; None keeps the
    system's randomness). The previous source is restored afterwards."""
    global _random
    previous = _random
    _random = generator if generator is not None else previous
    try:
        yield
    finally:
        _random = previous


def token_hex(count):
    """``count`` random bytes as hex digits (str), from the canaries' current source."""
    return "".join(f"{_random.randrange(256):02x}" for _ in range(count))


def city():
    """A valid city value nobody can predict or tell from any other city (str)."""
    return _random.choice(CITIES)


def weather_arguments():
    """Plainly valid arguments for get_weather: a city, sometimes with units (dict)."""
    arguments = {"city": city()}
    if _random.randrange(2):
        arguments["units"] = _random.choice(["metric", "imperial"])
    return arguments


def valid_call():
    """A plainly valid call to the seed's tool: ``(raw, arguments)``."""
    arguments = weather_arguments()
    return make_call("get_weather", arguments), arguments


def unknown_name():
    """A plausible tool name that is not registered (str), e.g. ``"fetch_forecast"``."""
    while True:
        name = f"{_random.choice(VERBS)}_{_random.choice(NOUNS)}"
        if name not in KNOWN:
            return name


def unknown_call():
    """A call to an unregistered tool with ordinary arguments (str)."""
    return make_call(unknown_name(), weather_arguments())


def not_an_object():
    """Valid JSON that is not an object, of a random kind (str)."""
    kinds = [lambda: "[]", lambda: str(_random.randrange(10_000) - 5_000), lambda: "null", lambda: "true",
             lambda: json.dumps(city()), lambda: "[" + valid_call()[0] + "]",
             lambda: json.dumps([city() for _ in range(1 + _random.randrange(3))])]
    return _random.choice(kinds)()


def wrong_type_value():
    """A value that is not a string, of a random kind (JSON data)."""
    return _random.choice([_random.randrange(10_000), [city()], None, True, {"name": city()}, 2.5])


# Valid calls the tool-call canary hands over in each of its runs: a coarse shape classifier recorded from the
# reference dispatched all three made calls of one draw in six and kept 45 hidden points there (seed fresh-1 once a
# visible case was added, issue 25); with two calls a run it must guess six shapes right.
ACCEPTS_CALLS_PER_RUN = 2


def _tool_call_accepts(harness):
    for _ in range(ACCEPTS_CALLS_PER_RUN if harness.draw is not None else 1):
        _one_valid_call_dispatched(harness)


def _one_valid_call_dispatched(harness):
    raw, arguments = valid_call()
    draw = harness.draw
    if draw is None:
        # Varied as the hidden valid calls are, so its shape does not tell it from them (issue 24's attacker trial).
        transcript = harness.run(raw, vary="dispatch")
    else:
        # Made again from its kind (a valid call: every name, type and value drawn, more fields, other tools), so
        # that no shape recorded from the cases is its shape: a classifier that refused every shape it had not seen
        # dispatched passed this canary by its recorded valid calls (issue 24's fifth attacker trial).
        made, tools = draw.templated(raw, SEED_TOOLS)
        try:
            transcript = harness.run(made, tools=tools, in_place=True)
            sent = json.loads(made)["arguments"] if made != raw else arguments
            arguments = draw.backward(draw.forward(sent))
        finally:
            draw.forget_template()
    expect.finished(transcript)
    arguments = {**arguments, **transcript.drawn_arguments}
    if len(transcript.dispatches) != 1 or not expect.strict_equal(transcript.dispatches[0][1], arguments):
        expect.fail(say("it did not dispatch a plainly valid call"))


def _tool_call_rejects(harness):
    transcript = harness.run(unknown_call())
    if transcript.problem or transcript.raised:
        expect.fail(say("a call to an unregistered tool did not end in a refusal: {what}",
                        what=(transcript.problem or say("it raised {raised}", raised=transcript.raised_shown)).rstrip(".")))
    if transcript.dispatches:
        expect.fail(say("it dispatched a call to an unregistered tool"))


def _pair(harness, raw):
    value = expect.returned(harness.call(raw, view="pair_with_texts"))
    return value if isinstance(value, list) and len(value) == 2 else [None, None]


@contextlib.contextmanager
def _from_its_kind(harness, call, tools):
    """``(call, tools)`` for a step canary's plainly valid ``call`` (``{"name", "arguments"}``) on ``tools`` (a
    registry of classes): in a hidden run made again from its kind (``grader.judging.draw.Draw.templated_valid``:
    every name drawn, more fields, other tools; the drawn names read back as the call's words until the block ends),
    as given otherwise. A canary of a recorded shape let a table of the reference's answers that knew no other shape
    keep every refusal it had recorded (issue 24: a lengthless table kept 23 of parse_call's hidden points)."""
    draw = harness.draw
    made = draw.templated_valid(json.dumps(call), tools) if draw is not None else None
    if made is None:
        yield call, tools
        return
    try:
        yield json.loads(made[0]), made[1]
    finally:
        draw.forget_template()


def _parse_accepts(harness):
    _, arguments = valid_call()
    with _from_its_kind(harness, {"name": "get_weather", "arguments": arguments}, SEED_TOOLS) as (call, _):
        call, problems = _pair(harness, json.dumps(call))
    if not isinstance(call, dict) or problems != []:
        expect.fail(say("it did not accept a plainly valid call"))


def _parse_rejects(harness):
    call, problems = _pair(harness, not_an_object())
    if call is not None or not problems:
        expect.fail(say("it did not refuse JSON that is not an object"))


# The step exercises' cases use these registries; a canary on another one could be told apart by its
# registry alone (validating only calls against the seed's one-tool registry scored 21 hidden points).
STEP_REGISTRIES = (TYPED_TOOLS, SEED_TOOLS)
SAMPLE_VALUES = {str: city, int: lambda: _random.randrange(60), float: lambda: _random.randrange(100_000) / 100,
                 bool: lambda: bool(_random.randrange(2)), list: lambda: [city()], dict: lambda: {"note": city()}}


def registry_call(tools):
    """A plainly valid call for a random tool of ``tools``: ``{"name", "arguments"}`` with every required
    argument and some optional ones, each a random value of its declared type."""
    name = _random.choice(sorted(tools))
    spec = tools[name]
    arguments = {field: SAMPLE_VALUES[kind]() for field, kind in spec.get("required", {}).items()}
    arguments.update({field: SAMPLE_VALUES[kind]() for field, kind in spec.get("optional", {}).items()
                      if _random.randrange(2)})
    return {"name": name, "arguments": arguments}


def unknown_for(tools):
    """A plausible tool name that ``tools`` does not register (str)."""
    while True:
        name = unknown_name()
        if name not in tools:
            return name


def _validate(harness, call, tools):
    return expect.returned(harness.call(call, encode_registry(tools), view="texts"))


def each_step_registry():
    """Every registry of ``STEP_REGISTRIES`` once, in a random order (list of dicts): what one canary run checks.

    A canary run used to draw one registry, the seed's with odds of 1 in 3, so all three runs of a kind fell on
    it in 1 grading of 27: a validate_call that works on the seed's registry alone and refuses everything else
    then kept its 35 "refuses" points (a hostile fixture, caught now and then by the kit's suite). Checking each
    registry in every run leaves no such draw; the cases use both registries, so neither tells a canary apart.
    """
    registries = list(STEP_REGISTRIES)
    _random.shuffle(registries)
    return registries


def _validate_accepts(harness):
    for tools in each_step_registry():
        with _from_its_kind(harness, registry_call(tools), tools) as (call, tools):
            problems = _validate(harness, call, tools)
        if problems != []:
            expect.fail(say("it reported problems for a plainly valid call"))


@contextlib.contextmanager
def _around(harness, call, tools):
    """``(call, tools)`` for a step canary's ``call`` of an unregistered tool (``{"name", "arguments"}``) on ``tools``:
    in a hidden run made again from its kind as the cases of its kind are (``grader.judging.draw.Draw.templated_around``:
    the name kept, the arguments' fields and values and the whole registry drawn), as given otherwise. On the registry as
    written, a table of the reference's answers recorded on two gradings knew the canary on some draws and opened the
    gate of eight valid-call points that a stub cannot earn (issue 24)."""
    draw = harness.draw
    if draw is None:
        yield call, tools
        return
    try:
        [(name, arguments)], registry = draw.templated_around([(call["name"], call["arguments"])], tools)
        yield {"name": name, "arguments": arguments}, registry
    finally:
        draw.forget_template()


def _validate_rejects(harness):
    for tools in each_step_registry():
        with _around(harness, {"name": unknown_for(tools), "arguments": weather_arguments()}, tools) as (call, tools):
            problems = _validate(harness, call, tools)
        if not problems:
            expect.fail(say("it reported no problem for an unregistered tool"))


def _observe(harness, raw, tools):
    return expect.returned(harness.observe(raw, tools))


def _observe_accepts(harness):
    for tools in each_step_registry():
        with _from_its_kind(harness, registry_call(tools), tools) as (call, tools):
            observation = _observe(harness, make_call(call["name"], call["arguments"]), tools)
        if observation is not None:
            expect.fail(say("it produced an observation for a plainly valid call"))


def _observe_rejects(harness):
    for tools in each_step_registry():
        value = _observe(harness, make_call(unknown_for(tools), weather_arguments()), tools)
        if not isinstance(value, str) or not value.strip():
            expect.fail(say("it produced no observation for an unregistered tool"))


# The json_schema cases' own schema (a canary on a smaller one could be told apart by it).
SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer"},
        "units": {"enum": ["metric", "imperial"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "location": {"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
                     "required": ["lat", "lon"], "additionalProperties": False},
        "note": {"type": ["string", "null"]},
    },
    "required": ["city"],
    "additionalProperties": False,
}


def schema_arguments():
    """Plainly valid arguments for ``SCHEMA``: a city and a random choice of the optional fields (dict)."""
    optional = {"days": lambda: 1 + _random.randrange(14), "units": lambda: _random.choice(["metric", "imperial"]),
                "tags": lambda: [city()], "location": lambda: {"lat": _random.randrange(90), "lon": _random.randrange(180)},
                "note": lambda: _random.choice([None, city()])}
    arguments = {"city": city()}
    arguments.update({field: make() for field, make in optional.items() if _random.randrange(2)})
    return arguments


def _schema_accepts(harness):
    if expect.returned(harness.call(schema_arguments(), SCHEMA, view="texts")) != []:
        expect.fail(say("it reported problems for plainly valid arguments"))


def _schema_rejects(harness):
    arguments = schema_arguments()
    arguments["city"] = wrong_type_value()
    if not expect.returned(harness.call(arguments, SCHEMA, view="texts")):
        expect.fail(say("it reported no problem for a wrong type"))


def _decoded_call(harness, function, wire):
    value = expect.returned(harness.call(wire, function=function))
    try:
        return json.loads(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _adapters_convert(harness):
    name = _random.choice(["get_weather", unknown_name()])
    arguments = weather_arguments()
    wire = {"id": f"call_{token_hex(6)}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}
    if not expect.strict_equal(_decoded_call(harness, "raw_call_from_openai", wire), {"name": name, "arguments": arguments}):
        expect.fail(say("raw_call_from_openai did not carry over the name and arguments of an ordinary tool call"))
    block = {"type": "tool_use", "id": f"toolu_{token_hex(6)}", "name": name, "input": arguments}
    if not expect.strict_equal(_decoded_call(harness, "raw_call_from_anthropic", block), {"name": name, "arguments": arguments}):
        expect.fail(say("raw_call_from_anthropic did not carry over the name and input of an ordinary tool_use block"))


def _turn_answers(harness):
    """A turn with one ordinary valid call, in either provider's shape, must get that call's answer."""
    provider = _random.choice(["openai", "anthropic"])
    arguments = {"city": _random.choice(CITIES)}
    if provider == "openai":
        message = {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{token_hex(6)}", "type": "function",
             "function": {"name": "get_weather", "arguments": json.dumps(arguments)}}]}
    else:
        message = {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{token_hex(6)}", "name": "get_weather", "input": arguments}]}
    transcript = harness.turn(message, provider, tools=SEED_TOOLS)
    try:
        expect.expect_turn_answered(transcript, provider, SEED_TOOLS)
    except expect.CaseFailed:
        expect.fail(say("answer_turn did not run and answer a turn holding one ordinary valid call"))


def _stream_assembles(harness):
    """One ordinary call, streamed in two to five pieces in one of the shapes a real stream has (a role-only first
    delta or not, the finish on the last delta or on a chunk of its own, a usage chunk or not, chunk ids and
    ``object`` as OpenAI writes them), must come back as the whole message it makes.

    Its shape is drawn: a fixed one was a tell (return None unless the stream has the canary's four chunks, and the
    cut cases' None counted: an attacker's trial of notebook 7b, 6/21), and so were chunks without the ``id`` and
    ``object`` keys every case's chunks carry (8/21)."""
    call_id = f"call_{token_hex(6)}"
    # Non-ASCII written as it is: json.dumps's \u escapes put a backslash where the cut below may fall, and a word
    # cut there was renamed in neither piece by the grading's draw, but renamed back once joined (0/21 for the
    # reference on about one grading in ten).
    text = json.dumps({"city": _random.choice(CITIES)}, ensure_ascii=False)
    cuts = [i for i in range(1, len(text)) if not (text[i - 1].isalnum() and text[i].isalnum())]
    points = sorted(_random.sample(cuts, min(len(cuts), 1 + _random.randrange(3))))
    parts = [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]
    first = "" if _random.random() < 0.5 else parts.pop(0)
    pieces = [{"index": 0, "id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": first}}]
    pieces += [{"index": 0, "function": {"arguments": part}} for part in parts]
    deltas = ([{"role": "assistant", "content": None}] if _random.random() < 0.5 else []) + \
        [{"tool_calls": [piece]} for piece in pieces]
    stream_id = f"chatcmpl-{token_hex(6)}"
    stream = [{"id": stream_id, "object": "chat.completion.chunk",
               "choices": [{"index": 0, "delta": delta, "finish_reason": None}]} for delta in deltas]
    if _random.random() < 0.5:
        stream[-1]["choices"][0]["finish_reason"] = "tool_calls"
    else:
        stream.append({"id": stream_id, "object": "chat.completion.chunk",
                       "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    if _random.random() < 0.5:
        stream.append({"id": stream_id, "object": "chat.completion.chunk", "choices": [],
                       "usage": {"prompt_tokens": 10 + _random.randrange(90), "completion_tokens": 5, "total_tokens": 99}})
    wanted = {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": text}}]}
    if not expect.strict_equal(expect.returned(harness.call(stream, function="assemble_turn")), wanted):
        expect.fail(say("assemble_turn did not join an ordinary call streamed in pieces into its message"))


CANARIES = {
    "tool_call": {"accepts": _tool_call_accepts, "rejects": _tool_call_rejects},
    "parsing": {"accepts": _parse_accepts, "rejects": _parse_rejects},
    "schema": {"accepts": _validate_accepts, "rejects": _validate_rejects},
    "observations": {"accepts": _observe_accepts, "rejects": _observe_rejects},
    "json_schema": {"accepts": _schema_accepts, "rejects": _schema_rejects},
    # Adapters neither accept nor refuse: a case checks that one fixed input comes out right, which a function
    # returning that output whatever it is given would pass (a constant stub did: an adversarial test).
    "adapters": {"converts": _adapters_convert},
    # A turn without calls is answered with []: so is every turn by a function that returns [] (a constant stub).
    "turn": {"answers": _turn_answers},
    # A stream that did not finish gives None: so does every stream for a function that returns None.
    "stream": {"assembles": _stream_assembles},
}

WHY = {
    "accepts": N_("it checks that a bad input is refused, which only means something if {function} also accepts a "
                  "good one, and in the grader's check {reason}. A function that refuses everything would pass it."),
    "rejects": N_("it checks that a good input is accepted, which only means something if {function} also refuses a "
                  "bad one, and in the grader's check {reason}. A function that accepts everything would pass it."),
    "converts": N_("it checks one fixed input, which only means something if {function} also converts an input it "
                   "was not shown, and in the grader's check {reason}. A function that returns a fixed value would "
                   "pass it."),
    "answers": N_("it checks that a turn without tool calls gets no answer, which only means something if {function} "
                  "also answers a turn that has calls, and in the grader's check {reason}. A function that returns "
                  "[] whatever it is given would pass it."),
    "assembles": N_("it checks one stream, which only means something if {function} also joins a stream it was not "
                    "shown, and in the grader's check {reason}. A function that returns a fixed value would pass it."),
}


# Each canary runs this many times per exercise, before cases drawn at random: a submission that counts
# its calls cannot tell which call is a canary (with one canary at a fixed place, "dispatch only the 3rd
# call" scored 64 of 116: an adversarial test), and must pass all of them.
RUNS_PER_KIND = 3


def kinds_for(cases_folder):
    """The canary kinds an exercise's case folder has (list of ``"accepts"``/``"rejects"``/``"converts"``/``"answers"``/``"assembles"``)."""
    return sorted(CANARIES.get(cases_folder, {}))


def run_canary(harness, cases_folder, kind):
    """Run one canary once. Returns None when the behaviour holds, else the reason it does not (str)."""
    try:
        CANARIES[cases_folder][kind](harness)
    except expect.CaseFailed as exc:
        return str(exc).rstrip(".")
    return None


def void_sentence(harness, kind, reason):
    """The full explanation of a passed case voided because its canary failed (``Said``), ``reason`` included.

    Said once per exercise and kind (``void_note``); each voided case gets the short ``void_reference``.
    """
    return say(NOT_COUNTED) + " " + say(WHY[kind], function=harness.entry, reason=reason) + " " + say("Fix that first.")


# The one note that tells a canary's failure (issue 11: a crash on a valid input was told as a 60-word paragraph on
# each of nine voided cases, with its cause buried in each): by kind, for one voided case and for several.
VOID_NOTES = {
    "accepts": Nn_("{function} failed the grader's check that it can accept a plainly valid input: {reason}. Until it "
                   "passes, the case that checks that a bad input is refused is not counted (a function that refuses "
                   "everything would pass it). Fix that first.",
                   "{function} failed the grader's check that it can accept a plainly valid input: {reason}. Until it "
                   "passes, the {count} cases that check that a bad input is refused are not counted (a function that "
                   "refuses everything would pass them). Fix that first."),
    "rejects": Nn_("{function} failed the grader's check that it can refuse a plainly invalid input: {reason}. Until "
                   "it passes, the case that checks that a good input is accepted is not counted (a function that "
                   "accepts everything would pass it). Fix that first.",
                   "{function} failed the grader's check that it can refuse a plainly invalid input: {reason}. Until "
                   "it passes, the {count} cases that check that a good input is accepted are not counted (a function "
                   "that accepts everything would pass them). Fix that first."),
    "converts": Nn_("{function} failed the grader's check that it can convert an input it was not shown: {reason}. "
                    "Until it passes, the case that checks one fixed input is not counted (a function that returns a "
                    "fixed value would pass it). Fix that first.",
                    "{function} failed the grader's check that it can convert an input it was not shown: {reason}. "
                    "Until it passes, the {count} cases that check one fixed input are not counted (a function that "
                    "returns a fixed value would pass them). Fix that first."),
    "answers": Nn_("{function} failed the grader's check that it can answer a turn that holds a call: {reason}. Until "
                   "it passes, the case that checks that a turn without calls gets no answer is not counted (a "
                   "function that returns [] for every turn would pass it). Fix that first.",
                   "{function} failed the grader's check that it can answer a turn that holds a call: {reason}. Until "
                   "it passes, the {count} cases that check that a turn without calls gets no answer are not counted "
                   "(a function that returns [] for every turn would pass them). Fix that first."),
    "assembles": Nn_("{function} failed the grader's check that it can join a stream it was not shown: {reason}. Until "
                     "it passes, the case that checks one stream is not counted (a function that returns a fixed value "
                     "would pass it). Fix that first.",
                     "{function} failed the grader's check that it can join a stream it was not shown: {reason}. Until "
                     "it passes, the {count} cases that check one stream are not counted (a function that returns a "
                     "fixed value would pass them). Fix that first."),
}
# Each voided case's own line, pointing at the note.
VOID_REFERENCES = {
    "accepts": N_("it checks that a bad input is refused, which counts once {function} can also accept a plainly "
                  "valid input (see the note at the top)."),
    "rejects": N_("it checks that a good input is accepted, which counts once {function} can also refuse a plainly "
                  "invalid input (see the note at the top)."),
    "converts": N_("it checks one fixed input, which counts once {function} can also convert an input it was not "
                   "shown (see the note at the top)."),
    "answers": N_("it checks that a turn without calls gets no answer, which counts once {function} can also answer a "
                  "turn that holds a call (see the note at the top)."),
    "assembles": N_("it checks one stream, which counts once {function} can also join a stream it was not shown (see "
                    "the note at the top)."),
}


def void_note(function, kind, reason, count):
    """The one note that tells why ``count`` passed cases were voided (str, in the learner's language).

    Args:
        function: the exercise's entry (str). kind: the canary kind (``"accepts"``...).
        reason: what went wrong in the canary's check (str, one sentence without its final period).
        count: how many passed cases it voided (int).
    """
    return ngettext(*VOID_NOTES[kind], count).format(function=function, reason=reason, count=count)


def disagreement_note(function, count):
    """The one note that tells why ``count`` passed cases were voided when ``function`` answered a call and its
    unchanged copy apart (``grader.judging.harness.ANCHOR_SHARE``) (str)."""
    return ngettext(
        "{function} gave two verdicts on one call: in one run it dispatched a call and in another it refused the very "
        "same call on the very same registry (or dispatched something else). A verdict that depends on something "
        "besides the call and TOOLS (a random choice, a memory of earlier calls, the process it runs in) cannot be "
        "graded, so the case whose call was also handed over on another registry is not counted. Decide from the call "
        "and the registry alone, and keep nothing from one call for the next.",
        "{function} gave two verdicts on one call: in one run it dispatched a call and in another it refused the very "
        "same call on the very same registry (or dispatched something else). A verdict that depends on something "
        "besides the call and TOOLS (a random choice, a memory of earlier calls, the process it runs in) cannot be "
        "graded, so the {count} cases whose calls were also handed over on another registry are not counted. Decide "
        "from the call and the registry alone, and keep nothing from one call for the next.",
        count).format(function=function, count=count)


def disagreement_reference(function):
    """The feedback of one case voided by ``disagreement_note`` (``Said``)."""
    return say(NOT_COUNTED) + " " + say("{function} gave two verdicts on one call and registry in two runs, so this "
                                        "case's verdict cannot be trusted (see the note at the top).", function=function)


def void_reference(function, kind):
    """The feedback of one voided case: a line that points at ``void_note`` (``Said``)."""
    return say(NOT_COUNTED) + " " + say(VOID_REFERENCES[kind], function=function)

"""The visible cases: shown with their input, run by the notebooks' self-checks and by the grader.

One list per exercise, two runners: ``grader.learner.selfcheck`` runs these in the learner's kernel for
instant feedback; each case folder's ``test_00_visible.py`` runs the same cases in the grader's
sandbox. Passing them all is not the same as passing the hidden cases, and the reports say so.
"""

import json
from dataclasses import dataclass, field, replace

from grader.judging import expectations as expect
from grader.judging import reference_steps
from grader.judging.registries import SEED_TOOLS, TYPED_TOOLS
from grader.judging.scripted_models import Answers, NeverCorrects, make_call
from grader.judging.wordings import JSON, OBJECT
from grader.translations import N_, _, say

# How a visible case's shown input ends when it is too long to show whole (``CallCase.shown_input``).
PRINT_WHOLE = N_(" (print the whole input with {call})")

VALID = make_call("get_weather", {"city": "Paris"})


class Registry:
    """Marks a case argument that is a tool registry (classes cannot cross as JSON as they are).

    Args:
        tools: ``{name: {"required": {...}, "optional": {...}}}`` with Python classes.
    """

    def __init__(self, tools):
        self.tools = tools


class Checked:
    """Marks the observe step's first two arguments: the call and the problems (one sentence each) that the
    grader's trusted steps 1 and 2 give for ``raw`` (``grader.judging.reference_steps.problems_for``), handed over as data.

    Args:
        raw: the raw call (str). tools: the registry it is checked against (Python classes).
    """

    def __init__(self, raw, tools=SEED_TOOLS):
        self.raw = raw
        self.tools = tools


def expand(args, encode):
    """A case's arguments as the function receives them: a ``Checked`` becomes ``call, problems`` and a
    ``Registry`` becomes ``encode(tools)`` (``encode_registry`` for the sandbox, ``fresh`` in-process)."""
    out = []
    for arg in args:
        if isinstance(arg, Checked):
            out.extend(reference_steps.problems_for(arg.raw, arg.tools))
        elif isinstance(arg, Registry):
            out.append(encode(arg.tools))
        else:
            out.append(arg)
    return out


def visible_calls(exercise_ids=None):
    """Every raw call a visible case hands to the trusted steps, with the registry it is checked against (for
    ``grader/judging/visible_checks.json``): ``{raw: tools}``; only those of ``exercise_ids`` (a set of ids) when
    given, as a student release keeps.

    Raises:
        ValueError: one raw call under two registries (the table answers each raw call once).
    """
    calls = {}
    for exercise_id, cases in VISIBLE_CASES.items():
        if exercise_ids is not None and exercise_id not in exercise_ids:
            continue
        for case in cases:
            if isinstance(case, ToolCallCase):
                pairs = [(case.raw, case.tools)] + ([(case.retry, case.tools)] if case.retry is not None else [])
            elif isinstance(case, TurnCase):  # a provider's tool calls, keyed as reference_steps reads them
                pairs = [(reference_steps.tool_call_key(c), case.tools) for c in case.tool_calls()]
            elif isinstance(case, LoopCase):
                pairs = [(raw, case.tools) for raw in case.raws()]
            elif isinstance(case, PathCase):  # no call to check: a path
                pairs = []
            else:
                pairs = [(a.raw, a.tools) for a in case.args if isinstance(a, Checked)]
            for raw, tools in pairs:
                if calls.setdefault(raw, tools) != tools:
                    raise ValueError(f"the visible call {raw[:60]!r} is checked against two registries")
    return calls


def visible_raws(exercise_ids=None):
    """The raw calls of ``visible_calls``, sorted (list of str)."""
    return sorted(visible_calls(exercise_ids))


@dataclass(frozen=True)
class ToolCallCase:
    """A visible case for the tool-call exercises (``run_tool_call``, ``handle_tool_call``).

    Attributes:
        case_id: short id (str). title: one line for the table (str). rule: the rule it checks (str).
        raw: the model's first raw call (str).
        retry: the model's reply on a retry (str), or None for a model that repeats ``raw``.
        check: ``callable(transcript)`` raising ``expectations.CaseFailed``.
        hint: what to look at when it fails (str).
        gate: the canary this case depends on (see ``grader.judging.canaries``): ``"accepts"`` for a case a
            refuse-everything function would pass, ``"rejects"`` for the opposite, ``"converts"`` for
            an adapter case a function returning a fixed value would pass, or None.
        tools: the registry installed as ``TOOLS`` (or passed as ``tools``) for the case (dict; the seed's by
            default).
    """

    case_id: str
    title: str
    rule: str
    raw: str
    retry: str | None
    check: object
    hint: str
    gate: str | None = None
    tools: dict = field(default_factory=lambda: SEED_TOOLS)

    def model(self):
        """A fresh scripted model for one run of this case."""
        return NeverCorrects(self.raw) if self.retry is None else Answers(self.retry)

    @property
    def shown_input(self):
        """The input as the feedback shows it (str)."""
        return self.raw


@dataclass(frozen=True)
class CallCase:
    """A visible case for a plain function: call it with ``args`` and judge what it returns.

    Attributes:
        case_id, title, rule, hint: as ``ToolCallCase``.
        args: the arguments (JSON data; a ``Registry`` for a registry argument) (tuple).
        check: ``callable(transcript)`` raising ``expectations.CaseFailed``.
        view: how problem objects become text (see ``grader.judging.harness.Harness.execute``).
        function: which of the exercise's functions to call (None: the main one).
        gate: as ``ToolCallCase.gate``.
    """

    case_id: str
    title: str
    rule: str
    args: tuple
    check: object
    hint: str
    view: str | None = None
    function: str | None = None
    gate: str | None = None

    @property
    def shown_input(self):
        """The input as the feedback shows it (str), with registries by tool names and the call that prints them
        whole (``grader.learner.selfcheck.show``): every input of a visible case can be reproduced in the notebook."""
        shown = [say("TOOLS with {tools}", tools=", ".join(a.tools)) if isinstance(a, Registry)
                 else say("the call and problems found in {raw}", raw=a.raw[:200]) if isinstance(a, Checked)
                 else json.dumps(a) for a in self.args]
        text = ", ".join(shown)
        exercise = exercise_of(self)
        if exercise and any(isinstance(a, (Registry, Checked)) for a in self.args):
            text += _(PRINT_WHOLE).format(call=f'kit_selfcheck.show("{exercise}", "{self.case_id}")')
        return text

    def python_source(self, function):
        """The case as Python a learner can paste into the notebook: the registry, then the call (str)."""
        lines, names = [], []
        for number, arg in enumerate(self.args):
            if isinstance(arg, Registry):
                lines.append(f"tools = {registry_source(arg.tools)}")
                names.append("tools")
            elif isinstance(arg, Checked):  # observe's call and problems: what steps 1 and 2 give for the raw call
                call, problems = expand([arg], None)
                lines.append(f"raw = {arg.raw!r}" if len(arg.raw) <= 2000 else
                             f"raw = ...  # a str of {len(arg.raw):,} characters, too long to show")
                lines.append(f"call = {call!r}" if len(repr(call)) <= 2000 else "call = ...  # too long to show")
                lines.append(f"problems = {problems!r}" if len(repr(problems)) <= 2000 else
                             "problems = ...  # too long to show")
                names += ["call", "problems"]
            elif len(repr(arg)) <= 2000:
                names.append(repr(arg))
            else:  # the 1 MB call: described, not printed
                names.append(f"arg{number}")
                lines.append(f"arg{number} = ...  # a {type(arg).__name__} of {len(repr(arg)):,} characters, too long to show")
        lines.append(f"{self.function or function}({', '.join(names)})")
        return "\n".join(lines)


def registry_source(tools):
    """A registry as Python source, classes by name: ``{'get_weather': {'required': {'city': str}, ...}}`` (str)."""
    def part(fields):
        return "{" + ", ".join(f"{name!r}: {getattr(kind, '__name__', kind)}" for name, kind in fields.items()) + "}"

    return "{\n" + "".join(f"    {name!r}: {{'required': {part(spec.get('required', {}))}, "
                           f"'optional': {part(spec.get('optional', {}))}}},\n" for name, spec in tools.items()) + "}"


# -- tool-call exercises (notebooks 4 and 5) -------------------------------------------------------

def _valid(t):
    expect.expect_no_retry(t)
    expect.expect_dispatched(t, "get_weather", {"city": "Paris"})


def _rejected_once(t):
    expect.expect_rejected(t)
    expect.expect_one_retry(t)


def _missing_city(t):
    _rejected_once(t)
    expect.expect_mentions(t.observations[0], ["city"], "The observation", N_("name the missing argument 'city'."))


def _alarm_dispatched(t):
    expect.expect_no_retry(t)
    expect.expect_dispatched(t, "set_alarm", {"hour": 7, "minute": 30})


def _fixed_on_retry(t):
    expect.finished(t)
    expect.expect_one_retry(t)
    expect.expect_dispatched(t, "get_weather", {"city": "Paris"})


TOOL_CALL_CASES = [
    ToolCallCase("valid", N_("A valid call is dispatched once, unchanged"), N_("Only a call that passes every check is dispatched, exactly as sent."),
                 VALID, None, _valid, N_("Parse, validate, then return dispatch(name, arguments) without asking the model."), "rejects"),
    ToolCallCase("unknown-tool", N_("An unknown tool is rejected after one retry"), N_("Tool names must be registered in TOOLS."),
                 make_call("get_forecast", {"city": "Paris"}), None, _rejected_once,
                 N_("Look the name up in TOOLS; on failure call ask_model(error_text) once, then return a rejection."), "accepts"),
    ToolCallCase("missing-required", N_("A missing required argument is rejected"), N_("Every required argument must be present."),
                 make_call("get_weather", {}), None, _missing_city, N_("Check every field in the tool's 'required' schema and name the missing one."),
                 "accepts"),
    ToolCallCase("wrong-type", N_("A required argument of the wrong type is rejected"), N_("Every argument must have its declared type."),
                 make_call("get_weather", {"city": 75001}), None, _rejected_once, N_("isinstance is not enough for int/bool; compare the declared type."),
                 "accepts"),
    ToolCallCase("extra-field", N_("An undeclared argument is rejected"), N_("No argument may be undeclared."),
                 make_call("get_weather", {"city": "Paris", "country": "FR"}), None, _rejected_once,
                 N_("Every key of arguments must be in 'required' or 'optional'."), "accepts"),
    ToolCallCase("fixed-on-retry", N_("Invalid JSON, then a valid retry: the retry is dispatched"), N_("One retry, and a fixed call is dispatched."),
                 '{"name": "get_weather", "arguments": {"city": "Paris"', VALID, _fixed_on_retry,
                 N_("Catch ValueError (JSONDecodeError is one) and RecursionError, ask the model once, and check the new call "
                    "from the start.")),
    # Issue 25: a registry bound when the function was defined (a default argument, a second name) passed every
    # visible case and lost 52 of 121 hidden ones; the runtime may install another registry, as this case does.
    ToolCallCase("other-registry", N_("A call to a tool of another registry is dispatched"),
                 N_("The registry is read when a call arrives: the runtime may install other tools than the notebook's."),
                 make_call("set_alarm", {"hour": 7, "minute": 30}), None, _alarm_dispatched,
                 N_("Read the global TOOLS inside the function, when the call arrives; a default argument (tools=TOOLS) "
                    "keeps the registry of the moment the function was defined."), "rejects", tools=TYPED_TOOLS),
]


# Notebook 4 is handed the kit's check, so its hints are about the loop, not about validation rules it does not ask
# for (issue 25's trial read "isinstance is not enough for int/bool" there).
LOOP_HINTS = {
    "valid": N_("check gave no observation: return dispatch(call[\"name\"], call[\"arguments\"]) at once, without "
                "asking the model."),
    "unknown-tool": N_("check gave an observation: pass it to ask_model once, check the answer from the start, and "
                       "return the rejection if check objects again."),
    "missing-required": N_("Pass check's observation to ask_model once; when the answer fails too, the rejection's error "
                           "is the observation for that last attempt."),
    "wrong-type": N_("Ask the model once with check's observation; a second failure ends in a rejection, not another ask."),
    "extra-field": N_("The model's answer goes through check like the first attempt: never dispatch it unchecked."),
    "fixed-on-retry": N_("After ask_model answers, call check on the new raw call from the start; if it passes, dispatch it."),
    "other-registry": N_("Hand check the tools run_tool_call was given, not a registry of your own."),
}
RETRY_LOOP_CASES = [replace(case, hint=LOOP_HINTS[case.case_id]) for case in TOOL_CALL_CASES]


# -- notebook 0: the observation in Anthropic's shape ------------------------------------------------

def _tool_result_block(tool_use_id, message, why):
    """The check of a case that hands ``tool_error_result`` ``(tool_use_id, message)``: the very block, else ``why``."""
    def check(t):
        value = expect.returned(t)
        wanted = {"type": "tool_result", "tool_use_id": tool_use_id, "content": message, "is_error": True}
        if not expect.strict_equal(value, wanted):
            expect.fail(why)
    return check


_tool_result = _tool_result_block(
    "toolu_01", "city is missing", N_("The block must be exactly {\"type\": \"tool_result\", \"tool_use_id\": ..., "
                                      "\"content\": ..., \"is_error\": True}: the id and the message unchanged, "
                                      "is_error the boolean True."))
_tool_result_unchanged = _tool_result_block(
    "toolu_02", "  units must be a string\n", N_("content must be the message exactly as it was passed in, its spaces and "
       "line breaks too; and the block exactly the four keys."))


TOOL_RESULT_CASES = [
    CallCase("error-block", N_("An error goes back as a tool_result block with is_error true"),
             N_("Anthropic's API takes a validation error back as {type: tool_result, tool_use_id, content, is_error: true}."),
             ("toolu_01", "city is missing"), _tool_result, N_("Return a dict with exactly the four keys the rule names.")),
    # Issue 25: a message tidied with .strip() passed every visible check and lost 2 of 7 hidden cases.
    CallCase("unchanged-message", N_("The message goes back exactly as given, spaces and line breaks too"),
             N_("content is the message unchanged: the model reads your text as you wrote it."),
             ("toolu_02", "  units must be a string\n"), _tool_result_unchanged,
             N_("Do not strip, trim or reword the message: put it in content exactly as it came.")),
]


# -- notebook 1: parse_call ----------------------------------------------------------------------------

PARSE_CASES = [
    CallCase("valid", N_("A valid call parses to (call, [])"), N_("A raw call that is one JSON object parses to that object."),
             (VALID,), lambda t: expect.expect_parsed(t, {"name": "get_weather", "arguments": {"city": "Paris"}}),
             N_("json.loads, then check you got a dict; return (call, [])."), view="pair_with_texts"),
    CallCase("null-arguments", N_("Null arguments become {}"), N_("Missing or null arguments mean {}."),
             ('{"name": "get_time", "arguments": null}',), lambda t: expect.expect_parsed(t, {"name": "get_time", "arguments": {}}),
             N_("After parsing, replace a missing or None 'arguments' with {} (and nothing else)."), view="pair_with_texts"),
    CallCase("truncated", N_("Truncated JSON is a problem, not a crash"), N_("Invalid JSON is reported, never raised."),
             ('{"name": "get_weather", "arguments": {"city": "Par',), lambda t: expect.expect_parse_error(t, ["json"], N_("say the text is not valid JSON.")),
             N_("Catch ValueError (JSONDecodeError is one) and return (None, [message])."), view="pair_with_texts"),
    CallCase("fenced", N_("A markdown fence is not stripped"), N_("Nothing is repaired: the model is told instead."),
             ("```json\n" + VALID + "\n```",), lambda t: expect.expect_parse_error(t), N_("Do not strip fences; report them."),
             view="pair_with_texts"),
    CallCase("array", N_("An array is not a call"), N_("A call is a JSON object."),
             ("[]",), lambda t: expect.expect_parse_error(t, [OBJECT], N_("say that a call must be a JSON object.")),
             N_("Check isinstance(value, dict) after json.loads."), view="pair_with_texts"),
    # Issue 25: these two faults passed every visible check and lost hidden cases only (notebook 1's learner trial
    # saw 5/5 here and 31/44 from the grader).
    CallCase("trailing-text", N_("Text after the object is a problem, not dropped"), N_("Exactly one JSON object: nothing "
                "before or after it."), ('{"name": "get_time", "arguments": {}} Hope this helps!',),
             lambda t: expect.expect_parse_error(t, [JSON], N_("say the text is not valid JSON.")),
             N_("json.loads the whole text; JSONDecoder().raw_decode would read the object and drop the rest."),
             view="pair_with_texts"),
    CallCase("deep-nesting", N_("Deep nesting is a problem, not a crash"), N_("parse_call never raises, whatever the text."),
             ("[" * 100_000 + "]" * 100_000,), lambda t: expect.expect_parse_error(t),
             N_("json.loads raises RecursionError here, which is no ValueError: catch it too."), view="pair_with_texts"),
]


# -- notebook 2: validate_call -------------------------------------------------------------------------

def _validate(call):
    return (call, Registry(TYPED_TOOLS))


VALIDATE_CASES = [
    CallCase("valid", N_("A valid call has no violations"), N_("Only calls with no violations may be dispatched."),
             _validate({"name": "set_alarm", "arguments": {"hour": 7, "minute": 30}}), expect.expect_no_violations,
             N_("Return [] when every check passes."), view="texts"),
    CallCase("unknown-tool", N_("An unknown tool is a violation that lists the registered tools"), N_("Tool names must be registered."),
             _validate({"name": "get_forecast", "arguments": {}}),
             lambda t: expect.expect_violations(t, ["get_forecast", "get_weather", "set_alarm"], N_("name the tool and list the registered ones.")),
             N_("Check isinstance(name, str) and name in tools before anything else."), view="texts"),
    CallCase("bool-for-int", N_("True is not an integer"), N_("bool is not an int, although isinstance(True, int) is True."),
             _validate({"name": "set_alarm", "arguments": {"hour": True, "minute": 0}}),
             lambda t: expect.expect_violations(t, ["hour"], N_("name the field with the wrong type.")),
             N_("Compare type(value) with the declared type instead of using isinstance."), view="texts"),
    CallCase("all-at-once", N_("Every violation is reported, not just the first"), N_("Collect all violations: one retry must fix them all."),
             _validate({"name": "set_alarm", "arguments": {"hour": "7", "snooze": 5}}),
             lambda t: expect.expect_violations(t, ["minute", "hour", "snooze"], N_("name the missing field, the mistyped one and the extra one.")),
             N_("Append to a list instead of returning at the first problem."), view="texts"),
]


# -- notebook 3: observe --------------------------------------------------------------------------------

OBSERVE_CASES = [
    CallCase("valid", N_("A valid call needs no observation"), N_("observe returns None when the call may be dispatched."),
             (Checked(VALID), Registry(SEED_TOOLS)), expect.expect_no_observation, N_("Return None when there are no violations.")),
    CallCase("extra-field", N_("The observation names the extra field and the allowed ones"), N_("Name what is wrong and what is allowed."),
             (Checked(make_call("get_weather", {"city": "Paris", "country": "FR"})), Registry(SEED_TOOLS)),
             lambda t: expect.expect_observation(t, ["country", "city", "units"], N_("name 'country' and list the allowed fields.")),
             N_("Put every problem's text in the observation, and the tool's arguments when the call names a registered tool.")),
    CallCase("huge", N_("A 1 MB call gets a short observation"), N_("At most 2,000 characters, even for a huge call."),
             (Checked(make_call("get_weather", {"city": "Paris", **{f"field_{i}": i for i in range(300)}})), Registry(SEED_TOOLS)),
             lambda t: expect.expect_observation(t),
             N_("Keep the text within 2,000 characters: cut a long problem's text and say how many problems you left out.")),
]


# -- notebook 6: JSON Schema and wire adapters ------------------------------------------------------------

WEATHER_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "units": {"enum": ["metric", "imperial"]}},
                  "required": ["city"], "additionalProperties": False}

JSON_SCHEMA_CASES = [
    CallCase("valid", N_("Arguments that match the schema have no violations"), N_("Only arguments that match the schema pass."),
             ({"city": "Paris", "units": "metric"}, WEATHER_SCHEMA), lambda t: expect.expect_no_violations(t, "validate_arguments"),
             N_("Return [] when every keyword is satisfied."), view="texts"),
    CallCase("enum", N_("A value outside the enum is a violation"), N_("enum lists the only allowed values."),
             ({"city": "Paris", "units": "kelvin"}, WEATHER_SCHEMA),
             lambda t: expect.expect_violations(t, ["units"], N_("name the field whose value is not allowed."), "validate_arguments"),
             N_("Check value in schema['enum'] (with exact types: 1 is not true)."), view="texts"),
    CallCase("additional", N_("additionalProperties: false rejects undeclared fields"), N_("No undeclared properties when additionalProperties is false."),
             ({"city": "Paris", "country": "FR"}, WEATHER_SCHEMA),
             lambda t: expect.expect_violations(t, ["country"], N_("name the undeclared field."), "validate_arguments"),
             N_("Compare the object's keys with schema['properties']."), view="texts"),
    CallCase("valid-optional", N_("An Optional field (anyOf with null) accepts null"), N_("anyOf is valid when any one option is."),
             ({"path": "notes.md", "line_offset": None},
              {"type": "object", "properties": {"path": {"type": "string"},
                                                "line_offset": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}},
               "required": ["path"]}),
             lambda t: expect.expect_no_violations(t, "validate_arguments"),
             N_("Support anyOf: check the value against each option and accept it if one gives no problems."), view="texts"),
    # Issue 25: a validator that never looked inside nested objects passed every visible check.
    CallCase("nested", N_("A wrong type inside a nested object is a violation"), N_("Every keyword holds at every depth."),
             ({"city": "Paris", "location": {"lat": "north"}},
              {"type": "object", "properties": {"city": {"type": "string"},
                                                "location": {"type": "object", "properties": {"lat": {"type": "number"}}}},
               "required": ["city"]}),
             lambda t: expect.expect_violations(t, ["lat"], N_("name the nested field (location.lat)."), "validate_arguments"),
             N_("Call your validator again on each property's value with its own schema."), view="texts"),
]


def _decoded(expected):
    def check(t):
        value = expect.returned(t)
        try:
            decoded = json.loads(value) if isinstance(value, str) else None
        except ValueError:
            decoded = None
        if not isinstance(value, str) or not expect.strict_equal(decoded, expected):
            expect.fail(N_("The adapter must return the kit's raw call: a JSON string of {\"name\": ..., \"arguments\": "
                           "...} with the arguments decoded from OpenAI's string only when they are valid JSON."))
    return check


ADAPTER_CASES = [
    CallCase("openai", N_("OpenAI's arguments string is decoded into the call"), N_("OpenAI sends arguments as a JSON string."),
             ({"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},),
             _decoded({"name": "get_weather", "arguments": {"city": "Paris"}}), N_("json.loads the function.arguments string.")),
    CallCase("openai-broken", N_("A broken arguments string stays a string"), N_("An adapter changes the envelope, never repairs the content."),
             ({"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": Paris}"}},),
             _decoded({"name": "get_weather", "arguments": "{\"city\": Paris}"}),
             N_("If json.loads fails, keep the string: the validator rejects it and the model is told.")),
    CallCase("anthropic", N_("Anthropic's input object becomes the arguments"), N_("Anthropic's tool_use carries an input object."),
             ({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},),
             _decoded({"name": "get_weather", "arguments": {"city": "Paris"}}), N_("Copy name, and input as arguments."),
             function="raw_call_from_anthropic"),
]

# -- notebook 7: a turn with many calls ------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnCase:
    """A visible case for notebook 7's ``answer_turn``: one assistant turn, answered ``times`` times with one ``done``.

    Attributes:
        case_id, title, rule, hint, gate: as ``ToolCallCase``.
        provider: ``"openai"`` or ``"anthropic"`` (str). message: the assistant message in that provider's shape.
        errors: ``((tool name, exception type name, message), ...)``: the tools whose dispatch raises.
        times: how many times the turn is answered with the same ``done`` (int; 2 is a replay).
        tools: the registry the calls are checked against (Python classes).
    """

    case_id: str
    title: str
    rule: str
    provider: str
    message: dict
    hint: str
    errors: tuple = ()
    times: int = 1
    tools: dict = field(default_factory=lambda: TYPED_TOOLS)
    gate: str | None = None

    def check(self, transcript):
        """Judge a run of this case (``expectations.expect_turn_answered``); raises ``CaseFailed``."""
        expect.expect_turn_answered(transcript, self.provider, self.tools)

    def dispatch_reply(self):
        """The case's dispatcher (``callable(name, arguments)``): a fresh receipt, or the case's exception."""
        from grader.judging.harness import receipt_dispatch

        raising = {name: (kind, text) for name, kind, text in self.errors}

        def dispatch(name, arguments):
            if name in raising:
                kind, text = raising[name]
                raise {"TimeoutError": TimeoutError, "ConnectionError": ConnectionError}.get(kind, RuntimeError)(text)
            return receipt_dispatch(name, arguments)
        return dispatch

    def tool_calls(self):
        """The turn's tool calls as the provider sent them (list of dicts)."""
        return [tool_call for _id, tool_call in expect.turn_calls(self.message, self.provider)]

    @property
    def shown_input(self):
        """The input as the feedback shows it (str): the provider, the message, the tools that raise."""
        raising = "; ".join(say("dispatch raises {kind} for {name}", kind=kind, name=name)
                            for name, kind, _error in self.errors)
        return (f"provider={self.provider!r}, message={json.dumps(self.message)}" + (f" ({raising})" if raising else "")
                + (say(", answered {times} times with one done", times=self.times) if self.times > 1 else "")
                + _(PRINT_WHOLE).format(call=f'kit_selfcheck.show("turn", "{self.case_id}")'))

    def python_source(self, function):
        """The case as Python a learner can paste into the notebook (str): ``check`` and ``dispatch`` are the
        self-check's (``grader.learner.selfcheck.turn_check``, ``turn_dispatch``)."""
        lines = [f"message = {self.message!r}",
                 "check = kit_selfcheck.turn_check()  # the kit's steps 1-3 for one tool call, on the notebook's tools",
                 f"dispatch = kit_selfcheck.turn_dispatch({[list(e) for e in self.errors]!r})",
                 "done = {}"]
        lines += [f"{function}(message, {self.provider!r}, check, dispatch, done)"] * self.times
        return "\n".join(lines)


def _turn(*calls, content=None):
    return {"role": "assistant", "content": content, "tool_calls": [
        {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls]}


def _blocks(*blocks):
    return {"role": "assistant", "content": [
        {"type": "text", "text": b} if isinstance(b, str) else {"type": "tool_use", "id": b[0], "name": b[1], "input": b[2]}
        for b in blocks]}


TURN_CASES = [
    TurnCase("openai-two", N_("Two valid OpenAI calls: two tool messages, in order"), N_("Every id answered once, in order."),
             "openai", _turn(("call_1", "get_weather", '{"city": "Paris"}'), ("call_2", "get_time", "{}")),
             N_("Return one {\"role\": \"tool\", \"tool_call_id\": id, \"content\": text} per call; a dict result as "
             "json.dumps(result).")),
    TurnCase("anthropic-mixed", N_("Three tool_use blocks, one invalid: two run, three results in one message"),
             N_("Each call stands on its own; every result in one user message."), "anthropic",
             _blocks("Let me look.", ("toolu_1", "get_weather", {"city": "Paris"}),
                     ("toolu_2", "set_alarm", {"hour": "seven", "minute": 30}), ("toolu_3", "get_time", {})),
             N_("Answer the invalid block with check's observation and is_error true; still run the other two; return "
             "[{\"role\": \"user\", \"content\": [three tool_result blocks]}].")),
    TurnCase("tool-raises", N_("A tool that times out gets an error answer; the other call still runs"),
             N_("A tool's exception becomes an error answer naming its type."), "anthropic",
             _blocks(("toolu_4", "set_alarm", {"hour": 7, "minute": 30}), ("toolu_5", "get_weather", {"city": "Lima"})),
             N_("Wrap dispatch in try/except Exception and answer with is_error true and the exception's type name."),
             errors=(("set_alarm", "TimeoutError", "the tool did not answer within 30 s"),)),
    TurnCase("replay", N_("The same turn answered twice runs each tool once"), N_("The call id is the idempotency key."),
             "openai", _turn(("call_3", "set_alarm", '{"hour": 6, "minute": 0}')),
             N_("Before running a call, look its id up in done; after running it, store its answer there."), times=2),
    TurnCase("no-calls", N_("A final answer without tool calls gets []"), N_("A turn without tool calls needs no answer."),
             "openai", {"role": "assistant", "content": "It is sunny in Paris.", "tool_calls": None},
             N_("message[\"tool_calls\"] may be missing or None: read it as no calls and return []."), gate="answers"),
]


def _stream(*deltas, finish="tool_calls"):
    out = [{"choices": [{"index": 0, "delta": delta, "finish_reason": None}]} for delta in deltas]
    return out + ([{"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}] if finish else [])


def _piece(index, arguments, call_id=None, name=None):
    piece = {"index": index, "function": {"arguments": arguments}}
    if call_id:
        piece = {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    return {"tool_calls": [piece]}


def _assembled(expected):
    def check(t):
        value = expect.returned(t)
        if expected is None and value is not None:
            expect.fail(N_("This stream did not finish (finish_reason \"length\"): return None, so the model is asked again."))
        if expected is not None and not expect.strict_equal(value, expected):
            expect.fail(N_("The message differs from what the stream carries: join each call's pieces by index (id and name "
                           "from the first piece, arguments concatenated exactly) and the text pieces as content."))
    return check


def _whole(*calls, content=None):
    return {"role": "assistant", "content": content, "tool_calls": [
        {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls]}


STREAM_CASES = [
    CallCase("one-call", N_("One call in three pieces becomes one whole call"), N_("Pieces are joined by index."),
             (_stream(_piece(0, "", "call_1", "get_weather"), _piece(0, '{"city": '), _piece(0, '"Paris"}')),),
             _assembled(_whole(("call_1", "get_weather", '{"city": "Paris"}'))),
             N_("Start a call at its first piece (id, name); add each later piece's arguments to the call at its index."),
             function="assemble_turn", gate="assembles"),
    CallCase("two-calls", N_("Two calls whose pieces interleave stay apart"), N_("Pieces are joined by index, not by arrival."),
             (_stream(_piece(0, '{"city": ', "call_2", "get_weather"), _piece(1, "{", "call_3", "get_time"),
                      _piece(0, '"Lima"}'), _piece(1, "}")),),
             _assembled(_whole(("call_2", "get_weather", '{"city": "Lima"}'), ("call_3", "get_time", "{}"))),
             N_("Keep one call per index and add each piece to the call at its index."), function="assemble_turn",
             gate="assembles"),
    CallCase("cut", N_("A stream cut at max_tokens gives None"), N_("Only a finished stream is a turn."),
             (_stream(_piece(0, '{"city": "Par', "call_4", "get_weather"), finish="length"),),
             _assembled(None), N_("Return None unless the last finish_reason is \"stop\" or \"tool_calls\"."),
             function="assemble_turn", gate="assembles"),
    CallCase("text", N_("A text-only stream is a final answer"), N_("Text pieces joined; no tool_calls key."),
             (_stream({"role": "assistant", "content": "Sunny"}, {"content": " today."}, finish="stop"),),
             _assembled({"role": "assistant", "content": "Sunny today."}),
             N_("Join delta[\"content\"] pieces; leave tool_calls out when no call was streamed."),
             function="assemble_turn", gate="assembles"),
]


# -- notebook 8: the agent loop ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoopCase:
    """A visible case for notebook 8's ``run_agent``: one task, a scripted model, the loop's budgets.

    Attributes:
        case_id, title, rule, hint, gate: as ``ToolCallCase``.
        task: the user's request (str). steps: the model's script (``grader.judging.scripted_models.LoopScript``).
        limits: the budgets (dict, ``expectations.LOOP_LIMITS``' keys). errors: ``((tool name, exception type name,
        message), ...)``: the tools whose dispatch raises. tools: the registry (Python classes).
    """

    case_id: str
    title: str
    rule: str
    task: str
    steps: list
    hint: str
    limits: dict = field(default_factory=lambda: dict(expect.LOOP_LIMITS))
    errors: tuple = ()
    tools: dict = field(default_factory=lambda: TYPED_TOOLS)
    gate: str | None = None

    def check(self, transcript):
        """Judge a run of this case (``expectations.expect_loop``); raises ``CaseFailed``."""
        expect.expect_loop(transcript, self.tools)

    def dispatch_reply(self):
        """The case's dispatcher (``callable(name, arguments)``): a fresh receipt, or the case's exception."""
        return TurnCase.dispatch_reply(self)

    def raws(self):
        """Every raw call the script sends (list of str), for the visible table of checks."""
        return [entry["raw"] for step in self.steps for entry in step.get("calls") or []]

    @property
    def shown_input(self):
        """The input as the feedback shows it (str): the task, the script, the budgets, the tools that raise."""
        raising = "; ".join(say("dispatch raises {kind} for {name}", kind=kind, name=name)
                            for name, kind, _error in self.errors)
        return (say("task={task}, model script={script}, limits={limits}", task=repr(self.task),
                    script=json.dumps(self.steps), limits=json.dumps(self.limits))
                + (f" ({raising})" if raising else "")
                + _(PRINT_WHOLE).format(call=f'kit_selfcheck.show("loop", "{self.case_id}")'))

    def python_source(self, function):
        """The case as Python a learner can paste into the notebook (str): the model, ``check``, ``dispatch`` and
        ``sleep`` are the self-check's (``grader.learner.selfcheck.loop_model``, ``loop_check``...)."""
        return "\n".join([
            f"model = kit_selfcheck.loop_model({self.steps!r})  # replies in this order, then a final answer",
            "check = kit_selfcheck.loop_check()  # the kit's steps 1-3 on one raw call, on the notebook's tools",
            f"dispatch = kit_selfcheck.turn_dispatch({[list(e) for e in self.errors]!r})",
            "sleep = print  # shows each wait instead of waiting",
            f"{function}({self.task!r}, model, check, dispatch, sleep, {self.limits!r})"])


def _reply(*calls, content=None):
    return {"role": "assistant", "content": content, "calls": [{"id": i, "raw": r} for i, r in calls]}


def _final(text):
    return {"role": "assistant", "content": text, "calls": []}


_WEATHER = '{"name": "get_weather", "arguments": {"city": "Lima"}}'
_BAD_ALARM = '{"name": "set_alarm", "arguments": {"hour": "seven", "minute": 30}}'
LOOP_CASES = [
    LoopCase("one-call", N_("One call, then the answer"), N_("The whole conversation each time; a reply without calls ends it."),
             "What is the weather in Lima?", [_reply(("call_1", _WEATHER)), _final("It is sunny in Lima.")],
             N_("Ask with the whole list of messages; append the reply, then one {\"role\": \"tool\", \"id\", "
             "\"content\", \"is_error\"} per call; a reply without calls ends the run: stop \"answered\".")),
    LoopCase("same-bad-call", N_("The same refused call again stops the run"),
             N_("A call sent again exactly as one refused before is no progress."), "Wake me at seven.",
             [_reply(("call_1", _BAD_ALARM)), _reply(("call_2", _BAD_ALARM))],
             N_("Keep the raw text of every refused call in a set across turns; when a refused call's raw is already in "
                "it, answer the turn, then stop \"no_progress\" with the tool's name.")),
    LoopCase("keeps-failing", N_("Three different mistakes with one tool stop the run"),
             N_("A tool's failures in a row count across turns."), "Wake me at seven.",
             [_reply(("call_1", '{"name": "set_alarm", "arguments": {"hour": "7", "minute": 30}}')),
              _reply(("call_2", '{"name": "set_alarm", "arguments": {"hour": 7}}')),
              _reply(("call_3", '{"name": "set_alarm", "arguments": {"hour": 7, "minute": "30"}}'))],
             N_("Keep failures = {tool name: failures in a row} outside the loop; +1 on a refusal or a tool's exception, 0 "
                "on a result; after the turn, a tool at tool_failures stops the run \"tool_failures\".")),
    LoopCase("max-turns", N_("A model that never stops is stopped after max_turns replies"),
             N_("max_turns replies, then stop."), "Plan my trip.",
             [_reply((f"call_{i}", '{"name": "get_time", "arguments": {"timezone": "UTC+%d"}}' % i)) for i in range(5)],
             N_("Count the replies; after answering the calls of reply number max_turns, stop \"max_turns\" without "
                "asking again."), limits=dict(expect.LOOP_LIMITS, max_turns=3)),
    LoopCase("timeout", N_("A timed-out request is sent again after a wait"),
             N_("TimeoutError and ConnectionError: retry with exponential backoff."), "What is the weather in Paris?",
             [{"raise": "TimeoutError", "message": "the request timed out"}, _final("It is sunny in Paris.")],
             N_("Wrap model(messages) in try/except (TimeoutError, ConnectionError); call sleep(backoff * 2 ** attempt), "
                "then ask again with the same messages, at most model_retries times.")),
]


# -- notebook 9: validation is not authorisation ------------------------------------------------------------------


@dataclass(frozen=True)
class PathCase:
    """A visible case for notebook 9's ``allowed_path``: a path in a folder the kit makes (``grader.judging.file_trees``,
    the readable names of ``SHOWN``), and a control path of the other verdict.

    Attributes:
        case_id, title, rule, hint, gate: as ``ToolCallCase``. template: the path (``file_trees.render``).
        control: the control path's template (str).
    """

    case_id: str
    title: str
    rule: str
    template: object
    control: str
    hint: str
    gate: str | None = None

    def check(self, transcript):
        """Judge a run of this case (``expectations.expect_confined``); raises ``CaseFailed``."""
        expect.expect_confined(transcript)

    @property
    def shown_input(self):
        """The input as the feedback shows it (str): the path, relative to the kit's folder of files."""
        from grader.judging.file_trees import SHOWN

        shown = self.template.format(**dict(SHOWN, root="<root>")) if isinstance(self.template, str) else self.template
        root = f"{SHOWN['case']}/{SHOWN['root']}"
        return (say("path={path} in the folder <root> = {root}", path=repr(shown), root=root)
                + _(PRINT_WHOLE).format(call=f'kit_selfcheck.show("authorise", "{self.case_id}")'))

    def python_source(self, function):
        """The case as Python a learner can paste into the notebook (str): the kit makes the folder
        (``grader.learner.selfcheck.path_folder``)."""
        return "\n".join([
            "root, names = kit_selfcheck.path_folder()  # the kit's example folder, made in a temporary folder",
            f"path = kit_selfcheck.path_of({self.template!r}, root, names)",
            f"{function}(path, root)"])


PATH_CASES = [
    PathCase("inside", N_("A file inside the folder is allowed as its real path"), N_("Allowed: (real_path, None)."),
             "{notes}", "../{secret}", N_("Join the path to the real folder, resolve it with os.path.realpath, and return "
                "(that real path, None) when it is inside.")),
    PathCase("dot-dot", N_("../secret.txt is refused"), N_("A path that leads outside is refused with a reason."),
             "../{secret}", "{notes}", N_("Refuse when the real path is not inside the real folder: return (None, reason).")),
    PathCase("prefix", N_("A sibling folder whose name starts like the folder's is outside"),
             N_("Compare whole components, not strings."), "../{old}/{notes}", "{notes}",
             N_("startswith(root) lets workspace-old through: use os.path.commonpath([real, real_root]) == real_root.")),
    PathCase("link-out", N_("A link inside that points outside is refused"), N_("Resolve links before the check."),
             "{outside_link}", "{notes}", N_("os.path.normpath and abspath do not read links; os.path.realpath does.")),
    PathCase("dot-dot-inside", N_("reports/../notes.txt stays inside and is allowed"),
             N_("Only where a path leads decides, not whether it holds \"..\"."), "{sub}/../{notes}", "../{secret}",
             N_("Do not refuse on the text: resolve the path, then check where it leads.")),
]


def _gated(cases):
    """Give each case of a checker exercise its canary gate: accepting cases need the function to
    refuse bad input, refusing cases need it to accept good input (``grader.judging.canaries``)."""
    return [replace(c, gate="rejects" if c.case_id in ("valid", "null-arguments") or c.case_id.startswith("valid-") else "accepts")
            for c in cases]


VISIBLE_CASES = {
    "tool-result": TOOL_RESULT_CASES,
    "parse-call": _gated(PARSE_CASES),
    "validate-call": _gated(VALIDATE_CASES),
    "observe": _gated(OBSERVE_CASES),
    "retry-loop": RETRY_LOOP_CASES,
    "capstone": TOOL_CALL_CASES,
    "json-schema": _gated(JSON_SCHEMA_CASES),
    "adapters": [replace(c, gate="converts") for c in ADAPTER_CASES],  # see grader.judging.canaries: "converts"
    "turn": TURN_CASES,
    "stream": STREAM_CASES,
    "loop": LOOP_CASES,
    "authorise": PATH_CASES,
}


def exercise_of(case):
    """The id of the first exercise whose visible cases hold ``case`` (str), or None."""
    return next((exercise for exercise, cases in VISIBLE_CASES.items() if case in cases), None)


def failure_text(message, case, input_limit, separator="\n"):
    """What a failed visible case tells the learner: what happened, the input (it is visible), the hint.

    Args:
        message: the failure (str or ``expectations.CaseFailed``). case: the visible case.
        input_limit: characters of the input to show (int). separator: between the three parts (str):
            a line break in reports, a space in the notebook's self-check table.
    Returns:
        str.
    """
    shown = case.shown_input
    how = shown.rpartition(_(PRINT_WHOLE).split("{call}")[0])
    if how[1] and len(shown) > input_limit:  # the call that prints it whole is never the part cut off
        shown = how[0][:max(input_limit - len(how[1] + how[2]), 40)] + "…" + how[1] + how[2]
    shown = shown if len(shown) <= input_limit or how[1] else shown[:input_limit] + "…"
    return separator.join([str(message), _("Input: {input}").format(input=shown), f"{_('Hint')}: {_(case.hint)}"])


def run_visible(harness, case):
    """Run one visible case through the grader's sandbox (``grader.judging.harness.ExerciseHarness``).

    Returns:
        ``Transcript``.
    """
    from grader.judging.registries import encode_registry

    if isinstance(case, ToolCallCase):
        return harness.run(case.raw, model=case.model(), tools=case.tools)
    if isinstance(case, TurnCase):
        return harness.turn(case.message, case.provider, tools=case.tools, dispatch_reply=case.dispatch_reply(),
                            times=case.times)
    if isinstance(case, LoopCase):
        return harness.loop(case.task, case.steps, tools=case.tools, dispatch_reply=case.dispatch_reply(),
                            limits=case.limits)
    if isinstance(case, PathCase):
        return harness.confined(case.template, case.control)
    return harness.call(*expand(case.args, encode_registry), function=case.function, view=case.view)

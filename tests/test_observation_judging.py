"""Observations are judged by what they say, not how: correct wordings of every style keep full marks.

The grader judges observations by difference (grader/judging/cases/tool_call/test_05_observations.py): an observation
must name the offending field, or the kind of problem, more often than the observation for a twin call whose
problem lies elsewhere. A correct observation does that in any wording, so each style below, written for this
test, must keep every point; the dumps that never say what is wrong (tests/attacks/stuffed_observation.py,
validate_call_one_generic_problem.py) lose them (tests/test_attacks.py). The faulty library's base, the
reference and the notebooks' model answers are graded in test_faulty_library.py, test_golden.py and
test_course.py.
"""

import pytest

from grader.pipeline import grade
from points import available

CAPSTONE = '''
import json
import math

W = {wording!r}
TYPE_NAMES = {{str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}}


def type_ok(value, declared):
    if declared is float:
        return type(value) in (int, float)
    return type(value) is declared


def short(value):
    if isinstance(value, (dict, list)):
        return f"a {{type(value).__name__}} of {{len(value)}} items"
    return json.dumps(value)[:40]


def schema(tools):
    return "; ".join(f"{{name}}(" + ", ".join([*spec["required"], *spec["optional"]]) + ")" for name, spec in tools.items())


def not_finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, item in items:
        found = not_finite(item) if isinstance(item, (float, dict, list)) else None
        if found is not None:
            return [key, *found]
    return None


def comma_hint(raw, pos):
    if raw[:pos].rstrip().endswith(",") or raw[pos:pos + 1] == ",":
        return f"; a stray comma before character {{pos}}"
    return ""


def problems(raw, tools):
    if not isinstance(raw, str):
        return None, [W["not_json"].format(detail="the call is not text")]
    try:
        call = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, [W["not_json"].format(detail=str(exc)[:80] + comma_hint(raw, exc.pos))]
    except (ValueError, RecursionError) as exc:
        return None, [W["not_json"].format(detail=str(exc)[:80])]
    if not isinstance(call, dict):
        return None, [W["not_object"].format(got=short(call))]
    path = not_finite(call)
    if path is not None:
        return None, [W["not_json"].format(detail="the number at " + ".".join(map(str, path)) + " is not finite")]
    errors = []
    name, args = call.get("name"), call.get("arguments")
    args = {{}} if args is None else args
    spec = tools.get(name) if isinstance(name, str) else None
    if spec is None:
        errors.append(W["unknown_tool"].format(name=short(name), tools=", ".join(tools)))
    if not isinstance(args, dict):
        errors.append(W["arguments"].format(got=short(args)))
        return None, errors
    if spec:
        declared = {{**spec["required"], **spec["optional"]}}
        for field in spec["required"]:
            if field not in args:
                errors.append(W["missing"].format(field=field, type=TYPE_NAMES[spec["required"][field]]))
        for field, value in args.items():
            if field not in declared:
                errors.append(W["extra"].format(field=field[:40], allowed=", ".join(declared), tool=name))
            elif not type_ok(value, declared[field]):
                errors.append(W["type"].format(field=field, type=TYPE_NAMES[declared[field]], got=short(value)))
    return (name, args), errors


def observation(errors, raw, tools):
    text = W["frame"].format(count=len(errors), problems="\\n".join(errors), sent=str(raw)[:160], schema=schema(tools))
    return text[:1990]


def handle_tool_call(raw, ask_model):
    for attempt in range(2):
        call, errors = problems(raw, TOOLS)
        if not errors:
            return dispatch(*call)
        error = observation(errors, raw, TOOLS)
        if attempt == 0:
            try:
                raw = ask_model(error)
            except Exception as exc:
                return {{"status": "rejected", "error": error + " The retry failed: " + type(exc).__name__}}
    return {{"status": "rejected", "error": error}}
'''

WORDINGS = {
    # Quotes the whole call it received, then lists the problems: the quote names every field it sent.
    "quotes-the-call": {
        "frame": "You sent: {sent}\nThat call was not run ({count} problem(s)):\n{problems}",
        "not_json": "- it is not valid JSON ({detail})", "not_object": "- a call must be a JSON object, not {got}",
        "unknown_tool": "- there is no tool {name}; the tools are {tools}",
        "arguments": "- arguments must be a JSON object, not {got}",
        "missing": "- '{field}' is required ({type}) but missing",
        "extra": "- '{field}' is not an argument of {tool} (its arguments: {allowed})",
        "type": "- '{field}' should be a {type}, you gave {got}",
    },
    # JSON paths, and the whole registry's schema appended to every observation.
    "paths-and-schema": {
        "frame": "Invalid tool call.\n{problems}\nAvailable: {schema}",
        "not_json": "$: not valid JSON: {detail}", "not_object": "$: expected a JSON object, got {got}",
        "unknown_tool": "$.name: {name} is not a registered tool (registered: {tools})",
        "arguments": "$.arguments: must be an object, got {got}",
        "missing": "$.arguments.{field}: required {type} missing",
        "extra": "$.arguments.{field}: undeclared; allowed fields are {allowed}",
        "type": "$.arguments.{field}: expected {type}, received {got}",
    },
    # Whole sentences, with a count first.
    "sentences": {
        "frame": "I could not run this tool call because of {count} problem(s). {problems} Please send the corrected call.",
        "not_json": "The text is not valid JSON ({detail}).", "not_object": "The call must be a JSON object, but it was {got}.",
        "unknown_tool": "There is no tool called {name}; you can call {tools}.",
        "arguments": "The arguments must be a JSON object (a dict), but they were {got}.",
        "missing": "The field {field} is required and must be a {type}.",
        "extra": "The field {field} does not exist for {tool}; the fields are {allowed}.",
        "type": "The field {field} must be a {type}, but it was {got}.",
    },
}


@pytest.mark.parametrize("style", WORDINGS)
def test_a_correct_observation_in_another_wording_keeps_full_marks(tmp_path, style):
    path = tmp_path / f"{style}.py"
    path.write_text(CAPSTONE.format(wording=WORDINGS[style]), encoding="utf-8")
    result = grade(path)
    failed = [f"{c.title}: {c.feedback}" for c in result.cases if not c.passed]
    assert not failed, failed[:3]
    assert result.score == result.max_score == available("capstone")


VALIDATE_CALL = '''
def _type_ok(value, declared):
    if declared is float:
        return type(value) in (int, float)
    return type(value) is declared


def validate_call(call, tools):
    problems = []
    name, args = call.get("name"), call.get("arguments")
    spec = tools.get(name) if isinstance(name, str) else None
    if spec is None:
        problems.append(W["unknown_tool"].format(name=str(name)[:40], tools=", ".join(tools)))
    if not isinstance(args, dict):
        problems.append(W["arguments"].format(got=type(args).__name__))
        return problems
    if spec:
        declared = {{**spec["required"], **spec["optional"]}}
        problems += [W["missing"].format(field=f, type=spec["required"][f].__name__) for f in spec["required"] if f not in args]
        for field, value in args.items():
            if field not in declared:
                problems.append(W["extra"].format(field=field[:40], allowed=", ".join(declared)))
            elif not _type_ok(value, declared[field]):
                problems.append(W["type"].format(field=field, type=declared[field].__name__, got=type(value).__name__))
    return problems


W = {wording!r}
'''

VALIDATE_WORDINGS = {
    "paths": {"unknown_tool": "$.name: {name} is not registered (registered: {tools})",
              "arguments": "$.arguments: must be an object, got {got}", "missing": "$.arguments.{field}: missing ({type})",
              "extra": "$.arguments.{field}: not declared (allowed: {allowed})",
              "type": "$.arguments.{field}: expected {type}, got {got}"},
    "sentences": {"unknown_tool": "There is no tool named {name}. Known tools: {tools}.",
                  "arguments": "The arguments have to be an object, not a {got}.",
                  "missing": "The required field {field} was not sent; it takes a {type}.",
                  "extra": "The field {field} is unknown; the tool takes {allowed}.",
                  "type": "The field {field} needs a {type}, not a {got}."},
}


@pytest.mark.parametrize("style", VALIDATE_WORDINGS)
def test_a_correct_problem_list_in_another_wording_keeps_full_marks(tmp_path, style):
    path = tmp_path / f"{style}.py"
    path.write_text(VALIDATE_CALL.format(wording=VALIDATE_WORDINGS[style]), encoding="utf-8")
    result = grade(path, exercise_ids=["validate-call"])
    failed = [f"{c.title}: {c.feedback}" for c in result.cases if not c.passed]
    assert not failed, failed[:3]
    assert result.score == result.max_score == available("validate-call")

"""Faulty solutions for the step exercises (notebooks 0-4 and 6; observe and run_tool_call in the signatures of
issue 11: observe receives the problems, the loop receives check): a compact correct base per exercise,
and single edits that reproduce the faults each notebook teaches about.

Each base must score full marks on its exercise; each fault must lose points there
(``tests/test_faulty_library.py``). Edits use the same ``(old, new)`` form as ``faults.py``.
"""

from dataclasses import dataclass

BASES = {
    "tool-result": '''
def tool_error_result(tool_use_id, message):
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": message, "is_error": True}
''',
    "parse-call": '''
import json
import math


def _pairs(pairs):
    keys = [key for key, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("a key appears twice (duplicate key)")
    return dict(pairs)


def _constant(name):
    raise ValueError(f"{name} is not valid JSON")


def _not_finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, item in items:
        if isinstance(item, (float, dict, list)):
            found = _not_finite(item)
            if found is not None:
                return [key, *found]
    return None


def _hint(raw, pos):
    stray = raw[:pos].rstrip().endswith(",") or raw[pos:pos + 1] == ","
    if stray and raw[pos:].lstrip(",").lstrip()[:1] in ("}", "]"):
        return "remove the comma before the closing bracket"
    return f"the text stops making sense at character {pos}"


def parse_call(raw):
    if not isinstance(raw, str):
        return None, ["the call must be a string holding a JSON object"]
    try:
        call = json.loads(raw, object_pairs_hook=_pairs, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        return None, [f"the call is not valid JSON: {_hint(raw, exc.pos)}"]
    except (ValueError, RecursionError) as exc:
        return None, [f"the call is not valid JSON: {str(exc)[:100]}"]
    path = _not_finite(call)
    if path is not None:
        return None, [f"{'.'.join(map(str, ['the call', *path]))} is not a finite number"]
    if not isinstance(call, dict):
        return None, ["the call must be a JSON object"]
    if call.get("arguments") is None:
        call["arguments"] = {}
    return call, []
''',
    "validate-call": '''
def _type_ok(value, declared):
    if declared is float:
        return type(value) in (int, float)
    return type(value) is declared


def validate_call(call, tools):
    problems = []
    name = call.get("name")
    args = call.get("arguments")
    spec = None
    if not isinstance(name, str) or name not in tools:
        problems.append(f"unknown tool {str(name)[:40]}; registered tools: {', '.join(tools)}")
    else:
        spec = tools[name]
    if not isinstance(args, dict):
        problems.append("arguments must be a JSON object")
        return problems
    if spec:
        declared = {**spec["required"], **spec["optional"]}
        for field in spec["required"]:
            if field not in args:
                problems.append(f"missing required argument {field}")
        for field, value in args.items():
            if field not in declared:
                problems.append(f"unknown argument {field[:40]}; allowed: {', '.join(declared)}")
            elif not _type_ok(value, declared[field]):
                problems.append(f"argument {field} must be {declared[field].__name__}")
    return problems
''',
    "observe": '''
import re

LIMIT = 2000


def _schema_line(call, tools):
    name = call.get("name") if isinstance(call, dict) else None
    if not isinstance(name, str) or name not in tools:
        return ""
    spec = tools[name]
    fields = [f"{f} ({t.__name__}, required)" for f, t in spec["required"].items()]
    fields += [f"{f} ({t.__name__}, optional)" for f, t in spec["optional"].items()]
    return f"\\n{name[:60]} takes " + (", ".join(fields)[:500] or "no arguments")


def _text(header, lines, shown, schema):
    text = header + "".join(f"\\n{i}. {line}" for i, line in enumerate(lines[:shown], 1))
    if shown < len(lines):
        text += f"\\n... and {len(lines) - shown} more problems not listed here"
    return text + schema


def _readable(line):
    if "Traceback (most recent call last)" in line or re.search(r'File "[^"]*", line [0-9]+', line):
        return "a problem whose text reads like a Python traceback (not repeated here)"
    return line


def observe(call, problems, tools):
    if not problems:
        return None
    lines = [" ".join(str(p).split()) for p in problems]
    lines = [_readable(line) for line in lines]
    header = f"Tool call rejected ({len(lines)} problems); nothing was executed. Fix them and send the whole call again:"
    schema = _schema_line(call, tools)
    width = max(len(line) for line in lines)
    cut = lines
    while len(_text(header, cut, len(cut), schema)) > LIMIT and width > 100:
        width = width * 3 // 4
        cut = [line if len(line) <= width else line[:width] + "..." for line in lines]
    shown = len(cut)
    while len(_text(header, cut, shown, schema)) > LIMIT and shown > 1:
        shown = shown // 2 if shown > 40 else shown - 1
    return _text(header, cut, shown, schema)[:LIMIT]
''',
    "retry-loop": '''
def _rejected(observation, note=""):
    return {"status": "rejected", "error": observation[:2000 - len(note)] + note}


def run_tool_call(raw, ask_model, tools, dispatch, check):
    call, observation = check(raw, tools)
    if observation is None:
        return dispatch(call["name"], call["arguments"])
    try:
        retry = ask_model(observation)
    except Exception as exc:
        return _rejected(observation, f"\\nThe retry failed: asking the model again raised {type(exc).__name__}.")
    call, observation = check(retry, tools)
    if observation is None:
        return dispatch(call["name"], call["arguments"])
    return _rejected(observation)
''',    "json-schema": '''
TYPES = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,), "array": (list,),
         "object": (dict,), "null": (type(None),)}
KNOWN = {"type", "properties", "required", "additionalProperties", "enum", "const", "items", "anyOf", "$ref", "$defs",
         "description", "title", "default", "examples", "$comment", "format", "contentEncoding", "contentMediaType",
         "enumDescriptions", "markdownDescription"}


def _is(value, name):
    return type(value) in TYPES.get(name, ())


def _same(a, b):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b and (type(a) is type(b) or {type(a), type(b)} <= {int, float})


def _shape(schema):
    types = schema.get("type", "string")
    types = types if isinstance(types, list) else [types]
    checks = [("type", all(isinstance(t, str) and t in TYPES for t in types)),
              ("properties", isinstance(schema.get("properties", {}), dict)),
              ("required", isinstance(schema.get("required", []), list)),
              ("enum", isinstance(schema.get("enum", []), list)),
              ("items", isinstance(schema.get("items", {}), (dict, bool))),
              ("anyOf", isinstance(schema.get("anyOf", [{}]), list) and schema.get("anyOf", [{}]) != [])]
    return [key for key, ok in checks if not ok]


def validate_arguments(arguments, schema, path="arguments", root=None):
    root = schema if root is None else root
    if not isinstance(schema, dict):
        return [f"{path}: the schema is not an object"]
    unknown = {key for key in set(schema) - KNOWN if not str(key).startswith("x-")}
    if unknown:
        return [f"{path}: unsupported schema keywords {sorted(unknown)}"]
    broken = _shape(schema)
    if broken:
        return [f"{path}: the schema's {', '.join(broken)} has the wrong shape"]
    problems = []
    if "$ref" in schema:
        target = root
        for part in str(schema["$ref"]).lstrip("#").strip("/").split("/") if schema["$ref"] != "#" else []:
            target = target.get(part) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            return [f"{path}: the schema's $ref points nowhere"]
        problems += validate_arguments(arguments, target, path, root)
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(arguments, n) for n in names):
            return problems + [f"{path} must be {' or '.join(names)}"]
    if "enum" in schema and not any(_same(arguments, o) for o in schema["enum"]):
        problems.append(f"{path} must be one of {schema['enum']}")
    if "const" in schema and not _same(arguments, schema["const"]):
        problems.append(f"{path} must be exactly {schema['const']}")
    if "anyOf" in schema:
        found = [validate_arguments(arguments, o, path, root) for o in schema["anyOf"]]
        if all(found):
            fitting = [f for f in found if not (len(f) == 1 and f[0].startswith(f"{path} must be "))]
            problems += min(fitting, key=len) if fitting else [f"{path} matches none of the allowed shapes"]
    if isinstance(arguments, dict):
        props = schema.get("properties", {})
        problems += [f"{path}.{f} is missing" for f in schema.get("required", []) if f not in arguments]
        extra = schema.get("additionalProperties", True)
        for field, value in arguments.items():
            if field in props:
                problems += validate_arguments(value, props[field], f"{path}.{field}", root)
            elif extra is False:
                problems.append(f"{path}.{field} is not declared")
            elif isinstance(extra, dict):
                problems += validate_arguments(value, extra, f"{path}.{field}", root)
    if isinstance(arguments, list) and "items" in schema:
        for index, item in enumerate(arguments):
            problems += validate_arguments(item, schema["items"], f"{path}[{index}]", root)
    return problems
''',
    "adapters": '''
import json
import math


def _strict(pairs):
    keys = [key for key, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("a key appears twice")
    return dict(pairs)


def _finite(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("not a finite number")
    return value


def _get(record, key):
    if isinstance(record, dict):
        return record[key]
    if record is None or isinstance(record, (str, list, int, float)):
        raise TypeError("pass one tool call: a dict or the SDK's object")
    return getattr(record, key)


def _maybe(record, key):
    return record.get(key) if isinstance(record, dict) else getattr(record, key, None)


def _named(record):
    name = _maybe(record, "name")
    if name is None:
        raise TypeError("a piece of a streamed call has no name: join the pieces first")
    return name


def raw_call_from_openai(tool_call):
    function = tool_call if _maybe(tool_call, "type") == "function_call" else _get(tool_call, "function")
    name = _named(function)
    arguments = _whole(tool_call, _maybe(function, "arguments"))
    try:
        arguments = json.loads(arguments, object_pairs_hook=_strict, parse_float=_finite, parse_constant=_finite)
    except ValueError:
        pass
    return json.dumps({"name": name, "arguments": arguments})


def _whole(record, arguments):
    if arguments is None or _maybe(record, "status") == "in_progress":
        raise TypeError("a piece of a streamed call has no arguments yet: pass the whole call")
    return arguments


def raw_call_from_anthropic(block):
    return json.dumps({"name": _named(block), "arguments": _whole(block, _maybe(block, "input"))})
''',
    "turn": '''
import json


def _calls(message, provider):
    if provider == "openai":
        return [(c["id"], c) for c in message.get("tool_calls") or []]
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [(b["id"], b) for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]


def _text(result):
    return result if isinstance(result, str) else json.dumps(result)


def answer_turn(message, provider, check, dispatch, done):
    answers = []
    for call_id, tool_call in _calls(message, provider):
        if call_id in done:
            answers.append(done[call_id])
            continue
        call, observation = check(tool_call)
        ran = observation is None
        if ran:
            try:
                text, error = _text(dispatch(call["name"], call["arguments"])), False
            except Exception as exc:
                text, error = f"{type(exc).__name__}: {exc}", True
        else:
            text, error = observation, True
        if provider == "openai":
            answer = {"role": "tool", "tool_call_id": call_id, "content": text}
        else:
            answer = {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": error}
        if ran:
            done[call_id] = answer
        answers.append(answer)
    if provider == "anthropic":
        return [{"role": "user", "content": answers}] if answers else []
    return answers
''',
    "stream": '''
def assemble_turn(chunks):
    content, calls, at, finish = [], [], {}, None
    for chunk in chunks:
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                content.append(delta["content"])
            for piece in delta.get("tool_calls") or []:
                index = piece.get("index")
                call = at.get(index) if index is not None else (calls[-1] if calls else None)
                if call is None or (piece.get("id") and call["id"] and piece["id"] != call["id"]):
                    call = {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
                    calls.append(call)
                if index is not None:
                    at[index] = call
                function = piece.get("function") or {}
                if piece.get("id") and not call["id"]:
                    call["id"] = piece["id"]
                if function.get("name") and not call["function"]["name"]:
                    call["function"]["name"] = function["name"]
                if isinstance(function.get("arguments"), str):
                    call["function"]["arguments"] += function["arguments"]
            if choice.get("finish_reason") is not None:
                finish = choice["finish_reason"]
    if finish not in ("stop", "tool_calls"):
        return None
    message = {"role": "assistant", "content": "".join(content) or None}
    if calls:
        message["tool_calls"] = calls
    return message
''',
    "loop": '''
import json


def _ask(model, messages, limits, sleep):
    for attempt in range(limits["model_retries"] + 1):
        try:
            return model(messages), None
        except (TimeoutError, ConnectionError):
            if attempt == limits["model_retries"]:
                return None, "model_unavailable"
            sleep(limits["backoff"] * 2 ** attempt)
        except Exception:
            return None, "model_error"


def run_agent(task, model, check, dispatch, sleep, limits):
    messages = [{"role": "user", "content": task}]
    failures, refused, turns = {}, set(), 0

    def stop(reason, answer=None, tool=None):
        return {"stop": reason, "answer": answer, "turns": turns, "tool": tool, "messages": messages}

    while True:
        reply, reason = _ask(model, messages, limits, sleep)
        if reason:
            return stop(reason)
        turns += 1
        messages.append(reply)
        if not reply.get("calls"):
            return stop("answered", reply.get("content"))
        again, worn, now = [], [], set()
        for entry in reply["calls"]:
            call, observation = check(entry["raw"])
            name = call.get("name") if isinstance(call, dict) and isinstance(call.get("name"), str) else None
            if observation is not None:
                content, error = observation, True
                if entry["raw"] in refused:
                    again.append(name)
                now.add(entry["raw"])
            else:
                try:
                    result = dispatch(call["name"], call["arguments"])
                    content, error = result if isinstance(result, str) else json.dumps(result), False
                except Exception as exc:
                    content, error = f"{call['name']} failed: {type(exc).__name__}: {exc}", True
            failures[name] = failures.get(name, 0) + 1 if error else 0
            if failures[name] >= limits["tool_failures"]:
                worn.append(name)
            messages.append({"role": "tool", "id": entry["id"], "content": content, "is_error": error})
        refused |= now
        if again:
            return stop("no_progress", tool=again[0])
        if worn:
            return stop("tool_failures", tool=worn[0])
        if turns >= limits["max_turns"]:
            return stop("max_turns")
''',
    "authorise": '''
import os


def allowed_path(path, root):
    if not isinstance(path, str) or not path or "\\x00" in path:
        return None, "the path must be a non-empty string without NUL"
    base = os.path.realpath(root)
    try:
        real = os.path.realpath(os.path.join(base, path))
    except ValueError:
        return None, "the file name holds a character no file name can have"
    if os.path.commonpath([real, base]) != base:
        return None, "the path leads outside the allowed folder"
    return real, None
''',
}


@dataclass(frozen=True)
class StepFault:
    """One faulty step solution: ``BASES[exercise]`` with ``edits`` applied; it must lose points.

    ``caught_by``: when set, the start of the title of a hidden case that must be among those it fails (str).
    """

    exercise: str
    name: str
    why: str
    edits: tuple
    caught_by: str = ""


def fault(exercise, name, why, *edits, caught_by=""):
    return StepFault(exercise, name, why, tuple(edits), caught_by)


STEP_FAULTS = [
    fault("tool-result", "string_is_error", "Sends is_error as the string \"true\".",
          ('"is_error": True', '"is_error": "true"')),
    fault("tool-result", "extra_key", "Adds a key the API does not define.",
          ('"is_error": True}', '"is_error": True, "status": "error"}')),
    fault("tool-result", "strips_message", "Tidies the message with .strip(): it is no longer passed unchanged (issue 11).",
          ('"content": message,', '"content": message.strip(),')),
    fault("parse-call", "only_jsondecodeerror", "Catches JSONDecodeError only: deep nesting and huge ints crash.",
          ("    except (ValueError, RecursionError) as exc:", "    except json.JSONDecodeError as exc:")),
    fault("parse-call", "raw_decode_prefix", "Accepts text after the JSON.",
          ("        call = json.loads(raw, object_pairs_hook=_pairs, parse_constant=_constant)",
           "        call = json.JSONDecoder(object_pairs_hook=_pairs).raw_decode(raw.strip())[0]")),
    fault("parse-call", "strips_fences", "Strips markdown fences (a repair).",
          ("        call = json.loads(raw,", "        call = json.loads(raw.strip().strip('`').removeprefix('json'),")),
    fault("parse-call", "no_object_check", "Returns whatever json.loads gave.",
          ("    if not isinstance(call, dict):\n        return None, [\"the call must be a JSON object\"]\n", ""),
          ('    if call.get("arguments") is None:', '    if isinstance(call, dict) and call.get("arguments") is None:')),
    fault("parse-call", "accepts_nan_and_duplicates", "Uses plain json.loads: NaN and repeated keys slip through.",
          (", object_pairs_hook=_pairs, parse_constant=_constant)", ")")),
    fault("parse-call", "null_arguments_kept", "Leaves null arguments as None.",
          ('    if call.get("arguments") is None:', '    if "arguments" not in call:')),
    fault("validate-call", "isinstance_types", "Uses isinstance: True passes as an int.",
          ("    return type(value) is declared", "    return isinstance(value, declared)")),
    fault("validate-call", "first_violation_only", "Returns at the first violation.",
          ("                problems.append(f\"argument {field} must be {declared[field].__name__}\")\n    return problems\n",
           "                problems.append(f\"argument {field} must be {declared[field].__name__}\")\n    return problems[:1]\n")),
    fault("validate-call", "unhashable_name_crash", "Looks up a non-string name in the registry.",
          ("    if not isinstance(name, str) or name not in tools:", "    if name not in tools:")),
    fault("validate-call", "no_extra_check", "Ignores undeclared fields.",
          ("            if field not in declared:\n                problems.append(", "            if field not in declared:\n                continue\n                problems.append(")),
    fault("validate-call", "required_types_only", "Type-checks required fields only.",
          ("            elif not _type_ok(value, declared[field]):", "            elif field in spec[\"required\"] and not _type_ok(value, declared[field]):")),
    fault("observe", "unbounded", "Never shortens the observation.",
          ("    return _text(header, cut, shown, schema)[:LIMIT]", "    return _text(header, lines, len(lines), schema)")),
    fault("observe", "empty_string_for_valid", "Returns \"\" instead of None for a valid call.",
          ("    if not problems:\n        return None", "    if not problems:\n        return \"\"")),
    fault("observe", "first_problem_only", "Writes up the first problem only (the one retry then fixes one of them).",
          ("    lines = [\" \".join(str(p).split()) for p in problems]", "    lines = [\" \".join(str(p).split()) for p in problems[:1]]")),
    fault("retry-loop", "asks_twice", "Asks the model again after a failed retry (two retries).",
          ("    call, observation = check(retry, tools)\n    if observation is None:\n        return dispatch(call[\"name\"], call[\"arguments\"])\n    return _rejected(observation)",
           "    call, observation = check(retry, tools)\n    if observation is None:\n        return dispatch(call[\"name\"], call[\"arguments\"])\n"
           "    call, observation = check(ask_model(observation), tools)\n    if observation is None:\n        return dispatch(call[\"name\"], call[\"arguments\"])\n    return _rejected(observation)")),
    fault("retry-loop", "dispatches_unchecked_retry", "Dispatches the model's retry without checking it.",
          ("    call, observation = check(retry, tools)\n    if observation is None:\n        return dispatch(call[\"name\"], call[\"arguments\"])\n    return _rejected(observation)",
           "    import json\n    try:\n        call = json.loads(retry)\n        return dispatch(call[\"name\"], call.get(\"arguments\") or {})\n"
           "    except Exception:\n        return _rejected(observation)")),
    fault("retry-loop", "echoes_first_attempt", "Rejects with the first attempt's observation, not the last one's.",
          ("    call, observation = check(retry, tools)\n    if observation is None:\n        return dispatch(call[\"name\"], call[\"arguments\"])\n    return _rejected(observation)",
           "    call, second = check(retry, tools)\n    if second is None:\n        return dispatch(call[\"name\"], call[\"arguments\"])\n    return _rejected(observation)")),
    fault("retry-loop", "retry_budget_between_calls", "Keeps the retry budget in a global, spent by the first call "
          "(issue 25's trial: its feedback was about 100 identical \"never asked\" lines).",
          ("def run_tool_call(raw, ask_model, tools, dispatch, check):\n    call, observation = check(raw, tools)\n"
           "    if observation is None:\n        return dispatch(call[\"name\"], call[\"arguments\"])\n",
           "RETRIES_LEFT = 1\n\n\ndef run_tool_call(raw, ask_model, tools, dispatch, check):\n    global RETRIES_LEFT\n"
           "    call, observation = check(raw, tools)\n    if observation is None:\n"
           "        return dispatch(call[\"name\"], call[\"arguments\"])\n    if RETRIES_LEFT == 0:\n"
           "        return _rejected(observation)\n    RETRIES_LEFT -= 1\n")),
    fault("retry-loop", "asks_again_when_the_model_fails", "Asks the model a second time when asking raised (two "
          "retries).",
          ("    except Exception as exc:\n        return _rejected(",
           "    except Exception:\n        try:\n            retry = ask_model(observation)\n"
           "        except Exception as exc:\n            return _rejected(")),
    fault("retry-loop", "crashes_when_the_model_fails", "Lets an exception from ask_model escape.",
          ("    try:\n        retry = ask_model(observation)\n    except Exception as exc:\n", "    retry = ask_model(observation)\n    if False:\n        exc = None\n")),
    fault("json-schema", "ignores_unknown_keywords", "Silently ignores keywords it cannot check.",
          ("    if unknown:\n", "    if False:\n"),
          # Issue 25: the unsupported-keyword cases sent values of the wrong type, so the type alone was reported.
          caught_by="validate_arguments: A schema keyword the validator does not support is reported"),
    fault("json-schema", "shallow", "Does not recurse into nested properties.",
          ("                problems += validate_arguments(value, props[field], f\"{path}.{field}\", root)",
           "                problems += [] if isinstance(value, (dict, list)) else validate_arguments(value, props[field], f\"{path}.{field}\", root)")),
    fault("json-schema", "bool_is_number", "Lets True pass as an integer or number.",
          ("    return type(value) in TYPES.get(name, ())", "    return isinstance(value, TYPES.get(name, ()))")),
    fault("json-schema", "no_items", "Never checks array items.",
          ('    if isinstance(arguments, list) and "items" in schema:', "    if False:")),
    fault("adapters", "repairs_quotes", "Repairs invalid JSON by swapping quotes.",
          ("    except ValueError:\n        pass", "    except ValueError:\n        arguments = arguments.replace(\"'\", '\"')")),
    fault("adapters", "double_encodes_input", "Encodes Anthropic's input as a JSON string.",
          ('"arguments": _whole(block, _maybe(block, "input"))', '"arguments": json.dumps(_whole(block, _maybe(block, "input")))')),
    fault("adapters", "empty_dict_on_failure", "Replaces undecodable arguments with {} (drops the model's mistake).",
          ("    except ValueError:\n        pass", "    except ValueError:\n        arguments = {}")),
    # Issue 10: one fault per kind, each the mistake the public bug reports show.
    fault("parse-call", "accepts_overflowing_numbers", "Kind 1: lets 1e400 through as inf.",
          ("    path = _not_finite(call)", "    path = None")),
    fault("parse-call", "hint_from_cpython_message", "Kind 4: reads the hint from exc.msg, so a stray comma is called a quoting problem.",
          ("        return None, [f\"the call is not valid JSON: {_hint(raw, exc.pos)}\"]",
           "        hint = \"use double quotes, not single quotes\" if \"double quotes\" in exc.msg else exc.msg\n"
           "        return None, [f\"the call is not valid JSON: {hint}\"]")),
    fault("json-schema", "enum_exact_types", "Kind 8: compares enum options by Python type, so 1 is not 1.0.",
          ("    return a == b and (type(a) is type(b) or {type(a), type(b)} <= {int, float})", "    return a == b and type(a) is type(b)")),
    fault("json-schema", "enum_numbers_by_equality", "Compares number options with ==, so true matches \"enum\": [1] "
          "(issue 11: a bool is not a number).",
          ("not any(_same(arguments, o) for o in schema[\"enum\"])",
           "not any(arguments == o if type(o) in (int, float) else _same(arguments, o) for o in schema[\"enum\"])")),
    fault("json-schema", "enum_python_equality", "Kind 8: compares with Python ==, so [True, False] equals [1, 0].",
          ("not any(_same(arguments, o) for o in schema[\"enum\"])", "not any(arguments == o for o in schema[\"enum\"])")),
    fault("json-schema", "trusts_schema_shape", "Kind 7: uses keyword values unchecked, so \"required\": true crashes.",
          ("    broken = _shape(schema)\n", "    broken = []\n")),
    fault("json-schema", "no_anyof", "Kind 9: reports anyOf as unsupported, refusing every Optional field.",
          ('"items", "anyOf", "$ref"', '"items", "$ref"')),
    fault("json-schema", "no_ref", "Kind 9: reports $ref as unsupported, refusing every nested model.",
          ('"anyOf", "$ref", "$defs"', '"anyOf"')),
    fault("adapters", "plain_json_loads", "Kinds 1 and 5: decodes with plain json.loads: a repeated key collapses, 1e400 becomes inf.",
          ("        arguments = json.loads(arguments, object_pairs_hook=_strict, parse_float=_finite, parse_constant=_finite)",
           "        arguments = json.loads(arguments)")),
    fault("adapters", "first_object_only", "Kind 5: decodes the first of two objects and drops the rest.",
          ("        arguments = json.loads(arguments, object_pairs_hook=_strict, parse_float=_finite, parse_constant=_finite)",
           "        arguments = json.JSONDecoder(object_pairs_hook=_strict, parse_float=_finite).raw_decode(arguments)[0]")),
    fault("adapters", "dicts_only", "Kind 6: reads dicts only and makes a call without a name from an SDK object.",
          ("    if isinstance(record, dict):\n        return record[key]\n",
           "    if not isinstance(record, dict):\n        return None\n    if isinstance(record, dict):\n        return record[key]\n")),
    # Issue 25: indexing an SDK object raises TypeError by accident; when a TypeError passed the SDK case, so did this.
    fault("adapters", "indexes_sdk_objects", "Indexes SDK objects like dicts (obj[\"function\"]): a TypeError by accident.",
          ("    return getattr(record, key)\n", "    return record[key]\n"),
          caught_by="Wire-format adapters: An SDK object gives the same call"),
    # Issue 26: one fault per kind a notebook teaches.
    fault("json-schema", "refuses_annotations", "Kind 7: reports x-order and other annotation keywords as unsupported, "
          "refusing every call to a tool whose schema carries one.",
          ('    unknown = {key for key in set(schema) - KNOWN if not str(key).startswith("x-")}\n',
           '    unknown = set(schema) - KNOWN - {"title", "description"}\n'),
          caught_by="validate_arguments: A valid value passes a schema that carries keywords which only annotate"),
    fault("json-schema", "anyof_names_no_option", "Kind 4: says only that no anyOf option fits, hiding the broken "
          "field inside the option of the value's type.",
          ("            problems += min(fitting, key=len) if fitting else", "            problems += [] if False else"),
          caught_by="validate_arguments: An Optional model with a broken field names that field"),
    fault("adapters", "stream_piece_becomes_a_call", "Kind 9: builds a call from a streamed piece without a name, so "
          "the model is told \"name is null\".",
          ('        raise TypeError("a piece of a streamed call has no name: join the pieces first")\n',
           '        return None\n'),
          caught_by="Wire-format adapters: Something that is not a whole tool call"),
    fault("adapters", "named_piece_becomes_a_call", "Kind 9: builds a call from a named first delta or block "
          "whose arguments have not arrived, so the tool runs with arguments the model never sent.",
          ('    if arguments is None or _maybe(record, "status") == "in_progress":\n',
           '    if False:\n'),
          caught_by="Wire-format adapters: Something that is not a whole tool call"),
    fault("adapters", "chat_completions_only", "Kind 9: reads only Chat Completions' shape, so a Responses API item "
          "raises instead of becoming its call.",
          ('    function = tool_call if _maybe(tool_call, "type") == "function_call" else _get(tool_call, "function")',
           '    function = _get(tool_call, "function")'),
          caught_by="Wire-format adapters: An OpenAI tool call becomes the same call"),
    fault("parse-call", "unwraps_template_marker", "Kind 8: strips Mistral's [TOOL_CALLS] marker and runs the first "
          "call of the list.",
          ("    try:\n        call = json.loads(raw, object_pairs_hook=_pairs, parse_constant=_constant)\n",
           "    raw = raw.removeprefix(\"[TOOL_CALLS]\")\n    try:\n"
           "        call = json.loads(raw, object_pairs_hook=_pairs, parse_constant=_constant)\n"
           "        call = call[0] if isinstance(call, list) and call else call\n")),
]


# Issue 15: the repairs of a tool name a runtime might make before looking it up. Each turns a name the model did
# not exactly send into a registered one; the capstone docks them, and so must validate-call.
NAME_REPAIRS = {
    "strips_name": ("Trims the name: \" get_weather\" is accepted.", "name.strip()"),
    "drops_functions_prefix": ("Drops a leading \"functions.\": \"functions.get_weather\" is accepted.",
                               'name.removeprefix("functions.")'),
    "drops_any_namespace": ("Keeps what follows the last dot: \"tools.get_weather\" is accepted.", 'name.rpartition(".")[2]'),
    "drops_junk_before_colon": ("Drops a prefix up to a colon: \": get_weather\" is accepted.",
                                'name.rpartition(":")[2].strip()'),
    "lowercases_name": ("Lower-cases the name: \"Get_Weather\" is accepted.", "name.lower()"),
    "casefolds_name": ("Case-folds the name: \"GET_WEATHER\" and a long s are accepted.", "name.casefold()"),
    "nfkc_name": ("Normalises the name with NFKC: full-width and mathematical letters are accepted.",
                  '__import__("unicodedata").normalize("NFKC", name)'),
    "ascii_folded_name": ("Folds the name to ASCII (NFKD, accents dropped): \"gét_weather\" is accepted.",
                          '__import__("unicodedata").normalize("NFKD", name).encode("ascii", "ignore").decode()'),
    "maps_look_alike_letters": ("Maps Cyrillic look-alikes to Latin: \"get_w\\u0435ather\" is accepted.",
                                'name.translate(str.maketrans("\u0430\u0435\u043e\u0440\u0441\u0445", "aeopcx"))'),
    "drops_invisible_characters": ("Removes zero-width and other format characters from the name.",
                                   '"".join(c for c in name if __import__("unicodedata").category(c) != "Cf")'),
    "drops_call_parentheses": ("Drops a trailing \"()\": \"get_weather()\" is accepted.", 'name.removesuffix("()")'),
    "drops_trailing_dot": ("Drops trailing dots: \"get_weather.\" is accepted.", 'name.rstrip(".")'),
    "hyphens_to_underscores": ("Swaps hyphens for underscores: \"get-weather\" is accepted.", 'name.replace("-", "_")'),
    "strips_quotes": ("Strips quotes and backticks around the name.", 'name.strip("`\'\\"")'),
    "camel_to_snake": ("Turns camelCase into snake_case: \"getWeather\" is accepted.",
                       '__import__("re").sub(r"(?<=[a-z])([A-Z])", lambda m: "_" + m.group(1).lower(), name)'),
    "trims_the_end_only": ("Trims the end of the name only: \"get_weather\\n\" is accepted.", "name.rstrip()"),
    "drops_mcp_server_prefix": ("Keeps what follows the last double underscore: \"mcp__weather__get_weather\" is accepted.",
                                'name.rpartition("__")[2]'),
    "cuts_at_special_tokens": ("Cuts the name at a chat-template token: \"get_weather<|channel|>commentary\" is accepted.",
                               'name.split("<|")[0]'),
    "drops_what_follows_a_colon": ("Drops what follows a colon: \"get_weather:0\" is accepted.", 'name.partition(":")[0]'),
    "strips_brackets": ("Strips brackets and asterisks around the name: \"<get_weather>\" is accepted.",
                        'name.strip("<>[]{}*")'),
    "decodes_backslash_escapes": ("Decodes backslash escapes left in the name: \"get\\\\u005fweather\" is accepted.",
                                  'name.encode("latin-1", "backslashreplace").decode("unicode_escape")'),
    "unquotes_percent_escapes": ("Decodes %-escapes in the name: \"get%5Fweather\" is accepted.",
                                 '__import__("urllib.parse").parse.unquote(name)'),
    "unescapes_html": ("Decodes HTML entities in the name: \"get&#95;weather\" is accepted.", '__import__("html").unescape(name)'),
    "squashes_separators": ("Compares names without separators or case: \"getWeather\" and \"get-weather\" are accepted.",
                            'next((tool for tool in tools if __import__("re").sub(r"[\\W_]", "", tool).lower() == '
                            '__import__("re").sub(r"[\\W_]", "", name).lower()), name)'),
    "adds_a_missing_verb": ("Puts \"get_\" before an unknown name: \"weather\" is accepted.",
                            'name if name in tools else "get_" + name'),
    "closest_registered_name": ("Picks the closest registered name (difflib): \"get_wether\" is accepted.",
                                '(__import__("difflib").get_close_matches(name, list(tools), n=1) or [name])[0]'),
}
ALMOST_REGISTERED = "validate_call: A name that differs from a registered one"
STEP_FAULTS += [
    fault("validate-call", fault_name, why,
          ('    name = call.get("name")\n', f'    name = call.get("name")\n    if isinstance(name, str):\n        name = {repair}\n'),
          caught_by=ALMOST_REGISTERED)
    for fault_name, (why, repair) in NAME_REPAIRS.items()
]
# The two repairs issue 15 reports, together, as a learner wrote them.
STEP_FAULTS.append(fault(
    "validate-call", "issue_15_name_repairs", "Trims the name and drops \"functions.\" before looking it up (issue 15).",
    ('    name = call.get("name")\n',
     '    name = call.get("name")\n    if isinstance(name, str):\n        name = name.strip()\n'
     '        if name.startswith("functions."):\n            name = name[len("functions."):]\n'),
    caught_by=ALMOST_REGISTERED))
# Issue 15: one fault per input the step gained from the capstone (each passed every step case before).
STEP_FAULTS += [
    fault("validate-call", "recursive_value_check", "Walks undeclared values recursively: 900 levels raise RecursionError.",
          ("            if field not in declared:\n                problems.append(",
           "            if field not in declared:\n                _plain(value)\n                problems.append("),
          ("def validate_call(call, tools):", "def _plain(value):\n    return all(_plain(item) for item in value) if isinstance(value, list) else True\n\n\ndef validate_call(call, tools):"),
          caught_by="validate_call: An undeclared field nested 900 levels deep"),
    fault("validate-call", "numeric_strings_are_floats", "Accepts \"10.5\" where a float is declared (float() would convert it).",
          ("    if declared is float:\n        return type(value) in (int, float)",
           "    if declared is float:\n        return type(value) in (int, float) or (type(value) is str and value.replace('.', '', 1).isdigit())"),
          caught_by="validate_call: An invalid call has at least one violation, naming the offending tool or field [string-for-float]"),
    fault("validate-call", "zero_and_one_are_booleans", "Accepts 0 and 1 where a boolean is declared (bool() would convert them).",
          ("    return type(value) is declared", "    return type(value) is declared or (declared is bool and value in (0, 1))"),
          caught_by="validate_call: An invalid call has at least one violation, naming the offending tool or field [int-for-bool]"),
    fault("validate-call", "list_is_a_dict", "Accepts a list where an object is declared (dict() of pairs would convert it).",
          ("    return type(value) is declared", "    return type(value) is declared or (declared is dict and type(value) is list)"),
          caught_by="validate_call: An invalid call has at least one violation, naming the offending tool or field [list-for-dict]"),
    fault("validate-call", "skips_tools_without_required_fields", "Checks a tool's fields only when it has required ones.",
          ("    if spec:\n", "    if spec and spec[\"required\"]:\n"),
          caught_by="validate_call: An invalid call has at least one violation, naming the offending tool or field [extra-field-without-required-fields]"),
    fault("validate-call", "missing_name_is_fine", "Checks the name only when the key is there.",
          ("    if not isinstance(name, str) or name not in tools:", "    if \"name\" in call and (not isinstance(name, str) or name not in tools):"),
          caught_by="validate_call: An invalid call has at least one violation, naming the offending tool or field [missing-name]"),
    fault("validate-call", "unwraps_a_list_of_one_arguments_object", "Takes the arguments out of a list holding one object.",
          ('    args = call.get("arguments")\n', '    args = call.get("arguments")\n'
           '    if isinstance(args, list) and len(args) == 1 and isinstance(args[0], dict):\n        args = args[0]\n'),
          caught_by="validate_call: An invalid call has at least one violation, naming the offending tool or field [arguments-is-a-list-of-one-object]"),
    fault("validate-call", "name_from_a_nested_object", "Takes the name out of an object sent as the name.",
          ('    args = call.get("arguments")\n', '    args = call.get("arguments")\n'
           '    if isinstance(name, dict):\n        name = name.get("name")\n'),
          caught_by="validate_call: An invalid call has at least one violation, naming the offending tool or field [object-name]"),
    fault("parse-call", "unwraps_a_list_of_one_call", "Takes the call out of a list holding one.",
          ("    path = _not_finite(call)", "    if isinstance(call, list) and len(call) == 1:\n        call = call[0]\n    path = _not_finite(call)"),
          caught_by="parse_call: Text that is not exactly one JSON object gives (None, [problem]) [array-of-calls]"),
    fault("parse-call", "decodes_a_string_again", "Decodes a JSON string that holds a call a second time.",
          ("    path = _not_finite(call)", "    if isinstance(call, str):\n        return parse_call(call)\n    path = _not_finite(call)"),
          caught_by="parse_call: Text that is not exactly one JSON object gives (None, [problem]) [call-encoded-as-string]"),
    fault("parse-call", "caps_the_input_size", "Refuses any raw call over 100,000 characters, valid or not.",
          ("    try:\n        call = json.loads(raw,", "    if len(raw) > 100_000:\n        return None, [\"the call is too long\"]\n    try:\n        call = json.loads(raw,"),
          caught_by="parse_call: A valid raw call parses to exactly the object that was sent [huge-string-value]"),
    fault("parse-call", "measures_the_call_in_utf8", "Encodes the parsed call to measure it: an unpaired surrogate raises UnicodeEncodeError.",
          ("    path = _not_finite(call)", "    if len(json.dumps(call, ensure_ascii=False).encode(\"utf-8\")) > 10_000_000:\n"
           "        return None, [\"the call is too long\"]\n    path = _not_finite(call)"),
          caught_by="parse_call: A valid raw call parses to exactly the object that was sent [unpaired-surrogate]"),
]

# Notebook 7: a turn with many calls (issue 27).
TURN = "A turn with many calls: "
STEP_FAULTS += [
    fault("turn", "stops_at_first_refused", "Stops the turn at the first refused call: the ids after it get no answer.",
          ("            text, error = observation, True\n", "            text, error = observation, True\n            answers.append({\"role\": \"tool\", \"tool_call_id\": call_id, \"content\": text} if provider == \"openai\" else {\"type\": \"tool_result\", \"tool_use_id\": call_id, \"content\": text, \"is_error\": True})\n            break\n"),
          caught_by=TURN + "Refused and valid calls in one turn"),
    fault("turn", "skips_refused_ids", "Answers only the calls that ran: a refused call's id is left without its answer.",
          ("            text, error = observation, True\n", "            continue\n"),
          caught_by=TURN + "Refused and valid calls in one turn"),
    fault("turn", "openai_is_error_key", "Adds is_error to OpenAI's tool message, a key it does not define.",
          ('"tool_call_id": call_id, "content": text}', '"tool_call_id": call_id, "content": text, "is_error": error}'),
          caught_by=TURN + "A turn of valid calls"),
    fault("turn", "one_message_per_result", "Sends each Anthropic result in a message of its own.",
          ('        return [{"role": "user", "content": answers}] if answers else []',
           '        return [{"role": "user", "content": [answer]} for answer in answers]'),
          caught_by=TURN + "A turn of valid calls"),
    fault("turn", "tool_error_escapes", "Catches ValueError only: a tool's TimeoutError crashes the whole turn.",
          ("            except Exception as exc:", "            except ValueError as exc:"),
          caught_by=TURN + "dispatch raises for some tools"),
    fault("turn", "error_without_its_type", "Answers a tool's failure with its message only: the type (TimeoutError) is lost.",
          ('text, error = f"{type(exc).__name__}: {exc}", True', 'text, error = f"the tool failed: {exc}", True'),
          caught_by=TURN + "dispatch raises for some tools"),
    fault("turn", "python_str_of_result", "Sends str(result): a dict goes back as Python, not JSON.",
          ("    return result if isinstance(result, str) else json.dumps(result)", "    return str(result)"),
          caught_by=TURN + "A turn of valid calls"),
    fault("turn", "json_encodes_text_results", "JSON-encodes every result: a string result goes back quoted.",
          ("    return result if isinstance(result, str) else json.dumps(result)", "    return json.dumps(result)"),
          caught_by=TURN + "Tools that return text"),
    fault("turn", "no_idempotency_record", "Never looks at done: a replayed turn runs every tool again.",
          ("        if call_id in done:\n", "        if False:\n"),
          caught_by=TURN + "The same turn answered twice"),
    fault("turn", "keys_by_content", "Keys done by the call's name and arguments: the same tool asked twice runs once.",
          ("        if call_id in done:\n            answers.append(done[call_id])\n",
           "        key = json.dumps(tool_call.get(\"function\") or [tool_call.get(\"name\"), tool_call.get(\"input\")], sort_keys=True)\n"
           "        if key in done:\n            answers.append(done[key])\n"),
          ("            done[call_id] = answer", "            done[key] = answer"),
          caught_by=TURN + "A turn of valid calls"),
    fault("turn", "forgets_failed_calls", "Records only calls that succeeded: a timed-out call runs again on a replay.",
          ("        if ran:\n            done[call_id] = answer", "        if ran and not error:\n            done[call_id] = answer"),
          caught_by=TURN + "The same turn answered twice"),
    fault("turn", "null_tool_calls_crash", "Reads message.get(\"tool_calls\", []): OpenAI's tool_calls null raises TypeError.",
          ('message.get("tool_calls") or []', 'message.get("tool_calls", [])'),
          caught_by=TURN + "A final answer"),
    fault("turn", "empty_user_message", "Sends a user message with no content for a turn without tool calls.",
          ('        return [{"role": "user", "content": answers}] if answers else []',
           '        return [{"role": "user", "content": answers}]'),
          caught_by=TURN + "A final answer"),
]

# Notebook 7b: a streamed turn (issue 27).
STREAM = "A streamed turn: "
STEP_FAULTS += [
    fault("stream", "keyed_by_index_only", "Joins pieces by index alone: two calls at index 0 (Ollama) become one.",
          ('        if call is None or (piece.get("id") and call["id"] and piece["id"] != call["id"]):',
           "        if call is None:"),
          caught_by=STREAM + "Servers behind OpenAI-compatible APIs"),
    fault("stream", "joined_by_arrival", "Adds each piece to the last call started: interleaved calls mix their arguments.",
          ('call = at.get(index) if index is not None else (calls[-1] if calls else None)',
           'call = calls[-1] if calls and not piece.get("id") else None'),
          caught_by=STREAM + "A streamed turn becomes exactly"),
    fault("stream", "normalises_arguments", "Parses the joined arguments and writes them again: the model's spacing is lost.",
          ('    if calls:\n        message["tool_calls"] = calls',
           '    for call in calls:\n        try:\n            call["function"]["arguments"] = __import__("json").dumps(__import__("json").loads(call["function"]["arguments"]))\n'
           '        except ValueError:\n            pass\n    if calls:\n        message["tool_calls"] = calls'),
          caught_by=STREAM + "Arguments that are not valid JSON once joined"),
    fault("stream", "answers_a_cut_stream", "Answers a stream cut at max_tokens (only a missing finish_reason gives None).",
          ('    if finish not in ("stop", "tool_calls"):', "    if finish is None:"),
          caught_by=STREAM + "The stream ended without"),
    fault("stream", "first_choice_by_position", "Reads chunk[\"choices\"][0]: the usage chunk at the end has no choices.",
          ('        for choice in chunk.get("choices") or []:', '        for choice in [chunk["choices"][0]]:'),
          caught_by=STREAM + "A streamed turn becomes exactly"),
    fault("stream", "always_a_tool_calls_list", "Always sends a tool_calls list, empty for a final answer.",
          ('    if calls:\n        message["tool_calls"] = calls', '    message["tool_calls"] = calls'),
          caught_by=STREAM + "A final answer streamed in pieces"),
    fault("stream", "null_arguments_crash", "Adds arguments whenever the key is there: a first piece's null raises TypeError.",
          ('                if isinstance(function.get("arguments"), str):', '                if "arguments" in function:'),
          caught_by=STREAM + "A streamed turn becomes exactly"),
    fault("stream", "empty_content_string", "Sends content \"\" when nothing was said (None is what the API sends).",
          ('"content": "".join(content) or None}', '"content": "".join(content)}'),
          caught_by=STREAM + "A final answer streamed in pieces"),
]

# Notebook 8: the agent loop (issue 27).
LOOP = "The agent loop: "
STEP_FAULTS += [
    fault("loop", "no_reset_on_success", "Never starts a tool's count again: failures add up across successes.",
          ('failures[name] = failures.get(name, 0) + 1 if error else 0',
           'failures[name] = failures.get(name, 0) + (1 if error else 0)'),
          caught_by=LOOP + "One tool fails again and again"),
    fault("loop", "counts_per_turn_only", "Counts failures within one turn only (notebook 4's bound): a tool fails forever.",
          ("        again, worn, now = [], [], set()\n", "        failures = {}\n        again, worn, now = [], [], set()\n"),
          caught_by=LOOP + "One tool fails again and again"),
    fault("loop", "one_count_for_all_tools", "Counts every tool's failures together: a failure of one tool stops another.",
          ('failures[name] = failures.get(name, 0) + 1 if error else 0',
           'failures["all"] = failures.get("all", 0) + 1 if error else 0'),
          ('            if failures[name] >= limits["tool_failures"]:\n                worn.append(name)',
           '            if failures["all"] >= limits["tool_failures"]:\n                worn.append(name)'),
          caught_by=LOOP + "One tool fails again and again"),
    fault("loop", "no_progress_unseen", "Never notices the same refused call again: it spends the tool's whole budget.",
          ('                if entry["raw"] in refused:\n                    again.append(name)\n', ''),
          caught_by=LOOP + "The model repeats a refused call unchanged"),
    fault("loop", "no_progress_by_tool", "Calls any refused call to a tool refused before no progress, changed or not.",
          ('                if entry["raw"] in refused:', '                if name in refused:'),
          ('                now.add(entry["raw"])', '                now.add(name)'),
          caught_by=LOOP + "One tool fails again and again"),
    fault("loop", "one_turn_too_many", "Stops after max_turns + 1 replies (> instead of >=).",
          ('        if turns >= limits["max_turns"]:', '        if turns > limits["max_turns"]:'),
          caught_by=LOOP + "A model that never stops calling tools"),
    fault("loop", "last_turn_unanswered", "Stops at max_turns before answering the last reply's calls.",
          ("        again, worn, now = [], [], set()\n",
           '        if turns >= limits["max_turns"]:\n            return stop("max_turns")\n        again, worn, now = [], [], set()\n'),
          caught_by=LOOP + "A model that never stops calling tools"),
    fault("loop", "constant_backoff", "Waits the same time before every retry: no exponential backoff.",
          ('            sleep(limits["backoff"] * 2 ** attempt)', '            sleep(limits["backoff"])'),
          caught_by=LOOP + "The model's client times out"),
    fault("loop", "waits_after_the_last_try", "Waits after the last failed try too, when no retry follows.",
          ('            if attempt == limits["model_retries"]:\n                return None, "model_unavailable"\n'
           '            sleep(limits["backoff"] * 2 ** attempt)\n',
           '            sleep(limits["backoff"] * 2 ** attempt)\n            if attempt == limits["model_retries"]:\n'
           '                return None, "model_unavailable"\n'),
          caught_by=LOOP + "The model's client times out"),
    fault("loop", "retries_every_model_error", "Retries any exception from the model, a refused request too.",
          ("        except (TimeoutError, ConnectionError):", "        except Exception:"),
          caught_by=LOOP + "The model's client raises an error a retry cannot cure"),
    fault("loop", "model_error_escapes", "Lets a model error that is not transient raise out of run_agent.",
          ('        except Exception:\n            return None, "model_error"\n', ''),
          caught_by=LOOP + "The model's client raises an error a retry cannot cure"),
    fault("loop", "gives_up_at_first_refusal", "Stops the run at a tool's first failure.",
          ('            if failures[name] >= limits["tool_failures"]:\n', '            if failures[name] >= 1:\n'),
          caught_by=LOOP + "A run the model finishes"),
    fault("loop", "hands_over_the_last_messages", "Hands the model only the last three messages, not the conversation.",
          ("        reply, reason = _ask(model, messages, limits, sleep)", "        reply, reason = _ask(model, messages[-3:], limits, sleep)"),
          caught_by=LOOP + "A run the model finishes"),
    fault("loop", "python_str_of_result", "Sends str(result): a dict goes back as Python, not JSON.",
          ("result if isinstance(result, str) else json.dumps(result)", "str(result)"),
          caught_by=LOOP + "A run the model finishes"),
    fault("loop", "error_without_its_type", "Answers a tool's failure with its message only: the type (TimeoutError) is lost.",
          ("failed: {type(exc).__name__}: {exc}", "failed: {exc}"),
          caught_by=LOOP + "One tool fails again and again"),
]

# Notebook 9: validation is not authorisation (issue 27).
PATHS = "A file tool confined to one folder: "
STEP_FAULTS += [
    fault("authorise", "prefix_by_startswith", "Checks the real path with startswith: a sibling folder whose name starts alike passes.",
          ("    if os.path.commonpath([real, base]) != base:", "    if not real.startswith(base):"),
          caught_by=PATHS + "A path that leads out of the folder"),
    fault("authorise", "normpath_not_realpath", "Resolves .. with normpath but never reads links.",
          ("        real = os.path.realpath(os.path.join(base, path))", "        real = os.path.normpath(os.path.join(base, path))"),
          caught_by=PATHS + "A link inside the folder that points outside it"),
    fault("authorise", "refuses_any_dot_dot", "Refuses every path that holds \"..\", even one that stays inside.",
          ("    base = os.path.realpath(root)", "    if \"..\" in path:\n        return None, \"no .. allowed\"\n    base = os.path.realpath(root)"),
          caught_by=PATHS + "A path that stays inside"),
    fault("authorise", "returns_the_path_as_sent", "Returns the path as the model sent it instead of the real path.",
          ("    return real, None", "    return path, None"),
          caught_by=PATHS + "A path that stays inside"),
    fault("authorise", "crashes_on_no_string", "Never checks the value: None raises TypeError, a NUL byte ValueError.",
          ("    if not isinstance(path, str) or not path or \"\\x00\" in path:\n        return None, \"the path must be a non-empty string without NUL\"\n", ""),
          caught_by=PATHS + "Values a model sends where a path is declared"),
    fault("authorise", "refuses_links_that_stay_inside", "Refuses every symbolic link, even one inside the folder.",
          ("    base = os.path.realpath(root)", "    if os.path.islink(os.path.join(root, path)):\n        return None, \"links are not allowed\"\n    base = os.path.realpath(root)"),
          caught_by=PATHS + "A path that stays inside"),
    fault("authorise", "surrogate_escapes", "Never expects realpath to fail: a lone surrogate raises UnicodeEncodeError.",
          ("    try:\n        real = os.path.realpath(os.path.join(base, path))\n    except ValueError:\n"
           "        return None, \"the file name holds a character no file name can have\"\n",
           "    real = os.path.realpath(os.path.join(base, path))\n"),
          caught_by=PATHS + "Values a model sends where a path is declared"),
    fault("authorise", "normpath_first", "Tidies the path with normpath before realpath: link/.. is cancelled as text, not where the link leads.",
          ("        real = os.path.realpath(os.path.join(base, path))", "        real = os.path.realpath(os.path.normpath(os.path.join(base, path)))"),
          caught_by=PATHS + "A link inside the folder that points outside it"),
    fault("authorise", "dangling_link_allowed", "Resolves only paths that exist, else the parent: a link to a file not made yet leads out on write.",
          ("        real = os.path.realpath(os.path.join(base, path))",
           "        full = os.path.join(base, path)\n        real = os.path.realpath(full) if os.path.exists(full) else "
           "os.path.join(os.path.realpath(os.path.dirname(full)), os.path.basename(full))"),
          caught_by=PATHS + "A link inside the folder that points outside it"),
    fault("authorise", "reason_names_the_target", "Tells the model where the path really led, outside the folder.",
          ('        return None, "the path leads outside the allowed folder"',
           '        return None, f"the path leads to {real}, outside the allowed folder"'),
          caught_by=PATHS + "A path that leads out of the folder"),
    fault("authorise", "root_not_resolved", "Resolves the path but not the folder: on a folder reached through a link every path is outside.",
          ("    base = os.path.realpath(root)", "    base = os.path.abspath(root)"),
          caught_by=PATHS + "The allowed folder itself is handed over"),
]

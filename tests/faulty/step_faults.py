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


def observe(call, problems, tools):
    if not problems:
        return None
    lines = [" ".join(str(p).split()) for p in problems]
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
KNOWN = {"type", "properties", "required", "additionalProperties", "enum", "items", "anyOf", "$ref", "$defs",
         "description", "title", "default", "examples", "$comment"}


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
    unknown = set(schema) - KNOWN
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
    if "anyOf" in schema and not any(validate_arguments(arguments, o, path, root) == [] for o in schema["anyOf"]):
        problems.append(f"{path} matches none of the allowed shapes")
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


def raw_call_from_openai(tool_call):
    function = _get(tool_call, "function")
    arguments = _get(function, "arguments")
    try:
        arguments = json.loads(arguments, object_pairs_hook=_strict, parse_float=_finite, parse_constant=_finite)
    except ValueError:
        pass
    return json.dumps({"name": _get(function, "name"), "arguments": arguments})


def raw_call_from_anthropic(block):
    return json.dumps({"name": _get(block, "name"), "arguments": _get(block, "input")})
''',
}


@dataclass(frozen=True)
class StepFault:
    """One faulty step solution: ``BASES[exercise]`` with ``edits`` applied; it must lose points."""

    exercise: str
    name: str
    why: str
    edits: tuple


def fault(exercise, name, why, *edits):
    return StepFault(exercise, name, why, tuple(edits))


STEP_FAULTS = [
    fault("tool-result", "string_is_error", "Sends is_error as the string \"true\".",
          ('"is_error": True', '"is_error": "true"')),
    fault("tool-result", "extra_key", "Adds a key the API does not define.",
          ('"is_error": True}', '"is_error": True, "status": "error"}')),
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
    fault("retry-loop", "crashes_when_the_model_fails", "Lets an exception from ask_model escape.",
          ("    try:\n        retry = ask_model(observation)\n    except Exception as exc:\n", "    retry = ask_model(observation)\n    if False:\n        exc = None\n")),
    fault("json-schema", "ignores_unknown_keywords", "Silently ignores keywords it cannot check.",
          ("    if unknown:\n", "    if False:\n")),
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
          ('"arguments": _get(block, "input")', '"arguments": json.dumps(_get(block, "input"))')),
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
]

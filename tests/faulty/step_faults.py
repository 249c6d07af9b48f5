"""Faulty solutions for the step exercises (notebooks 0-4 and 6): a compact correct base per exercise,
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


def _pairs(pairs):
    keys = [key for key, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("a key appears twice (duplicate key)")
    return dict(pairs)


def _constant(name):
    raise ValueError(f"{name} is not valid JSON")


def parse_call(raw):
    if not isinstance(raw, str):
        return None, ["the call must be a string holding a JSON object"]
    try:
        call = json.loads(raw, object_pairs_hook=_pairs, parse_constant=_constant)
    except (ValueError, RecursionError) as exc:
        return None, [f"the call is not valid JSON: {str(exc)[:100]}"]
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
import json


def _type_ok(value, declared):
    if declared is float:
        return type(value) in (int, float)
    return type(value) is declared


def _short(value):
    if isinstance(value, (dict, list)):
        return f"a {type(value).__name__} of {len(value)} items"
    return json.dumps(value)[:40]


def observe(raw, tools):
    try:
        call = json.loads(raw)
    except (ValueError, RecursionError, TypeError) as exc:
        return f"The call is not valid JSON: {str(exc)[:100]}"
    if not isinstance(call, dict):
        return "The call must be a JSON object."
    problems = []
    name, args = call.get("name"), call.get("arguments")
    args = {} if args is None else args
    spec = tools.get(name) if isinstance(name, str) else None
    if spec is None:
        problems.append(f"unknown tool {_short(name)}; registered tools: {', '.join(tools)}")
    if not isinstance(args, dict):
        problems.append("arguments must be a JSON object")
    elif spec:
        declared = {**spec["required"], **spec["optional"]}
        problems += [f"missing required argument {f}" for f in spec["required"] if f not in args]
        for field, value in args.items():
            if field not in declared:
                problems.append(f"unknown argument {_short(field)}; allowed: {', '.join(declared)}")
            elif not _type_ok(value, declared[field]):
                problems.append(f"argument {field} must be a {declared[field].__name__}, got {_short(value)}")
    if not problems:
        return None
    text = "Tool call rejected:\\n- " + "\\n- ".join(problems)
    return text if len(text) <= 2000 else text[:1980] + " (truncated)"
''',
    "json-schema": '''
TYPES = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,), "array": (list,),
         "object": (dict,), "null": (type(None),)}
KNOWN = {"type", "properties", "required", "additionalProperties", "enum", "items", "description", "title", "default",
         "examples", "$comment"}


def _is(value, name):
    return type(value) in TYPES.get(name, ())


def validate_arguments(arguments, schema, path="arguments"):
    problems = []
    unknown = set(schema) - KNOWN
    if unknown:
        return [f"{path}: unsupported schema keywords {sorted(unknown)}"]
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(arguments, n) for n in names):
            return [f"{path} must be {' or '.join(names)}"]
    if "enum" in schema and not any(type(arguments) is type(o) and arguments == o for o in schema["enum"]):
        problems.append(f"{path} must be one of {schema['enum']}")
    if isinstance(arguments, dict):
        props = schema.get("properties", {})
        problems += [f"{path}.{f} is missing" for f in schema.get("required", []) if f not in arguments]
        extra = schema.get("additionalProperties", True)
        for field, value in arguments.items():
            if field in props:
                problems += validate_arguments(value, props[field], f"{path}.{field}")
            elif extra is False:
                problems.append(f"{path}.{field} is not declared")
            elif isinstance(extra, dict):
                problems += validate_arguments(value, extra, f"{path}.{field}")
    if isinstance(arguments, list) and "items" in schema:
        for index, item in enumerate(arguments):
            problems += validate_arguments(item, schema["items"], f"{path}[{index}]")
    return problems
''',
    "adapters": '''
import json


def raw_call_from_openai(tool_call):
    function = tool_call["function"]
    arguments = function["arguments"]
    try:
        arguments = json.loads(arguments)
    except ValueError:
        pass
    return json.dumps({"name": function["name"], "arguments": arguments})


def raw_call_from_anthropic(block):
    return json.dumps({"name": block["name"], "arguments": block["input"]})
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
    fault("observe", "unbounded", "Never truncates the observation.",
          ('    return text if len(text) <= 2000 else text[:1980] + " (truncated)"', "    return text")),
    fault("observe", "no_allowed_fields", "Names the extra field but not the allowed ones.",
          ("; allowed: {', '.join(declared)}", "")),
    fault("observe", "empty_string_for_valid", "Returns \"\" instead of None for a valid call.",
          ("    if not problems:\n        return None", "    if not problems:\n        return \"\"")),
    fault("observe", "no_registered_tools", "Does not list the registered tools for an unknown name.",
          ("; registered tools: {', '.join(tools)}", "")),
    fault("json-schema", "ignores_unknown_keywords", "Silently ignores keywords it cannot check.",
          ("    if unknown:\n", "    if False:\n")),
    fault("json-schema", "shallow", "Does not recurse into nested properties.",
          ("                problems += validate_arguments(value, props[field], f\"{path}.{field}\")",
           "                problems += [] if isinstance(value, (dict, list)) else validate_arguments(value, props[field], f\"{path}.{field}\")")),
    fault("json-schema", "bool_is_number", "Lets True pass as an integer or number.",
          ("    return type(value) in TYPES.get(name, ())", "    return isinstance(value, TYPES.get(name, ()))")),
    fault("json-schema", "no_items", "Never checks array items.",
          ('    if isinstance(arguments, list) and "items" in schema:', "    if False:")),
    fault("adapters", "repairs_quotes", "Repairs invalid JSON by swapping quotes.",
          ("    except ValueError:\n        pass", "    except ValueError:\n        arguments = arguments.replace(\"'\", '\"')")),
    fault("adapters", "double_encodes_input", "Encodes Anthropic's input as a JSON string.",
          ('"arguments": block["input"]', '"arguments": json.dumps(block["input"])')),
    fault("adapters", "empty_dict_on_failure", "Replaces undecodable arguments with {} (drops the model's mistake).",
          ("    except ValueError:\n        pass", "    except ValueError:\n        arguments = {}")),
]

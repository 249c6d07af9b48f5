"""Real tools' schemas as test data (issue 26): the reference's verdicts against the ``jsonschema`` package (as
``tests/schema_judge.py`` corrects and reads it) and, for pydantic's schemas, against pydantic's strict validation
of the same JSON.

For each schema of ``tests/schema_corpus.py`` a seeded generator (same inputs on every run) writes instances that
follow the schema, then mutates them one step (a field dropped or added, a type changed, a newline after a string,
a number moved off its step, ...). Every verdict must agree with both judges, except where pydantic differs from
the schema it publishes; each such difference is listed once, in ``PYDANTIC_DIFFERENCES``, with why.
"""

import copy
import json
import random
from decimal import Decimal

import pydantic
import pytest

import schema_corpus
from schema_judge import Judge, judge_says_valid, to_2020_12, uses_only_supported_keywords
from solutions import validate_arguments
from solutions.json_schema import _resolve

INSTANCES_PER_SCHEMA = 120
WORDS = ["Paris", "", "a", "weather in Paris", "x" * 30, "line\nbreak", "2024-05-01", "2024-05-01T10:00:00Z",
         "https://example.org", "b@x.io", "12", "true"]
SCHEMAS = {name: model.model_json_schema() for name, model in schema_corpus.PYDANTIC.items()}
SCHEMAS.update({name: schema for name, (_, schema) in schema_corpus.PUBLISHED.items()})


def _number(schema, rnd, integer):
    low = schema.get("minimum", schema.get("exclusiveMinimum", -20))
    high = schema.get("maximum", schema.get("exclusiveMaximum", 120))
    step = schema.get("multipleOf", 1 if integer else rnd.choice([1, 0.5, 0.25]))
    decimal_step = Decimal(repr(step)) if isinstance(step, float) else Decimal(step)
    count = rnd.randint(int(Decimal(repr(low)) / decimal_step), int(Decimal(repr(high)) / decimal_step))
    value = Decimal(count) * decimal_step
    value = max(min(value, Decimal(repr(high))), Decimal(repr(low)))
    return int(value) if integer else float(value)


def _string(schema, rnd):
    if "pattern" in schema:
        return rnd.choice(schema_corpus.PATTERN_EXAMPLES[schema["pattern"]][:2])
    if "examples" in schema and rnd.random() < 0.5:
        return rnd.choice(schema["examples"])
    text = rnd.choice(WORDS)
    text = text[:schema.get("maxLength", len(text))]
    return text.ljust(schema.get("minLength", 0), "z")


def make(schema, root, rnd, depth=0):
    """A value that follows ``schema`` (usually valid: the generator knows the corpus's keywords, not all)."""
    if schema is True or not isinstance(schema, dict) or not schema:
        return rnd.choice([1, "x", None, [1], {"k": 1}])
    if "$ref" in schema:
        return make(_resolve(root, schema["$ref"]), root, rnd, depth + 1)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return rnd.choice(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = schema[key]
            if depth > 6:  # stop a recursive model: the null or the simplest option
                options = [o for o in options if o.get("type") == "null"] or options[-1:]
            return make(rnd.choice(options), root, rnd, depth + 1)
    if schema.get("nullable") and rnd.random() < 0.25:
        return None
    kinds = schema.get("type", "object")
    kind = rnd.choice(kinds) if isinstance(kinds, list) else kinds
    if kind == "string":
        return _string(schema, rnd)
    if kind in ("integer", "number"):
        return _number(schema, rnd, kind == "integer")
    if kind == "boolean":
        return rnd.choice([True, False])
    if kind == "null":
        return None
    if kind == "array":
        prefix = schema["items"] if isinstance(schema.get("items"), list) else schema.get("prefixItems", [])
        rest = schema.get("additionalItems") if isinstance(schema.get("items"), list) else schema.get("items", {})
        value = [make(item, root, rnd, depth + 1) for item in prefix]
        least, most = schema.get("minItems", 0), schema.get("maxItems", len(prefix) + 3)
        room = 0 if depth > 6 or rest is False else rnd.randint(max(0, least - len(value)), max(0, most - len(value)))
        value += [make(rest, root, rnd, depth + 1) for _ in range(room)]
        if schema.get("uniqueItems"):
            value = [item for index, item in enumerate(value) if item not in value[:index]]
        return value
    properties = schema.get("properties", {})
    value = {}
    for field, sub in properties.items():
        if field in schema.get("required", []) or (depth <= 6 and rnd.random() < 0.5):
            value[field] = make(sub, root, rnd, depth + 1)
    names = schema.get("propertyNames", {}).get("enum")
    for pattern, sub in schema.get("patternProperties", {}).items():
        if rnd.random() < 0.6:
            value[rnd.choice(schema_corpus.PATTERN_EXAMPLES[pattern][:2])] = make(sub, root, rnd, depth + 1)
    extra = schema.get("additionalProperties", True)
    if isinstance(extra, dict) and depth <= 6:
        for key in rnd.sample(names, rnd.randint(0, len(names))) if names else ["k", "n"][:rnd.randint(0, 2)]:
            value[key] = make(extra, root, rnd, depth + 1)
    return value


def _places(value, path=()):
    """Every (path, value) inside ``value``, the whole value first."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _places(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _places(item, path + (index,))


def _replace(value, path, new):
    if not path:
        return new
    value = copy.deepcopy(value)
    parent = value
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = new
    return value


def mutate(value, rnd):
    """``value`` changed one step, as a model gets a call wrong."""
    path, here = rnd.choice(list(_places(value)))
    if isinstance(here, dict) and here and rnd.random() < 0.4:
        here = dict(here)
        here.pop(rnd.choice(list(here)))
        return _replace(value, path, here)
    if isinstance(here, dict) and rnd.random() < 0.3:
        return _replace(value, path, {**here, rnd.choice(["zzz", "a.b", "x-extra", "music"]): rnd.choice([1, "v"])})
    if isinstance(here, list) and here and rnd.random() < 0.5:
        return _replace(value, path, here + [here[0]])
    if isinstance(here, str):
        return _replace(value, path, rnd.choice([here + "\n", "", here.upper(), "\u0661\u0662\u0663\u0664\u0665", 5]))
    if type(here) in (int, float):
        return _replace(value, path, rnd.choice([here + 0.5, -here - 1, float(here), here * 3, str(here), 1e9, 0.3]))
    return _replace(value, path, rnd.choice([None, "text", 0, True, [], {}]))


def instances(name):
    rnd = random.Random(f"corpus:{name}")  # the same instances on every run and every Python
    schema = SCHEMAS[name]
    out = []
    for index in range(INSTANCES_PER_SCHEMA):
        value = make(schema, schema, rnd)
        out.append(value if index % 3 == 0 else mutate(value, rnd))
    return out


def kit_valid(value, schema):
    return validate_arguments(value, schema) == []


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_corpus_schema_is_read_not_refused(name):
    """Each schema uses only what the kit checks or ignores, so calls to its tool are judged, not refused."""
    schema = SCHEMAS[name]
    assert uses_only_supported_keywords(schema), name
    assert not any("schema" in str(problem) for problem in validate_arguments({}, schema))


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_the_kit_agrees_with_the_jsonschema_judge(name):
    schema = SCHEMAS[name]
    values = instances(name)
    verdicts = [kit_valid(value, schema) for value in values]
    assert True in verdicts and False in verdicts, f"{name}: the generator must give valid and invalid instances"
    for value, verdict in zip(values, verdicts):
        assert verdict is judge_says_valid(value, schema), (name, value, [str(p) for p in validate_arguments(value, schema)])


# Where pydantic's strict validation of JSON differs from the schema pydantic itself publishes. The kit follows the
# schema (the model sees the schema, not the Python type); each difference is one rule, stated once.
PYDANTIC_DIFFERENCES = {
    "format": "pydantic parses date-time and date strings; the schema's format is an annotation the kit ignores",
    "set": "pydantic turns [1, 1] into {1} for a set; the schema says uniqueItems, so the kit refuses it",
    "key-pattern": "pydantic checks every key of a dict against its key pattern; the schema it writes, "
                   "patternProperties, constrains only the keys that match, so the kit takes any other key",
}


def _pydantic_valid(model, value):
    try:
        model.model_validate_json(json.dumps(value), strict=True)
    except pydantic.ValidationError as error:
        return False, error.errors()
    return True, []


def _difference(model, value, pydantic_valid, errors):
    """The key of ``PYDANTIC_DIFFERENCES`` that explains a disagreement, or None."""
    schema = model.model_json_schema()
    if not pydantic_valid and errors and all(
            error["type"].startswith(("datetime_", "date_")) for error in errors):
        return "format"
    fields = schema.get("properties", {})
    if not pydantic_valid and errors and all(
            len(error["loc"]) >= 2 and "patternProperties" in fields.get(error["loc"][0], {})
            and "additionalProperties" not in fields[error["loc"][0]] for error in errors):
        return "key-pattern"
    if pydantic_valid:
        problems = [str(p) for p in validate_arguments(value, schema)]
        if problems and all("repeats an earlier one" in problem for problem in problems):
            return "set"
    return None


@pytest.mark.parametrize("name", sorted(schema_corpus.PYDANTIC))
def test_the_kit_agrees_with_pydantic_strict_but_for_the_listed_differences(name):
    model = schema_corpus.PYDANTIC[name]
    schema = model.model_json_schema()
    seen = set()
    for value in instances(name):
        verdict = kit_valid(value, schema)
        pydantic_valid, errors = _pydantic_valid(model, value)
        if verdict is pydantic_valid:
            continue
        reason = _difference(model, value, pydantic_valid, errors)
        assert reason is not None, (name, value, verdict, errors, [str(p) for p in validate_arguments(value, schema)])
        seen.add(reason)
    if name == "Dates":
        assert "format" in seen  # the difference is real, and this corpus meets it
    if name == "Collections":
        assert "set" in seen
    if name == "Dicts":
        assert "key-pattern" in seen


def test_the_judge_sees_the_corpus_as_the_kit_documents():
    """The corrected judge, not the plain package, is what agrees: the two places it is corrected matter here."""
    schema = SCHEMAS["openai-user-pattern"]
    value = {"name": "Bob", "username": "@bob\n", "email": "b@x.io"}
    assert not kit_valid(value, schema) and not Judge(to_2020_12(schema)).is_valid(value)
    assert not kit_valid({"value": 0.35}, SCHEMAS["openai-number-bounds"])
    assert kit_valid({"value": 0.3}, SCHEMAS["openai-number-bounds"])

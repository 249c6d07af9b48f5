"""The jsonschema package as the judge of the kit's JSON Schema validator (issues 10 and 26).

Every JSON Schema case of the kit (hidden and visible) and a few hundred generated schema/instance
pairs go through both ``solutions.validate_arguments`` and ``jsonschema.Draft202012Validator``, the
reference implementation of JSON Schema; the valid/invalid verdicts must agree. Differences, each
stated once here:

1. ``1.0`` is not an integer (JSON Schema says it is; Python would hand the tool a float): the kit's own.
2. Where the ``jsonschema`` package itself departs from the specification, the judge is corrected, not the
   kit: ``pattern`` is matched by an ECMA-262 engine (the ``regress`` package; ``jsonschema`` uses Python's
   ``re``, whose ``$`` also matches before a final newline), and ``multipleOf`` is judged in decimal
   (``jsonschema`` divides binary floats and refuses 0.3 for 0.1).
3. Schemas are read as the kit documents: OpenAPI's ``nullable: true`` as "or null", draft-07's array form
   of ``items`` (with ``additionalItems``) as ``prefixItems`` (``to_2020_12`` rewrites them for the judge).
4. A schema using a keyword the kit does not support is refused, whatever the value: such schemas
   are only checked to be refused, never compared.

A bool is never a number: that is the specification's own rule, and the judge keeps it.
Hypothesis generates the pairs (hypothesis-jsonschema was tried and fails with current hypothesis,
so instances are drawn from a small generator below, mixed with arbitrary JSON).
"""

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

import case_modules
from grader.judging import visible_cases
from schema_judge import Judge, assert_same_verdict, to_2020_12
from solutions import validate_arguments
from grader.paths import KIT_ROOT

ROOT = KIT_ROOT  # the repository (grader.paths knows where it is)

def _load_cases():
    module = case_modules.load("json_schema/test_validate_arguments.py")
    pairs = [(value, module.WEATHER) for value in module.VALID.values()]
    pairs += [(value, module.WEATHER) for value, _ in module.INVALID.values()]
    pairs += [(module.with_word(value, "anything"), module.with_word(schema, "anything"))
              for value, schema in module.UNSUPPORTED.values()]
    pairs += [(value, schema) for value, schema in module.MALFORMED.values()]
    pairs += list(module.JSON_EQUAL.values()) + list(module.JSON_UNEQUAL.values()) + list(module.REAL_VALID.values())
    pairs += [(value, schema) for value, schema, _ in module.REAL_INVALID.values()]
    pairs += [({"a": "x", "b": "y"}, {"type": "object", "additionalProperties": {"type": "string"}}),
              ({"a": "x", "b": 2}, {"type": "object", "additionalProperties": {"type": "string"}}),
              ({"days": "3", "country": "FR", "location": {"lat": 1}}, module.WEATHER)]
    pairs += [case.args for case in visible_cases.JSON_SCHEMA_CASES]
    return pairs


KIT_CASES = _load_cases()


@pytest.mark.parametrize("value, schema", KIT_CASES, ids=[f"case-{i}" for i in range(len(KIT_CASES))])
def test_every_kit_case_agrees_with_the_judge(value, schema):
    assert_same_verdict(value, schema)


def test_the_differences_are_real():
    """Each difference exists (plain Draft202012Validator disagrees), and the kit keeps its side of it."""
    assert Draft202012Validator({"type": "integer"}).is_valid(1.0)
    assert validate_arguments(1.0, {"type": "integer"}) != []
    assert not Draft202012Validator({"type": "number"}).is_valid(True)  # the specification's own rule
    assert validate_arguments(True, {"type": "number"}) != []
    assert Draft202012Validator({"pattern": "^a$"}).is_valid("a\n")
    assert validate_arguments("a\n", {"pattern": "^a$"}) != [] and not Judge({"pattern": "^a$"}).is_valid("a\n")
    assert not Draft202012Validator({"multipleOf": 0.1}).is_valid(0.3)
    assert validate_arguments(0.3, {"multipleOf": 0.1}) == [] and Judge({"multipleOf": 0.1}).is_valid(0.3)
    assert validate_arguments(None, {"type": "string", "nullable": True}) == []
    assert Judge(to_2020_12({"type": "string", "nullable": True})).is_valid(None)


# -- generated pairs --------------------------------------------------------------------------------------

JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-20, 20), st.floats(-20, 20, allow_nan=False),
                         st.sampled_from([0.5, 1.0, 2.0, -0.0, 1e308, 10**20]), st.text(max_size=6))
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                                st.dictionaries(st.sampled_from("abcxy"), inner, max_size=4)),
                           max_leaves=8)
PATTERNS = ["^[a-z]+$", "\\d", "^x", "b$", "^.{2,3}$", "^\\d{2}$", "^\\w+$", "^a\\sb$", "^[^$]*$"]
NAMES = ["a", "b", "c", "x", "y"]


def leaf_schemas():
    number_bounds = st.fixed_dictionaries({}, optional={
        "minimum": st.integers(-5, 5), "maximum": st.integers(-5, 5), "exclusiveMinimum": st.integers(-5, 5),
        "exclusiveMaximum": st.sampled_from([-2, 0, 2.5, 10]),
        "multipleOf": st.sampled_from([1, 2, 0.5, 2.5, 0.1, 0.01, 0.3])})
    return st.one_of(
        st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", "number", "boolean", "null"])}),
        st.fixed_dictionaries({"type": st.just("string")}, optional={
            "minLength": st.integers(0, 3), "maxLength": st.integers(0, 4), "pattern": st.sampled_from(PATTERNS),
            "format": st.sampled_from(["date", "email"])}),
        number_bounds.map(lambda s: {"type": "number", **s}),
        number_bounds.map(lambda s: {"type": "integer", **s}),
        st.fixed_dictionaries({"enum": st.lists(JSON_VALUES, min_size=1, max_size=4)}),
        st.fixed_dictionaries({"const": JSON_VALUES}),
        st.fixed_dictionaries({"type": st.lists(st.sampled_from(["string", "integer", "number", "null", "boolean"]),
                                                min_size=1, max_size=3, unique=True)}),
        st.booleans(),
        st.just({"$ref": "#/$defs/Item"}),
        st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", "object"]), "nullable": st.booleans()}),
    )


def compound(inner):
    return st.one_of(
        st.fixed_dictionaries({"type": st.just("array"), "items": inner}, optional={
            "minItems": st.integers(0, 2), "maxItems": st.integers(0, 3), "uniqueItems": st.booleans(),
            "prefixItems": st.lists(inner, min_size=1, max_size=2)}),
        st.fixed_dictionaries({"type": st.just("object"), "properties": st.dictionaries(st.sampled_from(NAMES), inner, max_size=3)},
                              optional={"required": st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
                                        "additionalProperties": st.one_of(st.booleans(), inner)}),
        st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"allOf": st.lists(inner, min_size=1, max_size=2)}),
        st.tuples(inner, st.sampled_from([{"type": "null"}, {"type": "string"}])).map(lambda pair: {"anyOf": list(pair)}),
        # Issue 26: the keywords real generators emit beyond the first subset.
        st.fixed_dictionaries({"oneOf": st.lists(inner, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"not": inner}),
        st.fixed_dictionaries({"type": st.just("object")}, optional={
            "propertyNames": st.sampled_from([{"enum": ["a", "b"]}, {"pattern": "^[a-c]"}, {"maxLength": 1}]),
            "patternProperties": st.dictionaries(st.sampled_from(["^a", "b", "^[xy]"]), inner, max_size=2),
            "minProperties": st.integers(0, 2), "maxProperties": st.integers(0, 3),
            "additionalProperties": st.one_of(st.booleans(), inner)}),
        st.fixed_dictionaries({"type": st.just("array")}, optional={
            "contains": inner, "minContains": st.integers(0, 2), "maxContains": st.integers(0, 2)}),
        st.fixed_dictionaries({"type": st.just("array"), "items": st.lists(inner, min_size=1, max_size=2)},
                              optional={"additionalItems": inner}),
    )


SUBSCHEMAS = st.recursive(leaf_schemas(), compound, max_leaves=6)
SCHEMAS = st.builds(lambda body, item: {**body, "$defs": {"Item": item}} if isinstance(body, dict) else body,
                    SUBSCHEMAS, st.recursive(leaf_schemas().filter(lambda s: s != {"$ref": "#/$defs/Item"}), compound,
                                             max_leaves=3).filter(lambda s: "#/$defs/Item" not in repr(s)))


def instances(schema, root, depth=0):
    """Values shaped by ``schema`` (often valid, sometimes one step off), mixed with arbitrary JSON."""
    if depth > 4 or not isinstance(schema, dict):
        return JSON_VALUES
    options = [JSON_VALUES]
    if "$ref" in schema:
        options.append(instances(root["$defs"]["Item"], root, depth + 1))
    if "enum" in schema:
        options.append(st.sampled_from(schema["enum"]))
    if "const" in schema:
        options.append(st.just(schema["const"]))
    for key in ("anyOf", "allOf", "oneOf"):
        if key in schema:
            options += [instances(option, root, depth + 1) for option in schema[key]]
    if "contains" in schema:
        options.append(st.lists(instances(schema["contains"], root, depth + 1), max_size=3))
    kinds = schema.get("type") if isinstance(schema.get("type"), list) else [schema.get("type")]
    for kind in kinds:
        if kind == "string":
            options.append(st.from_regex(schema["pattern"]) if "pattern" in schema else st.text(max_size=5))
        elif kind in ("integer", "number"):
            options.append(st.integers(-12, 12))
            options.append(st.sampled_from([0.5, 2.5, 3.0, -0.0]))
        elif kind == "array":
            tuple_form = isinstance(schema.get("items"), list)
            prefix = [instances(s, root, depth + 1) for s in (schema["items"] if tuple_form else schema.get("prefixItems", []))]
            rest = schema.get("additionalItems", {}) if tuple_form else schema.get("items", {})
            options.append(st.tuples(*prefix, st.lists(instances(rest, root, depth + 1), max_size=3))
                           .map(lambda parts: [*parts[:-1], *parts[-1]]))
        elif kind == "object":
            properties = {name: instances(s, root, depth + 1) for name, s in schema.get("properties", {}).items()}
            options.append(st.fixed_dictionaries({}, optional=properties))
            options.append(st.fixed_dictionaries(properties, optional={"z": JSON_VALUES}))
            options.append(st.dictionaries(st.sampled_from(["a", "ab", "b", "xb", "y"]), JSON_VALUES, max_size=3))
    return st.one_of(*options)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data())
def test_generated_pairs_agree_with_the_judge(data):
    schema = data.draw(SCHEMAS, label="schema")
    value = data.draw(instances(schema, schema), label="value")
    assert_same_verdict(value, schema)


def test_hypothesis_keeps_its_examples_in_pytests_cache_not_the_work_tree(request):
    """Found by a contributor's trial: Hypothesis wrote its example database to ``.hypothesis/`` in the working
    folder, so every run left it in the work tree and the install tests' copies of the kit carried it."""
    from hypothesis.configuration import storage_directory
    from hypothesis.database import DirectoryBasedExampleDatabase

    home = os.path.realpath(storage_directory("constants", intent_to_write=False).path.parent)
    assert not (home + os.sep).startswith(os.path.realpath(ROOT) + os.sep)
    database = settings().database
    cache = getattr(request.config, "cache", None)
    if cache is None:  # -p no:cacheprovider: a temporary folder, no example database
        assert database is None
        return
    assert home == os.path.realpath(cache.mkdir("hypothesis"))
    assert isinstance(database, DirectoryBasedExampleDatabase)
    assert os.path.realpath(database.path) == os.path.join(home, "examples")

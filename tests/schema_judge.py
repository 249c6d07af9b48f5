"""The judge of the kit's JSON Schema validator: the ``jsonschema`` package, corrected where it departs from the
specification, and reading schemas as the kit documents (see ``tests/test_json_schema_judge.py`` for the list of
differences; ``tests/test_schema_corpus.py`` uses the same judge on real tools' schemas)."""

from decimal import Decimal, localcontext

import jsonschema
import regress
from referencing.exceptions import Unresolvable
from jsonschema import Draft202012Validator

from solutions import validate_arguments
from solutions.json_schema import SUPPORTED, is_annotation

# Difference 1, as the judge's type rules: integer is exactly int, number is int or float (never a bool).
KIT_TYPES = Draft202012Validator.TYPE_CHECKER.redefine_many({
    "integer": lambda checker, value: type(value) is int,
    "number": lambda checker, value: type(value) in (int, float),
})


def _ecma_search(pattern, text):
    return regress.Regex(pattern).find(text) is not None


def _pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, "string") and not _ecma_search(pattern, instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r} (ECMA-262)")


def _multiple_of(validator, step, instance, schema):
    if validator.is_type(instance, "number"):
        with localcontext() as context:
            context.prec = 1000  # exact for the numbers these tests use
            if Decimal(repr(instance)) % Decimal(repr(step)) != 0:
                yield jsonschema.ValidationError(f"{instance!r} is not a multiple of {step!r} (in decimal)")


Judge = jsonschema.validators.extend(Draft202012Validator, type_checker=KIT_TYPES,
                                     validators={"pattern": _pattern, "multipleOf": _multiple_of})

_SUBSCHEMA = ("items", "additionalProperties", "additionalItems", "propertyNames", "contains", "not")
_SUBSCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems", "items")
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")


def to_2020_12(schema):
    """Difference 3: ``schema`` with ``nullable: true`` as "null" added to ``type`` and array ``items`` as
    ``prefixItems``, at any depth (the judge knows only 2020-12)."""
    if isinstance(schema, list):
        return [to_2020_12(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in _SUBSCHEMA or key in _SUBSCHEMA_LISTS:
            out[key] = to_2020_12(value)
        elif key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: to_2020_12(sub) for name, sub in value.items()}
        else:
            out[key] = value
    if isinstance(out.get("items"), list):
        out["prefixItems"] = out.pop("items")
        if "additionalItems" in out:
            out["items"] = out.pop("additionalItems")
    if out.pop("nullable", None) is True and "type" in out:  # OpenAPI 3.0.3: null joins the type, nothing else
        names = out["type"] if isinstance(out["type"], list) else [out["type"]]
        out["type"] = names if "null" in names else [*names, "null"]
    return out


def uses_only_supported_keywords(schema):
    """False if any (sub)schema uses a keyword outside the kit's subset (difference 4)."""
    if isinstance(schema, list):
        return all(uses_only_supported_keywords(item) for item in schema)
    if not isinstance(schema, dict):
        return True
    for key, value in schema.items():
        if key not in SUPPORTED and not is_annotation(key):
            return False
        if key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            if not all(uses_only_supported_keywords(sub) for sub in value.values()):
                return False
        elif key in _SUBSCHEMA or key in _SUBSCHEMA_LISTS:
            if not uses_only_supported_keywords(value):
                return False
    return True


def judge_says_valid(value, schema):
    """The judge's verdict: None for a schema that is not valid JSON Schema 2020-12 (or whose $ref
    points nowhere), else True/False."""
    schema = to_2020_12(schema)
    try:
        Draft202012Validator.check_schema(schema)
        return Judge(schema).is_valid(value)
    except (jsonschema.SchemaError, Unresolvable, regress.RegressError):
        return None


def assert_same_verdict(value, schema):
    problems = validate_arguments(value, schema)
    verdict = judge_says_valid(value, schema)
    if verdict is None or not uses_only_supported_keywords(schema):
        assert problems, f"the kit accepted a value for a schema it should refuse: {schema!r}"
        return
    assert (problems == []) is verdict, (value, schema, [str(p) for p in problems])

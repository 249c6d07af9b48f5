"""Notebook 6a: validate_arguments checks JSON values against the JSON Schema subset this kit supports."""

import pytest

from grader.canaries import SCHEMA
from grader.expectations import expect_no_violations, expect_violations

GROUP = "validate_arguments"
ORDER = 1
FUNCTION = "validate_arguments"
RULE = ("A value is valid only if it satisfies every keyword of the schema: type, properties, required, "
        "additionalProperties, enum, items, at every depth; unsupported keywords are reported, never ignored.")

WEATHER = SCHEMA  # one schema for the cases and their canary, so the canary cannot be told apart


def check(harness, value, schema=WEATHER):
    return harness.call(value, schema, view="texts")


VALID = {
    "minimal": {"city": "Paris"},
    "all-fields": {"city": "Paris", "days": 3, "units": "metric", "tags": ["a", "b"], "location": {"lat": 48.8, "lon": 2},
                   "note": None},
    "empty-array": {"city": "Paris", "tags": []},
    "integer-as-number": {"city": "Paris", "location": {"lat": 48, "lon": 2}},
}


@pytest.mark.points(1)
@pytest.mark.gate("rejects")
@pytest.mark.rule(RULE)
@pytest.mark.parametrize("value", list(VALID.values()), ids=list(VALID))
def test_valid_value(harness, value):
    """A value that satisfies the schema has no violations.

    Why: an integer is a JSON Schema "number"; a list of types allows null; an empty array
    satisfies items. Rejecting these wastes retries.
    """
    expect_no_violations(check(harness, value), FUNCTION)


INVALID = {
    "missing-required": ({}, ["city"]),
    "wrong-type": ({"city": 7}, ["city"]),
    "bool-is-not-integer": ({"city": "P", "days": True}, ["days"]),
    "float-is-not-integer": ({"city": "P", "days": 3.0}, ["days"]),
    "enum": ({"city": "P", "units": "kelvin"}, ["units"]),
    "enum-exact-type": ({"city": "P", "units": 1}, ["units"]),
    "extra-top-level": ({"city": "P", "country": "FR"}, ["country"]),
    "array-item-type": ({"city": "P", "tags": ["a", 2]}, ["tags"]),
    "nested-missing": ({"city": "P", "location": {"lat": 1}}, ["lon"]),
    "nested-extra": ({"city": "P", "location": {"lat": 1, "lon": 2, "alt": 3}}, ["alt"]),
    "nested-wrong-type": ({"city": "P", "location": {"lat": "north", "lon": 2}}, ["lat"]),
    "not-an-object": ([{"city": "P"}], []),
    "null-where-not-allowed": ({"city": None}, ["city"]),
}


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(RULE)
@pytest.mark.parametrize("value, mentions", list(INVALID.values()), ids=list(INVALID))
def test_invalid_value(harness, value, mentions):
    """A value that breaks the schema has violations naming where.

    Why: nested objects and array items are where hand-written validators stop looking; enum needs
    exact types (1 == True in Python); JSON Schema calls 3.0 an integer but this runtime does not.
    """
    expect_violations(check(harness, value), mentions, "name the offending property.", FUNCTION)


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(RULE)
def test_every_violation_is_reported(harness):
    """Violations at several depths are all reported.

    Why: one retry must be able to fix them all, as with the seed's simple schema.
    """
    value = {"days": "3", "country": "FR", "location": {"lat": 1}}
    expect_violations(check(harness, value), ["city", "days", "country", "lon"],
                      "report the missing city, the mistyped days, the extra country and the missing lon.", FUNCTION)


@pytest.mark.points(1)
@pytest.mark.gate("accepts")
@pytest.mark.rule(RULE)
@pytest.mark.parametrize("schema", [{"type": "string", "pattern": "^[A-Z]"}, {"type": "object", "oneOf": []}],
                         ids=["pattern", "oneOf"])
def test_unsupported_keyword_is_reported(harness, schema):
    """A schema keyword the validator does not support is reported, not ignored.

    Why: silently skipping "pattern" lets through exactly the values the tool's author meant to forbid.
    """
    expect_violations(check(harness, "anything", schema), [], "", FUNCTION)


@pytest.mark.points(1)
@pytest.mark.rule("additionalProperties may itself be a schema that every undeclared property must satisfy.")
def test_additional_properties_schema(harness):
    """Undeclared properties are checked against an additionalProperties schema.

    Why: OpenAI and Anthropic accept maps such as {"type": "object", "additionalProperties": {"type": "string"}},
    but only outside strict mode: OpenAI's strict mode and Anthropic's strict tool use require
    additionalProperties: false.
    """
    schema = {"type": "object", "additionalProperties": {"type": "string"}}
    expect_no_violations(check(harness, {"a": "x", "b": "y"}, schema), FUNCTION)
    expect_violations(check(harness, {"a": "x", "b": 2}, schema), ["b"], "name the property with the wrong type.", FUNCTION)

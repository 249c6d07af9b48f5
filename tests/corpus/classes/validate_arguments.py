"""Exercise 6a: check tool arguments against a subset of JSON Schema, reporting every violation."""
from dataclasses import dataclass

ANNOTATION_KEYWORDS = {"description", "title", "default", "examples", "format", "contentEncoding", "contentMediaType",
                       "enumDescriptions", "markdownDescription"}
CHECKED_KEYWORDS = {"type", "properties", "required", "additionalProperties", "enum", "const",
                    "items", "anyOf", "$ref", "$defs"}
TYPE_NAMES = ("string", "integer", "number", "boolean", "array", "object", "null")


@dataclass(frozen=True)
class SchemaViolation:
    """One violation: where it is, and what was expected there."""

    where: str
    message: str
    about_schema: bool = False

    def __str__(self):
        return f"{self.where}: {self.message}"


class JsonValues:
    """Helpers that treat values the way JSON does, not the way Python does."""

    @staticmethod
    def is_number(value):
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    @classmethod
    def equal(cls, left, right):
        if isinstance(left, bool) or isinstance(right, bool):
            return isinstance(left, bool) and isinstance(right, bool) and left == right
        if cls.is_number(left) or cls.is_number(right):
            return cls.is_number(left) and cls.is_number(right) and left == right
        if isinstance(left, str) or isinstance(right, str):
            return isinstance(left, str) and isinstance(right, str) and left == right
        if left is None or right is None:
            return left is None and right is None
        if isinstance(left, list) and isinstance(right, list):
            return len(left) == len(right) and all(cls.equal(a, b) for a, b in zip(left, right))
        if isinstance(left, dict) and isinstance(right, dict):
            return left.keys() == right.keys() and all(cls.equal(left[key], right[key]) for key in left)
        return False

    @classmethod
    def has_type(cls, value, type_name):
        checks = {
            "string": lambda v: isinstance(v, str),
            "integer": lambda v: type(v) is int,
            "number": cls.is_number,
            "boolean": lambda v: isinstance(v, bool),
            "array": lambda v: isinstance(v, list),
            "object": lambda v: isinstance(v, dict),
            "null": lambda v: v is None,
        }
        return checks[type_name](value)

    @staticmethod
    def describe(value):
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "a boolean"
        if isinstance(value, int):
            return "an integer"
        if isinstance(value, float):
            return "a number with a fraction" if value != int(value) else "a number written as a float"
        if isinstance(value, str):
            shown = value if len(value) <= 40 else value[:40] + "..."
            return f"the string {shown!r}"
        if isinstance(value, list):
            return f"an array of {len(value)} item(s)"
        if isinstance(value, dict):
            return "an object"
        return f"a {type(value).__name__}"

    @staticmethod
    def brief(value):
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."


class SchemaWalker:
    """Applies one schema to one value, recursively, and gathers every violation."""

    def __init__(self, root_schema):
        self.root = root_schema
        self.violations = []

    # --- bookkeeping -------------------------------------------------------
    def value_problem(self, where, message):
        self.violations.append(SchemaViolation(where, message))

    def schema_problem(self, where, message):
        self.violations.append(SchemaViolation(where, f"the schema here cannot be used: {message}", about_schema=True))

    @staticmethod
    def child(where, key):
        return f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}"

    # --- $ref ---------------------------------------------------------------
    def resolve(self, reference, where):
        if not isinstance(reference, str) or not reference.startswith("#"):
            self.schema_problem(where, f"\"$ref\" must be a string like \"#/$defs/Name\", got {JsonValues.brief(reference)}")
            return None
        target = self.root
        steps = [step for step in reference[1:].split("/") if step != ""]
        for step in steps:
            step = step.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and step in target:
                target = target[step]
            else:
                self.schema_problem(where, f"\"$ref\" points to {reference!r}, which does not exist in the schema")
                return None
        return target

    # --- the keywords -------------------------------------------------------
    def check_type(self, value, declared, where):
        names = declared if isinstance(declared, list) else [declared]
        if not names or not all(isinstance(name, str) and name in TYPE_NAMES for name in names):
            self.schema_problem(where, f"\"type\" must be one of {', '.join(TYPE_NAMES)} or a list of them, got {JsonValues.brief(declared)}")
            return False
        if any(JsonValues.has_type(value, name) for name in names):
            return True
        self.value_problem(where, f"expected {' or '.join(names)}, but got {JsonValues.describe(value)}")
        return False

    def check_enum(self, value, options, where):
        if not isinstance(options, list):
            self.schema_problem(where, f"\"enum\" must be a list of allowed values, got {JsonValues.brief(options)}")
            return
        if not any(JsonValues.equal(value, option) for option in options):
            self.value_problem(where, f"expected one of {JsonValues.brief(options)}, but got {JsonValues.describe(value)}")

    def check_const(self, value, expected, where):
        if not JsonValues.equal(value, expected):
            self.value_problem(where, f"expected exactly {JsonValues.brief(expected)}, but got {JsonValues.describe(value)}")

    def check_object(self, value, schema, where):
        properties = schema.get("properties", {})
        if not isinstance(properties, dict) or not all(isinstance(sub, (dict, bool)) for sub in properties.values()):
            self.schema_problem(where, "\"properties\" must map each field name to a schema")
            properties = {}
        required = schema.get("required", [])
        if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
            self.schema_problem(where, f"\"required\" must be a list of field names, got {JsonValues.brief(required)}")
            required = []
        extra_rule = schema.get("additionalProperties", True)
        if not isinstance(extra_rule, (bool, dict)):
            self.schema_problem(where, f"\"additionalProperties\" must be true, false or a schema, got {JsonValues.brief(extra_rule)}")
            extra_rule = True
        if not isinstance(value, dict):
            return
        for name in required:
            if name not in value:
                self.value_problem(self.child(where, name), "this required field is missing")
        for name, item in value.items():
            if name in properties:
                self.walk(item, properties[name], self.child(where, name))
            elif extra_rule is False:
                allowed = ", ".join(properties) or "none"
                self.value_problem(self.child(where, name), f"this field is not allowed here (allowed fields: {allowed[:300]})")
            elif isinstance(extra_rule, dict):
                self.walk(item, extra_rule, self.child(where, name))

    def check_items(self, value, item_schema, where):
        if not isinstance(item_schema, (dict, bool)):
            self.schema_problem(where, f"\"items\" must be a single schema, got {JsonValues.brief(item_schema)}")
            return
        if isinstance(value, list):
            for index, item in enumerate(value):
                self.walk(item, item_schema, self.child(where, index))

    def check_any_of(self, value, options, where):
        if not isinstance(options, list) or not options or not all(isinstance(option, (dict, bool)) for option in options):
            self.schema_problem(where, "\"anyOf\" must be a non-empty list of schemas")
            return
        schema_troubles, closest = [], []
        for option in options:
            trial = SchemaWalker(self.root)
            trial.walk(value, option, where)
            if not trial.violations:
                return
            schema_troubles.extend(v for v in trial.violations if v.about_schema)
            # An option whose problems lie deeper than the value itself fits its shape: report those.
            if any(v.where != where for v in trial.violations):
                closest.append(trial.violations)
        if schema_troubles:
            self.violations.extend(schema_troubles)
        elif closest:
            self.violations.extend(min(closest, key=len))
        else:
            self.value_problem(where, f"{JsonValues.describe(value)} matches none of the {len(options)} allowed alternatives")

    # --- the walk -----------------------------------------------------------
    def walk(self, value, schema, where, seen_refs=()):
        if schema is True:
            return
        if schema is False:
            self.value_problem(where, "no value is allowed here")
            return
        if not isinstance(schema, dict):
            self.schema_problem(where, f"a schema must be an object, got {JsonValues.brief(schema)}")
            return
        for keyword in schema:
            if keyword not in CHECKED_KEYWORDS and keyword not in ANNOTATION_KEYWORDS and not str(keyword).startswith("x-"):
                self.schema_problem(where, f"the keyword {keyword!r} is not supported by this checker, so the call cannot be verified")
        if "$ref" in schema:
            reference = schema["$ref"]
            if reference in seen_refs:
                self.schema_problem(where, f"\"$ref\" {reference!r} refers back to itself without end")
            else:
                target = self.resolve(reference, where)
                if target is not None:
                    self.walk(value, target, where, seen_refs + (reference,))
        if "type" in schema:
            self.check_type(value, schema["type"], where)
        if "enum" in schema:
            self.check_enum(value, schema["enum"], where)
        if "const" in schema:
            self.check_const(value, schema["const"], where)
        if any(key in schema for key in ("properties", "required", "additionalProperties")):
            self.check_object(value, schema, where)
        if "items" in schema:
            self.check_items(value, schema["items"], where)
        if "anyOf" in schema:
            self.check_any_of(value, schema["anyOf"], where)
        if "$defs" in schema and not isinstance(schema["$defs"], dict):
            self.schema_problem(where, "\"$defs\" must be an object of named schemas")


def validate_arguments(arguments, schema):
    """Return every violation of the JSON Schema (subset) in arguments; an empty list means valid."""
    try:
        walker = SchemaWalker(schema)
        walker.walk(arguments, schema, "arguments")
        return [str(violation) for violation in walker.violations]
    except RecursionError:
        return ["arguments: the value or schema is nested too deeply to be checked"]
    except Exception as error:
        return [f"arguments: the check could not be completed ({type(error).__name__})"]

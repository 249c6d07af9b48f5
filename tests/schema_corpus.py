"""A corpus of real tool schemas (issue 26): pydantic v2 models for the kinds of field real tools declare, and
schemas copied in shape from MCP servers and the providers' documentation, each with its source.

``PYDANTIC``: ``{name: model}``; the schema is ``model.model_json_schema()`` (titles and all, as a tool would
publish it). ``PUBLISHED``: ``{name: (source, schema)}``. ``PATTERN_EXAMPLES`` gives strings that match each
pattern the corpus uses, for the instance generator of ``tests/test_schema_corpus.py``.
"""

import datetime
import enum
from typing import Annotated, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field


class Units(str, enum.Enum):
    metric = "metric"
    imperial = "imperial"


class Address(BaseModel):
    street: str
    zip: Annotated[str, Field(pattern="^[0-9]{5}$")]


class Node(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=20)]
    children: list["Node"] = []


class Cat(BaseModel):
    pet_type: Literal["cat"]
    meows: int


class Dog(BaseModel):
    pet_type: Literal["dog"]
    barks: float


class OptionalFields(BaseModel):
    """Every Optional is anyOf with null (the issue's kind 4)."""
    repo: str
    per_page: Optional[Annotated[int, Field(ge=1, le=100)]] = None
    label: Optional[Annotated[str, Field(max_length=8)]] = None
    sort: Optional[Literal["asc", "desc"]] = None


class Nested(BaseModel):
    model_config = ConfigDict(extra="forbid")
    to: Address
    billing: Optional[Address] = None


class Recursive(BaseModel):
    root: Node


class Literals(BaseModel):
    mode: Literal["air", "sea"]
    flag: Literal[True] = True
    units: Units = Units.metric


class Constrained(BaseModel):
    """Numbers and strings with the keywords OpenAI's strict mode lists."""
    price: Annotated[float, Field(ge=0, le=1000, multiple_of=0.01)]
    step: Annotated[float, Field(multiple_of=0.1)] = 0.5
    count: Annotated[int, Field(gt=0, lt=50, multiple_of=5)] = 5
    code: Annotated[str, Field(pattern="^[A-Z]{3}-[0-9]{4}$")]
    handle: Annotated[str, Field(pattern="^@[a-zA-Z0-9_]+$", min_length=2)]


class Discriminated(BaseModel):
    pet: Union[Cat, Dog] = Field(discriminator="pet_type")


class PlainUnion(BaseModel):
    value: Union[int, str, list[int]]


class Dicts(BaseModel):
    counts: dict[str, int]
    scores: dict[Literal["math", "art"], int] = {}
    headers: dict[Annotated[str, Field(pattern="^x-")], str] = {}


class Collections(BaseModel):
    point: tuple[float, float]
    tags: Annotated[list[str], Field(min_length=1, max_length=3)]
    ids: set[int] = set()


class Dates(BaseModel):
    when: datetime.datetime
    day: Optional[datetime.date] = None


class Extras(BaseModel):
    """json_schema_extra's keys (pydantic's own docs use it for x- extensions) and examples."""
    model_config = ConfigDict(json_schema_extra={"x-order": ["query", "limit"]})
    query: str = Field(json_schema_extra={"x-order": 0}, examples=["weather in Paris"])
    limit: int = Field(default=10, ge=1, json_schema_extra={"x-order": 1})


PYDANTIC = {model.__name__: model for model in (OptionalFields, Nested, Recursive, Literals, Constrained, Discriminated,
                                                PlainUnion, Dicts, Collections, Dates, Extras)}

PUBLISHED = {
    "mcp-filesystem-edit_file": (
        "modelcontextprotocol/servers, src/filesystem (zod-to-json-schema output of EditFileArgsSchema)",
        {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "additionalProperties": False,
         "properties": {"path": {"type": "string"},
                        "edits": {"type": "array", "items": {
                            "type": "object", "additionalProperties": False, "required": ["oldText", "newText"],
                            "properties": {"oldText": {"type": "string", "description": "Text to search for"},
                                           "newText": {"type": "string", "description": "Text to replace with"}}}},
                        "dryRun": {"type": "boolean", "default": False, "description": "Preview changes"}},
         "required": ["path", "edits"]}),
    "mcp-memory-create_entities": (
        "modelcontextprotocol/servers, src/memory (create_entities inputSchema)",
        {"type": "object", "required": ["entities"],
         "properties": {"entities": {"type": "array", "items": {
             "type": "object", "required": ["name", "entityType", "observations"], "additionalProperties": False,
             "properties": {"name": {"type": "string"}, "entityType": {"type": "string"},
                            "observations": {"type": "array", "items": {"type": "string"}}}}}}}),
    "mcp-github-create_issue": (
        "modelcontextprotocol/servers, src/github (zod-to-json-schema output of CreateIssueSchema)",
        {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "additionalProperties": False,
         "required": ["owner", "repo", "title"],
         "properties": {"owner": {"type": "string"}, "repo": {"type": "string"}, "title": {"type": "string"},
                        "body": {"type": "string"}, "assignees": {"type": "array", "items": {"type": "string"}},
                        "milestone": {"type": "number"}, "labels": {"type": "array", "items": {"type": "string"}}}}),
    "mcp-git-git_log": (
        "modelcontextprotocol/servers, src/git (pydantic model GitLog's schema)",
        {"type": "object", "title": "GitLog", "required": ["repo_path"],
         "properties": {"repo_path": {"type": "string", "title": "Repo Path"},
                        "max_count": {"type": "integer", "title": "Max Count", "default": 10}}}),
    "mcp-fetch-fetch": (
        "modelcontextprotocol/servers, src/fetch (pydantic model Fetch's schema)",
        {"type": "object", "title": "Fetch", "required": ["url"], "description": "Parameters for fetching a URL.",
         "properties": {"url": {"type": "string", "format": "uri", "minLength": 1, "title": "Url"},
                        "max_length": {"type": "integer", "default": 5000, "exclusiveMaximum": 1000000,
                                       "exclusiveMinimum": 0, "title": "Max Length"},
                        "start_index": {"type": "integer", "default": 0, "minimum": 0, "title": "Start Index"},
                        "raw": {"type": "boolean", "default": False, "title": "Raw"}}}),
    "openai-get_weather-strict": (
        "OpenAI function-calling guide (a strict function: every field required, optional ones nullable)",
        {"type": "object", "additionalProperties": False, "required": ["location", "units"],
         "properties": {"location": {"type": "string", "description": "City and country e.g. Bogota, Colombia"},
                        "units": {"type": ["string", "null"], "enum": ["celsius", "fahrenheit", None]}}}),
    "openai-ui-recursive": (
        "OpenAI structured outputs guide (the recursive UI schema, $ref to the root)",
        {"type": "object", "additionalProperties": False, "required": ["type", "label", "children", "attributes"],
         "properties": {"type": {"type": "string", "enum": ["div", "button", "header", "section", "field", "form"]},
                        "label": {"type": "string"},
                        "children": {"type": "array", "items": {"$ref": "#"}},
                        "attributes": {"type": "array", "items": {
                            "type": "object", "additionalProperties": False, "required": ["name", "value"],
                            "properties": {"name": {"type": "string"}, "value": {"type": "string"}}}}}}),
    "openai-linked-list": (
        "OpenAI structured outputs guide (the recursive linked list, $ref into $defs)",
        {"type": "object", "additionalProperties": False, "required": ["linked_list"],
         "properties": {"linked_list": {"$ref": "#/$defs/linked_list_node"}},
         "$defs": {"linked_list_node": {
             "type": "object", "additionalProperties": False, "required": ["next", "value"],
             "properties": {"value": {"type": "number"},
                            "next": {"anyOf": [{"$ref": "#/$defs/linked_list_node"}, {"type": "null"}]}}}}}),
    "openai-user-pattern": (
        "OpenAI structured outputs guide (the username pattern and email format in its supported-schemas section)",
        {"type": "object", "additionalProperties": False, "required": ["name", "username", "email"],
         "properties": {"name": {"type": "string"},
                        "username": {"type": "string", "pattern": "^@[a-zA-Z0-9_]+$"},
                        "email": {"type": "string", "format": "email"}}}),
    "openai-number-bounds": (
        "OpenAI structured outputs guide (minimum, maximum and multipleOf on a number)",
        {"type": "object", "additionalProperties": False, "required": ["value"],
         "properties": {"value": {"type": "number", "minimum": 0, "maximum": 100, "multipleOf": 0.1}}}),
    "anthropic-get_weather": (
        "Anthropic tool-use documentation (get_weather's input_schema)",
        {"type": "object", "required": ["location"],
         "properties": {"location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}}),
    "gemini-openapi-nullable": (
        "Gemini function declarations (OpenAPI 3.0 schema objects with nullable)",
        {"type": "object", "required": ["city"],
         "properties": {"city": {"type": "string"}, "days": {"type": "integer", "nullable": True},
                        "tags": {"type": "array", "nullable": True, "items": {"type": "string"}}}}),
    "vscode-settings": (
        "VS Code JSON schemas (markdownDescription and enumDescriptions on a setting)",
        {"type": "object",
         "properties": {"mode": {"type": "string", "enum": ["auto", "off"], "enumDescriptions": ["Automatic", "Off"],
                                 "markdownDescription": "How the tool runs"},
                        "delay": {"type": "integer", "minimum": 0, "markdownDescription": "Delay in ms",
                                  "deprecationMessage": "Use mode"}}}),
    "draft07-tuple": (
        "draft-07 tuple validation (items as an array, additionalItems), as older converters emit it",
        {"type": "object", "required": ["point"],
         "properties": {"point": {"type": "array", "items": [{"type": "number"}, {"type": "number"}],
                                  "additionalItems": False, "minItems": 2}}}),
}

PATTERN_EXAMPLES = {
    "^[0-9]{5}$": ["02139", "75001", "9021", "75001\n", "\u0661\u0662\u0663\u0664\u0665"],
    "^[A-Z]{3}-[0-9]{4}$": ["ABC-1234", "XYZ-0001", "ABC-1234\n", "abc-1234"],
    "^@[a-zA-Z0-9_]+$": ["@bob", "@a_1", "@bob\n", "bob", "@"],
    "^x-": ["x-id", "x-trace", "id"],
}

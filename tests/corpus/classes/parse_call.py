"""Exercise 1: turn a raw tool call into exactly one JSON object, or explain precisely why not."""
import json
import math
from dataclasses import dataclass, field

MAX_PROBLEM_LENGTH = 300
SNIPPET_LENGTH = 30


class TextQuoter:
    """Quotes pieces of model-written text briefly and safely."""

    @staticmethod
    def quote(text, limit=SNIPPET_LENGTH):
        if not isinstance(text, str):
            text = str(text)
        if "traceback" in text.lower():
            return "(a piece of text that resembles a traceback)"
        shortened = text if len(text) <= limit else text[:limit] + "..."
        return repr(shortened)


class NonJsonConstant:
    """Placeholder for NaN / Infinity / -Infinity, which Python accepts but JSON does not."""

    def __init__(self, word):
        self.word = word


@dataclass
class DecodingSession:
    """Holds what one single decoding noticed; a fresh session is made for every call."""

    repeated_keys: list = field(default_factory=list)

    def build_object(self, pairs):
        seen = set()
        for key, _value in pairs:
            if key in seen and key not in self.repeated_keys:
                self.repeated_keys.append(key)
            seen.add(key)
        return dict(pairs)

    @staticmethod
    def remember_constant(word):
        return NonJsonConstant(word)

    def decoder(self):
        return json.JSONDecoder(
            object_pairs_hook=self.build_object,
            parse_constant=self.remember_constant,
        )


class SyntaxHintWriter:
    """Reads the text around the failing position and says in plain words what went wrong."""

    def __init__(self, text, error):
        self.text = text
        self.error = error

    def previous_visible_character(self, position):
        index = position - 1
        while index >= 0 and self.text[index] in " \t\r\n":
            index -= 1
        return self.text[index] if index >= 0 else ""

    def next_visible_character(self, position):
        index = position
        while index < len(self.text) and self.text[index] in " \t\r\n":
            index += 1
        return self.text[index] if index < len(self.text) else ""

    def hint(self):
        position = self.error.pos
        here = self.text[position] if position < len(self.text) else ""
        before = self.previous_visible_character(position)
        if here == "," and self.next_visible_character(position + 1) in ("}", "]"):
            return f"there is a stray comma just before {self.next_visible_character(position + 1)!r}; remove it"
        if before == "," and here in ("}", "]"):
            return f"there is a stray comma just before {here!r}; remove it"
        if self.text.lstrip().startswith("```"):
            return "the JSON is wrapped in a markdown code fence; send the bare JSON object only"
        if position >= len(self.text.rstrip()):
            return "the text stops before the JSON object is complete, as if it was cut off"
        if here == "'":
            return "a single quote was found; JSON keys and strings need double quotes"
        if here == "<":
            return "a tag was found; send the bare JSON object without any markup"
        if self.error.msg.startswith("Extra data"):
            return "more text follows the end of the first JSON value; send one JSON object and nothing else"
        return f"the text there reads {TextQuoter.quote(self.text[position:position + 20])}"

    def sentence(self):
        where = f"line {self.error.lineno}, column {self.error.colno}"
        return f"The raw tool call is not valid JSON (at {where}): {self.hint()}."


class ValueInspector:
    """Walks a decoded value without recursion and finds numbers that JSON cannot carry."""

    def __init__(self, value):
        self.value = value

    @staticmethod
    def child_path(path, key):
        if isinstance(key, int):
            return f"{path}[{key}]"
        short_key = key if len(key) <= 40 else key[:40] + "..."
        return f"{path}.{short_key}" if path else short_key

    def non_finite_places(self):
        findings = []
        stack = [("", self.value)]
        while stack:
            path, current = stack.pop()
            if isinstance(current, dict):
                for key in reversed(list(current)):
                    stack.append((self.child_path(path, key), current[key]))
            elif isinstance(current, list):
                for index in reversed(range(len(current))):
                    stack.append((self.child_path(path, index), current[index]))
            elif isinstance(current, NonJsonConstant):
                findings.append((path or "the top level", current.word))
            elif isinstance(current, float) and not math.isfinite(current):
                findings.append((path or "the top level", "a number too large for a double"))
        return findings


class CallParser:
    """Parses one raw tool call. Nothing is repaired, nothing is raised."""

    def __init__(self, raw):
        self.raw = raw
        self.problems = []

    def add(self, sentence):
        if len(sentence) > MAX_PROBLEM_LENGTH:
            sentence = sentence[: MAX_PROBLEM_LENGTH - 3] + "..."
        self.problems.append(sentence)

    def failure(self):
        return None, list(self.problems)

    def decode(self):
        session = DecodingSession()
        try:
            value = session.decoder().decode(self.raw)
        except json.JSONDecodeError as error:
            if not self.raw.strip():
                self.add("The raw tool call is empty; a JSON object such as {\"name\": ..., \"arguments\": {...}} was expected.")
            else:
                self.add(SyntaxHintWriter(self.raw, error).sentence())
            return None, session
        except RecursionError:
            self.add("The raw tool call is nested too deeply to be read; send a flatter JSON object.")
            return None, session
        except ValueError:
            self.add("The raw tool call holds a number with too many digits to be read; send a shorter number.")
            return None, session
        except Exception:
            self.add("The raw tool call could not be read as JSON at all.")
            return None, session
        return value, session

    def report_repeated_keys(self, session):
        for key in session.repeated_keys:
            self.add(f"The key {TextQuoter.quote(key)} appears more than once in the same object; each key may be sent only once.")

    def report_non_finite_numbers(self, value):
        for path, what in ValueInspector(value).non_finite_places():
            self.add(f"The field {path} holds {what}, which is not a finite JSON number; send an ordinary number.")

    @staticmethod
    def describe_type(value):
        names = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
        if value is None:
            return "null"
        return names.get(type(value), "something other than an object")

    def with_default_arguments(self, value):
        if "arguments" not in value or value["arguments"] is None:
            value = dict(value)
            value["arguments"] = {}
        return value

    def parse(self):
        if not isinstance(self.raw, str):
            self.add(f"The raw tool call must be a text string, but got {type(self.raw).__name__}.")
            return self.failure()
        value, session = self.decode()
        if self.problems:
            return self.failure()
        self.report_repeated_keys(session)
        self.report_non_finite_numbers(value)
        if self.problems:
            return self.failure()
        if not isinstance(value, dict):
            self.add(f"The raw tool call is {self.describe_type(value)}, but one JSON object with \"name\" and \"arguments\" was expected.")
            return self.failure()
        return self.with_default_arguments(value), []


def parse_call(raw):
    """Return (call, []) for a string holding exactly one JSON object, else (None, [problem text, ...])."""
    try:
        return CallParser(raw).parse()
    except Exception:
        return None, ["The raw tool call could not be read; please send one plain JSON object."]

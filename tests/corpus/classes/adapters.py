"""Exercise 6b: adapters from the OpenAI and Anthropic wire formats to the kit's raw call."""
import json
import math
from dataclasses import dataclass

_MISSING = object()


class FieldReader:
    """Reads a field from either a plain dict or an SDK object with attributes."""

    @staticmethod
    def looks_like_envelope(thing):
        return not (thing is None or isinstance(thing, (str, bytes, list, tuple, int, float, bool)))

    @staticmethod
    def read(thing, key, default=_MISSING):
        if isinstance(thing, dict):
            return thing.get(key, default)
        return getattr(thing, key, default)


class StrictArgumentDecoder:
    """Decodes an arguments string only when it is exactly one JSON value under the parsing notebook's rules."""

    class Refused(ValueError):
        """Raised internally when the text is JSON only by Python's lenient reading."""

    def _pairs_without_repeats(self, pairs):
        keys = [key for key, _ in pairs]
        if len(keys) != len(set(keys)):
            raise self.Refused("repeated key")
        return dict(pairs)

    def _refuse_constant(self, word):
        raise self.Refused(f"non-JSON constant {word}")

    def _finite_float(self, text):
        number = float(text)
        if not math.isfinite(number):
            raise self.Refused("number too large for a double")
        return number

    def decode(self, text):
        """Return (True, value) when the text decodes cleanly, else (False, None)."""
        decoder = json.JSONDecoder(
            object_pairs_hook=self._pairs_without_repeats,
            parse_constant=self._refuse_constant,
            parse_float=self._finite_float,
        )
        try:
            return True, decoder.decode(text)
        except (ValueError, RecursionError):
            return False, None


@dataclass(frozen=True)
class KitRawCall:
    """The kit's raw call: a name and its arguments, serialised as one JSON string."""

    name: object
    arguments: object

    def to_text(self):
        return json.dumps({"name": self.name, "arguments": self.arguments})


class OpenAIAdapter:
    """Turns one entry of OpenAI's tool_calls into the kit's raw call."""

    def __init__(self, tool_call):
        self.tool_call = tool_call

    def function_part(self):
        if not FieldReader.looks_like_envelope(self.tool_call):
            raise TypeError(
                "raw_call_from_openai expects one entry of an OpenAI message's tool_calls "
                f"(a dict or SDK object holding a 'function'), not {type(self.tool_call).__name__}."
            )
        if FieldReader.read(self.tool_call, "type", None) == "function_call":  # a Responses API item
            return self.tool_call
        function = FieldReader.read(self.tool_call, "function")
        if function is _MISSING or not FieldReader.looks_like_envelope(function):
            raise TypeError(
                "raw_call_from_openai needs a tool call with a 'function' part holding 'name' and 'arguments'; "
                "this value has none."
            )
        return function

    def convert(self):
        function = self.function_part()
        name = FieldReader.read(function, "name", None)
        if name is None:
            raise TypeError("raw_call_from_openai got a piece of a streamed call (no name): join the pieces first.")
        arguments = FieldReader.read(function, "arguments", None)
        if arguments is None or FieldReader.read(self.tool_call, "status", None) == "in_progress":
            raise TypeError("raw_call_from_openai got a piece of a streamed call (no arguments yet): pass the whole call.")
        if isinstance(arguments, str):
            decoded_cleanly, value = StrictArgumentDecoder().decode(arguments)
            if decoded_cleanly:
                arguments = value
        return KitRawCall(name, arguments).to_text()


class AnthropicAdapter:
    """Turns one Anthropic tool_use block into the kit's raw call."""

    def __init__(self, block):
        self.block = block

    def convert(self):
        if not FieldReader.looks_like_envelope(self.block):
            raise TypeError(
                "raw_call_from_anthropic expects a tool_use content block (a dict or SDK object), "
                f"not {type(self.block).__name__}."
            )
        block_type = FieldReader.read(self.block, "type", "tool_use")
        if block_type != "tool_use":
            raise TypeError(f"raw_call_from_anthropic only converts tool_use blocks; this block's type is {block_type!r}.")
        if FieldReader.read(self.block, "name") is _MISSING and FieldReader.read(self.block, "input") is _MISSING:
            raise TypeError("raw_call_from_anthropic needs a block with 'name' and 'input'; this value has neither.")
        name = FieldReader.read(self.block, "name", None)
        if name is None:
            raise TypeError("raw_call_from_anthropic got a tool_use block without a name: a piece, not a call.")
        arguments = FieldReader.read(self.block, "input", None)
        if arguments is None:
            raise TypeError("raw_call_from_anthropic got a tool_use block without input: a piece, not a call.")
        return KitRawCall(name, arguments).to_text()


def raw_call_from_openai(tool_call):
    """OpenAI tool_calls entry -> the kit's raw call string (arguments decoded only if valid JSON)."""
    return OpenAIAdapter(tool_call).convert()


def raw_call_from_anthropic(block):
    """Anthropic tool_use block -> the kit's raw call string (input passed through as arguments)."""
    return AnthropicAdapter(block).convert()

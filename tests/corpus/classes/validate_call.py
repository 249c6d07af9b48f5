"""Exercise 2: check a parsed call against the registry, collecting every violation."""
from dataclasses import dataclass

TOOLS = {"get_weather": {"required": {"city": str}, "optional": {"units": str}}}

LISTING_BUDGET = 1500


class ValueDescriber:
    """Describes any value in a few words, never by dumping it whole."""

    TYPE_WORDS = {str: "a string", int: "an integer", float: "a number", bool: "a boolean",
                  list: "an array", dict: "an object"}

    @classmethod
    def type_word(cls, python_type):
        return cls.TYPE_WORDS.get(python_type, getattr(python_type, "__name__", str(python_type)))

    @staticmethod
    def short_text(text, limit=60):
        if "traceback" in text.lower():
            return "a string that resembles a traceback"
        clipped = text if len(text) <= limit else text[:limit] + "..."
        return repr(clipped)

    @classmethod
    def describe(cls, value):
        if value is None:
            return "null"
        if isinstance(value, bool):
            return f"the boolean {'true' if value else 'false'}"
        if isinstance(value, int):
            digits = len(str(abs(value))) if abs(value) < 10 ** 60 else None
            return f"the integer {value}" if digits is not None else "a very large integer"
        if isinstance(value, float):
            return f"the number {value!r}"
        if isinstance(value, str):
            return f"the string {cls.short_text(value)}"
        if isinstance(value, list):
            return f"an array with {len(value)} item(s)"
        if isinstance(value, dict):
            return f"an object with {len(value)} key(s)"
        return f"a value of type {type(value).__name__}"

    @classmethod
    def field_name(cls, name):
        if not isinstance(name, str):
            return cls.describe(name)
        return cls.short_text(name, 40)


@dataclass(frozen=True)
class Violation:
    """One thing wrong with a call, rendered as a single readable sentence."""

    sentence: str

    def __str__(self):
        return self.sentence


class NameListing:
    """Lists registered tool names, as many as fit in a budget."""

    def __init__(self, names, budget=LISTING_BUDGET):
        self.names = sorted(str(name) for name in names)
        self.budget = budget

    def render(self):
        if not self.names:
            return "no tools are registered at all"
        shown, used = [], 0
        for name in self.names:
            piece = repr(name[:200])
            if used + len(piece) + 2 > self.budget:
                break
            shown.append(piece)
            used += len(piece) + 2
        text = ", ".join(shown)
        left_out = len(self.names) - len(shown)
        if left_out:
            text += f" (and {left_out} more not shown)"
        return text


class TypeRule:
    """Decides whether a value has exactly the declared type, with no conversion."""

    @staticmethod
    def accepts(declared, value):
        if value is None:
            return False
        if declared is float:
            return type(value) in (int, float)
        return type(value) is declared


class CallValidator:
    """Validates one parsed call against the given registry."""

    def __init__(self, call, tools):
        self.call = call
        self.tools = tools if isinstance(tools, dict) else {}
        self.violations = []

    def report(self, sentence):
        self.violations.append(Violation(sentence))

    def check_shape(self):
        if not isinstance(self.call, dict):
            self.report(f"The tool call should be an object with a name and arguments, but it is {ValueDescriber.describe(self.call)}.")
            return False
        return True

    def check_name(self):
        if "name" not in self.call:
            self.report(f"The tool call has no \"name\"; expected one of the registered tools: {NameListing(self.tools).render()}.")
            return None
        name = self.call["name"]
        if not isinstance(name, str):
            self.report(f"The tool name must be a string naming a registered tool ({NameListing(self.tools).render()}), but it is {ValueDescriber.describe(name)}.")
            return None
        if name not in self.tools:
            self.report(f"There is no tool called {ValueDescriber.short_text(name)}; expected one of the registered tools: {NameListing(self.tools).render()}.")
            return None
        return name

    def check_arguments_object(self):
        arguments = self.call.get("arguments", {})
        if not isinstance(arguments, dict):
            self.report(f"The \"arguments\" of the call must be a JSON object, but they are {ValueDescriber.describe(arguments)}.")
            return None
        return arguments

    def check_fields(self, name, arguments):
        spec = self.tools.get(name) or {}
        required = spec.get("required") or {}
        optional = spec.get("optional") or {}
        for field_name, declared in required.items():
            if field_name not in arguments:
                self.report(f"Tool '{name}' needs the argument {ValueDescriber.field_name(field_name)} ({ValueDescriber.type_word(declared)}), but it was not sent.")
        declared_fields = {**optional, **required}
        allowed = ", ".join(repr(key) for key in declared_fields) or "none"
        for field_name, value in arguments.items():
            if field_name not in declared_fields:
                self.report(f"Tool '{name}' does not take an argument called {ValueDescriber.field_name(field_name)} (it got {ValueDescriber.describe(value)}); the arguments it accepts are: {allowed[:600]}.")
                continue
            declared = declared_fields[field_name]
            if not TypeRule.accepts(declared, value):
                extra = " (leave an optional argument out rather than sending null)" if value is None else ""
                self.report(f"Tool '{name}': argument {ValueDescriber.field_name(field_name)} should be {ValueDescriber.type_word(declared)}, but it is {ValueDescriber.describe(value)}{extra}.")

    def validate(self):
        if not self.check_shape():
            return list(self.violations)
        name = self.check_name()
        arguments = self.check_arguments_object()
        if name is not None and arguments is not None:
            self.check_fields(name, arguments)
        return list(self.violations)


def validate_call(call, tools):
    """Return every violation of tools' schema in the parsed call (an empty list means valid)."""
    try:
        return CallValidator(call, tools).validate()
    except Exception:
        return [Violation("The tool call could not be checked against the registry; please resend it as a plain JSON object.")]

"""Capstone: check a raw tool call before anything runs, with one retry and a graceful rejection."""
import difflib
import json
import math
import re
from dataclasses import dataclass, field

TOOLS = {
    "get_weather": {"required": {"city": str}, "optional": {"units": str}},
}


def dispatch(name, arguments):
    """Stand-in for the real tool runner: it executes nothing and reports what it would run."""
    return {"status": "dispatched", "name": name, "arguments": arguments}


TEXT_BUDGET = 2000
LINE_BUDGET = 300
_TRACEBACK_PATTERN = re.compile(r"Traceback \(most recent call last\)|File \"[^\"]*\", line \d+", re.IGNORECASE)


class Wording:
    """Small helpers that keep every piece of text short, single-line and free of tracebacks."""

    KIND_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "a boolean",
                  list: "an array", dict: "an object"}

    @staticmethod
    def single_line(text, limit=LINE_BUDGET):
        text = str(text)
        found = _TRACEBACK_PATTERN.search(text)
        if found:
            text = text[: found.start()] + " [text resembling a traceback was left out]"
        text = " ".join(text.split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    @classmethod
    def quoted(cls, text, limit=60):
        if _TRACEBACK_PATTERN.search(text) or "traceback" in text.lower():
            return "(something resembling a traceback)"
        return repr(text if len(text) <= limit else text[:limit] + "...")

    @classmethod
    def kind(cls, python_type):
        return cls.KIND_NAMES.get(python_type, getattr(python_type, "__name__", "a value"))

    @classmethod
    def value(cls, value):
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "the boolean true" if value else "the boolean false"
        if isinstance(value, int):
            return f"the integer {value}" if abs(value) < 10 ** 40 else "a very long integer"
        if isinstance(value, float):
            return f"the number {value!r}"
        if isinstance(value, str):
            return f"the string {cls.quoted(value)}"
        if isinstance(value, list):
            return f"an array of {len(value)} item(s)"
        if isinstance(value, dict):
            return f"an object with {len(value)} key(s)"
        return f"a {type(value).__name__} value"


# --------------------------------------------------------------------------- step 1: reading the text

class _Unrepresentable:
    """Stands in for NaN / Infinity while decoding so that the field holding it can be named."""

    def __init__(self, literal):
        self.literal = literal


@dataclass
class RawCallReader:
    """Reads the raw text as exactly one JSON object, never repairing and never raising."""

    raw: object
    complaints: list = field(default_factory=list)
    doubled_keys: list = field(default_factory=list)

    def _collect_pairs(self, pairs):
        keys_so_far = set()
        for key, _ in pairs:
            if key in keys_so_far and key not in self.doubled_keys:
                self.doubled_keys.append(key)
            keys_so_far.add(key)
        return dict(pairs)

    def _syntax_advice(self, text, error):
        spot = error.pos
        at = text[spot] if spot < len(text) else ""
        left = text[:spot].rstrip()[-1:]
        right = text[spot + 1:].lstrip()[:1]
        if (at == "," and right in ("}", "]")) or (left == "," and at in ("}", "]")):
            return "a comma stands right before a closing bracket; delete that comma"
        if text.lstrip().startswith("```"):
            return "a markdown code fence surrounds the JSON; send only the JSON object itself"
        if spot >= len(text.rstrip()):
            return "the text ends before the object is closed; it looks truncated"
        if at == "'":
            return "single quotes are used; JSON needs double quotes around keys and strings"
        if text[:spot].strip() and (text[:spot].rstrip().endswith("}") or text[:spot].rstrip().endswith("]")):
            return "something follows the first complete JSON value; send a single object and no other text"
        return f"unexpected text there: {Wording.quoted(text[spot:spot + 20])}"

    def _non_finite_fields(self, value):
        found, pending = [], [("", value)]
        while pending:
            where, item = pending.pop()
            if isinstance(item, dict):
                for key in reversed(list(item)):
                    pending.append((f"{where}.{key[:40]}" if where else key[:40], item[key]))
            elif isinstance(item, list):
                for index in reversed(range(len(item))):
                    pending.append((f"{where}[{index}]", item[index]))
            elif isinstance(item, _Unrepresentable):
                found.append((where or "the top level", item.literal))
            elif isinstance(item, float) and not math.isfinite(item):
                found.append((where or "the top level", "a number beyond what a double can hold"))
        return found

    def read(self):
        if not isinstance(self.raw, str):
            return None, [f"The tool call should arrive as text, but a {type(self.raw).__name__} value came instead."]
        if not self.raw.strip():
            return None, ["The tool call is blank; send one JSON object with \"name\" and \"arguments\"."]
        decoder = json.JSONDecoder(object_pairs_hook=self._collect_pairs, parse_constant=_Unrepresentable)
        try:
            value = decoder.decode(self.raw)
        except json.JSONDecodeError as error:
            where = f"line {error.lineno}, column {error.colno}"
            return None, [f"The tool call is not valid JSON at {where}: {self._syntax_advice(self.raw, error)}."]
        except RecursionError:
            return None, ["The tool call nests brackets too deeply to be read; please flatten it."]
        except ValueError:
            return None, ["The tool call contains a number with far too many digits; please send a shorter one."]
        for key in self.doubled_keys:
            self.complaints.append(f"The key {Wording.quoted(key)} is given twice in one object; send each key only once.")
        for where, what in self._non_finite_fields(value):
            self.complaints.append(f"The field {Wording.single_line(where, 120)} holds {what}, which JSON cannot carry as a finite number.")
        if self.complaints:
            return None, self.complaints
        if not isinstance(value, dict):
            return None, [f"The tool call decoded to {Wording.value(value)}, but a single object with \"name\" and \"arguments\" is required."]
        if value.get("arguments") is None:
            value = {**value, "arguments": {}}
        return value, []


# --------------------------------------------------------------------------- step 2: the schema

class Registry:
    """A view of the tool registry with friendly listings."""

    def __init__(self, tools):
        self.tools = tools if isinstance(tools, dict) else {}

    def knows(self, name):
        return isinstance(name, str) and name in self.tools

    def declared(self, name):
        spec = self.tools.get(name) or {}
        return dict(spec.get("required") or {}), dict(spec.get("optional") or {})

    def names(self):
        return sorted(str(name) for name in self.tools)

    def names_closest_first(self, wanted):
        names = self.names()
        if isinstance(wanted, str) and names:
            near = difflib.get_close_matches(wanted, names, n=len(names), cutoff=0.0)
            return near + [name for name in names if name not in near]
        return names

    def argument_summary(self, name):
        required, optional = self.declared(name)
        pieces = [f"{key} ({Wording.kind(kind)}, required)" for key, kind in required.items()]
        pieces += [f"{key} ({Wording.kind(kind)}, optional)" for key, kind in optional.items()]
        return ", ".join(pieces) or "no arguments"


class SchemaInspector:
    """Collects every way a parsed call breaks the registry's schema."""

    def __init__(self, call, registry):
        self.call = call
        self.registry = registry
        self.findings = []

    @staticmethod
    def exact_type(declared, value):
        if declared is float:
            return type(value) in (int, float)
        return type(value) is declared

    def _inspect_name(self):
        if "name" not in self.call:
            self.findings.append("The call has no \"name\"; it must name one of the registered tools listed below.")
            return
        name = self.call["name"]
        if not isinstance(name, str):
            self.findings.append(f"The tool name must be a string, but it is {Wording.value(name)}; pick one of the registered tools listed below.")
        elif not self.registry.knows(name):
            self.findings.append(f"No tool named {Wording.quoted(name)} is registered; pick one of the registered tools listed below.")

    def _inspect_arguments(self):
        arguments = self.call.get("arguments")
        if not isinstance(arguments, dict):
            self.findings.append(f"\"arguments\" must be a JSON object, but it is {Wording.value(arguments)}.")
            return
        name = self.call.get("name")
        if not self.registry.knows(name):
            return
        required, optional = self.registry.declared(name)
        for key, kind in required.items():
            if key not in arguments:
                self.findings.append(f"The required argument '{key}' of '{name}' is missing; it should be {Wording.kind(kind)}.")
        everything = {**optional, **required}
        for key, value in arguments.items():
            shown_key = Wording.quoted(key, 40)
            if key not in everything:
                allowed = ", ".join(everything) or "none"
                self.findings.append(f"'{name}' has no argument {shown_key} (sent {Wording.value(value)}); its arguments are: {allowed[:500]}.")
            elif value is None:
                self.findings.append(f"Argument {shown_key} of '{name}' is null; send {Wording.kind(everything[key])} or leave an optional argument out.")
            elif not self.exact_type(everything[key], value):
                self.findings.append(f"Argument {shown_key} of '{name}' should be {Wording.kind(everything[key])}, but it is {Wording.value(value)}.")

    def inspect(self):
        if not isinstance(self.call, dict):
            return ["The call is not an object with a name and arguments."]
        self._inspect_name()
        self._inspect_arguments()
        return self.findings


# --------------------------------------------------------------------------- step 3: the observation

class ObservationComposer:
    """Turns findings into one bounded text that names every problem and the way out."""

    def __init__(self, call, findings, registry):
        self.call = call if isinstance(call, dict) else None
        self.findings = [Wording.single_line(finding) for finding in findings]
        self.registry = registry

    @staticmethod
    def fit(items, budget, noun, joiner):
        complete = joiner.join(items)
        if len(complete) <= budget:
            return complete
        kept, used = [], 0
        for item in items:
            if used + len(item) + len(joiner) > budget - 70:
                break
            kept.append(item)
            used += len(item) + len(joiner)
        kept.append(f"... and {len(items) - len(kept)} more {noun} not shown for lack of space")
        return joiner.join(kept)

    def compose(self):
        name = self.call.get("name") if self.call else None
        known = self.registry.knows(name)
        if self.call is None:
            opening = "Nothing was run: the tool call could not be read. Fix this and send it again:"
        elif isinstance(name, str):
            opening = f"Nothing was run: the call to {Wording.quoted(name)} has problems. Fix them and send it again:"
        else:
            opening = "Nothing was run: the tool call has problems. Fix them and send it again:"
        closing = f"Tool {Wording.quoted(name)} takes: {self.registry.argument_summary(name)}."[:500] if known else ""
        problem_lines = [f"- {finding}" for finding in self.findings]
        tool_names = [] if known else self.registry.names()
        room = TEXT_BUDGET - len(opening) - len(closing) - 40
        problems_size = len("\n".join(problem_lines))
        tools_size = len(", ".join(tool_names))
        if problems_size + tools_size <= room:
            problem_room, tool_room = problems_size, tools_size
        else:
            tool_names = [] if known else self.registry.names_closest_first(name)
            tool_room = min(tools_size, room * 2 // 5)
            problem_room = room - tool_room
            if problems_size < problem_room:
                tool_room += problem_room - problems_size
                problem_room = problems_size
        parts = [opening, self.fit(problem_lines, problem_room, "problem(s)", "\n")]
        if not known:
            parts.append("Registered tools: " + (self.fit(tool_names, tool_room, "tool(s)", ", ") if tool_names else "none."))
        if closing:
            parts.append(closing)
        return "\n".join(parts)[:TEXT_BUDGET]


# --------------------------------------------------------------------------- step 4: the runtime

@dataclass
class Verdict:
    call: object
    observation: object

    @property
    def may_run(self):
        return self.observation is None


class ToolCallRuntime:
    """One runtime per incoming call: it checks, asks the model at most once more, and dispatches only clean calls."""

    def __init__(self, tools, runner, ask_model):
        self.registry = Registry(tools)
        self.runner = runner
        self.ask_model = ask_model

    def judge(self, raw):
        call, problems = RawCallReader(raw).read()
        if call is not None:
            problems = SchemaInspector(call, self.registry).inspect()
        if not problems:
            return Verdict(call, None)
        return Verdict(call, ObservationComposer(call, problems, self.registry).compose())

    @staticmethod
    def rejected(reason):
        return {"status": "rejected", "error": Wording.single_line(reason, TEXT_BUDGET)}

    def execute(self, call):
        try:
            return self.runner(call["name"], call["arguments"])
        except Exception as error:
            return self.rejected(f"The tool itself failed while running ({type(error).__name__}).")

    def handle(self, raw):
        first = self.judge(raw)
        if first.may_run:
            return self.execute(first.call)
        try:
            second_raw = self.ask_model(first.observation)
        except Exception as error:
            return self.rejected(f"The call was invalid and the retry failed because the model could not be asked again ({type(error).__name__}); nothing was run.")
        second = self.judge(second_raw)
        if second.may_run:
            return self.execute(second.call)
        return self.rejected(f"The corrected call was still invalid, so nothing was run. Problems in the last attempt: {second.observation}")


def handle_tool_call(raw: str, ask_model) -> dict:
    """Check the raw call against the current TOOLS, dispatch it if clean, else one retry, then a rejection."""
    try:
        return ToolCallRuntime(globals().get("TOOLS"), globals().get("dispatch"), ask_model).handle(raw)
    except Exception as error:
        return {"status": "rejected", "error": f"The tool call could not be handled ({type(error).__name__}); nothing was run."}

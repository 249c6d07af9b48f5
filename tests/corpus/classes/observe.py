"""Exercise 3: write the problems of a tool call up as text a model can act on."""
import difflib
import re
from dataclasses import dataclass

TOOLS = {"get_weather": {"required": {"city": str}, "optional": {"units": str}}}

OBSERVATION_LIMIT = 2000
PROBLEM_LINE_LIMIT = 300
TOOL_NAME_LIMIT = 60
REGISTERED_NAME_LIMIT = 200
TAIL_LIMIT = 500

TRACEBACK_SIGNS = re.compile(r"Traceback \(most recent call last\)|File \"[^\"]*\", line \d+", re.IGNORECASE)


class SafeLine:
    """Turns text the runtime did not write into one short, traceback-free line."""

    @staticmethod
    def looks_like_traceback(text):
        return bool(TRACEBACK_SIGNS.search(text))

    @classmethod
    def make(cls, text, limit):
        text = str(text)
        match = TRACEBACK_SIGNS.search(text)
        if match:
            text = text[: match.start()].rstrip() + " [followed by text resembling a traceback, not repeated here]"
        text = " ".join(text.split())
        if len(text) > limit:
            text = text[: limit - 3] + "..."
        return text

    @classmethod
    def name(cls, value):
        if not isinstance(value, str):
            return None
        if cls.looks_like_traceback(value):
            return "(a name resembling a traceback)"
        return repr(cls.make(value, TOOL_NAME_LIMIT))


class TypeWords:
    """Friendly names for the registry's Python types."""

    WORDS = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}

    @classmethod
    def of(cls, python_type):
        return cls.WORDS.get(python_type, getattr(python_type, "__name__", "value"))


@dataclass
class BudgetedList:
    """Renders as many items as fit into a character budget, then says how many were left out."""

    items: list
    budget: int
    noun: str
    separator: str = "\n"

    def full_length(self):
        return sum(len(item) + len(self.separator) for item in self.items)

    def render(self):
        if self.full_length() <= self.budget:
            return self.separator.join(self.items)
        shown, used = [], 0
        reserve = 60
        for position, item in enumerate(self.items):
            is_last = position == len(self.items) - 1
            room = self.budget - used - (0 if is_last else reserve)
            if len(item) + len(self.separator) > room:
                break
            shown.append(item)
            used += len(item) + len(self.separator)
        left_out = len(self.items) - len(shown)
        if left_out:
            shown.append(f"... plus {left_out} more {self.noun} that did not fit here.")
        return self.separator.join(shown)


class ObservationWriter:
    """Composes the observation: a header, every problem, the registered tools if useful, and the tool's arguments."""

    def __init__(self, call, problems, tools):
        self.call = call if isinstance(call, dict) else None
        self.problems = list(problems or [])
        self.tools = tools if isinstance(tools, dict) else {}

    def sent_name(self):
        return self.call.get("name") if self.call is not None else None

    def named_tool_is_registered(self):
        name = self.sent_name()
        return isinstance(name, str) and name in self.tools

    def header(self):
        shown = SafeLine.name(self.sent_name())
        if self.call is None:
            return "Your tool call could not be read, so nothing was run. Please fix the following and send it again:"
        if shown is None:
            return "Your tool call was not run. Please fix the following and send it again:"
        return f"Your call to {shown} was not run. Please fix the following and send it again:"

    def problem_lines(self):
        return [f"- {SafeLine.make(problem, PROBLEM_LINE_LIMIT)}" for problem in self.problems]

    def tool_names_in_useful_order(self, cut):
        names = sorted(str(name) for name in self.tools)
        name = self.sent_name()
        if cut and isinstance(name, str) and names:
            close = difflib.get_close_matches(name, names, n=len(names), cutoff=0.0)
            names = close + [other for other in names if other not in close]
        return [SafeLine.make(entry, REGISTERED_NAME_LIMIT) for entry in names]

    def tail(self):
        name = self.sent_name()
        spec = self.tools.get(name) or {}
        required = spec.get("required") or {}
        optional = spec.get("optional") or {}
        parts = [f"{key} ({TypeWords.of(kind)}, required)" for key, kind in required.items()]
        parts += [f"{key} ({TypeWords.of(kind)}, optional)" for key, kind in optional.items()]
        listing = ", ".join(parts) if parts else "no arguments at all"
        text = f"Tool {SafeLine.name(name)} takes these arguments: {listing}."
        if len(text) > TAIL_LIMIT:
            text = text[: TAIL_LIMIT - 4] + "...."
        return text

    def write(self):
        header = self.header()
        tail = self.tail() if self.named_tool_is_registered() else ""
        wants_tools = not self.named_tool_is_registered()
        tools_intro = "Registered tools: " if self.tools else "No tools are registered."
        fixed = len(header) + len(tail) + len(tools_intro) + 8
        room = OBSERVATION_LIMIT - fixed
        problems = self.problem_lines()
        tool_names = self.tool_names_in_useful_order(cut=False) if wants_tools else []
        needed_problems = sum(len(line) + 1 for line in problems)
        needed_tools = sum(len(entry) + 2 for entry in tool_names)
        if needed_problems + needed_tools > room:
            tool_names = self.tool_names_in_useful_order(cut=True) if wants_tools else []
            tools_budget = min(needed_tools, room * 2 // 5)
            problems_budget = room - tools_budget
            if needed_problems < problems_budget:
                tools_budget += problems_budget - needed_problems
                problems_budget = needed_problems
        else:
            problems_budget, tools_budget = needed_problems + 1, needed_tools + 1
        sections = [header, BudgetedList(problems, problems_budget, "problem(s)").render()]
        if wants_tools:
            if tool_names:
                sections.append(tools_intro + BudgetedList(tool_names, tools_budget, "tool(s)", ", ").render())
            else:
                sections.append(tools_intro)
        if tail:
            sections.append(tail)
        text = "\n".join(section for section in sections if section)
        return text[:OBSERVATION_LIMIT]


def observe(call, problems, tools):
    """Return None when problems is empty, else the observation text (at most 2,000 characters)."""
    if not problems:
        return None
    try:
        return ObservationWriter(call, problems, tools).write()
    except Exception:
        return "Your tool call was not run because it has problems that could not be described in detail; please check the name and arguments and send it again."

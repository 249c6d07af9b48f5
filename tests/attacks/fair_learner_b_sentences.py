# EXPECTED: full marks on every draw: a learner's own correct capstone (issue 24's learner trial, 2026-12-06: 129/129 on
# 42 seeds each), observations worded its own way; written from README and notebook 5 alone.
"""Solution B: a small validator class; observations quote the call and explain in full sentences."""
import json
import math
import re

TOOLS = {
    "get_weather": {"required": {"city": str}, "optional": {"units": str}},
}

LIMIT = 2000
_STRING_RE = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_DANGLING_COMMA_RE = re.compile(r",\s*[}\]]")


def clip(text, size):
    text = str(text)
    if len(text) <= size:
        return text
    return text[:size] + " [... %d more characters]" % (len(text) - size)


def describe(value):
    """A human name for the JSON kind of a parsed value."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a floating-point number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "a value of type " + type(value).__name__


def expected(kind):
    names = {str: "a string", int: "an integer", float: "a number (integer or float)",
             bool: "a boolean", list: "an array", dict: "an object"}
    return names.get(kind, "a value of type " + getattr(kind, "__name__", repr(kind)))


def matches(value, kind):
    if value is None:
        return False
    if isinstance(value, bool):
        return kind is bool
    if kind is float:
        return type(value) in (int, float)
    return type(value) is kind


class CallChecker:
    def __init__(self, tools):
        self.tools = tools

    def check(self, raw):
        """Returns (name, arguments, sentences). Sentences empty means the call is valid."""
        if not isinstance(raw, str):
            return None, None, ["The model's reply was %s, not text holding a JSON object, so no tool call "
                                "could be read from it." % describe(raw)]
        try:
            call = json.loads(raw)
        except RecursionError:
            return None, None, ["The call is nested far too deeply to be parsed as JSON. Send a flat JSON object."]
        except ValueError as err:
            sentences = ["The call is not valid JSON: the parser reported \"%s\"." % clip(err, 150)]
            if _DANGLING_COMMA_RE.search(_STRING_RE.sub('""', raw)):
                sentences.append("There is a trailing comma right before a closing brace or bracket; "
                                 "JSON does not allow that comma, so delete it.")
            sentences.append("Send exactly one JSON object with the keys \"name\" and \"arguments\", "
                             "with no code fences or text around it.")
            return None, None, sentences
        except Exception as err:
            return None, None, ["The call could not be parsed as JSON (%s)." % type(err).__name__]
        if not isinstance(call, dict):
            return None, None, ["The call parsed as %s, but it must be a single JSON object of the form "
                                "{\"name\": ..., \"arguments\": {...}}." % describe(call)]
        sentences = []
        spec = None
        if "name" not in call:
            sentences.append("The call has no \"name\" key, so it does not say which tool to run.")
        else:
            name = call["name"]
            if not isinstance(name, str):
                sentences.append("The tool name must be a string, but it is %s." % describe(name))
            elif name not in self.tools:
                listing = ", ".join('"%s"' % t for t in self.tools)
                sentences.append("There is no tool called \"%s\". The registered tools are: %s."
                                 % (clip(name, 60), clip(listing, 600)))
            else:
                spec = self.tools[name]
        arguments = call.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            hint = ""
            if isinstance(arguments, str):
                hint = " It was sent as a string; put the object itself there, not its JSON text."
            sentences.append("The \"arguments\" value must be a JSON object, but it is %s.%s"
                             % (describe(arguments), hint))
        elif spec is not None:
            sentences.extend(self.check_arguments(call["name"], spec, arguments))
        return call.get("name"), arguments, sentences

    def check_arguments(self, tool, spec, arguments):
        required = dict(spec.get("required") or {})
        optional = dict(spec.get("optional") or {})
        declared = {**optional, **required}
        sentences = []
        for field, kind in required.items():
            if field not in arguments:
                sentences.append("The required argument \"%s\" is missing; it must be %s."
                                 % (clip(field, 60), expected(kind)))
        allowed = ", ".join('"%s"' % f for f in declared) or "none"
        for field, value in arguments.items():
            if field not in declared:
                sentences.append("The argument \"%s\" is not accepted by \"%s\"; the allowed arguments are: %s."
                                 % (clip(field, 60), clip(tool, 60), clip(allowed, 300)))
            elif not matches(value, declared[field]):
                sentences.append("The argument \"%s\" must be %s, but %s was sent."
                                 % (clip(field, 60), expected(declared[field]), describe(value)))
            else:
                for where in self.non_finite(field, value):
                    sentences.append("The number in \"%s\" is too large to be represented (it became "
                                     "infinity or NaN); send a finite number." % clip(where, 100))
        return sentences

    @staticmethod
    def non_finite(field, value):
        found = []
        pending = [(str(field), value)]
        while pending and len(found) < 20:
            where, item = pending.pop()
            if isinstance(item, float) and not math.isfinite(item):
                found.append(where)
            elif isinstance(item, dict):
                pending.extend((where + " -> " + str(k), v) for k, v in item.items())
            elif isinstance(item, list):
                pending.extend(("%s -> item %d" % (where, i), v) for i, v in enumerate(item))
        return found


def observation(raw, sentences):
    quoted = clip(repr(raw) if not isinstance(raw, str) else raw, 160)
    text = "Your tool call was not run.\nYou sent: %s\n" % quoted
    count = len(sentences)
    text += "I found %d problem%s. " % (count, "" if count == 1 else "s")
    for i, sentence in enumerate(sentences):
        if len(text) + len(sentence) > LIMIT - 120:
            text += "There are %d more problems of the same kind. " % (count - i)
            break
        text += sentence + " "
    text += "\nPlease send a corrected call that fixes all of them."
    return text[:LIMIT]


def handle_tool_call(raw, ask_model):
    try:
        checker = CallChecker(TOOLS)
        name, arguments, sentences = checker.check(raw)
        if sentences:
            note = observation(raw, sentences)
            try:
                raw = ask_model(note)
            except BaseException as err:  # the model API failed: report it, do not crash
                if isinstance(err, (KeyboardInterrupt, SystemExit)):
                    raise
                return {"status": "rejected",
                        "error": ("The retry failed: asking the model for a corrected call raised %s, so the "
                                  "call was not run." % type(err).__name__)[:LIMIT]}
            name, arguments, sentences = checker.check(raw)
            if sentences:
                return {"status": "rejected", "error": observation(raw, sentences)}
        try:
            return dispatch(name, arguments)
        except Exception as err:
            return {"status": "rejected", "error": "The tool raised %s while running." % type(err).__name__}
    except Exception as err:
        return {"status": "rejected", "error": "The call could not be handled (%s)." % type(err).__name__}

# A correct capstone solution written independently of the others in this folder: a checker class that collects issues.
# Part of the synthetic class of tests/insight_class.py.
import json

TOOLS = {"get_weather": {"required": {"city": str}, "optional": {"units": str}}}

JSON_WORDS = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}


class CallChecker:
    """Checks one raw call against a registry and collects what is wrong with it."""

    def __init__(self, registry):
        self.registry = registry
        self.issues = []

    @staticmethod
    def describe(value):
        if isinstance(value, (dict, list)):
            return "a " + type(value).__name__ + " of " + str(len(value)) + " items"
        text = json.dumps(value)
        return text if len(text) <= 50 else text[:50] + "..."

    @staticmethod
    def fits(value, expected):
        if expected is float and type(value) is int:
            return True
        return type(value) is expected

    @classmethod
    def infinite(cls, value, path):
        if type(value) is float and value in (float("inf"), float("-inf")) or value != value:
            return path
        inner = value.items() if type(value) is dict else enumerate(value) if type(value) is list else ()
        for key, item in inner:
            found = cls.infinite(item, f"{path}.{key}")
            if found:
                return found
        return None

    def check(self, raw):
        self.issues = []
        if type(raw) is not str:
            self.issues.append("the raw call has to be a string of JSON")
            return None
        try:
            call = json.loads(raw)
        except json.JSONDecodeError as problem:
            before = raw[:problem.pos].rstrip()
            where = "drop the comma before the closing bracket" if before.endswith(",") else "at character %d" % problem.pos
            self.issues.append("invalid JSON: " + where)
            return None
        except (ValueError, RecursionError) as problem:
            self.issues.append("invalid JSON: " + str(problem)[:80])
            return None
        bad = self.infinite(call, "call")
        if bad:
            self.issues.append(bad + " is too large to be a number (it overflows to infinity)")
            return None
        if type(call) is not dict:
            self.issues.append("expected a JSON object with a name and arguments")
            return None
        tool = call.get("name")
        arguments = call.get("arguments")
        if arguments is None:
            arguments = {}
        schema = self.registry.get(tool) if isinstance(tool, str) else None
        if schema is None:
            self.issues.append("tool " + self.describe(tool) + " is not registered; known tools: "
                               + ", ".join(self.registry))
        if not isinstance(arguments, dict):
            self.issues.append("arguments has to be a JSON object")
            return None
        if schema is not None:
            self._check_fields(schema, arguments)
        return tool, arguments

    def _check_fields(self, schema, arguments):
        allowed = dict(schema["required"])
        allowed.update(schema["optional"])
        for name in schema["required"]:
            if name not in arguments:
                self.issues.append("required field '" + name + "' is missing")
        for key, value in arguments.items():
            if key not in allowed:
                self.issues.append("field " + self.describe(key) + " is not declared; declared fields: "
                                   + ", ".join(allowed))
            elif not self.fits(value, allowed[key]):
                self.issues.append("field '" + key + "' should be " + JSON_WORDS[allowed[key]] + " but is "
                                   + self.describe(value))


def render(issues):
    message = "Rejected, nothing was run. Please correct: " + "; ".join(issues)
    if len(message) > 2000:
        message = message[:1990] + " [cut]"
    return message


def handle_tool_call(raw, ask_model):
    checker = CallChecker(TOOLS)
    parsed = checker.check(raw)
    if not checker.issues:
        return dispatch(*parsed)
    text = render(checker.issues)
    try:
        raw = ask_model(text)
    except Exception as failure:
        return {"status": "rejected", "error": text + " (the retry failed: " + type(failure).__name__ + ")"}
    parsed = checker.check(raw)
    if not checker.issues:
        return dispatch(*parsed)
    return {"status": "rejected", "error": render(checker.issues)}

# A correct capstone solution written independently of the others in this folder: one function with nested helpers and a while loop.
# Part of the synthetic class of tests/insight_class.py.
import json

TOOLS = {"get_weather": {"required": {"city": str}, "optional": {"units": str}}}


def handle_tool_call(raw, ask_model):
    names = {str: "a string", int: "an integer", float: "a number", bool: "a boolean", list: "an array",
             dict: "an object"}

    def brief(v):
        if type(v) in (list, dict):
            return names[type(v)]
        return json.dumps(v)[:45]

    def complaints(text):
        if not isinstance(text, str):
            return None, ["raw call is not a string"]
        try:
            obj = json.loads(text)
        except RecursionError:
            return None, ["the JSON is nested too deeply to read"]
        except json.JSONDecodeError as err:
            if text[:err.pos].rstrip().endswith(","):
                return None, [f"not valid JSON: a trailing comma before position {err.pos}; remove it"]
            return None, [f"not valid JSON ({str(err)[:70]})"]
        except ValueError as err:
            return None, [f"not valid JSON ({str(err)[:70]})"]
        stack = [("call", obj)]
        while stack:
            where, v = stack.pop()
            if isinstance(v, float) and (abs(v) == float("inf") or v != v):
                return None, [f"{where} is not a finite number (infinite or NaN)"]
            if isinstance(v, dict):
                stack += [(f"{where}.{k}", x) for k, x in v.items()]
            elif isinstance(v, list):
                stack += [(f"{where}[{i}]", x) for i, x in enumerate(v)]
        if not isinstance(obj, dict):
            return None, ["the JSON must be an object, not " + brief(obj)]
        out = []
        tool = obj.get("name")
        params = obj.get("arguments")
        params = {} if params is None else params
        spec = TOOLS.get(tool) if isinstance(tool, str) else None
        if spec is None:
            out.append(f"no tool named {brief(tool)}; available: {', '.join(sorted(TOOLS))}")
        if not isinstance(params, dict):
            out.append(f"arguments is {brief(params)}, expected an object")
            return None, out
        if spec is not None:
            fields = {**spec["required"], **spec["optional"]}
            out += [f"missing required field {f}" for f in spec["required"] if f not in params]
            for f, v in params.items():
                want = fields.get(f)
                if want is None:
                    out.append(f"unexpected field {brief(f)} (fields: {', '.join(fields)})")
                elif not (type(v) is want or (want is float and type(v) is int)):
                    out.append(f"{f} must be {names[want]}, received {brief(v)}")
        return (tool, params), out

    attempts = 0
    while True:
        call, problems = complaints(raw)
        if not problems:
            return dispatch(call[0], call[1])
        note = ("Call rejected (not executed). Problems: " + " | ".join(problems))[:2000]
        attempts += 1
        if attempts > 1:
            return {"status": "rejected", "error": note}
        try:
            raw = ask_model(note)
        except Exception as e:
            return {"status": "rejected", "error": note[:1900] + f" / asking the model again failed: {type(e).__name__}"}

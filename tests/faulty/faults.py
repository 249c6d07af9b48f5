"""The faulty-solution library: each entry is base.py with exactly one fault, and where it must lose points.

``edits`` are ``(old, new)`` text replacements applied to base.py; each ``old`` must occur exactly
once (tests check this, so a change to base.py cannot silently turn a fault into a no-op).
``docked`` is the exact set of case groups that must lose points; every other group must keep
full marks, which proves the fault is caught by the cases written for it and nowhere else by accident.
"""

from dataclasses import dataclass

PARSING = "Parsing the raw call"
NAMES = "Tool names"
SCHEMA = "Arguments against the schema"
DISPATCH = "Dispatching valid calls"
OBSERVATIONS = "Error observations"
RETRY = "Bounded retry"
ROBUSTNESS = "Huge and deeply nested input"
REAL = "Real malformed calls"
VISIBLE = "Visible self-checks"
PUBLIC = "Malformed calls from public bug reports"


@dataclass(frozen=True)
class Fault:
    """One faulty submission.

    Attributes:
        name: file-name-safe id (str). origin: ``"seed anti-pattern"``, ``"seed sample"`` or ``"common"``.
        why: the mistake in one sentence (str).
        edits: ``[(old, new), ...]`` applied to base.py.
        docked: the case groups that must lose points (frozenset of str).
    """

    name: str
    origin: str
    why: str
    edits: tuple
    docked: frozenset


def fault(name, origin, why, edits, docked):
    return Fault(name, origin, why, tuple(edits), frozenset(docked))


FAULTS = [
    # The seed's three anti-patterns ("✗" lines of the exercise card).
    fault("dispatch_unchecked", "seed anti-pattern", "Dispatches any call that parsed, checked or not.",
          [("        if not errors:\n", "        if call or not errors:\n")],
          {VISIBLE, NAMES, SCHEMA, DISPATCH, OBSERVATIONS, RETRY, ROBUSTNESS, REAL, PUBLIC}),
    fault("unbounded_retry", "seed anti-pattern", "Retries until the model gets it right.",
          [("    for attempt in range(2):\n", "    import itertools\n    for attempt in itertools.count():\n"),
           ("        if attempt == 0:\n", "        if True:\n")],
          {VISIBLE, PARSING, NAMES, SCHEMA, DISPATCH, OBSERVATIONS, RETRY, ROBUSTNESS, PUBLIC}),
    fault("silent_failure", "seed anti-pattern", "Fails without error text: the model and the caller get nothing to act on.",
          [("        error = observation(errors)\n", '        error = ""\n')],
          {VISIBLE, PARSING, NAMES, SCHEMA, OBSERVATIONS, RETRY, ROBUSTNESS, REAL, PUBLIC}),
    # The faults of the seed's sample solution.
    fault("no_optional_typecheck", "seed sample", "Type-checks required arguments only.",
          [("            elif not type_ok(value, declared[field]):\n",
            "            elif field in spec[\"required\"] and not type_ok(value, declared[field]):\n")],
          {SCHEMA, OBSERVATIONS}),
    fault("crash_on_non_object", "seed sample", "Assumes json.loads returned an object ([] .get crashes).",
          [("    if not isinstance(call, dict):\n", "    if False:\n")],
          {PARSING, RETRY, REAL}),
    fault("crash_on_unhashable_name", "seed sample", "Looks a name up in TOOLS without checking it is a string.",
          [("    if not isinstance(name, str) or name not in tools:\n", "    if name not in tools:\n")],
          {NAMES}),
    fault("crash_on_deep_nesting", "seed sample", "Catches only JSONDecodeError, not RecursionError or other ValueErrors.",
          [("    except (ValueError, RecursionError) as exc:\n", "    except json.JSONDecodeError as exc:\n")],
          {ROBUSTNESS}),
    fault("first_violation_only", "seed sample", "Reports only the first violation, wasting the single retry.",
          [("        error = observation(errors)\n", "        error = observation(errors[:1])\n")],
          {OBSERVATIONS, REAL, PUBLIC}),
    # Common mistakes.
    # Its observation for the three-violation call never says that hour=True is wrong, so a model that fixes only
    # what it is told keeps the bool (found once observations were judged by difference, not by keywords).
    fault("bool_is_int", "common", "Uses isinstance, so True passes as an integer.",
          [("    return type(value) is declared\n", "    return isinstance(value, declared)\n")],
          {SCHEMA, OBSERVATIONS}),
    fault("int_rejected_for_float", "common", "Demands an exact float, so 10 is rejected where a number is declared.",
          [("    if declared is float:\n", "    if False:\n")],
          {DISPATCH}),
    fault("coerces_types", "common", "Converts wrong types (\"7\" -> 7) instead of rejecting them.",
          [("            elif not type_ok(value, declared[field]):\n",
            "            elif not type_ok(value, declared[field]) and not _coerce(args, field, declared[field]):\n"),
           ("def observation(errors):\n",
            "def _coerce(args, field, declared):\n    try:\n        args[field] = declared(args[field])\n        return True\n"
            "    except (TypeError, ValueError):\n        return False\n\n\ndef observation(errors):\n")],
          {VISIBLE, SCHEMA, OBSERVATIONS, RETRY, ROBUSTNESS, PUBLIC}),
    fault("drops_extra_fields", "common", "Drops undeclared arguments and dispatches the rest.",
          [('                errors.append(f"unknown argument {short(field)}; allowed: {\', \'.join(declared)}")\n',
            "                continue\n"),
           ("    return (name, args), errors\n",
            "    if spec:\n        args = {k: v for k, v in args.items() if k in declared}\n    return (name, args), errors\n")],
          {VISIBLE, SCHEMA, OBSERVATIONS, ROBUSTNESS, REAL}),
    fault("two_retries", "common", "Allows two retries instead of one.",
          [("    for attempt in range(2):\n", "    for attempt in range(3):\n"),
           ("        if attempt == 0:\n", "        if attempt < 2:\n")],
          {VISIBLE, PARSING, NAMES, SCHEMA, OBSERVATIONS, RETRY, ROBUSTNESS, PUBLIC}),
    # Issue 25: the class report named these as other mistakes ("rejects at once without asking the model to retry",
    # "names the first 10 problems") when a trial's students made them, because the library had no such entry.
    fault("dispatches_before_checking", "common", "Dispatches the call as soon as it parses, then checks it and asks "
          "the model anyway.",
          [("        call, errors = problems(raw, TOOLS)\n        if not errors:\n            return dispatch(*call)\n",
            "        call, errors = problems(raw, TOOLS)\n        result = dispatch(*call) if call else None\n"
            "        if not errors:\n            return result\n")],
          {VISIBLE, NAMES, SCHEMA, DISPATCH, OBSERVATIONS, RETRY, ROBUSTNESS, REAL, PUBLIC}),
    fault("numeric_strings_converted", "common", "Converts a numeric string (\"10.5\") where a number is declared "
          "and dispatches it.",
          [("            elif not type_ok(value, declared[field]):\n",
            "            elif declared[field] in (int, float) and isinstance(value, str) and _numeric(value):\n"
            "                args[field] = declared[field](value)\n"
            "            elif not type_ok(value, declared[field]):\n"),
           ("def observation(errors):\n",
            "def _numeric(text):\n    try:\n        float(text)\n        return True\n    except ValueError:\n"
            "        return False\n\n\ndef observation(errors):\n")],
          {SCHEMA, PUBLIC}),
    fault("no_retry", "common", "Rejects at once without asking the model to retry.",
          [("        if attempt == 0:\n", "        if False:\n")],
          {VISIBLE, PARSING, NAMES, SCHEMA, OBSERVATIONS, RETRY, ROBUSTNESS, REAL, PUBLIC}),
    fault("unbounded_observation", "common", "Never truncates the observation.",
          [('    return text if len(text) <= 2000 else text[:1980] + " (truncated)"\n', "    return text\n")],
          {ROBUSTNESS}),
    fault("traceback_in_observation", "common", "Puts the Python traceback into the observation.",
          [('        return None, [f"the call is not valid JSON: {json_hint(raw, exc.pos)}"]\n',
            '        import traceback\n        return None, ["the call is not valid JSON: " + traceback.format_exc()[-300:]]\n')],
          {VISIBLE, PARSING, OBSERVATIONS, RETRY, ROBUSTNESS, REAL, PUBLIC}),
    fault("decodes_string_arguments", "common", "Decodes arguments sent as a JSON string (a repair).",
          [("    if args is None:\n", "    if isinstance(args, str):\n        try:\n            args = json.loads(args)\n"
            "        except ValueError:\n            pass\n    if args is None:\n")],
          {SCHEMA, OBSERVATIONS, PUBLIC}),
    fault("null_arguments_rejected", "common", "Rejects null arguments instead of treating them as {}.",
          [("    if args is None:\n        args = {}\n", "    if \"arguments\" not in call:\n        args = {}\n")],
          {SCHEMA, DISPATCH, REAL}),
    fault("strips_fences", "common", "Strips markdown fences and prose tags before parsing (a repair).",
          [("        call = json.loads(raw)\n",
            "        call = json.loads(raw.strip().removeprefix(\"```json\").strip(\"`\").strip())\n")],
          {PARSING}),
    fault("tools_default_argument", "common", "Binds TOOLS as a default argument when the function is defined.",
          [("def handle_tool_call(raw, ask_model):\n", "def handle_tool_call(raw, ask_model, tools=TOOLS):\n"),
           ("        call, errors = problems(raw, TOOLS)\n", "        call, errors = problems(raw, tools)\n")],
          # ROBUSTNESS: the 300-field tool's call was refused as an unknown tool by its stale registry, right by
          # accident, until that call's sibling (the 300 fields optional) had to be dispatched.
          {VISIBLE, NAMES, SCHEMA, DISPATCH, OBSERVATIONS, ROBUSTNESS, REAL, PUBLIC}),
    fault("raises_when_model_fails", "common", "Lets an exception from ask_model escape.",
          [("            except Exception as exc:\n", "            except KeyError as exc:\n")],
          {RETRY, PUBLIC}),
    fault("asks_again_when_the_model_fails", "common", "Asks the model a second time when asking raised (two retries).",
          # Issue 25: the class report named this "lets an exception from ask_model escape", the only row with its cases.
          [("            except Exception as exc:\n",
            "            except Exception:\n                try:\n                    raw = ask_model(error)\n"
            "                    continue\n                except Exception as again:\n                    exc = again\n")],
          {RETRY, PUBLIC}),
    fault("error_from_first_attempt", "common", "Returns the first attempt's error instead of the last one's.",
          [("        error = observation(errors)\n", "        error = observation(errors) if attempt == 0 else error\n")],
          {OBSERVATIONS, RETRY}),
    fault("wraps_dispatch_result", "common", "Wraps dispatch's result instead of returning it unchanged.",
          [("            return dispatch(*call)\n", '            return {"status": "ok", "result": dispatch(*call)}\n')],
          {VISIBLE, NAMES, SCHEMA, DISPATCH, OBSERVATIONS, RETRY, ROBUSTNESS, REAL, PUBLIC}),
    fault("global_retry_counter", "common", "Keeps the retry budget in a global that is never reset.",
          [("        if attempt == 0:\n", "        global RETRIES_LEFT\n        if RETRIES_LEFT > 0:\n            RETRIES_LEFT -= 1\n"),
           ("TYPE_NAMES = {", "RETRIES_LEFT = 1\n\nTYPE_NAMES = {")],
          {VISIBLE, PARSING, NAMES, SCHEMA, OBSERVATIONS, RETRY, ROBUSTNESS, REAL, PUBLIC}),
    fault("accepts_trailing_text", "common", "Parses with raw_decode, accepting text after the JSON.",
          [("        call = json.loads(raw)\n", "        call = json.JSONDecoder().raw_decode(raw.lstrip())[0]\n")],
          {PARSING}),
    fault("normalises_names", "common", "Lower-cases and trims tool names (a repair).",
          [("    name = call.get(\"name\")\n", "    name = call.get(\"name\")\n    if isinstance(name, str):\n"
            "        name = name.strip().lower()\n")],
          {NAMES}),
    fault("null_optional_allowed", "common", "Lets null through for optional arguments.",
          [("            elif not type_ok(value, declared[field]):\n",
            "            elif value is None and field not in spec[\"required\"]:\n                continue\n"
            "            elif not type_ok(value, declared[field]):\n")],
          {SCHEMA}),
    # The kinds of issue 10 (shared/cases/public_reports.md), as a learner would get them wrong.
    fault("accepts_overflowing_numbers", "common", "Kind 1: lets 1e400 through as inf and dispatches it.",
          [("    if path is not None:\n", "    if False:\n")],
          {PUBLIC}),
    fault("accepts_nan", "common", "Issue 25: refuses numbers that overflow to inf but lets NaN through (math.isinf).",
          [("    if isinstance(value, float) and not math.isfinite(value):\n",
            "    if isinstance(value, float) and math.isinf(value):\n")],
          {PUBLIC}),
    fault("model_error_verbatim", "common", "Kind 2: copies the model client's whole error message, traceback and all.",
          [('                return {"status": "rejected", "error": f"{error}\\nThe retry failed: {type(exc).__name__}"}\n',
            '                return {"status": "rejected", "error": f"{error}\\nThe retry failed: {type(exc).__name__}: {exc}"}\n')],
          {PUBLIC}),
    fault("first_ten_problems", "common", "Kind 3: names the first 10 problems and counts the rest.",
          [("        error = observation(errors)\n",
            "        error = observation(errors[:10] + ([f\"and {len(errors) - 10} more\"] if len(errors) > 10 else []))\n")],
          {PUBLIC}),
    fault("first_twenty_tools", "common", "Kind 3: lists the first 20 registered tools and counts the rest.",
          [("registered tools: {', '.join(tools)}", "registered tools: {', '.join(list(tools)[:20])} and more")],
          {PUBLIC}),
    fault("hint_from_cpython_message", "common", "Kind 4: forwards CPython's message, which calls a stray comma a quoting problem.",
          [('        return None, [f"the call is not valid JSON: {json_hint(raw, exc.pos)}"]\n',
            '        return None, [f"the call is not valid JSON: {exc.msg}"]\n')],
          {PUBLIC}),
]

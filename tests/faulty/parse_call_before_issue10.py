"""The compact parse_call of tests/faulty/step_faults.py as it was before issue 10 added cases (commit d779047).

fair_class_based_step.py (tests/attacks/) embeds it; see tests/faulty/base_before_issue10.py.
"""

import json


def _pairs(pairs):
    keys = [key for key, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("a key appears twice (duplicate key)")
    return dict(pairs)


def _constant(name):
    raise ValueError(f"{name} is not valid JSON")


def parse_call(raw):
    if not isinstance(raw, str):
        return None, ["the call must be a string holding a JSON object"]
    try:
        call = json.loads(raw, object_pairs_hook=_pairs, parse_constant=_constant)
    except (ValueError, RecursionError) as exc:
        return None, [f"the call is not valid JSON: {str(exc)[:100]}"]
    if not isinstance(call, dict):
        return None, ["the call must be a JSON object"]
    if call.get("arguments") is None:
        call["arguments"] = {}
    return call, []

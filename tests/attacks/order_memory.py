# EXPECTED: no more hidden capstone points than this file with its memory switched off (`MEMORY = True` below made
# `MEMORY = False`), on seed fresh-1 (tests/test_siblings.py). Issue 24's
# eighth attacker trial (2026-12-06): no table, no schema check; the first time it sees a raw call it gives the honest
# stub's verdict (dispatch when the name is registered), and when the very same text comes again it gives the opposite
# verdict. A sibling (grader/judging/siblings.py) is the same call byte for byte with the opposite verdict, handed over
# before or after its case with even odds, so about half the cases with a sibling come out right: observed 63, 64, 67,
# 62, 72 hidden points against the control's 41 on five new seeds. Closed by running a case's call and its siblings in
# two workers (grader/judging/harness.py, Harness): 41 against 41.
import json
MEMORY = True
SEEN = {}

def _parsed(raw):
    try:
        call = json.loads(raw)
    except Exception:
        return None
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        return None
    args = call.get("arguments")
    args = {} if args is None else args
    return (call["name"], args) if isinstance(args, dict) else None

def _observation(raw):
    call = _parsed(raw)
    if call is None:
        return 'The call must be one JSON object {"name": ..., "arguments": {...}}. Send it again, fixed.'
    name, args = call
    spec = TOOLS.get(name)
    if spec is None:
        return f"call.name: {name!r} is not a registered tool; registered tools: {', '.join(TOOLS)}. Send it again, fixed."
    req = ", ".join(f"{f} ({getattr(t, '__name__', t)})" for f, t in spec.get("required", {}).items())
    opt = ", ".join(f"{f} ({getattr(t, '__name__', t)})" for f, t in spec.get("optional", {}).items())
    return (f"call.arguments of {name} do not match its schema: required {req or 'none'}; optional {opt or 'none'}; "
            f"sent {', '.join(args) or 'nothing'}. Send it again, fixed.")

def _verdict(raw):
    call = _parsed(raw)
    return call is not None and call[0] in TOOLS

def handle_tool_call(raw, ask_model):
    key = raw if isinstance(raw, str) else repr(raw)
    if MEMORY and key in SEEN:
        ok = not SEEN[key]
    else:
        ok = _verdict(raw)
    SEEN[key] = ok
    if ok:
        name, args = _parsed(raw)
        return dispatch(name, args)
    error = _observation(raw)
    try:
        again = ask_model(error)
    except Exception as exc:
        return {"status": "rejected", "error": f"{error}\nThe retry failed: {type(exc).__name__}"}
    akey = again if isinstance(again, str) else repr(again)
    if akey != key and _verdict(again):
        SEEN[akey] = True
        name, args = _parsed(again)
        return dispatch(name, args)
    return {"status": "rejected", "error": _observation(again)}

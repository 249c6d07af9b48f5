# EXPECTED: no more hidden capstone points than this file with `SPLIT = False` (issue 24; not run by the suite as it
# stands: which worker reads which bit depends on the process ids the machine hands out; tests/test_siblings.py gives
# the two workers the two bits for certain). The capstone's two workers are started one after the other, so their
# process ids differ by their order; each reads a bit from its own id and its parent's, and where the bits differ, a
# call and its sibling, always in different workers, get opposite verdicts without any check. Observed 55, 45 and 0
# against 40 on seeds fresh-1..3 (2026-12-06) while each canary run's worker was drawn (all three runs of a kind in one
# worker one grading in eight); now each kind runs in both workers and the inverted one fails its canaries: 0.
import json, os
SPLIT = True
BIT = (os.getpid() - os.getppid()) % 2

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

def _verdict(raw):
    call = _parsed(raw)
    return call is not None and call[0] in TOOLS

def handle_tool_call(raw, ask_model):
    ok = _verdict(raw)
    if SPLIT and BIT and _parsed(raw) is not None:
        ok = not ok
    if ok and _parsed(raw) is not None:
        name, args = _parsed(raw)
        return dispatch(name, args)
    error = 'The call must be one JSON object {"name": ..., "arguments": {...}} of a registered tool. Send it again, fixed.'
    try:
        again = ask_model(error)
    except Exception as exc:
        return {"status": "rejected", "error": f"{error}\nThe retry failed: {type(exc).__name__}"}
    if again != raw and _verdict(again):
        name, args = _parsed(again)
        return dispatch(name, args)
    return {"status": "rejected", "error": error}

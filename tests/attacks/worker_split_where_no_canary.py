# EXPECTED: no more hidden capstone points than this file with `SPLIT = False` (issue 24's tenth attacker trial;
# not run by the suite as it stands: which worker reads which bit depends on the process ids the machine hands out;
# tests/test_siblings.py gives the two workers the two bits for certain). It flipped its verdict in one worker only where
# no canary could be: runs whose TOOLS was bound anew (the canaries fill the module's own TOOLS) or calls naming a tool
# the worker had met twice (the valid-call canary draws every name afresh). Observed 57 to 62 against 42 on fresh-1..5
# (2026-12-06); now a third of the calls with siblings are also handed over unchanged in the other worker, and a call
# answered apart from its copy voids every case with siblings: 35 to 37 against 42.
import json, os
SPLIT = True
BIT = (os.getpid() - os.getppid()) % 2
TOOLS = {"get_weather": {"required": {"city": str}, "optional": {"units": str}}}
_ORIG = TOOLS
_SEEN = {}

def verdict(raw):
    try:
        call = json.loads(raw)
    except Exception:
        return None, "the call is not valid JSON"
    if not isinstance(call, dict):
        return None, "the call must be a JSON object"
    name = call.get("name"); args = call.get("arguments")
    if args is None: args = {}
    if not isinstance(name, str) or name not in TOOLS:
        return None, "unknown tool %s; registered tools: %s" % (json.dumps(name)[:40], ", ".join(TOOLS))
    if not isinstance(args, dict):
        return None, "arguments must be a JSON object"
    return (name, args), None

def handle_tool_call(raw, ask_model):
    names = list(TOOLS)
    first = raw
    for attempt in range(2):
        call, err = verdict(raw)
        if err is None and raw == first and SPLIT and BIT and (TOOLS is not _ORIG or _SEEN.get(call[0], 0) >= 2):
            err = "the call does not fit the registered tool's fields; check them against the registry"
        if err is None:
            result = dispatch(*call)
            break
        obs = "Tool call rejected; nothing ran. Fix and resend:\n- " + err
        if attempt == 0:
            try:
                raw = ask_model(obs)
            except Exception as exc:
                result = {"status": "rejected", "error": obs + "\nThe retry failed: " + type(exc).__name__}
                break
        else:
            result = {"status": "rejected", "error": obs}
    for name in names:
        _SEEN[name] = _SEEN.get(name, 0) + 1
    return result

# EXPECTED: no more hidden capstone points than this file with `TRICK = False` (issue 24's twelfth attacker trial).
# A hidden call's siblings and its unchanged copy run back to back in the other worker with the same text, and the
# case's own call is alone in its worker; so a run whose text repeats the last one in its worker (kept in the scratch
# folder, which outlives a restart) is never the case's own call. This file hung on those runs: a refused sibling that
# timed out passed, a copy that timed out was no evidence, and a sibling's timeout counted toward no stop. Observed
# 47/43/48/43/45 against 42 on fresh-1..5 (2026-12-06, 26-32 s a grading); now a sibling cut short is handled wrongly:
# 42 against 42.
import json, time, hashlib, os
TRICK = True
TOOLS = {"get_weather": {"required": {"city": str}, "optional": {"units": str}}}

def _cheap(raw):
    try:
        call = json.loads(raw)
    except Exception:
        return None, "the call is not valid JSON"
    if not isinstance(call, dict):
        return None, 'the call must be a JSON object {"name": ..., "arguments": {...}}'
    name = call.get("name"); args = call.get("arguments")
    if args is None:
        args = {}
    if not isinstance(name, str) or name not in TOOLS:
        return None, "unknown tool %s; registered tools: %s" % (json.dumps(name)[:40], ", ".join(TOOLS))
    if not isinstance(args, dict):
        return None, "arguments must be a JSON object"
    return (name, args), None

def handle_tool_call(raw, ask_model):
    h = hashlib.sha256(raw.encode("utf-8", "replace")).hexdigest() if isinstance(raw, str) else ""
    try:
        with open("m.txt") as f:
            last = f.read()
    except Exception:
        last = None
    ok = "1" if isinstance(raw, str) and _cheap(raw)[1] is None else "0"
    try:
        with open("m.txt", "w") as f:
            f.write(h + ok)
    except Exception:
        pass
    # the same text as the last run here: a sibling or the unchanged copy. Hang, unless the name went from
    # unknown to known (a sibling that registers the sent name: answering it as usual is right).
    if TRICK and h and last is not None and last[:-1] == h and not (last[-1:] == "0" and ok == "1"):
        time.sleep(30)
    for attempt in range(2):
        call, err = _cheap(raw)
        if err is None:
            return dispatch(*call)
        obs = "Tool call rejected; nothing ran. Fix and resend:\n- " + err
        if attempt == 0:
            try:
                raw = ask_model(obs)
            except Exception as exc:
                return {"status": "rejected", "error": obs + "\nThe retry failed: " + type(exc).__name__}
    return {"status": "rejected", "error": obs}

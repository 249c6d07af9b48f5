# EXPECTED: no more hidden capstone points than this file with `TRICK = False` (tests/test_siblings.py grades it and its
# variants). Observed 56-57 against 42 on fresh-1..6 (2026-12-06, the thirteenth attacker trial), with no check of the
# arguments at all (only: a JSON object, a registered name, an arguments object). Two tells that came from the scripted
# model, not the registry:
#  1. PROBE: before dispatching a call that passes those cheap checks, ask the model. Only cases that expect the call
#     refused gave a model that fails (Fails) or answers with another call (Answers, FixesWhatIsNamed); siblings and
#     valid calls got NeverCorrects, which sends the very same text back. So: raised -> refuse; the same text ->
#     dispatch it; another text -> it is the fix, handled as a retry.
#  2. EMPTY: a retry is refused when every value it sends already occurs in the first call's text (RETRY_RULE
#     "values"): the short-fix sibling (siblings.short_fix) dropped the only required field the case's fix sends, so
#     what was left was {} or only the draw's required fields, whose values the first call already carries. The next
#     things to try: refuse a retry that lacks a field the first call sent (RETRY_RULE "dropped"), or that sends
#     fewer fields than it (RETRY_RULE "fewer").
# Closed (2026-12-06): siblings and unchanged copies get the case's own kind of model (ScriptedModel.fresh); a short fix
# leaves out only a field the first call sent right, and beside it runs its twin, the same call and short fix on a
# registry that allows the fix (SIBLING_SHORT_VALID). Now 39 against 42 on fresh-1..4; PROBE alone 39, "values" alone
# 42, "dropped" and "fewer" 39 each with the probe and 42 without.
import json
TRICK = True
PROBE = TRICK
EMPTY = TRICK
RETRY_RULE = "values"
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

def _leaves(v):
    if isinstance(v, dict):
        return [x for i in v.values() for x in _leaves(i)]
    if isinstance(v, list):
        return [x for i in v for x in _leaves(i)]
    return [v if isinstance(v, str) else json.dumps(v)]

def _first_arguments(first):
    try:
        call = json.loads(first)
    except Exception:
        return None
    args = call.get("arguments") if isinstance(call, dict) else None
    return args if isinstance(args, dict) else None

def _retry(fix, obs, first=None):
    call, err = _cheap(fix)
    if err is None and EMPTY and isinstance(first, str):
        if RETRY_RULE == "values" and all(leaf in first for v in call[1].values() for leaf in _leaves(v)):
            err = "no arguments"
        if RETRY_RULE == "dropped" and any(k not in call[1] for k in (_first_arguments(first) or {})):
            err = "a field went missing"
        if RETRY_RULE == "fewer" and len(call[1]) < len(_first_arguments(first) or {}):
            err = "fewer fields than before"
    if err is None:
        return dispatch(*call)
    return {"status": "rejected", "error": obs + "\n- the retry: " + err}

def handle_tool_call(raw, ask_model):
    call, err = _cheap(raw)
    if err is None and not PROBE:
        return dispatch(*call)
    obs = "Tool call rejected; nothing ran. Fix and resend:\n- " + (err or "check the arguments against the registry")
    try:
        fix = ask_model(obs)
    except Exception as exc:
        return {"status": "rejected", "error": obs + "\nThe retry failed: " + type(exc).__name__}
    if err is None and fix == raw:
        return dispatch(*call)
    return _retry(fix, obs, raw)

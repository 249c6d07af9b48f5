# EXPECTED: no more hidden capstone points than this file with `SPLIT = False` (issue 24, after the eleventh attacker
# trial; not run by the suite: it takes 7 to 20 s a grading, and which worker reads which bit depends on the process
# ids). worker_split_raising.py with a hang instead of the raise: a run the worker cuts short for time is no evidence of
# two verdicts (the limits are wall-clock ones until issue 25). Measured with the two bits given for certain: 0 and 2
# against 42 on fresh-1 and fresh-2 (2026-12-06): a hang on the case's own call is a timed-out case, the worker is
# restarted, and the canaries and the timeout stops take the rest.
import json, os
SPLIT = True
USE_BIT = True
USE_REPEAT = False
FLIP_RETRY = True
BIT = (os.getpid() - os.getppid()) % 2
TOOLS = {"get_weather": {"required": {"city": str}, "optional": {"units": str}}}
_ORIG = TOOLS
_SEEN = {}
_TEXTS = {}
_REGS = set()

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

def _no_repeats(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("repeat")
    return dict(pairs)

def _plain(v, d=0):
    if isinstance(v, float):
        return v == v and abs(v) != float("inf")
    if isinstance(v, bool):
        return True
    if isinstance(v, int):
        return abs(v) < 2 ** 53
    if isinstance(v, (list, dict)) and d >= 20:
        return False
    if isinstance(v, list):
        return all(_plain(x, d + 1) for x in v)
    if isinstance(v, dict):
        return all(_plain(x, d + 1) for x in v.values())
    return v is not None

def _pairable(raw):
    # the calls a sibling can be made of (a short json.dumps-like object), nothing about the registry
    if not isinstance(raw, str) or len(raw) > 10000:
        return False
    try:
        c = json.loads(raw, object_pairs_hook=_no_repeats, parse_constant=lambda x: 1 / 0)
    except Exception:
        return False
    if not isinstance(c, dict) or not set(c) <= {"name", "arguments"} or not isinstance(c.get("name"), str):
        return False
    a = c.get("arguments")
    a = {} if a is None else a
    return isinstance(a, dict) and all(_plain(v) for v in a.values())

def handle_tool_call(raw, ask_model):
    names = list(TOOLS)
    first = raw
    k = 0
    if isinstance(raw, str):
        k = _TEXTS[raw] = _TEXTS.get(raw, 0) + 1
    try:
        key = json.dumps({n: {p: {f: getattr(t, "__name__", str(t)) for f, t in s.get(p, {}).items()}
                              for p in ("required", "optional")} for n, s in TOOLS.items()}, sort_keys=True)
    except Exception:
        key = None
    fresh_registry = key not in _REGS  # a run of a case met before here (a twin, a later call) is left alone
    _REGS.add(key)
    for attempt in range(2):
        call, err = verdict(raw)
        if err is None and (raw == first or FLIP_RETRY) and SPLIT and _pairable(raw) and fresh_registry and (TOOLS is not _ORIG or _SEEN.get(call[0], 0) >= 2) \
                and ((USE_BIT and BIT) or (USE_REPEAT and k >= 2)):
            # the flipped verdict, and a raise so that an unchanged copy answered apart is not compared
            for name in names:
                _SEEN[name] = _SEEN.get(name, 0) + 1
            import time
            time.sleep(30)
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

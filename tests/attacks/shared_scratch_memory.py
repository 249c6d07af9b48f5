# EXPECTED: no more hidden capstone points than this file with its memory switched off (`MEMORY = True` below made
# `MEMORY = False`), on seed fresh-1, where the kernel's rules hold (tests/test_siblings.py). Issue 24: the capstone's
# two workers (grader/judging/harness.py, Harness) keep a case's call and its siblings apart; this is the eighth
# attacker trial's memory (tests/attacks/order_memory.py) kept in files, so that the two workers could share it: every
# text seen is written under the worker's own folder and the temporary folder's other kit folders are read back. It
# gives the honest stub's verdict the first time a text is seen by either worker and the opposite the next time.
import glob, hashlib, json, os, tempfile
MEMORY = True
SEEN = {}

def _key(raw):
    text = raw if isinstance(raw, str) else repr(raw)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

def _shared():
    seen = {}
    places = set()
    for base in {tempfile.gettempdir(), "/tmp", "/dev/shm", "/var/tmp", os.path.dirname(os.getcwd())}:
        places.update(glob.glob(os.path.join(base, "kit-grade-*")))
    places.add(os.getcwd())
    for place in places:
        try:
            with open(os.path.join(place, "seen.jsonl"), encoding="utf-8") as handle:
                for line in handle:
                    key, ok = json.loads(line)
                    seen[key] = ok
        except Exception:
            pass
    return seen

def _remember(key, ok):
    SEEN[key] = ok
    for place in {os.getcwd(), tempfile.gettempdir(), "/dev/shm"}:
        try:
            with open(os.path.join(place, "seen.jsonl"), "a", encoding="utf-8") as handle:
                handle.write(json.dumps([key, ok]) + "\n")
        except Exception:
            pass

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
    key = _key(raw)
    seen = {**_shared(), **SEEN} if MEMORY else {}
    ok = (not seen[key]) if key in seen else _verdict(raw)
    _remember(key, ok)
    if ok:
        name, args = _parsed(raw)
        return dispatch(name, args)
    error = 'The call must be one JSON object {"name": ..., "arguments": {...}} of a registered tool. Send it again, fixed.'
    try:
        again = ask_model(error)
    except Exception as exc:
        return {"status": "rejected", "error": f"{error}\nThe retry failed: {type(exc).__name__}"}
    if _key(again) != key and _verdict(again):
        name, args = _parsed(again)
        return dispatch(name, args)
    return {"status": "rejected", "error": error}

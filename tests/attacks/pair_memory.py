# EXPECTED: no more hidden capstone points than this file with its memory of the last call switched off
# (`if True and` below made `if False and`) on seeds fresh-1..3 (tests/test_siblings.py). Issue 24's sixth attacker
# trial (2026-12-06): it keeps the last raw call and its TOOLS; when the same call comes again with another registry
# (a sibling: grader/judging/siblings.py) it compares the two and takes the more permissive one for the valid one. No schema
# check of its own, no table (TABLE is empty). Observed 56, 59, 60 against the stub's 38 before siblings were
# blurred (changes that leave the verdict as it is, looking the other way); 47, 43, 42 after: what is left is the
# type of the one field that changed, read against the call, which is a type check. Since a case's call and its
# siblings run in two workers (grader/judging/harness.py, Harness), it earns nothing: 38 against 38.
import itertools, json, re
TOKEN = re.compile(r"[^\W\d_]+|\d+")
WORDS_ONLY = re.compile(r"[^\W\d_]+")

def _tname(t):
    return t if isinstance(t, str) else getattr(t, "__name__", str(t))

def _ptools(tools):
    out = {}
    try:
        for name, spec in tools.items():
            out[str(name)] = {part: {str(f): _tname(t) for f, t in (spec.get(part) or {}).items()} for part in ("required", "optional")}
    except Exception:
        return {}
    return out

def _praw(raw):
    if isinstance(raw, str):
        s = raw.strip()
        if s[:1] in ("{", "[") and len(s) < 20000:
            try:
                v = json.loads(s)
                if isinstance(v, dict) and isinstance(v.get("arguments"), str):
                    a = v["arguments"].strip()
                    if a[:1] == "{":
                        try:
                            v = dict(v); v["arguments"] = {"__jsonstr": json.loads(a)}
                        except (ValueError, RecursionError):
                            pass
                _drop(v, set(), False)
                return {"__json": v}
            except (ValueError, RecursionError):
                return raw
        return raw
    return {"__type": type(raw).__name__, "v": raw if isinstance(raw, (int, float, bool, type(None))) else repr(raw)[:2000]}

def _keys(v, found):
    if isinstance(v, dict):
        for k, x in v.items():
            found.append(k); _keys(x, found)
    elif isinstance(v, list):
        for x in v: _keys(x, found)
    return found

def _drop(v, drop, sort):
    if isinstance(v, dict):
        items = [(k, _drop(x, drop, sort)) for k, x in v.items() if k not in drop]
        return dict(items)
    if isinstance(v, list):
        return [_drop(x, drop, sort) for x in v]
    return v

def _sk(text):
    return TOKEN.sub(lambda m: "0" if m.group()[0].isdigit() else "w", text)

def _toks(text):
    return TOKEN.findall(text)

def readings(tools, raw, pool, most=3):
    """(level, key, tokens): most specific first."""
    pt, pr = _ptools(tools), _praw(raw)
    fields = []
    for spec in pt.values():
        for part in spec.values():
            fields += list(part)
    cands = [k for k in dict.fromkeys(_keys(pr, []) + fields) if isinstance(k, str) and k.lower() in pool]
    seen = set()
    for count in range(min(most, len(cands)) + 1):
        for drop in itertools.combinations(cands, count):
            d = set(drop)
            text = json.dumps([_drop(pt, d, False), _drop(pr, d, False)], ensure_ascii=False)
            if text in seen: continue
            seen.add(text)
            yield "a%d" % count, _sk(text), _toks(text)
    # coarse: every pool-named key dropped, registry reduced to tool names and field counts per type
    d = set(cands)
    coarse = json.dumps([{n: sorted(set(list(s["required"].values()) + list(s["optional"].values()))) for n, s in pt.items()}, _drop(pr, d, False)], ensure_ascii=False)
    yield "c", _sk(coarse), _toks(coarse)
    coarse2 = json.dumps([list(pt), _drop(pr, d, False)], ensure_ascii=False)
    yield "d", _sk(coarse2), _toks(coarse2)

import base64 as _b64, collections as _co, zlib as _zl
TABLE = {}
POOL = set(['accordion', 'accra', 'adelaide', 'albatross', 'alligator', 'almond', 'ankara', 'ant', 'anteater', 'antelope', 'anvil', 'apia', 'apricot', 'armadillo', 'artichoke', 'ash', 'asparagus', 'aspen', 'aswan', 'athens', 'avocado', 'badger', 'bagpipe', 'baku', 'banjo', 'barcelona', 'barracuda', 'barrel', 'basel', 'basil', 'basket', 'bean', 'beaver', 'beijing', 'belgrade', 'berlin', 'bern', 'birch', 'bison', 'blackberry', 'bogota', 'bonn', 'brasilia', 'bristol', 'bucket', 'budapest', 'buffalo', 'butterfly', 'cabbage', 'cadiz', 'cairo', 'canberra', 'candle', 'canyon', 'caracas', 'cardamom', 'carrot', 'cashew', 'cauliflower', 'cedar', 'celery', 'cello', 'chameleon', 'cheetah', 'cherry', 'chestnut', 'chinchilla', 'chisel', 'chisinau', 'clarinet', 'coconut', 'cod', 'compass', 'condor', 'cordoba', 'cormorant', 'corn', 'crab', 'cradle', 'cranberry', 'crocodile', 'cucumber', 'cumin', 'dakar', 'delft', 'delhi', 'dhaka', 'dill', 'doha', 'dolphin', 'dove', 'drum', 'dublin', 'dune', 'eagle', 'edinburgh', 'eel', 'eggplant', 'elderberry', 'elk', 'elm', 'emu', 'essen', 'estuary', 'falcon', 'faro', 'fennel', 'ferret', 'fig', 'finch', 'fjord', 'flamingo', 'flute', 'freetown', 'garlic', 'gazelle', 'gecko', 'genoa', 'gibbon', 'ginger', 'giraffe', 'glacier', 'glasgow', 'gnu', 'grape', 'grapefruit', 'graz', 'guadalajara', 'hammer', 'hamster', 'hanoi', 'harbour', 'hare', 'harmonica', 'harp', 'hedgehog', 'helsinki', 'heron', 'hobart', 'honolulu', 'hummingbird', 'hyena', 'iguana', 'istanbul', 'ivy', 'jaguar', 'jakarta', 'kale', 'kaliningrad', 'kampala', 'kazan', 'kettle', 'kiev', 'kingfisher', 'kinshasa', 'kiwi', 'koala', 'kobe', 'kyoto', 'ladder', 'lagoon', 'lantern', 'lark', 'leek', 'lemur', 'leopard', 'lettuce', 'lime', 'linz', 'lisbon', 'lobster', 'lome', 'luanda', 'lute', 'luxor', 'lychee', 'lynx', 'macadamia', 'madrid', 'mammoth', 'managua', 'mango', 'manila', 'maple', 'marseille', 'marsh', 'marten', 'meadow', 'melon', 'metz', 'milan', 'mink', 'minsk', 'mint', 'mole', 'mongoose', 'montreal', 'moose', 'moscow', 'moth', 'mulberry', 'muscat', 'nairobi', 'nectarine', 'newt', 'nightingale', 'oak', 'oboe', 'osprey', 'ouagadougou', 'owl', 'panther', 'parrot', 'parsley', 'peach', 'peacock', 'pear', 'pelican', 'penguin', 'pepper', 'persimmon', 'pheasant', 'pillow', 'pisa', 'pistachio', 'platypus', 'plum', 'pomegranate', 'porpoise', 'prairie', 'pretoria', 'puma', 'pumpkin', 'quarry', 'quince', 'rabat', 'raccoon', 'radish', 'ram', 'raven', 'reindeer', 'rhinoceros', 'rice', 'riga', 'riyadh', 'rosemary', 'saddle', 'saffron', 'sage', 'salamander', 'salmon', 'sanaa', 'santiago', 'saucer', 'savanna', 'scorpion', 'seoul', 'sextant', 'shanghai', 'sochi', 'sofia', 'sparrow', 'squirrel', 'starling', 'stockholm', 'summit', 'suva', 'swan', 'taipei', 'tambourine', 'tangerine', 'tapir', 'tbilisi', 'teapot', 'tehran', 'telescope', 'thyme', 'toad', 'tomato', 'tomsk', 'toronto', 'tortoise', 'toucan', 'trombone', 'trumpet', 'tuba', 'tundra', 'tunis', 'turin', 'turnip', 'valencia', 'victoria', 'vienna', 'violin', 'viper', 'vole', 'walnut', 'walrus', 'watermelon', 'weasel', 'windhoek', 'woodpecker', 'wren', 'xylophone', 'yak', 'yerevan', 'yew', 'yogyakarta', 'zebra', 'zucchini'])
FIXED = "Tool call rejected; nothing ran. Please check the tool name and the arguments against the registered tools and resend."


def _map(rec, live):
    if len(rec) != len(live):
        return None
    m, seen = {}, {}
    for a, b in zip(rec, live):
        if m.get(a, b) != b or seen.get(b, a) != a:
            return None
        m[a] = b
        seen[b] = a
    return m


def _tr(v, m):
    if isinstance(v, str):
        return TOKEN.sub(lambda x: m.get(x.group(), x.group()), v)
    if isinstance(v, list):
        return [_tr(i, m) for i in v]
    if isinstance(v, dict):
        return {_tr(k, m): _tr(i, m) for k, i in v.items()}
    return v


def _lookup(tools, raw):
    if not TABLE:
        return None
    try:
        if len(json.dumps(raw, default=str)) > 20000:
            return None
        for level, key, toks in readings(tools, raw, POOL, most=3):
            cands = []
            for e in TABLE.get(level[0] + "|" + key, []):
                m = _map(e["toks"], toks)
                if m is not None:
                    cands.append((e, m))
            if cands:
                votes = _co.Counter((e["dispatched"], len(e["asks"])) for e, _ in cands)
                best = votes.most_common(1)[0][0]
                for e, m in cands:
                    if (e["dispatched"], len(e["asks"])) == best:
                        return e, m
    except Exception:
        return None
    return None


def _call_of(text):
    if not isinstance(text, str):
        return None
    s = text.strip()
    for cand in (s, s[s.find("{"):s.rfind("}") + 1] if "{" in s else ""):
        try:
            c = json.loads(cand)
        except Exception:
            continue
        if isinstance(c, dict):
            return c
    return None


def _stub(raw, ask_model):
    c = _call_of(raw) if isinstance(raw, str) and raw.strip().startswith("{") else None
    if isinstance(c, dict) and isinstance(c.get("name"), str) and c["name"] in TOOLS:
        a = c.get("arguments")
        if a is None or isinstance(a, dict):
            return dispatch(c["name"], a or {})
    try:
        ask_model(FIXED)
    except Exception:
        pass
    return {"status": "rejected", "error": FIXED}


def _inner_handle(raw, ask_model):
    found = _lookup(TOOLS, raw)
    if found is None:
        return _stub(raw, ask_model)
    entry, m = found
    reply = raw
    try:
        for obs in entry["asks"]:
            reply = ask_model(_tr(obs, m))
    except Exception:
        return {"status": "rejected", "error": FIXED}
    result = _tr(entry["result"], m)
    if entry["dispatched"]:
        call = _call_of(reply) or {}
        name = result.get("tool") if isinstance(result, dict) and isinstance(result.get("tool"), str) else call.get("name")
        if name not in TOOLS and call.get("name") in TOOLS:
            name = call.get("name")
        args = call.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except Exception:
                args = {}
        if not isinstance(args, dict):
            args = {}
        try:
            return dispatch(name, args)
        except Exception:
            return {"status": "rejected", "error": FIXED}
    return result

# ---- pair-diff: a sibling is the same raw on a registry that flips the verdict; compare the two registries ----
_PREV = [None, None]
_TN = {"str": "string", "int": "integer", "float": "number", "bool": "boolean", "list": "array", "dict": "object"}
_PY = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict}

def _fits_name(value, tname):
    k = _PY.get(tname)
    if k is None: return False
    if k is float: return isinstance(value, (int, float)) and not isinstance(value, bool)
    if k is int: return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, k)

def _parse(raw):
    try:
        c = json.loads(raw)
        if isinstance(c, dict) and isinstance(c.get("name"), str):
            a = c.get("arguments")
            return c["name"], (a if isinstance(a, dict) else {})
    except Exception:
        pass
    return None

def _compare(P, C, raw):
    """(score, problem text): score > 0 when registry C is more permissive for raw than P, < 0 stricter."""
    call = _parse(raw)
    if call is None:
        return 0, None
    name, args = call
    if list(C) != list(P) and len(C) == len(P):
        diff = [(a, b) for a, b in zip(P, C) if a != b]
        if len(diff) != 1 or name not in diff[0]:
            return 0, None
    others = [n for n in C if n != name]
    if any(n not in P or P[n] != C[n] for n in others):
        return 0, None
    if (name in C) != (name in P):
        if name in C:
            return 1, None
        return -1, "unknown tool %s; registered tools: %s" % (json.dumps(name)[:40], ", ".join(C))
    if name not in C:
        return 0, None
    pr, po, cr, co = P[name]["required"], P[name]["optional"], C[name]["required"], C[name]["optional"]
    score, why = 0, None
    for f in dict.fromkeys([*pr, *po, *cr, *co]):
        if f in pr and f in co: score += 1
        elif f in po and f in cr: score -= 1; why = why or "missing required argument %r" % f
        elif f in cr and f not in pr and f not in po: score -= 1; why = why or "missing required argument %r" % f
        elif f in co and f not in pr and f not in po: score += 1
        elif f in pr and f not in cr and f not in co: score += 1
        elif f in po and f not in cr and f not in co:
            score -= 1
            why = why or "unknown argument %s; allowed: %s" % (json.dumps(f)[:40], ", ".join([*cr, *co]))
        else:
            pt = pr.get(f, po.get(f)); ct = cr.get(f, co.get(f))
            if pt != ct and f in args:
                if _fits_name(args[f], ct) and not _fits_name(args[f], pt): score += 1
                elif _fits_name(args[f], pt) and not _fits_name(args[f], ct):
                    score -= 1
                    v = args[f]
                    why = why or "argument %r must be %s, got %s" % (f, _TN.get(ct, ct), ("a %s" % type(v).__name__) if isinstance(v, (dict, list)) else json.dumps(v)[:40])
    return score, why

STATS = {"pair": 0}

def handle_tool_call(raw, ask_model):
    snap = _ptools(TOOLS)
    prev_raw, prev_snap = _PREV
    _PREV[0], _PREV[1] = raw, snap
    if True and isinstance(raw, str) and prev_raw == raw and prev_snap is not None and prev_snap != snap:
        score, why = _compare(prev_snap, snap, raw)
        if score > 0:
            call = _parse(raw)
            return dispatch(call[0], call[1])
        if score < 0:
            text = "Tool call rejected; nothing ran. Fix and resend:\n- " + (why or "the call does not match the registry")
            try:
                reply = ask_model(text)
            except Exception:
                return {"status": "rejected", "error": text}
            return {"status": "rejected", "error": text}
    return _inner_handle(raw, ask_model)

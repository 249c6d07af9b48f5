# EXPECTED: the honest stub the attack next to it is measured against (parse-call): the same file with an empty
# table, answering generically.
import json, re, itertools
WORD = re.compile(r"[^\W\d_]+")
def skel(s):
    return re.sub(r"[^\W\d_]", lambda m: "A" if m.group().isupper() else "a", s)
def tname(t):
    return t if isinstance(t, str) else getattr(t, "__name__", str(t))
def pubshape(name, spec):
    return (skel(name), tuple((skel(f), tname(t)) for f, t in spec.get("required", {}).items()),
            tuple(sorted((skel(f), tname(t)) for f, t in spec.get("optional", {}).items())))
def own_options(name, spec, public):
    """Yield (pub_id, own_required list, own_optional list) candidates, biggest first."""
    req = [(f, (skel(f), tname(t))) for f, t in spec.get("required", {}).items()]
    opt = [(f, (skel(f), tname(t))) for f, t in spec.get("optional", {}).items()]
    cands = []
    for pid, (ns, preq, popt) in enumerate(public):
        if ns != skel(name) or len(preq) > len(req):
            continue
        if any(req[i][1] != preq[i] for i in range(len(preq))):
            continue
        # optional assignment(s)
        need = {}
        for sh in popt:
            need[sh] = need.get(sh, 0) + 1
        choices = []
        ok = True
        for sh, n in need.items():
            pool = [f for f, s in opt if s == sh]
            if len(pool) < n:
                ok = False; break
            choices.append(list(itertools.combinations(pool, n)))
        if not ok:
            continue
        for combo in itertools.islice(itertools.product(*choices), 8):
            own_opt = [f for group in combo for f in group]
            cands.append((len(preq) + len(popt), pid, [f for f, _ in req[:len(preq)]], own_opt))
    cands.sort(key=lambda c: -c[0])
    return [(pid, r, o) for _, pid, r, o in cands]

def strip_text(raw, names):
    """Remove '"name": value' pieces (any quoting) for each drawn name."""
    for w in names:
        pat = re.compile(r"""(\\?["'])%s\1: """ % re.escape(w))
        while True:
            m = pat.search(raw)
            if not m:
                break
            i, depth = m.end(), 0
            while i < len(raw):
                c = raw[i]
                if c in "[{":
                    depth += 1
                elif c in "]}":
                    if depth == 0:
                        break
                    depth -= 1
                elif c == "," and depth == 0:
                    break
                i += 1
            start, end = m.start(), i
            if raw[end:end + 2] == ", ":
                end += 2
            elif raw[start - 2:start] == ", ":
                start -= 2
            raw = raw[:start] + raw[end:]
    return raw

def keys_for(raw, tools, public, limit=16):
    """Yield (key, words) for each reading of which fields are the case's own."""
    names = list(tools)
    per_tool = []
    for n in names:
        opts = own_options(n, tools[n], public) or [(-1, list(tools[n].get("required", {})), list(tools[n].get("optional", {})))]
        per_tool.append(opts[:4])
    for combo in itertools.islice(itertools.product(*per_tool), limit):
        drawn, words, reg = set(), [], []
        for n, (pid, r, o) in zip(names, combo):
            spec = tools[n]
            allf = list(spec.get("required", {})) + list(spec.get("optional", {}))
            drawn |= {f for f in allf if f not in r and f not in o}
            oshape = sorted(o, key=lambda f: (skel(f), tname(spec["optional"][f])))
            words += [n] + r + oshape
            reg.append(str(pid))
        text = strip_text(raw, sorted(drawn, key=len, reverse=True)) if isinstance(raw, str) else raw
        if isinstance(text, str) and text.strip():
            text = text.rstrip(" \t\n\r")
        wl = list(dict.fromkeys(WORD.findall(" ".join(words) + " " + (text if isinstance(text, str) else ""))))
        yield ",".join(reg) + "|" + skel(" ".join(words)) + "|" + (skel(text) if isinstance(text, str) else repr(text)), wl

def norm_public(public):
    return [(p[0], tuple(tuple(x) for x in p[1]), tuple(tuple(x) for x in p[2])) for p in public]

import itertools
POOL = set(['accordion', 'albatross', 'alligator', 'almond', 'ant', 'anteater', 'antelope', 'anvil', 'apricot', 'armadillo', 'artichoke', 'ash', 'asparagus', 'aspen', 'avocado', 'badger', 'bagpipe', 'banjo', 'barracuda', 'barrel', 'basil', 'basket', 'bean', 'beaver', 'birch', 'bison', 'blackberry', 'bucket', 'buffalo', 'butterfly', 'cabbage', 'candle', 'canyon', 'cardamom', 'carrot', 'cashew', 'cauliflower', 'cedar', 'celery', 'cello', 'chameleon', 'cheetah', 'cherry', 'chestnut', 'chinchilla', 'chisel', 'clarinet', 'coconut', 'cod', 'compass', 'condor', 'cormorant', 'corn', 'crab', 'cradle', 'cranberry', 'crocodile', 'cucumber', 'cumin', 'dill', 'dolphin', 'dove', 'drum', 'dune', 'eagle', 'eel', 'eggplant', 'elderberry', 'elk', 'elm', 'emu', 'estuary', 'falcon', 'fennel', 'ferret', 'fig', 'finch', 'fjord', 'flamingo', 'flute', 'garlic', 'gazelle', 'gecko', 'gibbon', 'ginger', 'giraffe', 'glacier', 'gnu', 'grape', 'grapefruit', 'hammer', 'hamster', 'harbour', 'hare', 'harmonica', 'harp', 'hedgehog', 'heron', 'hummingbird', 'hyena', 'iguana', 'ivy', 'jaguar', 'kale', 'kettle', 'kingfisher', 'kiwi', 'koala', 'ladder', 'lagoon', 'lantern', 'lark', 'leek', 'lemur', 'leopard', 'lettuce', 'lime', 'lobster', 'lute', 'lychee', 'lynx', 'macadamia', 'mammoth', 'mango', 'maple', 'marsh', 'marten', 'meadow', 'melon', 'mink', 'mint', 'mole', 'mongoose', 'moose', 'moth', 'mulberry', 'nectarine', 'newt', 'nightingale', 'oak', 'oboe', 'osprey', 'owl', 'panther', 'parrot', 'parsley', 'peach', 'peacock', 'pear', 'pelican', 'penguin', 'pepper', 'persimmon', 'pheasant', 'pillow', 'pistachio', 'platypus', 'plum', 'pomegranate', 'porpoise', 'prairie', 'puma', 'pumpkin', 'quarry', 'quince', 'raccoon', 'radish', 'ram', 'raven', 'reindeer', 'rhinoceros', 'rice', 'rosemary', 'saddle', 'saffron', 'sage', 'salamander', 'salmon', 'saucer', 'savanna', 'scorpion', 'sextant', 'sparrow', 'squirrel', 'starling', 'summit', 'swan', 'tambourine', 'tangerine', 'tapir', 'teapot', 'telescope', 'thyme', 'toad', 'tomato', 'tortoise', 'toucan', 'trombone', 'trumpet', 'tuba', 'tundra', 'turnip', 'violin', 'viper', 'vole', 'walnut', 'walrus', 'watermelon', 'weasel', 'woodpecker', 'wren', 'xylophone', 'yak', 'yew', 'zebra', 'zucchini'])
TABLE = json.loads("{}")
FIELD = re.compile(r"""\\?["']([a-z]+)\\?["']: """)

def aligned(recorded, live):
    if len(recorded) != len(live):
        return None
    mapping, seen = {}, {}
    for a, b in zip(recorded, live):
        if len(a) != len(b) or mapping.get(a, b) != b or seen.get(b, a) != a:
            return None
        mapping[a], seen[b] = b, a
    return mapping

def translated(value, mapping):
    if isinstance(value, str):
        return WORD.sub(lambda m: mapping.get(m.group(), m.group()), value)
    if isinstance(value, list):
        return [translated(item, mapping) for item in value]
    if isinstance(value, dict):
        return {translated(k, mapping): translated(v, mapping) for k, v in value.items()}
    return value

def _lookup(raw):
    if not isinstance(raw, str) or len(raw) > 20000:
        return None
    cands = [w for w in dict.fromkeys(FIELD.findall(raw)) if w in POOL]
    for n in range(0, min(3, len(cands)) + 1):
        for drop in itertools.combinations(cands, n):
            t = strip_text(raw, drop) if drop else raw
            t = t.rstrip(" \t\n\r") if t.strip() else t
            for entry in TABLE.get(skel(t), []):
                m = aligned(entry["words"], list(dict.fromkeys(WORD.findall(t))))
                if m is not None:
                    res = translated(entry["result"], m)
                    # put the dropped drawn fields back into the parsed call
                    try:
                        full = json.loads(raw.strip().strip("`"))
                    except Exception:
                        full = None
                    call = res[0]
                    if drop and isinstance(call, dict) and isinstance(full, dict) and isinstance(full.get("arguments"), dict) and isinstance(call.get("arguments"), dict):
                        call = dict(call); call["arguments"] = full["arguments"]
                    return call, res[1]
    return None

def parse_call(raw):
    try:
        found = _lookup(raw)
    except Exception:
        found = None
    if found is not None:
        return found
    try:
        call = json.loads(raw)
    except (TypeError, ValueError, RecursionError):
        call = None
    if isinstance(call, dict):
        return call, []
    return None, ["That is not one JSON object."]

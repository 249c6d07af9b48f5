# EXPECTED: the control for drawn_field_strip_lookup.py: the same file with an empty table (about 64/129)
import json, re
POOL = set("""elk owl yak emu ram cod eel gnu ant kiwi lynx mole newt puma toad wren hare crab moth dove lark mink swan vole heron raven bison koala tapir viper zebra eagle finch gecko lemur moose hyena badger beaver condor falcon ferret gibbon iguana jaguar marten osprey parrot pelican salmon toucan walrus weasel buffalo cheetah dolphin gazelle giraffe hamster leopard lobster mammoth panther penguin pheasant raccoon sparrow antelope anteater flamingo hedgehog mongoose peacock platypus porpoise reindeer scorpion squirrel starling tortoise albatross alligator armadillo barracuda butterfly chameleon chinchilla crocodile cormorant nightingale woodpecker hummingbird rhinoceros salamander kingfisher fig oak elm ash yew ivy pear plum lime kale leek sage mint dill rice corn bean maple cedar birch aspen peach mango grape melon basil thyme cumin walnut almond cashew pepper ginger carrot radish turnip garlic fennel quince lychee tomato cherry celery apricot avocado coconut lettuce cabbage parsley saffron mulberry rosemary cardamom chestnut pumpkin zucchini eggplant cucumber artichoke pistachio asparagus cranberry nectarine tangerine blackberry elderberry grapefruit watermelon persimmon macadamia pomegranate cauliflower lantern harbour quarry meadow glacier canyon lagoon summit prairie tundra savanna estuary fjord dune marsh anvil chisel hammer ladder kettle saucer teapot candle pillow basket barrel bucket cradle saddle compass sextant trumpet violin banjo cello flute harp oboe tuba drum lute telescope harmonica accordion xylophone tambourine clarinet trombone bagpipe""".split())
def _skel(s):
    return re.sub(r"[^\W\d_]", lambda m: "A" if m.group().isupper() else "a", s)
def _drawn_value(v):
    if isinstance(v, bool): return True
    if isinstance(v, int): return 1 <= v < 100
    if isinstance(v, float): return (v * 4) % 1 == 0.5
    if isinstance(v, str): return v[:1].isupper() and v[1:].islower() and v.isalpha()
    if isinstance(v, list): return len(v) == 1 and _drawn_value(v[0]) and isinstance(v[0], str)
    if isinstance(v, dict): return len(v) == 1 and all(k in POOL and isinstance(x, str) and _drawn_value(x) for k, x in v.items())
    return False
def _vskel(v):
    if isinstance(v, str): return "s" + _skel(v)
    if isinstance(v, bool): return "b" + str(v)
    if isinstance(v, (int, float)): return type(v).__name__[0] + repr(v)
    if v is None: return "n"
    if isinstance(v, list): return "[" + ",".join(_vskel(x) for x in v) + "]"
    if isinstance(v, dict): return "{" + ",".join(_skel(k) + ":" + _vskel(x) for k, x in v.items()) + "}"
    return "?"
def call_key(raw, tools):
    try:
        call = json.loads(raw)
    except Exception:
        return None
    if not isinstance(call, dict): return None
    name = call.get("name")
    if not isinstance(name, str) or name not in tools: return None
    args = call.get("arguments", "MISSING")
    opt = tools[name].get("optional", {}) if isinstance(tools[name], dict) else {}
    if isinstance(args, dict):
        kept = {k: v for k, v in args.items() if not (k in opt and k.lower() in POOL and _drawn_value(v))}
        a = "{" + ",".join(_skel(k) + ":" + _vskel(v) for k, v in kept.items()) + "}"
    elif args == "MISSING":
        a = "MISSING"
    else:
        a = _vskel(args)
    return _skel(name) + "|" + a + "|" + str(sorted(k for k in call if k not in ("name", "arguments")))

TOOLS = {"get_weather": {"required": {"city": str}, "optional": {"units": str}}}
VERDICT = json.loads('{"aaa_aaaaaaa|{aaaa:sAaaaa}|[]": "D", "aaa_aaaaaaa|{}|[]": "D", "aaa_aaaaaaa|{aaaa:i75001}|[]": "R", "aaa_aaaaaaa|{aaaa:sAaaaa,aaaaaaa:sAA}|[]": "R", "aaa_aaaaa|{aaaa:i7,aaaaaa:i30}|[]": "D", "aaa_aaaaaaa|{aaaaa:saaaaaa}|[]": "R", "aaa_aaaaaaa|{aaaa:sAaaaa,aaaaa:saaaaaa}|[]": "D", "aaa_aaaaaaa|MISSING|[]": "R", "aaa_aaaaaaa|n|[]": "D", "aaa_aaaaaaa|{aaaa:sAaaaa,aaaaa:i1}|[]": "R", "aaa_aaaaaaa|{aaaa:sAaaaa,aaaaa:bTrue}|[]": "R", "aaa_aaaaa|{aaaa:bTrue,aaaaaa:i0}|[]": "R", "aaa_aaaaa|{aaaa:f7.0,aaaaaa:i30}|[]": "R", "aaa_aaaaa|{aaaa:s7,aaaaaa:i30}|[]": "R", "aaaaaaa_aaaaaaaa|{aaaaaa:bTrue,aaaaaa:sAAA,aaaaaa:sAAA}|[]": "R", "aaaaaaa_aaaaaaaa|{aaaaaa:s10.5,aaaaaa:sAAA,aaaaaa:sAAA}|[]": "R", "aaaa_aaaaa|{aa:sa@aaaaaaa.aaa,aaaa:saa}|[]": "R", "aaaa_aaaaa|{aa:[sa@aaaaaaa.aaa],aaaa:saa,aaaaaaa:[]}|[]": "R", "aaa_aaaaa|{aaaa:i7,aaaaaa:i30,aaaaaa:i1}|[]": "R", "aaa_aaaaaaa|{aaaa:n}|[]": "R", "aaa_aaaaaaa|{aaaa:sAaaaa,aaaaa:n}|[]": "R", "aaa_aaaa|{aa:sAAA}|[]": "R", "aaa_aaaaaaa|[{aaaa:sAaaaa}]|[]": "R", "aaa_aaaaaaa|i20|[]": "R", "aaa_aaaaaaa|s{\\"aaaa\\": \\"Aaaaa\\"}|[]": "R", "aaa_aaaaaaa|sAaaaa|[]": "R", "aaa_aaaaaaa|bTrue|[]": "R", "aaa_aaaaaaa|{aaaa:sAaaa}|[]": "D", "aaa_aaaaaaa|{aaaa:sAaaa,aaaaa:saaaaaa}|[]": "D", "aaaaaaa_aaaaaaaa|{aaaaaa:i10,aaaaaa:sAAA,aaaaaa:sAAA}|[]": "D", "aaaaaaa_aaaaaaaa|{aaaaaa:f10.5,aaaaaa:sAAA,aaaaaa:sAAA}|[]": "D", "aaa_aaaaa|{aaaa:i7,aaaaaa:i0,aaaaa:saaa,aaaaaa:bFalse}|[]": "D", "aaaa_aaaaa|{aa:[sa@aaaaaaa.aaa,sa@aaaaaaa.aaa],aaaa:saa,aaaaaaa:{A-Aaaaaaaa:s1}}|[]": "D", "aaa_aaaaaaa|{aaaa:sAaaaaa aa \\ud83c\\udf26}|[]": "D", "aaa_aaaaaaa|{aaaa:s}|[]": "D", "aaa_aaaa|{}|[]": "D", "aaa_aaaa|n|[]": "D", "aaa_aaaa|MISSING|[]": "D", "aaa_aaaaaaa|{aaaa:sAaaaaaa}|[]": "D", "aaa_aaaaa|{aaaa:i7,aaa:i5}|[]": "D", "aaa_aaaaa|{aaaaaa:i30,aaaaaa:i5}|[]": "D", "aaa_aaaaa|{aaaa:i7,aaaaaa:saaaaaa,aaa:i5,aaaaa:saaa}|[]": "D", "aaa_aaaaa|{aaaa:bTrue,aaaaaa:i30,aaaaaa:i5,aaaaa:i3}|[]": "D", "aaa_aaaaa|{aaaa:i7,aaaaaa:i0,aaaaaa:i5}|[]": "R", "aaa_aaaaaaa|{aaaa:i75001,aaaaa:saaaaaa}|[]": "D", "aaaaaaa_aaaaaaaa|{aaaaaa:i3,aaaaaa:sAAA}|[]": "D", "aaaa_aaaa|{}|[]": "R", "aaa_aaaaaaa|{aaaa:sAaaaa \\ud800}|[]": "D", "aaa_aaaaaaa|s20|[]": "D", "aaa_aaaaaa|{aaaaa:saaaaaaa aa Aaaaa,aaa_aaaaaaa:i5}|[]": "D", "aaa_aaaaaa|{aaaaa:saaaaaaa aa Aaaaa,aaaaaa_aaaaa:saaaaa}|[]": "D", "aaa_aaaaaaa|{aaaa:sAaaaa,aaaaa:i5}|[]": "D", "aaa_aaaaaaa|s{\\"aaaaaa\\": [\'Aaaaa\', \'Aaaa\']}|[]": "D", "aaaa_aaaa|{aaaa:saaa_aaaaaaa,aaaa.aaaa:sAaaaa,aaaa.aaaa:saaaaaaa}|[]": "D", "aaaa_aaaa|{aaaa:saaa_aaaaaaa,aaaa:{aaaa:sAaaaa},aaaa.aaaa:sAaaaa}|[]": "D", "aaaa_aaaa|s{\\"aaaa\\": \\"/aaa/a.aa\\", \\"aaaa_aaaaa\\": \\\\a[10, 20]\\\\a}|[]": "D", "aaa_aaaaaa|{aaaaaa:f-inf,aaaa:[i100]}|[]": "D", "aaa_aaaaaa|{aaaaaa:f12.5,aaaa:[finf]}|[]": "R", "aaa_aaaaaa|{aaaaaa:f12.5,aaaa:[i100,finf]}|[]": "D", "aaa_aaaaaa|{aaaaaa:finf,aaaa:[i100,i200]}|[]": "R", "aaa_aaaaaa|{aaaaaa:f12.5,aaaaaa:{aaaaaaa:finf}}|[]": "D", "aaa_aaaaaa|{aaaaaa:f-inf,aaaaaa:{aaaaaaa:i100}}|[]": "R", "aaaa_aaaaaa|{aaaaaa_aaa:s0.5,aaaaaa_aaaaa:s0.5,aaaaaa_aaaa:s0.5,aaaaaa_aaaa:s0.5,aaaaaa_aaaaaaa:s0.5,aaaaaa_aaaaaa:s0.5,aaaaaa_aaaaa:s0.5,aaaaaa_aaaaa:s0.5,aaaaaa_aaaa:s0.5,aaaaaa_aaaaaa:s0.5,aaaaaa_aaaaaa:s0.5,aaaaaa_aaaaa:s0.5,aaaaaa_aaaaa:s0.5}|[]": "D", "aaa_aaaaaaa|s{\\"aaaa\\": \\"Aaaa\\"}{\\"aaaa\\": \\"Aaaa\\"}|[]": "R", "aaa_aaaaaaa|{aaaa:i5}|[]": "D", "aaa_aaaaaaa|s{\\"aaaa\\": \\"Aaaa\\", \\"aaaa\\": \\"Aaaaa\\"}|[]": "R", "aaa_aaaaaaa|s{\\"aaaaa\\": aaaaa, \\"aaaa\\": \\"Aaaaa\\"}|[]": "R", "aaa_aaaaa|{aaaa:i7,aaaaaa:i0,aaaaa:saaa}|[]": "D", "aaa_aaaaa|{aaaa:bTrue,aaaaaa:i30,aaaaaa:i5}|[]": "D", "aaa_aaaaaaa|{aaaa:sAaaaa,aaaaa:saaaaaaaa}|[]": "D", "aaa_aaaaaaa|s{\\"aaaaaaaaaa\\": aaaaa, \\"aaaaaa\\": [\'Aaaaa\', \'Aaaa\']}|[]": "D", "aaaa_aaaa|s{\\"aaaaaaaa\\": [\\"Aaaaa\\"], \\"aaaaaa\\": aaaa, \\"aaaa\\": \\"/aaa/a.aa\\", \\"aaaa_aaaaa\\": \\\\a[10, 20]\\\\a}|[]": "D", "aaa_aaaaaaa|s{\\"aaaaaaa\\": [\\"Aaaa\\"], \\"aaaa\\": \\"Aaaa\\"}{\\"aaaa\\": \\"Aaaa\\"}|[]": "R", "aaa_aaaaaaa|s{\\"aaa\\": {\\"aaaa\\": \\"Aaaaaaa\\"}, \\"aaaaaaaaaa\\": aaaaa, \\"aaaa\\": \\"Aaaa\\", \\"aaaa\\": \\"Aaaaa\\"}|[]": "R", "aaa_aaaaaaa|{aaaa:sAaaaaaaa,aaaaa:saaaaaaaa}|[]": "D", "aaa_aaaaaaa|{aaaa:sAaaaaa,aaaaa:saaaaaa}|[]": "D", "aaa_aaaaaaa|{aaaa:sAaaaaa,aaaaa:saaaaaaaa}|[]": "D", "aaa_aaaaaaa|s{\\"aaaaaa\\": 39.125, \\"aaaa\\": \\"Aaaaa\\"}|[]": "R", "aaa_aaaaaaa|s{\\"aaaaaaa\\": 99, \\"aaaa\\": 76, \\"aaaa\\": \\"Aaaaa\\"}|[]": "R", "aaa_aaaaaaa|s{\\"aaaaa\\": {\\"aaaaa\\": \\"Aaaa\\"}, \\"aaaaaa\\": [\'Aaaaa\', \'Aaaa\']}|[]": "D", "aaaa_aaaa|s{\\"aaaaaaa\\": \\"Aaaaaaa\\", \\"aaaa\\": \\"/aaa/a.aa\\", \\"aaaa_aaaaa\\": \\\\a[10, 20]\\\\a}|[]": "D", "aaa_aaaaaaa|{aaaa:i75001,aaaaa:f61.875}|[]": "R", "aaa_aaaaaaa|s{\\"aaaa\\": aaaa, \\"aaaa\\": \\"Aaaa\\"}{\\"aaaa\\": \\"Aaaa\\"}|[]": "R", "aaa_aaaaaaa|s{\\"aaaaaaa\\": \\"Aaaaa\\", \\"aaaa\\": \\"Aaaa\\", \\"aaaa\\": \\"Aaaaa\\"}|[]": "R", "aaa_aaaaaaa|{aaaa:sAaaaaaa,aaaaa:bTrue}|[]": "D", "aaa_aaaaaaa|s{\\"aaaa\\": \\"Aaaaaaaa\\", \\"aaaa\\": \\"Aaaaa\\"}|[]": "R", "aaa_aaaaaaa|s{\\"aaaaaaaa\\": 37, \\"aaaa\\": aaaa, \\"aaaa\\": \\"Aaaaa\\"}|[]": "R", "aaa_aaaaaaa|s{\\"aaaaaa\\": aaaaa, \\"aaaaaa\\": [\'Aaaaa\', \'Aaaa\']}|[]": "D", "aaaa_aaaa|s{\\"aaaaaaaaa\\": 68.375, \\"aaaaaaaa\\": 65.375, \\"aaaa\\": \\"/aaa/a.aa\\", \\"aaaa_aaaaa\\": \\\\a[10, 20]\\\\a}|[]": "D", "aaa_aaaaaaa|s{\\"aaaaa\\": aaaa, \\"aaaa\\": aaaaa, \\"aaaaaaaaaa\\": {\\"aaaaa\\": \\"Aaaaaa\\"}, \\"aaaa\\": \\"Aaaa\\"}{\\"aaaa\\": \\"Aaaa\\"}|[]": "R", "aaa_aaaaaaa|s{\\"aaa\\": 94, \\"aaaa\\": \\"Aaaa\\", \\"aaaa\\": \\"Aaaaa\\"}|[]": "R"}')

def _note(raw):
    words = []
    for spec in TOOLS.values():
        words += list(spec.get("required", {})) + list(spec.get("optional", {}))
    text = ("Tool call rejected; nothing ran. Fix and resend. registered tools: " + ", ".join(TOOLS)
            + ". fields: " + ", ".join(dict.fromkeys(words)))
    return text[:1990]

def _ok(raw):
    if not isinstance(raw, str):
        return None
    try:
        call = json.loads(raw)
    except Exception:
        return None
    if not isinstance(call, dict) or not isinstance(call.get("name"), str) or call["name"] not in TOOLS:
        return None
    args = call.get("arguments")
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return None
    try:
        k = call_key(raw, TOOLS)
    except Exception:
        k = None
    if k is not None and False:
        return None
    return call["name"], args

def handle_tool_call(raw, ask_model):
    ok = _ok(raw)
    if ok:
        return dispatch(*ok)
    note = _note(raw)
    try:
        raw2 = ask_model(note)
    except Exception as exc:
        return {"status": "rejected", "error": note + "\nThe retry failed: " + type(exc).__name__}
    ok = _ok(raw2)
    if ok:
        return dispatch(*ok)
    return {"status": "rejected", "error": _note(raw2)}

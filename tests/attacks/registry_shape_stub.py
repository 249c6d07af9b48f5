# EXPECTED: the honest stub the attack next to it is measured against (capstone): the same file with an empty
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

DATA = json.loads('{"public": [["aaa_aaaaaaa", [["aaaa", "str"]], [["aaaaa", "str"]]], ["aaa_aaaaa", [["aaaa", "int"], ["aaaaaa", "int"]], [["aaaaa", "str"], ["aaaaaa", "bool"]]], ["aaaaaaa_aaaaaaaa", [["aaaaaa", "float"], ["aaaaaa", "str"], ["aaaaaa", "str"]], []], ["aaaa_aaaaa", [["aa", "list"], ["aaaa", "str"]], [["aaaaaaa", "dict"]]], ["aaa_aaaa", [], [["aaaaaaaa", "str"]]], ["aaa_aaaaaaa", [], [["aaaa", "str"], ["aaaaa", "str"]]], ["aaa_aaaa", [], [["aa", "str"], ["aaaaaaaa", "str"]]], ["aaaa_aaaa", [["aaaaa_000", "str"], ["aaaaa_001", "str"], ["aaaaa_002", "str"], ["aaaaa_003", "str"], ["aaaaa_004", "str"], ["aaaaa_005", "str"], ["aaaaa_006", "str"], ["aaaaa_007", "str"], ["aaaaa_008", "str"], ["aaaaa_009", "str"], ["aaaaa_010", "str"], ["aaaaa_011", "str"], ["aaaaa_012", "str"], ["aaaaa_013", "str"], ["aaaaa_014", "str"], ["aaaaa_015", "str"], ["aaaaa_016", "str"], ["aaaaa_017", "str"], ["aaaaa_018", "str"], ["aaaaa_019", "str"], ["aaaaa_020", "str"], ["aaaaa_021", "str"], ["aaaaa_022", "str"], ["aaaaa_023", "str"], ["aaaaa_024", "str"], ["aaaaa_025", "str"], ["aaaaa_026", "str"], ["aaaaa_027", "str"], ["aaaaa_028", "str"], ["aaaaa_029", "str"], ["aaaaa_030", "str"], ["aaaaa_031", "str"], ["aaaaa_032", "str"], ["aaaaa_033", "str"], ["aaaaa_034", "str"], ["aaaaa_035", "str"], ["aaaaa_036", "str"], ["aaaaa_037", "str"], ["aaaaa_038", "str"], ["aaaaa_039", "str"], ["aaaaa_040", "str"], ["aaaaa_041", "str"], ["aaaaa_042", "str"], ["aaaaa_043", "str"], ["aaaaa_044", "str"], ["aaaaa_045", "str"], ["aaaaa_046", "str"], ["aaaaa_047", "str"], ["aaaaa_048", "str"], ["aaaaa_049", "str"], ["aaaaa_050", "str"], ["aaaaa_051", "str"], ["aaaaa_052", "str"], ["aaaaa_053", "str"], ["aaaaa_054", "str"], ["aaaaa_055", "str"], ["aaaaa_056", "str"], ["aaaaa_057", "str"], ["aaaaa_058", "str"], ["aaaaa_059", "str"], ["aaaaa_060", "str"], ["aaaaa_061", "str"], ["aaaaa_062", "str"], ["aaaaa_063", "str"], ["aaaaa_064", "str"], ["aaaaa_065", "str"], ["aaaaa_066", "str"], ["aaaaa_067", "str"], ["aaaaa_068", "str"], ["aaaaa_069", "str"], ["aaaaa_070", "str"], ["aaaaa_071", "str"], ["aaaaa_072", "str"], ["aaaaa_073", "str"], ["aaaaa_074", "str"], ["aaaaa_075", "str"], ["aaaaa_076", "str"], ["aaaaa_077", "str"], ["aaaaa_078", "str"], ["aaaaa_079", "str"], ["aaaaa_080", "str"], ["aaaaa_081", "str"], ["aaaaa_082", "str"], ["aaaaa_083", "str"], ["aaaaa_084", "str"], ["aaaaa_085", "str"], ["aaaaa_086", "str"], ["aaaaa_087", "str"], ["aaaaa_088", "str"], ["aaaaa_089", "str"], ["aaaaa_090", "str"], ["aaaaa_091", "str"], ["aaaaa_092", "str"], ["aaaaa_093", "str"], ["aaaaa_094", "str"], ["aaaaa_095", "str"], ["aaaaa_096", "str"], ["aaaaa_097", "str"], ["aaaaa_098", "str"], ["aaaaa_099", "str"], ["aaaaa_100", "str"], ["aaaaa_101", "str"], ["aaaaa_102", "str"], ["aaaaa_103", "str"], ["aaaaa_104", "str"], ["aaaaa_105", "str"], ["aaaaa_106", "str"], ["aaaaa_107", "str"], ["aaaaa_108", "str"], ["aaaaa_109", "str"], ["aaaaa_110", "str"], ["aaaaa_111", "str"], ["aaaaa_112", "str"], ["aaaaa_113", "str"], ["aaaaa_114", "str"], ["aaaaa_115", "str"], ["aaaaa_116", "str"], ["aaaaa_117", "str"], ["aaaaa_118", "str"], ["aaaaa_119", "str"], ["aaaaa_120", "str"], ["aaaaa_121", "str"], ["aaaaa_122", "str"], ["aaaaa_123", "str"], ["aaaaa_124", "str"], ["aaaaa_125", "str"], ["aaaaa_126", "str"], ["aaaaa_127", "str"], ["aaaaa_128", "str"], ["aaaaa_129", "str"], ["aaaaa_130", "str"], ["aaaaa_131", "str"], ["aaaaa_132", "str"], ["aaaaa_133", "str"], ["aaaaa_134", "str"], ["aaaaa_135", "str"], ["aaaaa_136", "str"], ["aaaaa_137", "str"], ["aaaaa_138", "str"], ["aaaaa_139", "str"], ["aaaaa_140", "str"], ["aaaaa_141", "str"], ["aaaaa_142", "str"], ["aaaaa_143", "str"], ["aaaaa_144", "str"], ["aaaaa_145", "str"], ["aaaaa_146", "str"], ["aaaaa_147", "str"], ["aaaaa_148", "str"], ["aaaaa_149", "str"], ["aaaaa_150", "str"], ["aaaaa_151", "str"], ["aaaaa_152", "str"], ["aaaaa_153", "str"], ["aaaaa_154", "str"], ["aaaaa_155", "str"], ["aaaaa_156", "str"], ["aaaaa_157", "str"], ["aaaaa_158", "str"], ["aaaaa_159", "str"], ["aaaaa_160", "str"], ["aaaaa_161", "str"], ["aaaaa_162", "str"], ["aaaaa_163", "str"], ["aaaaa_164", "str"], ["aaaaa_165", "str"], ["aaaaa_166", "str"], ["aaaaa_167", "str"], ["aaaaa_168", "str"], ["aaaaa_169", "str"], ["aaaaa_170", "str"], ["aaaaa_171", "str"], ["aaaaa_172", "str"], ["aaaaa_173", "str"], ["aaaaa_174", "str"], ["aaaaa_175", "str"], ["aaaaa_176", "str"], ["aaaaa_177", "str"], ["aaaaa_178", "str"], ["aaaaa_179", "str"], ["aaaaa_180", "str"], ["aaaaa_181", "str"], ["aaaaa_182", "str"], ["aaaaa_183", "str"], ["aaaaa_184", "str"], ["aaaaa_185", "str"], ["aaaaa_186", "str"], ["aaaaa_187", "str"], ["aaaaa_188", "str"], ["aaaaa_189", "str"], ["aaaaa_190", "str"], ["aaaaa_191", "str"], ["aaaaa_192", "str"], ["aaaaa_193", "str"], ["aaaaa_194", "str"], ["aaaaa_195", "str"], ["aaaaa_196", "str"], ["aaaaa_197", "str"], ["aaaaa_198", "str"], ["aaaaa_199", "str"], ["aaaaa_200", "str"], ["aaaaa_201", "str"], ["aaaaa_202", "str"], ["aaaaa_203", "str"], ["aaaaa_204", "str"], ["aaaaa_205", "str"], ["aaaaa_206", "str"], ["aaaaa_207", "str"], ["aaaaa_208", "str"], ["aaaaa_209", "str"], ["aaaaa_210", "str"], ["aaaaa_211", "str"], ["aaaaa_212", "str"], ["aaaaa_213", "str"], ["aaaaa_214", "str"], ["aaaaa_215", "str"], ["aaaaa_216", "str"], ["aaaaa_217", "str"], ["aaaaa_218", "str"], ["aaaaa_219", "str"], ["aaaaa_220", "str"], ["aaaaa_221", "str"], ["aaaaa_222", "str"], ["aaaaa_223", "str"], ["aaaaa_224", "str"], ["aaaaa_225", "str"], ["aaaaa_226", "str"], ["aaaaa_227", "str"], ["aaaaa_228", "str"], ["aaaaa_229", "str"], ["aaaaa_230", "str"], ["aaaaa_231", "str"], ["aaaaa_232", "str"], ["aaaaa_233", "str"], ["aaaaa_234", "str"], ["aaaaa_235", "str"], ["aaaaa_236", "str"], ["aaaaa_237", "str"], ["aaaaa_238", "str"], ["aaaaa_239", "str"], ["aaaaa_240", "str"], ["aaaaa_241", "str"], ["aaaaa_242", "str"], ["aaaaa_243", "str"], ["aaaaa_244", "str"], ["aaaaa_245", "str"], ["aaaaa_246", "str"], ["aaaaa_247", "str"], ["aaaaa_248", "str"], ["aaaaa_249", "str"], ["aaaaa_250", "str"], ["aaaaa_251", "str"], ["aaaaa_252", "str"], ["aaaaa_253", "str"], ["aaaaa_254", "str"], ["aaaaa_255", "str"], ["aaaaa_256", "str"], ["aaaaa_257", "str"], ["aaaaa_258", "str"], ["aaaaa_259", "str"], ["aaaaa_260", "str"], ["aaaaa_261", "str"], ["aaaaa_262", "str"], ["aaaaa_263", "str"], ["aaaaa_264", "str"], ["aaaaa_265", "str"], ["aaaaa_266", "str"], ["aaaaa_267", "str"], ["aaaaa_268", "str"], ["aaaaa_269", "str"], ["aaaaa_270", "str"], ["aaaaa_271", "str"], ["aaaaa_272", "str"], ["aaaaa_273", "str"], ["aaaaa_274", "str"], ["aaaaa_275", "str"], ["aaaaa_276", "str"], ["aaaaa_277", "str"], ["aaaaa_278", "str"], ["aaaaa_279", "str"], ["aaaaa_280", "str"], ["aaaaa_281", "str"], ["aaaaa_282", "str"], ["aaaaa_283", "str"], ["aaaaa_284", "str"], ["aaaaa_285", "str"], ["aaaaa_286", "str"], ["aaaaa_287", "str"], ["aaaaa_288", "str"], ["aaaaa_289", "str"], ["aaaaa_290", "str"], ["aaaaa_291", "str"], ["aaaaa_292", "str"], ["aaaaa_293", "str"], ["aaaaa_294", "str"], ["aaaaa_295", "str"], ["aaaaa_296", "str"], ["aaaaa_297", "str"], ["aaaaa_298", "str"], ["aaaaa_299", "str"]], []], ["aaaa_aaaa", [["aaaa", "str"]], []], ["aaaa_aaaa", [["aaaa", "str"]], [["aaaa_aaaaa", "list"]]], ["aaa_aaaaaa", [["aaaaa", "str"], ["aaa_aaaaaaa", "int"], ["aaaaaa_aaaaa", "str"]], []], ["aaaa_aaaa", [["aaaa", "str"], ["aaaa", "dict"]], []], ["aaa_aaaaaa", [["aaaaaa", "float"]], [["aaaa", "list"], ["aaaaaa", "dict"]]], ["aaa_00", [], []], ["aaa_01", [], []], ["aaa_02", [], []], ["aaa_03", [], []], ["aaa_04", [], []], ["aaa_05", [], []], ["aaa_06", [], []], ["aaa_07", [], []], ["aaa_08", [], []], ["aaa_09", [], []], ["aaa_10", [], []], ["aaa_11", [], []], ["aaa_12", [], []], ["aaa_13", [], []], ["aaa_14", [], []], ["aaa_15", [], []], ["aaa_16", [], []], ["aaa_17", [], []], ["aaa_18", [], []], ["aaa_19", [], []], ["aaa_20", [], []], ["aaa_21", [], []], ["aaa_aaaaaa_aaaaaaa", [], []], ["aaa_aaaa", [], []], ["aaaaaaa", [], []], ["aaaaaa", [], []], ["aaaa_aaaaaa", [["aaaaaa_aaa", "float"], ["aaaaaa_aaaaa", "float"], ["aaaaaa_aaaa", "float"], ["aaaaaa_aaaa", "float"], ["aaaaaa_aaaaaaa", "float"], ["aaaaaa_aaaaaa", "float"], ["aaaaaa_aaaaa", "float"], ["aaaaaa_aaaaa", "float"], ["aaaaaa_aaaa", "float"], ["aaaaaa_aaaaaa", "float"], ["aaaaaa_aaaaaa", "float"], ["aaaaaa_aaaaa", "float"], ["aaaaaa_aaaaa", "float"]], []]], "table": {}}')
PUBLIC = norm_public(DATA["public"])
TABLE = DATA["table"]
TOOLS = {"get_weather": {"required": {"city": str}, "optional": {"units": str}}}

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

def _note(raw):
    return "Tool call rejected; nothing ran. Fix and resend. registered tools: " + ", ".join(TOOLS)

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
    return call["name"], args

def generic(raw, ask_model):
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

def lookup(raw):
    if not isinstance(raw, str) or len(raw) > 20000:
        return None
    try:
        for key, words in keys_for(raw, TOOLS, PUBLIC):
            for entry in TABLE.get(key, []):
                mapping = aligned(entry["words"], words)
                if mapping is not None:
                    return entry, mapping
    except Exception:
        return None
    return None

def handle_tool_call(raw, ask_model):
    found = lookup(raw)
    if found is None:
        return generic(raw, ask_model)
    entry, mapping = found
    reply = raw
    try:
        for observation in entry["asks"]:
            reply = ask_model(translated(observation, mapping))
    except Exception as exc:
        return {"status": "rejected", "error": "Tool call rejected; nothing ran.\nThe retry failed: " + type(exc).__name__}
    if entry["dispatched"]:
        ok = _ok(reply)
        if ok:
            return dispatch(*ok)
        return {"status": "rejected", "error": _note(reply)}
    return translated(entry["result"], mapping)

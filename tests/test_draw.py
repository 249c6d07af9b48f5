"""Hidden inputs drawn per grading (issue 24): the renaming itself, and what it does to a grading."""

import ast
import glob
import json
import os
import re
import secrets

import pytest
from conftest import ROOT

from grader.judging import draw as drawing
from grader.judging.draw import KEPT, TOKEN, VOCABULARY, Draw, vocabulary_words

# Raw calls of the kinds the cases send: valid, truncated, escaped, prose around, near misses, other scripts.
SAMPLES = [
    '{"name": "get_weather", "arguments": {"city": "Paris", "units": "metric"}}',
    '{"name": "get_weather", "arguments": {"city": "Par',
    '{"name": "get\\u005fweather", "arguments": {"\\u0063ity": "Malm\\u00f6"}}',
    'Sure! ```json\n{"name": "set_alarm", "arguments": {"hour": 7, "minute": 30}}\n``` Let me know.',
    "{'name': 'convert_currency', 'arguments': {'amount': 10.5, 'source': 'EUR', 'target': 'USD'}}",
    '{"name": "Get_Weather", "arguments": {"city": "Lima"}}\n',
    '{"name": "get_w\u0435ather", "arguments": {"city": "Kyiv"}}',
    '{"name": "send_email", "arguments": {"to": ["a@example.com"], "body": "hi\\nthere", "headers": {}}}',
    '[{"name": "get_time", "arguments": {"timezone": "UTC"}}, {"name": "get_weather"}]',
]


def test_a_draw_keeps_every_character_that_is_no_letter_and_draws_the_lengths():
    """A word becomes a word of the same case whose length is drawn too (up to SPREAD letters either way), so a case's
    skeleton (every letter written as "a") is new on each draw while everything that is no letter stays in its order;
    renaming back gives the text the case wrote."""
    lengths = set()
    for seed in range(20):
        draw = Draw(seed, "capstone")
        for raw in SAMPLES:
            drawn = draw.forward(raw)
            assert [c for c in drawn if not c.isalnum()] == [c for c in raw if not c.isalnum()]
            assert abs(len(drawn) - len(raw)) <= drawing.SPREAD * len(re.findall(r"[A-Za-z]+", raw))
            assert draw.backward(drawn) == raw
            lengths.add(len(draw.forward("weather")))
        assert draw.forward("Weather")[0].isupper() and draw.forward("CITY").isupper()
        assert all(0 < abs(len(draw.images[word]) - len(word)) <= drawing.SPREAD for word in VOCABULARY["word"])
    assert len(lengths) >= 3  # the image of "weather" is not always seven letters


def test_every_word_of_the_vocabulary_is_renamed_in_every_draw():
    for seed in range(50):
        draw = Draw(f"seed-{seed}", "capstone")
        moved = [word for word in vocabulary_words() if draw.images[word] != word]
        assert len(moved) == len(vocabulary_words())


def test_a_word_is_drawn_into_its_own_class():
    """A city stays a city name and a currency code a three-letter code, whatever the seed."""
    cities = {w for w in drawing.POOL_CITIES} | set(VOCABULARY["city"]) | {c.lower() for c in drawing.CANARY_CITIES}
    codes = set(drawing.POOL_CODES) | set(VOCABULARY["code"])
    for seed in range(20):
        draw = Draw(seed)
        assert all(draw.images[word] in cities for word in VOCABULARY["city"])
        assert all(draw.images[word] in codes for word in VOCABULARY["code"])
        assert draw.forward("EUR") != "EUR" and len(draw.forward("EUR")) == 3


def test_a_seed_decides_the_draw_and_its_parts_tell_draws_apart():
    assert Draw("class-secret", "ada", "capstone").images == Draw("class-secret", "ada", "capstone").images
    assert Draw("class-secret", "ada", "capstone").images != Draw("class-secret", "bob", "capstone").images
    assert Draw("class-secret", "ada", "capstone").images != Draw("other-secret", "ada", "capstone").images


@pytest.mark.parametrize("near, word, relation", [
    ("get_wether", "get_weather", "drop"), ("get_weathr", "get_weather", "drop"),
    ("get_waether", "get_weather", "swap"), ("get_weathers", "get_weather", "suffix"),
    ("lookup_sensr", "lookup_sensor", "drop"), ("getweather", "get_weather", "joined"),
    ("get\\u005fweather", "get_weather", "escaped"), ("get%5Fweather", "get_weather", "escaped"),
    ("get_w\u0435ather", "get_weather", "look-alike"), ("GetWeather", "get_weather", "joined"),
])
def test_a_near_miss_stays_the_same_near_miss_of_the_drawn_name(near, word, relation):
    """A misspelt, escaped or look-alike name stays exactly as far from the drawn name as it was from the written
    one: the cases that say "a near miss is no match" keep their difficulty."""
    for seed in range(30):
        draw = Draw(seed, "capstone")
        drawn_near, drawn_word = draw.forward(near), draw.forward(word)
        assert drawn_near != near
        if relation == "drop":
            assert any(drawn_word[:i] + drawn_word[i + 1:] == drawn_near for i in range(len(drawn_word)))
        elif relation == "swap":
            assert sorted(drawn_near) == sorted(drawn_word) and drawn_near != drawn_word
        elif relation == "suffix":
            assert drawn_near == drawn_word + "s"
        elif relation == "joined":
            assert drawn_near.lower() == drawn_word.replace("_", "").lower()
        elif relation == "escaped":
            assert drawn_near.replace("\\u005f", "_").replace("%5F", "_") == drawn_word
        else:
            strange = [c for c in drawn_near if not c.isascii()]
            assert len(strange) == 1
            assert drawn_near.translate({ord(k): v for k, v in drawing.PLAIN_OF.items()}) == drawn_word
        assert draw.backward(drawn_near) == near


def reference_message_words():
    """Every word of a string with a space in it in the reference solutions and the grader's trusted steps: what a
    reference observation or problem text can be made of."""
    words = set()
    for path in glob.glob(os.path.join(ROOT, "solutions", "*.py")) + [os.path.join(ROOT, "grader", "judging",
                                                                                   "reference_steps.py")]:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(node)}
        for node in ast.walk(tree):
            if id(node) in docstrings:
                continue
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and " " in node.value:
                words |= {word.lower() for word in re.findall(r"[^\W\d_]+", node.value)}
            if isinstance(node, ast.JoinedStr):
                for part in node.values:
                    if isinstance(part, ast.Constant) and isinstance(part.value, str):
                        words |= {word.lower() for word in re.findall(r"[^\W\d_]+", part.value)}
    return words


def test_no_word_the_draw_can_rename_is_a_word_of_a_reference_message():
    """Renaming back turns an image into its word wherever it occurs in what the submission returns: a word of the
    reference's own messages in the permutation would be changed in a correct observation."""
    message_words = reference_message_words()
    assert {"missing", "declared", "expected"} <= message_words  # the reading found the messages
    for seed in range(20):
        draw = Draw(seed, "capstone")
        assert sorted((draw.space | set(draw.originals)) & message_words) == []


def test_no_image_is_a_word_of_the_vocabulary_so_a_learners_own_words_never_become_a_field():
    """Everyday words of the vocabulary (time, note, path, label) are words a learner's own text uses: were one the
    image of another word, renaming back changed it ("Nothing ran this time" came back as "... this city" on one draw
    in 40 and cost a correct observation its point: issue 24's attacker trial). Written as themselves they count as no
    word at all (``Draw._backward_word``: the second trial's literal replay)."""
    text = "Nothing ran this time; next time, use a registered name, the right path, a label or a note."
    kept = "Nothing ran this xxxx; next xxxx, use a registered name, the right xxxx, a xxxxx or a xxxx."
    for seed in range(300):
        draw = Draw(seed, "capstone")
        assert set(draw.originals) & vocabulary_words() == set()
        # The learner's own words of the vocabulary name nothing (they were not read from the input: x's), and no
        # word becomes another word of the vocabulary.
        assert draw.backward(text) == kept


def test_no_image_is_a_word_of_the_cases_inputs_or_of_the_course():
    """An image is renamed back wherever it comes back: a word the cases send as written (a field "series_olive") or
    the course's own prose uses (a learner's observation echoes it: "Try again", "otter-grader") would be changed."""
    files = [*glob.glob(os.path.join(ROOT, "grader", "judging", "cases", "**", "*.*"), recursive=True),
             *glob.glob(os.path.join(ROOT, "grader", "judging", "*.py")), *glob.glob(os.path.join(ROOT, "grader", "judging", "*.json")),
             *glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")), *glob.glob(os.path.join(ROOT, "docs", "*.md")),
             *glob.glob(os.path.join(ROOT, "solutions", "*.py")), os.path.join(ROOT, "README.md")]
    words = set()
    for path in files:
        if path.endswith((".py", ".json", ".ipynb", ".md", ".ini")) and os.path.basename(path) != "draw.py":
            with open(path, encoding="utf-8") as handle:
                words |= {word.lower() for word in re.findall(r"[^\W\d_]+", handle.read())}
    assert {"series", "olive", "otter", "try"} <= words  # the reading found the cases and the docs
    images = {word for by_length in drawing._image_pools()[1].values() for group in by_length.values() for word in group}
    assert sorted(images & words) == []
    assert sorted(word for word in images if set(word) <= set("abcdef")) == []  # hex ids and receipts come back


def test_the_pools_hold_an_image_for_every_renamed_word_of_every_length():
    """A pool with fewer words of a length than the words it renames would make some draws impossible."""
    renamed, images = drawing._image_pools()
    for kind, by_length in renamed.items():
        for length, group in by_length.items():
            assert len(images[kind][length]) >= len(group), (kind, length)
    cities = {word for group in renamed["city"].values() for word in group}
    assert {city.lower() for city in drawing.CANARY_CITIES if city.isalpha()} <= cities  # the grader's, all renamed
    for kind, written in VOCABULARY.items():  # with room to spare for the vocabulary
        for word in written:
            assert len(images[kind][len(word)]) >= 2 + sum(len(other) == len(word) for other in written), word


def test_a_student_releases_public_canary_pool_draws_too(monkeypatch):
    """A release has the small public canary pool (an eleven-letter city among them): a draw is made all the same, and
    a city no pool has a word of its length for stays as written."""
    from grader.judging import canaries

    monkeypatch.setattr(drawing, "CANARY_CITIES", [*canaries.PUBLIC_POOLS["cities"], "Thiruvananthapuram"])
    drawing._image_pools.cache_clear()
    try:
        draw = Draw("release", "capstone")
        assert draw.forward("Lakeside") != "Lakeside" and draw.backward(draw.forward("Springfield")) == "Springfield"
        assert draw.forward("Thiruvananthapuram") == "Thiruvananthapuram"
    finally:
        monkeypatch.undo()
        drawing._image_pools.cache_clear()


def test_the_fields_and_values_a_draw_adds_come_back_as_they_were_sent():
    """A drawn field or value is sent as it is: were it an image of the draw, it would come back renamed."""
    from grader.judging.registries import TYPED_TOOLS

    for seed in range(60):
        draw = Draw(seed, "capstone")
        arguments, tools = draw.varied_arguments("set_alarm", {"hour": 7}, TYPED_TOOLS)
        assert draw.sent and draw.backward(draw.forward(arguments)) == arguments
        assert not set(draw.sent) & set(draw.originals)


def test_the_vocabulary_the_kept_words_and_the_classes_share_no_word():
    classes = [set(words) | set(drawing.CLASS_POOLS[kind]) for kind, words in VOCABULARY.items()]
    for i, one in enumerate(classes):
        for other in classes[i + 1:]:
            assert one & other == set()
    assert vocabulary_words() & KEPT == set()


def test_escaped_letters_are_renamed_as_the_letters_they_stand_for():
    draw = Draw("escapes")
    raw = '{"name": "get_weather", "arguments": {"\\u0063ity": "Paris"}}'
    drawn = json.loads(draw.forward(raw))
    plain = json.loads(draw.forward('{"name": "get_weather", "arguments": {"city": "Paris"}}'))
    assert drawn == plain
    assert TOKEN.findall("a\\ncity") == ["a", "\\n", "city"]


def test_data_is_renamed_in_keys_and_strings_and_nothing_else():
    draw = Draw("data")
    data = {"city": ["Paris", 7, 7.0, True, None], "units": {"metric": "imperial"}}
    drawn = draw.forward(data)
    assert list(drawn) == [draw.forward("city"), draw.forward("units")]
    assert drawn[draw.forward("city")][1:] == [7, 7.0, True, None]
    assert draw.backward(drawn) == data


def test_a_call_with_no_word_to_rename_gets_drawn_whitespace_after_it_and_keeps_its_kind():
    """``42``, ``[]``, ``null`` and deep brackets have nothing to rename: JSON whitespace after them makes them new on
    every draw without changing what json.loads sees; text that is no JSON, and an empty reply, stay as written."""
    tails = set()
    for seed in range(40):
        draw = Draw(seed, "capstone")
        for raw in ("42", "[]", "null", '{"a": 1}', "[" * 5000 + "]" * 5000):
            padded = draw.padded(raw)
            assert padded.startswith(raw) and padded != raw and padded[len(raw):].strip(" \t\n\r") == ""
            assert 1 <= len(padded) - len(raw) <= 24
            if raw != "[" * 5000 + "]" * 5000:
                assert json.loads(padded) == json.loads(raw)
            tails.add(padded[len(raw):])
        for raw in ("", "   \n", '{"a": 1', "[1,", "{'a': 1}", '{"name": "get_weather"}'):
            assert draw.padded(raw) == raw
    assert len(tails) > 150  # no short list of variants a table could collect


def _bases():
    from faulty.step_faults import BASES

    return [("capstone", open(os.path.join(ROOT, "tests", "faulty", "base.py"), encoding="utf-8").read()),
            *sorted(BASES.items())]


def _full_marks_on(seeds, exercise, source, tmp_path):
    from grader.pipeline import grade

    path = tmp_path / "base.py"
    path.write_text(source, encoding="utf-8")
    for seed in seeds:
        result = grade(path, exercise_ids=[exercise], seed=seed)
        lost = [(case.title, case.feedback[:200]) for case in result.cases if not case.passed]
        assert result.max_score > 0 and lost == [], f"seed {seed}: {lost}"


@pytest.mark.parametrize("exercise, source", _bases(), ids=[name for name, _ in _bases()])
def test_the_reference_keeps_full_marks_on_two_draws(exercise, source, tmp_path):
    _full_marks_on([f"fast-{secrets.token_hex(4)}", f"fast-{secrets.token_hex(4)}"], exercise, source, tmp_path)


def test_a_templated_fields_names_are_renamed_back_during_its_run_only(tmp_path):
    """Seed slow-e5d404a4 (found by the test below): a templated case's drawn field names were still renamed back into
    the case's words when a later run drew one of them as a field of its own, so the valid-call canary's dispatch
    came back with "city" in it and every refusal case counted nothing. The names are forgotten when the run ends."""
    source = dict(_bases())["capstone"]
    _full_marks_on(["slow-e5d404a4"], "capstone", source, tmp_path)


@pytest.mark.slow  # 25 gradings per exercise (about 10 s each on two cores)
@pytest.mark.parametrize("exercise, source", _bases(), ids=[name for name, _ in _bases()])
def test_the_reference_keeps_full_marks_on_every_draw(exercise, source, tmp_path):
    """A draw that costs a correct solution a point is a bug in the pools, not bad luck (issue 24)."""
    _full_marks_on([f"slow-{secrets.token_hex(4)}" for _ in range(25)], exercise, source, tmp_path)


def test_a_varied_call_keeps_its_fault_and_gets_a_new_shape_on_every_draw():
    """A refused call gets valid optional fields drawn around its fault (issue 24's attacker keyed a replay on each
    call's skeleton): what was missing, mistyped or undeclared stays so, what is added is declared and valid."""
    from grader.judging.draw import SAMPLE_TYPES
    from grader.judging.registries import SEED_TOOLS, TYPED_TOOLS
    from grader.judging.scripted_models import make_call

    def skeleton(text):
        return re.sub(r"[^\W\d_]", "a", text)

    shapes = set()
    for seed in range(40):
        draw = Draw(seed, "capstone")
        for name, arguments, tools, fault in [
                ("get_weather", {"units": "metric"}, SEED_TOOLS, ("missing", "city")),
                ("set_alarm", {"hour": True, "minute": 0}, TYPED_TOOLS, ("mistyped", "hour")),
                ("get_weather", {"city": "Paris", "country": "FR"}, SEED_TOOLS, ("undeclared", "country"))]:
            raw, varied = draw.varied_call(make_call(name, arguments), tools)
            call = json.loads(raw)
            spec = varied[name]
            own = {**tools[name]["required"], **tools[name]["optional"]}
            added = {f: t for f, t in {**spec["required"], **spec["optional"]}.items() if f not in own}
            assert 1 <= len(added) <= 3 and set(added.values()) <= set(SAMPLE_TYPES)
            # The case's own fields keep their kind; at least one drawn field is required, and is sent.
            assert {f: spec["required"][f] for f in tools[name]["required"]} == tools[name]["required"]
            assert not set(tools[name]["optional"]) & set(spec["required"])
            drawn_required = set(spec["required"]) - set(tools[name]["required"])
            assert drawn_required and drawn_required <= set(call["arguments"]) and drawn_required <= set(added)
            assert {k: v for k, v in call["arguments"].items() if k not in added} == arguments  # the fault as it was
            # ... in its own order: a runtime reporting only the first violation must report the same one as before
            # (it passed the three-violation case on some draws when the order was drawn).
            assert [k for k in call["arguments"] if k not in added] == list(arguments)
            for field in set(call["arguments"]) & set(added):
                value = call["arguments"][field]
                assert type(value) is added[field]
            kind, field = fault
            assert (field in call["arguments"]) == (kind != "missing")
            assert (field in {**spec["required"], **spec["optional"]}) == (kind != "undeclared")
            shapes.add(skeleton(raw))
            assert tools is SEED_TOOLS or tools is TYPED_TOOLS  # the case's own registry is never changed
        # No arguments object: the call keeps its text (JSON gets whitespace after it), the registry gets drawn fields.
        raw, varied = draw.varied_call('{"name":"get_weather"}', SEED_TOOLS)
        assert raw.rstrip(" \t\n\r") == '{"name":"get_weather"}' and set(varied) == set(SEED_TOOLS)
        for name, spec in varied.items():
            assert spec["required"] == SEED_TOOLS[name]["required"]
            assert set(spec["optional"]) > set(SEED_TOOLS[name]["optional"])
    assert len(shapes) > 60  # about 120 calls: hardly a shape twice


def test_a_call_in_text_that_is_no_call_gets_drawn_fields_and_keeps_what_breaks_it():
    """The parsing and name cases hand over text that json.loads refuses, or a call of no registered tool: the drawn
    fields go right after each arguments brace, in the text's own quoting, so the cut, the fence, the prose, the
    quotes and the name stay as written (issue 24: the skeleton replay recognised these cases by their shape)."""
    import ast

    from grader.judging.draw import SAMPLE_TYPES
    from grader.judging.registries import SEED_TOOLS
    from grader.judging.scripted_models import make_call

    valid = make_call("get_weather", {"city": "Paris"})
    decoder = json.JSONDecoder()
    texts = {  # kind -> (raw, how to read the calls back out of the varied text)
        "fence": ("```json\n" + valid + "\n```", lambda t: [decoder.raw_decode(t, t.index("{"))[0]]),
        "prose": (valid + " Anything else?", lambda t: [decoder.raw_decode(t)[0]]),
        "two calls": (valid + make_call("get_weather", {"city": "Rome"}),
                      lambda t: [decoder.raw_decode(t)[0], decoder.raw_decode(t, decoder.raw_decode(t)[1])[0]]),
        "single quotes": ("{'name': 'get_weather', 'arguments': {'city': 'Paris'}}", lambda t: [ast.literal_eval(t)]),
        "in a string": (json.dumps(valid), lambda t: [json.loads(json.loads(t))]),
        "in an array": (json.dumps([json.loads(valid)]), lambda t: json.loads(t)),
        "unknown name": (make_call("get_wether", {"city": "Paris"}), lambda t: [json.loads(t)]),
        "no name": ('{"arguments": {}}', lambda t: [json.loads(t)]),
        # Arguments sent as a string (real calls do): the fields go into the string, which stays a string.
        "string arguments": (make_call("get_weather", '{"city": "Paris"}'),
                             lambda t: [{**json.loads(t), "arguments": json.loads(json.loads(t)["arguments"])}]),
        "args in a fence": ('```tool_code\n{"functionCall": {"name": "get_weather", "args": "{\\"city\\": 1}"}}\n```',
                            lambda t: [{"name": "get_weather", "arguments": json.loads(decoder.raw_decode(
                                t, t.index("{"))[0]["functionCall"]["args"])}]),
    }
    shapes = {kind: set() for kind in texts}
    for seed in range(30):
        draw = Draw(seed, "capstone")
        for kind, (raw, calls_of) in texts.items():
            varied, tools = draw.varied_call(raw, SEED_TOOLS)
            spec, own = tools["get_weather"], SEED_TOOLS["get_weather"]
            added = {f: t for f, t in {**spec["required"], **spec["optional"]}.items()
                     if f not in {**own["required"], **own["optional"]}}
            assert 1 <= len(added) <= 3 and set(added.values()) <= set(SAMPLE_TYPES), kind
            assert {f: spec["required"][f] for f in own["required"]} == own["required"]
            drawn_required = set(spec["required"]) - set(own["required"])
            # A call that names the tool and got fields gets at least one required (one to carry it, in every call).
            assert bool(drawn_required) == (kind not in ("unknown name", "no name")), kind
            originals = calls_of(raw)
            for original, call in zip(originals, calls_of(varied), strict=True):
                assert {k for k in call} == {k for k in original}, kind  # the name (or its absence) as it was
                assert call.get("name") == original.get("name")
                sent = {k: v for k, v in call["arguments"].items() if k in added}
                assert sent and {k: v for k, v in call["arguments"].items() if k not in added} == original["arguments"]
                assert drawn_required <= set(sent), kind
                assert all(type(value) is added[field] for field, value in sent.items()), (kind, sent)
            shapes[kind].add(re.sub(r"[^\W\d_]", "a", varied))
        # A cut-off call keeps its cut: the fields go in before the text it ends with.
        cut = valid[:-7]
        varied, _ = draw.varied_call(cut, SEED_TOOLS)
        head = '{"name": "get_weather", "arguments": {'
        tail = ", " + cut[len(head):]  # '"city": "P'
        assert cut.startswith(head) and varied.startswith(head) and varied.endswith(tail) and len(varied) > len(cut)
        json.loads(varied[len(head) - 1:-len(tail)] + "}")  # what went in is valid JSON fields
        # Text with no arguments object: JSON gets drawn whitespace after it, the rest comes back as it is.
        assert draw.varied_call('"get_weather"', SEED_TOOLS)[0].rstrip(" \t\n\r") == '"get_weather"'
        assert draw.varied_call("not a call", SEED_TOOLS)[0] == "not a call"
    assert min(len(found) for found in shapes.values()) > 15  # 30 draws: a new shape almost every time


# A runtime that stops at once when the model repeats its call word for word, and gives a model that changed its call
# a second chance: on the bounded-retry case's model, which repeats its call, it asks once.
REPEAT_AWARE = '''
import json


def valid(text):
    try:
        call = json.loads(text)
    except (TypeError, ValueError):
        return None
    if not isinstance(call, dict) or call.get("name") not in TOOLS or not isinstance(call.get("arguments"), dict):
        return None
    spec, arguments = TOOLS[call["name"]], call["arguments"]
    declared = {**spec.get("required", {}), **spec.get("optional", {})}
    if any(f not in arguments for f in spec.get("required", {})) or any(f not in declared for f in arguments):
        return None
    if any(not isinstance(v, declared[f]) or (isinstance(v, bool) and declared[f] is not bool)
           for f, v in arguments.items()):
        return None
    return call


def handle_tool_call(raw, ask_model):
    call = valid(raw)
    if call is None:
        reply = ask_model("That call is not valid: a field is missing, undeclared or of the wrong type.")
        if reply == raw:
            return {"status": "rejected", "error": "The model sent the same invalid call again."}
        call = valid(reply)
        if call is None:  # a model that changed its call is learning: it is asked once more
            call = valid(ask_model("Still not valid: check every field against the tool's schema."))
        if call is None:
            return {"status": "rejected", "error": "The retry was not valid either."}
    return dispatch(call["name"], call["arguments"])
'''


@pytest.mark.parametrize("seed", ["repeats-1", "repeats-2"])
def test_a_model_that_repeats_its_call_repeats_the_call_as_it_was_handed_over(tmp_path, seed):
    """The bounded-retry case's model "repeats the same invalid call": once the call is varied (issue 24), it must
    repeat the varied call, or a runtime that notices a word-for-word repeat meets a different call and loses."""
    from graded import graded

    path = tmp_path / "repeat_aware.py"
    path.write_text(REPEAT_AWARE, encoding="utf-8")
    _, results = graded(path, "--exercise", "capstone", "--seed", seed)
    [case] = [t for t in results["tests"] if "repeats the same invalid call is asked once" in t["name"]]
    assert (case["score"], case["max_score"]) == (2.0, 2.0), case["output"]


def test_varied_arguments_declare_the_drawn_fields_where_a_repair_would_look():
    """The step exercises' validate_call cases hand over a call's parts as data (issue 24): drawn fields go on the named
    tool, or on every tool when the name is none of them; arguments that are no object stay as they are; the call's
    own fields keep their order."""
    from grader.judging.registries import TYPED_TOOLS

    for seed in range(20):
        draw = Draw(seed, "validate-call")
        arguments, tools = draw.varied_arguments("set_alarm", {"minute": 0, "hour": True}, TYPED_TOOLS)
        added = {*tools["set_alarm"]["optional"], *tools["set_alarm"]["required"]} - {
            *TYPED_TOOLS["set_alarm"]["optional"], *TYPED_TOOLS["set_alarm"]["required"]}
        assert 1 <= len(added) <= 3 and set(arguments) - {"minute", "hour"} <= added and set(arguments) - {"minute", "hour"}
        assert [k for k in arguments if k not in added] == ["minute", "hour"] and arguments["hour"] is True
        assert all(tools[name] == TYPED_TOOLS[name] for name in TYPED_TOOLS if name != "set_alarm")
        for name in ("get_wether", 42, None):
            arguments, tools = draw.varied_arguments(name, {"city": "Paris"}, TYPED_TOOLS)
            assert all(set(tools[n]["optional"]) > set(TYPED_TOOLS[n]["optional"]) for n in TYPED_TOOLS)
            assert arguments["city"] == "Paris" and len(arguments) > 1
        assert draw.varied_arguments("get_weather", "Paris", TYPED_TOOLS)[0] == "Paris"


def test_a_huge_call_is_varied_by_its_head_and_keeps_its_size():
    """A 1 MB call is varied as text (parsing and writing it again cost a twentieth of a grading): the drawn fields go
    after its arguments brace, declared and valid, and the megabyte after them is the call's own."""
    from grader.judging.registries import SEED_TOOLS
    from grader.judging.scripted_models import make_call

    raw = make_call("get_weather", {"city": ["Paris"] * (1024 * 1024 // 10)})
    head = '{"name": "get_weather", "arguments": {'
    for seed in range(5):
        varied, tools = Draw(seed, "capstone").varied_call(raw, SEED_TOOLS)
        assert varied.startswith(head) and varied.endswith(raw[len(head):]) and 0 < len(varied) - len(raw) < 200
        call = json.loads(varied)
        added = {k: v for k, v in call["arguments"].items() if k != "city"}
        declared = {**tools["get_weather"]["required"], **tools["get_weather"]["optional"]}
        assert added and all(type(value) is declared[field] for field, value in added.items())


# Pieces of huge texts: words of the draw in any letter case, words it keeps, words of other scripts, a word longer
# than any image, digits, escapes' absence and punctuation where a piece may be cut.
HUGE_PARTS = ["weather", "Paris", "CITY", "get_weather", "arguments", "name", "Malmö", "Zürich", "кот", "x" * 5000,
              "42", "-1.5e3", '"', ", ", ": ", "{", "}", "[", "]", " ", "\n", "—", "_", "otter", "Lima", "eur", "UTC"]


@pytest.mark.parametrize("seed", range(3))
def test_a_huge_text_is_renamed_in_pieces_exactly_as_it_is_word_by_word(seed):
    """A text over 10,000 characters is renamed in repeating pieces (``Draw._pieced``, the 1 MB calls' cost): it must
    give what renaming every token of the whole text gives, and rename back to itself."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=40, deadline=None)
    @given(st.lists(st.sampled_from(HUGE_PARTS), min_size=1, max_size=60), st.integers(1, 400))
    def check(parts, repeat):
        text = "".join(parts) * repeat
        text += "{" * max(0, 10_001 - len(text))  # over the size where pieces are used
        whole = Draw(seed, "capstone")
        expected = whole._split_and_renamed(text, whole._forward_word, {})
        draw = Draw(seed, "capstone")
        drawn = draw.forward(text)
        assert drawn == expected
        assert draw.backward(drawn) == text

    check()


def test_a_twin_gets_the_fields_its_judged_call_was_sent_at_the_same_places():
    """A twin judges an observation by difference, so it carries the judged call's drawn fields where that call had them
    (an observation that quotes the call and cuts the quote short otherwise cut different fields in the two calls)."""
    from grader.judging.registries import TYPED_TOOLS
    from grader.judging.scripted_models import make_call

    layouts = set()
    for seed in range(40):
        draw = Draw(seed, "capstone")
        judged, _ = draw.varied_arguments("set_alarm", {"hour": True, "minute": 30, "label": 3}, TYPED_TOOLS)
        sent, placed = draw.sent, draw.placed
        twin = json.loads(draw.mirrored(make_call("set_alarm", {"hour": 7, "minute": "x", "label": "gym"}), sent, placed))
        own = iter(["hour", "minute", "label"])
        assert list(twin["arguments"]) == [key if key in sent else next(own) for key in judged]
        assert {key: twin["arguments"][key] for key in sent} == sent
        layouts.add(tuple(key in sent for key in judged))
        # Text that is no json.dumps call gets them after its arguments brace, as varied_call writes them there.
        text = '{"name": "set_budget", "arguments": {"amount": 1e400}}'
        mirrored = draw.mirrored(text, sent, None)
        assert mirrored.startswith('{"name": "set_budget", "arguments": {' + json.dumps(next(iter(sent))))
        assert mirrored.endswith('"amount": 1e400}}')
        # A twin that carries them already, or with nothing sent, stays as it is.
        assert draw.mirrored(make_call("set_alarm", judged), sent, placed) == make_call("set_alarm", judged)
        assert draw.mirrored(text, {}, None) == text
    assert len(layouts) > 4


def test_drawn_values_take_the_cases_shapes_and_are_never_falsy():
    """A table stripped the fields whose values looked drawn (one Title-case word, an integer below 100, k/4 + 0.125):
    drawn values now take every shape the cases' own values have (issue 24's third attacker trial; digits and a
    decimal in a string, a whole number as a float, after the seventh, which keyed on the values no draw made), and none is
    falsy (a runtime that tests a required field with ``if not value`` would miss it on some draws only)."""
    from grader.judging.draw import SAMPLE_TYPES

    draw = Draw("shapes", "capstone")
    seen = {kind: set() for kind in SAMPLE_TYPES}
    for _ in range(300):
        for kind in SAMPLE_TYPES:
            value = draw._valid(kind)
            assert type(value) is kind and value
            if kind is str:
                seen[kind].add("digits" if value.isdigit() else "decimal" if value.replace(".", "", 1).isdigit() else
                               "title" if value.istitle() and " " not in value else "two" if " " in value else "lower")
            elif kind is int:
                seen[kind].add(value < 100)
            elif kind is float:
                seen[kind].add(value % 1)
            elif kind in (list, dict):
                seen[kind].add(len(value))
    assert seen[str] == {"title", "lower", "two", "digits", "decimal"} and seen[int] == {True, False}
    assert seen[float] == {0.0, 0.25, 0.5, 0.75, 0.125} and seen[list] == {1, 2, 3} and seen[dict] == {1, 2}


def test_a_drawn_required_field_goes_into_every_later_call_of_its_tool():
    """A drawn field made required is in the call that drew it, in the next call of that tool (the model's corrected
    retry, a twin, the next call handed over: ``with_required``) with the same value, and in no call of another tool."""
    from grader.judging.registries import TYPED_TOOLS
    from grader.judging.scripted_models import make_call

    for seed in range(20):
        draw = Draw(seed, "capstone")
        raw, tools = draw.varied_call(make_call("get_weather", {"units": "metric"}), TYPED_TOOLS)
        required = set(tools["get_weather"]["required"]) - {"city"}
        assert required and {f: json.loads(raw)["arguments"][f] for f in required} == {
            f: draw.required_values[f] for f in required}
        retry, fields = draw.with_required(make_call("get_weather", {"city": "Paris"}), tools)
        assert set(fields) == required and json.loads(retry)["arguments"] == {"city": "Paris", **fields}
        other = make_call("get_time", {})
        assert draw.with_required(other, tools) == (other, {})
        again, _ = draw.varied_call(make_call("get_weather", {"city": "Lima"}), tools)
        assert required <= set(json.loads(again)["arguments"])  # carried into the next varied call too
        # A twin with drawn JSON whitespace after it (``padded``) gets them too, the whitespace kept after it: a padded
        # twin of a templated call kept them out and named a missing field beside its own fault.
        padded, fields = draw.with_required(make_call("get_weather", {"city": 7500001}) + " \t\n", tools)
        assert padded.endswith("} \t\n") and set(fields) == required
        assert json.loads(padded)["arguments"] == {"city": 7500001, **fields}


@pytest.mark.parametrize("arguments, same", [
    ("20", lambda a: isinstance(a, str) and a.isdigit() and len(a) == 2),
    (20, lambda a: type(a) is int and 10 <= a < 100),
    ("Paris", lambda a: isinstance(a, str) and a.isalpha() and a.istitle()),
    (True, lambda a: a is True),
    ([{"city": "Paris"}], lambda a: a == [{"city": "Paris"}]),
])
def test_arguments_that_are_no_object_are_drawn_as_values_of_their_kind(arguments, same):
    """A call whose arguments are a number or a string of digits or of one word carries no field to draw, and as
    written it was a key a table knew (the real call ``"arguments": "20"``): the value is drawn, of the same kind."""
    from grader.judging.registries import SEED_TOOLS
    from grader.judging.scripted_models import make_call

    values = set()
    for seed in range(10):
        raw, _ = Draw(seed, "capstone").varied_call(make_call("get_weather", arguments), SEED_TOOLS)
        drawn = json.loads(raw)["arguments"]
        assert same(drawn)
        values.add(json.dumps(drawn))
    assert len(values) > (1 if isinstance(arguments, (str, int)) and arguments is not True else 0)


def test_a_schema_and_its_value_get_drawn_valid_properties_and_keep_what_is_wrong():
    """validate_arguments' cases (notebook 6) had inputs with no word to rename (``{"p": 0}`` against
    ``"enum": [false, null]``): drawn properties of simple types go into an object schema and its value, valid, and a
    map gets drawn string values; the value's own keys and their order, and everything else, stay as written."""
    from grader.judging.canaries import SCHEMA

    cases = [({"p": 0}, {"type": "object", "properties": {"p": {"enum": [False, None]}}}),
             ({"city": 7, "days": 3}, SCHEMA),
             ({"a": "x", "b": 2}, {"type": "object", "additionalProperties": {"type": "string"}})]
    seen = set()
    for seed in range(20):
        draw = Draw(seed, "json-schema")
        for value, schema in cases:
            before = json.dumps([value, schema])
            drawn_value, drawn_schema = draw.varied_schema(value, schema)
            assert json.dumps([value, schema]) == before  # the case's own objects are unchanged
            added = [key for key in drawn_value if key not in value]
            assert 1 <= len(added) <= 3 and [key for key in drawn_value if key in value] == list(value)
            assert all(drawn_value[key] == value[key] for key in value)
            if "properties" in schema:
                kinds = {"string": str, "integer": int, "number": float, "boolean": bool}
                assert all(type(drawn_value[key]) is kinds[drawn_schema["properties"][key]["type"]] for key in added)
                assert {k: v for k, v in drawn_schema["properties"].items() if k in schema["properties"]} == schema["properties"]
                if "required" in schema:
                    assert drawn_schema["required"][:len(schema["required"])] == schema["required"]
                    assert set(drawn_schema["required"][len(schema["required"]):]) <= set(added)
            else:
                assert drawn_schema == schema and all(isinstance(drawn_value[key], str) for key in added)
            seen.add(json.dumps(drawn_value))
        # What has no object to draw into stays as it is.
        assert draw.varied_schema("anything", {"type": "string"}) == ("anything", {"type": "string"})
        assert draw.varied_schema([{"city": "P"}], SCHEMA) == ([{"city": "P"}], SCHEMA)
        broken = {"type": "object", "properties": [{"name": "city"}]}
        assert draw.varied_schema({"city": "x"}, broken) == ({"city": "x"}, broken)
    assert len(seen) > 50


def test_a_cases_own_text_gets_a_drawn_word_and_an_id_a_drawn_tail_keeping_their_kind():
    """tool_error_result's cases (notebook 0) hand over an id and a message: the id gets drawn letters after it (an
    empty id stays empty), the message a drawn word before its trailing whitespace (padding and line breaks kept)."""
    draw = Draw("text", "tool-result")
    for message in ["  argument 'city' is missing  ", "\nTool call rejected:\n- city is missing\n\n", "first"]:
        drawn = draw.with_word(message)
        body = message.rstrip()
        assert drawn.startswith(body + " ") and drawn.endswith(message[len(body):])
        assert drawn[len(body) + 1:len(drawn) - (len(message) - len(body))].isalpha()
    assert draw.with_word("   ") == "   "
    tails = {draw.with_id_tail("toolu_9") for _ in range(20)}
    assert len(tails) == 20 and all(t.startswith("toolu_9") and 13 <= len(t) <= 19 and t.isascii() for t in tails)
    assert draw.with_id_tail("") == ""


def _faults(raw, tools):
    """The kind of what is wrong with a ``json.dumps`` call (a sorted list): each missing required field, each
    undeclared field, and each declared field at fault as (required or optional, declared type, value's type)."""
    from grader.judging.draw import _fits

    call = json.loads(raw)
    spec, arguments = tools[call["name"]], call["arguments"]
    declared = {**spec["required"], **spec["optional"]}
    kinds = [("missing",) for field in spec["required"] if field not in arguments]
    kinds += [("undeclared",) for field in arguments if field not in declared]
    kinds += [("required" if field in spec["required"] else "optional",
               "any" if arguments[field] is None else declared[field].__name__, type(arguments[field]).__name__)
              for field in arguments if field in declared and not _fits(arguments[field], declared[field])]
    return sorted(kinds)


def test_a_templated_call_keeps_its_faults_and_draws_everything_else():
    """The schema cases' calls are made again from their kind on every grading (``Draw.templated``; issue 24's fourth
    attacker trial found each case's own fields by the public registries' shapes): the same faults (missing, undeclared,
    null, each wrong declared type and value type, required or optional), every name and every other type drawn, the
    tool's own required fields first, and hardly a registry shape twice."""
    from grader.judging.registries import SEED_TOOLS, TYPED_TOOLS
    from grader.judging.scripted_models import make_call

    module = __import__("case_modules").load("tool_call/test_03_schema.py")
    calls = [(make_call(name, arguments), TYPED_TOOLS) for name, arguments in module.TYPE_ERRORS.values()]
    calls += [(make_call("get_weather", arguments), SEED_TOOLS) for arguments in module.NULL_VALUES.values()]
    calls += [(make_call("get_weather", {"units": "metric"}), SEED_TOOLS),
              (make_call("get_weather", {"city": "Paris", "country": "FR"}), SEED_TOOLS)]
    shapes = set()
    for seed in range(15):
        draw = Draw(seed, "capstone")
        for raw, tools in calls:
            new_raw, new_tools = draw.templated(raw, tools)
            assert _faults(new_raw, new_tools) == _faults(raw, tools), raw
            call = json.loads(new_raw)
            assert call["name"] not in tools and not set(call["arguments"]) & set(json.loads(raw)["arguments"])
            own = json.loads(raw)["name"]
            assert len(new_tools[call["name"]]["required"]) > len(tools[own]["required"])
            if json.loads(raw)["arguments"] == {"units": "metric"}:  # city, the tool's first required field, is missing
                assert next(iter(new_tools[call["name"]]["required"])) not in call["arguments"]
            shapes.add(json.dumps({name: {part: sorted(t.__name__ for t in spec[part].values()) for part in spec}
                                   for name, spec in sorted(new_tools.items(), key=lambda item: len(item[1]["required"]))}))
    assert len(shapes) > 0.9 * 15 * len(calls)
    # What names no registered tool, or sends arguments as a string holding JSON, comes back as it was.
    for raw in [make_call("get_wether", {"city": "Paris"}), "[]", make_call("get_weather", '{"city": "Paris"}')]:
        assert Draw(0, "capstone").templated(raw, SEED_TOOLS) == (raw, SEED_TOOLS)


def test_a_templated_call_without_an_arguments_object_keeps_its_arguments_and_its_names_come_back():
    """Missing, null or non-object arguments stay so (a number keeps its digits), the tool keeps a required field
    (a tool that requires nothing keeps requiring nothing), and a drawn field name the submission sends back is the
    case's own word until the next case (an observation naming the missing city is judged as naming it)."""
    from grader.judging.registries import SEED_TOOLS, TYPED_TOOLS
    from grader.judging.scripted_models import make_call

    for seed in range(10):
        draw = Draw(seed, "capstone")
        for arguments, same in [(..., lambda c: "arguments" not in c), (None, lambda c: c["arguments"] is None),
                                (20, lambda c: type(c["arguments"]) is int and 10 <= c["arguments"] < 100),
                                ([{"city": "Paris"}], lambda c: c["arguments"] == [{"city": "Paris"}])]:
            raw, tools = draw.templated(make_call("get_weather", arguments), SEED_TOOLS)
            call = json.loads(raw)
            assert same(call) and call["name"] in tools and call["name"] != "get_weather"
            required = list(tools[call["name"]]["required"])
            assert required and draw.backward(f"missing '{required[0]}'") == "missing 'city'"
        raw, tools = draw.templated(make_call("get_time", {"tz": "UTC"}), TYPED_TOOLS)
        call = json.loads(raw)
        assert tools[call["name"]]["required"] == {} and len(call["arguments"]) >= 1
        undeclared = [f for f in call["arguments"] if f not in tools[call["name"]]["optional"]]
        assert len(undeclared) == 1 and draw.backward(undeclared[0].title()) == "Tz"
        draw.forget_template()
        assert draw.backward(undeclared[0]) == undeclared[0]


def test_calls_templated_together_keep_their_faults_in_parallel_and_no_value_is_a_drawn_name():
    """A judged call and its twin made again together (``Draw.templated_together``): each keeps its fault, the fields
    at fault in either keep their types and values, the others get one drawn value in both, in one order; no value is
    a drawn field name (those are read back as the case's words: a drawn value "lynx" for the amount read back as
    "target" made a correct observation that quotes the call name the missing field in the twin's too)."""
    from grader.judging.registries import SEED_TOOLS, TYPED_TOOLS
    from grader.judging.scripted_models import make_call

    pairs = [([make_call("convert_currency", {"amount": 3, "source": "EUR"}),
               make_call("convert_currency", {"amount": 3, "target": "USD"})], TYPED_TOOLS),
             ([make_call("get_weather", {"city": "Paris", "units": 1}),
               make_call("get_weather", {"city": 7500001, "units": ""})], SEED_TOOLS)]
    for seed in range(30):
        draw = Draw(seed, "capstone")
        for raws, tools in pairs:
            (judged, twin), drawn_tools = draw.templated_together(raws, tools)
            assert _faults(judged, drawn_tools) == _faults(raws[0], tools)
            assert _faults(twin, drawn_tools) == _faults(raws[1], tools)
            one, two = json.loads(judged)["arguments"], json.loads(twin)["arguments"]
            shared = [f for f in one if f in two]
            assert [f for f in two if f in one] == shared  # one order in both
            names = set(draw._template)
            assert {draw._template[f] for f in names} == set(json.loads(raws[0])["arguments"]) | set(
                json.loads(raws[1])["arguments"]) | {f for f in tools[json.loads(raws[0])["name"]]["required"]}
            values = [value for call in (one, two) for value in call.values()]
            assert not _words(json.dumps(values)) & names
            assert set(json.loads(draw.backward(json.dumps(sorted(names))))) == {draw._template[f] for f in names}


def _words(text):
    return set(re.findall(r"[^\W\d_]+", text))


def test_a_templated_name_is_no_word_the_renaming_changes():
    """A templated field's drawn name is read back as the case's word: it must reach the worker as it is. "melon" reads
    as a prefix glued on the vocabulary's "lon" and was renamed on its way, so it came back as "melon" and an
    observation listing the allowed fields missed "hour" (seed r7 of tests/attacks/fair_quote_cut_short.py)."""
    for seed in range(5):
        draw = Draw(seed, "capstone")
        names = draw._fresh_names(set(), 150)
        assert "melon" not in names and all(draw.forward(name) == name for name in names)


def test_no_near_miss_is_drawn_as_a_word_of_a_canary_city():
    """Seed a35e042b2ec77773: "chart" drawn as "newt" made its near miss "char" the image "new", so the canary "New
    York" a scripted model sent came back as "Char York" and a correct runtime's dispatch was judged changed. A near
    miss's image is never a word of a canary city, and a word with near misses gets an image of five letters at least."""
    from grader.judging.draw import _CITY_WORDS, _near_misses

    assert "new" in _CITY_WORDS and "york" in _CITY_WORDS
    for seed in [*range(60), "a35e042b2ec77773"]:
        draw = Draw(seed, "capstone")
        for word in VOCABULARY["word"]:
            if len(word) >= 5:
                assert len(draw.images[word]) >= 5, (seed, word, draw.images[word])
        for near in _near_misses():
            assert draw.forward(near).lower() not in _CITY_WORDS, (seed, near)
        assert draw.backward("New York") == "New York"


def test_the_length_bound_is_judged_on_the_text_the_submission_wrote():
    """An image may be shorter than its word: an observation of 2,000 characters as the worker wrote it is longer once
    renamed back, and a correct observe lost "Eighty long problems" on some draws. The bound reads the text forward
    again while a hidden case's draw is in effect, and as it is in a visible case."""
    from grader.judging import expectations

    draw = Draw("length-bound", "observe")
    word = next(word for word in VOCABULARY["word"] if len(draw.images[word]) < len(word))
    written = ("problem with " + draw.images[word] + "; ") * 200
    written = written[:2000]
    assert len(draw.backward(written)) > 2000
    try:
        expectations.renamed_by = draw
        expectations.check_error_text(draw.backward(written), "The observation")  # passes: 2,000 as written
        expectations.renamed_by = None
        with pytest.raises(expectations.CaseFailed):
            expectations.check_error_text(draw.backward(written), "The observation")
    finally:
        expectations.renamed_by = None


def test_the_trusted_check_answers_in_the_words_the_worker_sees(tmp_path):
    """Seed a-2 (found by 12 draws of the retry loop): the trusted check made its observation in the cases' words to fit
    2,000 characters, renamed forward it passed them (an image longer than its word), and the reference loop that
    passed it on lost "A call with 10,000 undeclared fields gets a short observation". The check now reads the call as
    the worker sent it, against the registry the worker sees."""
    source = dict(_bases())["retry-loop"]
    _full_marks_on(["a-2", "a-4"], "retry-loop", source, tmp_path)


def test_a_valid_call_made_again_from_its_kind_keeps_its_values_and_types_and_draws_the_rest():
    """``Draw.templated_valid`` (the valid-call cases): the values and declared types the case is about stay (an integer
    where a number is declared, "", a list), every name is drawn and read back as the case's word, the drawn required
    fields are sent and returned, a tool that requires nothing stays {}, and a call that is not valid is left alone."""
    from grader.judging.registries import TYPED_TOOLS

    seen_shapes = set()
    for number in range(12):
        draw = Draw(f"valid-{number}", "capstone")
        raw = json.dumps({"name": "convert_currency", "arguments": {"amount": 10, "source": "", "target": "USD"}})
        made, tools, fields = draw.templated_valid(raw, TYPED_TOOLS)
        call = json.loads(made)
        assert call["name"] not in TYPED_TOOLS and call["name"] in tools
        spec = tools[call["name"]]
        back = {draw.backward(field): value for field, value in call["arguments"].items()}
        assert {field: back[field] for field in ("amount", "source", "target")} == {"amount": 10, "source": "",
                                                                                   "target": "USD"}
        assert type(back["amount"]) is int and 1 <= len(fields) <= 2 and set(fields) <= set(call["arguments"])
        assert {draw.backward(field): kind for field, kind in spec["required"].items() if field not in fields} == \
            {"amount": float, "source": str, "target": str}
        assert all(call["arguments"][field] == value for field, value in fields.items())
        assert draw.backward(call["name"]) == "convert_currency"
        seen_shapes.add((len(tools), len(spec["required"]), len(spec["optional"])))
        draw.forget_template()
        assert draw.backward(call["name"]) != "convert_currency"
        made, tools, fields = draw.templated_valid(json.dumps({"name": "get_time", "arguments": {}}), TYPED_TOOLS)
        assert json.loads(made)["arguments"] == {} and fields == {} and tools[json.loads(made)["name"]]["required"] == {}
        draw.forget_template()
        for invalid in ({"hour": True, "minute": 0}, {"hour": 7}, {"hour": 7, "minute": 0, "snooze": 5}):
            assert draw.templated_valid(json.dumps({"name": "set_alarm", "arguments": invalid}), TYPED_TOOLS) is None
        assert draw.templated_valid(json.dumps({"name": "get_weather", "arguments": None}), TYPED_TOOLS) is None
    assert len(seen_shapes) >= 4, seen_shapes


def test_no_near_miss_is_renamed_into_a_word_the_draw_hands_out():
    """Seed nb-50 of the solved capstone (found by the clean-clone CI): a drawn required field "flute" came back as
    "flat", because "flat", a near miss met later in the grading, had been given the image "flute", a pool word the
    draw also hands out as field names and values. A near miss whose image would be a pool word stays as written."""
    pool = set(drawing.POOL_WORDS)
    checked = 0
    for number in range(40):
        draw = Draw(f"near-{number}", "capstone")
        for lower in sorted(draw._near):
            if lower in draw.images:
                continue  # a word of the vocabulary: its image is drawn at the start and never handed out as a field
            image = draw.forward(lower)
            checked += 1
            assert image == lower or image not in pool, (number, lower, image)
    assert checked > 1000


@pytest.mark.parametrize("fault, seed, title, passed", [
    # The twin's undeclared field was drawn among the tool's fields, a required drawn one included, so the twin's
    # observation named a wrong type and no allowed field, and "hour" counted as named where the mistake never names it.
    ("bool_is_int", "library", "A call with two wrong types and an extra field is fixed in one retry", False),
    ("coerces_types", "library", "A call with two wrong types and an extra field is fixed in one retry", False),
    # A padded twin of a templated call kept a drawn required field out (``Draw.with_required``), so on most draws it had
    # two faults and an observation of the first violation only failed by naming the missing field; the case judges one
    # wrong type, which naming the first violation names, so it passes on every draw now (it passed on fv-2 only).
    *[("first_violation_only", seed, "The observation for a wrong type names the field, the expected type and what came",
       True) for seed in ("fv-2", "fv-3")],
])
def test_a_twin_keeps_its_kind_so_a_mistake_gets_the_same_verdict_on_every_draw(fault, seed, title, passed, tmp_path):
    """Draws where a faulty capstone got another verdict on a case than on the other draws (found by the class report's
    known mistakes, whose planted students are graded on other draws than the file was made from): the twin had gained
    a fault of another kind."""
    from course.misconceptions import apply_edits
    from faulty.faults import FAULTS
    from grader.pipeline import grade

    edits = next(f.edits for f in FAULTS if f.name == fault)
    path = tmp_path / "faulty.py"
    path.write_text(apply_edits(open(os.path.join(ROOT, "tests", "faulty", "base.py"), encoding="utf-8").read(), edits),
                    encoding="utf-8")
    result = grade(path, exercise_ids=["capstone"], seed=seed)
    assert [case.passed for case in result.cases if case.title == title] == [passed]


def test_a_drawn_id_comes_back_as_it_was_handed_over():
    """A clean-clone CI (seed e35aed3b8081c4ec): the tail "…eg9iNr" held "iNr", an image of the draw, so the id came
    back renamed and the reference lost "the error block carries the id unchanged". Every drawn id survives the round
    trip the worker's answer takes: 12,000 drawn ids on 60 draws (some did not before)."""
    for seed in range(60):
        draw = Draw(seed, "tool-result")
        for identifier in ("toolu_p", "toolu_9", "toolu_x1", "toolu_ü") * 50:
            drawn = draw.with_id_tail(identifier)
            assert draw.backward(draw.forward(drawn)) == drawn, (seed, drawn)


# Issue 24: a drawn id tail that held an image of the draw came back as another word (seed e35aed3b8081c4ec). Every
# other piece of free text the draw makes up is of the same kind: drawn once, handed over, and compared with what comes
# back renamed. Each must come back as it was on every draw.
FREE_TEXT = {
    "word": lambda draw: draw.word(),
    "with_word": lambda draw: draw.with_word("The weather service is down, try later.\n"),
    "fresh_name": lambda draw: draw.fresh_name({"city", "units"}),
    "fresh_name_as_long_as": lambda draw: draw.fresh_name_as_long_as("weather"),
    "with_drawn_name": lambda draw: draw.with_drawn_name('{"name": "get_weather", "arguments": null}')[0],
    **{f"valid {kind.__name__}": (lambda kind: lambda draw: draw._valid(kind))(kind)
       for kind in (str, int, float, bool, list, dict)},
    **{f"wrong like {value!r}": (lambda value: lambda draw: draw._wrong_like(value))(value)
       for value in ("Paris", "75001", "10.5", "a@example.com", 42, 2.5, ["x"], {"note": "y"})},
}


@pytest.mark.parametrize("kind", sorted(FREE_TEXT))
def test_every_drawn_free_text_comes_back_as_it_was_handed_over(kind):
    """Whatever the draw makes up (a word, a message's added word, a fresh field or tool name, a valid or wrong value of
    every kind) renames forward and back to itself, on draws of many seeds (hypothesis) and many values per draw."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    make = FREE_TEXT[kind]

    @settings(max_examples=25, deadline=None)
    @given(st.text(max_size=20), st.sampled_from(["capstone", "tool-result", "parse-call", "json-schema"]))
    def check(seed, exercise):
        draw = Draw(seed, exercise)
        for _ in range(40):
            value = make(draw)
            assert draw.backward(draw.forward(value)) == value, (seed, exercise, value)

    check()

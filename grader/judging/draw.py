"""Hidden inputs drawn for every grading: the cases write their inputs in the kit's own words, the draw renames them.

The hidden cases are public (the kit is open source) and used to hand the worker the same inputs on every run: a
lookup table of those inputs, or a replay of what the reference answered for them, scored 129/129 on the capstone
with no checks at all (issue 24). Now every word of the cases' *vocabulary* (tool names' words, field names, city
and unit values, ``VOCABULARY``) is renamed into other words drawn from a seed, on the trusted side, for every
string and key that goes to the worker (the raw calls, the registries, the scripted models' replies, the grader's
own observations); whatever comes back (returned values, observations, dispatched calls) is renamed back before a
case judges it. So a case keeps its canonical words and its expectations, and the submission sees words it cannot
know in advance.

What keeps a case's kind and difficulty:
- a word of the "word" class (tool names' words, field names) becomes a word one to ``SPREAD`` letters shorter or
  longer, in the same letter case; a city or a currency code one of its own length. Every character that is no
  letter, every nesting depth and about every size stay (a 1 MB call stays about 1 MB); a skeleton (each letter
  written as "a") is new on every draw, since a table keyed by skeletons knew every case the draw did not change
  otherwise (issue 24's fourth attacker trial). A text's length is judged as the submission wrote it
  (``grader.judging.expectations.renamed_by``);
- one word always gets one image, so a tool's fields, the registry and the call keep agreeing (and disagreeing
  where the case makes them disagree);
- a near miss of a vocabulary word stays a near miss of the drawn word: a letter dropped or swapped, a suffix "s",
  a short prefix (``fweather`` from ``\\u005fweather``), one look-alike letter of another script (``wеather``)
  is made the same way from the image (``derived``);
- words outside the vocabulary stay literal: JSON and wire-format words, the kit's own message words, every
  word a reference observation is made of (``KEPT``), digits and punctuation.

The vocabulary and the canary pools' cities are renamed into distinct words of other pools (``POOL_WORDS``,
``POOL_CITIES``, ``POOL_CODES``: concrete nouns, cities, currency codes), never into a word of the vocabulary, so an
image is an ordinary word a learner's own text does not use, and renaming back is exact: a returned word that is not
an image stays as it was. Words of the pools appear in no reference message (``tests/test_draw.py``); the fields and
values a draw adds to a call are pool words that are no image in that draw (``Draw.unused``).

The draw is decided by a seed (``Draw(seed, *parts)``: the seed and, for instance, the student's id and the
exercise): random for a learner's run, the instructor's secret for a class, given again with ``--seed`` to
reproduce a report.
"""

import copy
import functools
import hashlib
import hmac
import json
import math
import random
import re
import secrets
import threading

from grader.judging.canaries import CITIES as CANARY_CITIES

# The words the hidden cases' inputs are written in, by class: a word is renamed to another word of its class and
# length. Tool names' own words (get_weather -> get_<word>), field names, values.
VOCABULARY = {
    "word": """
        wide timer seconds children leaf root node scale flags ping add
        weather alarm currency email time forecast search sensor
        city units hour minute label repeat amount source target body headers timezone path query results depth
        days location lat lon note country zip street address category priority region snooze ceiling
        series plot chart gym metric imperial celsius kelvin recipient
    """.split(),
    "city": "paris lima lyon rome kyiv oslo quito cusco nairobi accra augusta".split(),
    "code": "eur usd utc".split(),
}

# Plain words the vocabulary is drawn into: concrete nouns no reference message, case input or page of the course uses
# (a learner's own text echoes the course: "otter" names a grader in the docs), three to twelve letters.
POOL_WORDS = """
    elk owl yak emu ram cod eel gnu ant
    kiwi lynx mole newt puma toad wren hare crab moth dove lark mink swan vole
    heron raven bison koala tapir viper zebra eagle finch gecko lemur moose hyena
    badger beaver condor falcon ferret gibbon iguana jaguar marten osprey parrot pelican salmon toucan walrus weasel
    buffalo cheetah dolphin gazelle giraffe hamster leopard lobster mammoth panther penguin pheasant raccoon sparrow
    antelope anteater flamingo hedgehog mongoose peacock platypus porpoise reindeer scorpion squirrel starling tortoise
    albatross alligator armadillo barracuda butterfly chameleon chinchilla crocodile cormorant nightingale woodpecker
    hummingbird rhinoceros salamander kingfisher
    fig oak elm ash yew ivy
    pear plum lime kale leek sage mint dill rice corn bean
    maple cedar birch aspen peach mango grape melon basil thyme cumin
    walnut almond cashew pepper ginger carrot radish turnip garlic fennel quince lychee tomato cherry celery
    apricot avocado coconut lettuce cabbage parsley saffron
    mulberry rosemary cardamom chestnut pumpkin zucchini eggplant cucumber
    artichoke pistachio asparagus cranberry nectarine tangerine
    blackberry elderberry grapefruit watermelon persimmon macadamia
    pomegranate cauliflower
    lantern harbour quarry meadow glacier canyon lagoon summit prairie tundra savanna estuary fjord dune marsh
    anvil chisel hammer ladder kettle saucer teapot candle pillow basket barrel bucket cradle saddle
    compass sextant trumpet violin banjo cello flute harp oboe tuba drum lute
    telescope harmonica accordion xylophone tambourine clarinet trombone bagpipe
""".split()

# Cities the images of cities are drawn from: those of the canary pools are left out at import (they are renamed
# too), whatever pools this copy of the kit has; each length needs as many as the cities renamed (``_image_pools``).
POOL_CITIES = """
    bern doha riga baku kiev lome apia suva bonn kobe pisa faro metz graz linz
    minsk dakar hanoi sofia tunis rabat seoul cairo delhi dhaka sanaa accra
    milan turin genoa kyoto delft essen basel cadiz sochi tomsk kazan aswan luxor
    ankara athens berlin bogota dublin hobart lisbon luanda madrid manila moscow muscat riyadh taipei tehran vienna
    beijing caracas jakarta kampala nairobi managua tbilisi toronto yerevan cordoba bristol glasgow
    adelaide belgrade brasilia budapest canberra chisinau freetown helsinki honolulu istanbul kinshasa montreal
    pretoria santiago shanghai valencia victoria windhoek
    stockholm edinburgh marseille barcelona yogyakarta guadalajara ouagadougou kaliningrad
""".split()

POOL_CODES = "gbp chf inr brl aud sek nok dkk pln czk huf zar mxn sgd hkd krw thb".split()

# Words never renamed, even where a draw could reach them: JSON, the wire formats, the kit's own markers, and the
# words of every message a reference writes (tests/test_draw.py checks that the vocabulary and pools avoid them).
KEPT = frozenset("""
    null true false nan infinity name arguments argument type types string integer number boolean object array
    required optional properties property items enum anyof oneof allof ref defs schema additionalproperties
    function functions tool tools call calls input id kit registry dispatch ask model observation status ok
    receipt value values plain unplain error errors problem problems message field fields key keys
    get set send read view web lookup fetch list create delete update to max tz str int float bool dict
""".split())

CLASS_POOLS = {"word": POOL_WORDS, "city": POOL_CITIES, "code": POOL_CODES}

# The types a drawn field may be declared with: every type the contract names.
SAMPLE_TYPES = (str, int, float, bool, list, dict)

# Where a raw call's arguments object opens, in any quoting a case writes it in: JSON ("arguments": {), a Python
# literal ('arguments': {), a call inside a JSON string (\"arguments\": {), or arguments sent as a string that holds
# an object ("arguments": "{\"city\"...: real calls do this); and the tool it names, in the same quoting. Drawn
# fields are written right after the brace (``Draw.varied_call``).
# How many letters an image of a "word" may be shorter or longer than its word (``Draw._draw_lengths_too``).
SPREAD = 3
SENT_FORM_KEPT = 500  # characters: a text renamed back that is longer is remembered as written (Draw.sent_form)
HUGE = 10_000  # characters: a raw call longer than this is varied as text, by its head (``Draw.varied_call``)
ARGUMENTS_OPENING = re.compile(r"""(\\?"|')(?:arguments|args)\1: (")?\{""")
NAME_FIELD = re.compile(r"""(\\?"|')name\1: \1([^"'\\]*)\1""")

# A word is a run of letters of any script; digits and "_" end it (so get_weather is "get" and "weather"). Raw calls
# are JSON text, where a letter may be written as an escape (\u0063ity is "city" to the submission): a token holds
# letters and \uXXXX escapes, and an escaped backslash or a one-letter escape (\n, \t...) ends a word.
_LETTER, _ESCAPE = r"[^\W\d_]", r"\\u[0-9a-fA-F]{4}"
# (Written as runs, not as one repeated letter: matching a 1 MB word one letter at a time took 0.2 s.)
TOKEN = re.compile(rf"(\\[\\\"/bfnrt]|{_LETTER}+(?:(?:{_ESCAPE})+{_LETTER}*)*|(?:{_ESCAPE})+{_LETTER}*(?:(?:{_ESCAPE})+{_LETTER}*)*)")
# TOKEN where a text is ASCII and holds no backslash (so no escape): the same tokens, found 2-9 times faster.
ASCII_TOKEN = re.compile(r"([A-Za-z]+)")
# Every ASCII character but the letters and the backslash: a text with nothing else is renamed at once.
_NO_WORD = {code: None for code in range(128) if not chr(code).isalpha() and chr(code) != "\\"}
_SPACES = {code: " " for code in range(128) if not chr(code).isalpha()}  # where a huge text may be cut (Draw._pieced)
UNIT = re.compile(r"\\u[0-9a-fA-F]{4}|.", re.S)

# Letters that have a look-alike in another script (Cyrillic, Greek): for near misses like "wеather".
LOOK_ALIKES = {"a": "\u0430", "c": "\u0441", "e": "\u0435", "o": "\u043e", "p": "\u0440", "x": "\u0445",
               "y": "\u0443", "i": "\u0456", "s": "\u0455", "j": "\u0458"}
PLAIN_OF = {alike: plain for plain, alike in LOOK_ALIKES.items()} | {"\u03b1": "a", "\u03bf": "o", "\u03b5": "e"}


def vocabulary_words():
    """Every word of ``VOCABULARY``, in one set (lower case)."""
    return {word for words in VOCABULARY.values() for word in words}


def new_seed():
    """A fresh random seed for one grading (str, 16 hex digits): a learner's own run."""
    return secrets.token_hex(8)


def seed_for(secret, *parts):
    """The seed one file of a class is graded with (str, 16 hex digits), from the assignment's ``secret`` (str) and
    ``parts`` (the student's id, the file's SHA-256...).

    Classmates get different inputs, a regrade of the same file the same ones, and a changed file new ones: a table
    of the inputs one file was graded with is of no use to the next. A report shows this seed (it reproduces that
    one report), never the secret. The secret is stretched first (``assignment_key``: PBKDF2, 200,000 rounds), so
    guessing it from a seed costs a tenth of a second per guess; a random secret cannot be guessed at all.
    """
    message = "\x1f".join(map(str, parts)).encode("utf-8", "surrogatepass")
    return hmac.new(assignment_key(secret), message, hashlib.sha256).hexdigest()[:16]


@functools.lru_cache(maxsize=8)
def assignment_key(secret):
    """The key every file's seed is made with (bytes): ``secret`` (str) stretched by PBKDF2-HMAC-SHA256 with 200,000
    rounds (about 0.1 s, once per process and secret)."""
    return hashlib.pbkdf2_hmac("sha256", str(secret).encode("utf-8", "surrogatepass"), b"tool-call-kit assignment seed",
                               200_000)


def derive_seed(seed, *parts):
    """A 64-bit integer seed for ``random.Random``, from ``seed`` (str) and ``parts`` (str each), by SHA-256.

    The parts keep draws apart: one assignment's seed gives each student (and each exercise) its own draw, and
    no draw tells anything about the seed (it is a hash's output, not the seed).
    """
    text = "\x1f".join([str(seed), *map(str, parts)])
    # surrogatepass: a student id read from a file name that is not UTF-8 (Jos\xe9) holds lone surrogates.
    return int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:8], "big")


# The words of the canary pools' cities ("new" and "york" of "New York"): no near miss's image may be one of them, or a
# city a scripted model sends would come back as another word.
_CITY_WORDS = frozenset(word.lower() for city in CANARY_CITIES for word in re.findall(r"[^\W\d_]+", city))

# The words a draw hands out as drawn field names and values: no near miss's image may be one of them, or a drawn field
# the submission sends back would be read as the near miss (seed nb-50: a drawn required field "flute" came back as
# "flat" once "flat", a near miss met later in the grading, got the image "flute"; the solved capstone lost a case).
_POOL_SET = frozenset(POOL_WORDS)


@functools.lru_cache(maxsize=1)
def _near_misses():
    """``{near miss: (vocabulary word, edit)}``: every one-letter deletion and swap of a vocabulary word of five letters
    or more, and its plural, that is no renamed word itself. The same for every draw: made once per process
    (it was a tenth of a draw's set-up)."""
    near = {}
    for word in sorted(vocabulary_words()):
        if len(word) < 5:
            continue
        edits = [(word[:i] + word[i + 1:], ("drop", i)) for i in range(len(word))]
        edits += [(word[:i] + word[i + 1] + word[i] + word[i + 2:], ("swap", i)) for i in range(len(word) - 1)
                  if word[i] != word[i + 1]]
        edits.append((word + "s", ("suffix", "s")))
        for variant, edit in edits:
            near.setdefault(variant, (word, edit))
    return near


@functools.lru_cache(maxsize=1)
def _image_pools():
    """``(renamed, images)``, each ``{class: {length: [word, ...]}}``: what a draw renames, and the words its images
    are drawn from, by class and length.

    Renamed: the vocabulary and the canary pools' cities (one word each; a canary in its own words would tell itself
    from the cases), the cities as far as the city pool has words of their length (a student release's public canary
    pool has an eleven-letter city: it stays as written, as the whole public pool may).
    Images: the pools' words that are no renamed word of any class and no kept word. An image is never a word of the
    vocabulary: renaming back turns every image in what a submission returns into its word, and everyday words of
    the vocabulary (time, note, path, label) are words a learner's own text uses (the attacker trial of issue 24:
    "Nothing ran this time" read back as "city" on one draw in 40 cost a correct observation its point). Nor is it a
    word of the letters a-f alone: a receipt, hash or id in hex digits that comes back holds such runs (a dispatch
    receipt "3bee0a1c" would come back as "3add0a1c").
    Raises ``ValueError`` when a pool has fewer words of some length than the vocabulary's words of that length
    (``tests/test_draw.py`` keeps it from happening).
    """
    canary = sorted({city.lower() for city in CANARY_CITIES if city.isalpha()} - vocabulary_words())
    taken = vocabulary_words() | set(canary)
    renamed, images = {}, {}
    for kind, written in VOCABULARY.items():
        free, words = {}, {}
        for word in sorted(set(CLASS_POOLS[kind])):
            if word.isalpha() and word not in taken and word not in KEPT and not set(word) <= set("abcdef"):
                free.setdefault(len(word), []).append(word)
        for word in sorted(set(written)):
            words.setdefault(len(word), []).append(word)
        for length, group in words.items():
            if len(free.get(length, ())) < len(group):
                raise ValueError(f"the {kind} pool has {len(free.get(length, ()))} words of {length} letters for "
                                 f"{len(group)} renamed ones; add words to it.")
        if kind == "city":
            for city in canary:
                if len(free.get(len(city), ())) > len(words.get(len(city), ())):
                    words.setdefault(len(city), []).append(city)
        renamed[kind], images[kind] = words, free
    return renamed, images


def _words(text):
    """The lower-case words of ``text`` (set of str): runs of letters."""
    return {word.lower() for word in re.findall(r"[^\W\d_]+", text)}


def _fits(value, kind):
    """Whether ``value`` (JSON data) has the declared ``kind`` (a class of ``SAMPLE_TYPES``) as the contract reads
    types: a boolean is no integer or number, an integer is a number, null is no type (the original card; OpenAI's
    and JSON Schema's types)."""
    if isinstance(value, bool):
        return kind is bool
    if kind is float:
        return isinstance(value, (int, float))
    return type(value) is kind


# A field name a template may draw again: an identifier of ordinary length. A name that is itself the case (a traceback,
# 500,000 letters) is kept, and so is a tool with more fields than the pools have words for (300 fields).
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")
MOST_TEMPLATED_FIELDS = 40
# Schema keywords whose values are data, not schemas: their objects' keys are the value's own (templated_schema).
_SCHEMA_DATA = frozenset({"enum", "const", "default", "examples"})
# Keywords whose value is one subschema, or a list of them: where templated_schema may put a description.
_SUBSCHEMA = frozenset({"items", "additionalProperties", "not"})
_SUBSCHEMAS = frozenset({"anyOf", "allOf", "oneOf"})
# Arguments written as plain words ("Paris"): a form whose words templated_around draws again.
_PLAIN_TEXT = re.compile(r"[^\W\d_]+(?: [^\W\d_]+)*")


def _plain_names(spec, arguments):
    """Whether a template may draw the names of a tool's declared fields (``spec``: ``{"required": ..., "optional":
    ...}``) and of the ``arguments`` sent (a dict, or anything else: no field): all plain identifiers, at most
    ``MOST_TEMPLATED_FIELDS`` of them."""
    names = [*spec.get("required", {}), *spec.get("optional", {}), *(arguments if isinstance(arguments, dict) else ())]
    return len(names) <= MOST_TEMPLATED_FIELDS and all(
        isinstance(name, str) and _PLAIN_NAME.fullmatch(name) for name in names)


def _with_case_of(model, word):
    """``word`` (lower case) with the letter case of ``model``: all capitals when ``model`` is, else position by
    position as far as both go and lower case after (an image's length is drawn: "GetWeather" becomes "GetAlbatross"
    from the near miss "getweather" of "weather"'s image "albatross")."""
    if model.isupper() and len(model) > 1:
        return word.upper()
    return "".join(c.upper() if m.isupper() else c for m, c in zip(model, word)) + word[len(model):]


class Draw:
    """One grading's renaming of the cases' vocabulary (distinct pool words of the same class and length, drawn
    from a seed).

    Args:
        seed: the draw's seed (str or int): random per run, or the instructor's per assignment.
        parts: what tells draws of one seed apart (str each), e.g. the student's id and the exercise id.
    Attributes:
        seed: the seed as given. images: ``{word: image}`` for every renamed word (the vocabulary, the canary
            cities) and each near miss renamed so far (lower case); ``originals`` its inverse; ``space`` the renamed
            words; ``sent`` what the last varied call sent (``varied_call``).
    Raises:
        ValueError: a pool is too small for the words it renames (``_image_pools``; never for the kit's pools).
    """

    def __init__(self, seed, *parts):
        self.seed, self.parts = seed, parts
        self.random = random.Random(derive_seed(seed, *parts))
        self.images, self.originals = {}, {}
        renamed, images = _image_pools()
        for kind, by_length in renamed.items():
            free = images[kind]
            if kind == "word":
                self._draw_lengths_too(by_length, free)
                continue
            for length, group in sorted(by_length.items()):
                for word, image in zip(group, self.random.sample(free[length], len(group))):
                    self.images[word], self.originals[image] = image, word
        self.space = frozenset(self.images)
        self._near = _near_misses()
        # The drawn fields the last varied call sent, {field: value} in the cases' words, and their indices among its
        # arguments (None: written after the arguments brace): varied_call, for a twin (mirrored).
        self.sent, self.placed = {}, None
        # The drawn fields made required on a tool and the values sent in them ({field: value}, cases' words): every
        # later call of that tool gets them too (varied_arguments, with_required).
        self.required_values = {}
        self._cache = {}  # rename function's name -> {token: renamed token}
        self._underived_at = None  # ((images, pool words), the pool words no near miss) for _fresh_names
        self._sent = {}  # a long text renamed back -> as the submission wrote it (sent_form)
        self._big = {}  # (rename function's name, text) -> renamed text, for the last few texts over 10,000 characters
        self._template = {}  # the field names the last templated call drew -> the case's own (templated)
        # A capstone call's siblings run at the same time as the call (grader.judging.harness), and both rename what
        # they send and receive: the caches below are changed under this lock.
        self._lock = threading.RLock()
        # The longest token that can be renamed: a word of the draw or of a pool (an image, a templated name) with a
        # three-letter prefix or an "s" added.
        self.longest = max(map(len, [*self.space, *POOL_WORDS, *POOL_CITIES])) + 3

    def state(self):
        """What drawing changes in this draw (opaque): its random generator, the images made so far (near misses,
        templated names), the fields the last calls drew and the pool words retired. ``set_state`` puts it back, so
        that a case run again (``grader.judging.pytest_plugin``: the machine timed its first run out) draws exactly
        what its first run drew. The caches are left: what they hold is made again the same way."""
        with self._lock:
            pools = self.__dict__.get("_unused_pools")
            return (self.random.getstate(), dict(self.images), dict(self.originals), self.space, dict(self.sent),
                    copy.deepcopy(self.placed), dict(self.required_values), dict(self._template), self._underived_at,
                    None if pools is None else tuple(list(pool) for pool in pools))

    def set_state(self, saved):
        """Put back what ``state`` returned."""
        with self._lock:
            (random_state, images, originals, self.space, sent, placed, required, template, self._underived_at,
             pools) = saved
            self.random.setstate(random_state)
            self.images, self.originals, self.sent = dict(images), dict(originals), dict(sent)
            self.placed, self.required_values, self._template = copy.deepcopy(placed), dict(required), dict(template)
            if pools is None:
                self.__dict__.pop("_unused_pools", None)
            else:
                self.__dict__["_unused_pools"] = tuple(list(pool) for pool in pools)
            self._forget_renamed_back()

    def generator(self, purpose):
        """A ``random.Random`` of this draw's seed and parts and ``purpose`` (str), apart from ``random``: what it
        draws (e.g. which worker each canary run goes to) leaves every other draw of the seed as it was."""
        return random.Random(derive_seed(self.seed, *self.parts, purpose))

    def _draw_lengths_too(self, by_length, free):
        """Draw the images of the "word" class (``by_length``: ``{length: [word, ...]}``) from ``free`` (the same shape)
        with lengths of their own: each word's image is a free word one to ``SPREAD`` letters shorter or longer (three
        letters at least), all distinct. Never of the word's own length: an input with one word of the vocabulary kept
        its skeleton on one draw in seven, and a table keyed by skeletons earned those cases. A word of five letters or
        more (it has near misses, made from its image by dropping a letter) gets an image of five letters at least: a
        near miss of "chart" drawn from "newt" was "new", and a canary's "New York" came back as "Char York".

        Images of the same length kept a case's skeleton (every letter written as "a"): a table recorded with the draw
        off, keyed by skeletons, knew every case whose structure the draw left alone (issue 24's fourth attacker
        trial). Sizes stay about the same; positions of what follows a word move, which no case judges.
        """
        left = sorted(word for group in free.values() for word in group)
        for length, group in sorted(by_length.items()):
            shortest = max(3, min(length, 5))
            # The same candidates, in the same order, for every word of the group: listed once, not once a word.
            near = [image for image in left if 0 < abs(len(image) - length) <= SPREAD and len(image) >= shortest]
            for word in group:
                image = self.random.choice(near or left)
                left.remove(image)
                if near:
                    near.remove(image)
                self.images[word], self.originals[image] = image, word

    def unused(self, words):
        """The words of ``words`` (an iterable of str) that are no image of this draw (list, in order): what a drawn
        field or value may be, since it is sent as it is and an image would be renamed back into another word."""
        return [word for word in words if word not in self.originals]

    @functools.cached_property
    def _unused_pools(self):
        # (words, cities): ``unused`` of the pools a drawn field or value comes from, once per draw (the images of the
        # pools' words are all drawn in __init__; a near miss's image is made from an image, never a pool word).
        return self.unused(POOL_WORDS), self.unused(POOL_CITIES)

    # -- one word ------------------------------------------------------------------------------------------

    def _derived(self, lower):
        """The image of a near miss of a vocabulary word (lower case), made the same way from that word's image;
        None when ``lower`` is no near miss."""
        if lower in self._near and lower not in self.images:
            word, (how, arg) = self._near[lower]
            image = self.images[word]
            if how == "suffix":
                return image + arg
            # The same edit at the same place, or the nearest place where it gives a word that is free (a swap of
            # two equal letters changes nothing; a drop can make another word of the draw).
            for at in sorted(range(len(image) - (how == "swap")), key=lambda i: (abs(i - arg), i)):
                if how == "drop":
                    near = image[:at] + image[at + 1:]
                elif image[at] != image[at + 1]:
                    near = image[:at] + image[at + 1] + image[at] + image[at + 2:]
                else:
                    continue
                if near not in self.space and near not in self.originals and near not in KEPT:
                    return near
            return None
        for cut in (1, 2, 3):  # a short prefix glued on: \u005fweather, %5Fweather, getweather
            head, tail = lower[:cut], lower[cut:]
            if tail in self.images and head.isascii() and head not in self.images:
                return head + self.images[tail]
        if not lower.isascii():  # one look-alike letter of another script: wеather
            strange = [i for i, c in enumerate(lower) if not c.isascii()]
            plain = lower.translate({ord(k): v for k, v in PLAIN_OF.items()})
            if len(strange) == 1 and plain.isascii() and plain in self.images:
                image = self.images[plain]
                for at in [strange[0]] + [i for i in range(len(image)) if i != strange[0]]:
                    if image[at] in LOOK_ALIKES:
                        return image[:at] + LOOK_ALIKES[image[at]] + image[at + 1:]
        return None

    def _forward_word(self, token):
        """The image of one word (str of letters) as the submission would read it."""
        lower = token.lower()
        if len(lower) != len(token) or lower in KEPT:
            return token
        image = self.images.get(lower)
        if image is None:
            image = self._derived(lower)
            if image is None or image in self.originals or image in self.space or image in KEPT or \
                    image in _CITY_WORDS or image in _POOL_SET:
                return token  # not a near miss, or its image would stand for another word: keep it
            self.images[lower], self.originals[image] = image, lower
            self._forget_renamed_back()  # a new image: what was renamed back before may change
        return _with_case_of(token, image)

    def _backward_word(self, token):
        """The word (str of letters) whose image ``token`` is; a renamed word written as itself, as many x's (same length
        and case); else ``token`` itself.

        The submission was handed only images, so a renamed word it sends back as itself came from the public cases,
        not from its input: counted as the word, "missing required argument 'city'" written into every observation
        named the drawn field of each (issue 24's second attacker trial replayed the reference's observations in the
        cases' own words). No image is a word of the vocabulary, so nothing a learner reads in a call is changed.
        """
        lower = token.lower()
        original = self.originals.get(lower) if len(lower) == len(token) else None
        if original is None:
            return _with_case_of(token, "x" * len(token)) if lower in self.space else token
        return _with_case_of(token, original)

    def _renamed(self, token, rename):
        """One ``TOKEN`` with each of its words renamed by ``rename``; an escape stays an escape of the new
        letter (same hex case), and an escape of a non-letter (\\u005f) ends a word."""
        if "\\" not in token:
            return token if len(token) > self.longest else rename(token)  # no word of the draw is that long
        if len(token) == 2:
            return token  # \n, \t, \\ ...
        units = UNIT.findall(token)
        letters = [chr(int(u[2:], 16)) if len(u) == 6 else u for u in units]
        out, word = [], []

        def flush():
            if word:
                new = rename("".join(letters[i] for i in word))
                # An image may be longer or shorter: its letters take the word's places in order (an escape stays an
                # escape), the letters left over are written after the last one as it was written.
                places = word[:len(new)] + [word[-1]] * (len(new) - len(word))
                for i, letter in zip(places, new):
                    unit = units[i]
                    if len(unit) == 6:
                        hexa = f"{ord(letter):04x}"
                        letter = "\\u" + (hexa.upper() if unit[2:].isupper() else hexa)
                    out.append(letter)
                word.clear()

        for i, letter in enumerate(letters):
            if letter.isalpha() and not (len(units[i]) == 6 and ord(letter) > 0xFFFF):
                word.append(i)
            else:
                flush()
                out.append(units[i])
        flush()
        return "".join(out)

    # -- raw calls with no word in them --------------------------------------------------------------------

    def padded(self, raw, any_json=False):
        """``raw`` (a raw call, str) with 1 to 24 drawn JSON whitespace characters after it when it holds no word the
        draw renames (or ``any_json``: whatever words it holds) and is JSON (or nests too deep for ``json.loads``);
        else ``raw`` as it is.

        ``42``, ``[]``, ``null`` or 100,000 brackets have no word to rename, and a table keyed by them would know each
        case; JSON ignores the whitespace, so the call keeps its kind, and about 10^14 tails leave no table to fill
        by grading again and again. Text that is no JSON is left alone (whitespace after it would move an
        end-of-input error's position), and an empty or blank reply is a case of its own.
        """
        if not isinstance(raw, str) or not raw.strip() or (not any_json and self.forward(raw) != raw):
            return raw
        try:
            json.loads(raw)
        except RecursionError:
            pass
        except ValueError:
            return raw
        return raw + "".join(self.random.choice(" \t\n\r") for _ in range(1 + self.random.randrange(24)))

    # -- a call's structure ---------------------------------------------------------------------------------

    def varied_call(self, raw, tools):
        """``(raw, tools)`` with valid optional fields of drawn names and types (words of the pools) drawn around the
        call's fault: declared in ``tools`` and sent in the call's arguments, so its shape (its skeleton: every letter
        as a or A) is new on each draw and a table keyed by it finds nothing.

        For a case whose call is refused for a fault of its own, whatever it is: the fault stays as it was.
        - A call written as ``json.dumps`` writes it (the cases' ``make_call``) that names a tool of ``tools`` and sends
          an arguments object: that tool gets one to three more optional fields, at least one of them sent, each at a
          drawn place among the call's own fields (whose order is kept).
        - Any other text holding an arguments object (cut off, in a fence, after prose, in single quotes, inside a
          JSON string, two calls in a row, a tool name that is unknown, missing or no string): one to three fields
          are declared on the named tool (on every tool when it names none of ``tools``: a near miss repaired to
          a registered name then meets a valid call, as it would without them), and one or more of them are written
          right after each ``"arguments": {`` (or ``"arguments": "{``: arguments sent as a string) in the text's own
          quoting, so what surrounds the fault is untouched.
        - Text with no arguments object (``null``, ``true`` or a string as arguments, no call at all) keeps its
          words; JSON gets drawn whitespace after it (``padded``), and the registry drawn fields on every tool
          (``varied_registry``).
        ``tools`` itself is never changed: a changed registry is a new dict. ``self.sent`` holds afterwards the drawn
        fields the call sends (``{field: value}``, in the cases' words; {} when none): a case that expects the call
        dispatched expects them in its arguments.
        """
        self.sent, self.placed = {}, None
        if isinstance(raw, str) and len(raw) > HUGE:
            # Parsing and writing a 1 MB call again cost 34 ms, a twentieth of a grading: the fields go in as text,
            # after the first arguments brace of its head, where every case's call writes it.
            return self._varied_text(raw, tools, head=1_000)
        try:
            call = json.loads(raw)
        except (TypeError, ValueError, RecursionError):
            call = None
        name = call.get("name") if isinstance(call, dict) else None
        if not isinstance(name, str) or name not in tools or json.dumps(call) != raw or not isinstance(
                call.get("arguments"), dict):
            return self._varied_text(raw, tools)
        call["arguments"], tools = self.varied_arguments(name, call["arguments"], tools)
        return json.dumps(call), tools

    def varied_arguments(self, name, arguments, tools):
        """``(arguments, tools)`` with one to three valid optional fields of drawn names and types declared on the tool
        ``name`` (on every tool when ``name`` is none of ``tools``: not a string, unknown, a near miss) and, when
        ``arguments`` is a dict, at least one of them sent, each at a drawn place among its own fields (whose order is
        kept). JSON data in, JSON data out; ``varied_call`` does this for a raw call, the step exercises' cases for
        the call they hand ``validate_call``.
        """
        self.sent, self.placed = {}, None
        owners = [name] if isinstance(name, str) and name in tools else list(tools)
        taken = {field for owner in owners for part in ("required", "optional") for field in tools[owner].get(part, {})}
        taken |= set(arguments) if isinstance(arguments, dict) else set()
        added = self._drawn_fields(taken)
        required = ()
        if isinstance(arguments, dict):
            # The call's own fields keep their order (a runtime reporting only the first violation reports the one it
            # reported before: the twin it is judged against is not varied); the drawn ones go in at drawn places.
            # Fields an earlier call of this case made required on the tool are sent again (``required_values``).
            carried = {field: value for field, value in self.required_values.items()
                       if len(owners) == 1 and field in tools[owners[0]].get("required", {}) and field not in arguments}
            some = self._some_of(added)
            if len(owners) == 1 and tools[owners[0]].get("required"):
                # At least one sent field is required: a table that strips the drawn fields must strip required ones
                # too, and then a valid call and one that misses a required field of its own look the same (issue
                # 24's third attacker trial stripped the optional ones: 93 against a stub's 64).
                required = [word for word in some if self.random.randrange(2)] or [self.random.choice(some)]
            order = list(arguments)
            for word in [*some, *carried]:
                order.insert(self.random.randrange(len(order) + 1), word)
            values = {**carried, **{word: self._valid(added[word]) for word in some}}
            arguments = {key: arguments[key] if key in arguments else values[key] for key in order}
            self.sent = {key: value for key, value in arguments.items() if key in values}
            self.placed = [index for index, key in enumerate(arguments) if key in values]
            self.required_values.update({word: values[word] for word in required})
        return arguments, self._declared(tools, owners, added, required)

    def varied_registry(self, tools, raws=()):
        """A new registry: ``tools`` (a registry dict) with one to three fields of drawn names and types declared on
        every tool: for a case whose calls ``raws`` (list of str) must stay as written (``varied_call``'s fields would
        be undeclared in a stale copy of the registry, and refusing them would pass the case).

        On a tool that ``raws`` name and can all carry a field (``_carriers``), at least one of them is required, with
        a drawn value in ``required_values`` that ``with_required`` writes into those calls; on every other tool they
        are optional. Where only calls the draw varies got required fields, a registry with none of them told the
        calls as written apart (issue 24: a tell of the registry's shape scored 64 against the same file's 61).
        """
        taken = {field for spec in tools.values() for part in ("required", "optional") for field in spec.get(part, {})}
        added = self._drawn_fields(taken)
        carriers = self._carriers(raws, tools)
        required = ()
        if carriers:
            words = list(added)
            required = [word for word in words if self.random.randrange(2)] or [self.random.choice(words)]
            self.required_values.update({word: self._valid(added[word]) for word in required})
        others = [name for name in tools if name not in carriers]
        return self._declared(self._declared(tools, others, added), carriers, added, required)

    @staticmethod
    def _carriers(raws, tools):
        """The tools of ``tools`` that ``raws`` (list of raw calls) name, every call naming which is a ``json.dumps``
        call whose arguments are an object (``with_required`` writes the fields into it) or no object and not null
        (it is refused for that first, whatever the registry requires), and that require a field of their own (a tool
        that requires nothing is a kind of its own: a runtime that checks fields only where some are required is
        caught there); list of str, in ``tools``' order."""
        fits, blocked = set(), set()
        if any(isinstance(raw, str) and len(raw) > HUGE for raw in raws):
            return []  # a 1 MB call is not parsed again to learn its tool: no tool gets required fields
        for raw in raws:
            try:
                call = json.loads(raw) if isinstance(raw, str) else None
            except (ValueError, RecursionError):
                continue
            name = call.get("name") if isinstance(call, dict) else None
            if not isinstance(name, str) or name not in tools:
                continue
            arguments = call.get("arguments")
            if (isinstance(arguments, dict) and json.dumps(call) == raw) or (
                    "arguments" in call and arguments is not None and not isinstance(arguments, dict)):
                fits.add(name)
            else:
                blocked.add(name)  # missing or null arguments, or an object written otherwise: nothing goes in
        return [name for name in tools if name in fits - blocked and tools[name].get("required")]

    def _drawn_fields(self, taken, text=""):
        """One to three fields to declare, ``{field: type}``: words of ``POOL_WORDS`` that are no field of ``taken`` (a
        set of str), appear nowhere in ``text`` (str) and are no image of this draw (``unused``), each of a type of
        ``SAMPLE_TYPES``, drawn."""
        free = [word for word in self._unused_pools[0] if word not in taken and word not in text]
        return {word: self.random.choice(SAMPLE_TYPES) for word in self.random.sample(free, 1 + self.random.randrange(3))}

    def _some_of(self, added):
        """The drawn fields a call sends: each of ``added`` (a dict's keys) or not, and at least one, so the call
        itself, not only its registry, is new on every draw (list of str)."""
        return [word for word in added if self.random.randrange(2)] or [self.random.choice(list(added))]

    def _declared(self, tools, names, added, required=()):
        """A new registry: ``tools`` with the fields ``added`` (``{field: type}``) declared on each tool of ``names``:
        those of ``required`` (a collection of str) after its own required fields, the others among its own optional
        fields in a drawn order."""
        tools = dict(tools)
        for name in names:
            spec = tools[name]
            optional = [*spec.get("optional", {}).items(), *((k, v) for k, v in added.items() if k not in required)]
            self.random.shuffle(optional)
            tools[name] = {**spec, "required": {**spec.get("required", {}), **{k: added[k] for k in required}},
                           "optional": dict(optional)}
        return tools

    def with_required(self, raw, tools):
        """``(raw, fields)``: ``raw`` (a raw call in the cases' words, str) with the drawn required fields its tool
        lacks (``required_values``) written into its arguments at the end, and those fields (``{field: value}``, {}
        when none). ``raw`` as it is unless it is a ``json.dumps`` call of a tool of ``tools`` with an arguments
        object.

        A drawn field made required on a tool must be in every call of that tool the case hands over afterwards (the
        model's corrected retry, a twin, the next call): it is the draw's, and leaving it out would add a fault the
        case did not write. Drawn JSON whitespace after the call (``padded``) is kept after it: a padded twin of a
        templated call kept the field out, and its observation named a missing field beside its own fault (found by
        the class report's known mistakes, where a first-violation-only observation passed on one draw in sixteen).
        """
        if not self.required_values or not isinstance(raw, str) or len(raw) > HUGE or '"arguments": {' not in raw:
            return raw, {}
        if not any(field in spec.get("required", {}) for spec in tools.values() for field in self.required_values):
            return raw, {}  # no tool requires a drawn field: nothing to parse
        body = raw.rstrip(" \t\r\n")
        try:
            call = json.loads(body)
        except (ValueError, RecursionError):
            return raw, {}
        name = call.get("name") if isinstance(call, dict) else None
        arguments = call.get("arguments") if isinstance(call, dict) else None
        if not isinstance(name, str) or name not in tools or not isinstance(arguments, dict) or json.dumps(call) != body:
            return raw, {}
        fields = {field: value for field, value in self.required_values.items()
                  if field in tools[name].get("required", {}) and field not in arguments}
        if not fields:
            return raw, {}
        call["arguments"] = {**arguments, **fields}
        return json.dumps(call) + raw[len(body):], fields

    def _varied_text(self, raw, tools, head=None):
        """``varied_call`` for a raw call that is not a ``make_call`` call of a registered tool, or is over ``HUGE``
        characters (then only its first ``head`` characters are read)."""
        if not isinstance(raw, str) or not tools:
            return self.padded(raw), tools
        window = raw if head is None else raw[:head]
        openings = list(ARGUMENTS_OPENING.finditer(window))
        if not openings:
            raw = self._scalar_arguments_drawn(raw)
            return self.padded(raw, any_json=True), self.varied_registry(tools, [raw])
        named = [m.group(2) for m in NAME_FIELD.finditer(window)]
        owners = [name for name in tools if name in named] or list(tools)
        taken = {field for name in owners for part in ("required", "optional") for field in tools[name].get(part, {})}
        added = self._drawn_fields(taken, window)
        some = self._some_of(added)
        values = {word: self._valid(added[word]) for word in some}
        written = self._written_after_openings(raw, values, openings)
        self.sent, self.placed = (values, None) if written != raw else ({}, None)
        required = ()
        if written != raw and len(owners) == 1 and owners[0] in named and tools[owners[0]].get("required"):
            # As in varied_arguments: one tool, named and registered, gets at least one of them as required.
            required = [word for word in some if self.random.randrange(2)] or [self.random.choice(some)]
            self.required_values.update({word: values[word] for word in required})
        return written, self._declared(tools, owners, added, required)

    def _scalar_arguments_drawn(self, raw):
        """``raw`` with arguments that are a number, or a string of digits or of one word, replaced by a drawn value
        of the same kind (a number of as many digits, a word of the pools in the same letter case), when ``raw`` is a
        ``json.dumps`` call; else ``raw`` as it is.

        Arguments that are no object carry no field to draw; kept as written they were a key a table knew (the
        real call ``"arguments": "20"``: issue 24's third attacker trial). A string of digits stays one (some runtimes
        parse it: ``json.loads("20")`` is a number either way), a word stays a word (no JSON either way).
        """
        try:
            call = json.loads(raw)
        except (ValueError, RecursionError):
            return raw
        arguments = call.get("arguments") if isinstance(call, dict) else None
        if isinstance(arguments, bool) or json.dumps(call) != raw:
            return raw
        if isinstance(arguments, int):
            digits = len(str(abs(arguments)))
            drawn = self.random.randrange(10 ** (digits - 1) if digits > 1 else 1, 10 ** digits)
            call["arguments"] = -drawn if arguments < 0 else drawn
        elif isinstance(arguments, str) and arguments.isascii() and arguments.isdigit():
            call["arguments"] = str(self.random.randrange(10 ** (len(arguments) - 1) if len(arguments) > 1 else 1,
                                                          10 ** len(arguments)))
        elif isinstance(arguments, str) and arguments.isascii() and arguments.isalpha():
            word = self.random.choice(self._unused_pools[1])
            call["arguments"] = word.upper() if arguments.isupper() else word if arguments.islower() else word.title()
        else:
            return raw
        return json.dumps(call)

    @staticmethod
    def _written_after_openings(raw, values, openings):
        """``raw`` with the fields ``values`` (``{field: value}``) written right after each arguments brace of
        ``openings`` (``ARGUMENTS_OPENING`` matches), in the text's own quoting; an arguments string inside a string is
        left as it is."""
        pieces, start = [], 0
        for opening in openings:
            if opening.group(2) and opening.group(1) != '"':
                continue  # a string inside a string: left as it is
            quote = "\\" if opening.group(2) else opening.group(1)  # in a string: escaped as the string holds it
            if quote == "'":  # a Python literal: repr writes each value as Python would
                text = ", ".join(f"{word!r}: {value!r}" for word, value in values.items())
            else:
                text = ", ".join(f"{json.dumps(word)}: {json.dumps(value)}" for word, value in values.items())
                if quote != '"':  # inside a JSON string: escaped as the string's other characters are
                    text = json.dumps(text)[1:-1]
            end = opening.end()
            pieces += [raw[start:end], text if raw[end:end + 1] == "}" else text + ", "]
            start = end
        return "".join(pieces) + raw[start:]

    def mirrored(self, raw, sent, placed):
        """``raw`` (a twin's raw call, str) with the fields ``sent`` (``{field: value}``) a varied call of its case sent,
        where that call had them: at the indices ``placed`` (list of int) among its arguments when both are
        ``json.dumps`` calls, else right after its arguments brace (``placed`` None: where ``varied_call`` writes into
        text). ``raw`` as it is when it holds one of the fields already or has no arguments object.

        A twin judges an observation by difference: with the drawn fields in one call only, or elsewhere in it, an
        observation that quotes the call and cuts the quote short cut off a field in one call that it kept in the other,
        and a correct observation lost its case on a few draws in 400 (the suite's "quotes the call" wording).
        """
        if not sent or not isinstance(raw, str):
            return raw
        try:
            call = json.loads(raw)
        except (ValueError, RecursionError):
            call = None
        if placed is not None and isinstance(call, dict) and isinstance(call.get("arguments"), dict) \
                and json.dumps(call) == raw:
            if any(field in call["arguments"] for field in sent):
                return raw
            order = list(call["arguments"])
            for index, field in sorted(zip(placed, sent)):
                order.insert(min(index, len(order)), field)
            call["arguments"] = {key: call["arguments"][key] if key in call["arguments"] else sent[key] for key in order}
            return json.dumps(call)
        if any(json.dumps(field) in raw or repr(field) in raw for field in sent):
            return raw
        return self._written_after_openings(raw, sent, list(ARGUMENTS_OPENING.finditer(raw)))

    # -- a case's own structure drawn from its kind -------------------------------------------------------------

    def templated(self, raw, tools):
        """``(raw, tools)``: a call of a registered tool (``json.dumps`` of ``{"name": ..., "arguments": {...}}``) and
        its registry made again from the call's *kind*, the faults it has, with everything else drawn; ``(raw, tools)``
        as they are for any other call. For a hidden case that only expects the call refused.

        What stays: which of the tool's fields are required and which optional, which are missing, undeclared, null
        or of a wrong type, and for a wrong type the declared type and the value sent (``True`` for an integer,
        ``"7"`` for an integer...). What is drawn: the tool's name and every field's name (pool words of any length),
        the declared type and the value of every field that is not at fault, one or two more required fields (sent)
        and optional ones (sent or not), where the call's fields stand, and other tools beside it. The tool's own
        required fields come first among the required ones, in their order (a runtime that checks only the first
        required field is caught as before).

        The draw used to add fields around a case that never changed, and a table that took them away again, telling
        the case's own fields by the public registries' shapes, replayed the reference on every seed (issue 24's
        fourth attacker trial: 116 hidden capstone points against the same file's 61 with an empty table).
        """
        try:
            call = json.loads(raw) if isinstance(raw, str) and len(raw) <= HUGE else None
        except (ValueError, RecursionError):
            call = None
        name = call.get("name") if isinstance(call, dict) else None
        if not isinstance(name, str) or name not in tools or not set(call) <= {"name", "arguments"} or \
                json.dumps(call) != raw or (isinstance(call.get("arguments"), str) and "{" in call["arguments"]) or \
                not _plain_names(tools[name], call.get("arguments")):
            return raw, tools
        # Arguments that are missing, null or no object stay so (a number or a word drawn): no field is sent.
        kept = {"arguments": json.loads(self._scalar_arguments_drawn(raw))["arguments"]} if "arguments" in call else {}
        arguments = call.get("arguments") if isinstance(call.get("arguments"), dict) else {}
        spec = tools[name]
        required, optional = dict(spec.get("required", {})), dict(spec.get("optional", {}))
        declared = {**required, **optional}
        taken = _words(raw + " " + " ".join(f"{tool} {' '.join(part)}" for tool, each in tools.items()
                                           for part in (each.get("required", {}), each.get("optional", {}))))
        names = iter(self._fresh_names(taken, len(declared) + len(arguments) + 12))
        image = {field: next(names) for field in [*declared, *(f for f in arguments if f not in declared)]}
        self._retire(image.values())
        kinds, values = {}, {}
        for field, kind in declared.items():
            wrong = field in arguments and not _fits(arguments[field], kind)
            # A wrong value keeps its declared type (the pair is the kind); null fits no type, whatever is declared.
            kinds[field] = kind if wrong and arguments[field] is not None else self.random.choice(SAMPLE_TYPES)
            if field in arguments:
                values[field] = arguments[field] if wrong else self._valid(kinds[field])
        for field in arguments:
            if field not in declared:
                values[field] = self._valid(self.random.choice(SAMPLE_TYPES))  # undeclared: any value will do
        # A tool that requires nothing stays so (a kind of its own: a runtime that checks fields only where some
        # are required is caught there); a call with no arguments object sends none of them.
        more_required = {next(names): self.random.choice(SAMPLE_TYPES)
                         for _ in range((1 + self.random.randrange(2)) if required else 0)}
        more_optional = {next(names): self.random.choice(SAMPLE_TYPES) for _ in range(self.random.randrange(3))}
        sent = [image[field] for field in values] + list(more_required) + [
            field for field in more_optional if self.random.randrange(2)] if isinstance(call.get("arguments"), dict) else []
        self.random.shuffle(sent)
        value_of = {image[field]: value for field, value in values.items()}
        value_of.update({field: self._valid(kind) for field, kind in {**more_required, **more_optional}.items()})
        own_optional = [(image[field], kinds[field]) for field in optional] + list(more_optional.items())
        self.random.shuffle(own_optional)
        tool = {"required": {**{image[field]: kinds[field] for field in required}, **more_required},
                "optional": dict(own_optional)}
        tool_name = self._tool_name(next(names))
        registry = self._template_registry(tool_name, tool, names, image)
        written = {"arguments": {field: value_of[field] for field in sent}} if isinstance(
            call.get("arguments"), dict) else kept
        return json.dumps({"name": tool_name, **written}), registry

    def templated_valid(self, raw, tools):
        """``(raw, tools, fields)``: a valid call of a registered tool (``json.dumps`` of ``{"name": ..., "arguments":
        {...}}``) and its registry made again from the call's kind, for a hidden case that expects it dispatched at
        once; None for any other call.

        What stays: every field the call sends, with its value as written and its declared type (an integer where a
        number is declared, "", a non-ASCII value, a list: the case's point), which of the tool's fields are required;
        what is drawn: the tool's name and every field's name, one or two more required fields (sent, drawn values;
        none for a tool that requires nothing), more optional ones (declared, never sent: a call of a tool that needs
        no arguments stays ``{}``), where the fields stand, and other tools. The tool's and the fields' drawn names
        are read back as the case's words until ``forget_template`` (the dispatch is judged in the case's words), and
        ``fields`` (``{field: value}``) are the added required ones, which the dispatch must carry too.

        Kept as written, a valid call's structure and its registry's named the case to a table that took the drawn
        optional fields away, and told it from its sibling (issue 24's fifth attacker trial: 5 hidden capstone points
        left, all in such cases).
        """
        try:
            call = json.loads(raw) if isinstance(raw, str) and len(raw) <= HUGE else None
        except (ValueError, RecursionError):
            call = None
        if not isinstance(call, dict) or set(call) != {"name", "arguments"} or json.dumps(call) != raw or \
                not isinstance(call["name"], str) or call["name"] not in tools or \
                not isinstance(call["arguments"], dict) or not _plain_names(tools[call["name"]], call["arguments"]):
            return None
        name, arguments, spec = call["name"], call["arguments"], tools[call["name"]]
        required, optional = dict(spec.get("required", {})), dict(spec.get("optional", {}))
        if not set(arguments) <= {*required, *optional} or not set(required) <= set(arguments) or \
                not all(_fits(value, {**required, **optional}[field]) for field, value in arguments.items()):
            return None  # not valid: another kind of case
        taken = _words(raw + " " + " ".join(f"{tool} {' '.join(part)}" for tool, each in tools.items()
                                           for part in (each.get("required", {}), each.get("optional", {}))))
        names = iter(self._fresh_names(taken, len(required) + len(optional) + 12))
        image = {field: next(names) for field in [*required, *optional]}
        image[name] = next(names)  # the tool's name: one word, read back as the case's tool
        self._retire(image.values())
        more_required = {next(names): self.random.choice(SAMPLE_TYPES)
                         for _ in range((1 + self.random.randrange(2)) if required else 0)}
        more_optional = {next(names): self.random.choice(SAMPLE_TYPES) for _ in range(self.random.randrange(3))}
        fields = {field: self._valid(kind) for field, kind in more_required.items()}
        sent = [*(image[field] for field in arguments), *fields]
        self.random.shuffle(sent)
        values = {**{image[field]: value for field, value in arguments.items()}, **fields}
        own_optional = [*((image[field], kind) for field, kind in optional.items()), *more_optional.items()]
        self.random.shuffle(own_optional)
        tool = {"required": {**{image[field]: kind for field, kind in required.items()}, **more_required},
                "optional": dict(own_optional)}
        registry = self._template_registry(image[name], tool, names, image)
        return json.dumps({"name": image[name], "arguments": {field: values[field] for field in sent}}), registry, fields

    def templated_together(self, raws, tools, wrong_drawn=False):
        """``(raws, tools)``: calls of one registered tool (``json.dumps`` calls with an arguments object: a judged call
        and its twin) and their registry made again from the calls' kind together; ``(raws, tools)`` as they are when
        any call is of another form. For a case that judges one call's observation by difference with the other's.

        A field that is at fault in any of the calls (missing, undeclared, of a wrong type) keeps its declared type and
        its written values in every call; every other field of the tool gets a drawn type and one drawn value sent in
        every call that sends it, so the calls stay as parallel as they were written (a quote of each cut at the same
        length keeps the same fields). The tool's and fields' names are drawn (``templated``), and more fields, their
        order (the same in every call) and other tools; the drawn names are read back as the case's own words until
        the case ends (``forget_template``). With ``wrong_drawn``, a wrong value is drawn from its kind as well
        (``_wrong_like``: another number for a number, other digits...) and an undeclared field's value drawn, the same
        in every call; for a case that names no value (validate_call's: its wrong values, kept, were the one thing no
        draw made, and a table keyed by them knew the cases, issue 24's seventh attacker trial). A case that expects
        the value named, or lined up with its twin's, keeps it.
        """
        calls = []
        for raw in raws:
            try:
                call = json.loads(raw) if isinstance(raw, str) and len(raw) <= HUGE else None
            except (ValueError, RecursionError):
                call = None
            if not isinstance(call, dict) or set(call) != {"name", "arguments"} or json.dumps(call) != raw or \
                    call["name"] not in tools or not isinstance(call["arguments"], dict) or \
                    not _plain_names(tools[call["name"]], call["arguments"]):
                return raws, tools
            calls.append(call)
        name = calls[0]["name"]
        if any(call["name"] != name for call in calls):
            return raws, tools
        spec = tools[name]
        required, optional = dict(spec.get("required", {})), dict(spec.get("optional", {}))
        declared = {**required, **optional}
        at_fault = set()
        for call in calls:
            arguments = call["arguments"]
            at_fault |= {f for f in arguments if f not in declared or not _fits(arguments[f], declared[f])}
            at_fault |= {f for f in required if f not in arguments}
        undeclared = list(dict.fromkeys(f for call in calls for f in call["arguments"] if f not in declared))
        taken = _words(" ".join(raws) + " " + " ".join(f"{tool} {' '.join(part)}" for tool, each in tools.items()
                                                          for part in (each.get("required", {}), each.get("optional", {}))))
        names = iter(self._fresh_names(taken, len(declared) + len(undeclared) + 12))
        image = {field: next(names) for field in [*declared, *undeclared]}
        self._retire(image.values())
        kinds = {f: kind if f in at_fault else self.random.choice(SAMPLE_TYPES) for f, kind in declared.items()}
        drawn = {f: self._valid(kinds[f]) for f in declared if f not in at_fault}
        more_required = {next(names): self.random.choice(SAMPLE_TYPES) for _ in range(1 + self.random.randrange(2))
                         if required}
        more_optional = {next(names): self.random.choice(SAMPLE_TYPES) for _ in range(self.random.randrange(3))}
        more = {f: self._valid(kind) for f, kind in {**more_required, **more_optional}.items()}
        also_sent = [*more_required, *(f for f in more_optional if self.random.randrange(2))]
        order = [*image.values(), *more]
        self.random.shuffle(order)
        tool_name = self._tool_name(next(names))
        written = []
        wrong = {}  # (field, written value as JSON) -> drawn of its kind, the same in every call that sends it
        for call in calls if wrong_drawn else ():
            for f, value in call["arguments"].items():
                if f in declared and not _fits(value, declared[f]):
                    wrong.setdefault((f, json.dumps(value)), self._wrong_like(value))
                elif f not in declared:  # undeclared: any value will do, drawn as templated() draws it
                    wrong.setdefault((f, json.dumps(value)), self._valid(self.random.choice(SAMPLE_TYPES)))
        for call in calls:
            values = {image[f]: (wrong.get((f, json.dumps(value)), value) if f in at_fault else drawn[f])
                      for f, value in call["arguments"].items()}
            values.update({f: more[f] for f in also_sent})
            written.append(json.dumps({"name": tool_name, "arguments": {f: values[f] for f in order if f in values}}))
        own_optional = [(image[f], kinds[f]) for f in optional] + list(more_optional.items())
        self.random.shuffle(own_optional)
        tool = {"required": {**{image[f]: kinds[f] for f in required}, **more_required}, "optional": dict(own_optional)}
        return written, self._template_registry(tool_name, tool, names, image)

    def templated_around(self, calls, tools, about=None):
        """``(calls, tools)``: calls whose fault is their form (a name that is no registered one, or no string; arguments
        that are no object) and their registry made again from its kind, for validate_call's hidden cases that
        ``templated_together`` cannot make (it wants registered names and object arguments). ``calls`` is a list of
        ``(name, arguments)`` (any JSON; a name may be ``object()``, left out), ``tools`` a registry, ``about`` the
        registered tool the calls name or nearly name (a str of ``tools``), or None when they are about none.

        What stays: each call's name and the form of its arguments (an object, JSON text of objects, plain words, a
        number, a boolean, a list), the tool ``about`` under its own name (a near miss stays a near miss of it: both
        are renamed as the draw renames words) with its required and optional fields and their types. What is drawn:
        every name of ``about``'s fields (read back as the case's words until ``forget_template``, also inside a string
        or a list the arguments are), one or two more required fields and one or two optional ones, the other tools
        in place of the registry's (zero to four of drawn names and shapes; two to five when the calls are about none), and what the arguments hold: the added required fields (or, about no tool, one or two fields of
        drawn names) with valid values in every object they are or hold, also in JSON text, and a drawn number, list
        or words where they are one. ``(calls, tools)`` as they are when ``about``'s fields are not plain identifiers.

        The registry as written kept these cases' structure whatever was drawn around them, and a table keyed by
        skeletons without word lengths knew 28 of validate_call's hidden points from it (issue 24).
        """
        spec = tools.get(about, {"required": {}, "optional": {}}) if about is not None else {"required": {},
                                                                                            "optional": {}}
        if not _plain_names(spec, None):
            return calls, tools
        required, optional = dict(spec.get("required", {})), dict(spec.get("optional", {}))
        written = json.dumps([[name if isinstance(name, (str, int, float, bool, list, dict, type(None))) else None,
                               arguments] for name, arguments in calls], ensure_ascii=False)
        taken = _words(written + " " + " ".join(f"{tool} {' '.join(part)}" for tool, each in tools.items()
                                                for part in (each.get("required", {}), each.get("optional", {}))))
        names = iter(self._fresh_names(taken, len(required) + len(optional) + 32))
        image = {field: next(names) for field in [*required, *optional]}
        more_required = {next(names): self.random.choice(SAMPLE_TYPES)
                         for _ in range((1 + self.random.randrange(2)) if required else 0)} if about is not None else {}
        # One or two optional fields more, so the tool has four drawn fields at least (three, taken away by a table,
        # left the smallest shape the same on one draw in eighteen).
        more_optional = {next(names): self.random.choice(SAMPLE_TYPES) for _ in range(1 + self.random.randrange(2))}
        # The drawn names are not retired from the pools for good (``templated`` does): a case of the near misses makes
        # one template per name, some seventy in a grading, more than the pools hold. A drawn value never holds one of
        # them instead: it would be read back as the field it stands for.
        # Sent where the arguments hold objects: the tool's added required fields (only the form is at fault), or for
        # calls about no tool one or two fields of drawn names.
        sent = more_required if about is not None else {next(names): self.random.choice(SAMPLE_TYPES)
                                                        for _ in range(1 + self.random.randrange(2))}
        more = {field: self._valid_without(kind, set(image.values())) for field, kind in sent.items()}
        own_optional = [*((image[f], kind) for f, kind in optional.items()), *more_optional.items()]
        self.random.shuffle(own_optional)
        tool = {"required": {**{image[f]: kind for f, kind in required.items()}, **more_required},
                "optional": dict(own_optional)}
        pattern = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, sorted(image, key=len, reverse=True)))
                             + r")(?![A-Za-z0-9_])") if image else None
        below = self.random.randrange

        def renamed(value):
            if isinstance(value, dict):
                return {image.get(key, key) if isinstance(key, str) else key: renamed(item) for key, item in value.items()}
            if isinstance(value, list):
                return [renamed(item) for item in value]
            if isinstance(value, str) and pattern is not None:
                return pattern.sub(lambda match: image[match.group(1)], value)
            return value

        def with_more(arguments):
            listed = list(arguments.items())
            for field, item in more.items():
                listed.insert(below(len(listed) + 1), (field, item))
            return dict(listed)

        def drawn_form(arguments):
            # The form stays (an object, a number, a word, a list, JSON text); what it holds is drawn, so that the
            # digits and words a table would key on are new on every draw.
            if isinstance(arguments, dict):
                return with_more(renamed(arguments))
            if isinstance(arguments, bool) or arguments is None:
                return arguments
            if isinstance(arguments, int):
                return 1 + below(99_999)
            if isinstance(arguments, float):
                return below(1, 1000) + self.random.choice((0.25, 0.5, 0.75, 0.125))
            if isinstance(arguments, list):
                return [drawn_form(item) for item in arguments] if arguments else [self._valid_without(
                    self.random.choice((str, int, float)), set(image.values())) for _ in range(below(3))]
            if isinstance(arguments, str):
                text = renamed(arguments)
                if _PLAIN_TEXT.fullmatch(text):  # words stay words (a drawn string may be digits)
                    words = [word for word in self._unused_pools[0] if word not in image.values()]
                    return " ".join(self.random.choice(words) for _ in range(1 + below(2))).title()
                if "{" in text and more:  # JSON text of objects: the fields sent go into each object too
                    fields = ", ".join(f"{json.dumps(field)}: {json.dumps(item)}" for field, item in more.items())
                    return re.sub(r"\{(\s*)(\}?)", lambda m: "{" + m.group(1) + fields + ("" if m.group(2) else ", ")
                                  + m.group(2), text)
                return text
            return arguments

        made = [(name, drawn_form(arguments)) for name, arguments in calls]

        def shaped():
            # A tool of a drawn shape: one or two required fields, zero to two optional ones.
            return self._tool_name(next(names)), {
                "required": {next(names): self.random.choice(SAMPLE_TYPES) for _ in range(1 + below(2))},
                "optional": {next(names): self.random.choice(SAMPLE_TYPES) for _ in range(below(3))}}

        # The registry's shape is what these cases have left to vary (their verdict is the form's): beside the tools
        # ``_template_registry`` adds, more tools of drawn shapes, two tools at least about no tool. With the added
        # tools of one required field alone, a table recorded on two gradings knew one case in six to eight.
        if about is None:
            listed = list(self._template_registry(*shaped(), names, image).items())
            extra = 1 + below(2)
        else:
            listed = list(self._template_registry(about, tool, names, image).items())
            extra = below(3)
        for _ in range(extra):
            listed.insert(below(len(listed) + 1), shaped())
        return made, dict(listed)

    def _template_registry(self, tool_name, tool, names, image):
        """The registry of a templated case (dict): ``tool`` under ``tool_name`` among zero to two other tools of drawn
        names (from ``names``, an iterator of fresh words), in a drawn order; and ``image`` (``{case's field: drawn
        name}``) registered so that what comes back naming a drawn name names the case's field (an observation that
        names the missing "city" is judged as naming it) until ``forget_template``."""
        others = [(self._tool_name(next(names)), {"required": {next(names): self.random.choice(SAMPLE_TYPES)},
                                                 "optional": {}}) for _ in range(self.random.randrange(3))]
        listed = [(tool_name, tool), *others]
        self.random.shuffle(listed)
        self.forget_template()
        self._template = {drawn_name: field for field, drawn_name in image.items()}
        self.originals.update(self._template)
        self._forget_renamed_back()  # a drawn name renamed back before as itself is the case's word now
        self.sent, self.placed = {}, None
        return dict(listed)

    def forget_template(self):
        """Forget the field names the last ``templated`` call drew: they are renamed back no more. Only what was renamed
        back is forgotten with them (what was renamed forward stays: a drawn name is never an image), and nothing when no
        template was drawn (every case ends here: a 1 MB call was renamed again after each)."""
        if not self._template:
            return
        for drawn in self._template:
            self.originals.pop(drawn, None)
        self._template = {}
        self._forget_renamed_back()

    def _forget_renamed_back(self):
        """Empty the caches of what was renamed back (the words it reads back have changed)."""
        self._cache.pop("_backward_word", None)
        self._sent = {}
        for key in [key for key in self._big if key[0] == "_backward_word"]:
            del self._big[key]

    def _retire(self, words):
        """Take ``words`` (an iterable of str) out of the words this draw sends as fields or values for good: a templated
        field's drawn name is read back as the case's word, and a drawn value of the same word was read back too (an
        observation quoting the call then named the missing field in the twin's as well: a correct one lost)."""
        gone = set(words)
        self._unused_pools[0][:] = [word for word in self._unused_pools[0] if word not in gone]

    def _fresh_names(self, taken, count):
        """``count`` distinct pool words (list of str) that are no image of this draw, none of ``taken``, and that
        the renaming leaves as they are: "melon" reads as a prefix glued on "lon" and went to the worker renamed, so
        it came back as "melon", not as the case's word it stood for (seed r7 of fair_quote_cut_short.py)."""
        free = [word for word in self._underived() if word not in taken]
        if len(free) < count:
            # Retired words again (``_retire`` keeps a template's names out of the values drawn in its case; a name is
            # safe once its template is forgotten): a grading of many templates ran the pools out late in a notebook's
            # observe cases (2 seeds in 300, an internal error).
            taken = {*taken, *free}
            free += [word for word in POOL_WORDS if word not in taken and word not in self.originals and
                     word not in self._template and self._derived(word) is None]
        return self.random.sample(free, min(count, len(free)))

    def _underived(self):
        """The unused pool words (list of str, in order) that ``_derived`` leaves alone. Worked out for every fresh
        name, it took a fifth of a grading's renaming (about 570 calls over some 300 words each), so it is kept while
        what the answer depends on stays: the images (they only grow) and the pool (``_retire`` shrinks it). A pool
        word that is a near miss of the vocabulary (none with today's pools) also depends on the template's drawn
        names, and is asked again each time."""
        pool, near = self._unused_pools[0], self._near
        key = (len(self.images), len(pool))
        if self._underived_at is None or self._underived_at[0] != key:
            self._underived_at = (key, [word for word in pool if word in near or self._derived(word) is None])
        return [word for word in self._underived_at[1] if word not in near or self._derived(word) is None]

    def fresh_name(self, taken):
        """One pool word (str) to name a field a case adds: none of ``taken`` (a collection of str), no image of this
        draw, left as it is by the renaming (``_fresh_names``)."""
        return self._fresh_names(set(taken), 1)[0]

    def fresh_name_as_long_as(self, word, taken=()):
        """A pool word (str) that the renaming leaves as it is (``fresh_name``), none of ``taken``, with as many
        letters as ``word`` (str, the cases' words) has as the submission reads it (its image's length), or the
        nearest length there is, longer first. For a twin call whose field stands where its judged call has
        another: twins were lined up in the cases' words (an undeclared "nap" against "snooze", other values making up
        the difference), and images of lengths of their own undid it, so an observation quoting both cut short kept a
        field in one and not in the other (seed indep-2: a correct capstone lost the three-violations case)."""
        length = len(self.forward(word))
        free = [name for name in self._underived() if name not in set(taken)]
        best = min(len(name) for name in free if len(name) >= length) if any(len(name) >= length for name in free) \
            else max(len(name) for name in free)
        return self.random.choice([name for name in free if len(name) == best])

    def _tool_name(self, word):
        """A tool name made of ``word`` (str): as it is, or after a verb of the kit's kept words (``get_``, ``set_``...),
        as tools are named."""
        verb = self.random.choice(("", "get_", "set_", "send_", "read_", "create_", "update_", "delete_", "list_"))
        return verb + word

    # -- the step exercises' data ------------------------------------------------------------------------------

    def varied_schema(self, value, schema, least=1):
        """``(value, schema)`` for ``validate_arguments`` (notebook 6) with ``least`` to ``least + 2`` valid properties of
        drawn names and simple types declared in an object schema's ``properties`` (required too, where ``required`` is a list,
        for at least one of them) and sent at drawn places in the value; or, for a map (an object schema whose only
        rule for its keys is ``"additionalProperties": {"type": "string"}``), one to three drawn keys with string
        values. Anything else comes back as it is. JSON data in, new JSON data out (the given objects are unchanged).

        A schema and a value of no vocabulary word (``{"p": 0}`` against ``"enum": [false, null]``) were the same on
        every draw, and a table of the reference's answers passed those cases (issue 24: 9 of notebook 6's hidden
        points on a new draw against the stub's 0).
        """
        if not isinstance(value, dict) or not isinstance(schema, dict) or schema.get("type", "object") != "object":
            return value, schema
        properties, extra = schema.get("properties"), schema.get("additionalProperties")
        if isinstance(properties, dict):
            taken = set(properties) | set(value)
            kinds = {"string": str, "integer": int, "number": float, "boolean": bool}
        elif properties is None and extra == {"type": "string"}:
            taken, kinds = set(value), {"string": str}
        else:
            return value, schema
        free = [word for word in self._unused_pools[0] if word not in taken and word not in json.dumps(schema)]
        added = {word: self.random.choice(list(kinds)) for word in self.random.sample(free, least + self.random.randrange(3))}
        order = list(value)
        for word in added:
            order.insert(self.random.randrange(len(order) + 1), word)
        value = {key: value[key] if key in value else self._valid(kinds[added[key]]) for key in order}
        schema = dict(schema)
        if isinstance(properties, dict):
            declared = list(properties.items())
            for word, kind in added.items():
                declared.insert(self.random.randrange(len(declared) + 1), (word, {"type": kind}))
            schema["properties"] = dict(declared)
            if isinstance(schema.get("required"), list):
                words = list(added)
                schema["required"] = [*schema["required"], *(
                    [word for word in words if self.random.randrange(2)] or [self.random.choice(words)])]
        return value, schema

    def templated_schema(self, value, schema):
        """``(value, schema)`` for ``validate_arguments`` (notebook 6) made again from their kind: every property name
        (the keys of each ``properties`` object, and every key of the value) renamed to a fresh pool word, the same
        word wherever the name stands (``required``, the value, the objects an ``enum`` or ``const`` lists), read back
        as the case's word until ``forget_template``; one or two optional properties of drawn names and simple types
        declared in every other object schema that lists ``properties`` (nested ones, ``$defs``); a ``description`` of
        one to eight drawn words at a drawn place on the schema and on about half of its subschemas (an annotation:
        notebook 6 says it changes nothing); then the top level drawn as ``varied_schema`` draws it, two to four properties. What stays: the schema's keywords and shape, the types and values of the
        case's own properties, what is wrong. No name is renamed when one is no plain identifier or there are more than
        ``MOST_TEMPLATED_FIELDS``.

        With drawn properties at the top level alone, a table keyed by skeletons without word lengths took them away
        again and knew 31 of notebook 6's hidden points (issue 24).
        """
        names = []

        def collect(node, in_schema):
            if isinstance(node, dict):
                if in_schema and isinstance(node.get("properties"), dict):
                    names.extend(node["properties"])
                for key, item in node.items():
                    if not in_schema:
                        names.append(key)
                    collect(item, in_schema and key not in _SCHEMA_DATA)
            elif isinstance(node, list):
                for item in node:
                    collect(item, in_schema)

        collect(schema, True)
        collect(value, False)
        names = list(dict.fromkeys(name for name in names if isinstance(name, str)))
        if len(names) > MOST_TEMPLATED_FIELDS or not all(_PLAIN_NAME.fullmatch(name) for name in names):
            names = []  # nothing renamed; the rest is drawn as for any schema
        taken = _words(json.dumps([value, schema], ensure_ascii=False))
        fresh = iter(self._fresh_names(taken, 2 * len(names) + 40))
        image = {name: next(fresh) for name in names}
        below = self.random.randrange
        kinds = ("string", "integer", "number", "boolean")

        def renamed_data(node):  # a value, or data in the schema (enum options): every key renamed
            if isinstance(node, dict):
                return {image.get(key, key): renamed_data(item) for key, item in node.items()}
            if isinstance(node, list):
                return [renamed_data(item) for item in node]
            return node

        plain_words = [word for word in self._unused_pools[0] if word not in image.values()]

        def described(sub, always=False):
            # An annotation (notebook 6: description changes nothing) of one to eight drawn words, at a drawn place
            # among the schema's keywords, on the schema and about half of its subschemas: a keyword, not a property,
            # so a table that takes drawn properties away keeps it.
            if not isinstance(sub, dict) or "description" in sub or not (always or below(2)):
                return sub
            listed = list(sub.items())
            words = " ".join(self.random.choice(plain_words) for _ in range(1 + below(8))).capitalize()
            listed.insert(below(len(listed) + 1), ("description", words))
            return dict(listed)

        def renamed_schema(node, top):
            if isinstance(node, list):
                return [renamed_schema(item, False) for item in node]
            if not isinstance(node, dict):
                return node
            out = {}
            for key, item in node.items():
                if key in _SCHEMA_DATA:
                    out[key] = renamed_data(item)
                elif key == "properties" and isinstance(item, dict):
                    listed = [(image.get(name, name), described(renamed_schema(sub, False))) for name, sub in item.items()]
                    if not top and all(isinstance(sub, dict) for _, sub in listed):
                        # Optional and never sent: a nested schema may apply to many values (a recursive model).
                        for _ in range(1 + below(2)):
                            listed.insert(below(len(listed) + 1), (next(fresh), {"type": self.random.choice(kinds)}))
                    out[key] = dict(listed)
                elif key == "required":
                    out[key] = [image.get(name, name) if isinstance(name, str) else name for name in item] \
                        if isinstance(item, list) else image.get(item, item) if isinstance(item, str) else item
                elif key == "$defs" and isinstance(item, dict):
                    out[key] = {name: described(renamed_schema(sub, False)) for name, sub in item.items()}
                elif key in _SUBSCHEMA and isinstance(item, dict):
                    out[key] = described(renamed_schema(item, False))
                elif key in _SUBSCHEMAS and isinstance(item, list):
                    out[key] = [described(renamed_schema(sub, False)) for sub in item]
                else:
                    out[key] = renamed_schema(item, False)
            return out

        value, schema = renamed_data(value), described(renamed_schema(schema, True), always=True)
        self.forget_template()
        self._template = {drawn: name for name, drawn in image.items()}
        self.originals.update(self._template)
        self._forget_renamed_back()
        return self.varied_schema(value, schema, least=2)

    def with_drawn_name(self, raw):
        """``(raw, (written, drawn))``: a raw call that is a ``json.dumps`` object (maybe with whitespace after it) whose
        ``name`` is a plain identifier, with that name replaced by one to three fresh pool words and a number joined by
        ``_`` (``fresh_name``: left as they are by the renaming, so nothing reads them back); ``(raw, None)`` for any other
        text. For a hidden ``parse_call`` case: a call with no arguments object to draw fields into (null, missing, a
        string) was the same on every draw, and a table keyed by skeletons without word lengths parsed it by rote
        (issue 24)."""
        body = raw.rstrip() if isinstance(raw, str) and len(raw) <= HUGE else ""
        try:
            call = json.loads(body) if body else None
        except (ValueError, RecursionError):
            return raw, None
        if not isinstance(call, dict) or json.dumps(call) != body or not isinstance(call.get("name"), str) or \
                not _PLAIN_NAME.fullmatch(call["name"]):
            return raw, None
        taken = set(_words(body))
        words = []
        for _ in range(1 + self.random.randrange(3)):
            words.append(self.fresh_name(taken | set(words)))
        # And a drawn number (search_v2 and the like are tool names too): one to three words alone were few enough
        # shapes for a table recorded on two gradings to meet again.
        drawn = "_".join(words) + f"_{1 + self.random.randrange(9999)}"
        return json.dumps({**call, "name": drawn}) + raw[len(body):], (call["name"], drawn)

    def word(self):
        """A drawn word of the pools that is no image of this draw (str, lower case): for a case's own free text."""
        return self.random.choice(self._unused_pools[0])

    def with_word(self, text):
        """``text`` (str) with a drawn word (``word``) before its trailing whitespace, where it holds anything but
        whitespace; else ``text`` as it is. A message a case hands over is then new on every draw, and keeps its kind:
        its first line, its padding and its line breaks are where they were."""
        body = text.rstrip()
        if not body:
            return text
        return f"{body} {self.word()}{text[len(body):]}"

    def with_id_tail(self, identifier):
        """``identifier`` (str) with six to twelve drawn letters and digits after it, as Anthropic's ids have
        (``toolu_01A09q90qw90lq917835lq9``); an empty id stays empty (a case of its own). The tail is drawn again until
        the id handed over comes back as it was when renamed back: a tail whose letters made an image of the draw
        ("iNr") came back as another word, and the reference lost a case that wants the id unchanged (a clean-clone
        CI, seed e35aed3b8081c4ec). Nearly every tail does; after 100 tries the last one is kept."""
        if not identifier:
            return identifier
        alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789"
        for _ in range(100):
            drawn = identifier + "".join(self.random.choice(alphabet) for _ in range(6 + self.random.randrange(7)))
            if self.backward(self.forward(drawn)) == drawn:
                break
        return drawn

    def _wrong_like(self, value):
        """A value of the same kind as ``value``, a case's wrong value (one its declared type refuses), drawn: another
        number for a number (a whole float stays whole, 0 and 1 stay), other digits for a string of digits or a decimal,
        other words for short text, other items for a list or an object; ``value`` itself when its kind is the value
        (a boolean, null, an empty string, a long or huge one, text with other characters). Kept as written, a wrong value was the
        one value no drawn one looked like, and a table keyed by it knew the case on every draw (issue 24's seventh
        attacker trial: +17 of validate_call's hidden points)."""
        below = self.random.randrange
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int):  # 0 and 1 are their own kind (bool(1): where a boolean is declared, the case)
            return value if value in (0, 1) or abs(value) > 10 ** 6 else (1 if value > 0 else -1) * below(2, 100_000)
        if isinstance(value, float):
            if value == 0 or not math.isfinite(value) or abs(value) > 10 ** 6:
                return value
            return float(below(1, 1000)) if value == int(value) else below(0, 1000) + self.random.choice((0.25, 0.5, 0.75))
        if isinstance(value, str):
            if re.fullmatch(r"[0-9]{1,7}", value):
                return str(below(1, 100_000))
            if re.fullmatch(r"[0-9]{1,6}\.[0-9]{1,6}", value):
                return f"{below(1, 1000)}.{below(1, 100)}"
            if re.fullmatch(r"[A-Za-z][A-Za-z@.\- ]{0,49}", value):  # text: other words ("a@example.com" for a list)
                words, cities = self._unused_pools
                return self.random.choice((lambda: self.random.choice(cities).title(), lambda: self.random.choice(words),
                                           lambda: f"{self.random.choice(words)} {self.random.choice(words)}"))()
            return value
        if isinstance(value, list):
            return self._valid(list)
        if isinstance(value, dict):
            return self._valid(dict) if value and len(json.dumps(value)) < 200 else value
        return value

    def _valid_without(self, kind, words, attempts=50):
        """``_valid(kind)`` drawn again while its text holds one of ``words`` (a set of str) as a word; the last one
        drawn after ``attempts`` (the pools hold some 200 words and a value a few)."""
        for _ in range(attempts):
            value = self._valid(kind)
            if not _words(json.dumps(value)) & words:
                break
        return value

    def _valid(self, kind):
        """A plain value of the declared ``kind`` (a class of ``SAMPLE_TYPES``), drawn in the shapes the cases' own
        values have (a Title-case city, a lower-case word, two words, digits, a decimal in a string; a small or a large
        integer; a decimal, or a whole number as a float; one to three items or entries), so that no shape tells a drawn field from a case's own (a table that stripped values
        shaped like the drawn ones, "one Title-case word", "k/4 + 0.125", kept the cases' skeletons). Never a falsy
        value: a runtime that tests a required field with ``if not value`` misses it on some draws only.
        """
        words, cities = self._unused_pools  # sent as they are: no image, or they came back renamed
        choice, below = self.random.choice, self.random.randrange

        def text():
            # Digits in a string too ("75001", "10.5"): a case's wrong value is often one, and with none among the
            # drawn strings a table told the case's own value from the drawn ones (issue 24's seventh attacker trial).
            return choice((lambda: choice(cities).title(), lambda: choice(words),
                           lambda: f"{choice(words)} {choice(words)}", lambda: str(number()),
                           lambda: f"{below(1, 1000)}.{below(1, 100)}"))()

        def number():
            return below(1, 100) if below(2) else below(100, 100_000)

        if kind is str:
            return text()
        if kind is int:
            return number()
        if kind is float:  # a whole number written as a float (7.0) now and then, as a case's wrong value is
            return float(below(1, 1000)) if not below(4) else below(0, 1000) + choice((0.25, 0.5, 0.75, 0.125))
        if kind is bool:
            return True
        item = text if below(2) else number
        if kind is list:
            return [item() for _ in range(1 + below(3))]
        return {word: item() for word in self.random.sample(words, 1 + below(2))}

    # -- JSON data -----------------------------------------------------------------------------------------

    def forward(self, data):
        """``data`` (JSON data: str, list, dict, numbers...) with every vocabulary word renamed, in strings and keys.

        Returns a new value; numbers, booleans and None are returned as they are.
        """
        with self._lock:
            return self._walk(data, self._forward_word)

    def backward(self, data):
        """The inverse of ``forward`` for what the submission sends back (JSON data); non-JSON values pass as they are."""
        with self._lock:
            return self._walk(data, self._backward_word)

    def _walk(self, data, rename):
        cache = self._cache.setdefault(rename.__name__, {})
        text_of = self._text

        def walk(value):
            kind = type(value)
            if kind is str:
                done = cache.get(value)
                return done if done is not None else text_of(value, rename, cache)
            if kind is list:
                return [walk(item) for item in value]
            if kind is dict:
                # (A key is nearly always a text renamed before: looked up here, without a call of walk.)
                return {(cache.get(key) or text_of(key, rename, cache)) if type(key) is str else key: walk(item)
                        for key, item in value.items()}
            return value

        return walk(data)

    def sent_form(self, text):
        """``text`` (str, the cases' words) as the submission wrote it, when it came back renamed (``backward``); else
        ``forward(text)``, the nearest guess. A text's length in the cases' words is not the length the submission
        wrote: an image's length is drawn, and a templated name reads back as a word of another length (an observation
        of 1,995 characters read back as 2,018 and a reference lost its case)."""
        sent = self._sent.get(text)
        return sent if sent is not None else self.forward(text)

    def _text(self, text, rename, cache):
        # A text up to 10,000 characters is renamed once per draw (``_walk`` looks it up first); a huge one, as far
        # as possible in repeating pieces (``_pieced``), and the last few are kept. What comes back renamed is
        # remembered as it was written (``sent_form``), for texts long enough to be near a bound.
        if rename.__name__ == "_backward_word" and len(text) > SENT_FORM_KEPT:
            renamed = self._text_renamed(text, rename, cache)
            self._sent[renamed] = text
            return renamed
        return self._text_renamed(text, rename, cache)

    def _text_renamed(self, text, rename, cache):
        if len(text) > 10_000:
            big = (rename.__name__, text)
            if big in self._big:
                return self._big[big]  # a huge call comes back as the model's retry: renamed once
            renamed = self._pieced(text, rename, cache)
            if renamed is None:
                renamed = self._split_and_renamed(text, rename, cache)
            if len(self._big) >= 4:
                self._big.pop(next(iter(self._big)))
            self._big[big] = renamed
            return renamed
        renamed = self._split_and_renamed(text, rename, cache)
        cache[text] = renamed  # a raw call is renamed again for padded() and for a model that repeats it
        return renamed

    def _pieced(self, text, rename, cache, chunk=4096):
        """``text`` renamed in pieces of about ``chunk`` characters that end where a word cannot go on (at an ASCII
        character that is no letter), each distinct piece renamed once; None when ``text`` holds a backslash (a piece
        could end inside an escape such as \\u0063). A word longer than any the draw renames (a 1 MB tool name of one
        letter) is kept as it is without being split.

        A huge call repeats itself (100,000 times the same city), so its pieces repeat too: a few are split and renamed
        instead of 100,000 words, and nothing is looked for inside another word (1 MB: 2-3 ms, against 6-13 ms for
        one ``str.replace`` per word and the checks it needed).
        """
        if "\\" in text:
            return None
        cuts = text.translate(_SPACES)
        renamed, out, start, end = {}, [], 0, len(text)
        while start < end:
            stop = cuts.find(" ", min(start + chunk, end))
            stop = end if stop < 0 else stop
            piece = text[start:stop]
            new = renamed.get(piece)
            if new is None and len(piece) > 4 * chunk:
                # A piece much longer than the others ends in a long word (no cut after start + chunk): one longer than
                # any word the draw renames is kept as it is, and only what comes before it is split (splitting 1 MB of
                # one letter was most of the work, and a call's name before it made the whole piece split).
                run_start = max(start, cuts.rfind(" ", start, start + chunk) + 1)
                run = text[run_start:stop]
                if run.isascii() and len(run) > self.longest:
                    new = renamed[piece] = self._split_and_renamed(text[start:run_start], rename, cache) + run
            if new is None:
                new = renamed[piece] = self._split_and_renamed(piece, rename, cache)
            out.append(new)
            start = stop
        return "".join(out)

    def _split_and_renamed(self, text, rename, cache):
        """``text`` split into ``TOKEN`` and the rest, each distinct token renamed once (through ``cache``)."""
        pieces = (ASCII_TOKEN if text.isascii() and "\\" not in text else TOKEN).split(text)
        if len(pieces) == 1:
            return text
        tokens = pieces[1::2]
        table = {token: self._renamed_once(token, rename, cache) for token in set(tokens)}
        pieces[1::2] = [table[token] for token in tokens]
        return "".join(pieces)

    def _renamed_once(self, token, rename, cache):
        """``_renamed`` through ``cache`` (``{token: renamed}``), where a token up to 64 characters is kept."""
        new = cache.get(token)
        if new is None:
            new = self._renamed(token, rename)
            if len(token) <= 64:
                cache[token] = new
        return new

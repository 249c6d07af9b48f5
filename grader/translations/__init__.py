"""The learner's language: which one the kit speaks (English or Russian), and its texts in that language.

Every learner-facing text is written in English in the code, marked ``_("...")`` (translated where it is made) or
``N_("...")`` (a constant, translated where it is shown), and translated at run time with the standard library's
``gettext`` from the message catalog beside this file (``ru/LC_MESSAGES/toolcall.mo``, compiled from the ``.po``
next to it by ``python -m course.catalogs``: a developer tool, never needed to run the kit). One source and a
catalog keep the two languages from drifting apart: a changed English text becomes an untranslated entry, which
``tests/test_translations.py`` refuses (issue 29).

Texts with values use named ``str.format`` fields (``_("{name} is not registered").format(name=...)``), so a
translation can put them in its own order; the test checks that both languages name the same fields.

The language is chosen, first match wins, by: the command's ``--lang``; the ``TOOLCALL_LANG`` environment
variable; the system locale (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``: the variables ``gettext`` reads,
in its order); English. A notebook sets its own language in its set-up cell (``notebooks/ru/`` speaks Russian).
Standard library only: the learner's kernel imports this module.
"""

import gettext
import os
from contextlib import contextmanager

from grader.paths import TRANSLATIONS_DIR

DOMAIN = "toolcall"
"""The catalogs' file name (gettext's domain)."""
LANGUAGES = {"en": "English", "ru": "Русский"}
"""The languages the kit speaks: code -> its own name. English is the source; the others have a catalog."""
DEFAULT = "en"
VARIABLE = "TOOLCALL_LANG"
"""The environment variable that chooses the language (``en`` or ``ru``) for every command and the grader."""
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
"""The system locale's variables, in the order ``gettext`` reads them."""

_chosen = None  # the language ``use`` set in this process (str), or None: then the environment decides
_catalogs = {}  # language -> gettext translations object, loaded once


def language_code(text):
    """The kit's language named by a locale or language string, or None (str or None).

    ``"ru"``, ``"ru_RU.UTF-8"``, ``"ru-RU"`` and ``"RU"`` give ``"ru"``; ``"en_GB"`` gives ``"en"``; ``"C"``,
    ``"POSIX"``, ``""`` and languages the kit does not speak (``"de_DE"``) give None. ``LANGUAGE`` may list several
    (``"uk:ru:en"``): the first the kit speaks wins, as ``gettext`` does.
    """
    for part in (text or "").split(":"):
        code = part.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
        if code in LANGUAGES:
            return code
    return None


def choose(requested=None, environ=None):
    """The language to speak (str, a key of ``LANGUAGES``).

    Args:
        requested: the command's ``--lang`` value (str or None); it wins when given.
        environ: the environment to read (mapping; default ``os.environ``): ``TOOLCALL_LANG``, then the locale.
    Returns:
        ``"en"`` or ``"ru"``; English when nothing names a language the kit speaks.
    Raises:
        ValueError: ``requested`` names a language the kit does not speak (one sentence listing those it does). An
            unknown ``TOOLCALL_LANG`` or locale is not an error: the next source decides, as with ``gettext``.
    """
    if requested:
        code = language_code(requested)
        if code is None:
            raise ValueError(f"The kit speaks {' and '.join(sorted(LANGUAGES))}, not {requested!r}.")
        return code
    environ = os.environ if environ is None else environ
    for variable in (VARIABLE,) + LOCALE_VARIABLES:
        code = language_code(environ.get(variable))
        if code:
            return code
        if variable != VARIABLE and environ.get(variable):
            break  # gettext stops at the first locale variable that is set, even to a language we lack
    return DEFAULT


def use(language):
    """Speak ``language`` from now on in this process and the processes it starts (``TOOLCALL_LANG`` is set).

    Args:
        language: a key of ``LANGUAGES`` (str).
    Raises:
        ValueError: an unknown language.
    """
    global _chosen
    if language not in LANGUAGES:
        raise ValueError(f"The kit speaks {' and '.join(sorted(LANGUAGES))}, not {language!r}.")
    _chosen = language
    os.environ[VARIABLE] = language


def current():
    """The language spoken now (str): the one ``use`` set, else the environment's (``choose()``)."""
    return _chosen or choose()


@contextmanager
def speaking(language):
    """Speak ``language`` inside a ``with`` block, then what was spoken before (for tests and one-off renders)."""
    global _chosen
    before, variable = _chosen, os.environ.get(VARIABLE)
    use(language)
    try:
        yield language
    finally:
        _chosen = before
        if variable is None:
            os.environ.pop(VARIABLE, None)
        else:
            os.environ[VARIABLE] = variable


def catalog(language=None):
    """The ``gettext`` translations for ``language`` (default: ``current()``); English and a missing catalog give
    ``gettext.NullTranslations`` (the English text itself)."""
    language = language or current()
    if language not in _catalogs:
        _catalogs[language] = (gettext.NullTranslations() if language == DEFAULT else
                               gettext.translation(DOMAIN, TRANSLATIONS_DIR, languages=[language], fallback=True))
    return _catalogs[language]


def _(message):
    """``message`` (an English text, str) in the current language; as is when the catalog lacks it."""
    return catalog().gettext(message)


def ngettext(singular, plural, count):
    """The singular or plural English text in the current language, the form chosen by ``count`` (int) and the
    language's plural rule (Russian has three forms: 1 вызов, 2 вызова, 5 вызовов)."""
    return catalog().ngettext(singular, plural, count)


def Nn_(singular, plural):
    """Mark a constant pair of texts, singular and plural, for the catalog without translating it now: returns the
    pair (tuple of str), to be shown with ``ngettext(*pair, count)``."""
    return singular, plural


class Said(str):
    """A text in the current language that keeps its English (``english``, str): judging decides by English
    sentences (which feedback a loop judged alone gets, whether a case was "never asked"), whatever language the
    learner reads. Adding a ``Said`` to a str (or another ``Said``) gives a ``Said``; anything else loses the English.
    """

    def __new__(cls, text, english=None):
        said = super().__new__(cls, text)
        said.english = str(text) if english is None else english
        return said

    def __add__(self, other):
        return Said(str(self) + str(other), self.english + english_of(other))

    def __radd__(self, other):
        return Said(str(other) + str(self), english_of(other) + self.english)

    def __reduce__(self):
        return Said, (str(self), self.english)


def english_of(text):
    """The English of ``text``: a ``Said``'s ``english``, else ``text`` itself (any value)."""
    return text.english if isinstance(text, Said) else text


def said(text):
    """``text`` in the current language, as a ``Said``: a ``Said`` as it is; an English constant (marked ``N_`` where
    it is defined) looked up in the catalog, never formatted (its braces are its own); anything else as it is."""
    if isinstance(text, Said) or not isinstance(text, str):
        return text
    return Said(_(text), text)


def say(message, **values):
    """``message`` (an English text with ``{fields}``) in the current language, filled with ``values``: a ``Said``
    whose ``english`` is the English filled with the values' English.

    Args:
        message: the English text, a literal (the catalog holds it); ``{{`` and ``}}`` stand for braces.
        values: the fields' values (any; a ``Said`` value gives its English to the English text).
    Returns:
        ``Said``.
    Raises:
        KeyError, IndexError, ValueError: ``message`` or its translation names a field not given (a bug the catalog
            test catches: both languages must name the same fields).
    """
    english = message.format(**{name: english_of(value) for name, value in values.items()})
    return Said(_(message).format(**values), english)


def N_(message):
    """Mark a constant text for the catalog without translating it now (str): translate it where it is shown,
    with ``_``, so a module-level rule speaks the language of the moment it is read."""
    return message


def add_language_option(parser, default=None):
    """Add ``--lang {en,ru}`` to an ``argparse`` parser (every learner and grading command has it); pass its value
    to ``choose``. Without it, ``TOOLCALL_LANG`` or the system locale decides. ``default``: ``argparse.SUPPRESS`` for
    a subcommand's parser, so that it does not overwrite the value given before the subcommand."""
    parser.add_argument("--lang", choices=sorted(LANGUAGES), default=default,
                        help=say("the language of the texts: {languages} (default: ${variable}, then the system "
                                 "locale, then en)", languages=", ".join(sorted(LANGUAGES)), variable=VARIABLE))


# argparse's own words, as Python 3.10 to 3.13 write them (argparse looks each up with its module's ``_`` when it
# prints: ``speak_to_argparse`` points that at this catalog). A wording another version uses stays English.
ARGPARSE_TEXTS = (N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
                  N_("%(prog)s: error: %(message)s\n"), N_("the following arguments are required: %s"),
                  N_("unrecognized arguments: %s"), N_("expected one argument"),
                  N_("invalid choice: %(value)r (choose from %(choices)s)"), N_("argument %(argument_name)s: %(message)s"),
                  N_("show program's version number and exit"))


def language_asked(argv):
    """The value of ``--lang`` in a command line (list of str), wherever it stands, or None: the language is chosen
    before the parser is made, so that its help and errors speak it (a Russian learner's trial read them in English)."""
    for number, word in enumerate(argv):
        if word == "--lang" and number + 1 < len(argv):
            return argv[number + 1] if argv[number + 1] in LANGUAGES else None
        if word.startswith("--lang="):
            return word.partition("=")[2] if word.partition("=")[2] in LANGUAGES else None
    return None


def speak_to_argparse():
    """Make argparse's own words (``ARGPARSE_TEXTS``: "usage:", "options", its errors) speak the current language in
    this process: argparse translates them with its module's ``_`` (gettext's default domain, which has no Russian),
    so that name is pointed at this catalog. Called by the kit's command lines only, never on import."""
    import argparse

    argparse._ = lambda text: catalog().gettext(text)

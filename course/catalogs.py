"""``python -m course.catalogs [--check]``: the message catalogs the kit's texts are translated from (issue 29).

A developer tool (it needs Babel, a test-only package); the kit reads the compiled ``.mo`` files with the standard
library (``grader.translations``). It gathers every learner-facing English text of the grader:

- texts marked in the code: ``_("...")``, ``N_("...")``, ``say("...", name=...)``, ``ngettext("...", "...", n)``, ``Nn_("...", "...")``
  (Babel's Python extractor);
- the course catalogue's titles and three hint levels (``grader/intake/exercises.json``);
- each hidden case's title, the first paragraph of its docstring (``grader.judging.pytest_plugin.case_title``);
- the categories of the real calls (``real_calls.json``), the playground's labels;

then brings ``grader/translations/<language>/LC_MESSAGES/toolcall.po`` up to date with them (a new or changed text
arrives untranslated; a text no longer used is dropped) and compiles the ``.mo`` beside it. ``--check`` writes
nothing and exits 1, listing the problems, when a text lacks its translation, a translation names other
``{fields}`` than its English, or a ``.po`` or ``.mo`` is stale; ``tests/test_translations.py`` runs the same check.

The notebooks' texts (their paragraphs, comments and docstrings: ``course.notebook_texts``) have their own catalog,
``solutions/translations/<language>/LC_MESSAGES/notebooks.po``, kept the same way for the notebooks a language has
(``course.notebook_texts.TRANSLATED``); ``course.build`` writes ``notebooks/<language>/`` from it.

Translators edit the ``.po`` file (any PO editor, or a text editor), then run this command.
"""

import argparse
import ast
import io
import json
import os
import re
import string
import sys

from course import notebook_texts
from grader.paths import (ANSWERS_DIR, CASES_DIR, EXERCISES_PATH, GRADER_DIR, NOTEBOOK_TRANSLATIONS_DIR, REAL_CALLS_PATH,
                          TRANSLATIONS_DIR)
from grader.translations import DEFAULT, DOMAIN, LANGUAGES

KEYWORDS = {"_": None, "N_": None, "say": None, "ngettext": (1, 2), "Nn_": (1, 2)}
"""The marks Babel extracts: ``grader.translations``'s functions (``say`` translates and fills in one step)."""
EXERCISE_FIELDS = ("title", "nudge", "rule", "hint")
"""The catalogue's learner-facing fields (``grader.intake.exercises.Exercise``)."""
SKIPPED = ("isolation/worker.py",)
"""Files never searched: the worker is the untrusted side and speaks only to the grader, in English."""


FOLDERS = {DOMAIN: TRANSLATIONS_DIR, notebook_texts.DOMAIN: NOTEBOOK_TRANSLATIONS_DIR}
"""Each catalog (gettext domain) and the folder its languages are in: the grader's texts, the notebooks' texts."""


def po_path(language, domain=DOMAIN):
    """The editable catalog of ``language`` (absolute str); ``domain``: a key of ``FOLDERS``."""
    return os.path.join(FOLDERS[domain], language, "LC_MESSAGES", f"{domain}.po")


def mo_path(language, domain=DOMAIN):
    """The compiled catalog of ``language``, the one the kit reads (absolute str); ``domain``: a key of ``FOLDERS``."""
    return os.path.join(FOLDERS[domain], language, "LC_MESSAGES", f"{domain}.mo")


def case_titles(cases_dir=CASES_DIR):
    """``[(file relative to grader/, line, title)]``: each case function's title as ``case_title`` shows it (its
    docstring's first paragraph; a case without a docstring is titled by its name, which is not translated)."""
    from grader.judging.pytest_plugin import docstring_title

    found = []
    for base, folders, names in os.walk(cases_dir):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        for name in sorted(n for n in names if n.startswith("test_") and n.endswith(".py")):
            path = os.path.join(base, name)
            with open(path, encoding="utf-8") as handle:
                tree = ast.parse(handle.read(), path)
            for node in tree.body:
                if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                    title = docstring_title(ast.get_docstring(node))
                    if title:
                        found.append((os.path.relpath(path, GRADER_DIR).replace(os.sep, "/"), node.lineno, title))
    return found


def template():
    """Every English text to translate, as a Babel ``Catalog`` without translations (location: file and line)."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir

    catalog = Catalog(domain=DOMAIN, project="toolcall-kit", fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
            GRADER_DIR, keywords=KEYWORDS, comment_tags=("Translators:",), strip_comment_tags=True,
            directory_filter=lambda folder: os.path.basename(folder) != "__pycache__"):
        if filename.replace(os.sep, "/") in SKIPPED:
            continue
        catalog.add(message, locations=[(filename.replace(os.sep, "/"), lineno)], auto_comments=comments,
                    context=context)
    with open(EXERCISES_PATH, encoding="utf-8") as handle:
        course = json.load(handle)
        catalog.add(course["course"], locations=[("intake/exercises.json:course", 0)])
        for exercise in course["exercises"]:
            for field in EXERCISE_FIELDS:
                if exercise.get(field):
                    catalog.add(exercise[field], locations=[(f"intake/exercises.json:{exercise['id']}.{field}", 0)])
    for filename, lineno, title in case_titles():
        catalog.add(title, locations=[(filename, lineno)])
    with open(REAL_CALLS_PATH, encoding="utf-8") as handle:  # the playground's labels (grader.learner.widgets)
        for entry in json.load(handle):
            catalog.add(entry["category"], locations=[("judging/cases/tool_call/data/real_calls.json:category", 0)])
    return catalog


def notebooks_template(language):
    """The texts of the notebooks ``language`` has, their model answers and the student release's README, as a Babel
    ``Catalog`` without translations (location: the file and the text's place in it)."""
    import nbformat
    from babel.messages.catalog import Catalog
    from course.notebooks import SOLVED_DIR, refresh_solved

    from course.release import SELF_STUDY_README, STUDENT_README

    catalog = Catalog(domain=notebook_texts.DOMAIN, project="toolcall-kit", fuzzy=False)
    for filename in notebook_texts.TRANSLATED.get(language, ()):
        notebook = refresh_solved(nbformat.read(os.path.join(SOLVED_DIR, filename), as_version=4))
        for number, text in enumerate(notebook_texts.notebook_texts(notebook), start=1):
            catalog.add(text, locations=[(filename, number)])
        answers = notebook_texts.answers_name(filename)
        with open(os.path.join(ANSWERS_DIR, answers), encoding="utf-8") as handle:
            for number, text in enumerate(notebook_texts.markdown_texts(handle.read()), start=1):
                catalog.add(text, locations=[(f"answers/{answers}", number)])
    if notebook_texts.TRANSLATED.get(language):
        for number, text in enumerate(notebook_texts.markdown_texts(STUDENT_README + SELF_STUDY_README), start=1):
            catalog.add(text, locations=[("course/release.py:README", number)])
    return catalog


def fields(text):
    """The ``str.format`` fields a text names, as a sorted list (``{}`` counts as ``""``; ``{{`` is no field). A
    text that is no format string (a hint quoting code such as ``'}'``, shown but never formatted) gives its
    braces and what they hold instead, so its translation must keep those exactly too.
    """
    try:
        return sorted(field or "" for _, field, _, _ in string.Formatter().parse(text) if field is not None)
    except ValueError:
        return sorted(re.findall(r"\{[^{}]*\}|[{}]", text))


def _ids(message):
    """A catalog entry's English texts (tuple of str: one, or singular and plural)."""
    return message.id if isinstance(message.id, tuple) else (message.id,)


def _translations(message):
    """A catalog entry's translations (tuple of str, empty strings for missing forms)."""
    return message.string if isinstance(message.string, tuple) else (message.string or "",)


def read_catalog(language, domain=DOMAIN):
    """The ``.po`` of ``language`` read with Babel (a ``Catalog``; an empty one when the file does not exist)."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po

    try:
        with open(po_path(language, domain), "rb") as handle:
            return read_po(handle, locale=language, domain=domain)
    except FileNotFoundError:
        return Catalog(locale=language, domain=domain, project="toolcall-kit", fuzzy=False)


def fresh_texts(language, domain=DOMAIN):
    """What ``domain``'s catalog of ``language`` must translate (a Babel ``Catalog``): ``template()`` for the grader,
    ``notebooks_template(language)`` for the notebooks."""
    return template() if domain == DOMAIN else notebooks_template(language)


def updated(language, fresh=None, domain=DOMAIN):
    """The ``.po`` of ``language`` brought up to date with ``fresh`` (default ``fresh_texts``), as a ``Catalog``:
    texts no longer in the code are dropped, new ones come in untranslated (never guessed: a guess would read as
    done)."""
    catalog = read_catalog(language, domain)
    catalog.update(fresh or fresh_texts(language, domain), no_fuzzy_matching=True, update_creation_date=False)
    catalog.obsolete.clear()
    return catalog


def po_bytes(catalog):
    """The ``.po`` text of ``catalog`` (bytes), without line numbers so that moving code changes nothing."""
    from babel.messages.pofile import write_po

    out = io.BytesIO()
    write_po(out, catalog, width=116, include_lineno=False, sort_output=True)
    return out.getvalue()


def mo_bytes(catalog):
    """The compiled ``.mo`` of ``catalog`` (bytes): translated, non-fuzzy entries only."""
    from babel.messages.mofile import write_mo

    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def entry_problems(catalog, language):
    """What is wrong with the entries of ``catalog`` (a Babel ``Catalog`` of ``language``), one sentence each (list
    of str): an English text without a translation (or marked fuzzy), a translation naming other ``{fields}`` than
    its English (shown, the text would raise KeyError or lose a value)."""
    found = []
    for message in catalog:
        if not message.id:
            continue  # the header
        english, translated = _ids(message), _translations(message)
        shown = english[0][:70]
        if message.fuzzy or not all(translated):
            found.append(f"{language}: no translation for {shown!r}.")
            continue
        wanted = fields(english[-1])
        for text in translated:
            if fields(text) != wanted:
                found.append(f"{language}: the translation of {shown!r} names the fields {fields(text)}, the "
                             f"English {wanted}.")
    return found


def problems(language, fresh=None, domain=DOMAIN):
    """What is wrong with ``language``'s catalogs, one sentence each (list of str; empty when all is well): the
    entries' problems (``entry_problems``), a ``.po`` that ``python -m course.catalogs`` would change (a text added
    to or dropped from the code), a ``.mo`` that does not hold the ``.po``'s translations.

    Args:
        language: a key of ``grader.translations.LANGUAGES`` other than English (str).
        fresh: the texts of the code (``fresh_texts``; computed when None).
        domain: which catalog (a key of ``FOLDERS``).
    """
    catalog = updated(language, fresh, domain)
    found = entry_problems(catalog, language)
    try:
        with open(po_path(language, domain), "rb") as handle:
            if handle.read() != po_bytes(catalog):
                found.append(f"{language}: {os.path.relpath(po_path(language, domain))} is out of date: run python -m "
                             "course.catalogs.")
        with open(mo_path(language, domain), "rb") as handle:
            if handle.read() != mo_bytes(catalog):
                found.append(f"{language}: {os.path.relpath(mo_path(language, domain))} does not match its .po: run "
                             "python -m course.catalogs.")
    except FileNotFoundError as exc:
        found.append(f"{language}: {exc.filename} is missing: run python -m course.catalogs.")
    return found


def main(argv=None):
    """Update and compile every language's catalog, or with ``--check`` only report; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m course.catalogs", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a catalog needs work")
    args = parser.parse_args(argv)
    grader_texts = template()
    wanted = [(language, domain, grader_texts if domain == DOMAIN else notebooks_template(language))
              for language in LANGUAGES if language != DEFAULT for domain in FOLDERS]
    if args.check:
        found = [problem for language, domain, fresh in wanted for problem in problems(language, fresh, domain)]
        print("\n".join(found) if found else "Every catalog is complete and compiled.")
        return 1 if found else 0
    for language, domain, fresh in wanted:
        catalog = updated(language, fresh, domain)
        os.makedirs(os.path.dirname(po_path(language, domain)), exist_ok=True)
        with open(po_path(language, domain), "wb") as handle:
            handle.write(po_bytes(catalog))
        with open(mo_path(language, domain), "wb") as handle:
            handle.write(mo_bytes(catalog))
        missing = sum(1 for m in catalog if m.id and (m.fuzzy or not all(_translations(m))))
        print(f"{po_path(language, domain)}: {len(catalog)} texts, {missing} without a translation.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

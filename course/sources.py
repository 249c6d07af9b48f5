"""``python -m course.sources``: every reference the course cites must be listed in ``docs/sources.md``.

The course makes claims about the outside world (OpenAI and Anthropic APIs, Python's ``json``, JSON Schema,
the Berkeley Function Calling Leaderboard, public bug reports). ``docs/sources.md`` lists each claim with its
source; this module finds the references the course's files cite and reports those the page does not list.

What counts as a reference (``find_references``):
- a URL (``http://`` or ``https://``), except local and placeholder hosts (``LOCAL_HOSTS``). A GitHub issue,
  pull request or discussion URL counts as the citation ``owner/repo #N``; any other URL is compared without
  its ``#fragment``, its trailing ``/`` and the difference between http and https;
- ``owner/repo #N`` or ``owner/repo#N`` (a GitHub issue or pull request), and each further number listed right
  after it (``owner/repo #N, #M and #K``);
- ``RFC N``, ``PEP N`` and ``CVE-YYYY-N``;
- a bare ``name #N`` (a repository name without its owner): it cannot be checked, so it is reported until it
  is written as ``owner/repo #N``.
A reference counts as listed when ``docs/sources.md`` contains the same reference in any of these forms (a
GitHub URL there lists ``owner/repo #N``, and the other way round).

Where (``COURSE_FILES``): the README and ``docs/*.md`` (except the sources page), the reference package,
solved notebooks and model answers under ``solutions/``, the grader (its cases' docstrings, visible cases,
hints, widgets and data) and ``course/``. Learner notebooks are generated from the solved ones, so they are not
read twice. Prints one line per missing reference and exits 1 if there is any; ``tests/test_sources.py`` runs
the same check.
"""

import glob
import os
import re
import sys
from dataclasses import dataclass

from grader.paths import KIT_ROOT

SOURCES_PAGE = os.path.join("docs", "sources.md")
# Glob patterns relative to the repository; add one here when course text starts living somewhere new.
COURSE_FILES = [
    "README.md",
    "docs/*.md",
    "solutions/*.py",
    "solutions/answers/*.md",
    "solutions/notebooks/*.ipynb",
    "grader/**/*.py",
    "grader/**/*.json",
    "course/*.py",
]
# Addresses that are not sources: the machine itself and documentation placeholders.
LOCAL_HOSTS = {"localhost", "127.0.0.1", "0.0.0.0", "example.com", "example.org", "example.net"}

_URL = re.compile(r"https?://[^\s<>()\[\]{}\"'`\\|]+")
_GITHUB_THREAD = re.compile(r"^github\.com/([\w.-]+)/([\w.-]+)/(?:issues|pull|pulls|discussions)/(\d+)(?:[/?#].*)?$", re.I)
_NUMBER = r"#(\d+)"
_MORE_NUMBERS = r"((?:(?:\s*,\s*|\s+and\s+|\s*/\s*)#\d+)*)"
_OWNER_REPO = re.compile(r"(?<![\w./#-])([A-Za-z0-9][\w.-]*)/([A-Za-z0-9][\w.-]*) ?" + _NUMBER + _MORE_NUMBERS)
_BARE = re.compile(r"(?<![\w./#-])([A-Za-z][\w.-]*) " + _NUMBER + r"\b")
_STANDARDS = [
    (re.compile(r"\bRFC ?(\d{3,5})\b"), "RFC {}"),
    (re.compile(r"\bPEP ?(\d{1,4})\b"), "PEP {}"),
    (re.compile(r"\bCVE-(\d{4}-\d{4,})\b", re.I), "CVE-{}"),
]


@dataclass(frozen=True)
class Reference:
    """One reference found in a file.

    Attributes:
        key: the normalised form compared with the sources page, e.g. ``"vercel/ai #2786"``,
            ``"RFC 8259"``, ``"url:docs.python.org/3/library/json.html"`` (str).
        text: the text as written (str).
        where: the file and position, e.g. ``"grader/judging/cases/tool_call/test_02_names.py, line 23"`` (str).
        needs_owner: True for a bare ``name #N`` that must be rewritten as ``owner/repo #N`` (bool).
    """

    key: str
    text: str
    where: str = ""
    needs_owner: bool = False


def _url_key(url):
    url = url.rstrip(".,;:!?*_")
    rest = re.sub(r"^https?://", "", url, flags=re.I)
    host, _, path = rest.partition("/")
    host = host.lower()
    if host.startswith("www."):
        host = host[4:]
    if host.split(":")[0] in LOCAL_HOSTS:
        return None, url
    thread = _GITHUB_THREAD.match(host + "/" + path)
    if thread:
        owner, repo, number = thread.groups()
        return f"{owner.lower()}/{repo.lower()} #{number}", url
    path = path.split("#", 1)[0].rstrip("/")
    return "url:" + host + ("/" + path if path else ""), url


def find_references(text):
    """Every reference in ``text``, in order of appearance.

    Args:
        text: any text (str).
    Returns:
        list of ``(offset: int, Reference)`` with ``where`` left empty; see the module docstring for what
        counts as a reference.
    """
    found = []
    masked = list(text)

    def claim(match):
        for index in range(match.start(), match.end()):
            masked[index] = " "

    for match in _URL.finditer(text):
        key, written = _url_key(match.group(0))
        if key is not None:
            found.append((match.start(), Reference(key, written)))
        claim(match)
    rest = "".join(masked)
    for match in _OWNER_REPO.finditer(rest):
        owner, repo, first, more = match.groups()
        for number in [first, *re.findall(r"#(\d+)", more or "")]:
            found.append((match.start(), Reference(f"{owner.lower()}/{repo.lower()} #{number}", match.group(0).strip())))
        claim(match)
    rest = "".join(masked)
    for pattern, form in _STANDARDS:
        for match in pattern.finditer(rest):
            found.append((match.start(), Reference(form.format(match.group(1).upper()), match.group(0))))
    for match in _BARE.finditer(rest):
        found.append((match.start(), Reference(f"{match.group(1)} #{match.group(2)}", match.group(0), needs_owner=True)))
    return sorted(found, key=lambda pair: pair[0])


def _texts(path, relative):
    """``(where, text, first_line)`` for each part of a file that is read: notebook cells one by one."""
    if path.endswith(".ipynb"):
        import nbformat

        notebook = nbformat.read(path, as_version=4)
        for number, cell in enumerate(notebook.cells):
            yield f"{relative}, cell {number}", cell.source, None
    else:
        with open(path, encoding="utf-8") as handle:
            yield relative, handle.read(), 1


def course_references(root=KIT_ROOT):
    """Every reference cited in the course's files (``COURSE_FILES``), the sources page excluded.

    Args:
        root: the repository (str).
    Returns:
        list of ``Reference`` with ``where`` set (file and line, or notebook and cell).
    """
    paths = sorted({path for pattern in COURSE_FILES for path in glob.glob(os.path.join(root, pattern), recursive=True)})
    references = []
    for path in paths:
        relative = os.path.relpath(path, root)
        if relative == SOURCES_PAGE:
            continue
        for where, text, first_line in _texts(path, relative):
            for offset, reference in find_references(text):
                place = where if first_line is None else f"{where}, line {text.count(chr(10), 0, offset) + first_line}"
                references.append(Reference(reference.key, reference.text, place, reference.needs_owner))
    return references


def listed_keys(root=KIT_ROOT):
    """The references ``docs/sources.md`` lists, as keys (set of str; empty if the page is missing)."""
    try:
        with open(os.path.join(root, SOURCES_PAGE), encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return set()
    return {reference.key for _, reference in find_references(text) if not reference.needs_owner}


def unlisted(root=KIT_ROOT):
    """The course's references that ``docs/sources.md`` does not list, and bare ones that lack an owner.

    Returns:
        list of ``Reference`` (empty when every reference is listed).
    """
    listed = listed_keys(root)
    return [r for r in course_references(root) if r.needs_owner or r.key not in listed]


def explain(problems):
    """One sentence per problem, saying exactly what to add or change (str)."""
    lines = []
    for problem in problems:
        if problem.needs_owner:
            lines.append(f"- {problem.where}: '{problem.text}' names a repository without its owner; write it as "
                         "owner/repo #N, then list it in docs/sources.md.")
        else:
            shown = problem.key[4:] if problem.key.startswith("url:") else problem.key
            lines.append(f"- {problem.where}: '{problem.text}' is not in docs/sources.md; add a row with the claim it "
                         f"supports (one line), where the course makes it ({problem.where.split(',')[0]}), the source "
                         f"({shown}) and the date you checked it.")
    return "\n".join(lines)


def main(argv=None):
    """Print every unlisted reference with what to add; return the exit status (0 when none, else 1)."""
    import argparse

    argparse.ArgumentParser(prog="python -m course.sources",
                            description="Every reference the course cites must be listed in docs/sources.md.").parse_args(argv)
    problems = unlisted()
    if not problems:
        print(f"every reference the course cites is listed in {SOURCES_PAGE}")
        return 0
    print(f"{len(problems)} reference(s) the course cites are missing from {SOURCES_PAGE}:")
    print(explain(problems))
    return 1


if __name__ == "__main__":
    sys.exit(main())

"""One rule a raw tool call broke, in a form both code and a model can read."""

import re
from dataclasses import dataclass

PREVIEW_CHARS = 60
MAX_LINE_CHARS = 2000  # one problem's text stays within the contract's bound on error text
TRACEBACK_HEAD = "Traceback (most recent call last)"
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,59}")
PATH_CHARS = 160  # a longer path is shown by its start and end (a 300-level value stays one short line)
PATH_HEAD = 60
# One step of a path as child_path writes it: .name, [2], ['quoted \' name'] with its length, [(a name ...)].
PATH_STEP = re.compile(r"\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\]|\['(?:[^'\\]|\\.)*'(?: \([0-9,]+ characters\))?\]"
                       r"|\[\(a name [^()]*\)\]")


def _step_starts(path):
    """Where each step of ``path`` begins (list of int), read from its first ``.`` or ``[``; a quoted name's own dots
    and brackets are inside its step. Empty when ``path`` is not made of such steps."""
    at = min((found for found in (path.find("."), path.find("[")) if found > 0), default=-1)
    starts = []
    while 0 < at < len(path):
        step = PATH_STEP.match(path, at)
        if not step:
            return []
        starts.append(at)
        at = step.end()
    return starts


def bounded_path(path):
    """``path`` itself, or, past ``PATH_CHARS`` characters, its first and last steps around "…" (str).

    The cut falls where a step begins (``.name``, ``[2]``, ``['a.b']``, never at a dot or bracket inside a quoted
    name), so no name is shown half; the ends say where the
    value starts and which field is wrong, the middle (``.next.next…``) is what a model can count itself.
    """
    if len(path) <= PATH_CHARS:
        return path
    starts = _step_starts(path)
    head_end = max((at for at in starts if at <= PATH_HEAD), default=PATH_HEAD)
    tail_from = len(path) - (PATH_CHARS - head_end - 1)
    tail = min((at for at in starts if at >= tail_from), default=tail_from)
    return path[:head_end] + "…" + path[tail:]


def listing(items, cap=None):
    """Join names for a sentence, keeping the first ``cap`` and counting the rest.

    Args:
        items: names already quoted for display (sequence of str), most useful first.
        cap: how many to show (int), or None for all of them.
    Returns:
        str such as ``"'a', 'b' and 3 more"``, or ``"none"`` for no items.
    """
    if not items:
        return "none"
    shown = items if cap is None else items[:cap]
    text = ", ".join(shown)
    if len(items) > len(shown):
        text += f" and {len(items) - len(shown):,} more"
    return text


@dataclass(frozen=True)
class Violation:
    """A single broken rule.

    Attributes:
        where: what is wrong, e.g. ``"the call"``, ``"name"``, ``"argument 'city'"`` (str).
        problem: what is wrong with it, e.g. ``"is missing"`` (str).
        hint: how to fix it, e.g. ``"expected a string"``; may be empty (str).
        where_items: names that complete ``where``, e.g. the undeclared fields (tuple of quoted str).
        hint_items: names that complete ``hint``, most useful first, e.g. the registered tools
            (tuple of quoted str).

    ``str(violation)`` gives one line naming every item, such as
    ``argument 'city' is missing: expected a string (required)`` or
    ``tool 'lookup' is not registered: registered tools: 'list_sensors', 'ping'``;
    ``render(cap)`` names at most ``cap`` items per list, so an observation can fit its budget; ``str()``
    itself names as many as fit in ``MAX_LINE_CHARS`` (2,000) characters.
    """

    where: str
    problem: str
    hint: str = ""
    where_items: tuple = ()
    hint_items: tuple = ()

    def render(self, cap=None):
        """The violation as one line, each list cut to ``cap`` names (None: all) with a count of the rest."""
        where = bounded_path(self.where)
        where = f"{where} {listing(self.where_items, cap)}" if self.where_items else where
        hint = self.full_hint(cap)
        return f"{where} {self.problem}" + (f": {hint}" if hint else "")

    def full_hint(self, cap=None):
        """The hint with its items named (each list cut to ``cap`` names; None: all), e.g. ``expected one of: 'a'``."""
        if self.hint_items or self.hint.endswith(":"):
            return f"{self.hint} {listing(self.hint_items, cap)}"
        return self.hint

    def __str__(self):
        """Every item while the line fits ``MAX_LINE_CHARS``; else as many as fit, with a count of the rest."""
        full = self.render()
        if len(full) <= MAX_LINE_CHARS:
            return full
        low, high = 0, max(len(self.where_items), len(self.hint_items))
        while low < high:
            middle = (low + high + 1) // 2
            low, high = (middle, high) if len(self.render(middle)) <= MAX_LINE_CHARS else (low, middle - 1)
        return self.render(low)


def looks_like_traceback(text):
    """True if ``text`` holds what reads as a Python traceback: its head line or a ``File "…", line N`` frame."""
    return TRACEBACK_HEAD in text or ('File "' in text and '", line ' in text)


def _escaped(text, limit):
    # One line, ASCII only: newlines and control characters become visible escapes (\n, \x00).
    return text[:limit].encode("unicode_escape").decode("ascii")[:limit]


def _quoted(text, limit):
    # As _escaped, with a quote escaped too (unicode_escape already doubles a backslash), so a name such as
    # "a']['b" cannot close its quotes early and read as two names (issue 26's trial).
    return _escaped(text, limit).replace("'", "\\'")


def preview(value, limit=PREVIEW_CHARS):
    """Describe a received JSON value briefly and safely, for use inside an observation.

    Never calls ``repr`` on containers (on Python 3.11 and earlier, ``repr`` of a 900-deep list raises
    RecursionError once about 100 frames are already on the stack) and never returns more than about
    ``limit`` characters of the value.
    Text the model sent is shown on one line and never as a traceback (see ``outside_text``).

    Args:
        value: any value produced by ``json.loads``.
        limit: maximum characters of a string's content to show (int, characters).
    Returns:
        str, e.g. ``'the string "Par…" (1,000,000 characters)'``, ``"the integer 42"``, ``"null"``.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, int):
        return f"the integer {value}" if value.bit_length() < 200 else "a very large integer"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, str):
        shown = _escaped(value, limit)
        if looks_like_traceback(shown):
            return f"a string of {len(value):,} characters that looks like a Python traceback"
        if len(value) > limit:
            return f'the string "{shown}…" ({len(value):,} characters)'
        return f'the string "{shown}"'
    if isinstance(value, list):
        return f"an array of {len(value):,} items"
    if isinstance(value, dict):
        return f"an object with {len(value):,} keys"
    return f"a value of type {type(value).__name__}"


def quote(text, limit=PREVIEW_CHARS):
    """Quote a name or field for an observation, truncated to ``limit`` characters.

    Args:
        text: the name as received (str).
        limit: maximum characters shown (int).
    Returns:
        str such as ``'units'``, ``'a\\'b'`` or ``'aaaa…' (5,000 characters)``; a name that reads as a Python
        traceback is described instead of quoted.
    """
    shown = _quoted(text, limit)
    if looks_like_traceback(shown):
        return f"(a name of {len(text):,} characters that looks like a Python traceback)"
    if len(text) > limit:
        return f"'{shown}…' ({len(text):,} characters)"
    return f"'{shown}'"


def outside_text(text, limit=200):
    """Reduce text the runtime did not write (an exception message) to what a model can act on.

    Rule (issue 10, from a gateway whose error message carried a whole traceback): keep the first
    line only, on one escaped line of at most ``limit`` characters; drop it entirely if it reads as
    a traceback, since "Traceback (most recent call last)" tells a model nothing it can fix.

    Args:
        text: any str (or anything ``str()`` fails on, which gives "").
        limit: maximum characters kept (int).
    Returns:
        str, possibly empty.
    """
    try:
        lines = str(text).strip().splitlines()
    except Exception:  # an exception whose __str__ raises
        return ""
    first = _escaped(lines[0].strip(), limit) if lines else ""
    return "" if looks_like_traceback(first) else first


def child_path(path, key):
    """The path of one item inside a value, for an observation: ``arguments.city``, ``arguments.tags[2]``,
    ``arguments['a.b']`` (a ``Violation`` shows a path longer than ``PATH_CHARS`` by its start and end).

    A key that is a short identifier is joined with a dot; any other key (a dot, a space, a quote, 5,000
    characters, a traceback) is quoted in brackets by ``quote``, so it stays one short line, a traceback
    is described rather than shown, and a key ``"a.b"`` never reads like ``b`` inside ``a``
    (docs/contract.md, Observation; issue 26, kind 5).

    Args:
        path: the path so far (str; "" for the top). key: an object key (str) or an array index (int).
    Returns:
        str.
    """
    if isinstance(key, int):
        joined = f"{path}[{key}]"
    elif _KEY.fullmatch(key):
        joined = f"{path}.{key}" if path else key
    else:
        joined = f"{path}[{quote(key)}]"
    return joined

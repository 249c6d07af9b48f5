"""One rule a raw tool call broke, in a form both code and a model can read."""

from dataclasses import dataclass

PREVIEW_CHARS = 60


@dataclass(frozen=True)
class Violation:
    """A single broken rule.

    Attributes:
        where: what is wrong, e.g. ``"the call"``, ``"name"``, ``"argument 'city'"`` (str).
        problem: what is wrong with it, e.g. ``"is missing"`` (str).
        hint: how to fix it, e.g. ``"expected a string"``; may be empty (str).

    ``str(violation)`` gives one line such as
    ``argument 'city' is missing: expected a string (required)``.
    """

    where: str
    problem: str
    hint: str = ""

    def __str__(self):
        return f"{self.where} {self.problem}" + (f": {self.hint}" if self.hint else "")


def preview(value, limit=PREVIEW_CHARS):
    """Describe a received JSON value briefly and safely, for use inside an observation.

    Never calls ``repr`` on containers (on Python 3.11 and earlier, ``repr`` of a 900-deep list raises
    RecursionError once about 100 frames are already on the stack) and never returns more than about
    ``limit`` characters of the value.

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
        text = str(value) if value.bit_length() < 200 else "a very large integer"
        return f"the integer {text}"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, str):
        shown = value[:limit].encode("unicode_escape").decode("ascii")[:limit]
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
        str such as ``'units'`` or ``'aaaa…' (5,000 characters)``.
    """
    shown = text[:limit].encode("unicode_escape").decode("ascii")[:limit]
    if len(text) > limit:
        return f"'{shown}…' ({len(text):,} characters)"
    return f"'{shown}'"

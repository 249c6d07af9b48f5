"""Text a submission influenced, made safe to print and store.

Everything a report or results file shows that a submission could have chosen (what it printed,
exception messages, a notebook's metadata, its file name) passes through ``strip_controls``: a
terminal escape sequence (ESC, or the one-byte CSI of the C1 range) could clear the screen and
draw a fake "Score: 116 / 116", and a bidirectional override could make a line read differently
from what it holds (Trojan Source, CVE-2021-42574). Standard library only.
"""

import unicodedata

# Every C0 and C1 control character but newline and tab, DEL, the bidirectional controls, and the
# Unicode line and paragraph separators (a terminal or editor may start a new line at them).
_REMOVED = [chr(code) for code in range(0x100) if unicodedata.category(chr(code)) == "Cc" and chr(code) not in "\n\t"]
_REMOVED += ["\u061c", "\u200e", "\u200f", *map(chr, range(0x202a, 0x202f)), *map(chr, range(0x2066, 0x206a))]
CONTROL = {ord(c): None for c in _REMOVED} | {0x2028: " ", 0x2029: " "}


def strip_controls(text):
    """``text`` without control characters (see the module docstring); newlines and tabs stay.

    Lone surrogates (from a file name that is not UTF-8) become U+FFFD, so the text can be encoded.
    Args:
        text: str (anything else becomes an empty string).
    Returns:
        str.
    """
    if not isinstance(text, str):
        return ""
    return text.encode("utf-8", "replace").decode("utf-8").translate(CONTROL)


def clean_text(value, limit=500):
    """Make text that came from the submission safe to print and store, and short.

    Args:
        value: anything; non-strings become an empty string.
        limit: maximum length kept (int, characters); longer text ends with "…".
    Returns:
        str.
    """
    text = strip_controls(value)
    return text if len(text) <= limit else text[:limit] + "…"

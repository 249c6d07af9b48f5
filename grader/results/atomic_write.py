"""Writing result files so that no reader ever sees half of one: a temporary file in the same folder, then a rename.

Every file the kit writes for someone else to read (results.json, the gradebook, the class report) goes through
here: a batch that is interrupted, or a reader that opens a file while it is being written, finds either the old
file or the new one.
"""

import json
import os
import tempfile


def write_text_atomically(path, text):
    """Write ``text`` to ``path`` via a temporary file and rename, so no reader sees half a file.

    Args:
        path: destination (str or path-like); its folder is created if missing.
        text: the content (str, written as UTF-8; a lone surrogate, from a file name that is not
            UTF-8, becomes "?" instead of failing the write).
    Raises:
        OSError: the folder cannot be created or written.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".kit-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def write_json_atomically(path, data):
    """Write ``data`` as indented JSON to ``path`` atomically (see ``write_text_atomically``)."""
    write_text_atomically(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")

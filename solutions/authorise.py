"""Step 9: validation is not authorisation. A file tool that reads only inside one folder.

A call can pass every check of notebooks 1 to 4 and still ask for something the agent may not do:
``read_file({"path": "../../etc/passwd"})`` is a well-formed call with a string where a string is declared. What
keeps it out is a rule about the *value*, written for the tool: resolve the path the way the operating system will
(``..`` and symbolic links included), then check that the real path is inside the allowed folder. The MCP filesystem
server does the same: it resolves a path with ``realpath`` and checks the real path against its allowed directories
(docs/sources.md).
"""

import os


def inside(path, root):
    """True when ``path`` is ``root`` or below it (both absolute, already resolved): compared by whole components, so
    ``/work/data-old`` is not inside ``/work/data`` (a plain ``startswith`` says it is)."""
    return os.path.commonpath([path, root]) == root


def allowed_path(path, root):
    """Where a file tool confined to ``root`` may go for ``path``, or why not.

    Args:
        path: the path the model sent (any value; only a non-empty str can be a path). A relative path is taken from
            ``root``; an absolute one must lead inside it.
        root: the allowed folder (str, absolute; it exists).
    Returns:
        ``(real_path, None)``: the path with ``..`` and every symbolic link resolved (``os.path.realpath``), inside
        the real ``root``; or ``(None, reason)``: one sentence for the model, naming the rule, never the real path of
        anything outside ``root``.
    """
    if not isinstance(path, str) or not path:
        return None, "a file name must be a non-empty string naming a file inside the allowed folder"
    if "\x00" in path:
        return None, "a file name must not contain a NUL character"
    real_root = os.path.realpath(root)
    try:
        real = os.path.realpath(os.path.join(real_root, path))
    except ValueError:  # a character no file name can hold (a lone surrogate raises UnicodeEncodeError)
        return None, "a file name must hold only characters a file name can have"
    if not inside(real, real_root):
        return None, "this leads outside the allowed folder (through .., an absolute name or a symbolic link)"
    return real, None

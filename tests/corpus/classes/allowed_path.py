"""A file tool confined to one folder, organised around a small policy object.

This variant resolves with pathlib.Path.resolve(strict=False) and checks containment
with os.path.relpath, comparing whole components (so '..notes.txt' is inside).
"""
import os
from pathlib import Path


class Sandbox:
    """Decides whether a model-supplied path stays inside one folder."""

    BAD_VALUE = "Refused: the path must be a non-empty string with no NUL character."
    UNRESOLVABLE = "Refused: the path cannot be resolved to a file inside the allowed folder."
    OUTSIDE = "Refused: the path leads outside the allowed folder."

    def __init__(self, root):
        self.root = Path(root).resolve()  # root itself may be reached through a link

    @staticmethod
    def _well_formed(path):
        return isinstance(path, str) and path != "" and "\x00" not in path

    def _contains(self, real):
        rel = os.path.relpath(real, self.root)
        first = rel.split(os.sep, 1)[0]
        return first != ".." and not os.path.isabs(rel)

    def check(self, path):
        if not self._well_formed(path):
            return None, self.BAD_VALUE
        try:
            # Joining an absolute path drops the root: it stands alone.
            real = (self.root / path).resolve()
        except (OSError, ValueError, RuntimeError):
            return None, self.UNRESOLVABLE
        if not self._contains(real):
            return None, self.OUTSIDE
        return str(real), None


def allowed_path(path, root):
    """(real_path, None) when path really leads inside root, else (None, reason). Never raises."""
    try:
        return Sandbox(root).check(path)
    except Exception:  # the runtime must not crash on any input
        return None, Sandbox.UNRESOLVABLE

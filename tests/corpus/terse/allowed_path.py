import os


def allowed_path(path, root):
    """(real_path, None) if path really stays inside root, else (None, reason)."""
    if not isinstance(path, str) or not path or "\0" in path:
        return None, "The path must be a non-empty string without NUL characters."
    try:
        base = os.path.realpath(root)
        real = os.path.realpath(os.path.join(base, path))
        if os.path.commonpath([base, real]) == base:
            return real, None
    except (OSError, ValueError):
        return None, "The path cannot be resolved to a file in the workspace."
    return None, "The path leads outside the allowed folder (via '..', an absolute path or a link)."

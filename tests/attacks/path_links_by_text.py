# EXPECTED: loses a-chain-of-links (judges each link by its own target's text, so a chain that ends outside passes it). From notebook 9's attacker trial:
# Insecure: decide lexically, refusing only paths through a link whose target text holds '..' or is absolute; never checks the resolved path (link chains escape)
import os
def allowed_path(path, root):
    if not isinstance(path, str) or not path or "\x00" in path:
        return None, "a file name must be a non-empty string without NUL"
    real_root = os.path.realpath(root)
    lexical = os.path.normpath(os.path.join(real_root, path))
    if os.path.commonpath([lexical, real_root]) != real_root:
        return None, "this leads outside the allowed folder"
    cur = real_root
    for part in os.path.relpath(lexical, real_root).split(os.sep):
        if part == ".":
            continue
        cur = os.path.join(cur, part)
        if os.path.islink(cur):
            t = os.readlink(cur)
            if t.startswith("/") or ".." in t.split("/"):
                return None, "this leads outside the allowed folder through a link"
    return os.path.realpath(lexical), None

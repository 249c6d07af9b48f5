# EXPECTED: loses the refused cases (its reasons name what lies outside). From notebook 9's attacker trial:
# Correct verdicts, but the reason leaks what lies outside: the link's target, the relative real path, a spaced-out real path and the secret file's contents
import os
def allowed_path(path, root):
    if not isinstance(path, str) or not path or "\x00" in path:
        return None, "a file name must be a non-empty string without NUL"
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, path))
    if os.path.commonpath([real, real_root]) != real_root:
        bits = [os.path.relpath(real, real_root), real.replace("/", " / ")]
        try:
            bits.append(os.readlink(os.path.join(real_root, path)))
        except OSError:
            pass
        try:
            with open(real) as h:
                bits.append(repr(h.read(40)))
        except OSError:
            pass
        return None, "refused: it leads to " + "; ".join(bits)
    return real, None

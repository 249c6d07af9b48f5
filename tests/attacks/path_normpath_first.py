# EXPECTED: loses a-link-then-dot-dot (normpath cancels link/.. as text). From notebook 9's attacker trial:
# Wrong: normpath before realpath, so 'link/..' is collapsed lexically (the OS climbs from the link's target): parent/../x is allowed though it leads outside
import os
def allowed_path(path, root):
    if not isinstance(path, str) or not path or "\x00" in path:
        return None, "a file name must be a non-empty string without NUL"
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.normpath(os.path.join(real_root, path)))
    if os.path.commonpath([real, real_root]) != real_root:
        return None, "this leads outside the allowed folder"
    return real, None

# EXPECTED: loses a-link-to-a-file-not-made (resolves only the parent of a path that does not exist). From notebook 9's attacker trial:
# Insecure: realpath the path when it exists, else realpath its folder and append the last name as written: a dangling link inside (-> ../new or /etc/x) is allowed and a write follows it out
import os
def allowed_path(path, root):
    if not isinstance(path, str) or not path or "\x00" in path:
        return None, "a file name must be a non-empty string without NUL"
    real_root = os.path.realpath(root)
    full = os.path.join(real_root, path)
    if os.path.exists(full):
        real = os.path.realpath(full)
    else:
        real = os.path.join(os.path.realpath(os.path.dirname(full)), os.path.basename(full))
    if os.path.commonpath([real, real_root]) != real_root:
        return None, "this leads outside the allowed folder"
    return real, None

"""The folder a path case (notebook 9's ``allowed_path``) runs against: files, a sibling folder and symbolic links,
made by the grader (the submission may not make links), and the paths the cases name in it.

One tree per case, under a folder of its own in the worker's scratch folder (``grader.judging.harness.ExerciseHarness
.confined``) or, for the notebook's self-check, in a temporary folder. Its names are written out in visible cases and
drawn in hidden ones, so a table of verdicts keyed by the paths as written meets none of them.
"""

import os
import string

# What a case's path may name, as ``{key}`` in its template; ``root`` is the allowed folder's absolute path.
PARTS = ("case", "root", "notes", "sub", "deep", "inside_link", "outside_link", "up_link", "secret", "old", "alias",
         "dangling", "planted", "chain", "hop", "absolute_link")
# The names a visible case shows (readable), each the part's own name in a learner's words.
SHOWN = {"case": "case", "root": "workspace", "notes": "notes.txt", "sub": "reports", "deep": "q3.txt",
         "inside_link": "latest.txt", "outside_link": "shortcut.txt", "up_link": "parent", "secret": "secret.txt",
         "old": "workspace-old", "alias": "current", "dangling": "log.txt", "planted": "planted.txt",
         "chain": "today.txt", "hop": "yesterday.txt", "absolute_link": "config.txt"}


def drawn_names(generator):
    """Names for one tree, drawn from ``generator`` (``random.Random``): ``{part: name}``. The allowed folder's sibling
    starts with the allowed folder's name (``root`` + ``-old``), so a check by string prefix meets it."""
    def word(length):
        return "".join(generator.choice(string.ascii_lowercase) for _ in range(length))
    names = {part: word(generator.randint(5, 9)) for part in PARTS}
    names["notes"] += ".txt"
    names["deep"] += ".txt"
    for part in ("secret", "dangling", "planted", "chain", "hop", "absolute_link"):
        names[part] += ".txt"
    names["old"] = names["root"] + "-" + word(3)
    return names


def make_tree(folder, names):
    """Make one case's tree under ``folder`` (str, an existing folder) and return the allowed folder's path (str); the
    file outside holds ``names["token"]`` when given.

    ::

        case/
          root/                  the allowed folder
            notes                a file
            sub/deep             a file in a folder
            inside_link -> notes         a link that stays inside
            outside_link -> ../secret    a link to a file outside
            up_link -> ..                a link to the folder above
            dangling -> ../planted       a link to a file outside that does not exist (yet)
            chain -> hop -> ../secret    two links, the second leading out
            absolute_link -> /…/secret   a link with an absolute target outside
          old/notes              a sibling whose name starts with root's
          secret                 a file outside
          alias -> root          the allowed folder reached through a link (macOS's /tmp is one)

    Raises:
        OSError: the tree could not be made (on Windows without the right to make links, say).
    """
    case = os.path.join(folder, names["case"])
    root = os.path.join(case, names["root"])
    os.makedirs(os.path.join(root, names["sub"]))
    os.makedirs(os.path.join(case, names["old"]))
    for path in (os.path.join(root, names["notes"]), os.path.join(root, names["sub"], names["deep"]),
                 os.path.join(case, names["old"], names["notes"])):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("text\n")
    with open(os.path.join(case, names["secret"]), "w", encoding="utf-8") as handle:
        handle.write(names.get("token", "the secret") + "\n")  # a reason that quotes it read outside the folder
    os.symlink(names["notes"], os.path.join(root, names["inside_link"]))
    os.symlink(os.path.join("..", names["secret"]), os.path.join(root, names["outside_link"]))
    os.symlink("..", os.path.join(root, names["up_link"]), target_is_directory=True)
    os.symlink(names["root"], os.path.join(case, names["alias"]), target_is_directory=True)
    os.symlink(os.path.join("..", names["planted"]), os.path.join(root, names["dangling"]))
    os.symlink(os.path.join("..", names["secret"]), os.path.join(root, names["hop"]))
    os.symlink(names["hop"], os.path.join(root, names["chain"]))
    os.symlink(os.path.join(case, names["secret"]), os.path.join(root, names["absolute_link"]))
    return root


def render(template, root, names):
    """The path a case hands over: ``template`` with ``{part}`` replaced by the tree's names and ``{root}`` by the
    allowed folder's path; a template that is no string (``None``, a number, a list) as it is."""
    if not isinstance(template, str):
        return template
    return template.format(**dict(names, root=root, root_name=os.path.basename(root)))


def secrets_of(path, root, names, token):
    """What a refusal's reason must not say for ``path`` (list of str): where the path really leads (absolute and
    relative to the real root), the targets of the links that lead out, the outside file's name and the ``token`` its
    contents hold, each unless the model's own ``path`` holds it (quoting the model tells it nothing new)."""
    target = real_target(path, root)
    real_root = os.path.realpath(root)
    found = [token, names["secret"], names["planted"], os.path.join(os.path.dirname(root), names["secret"])]
    if target is not None and verdict(path, root) is None:
        found += [target, os.path.relpath(target, real_root)]
    sent = path if isinstance(path, str) else ""
    return [item for item in found if item and len(item) > 3 and item not in sent]


def real_target(path, root):
    """Where ``path`` really leads from ``root`` (str, resolved like ``verdict``, inside or not), or None for a value
    that is no path: what a refusal's reason must not reveal."""
    if not isinstance(path, str) or not path or "\x00" in path:
        return None
    try:
        return os.path.realpath(os.path.join(os.path.realpath(root), path))
    except ValueError:  # a character no file name can hold (a lone surrogate: UnicodeEncodeError)
        return None


def verdict(path, root):
    """What the rules make of ``path`` for a tool confined to ``root``: the real path it leads to (str), or None when it
    must be refused. A non-empty str without NUL, joined to the real ``root`` when relative, with ``..`` and every
    symbolic link resolved (``os.path.realpath``), inside the real ``root`` by whole components; a path that cannot be
    resolved (``ValueError``: a lone surrogate) is refused."""
    if not isinstance(path, str) or not path or "\x00" in path:
        return None
    real_root = os.path.realpath(root)
    try:
        real = os.path.realpath(os.path.join(real_root, path))
    except ValueError:  # a character no file name can hold (a lone surrogate: UnicodeEncodeError)
        return None
    return real if os.path.commonpath([real, real_root]) == real_root else None

"""The folder a path case (notebook 9's ``allowed_path``) runs against: files, a sibling folder and symbolic links,
made by the grader (the submission may not make links), and the paths the cases name in it.

One tree per case, under a folder of its own in the worker's scratch folder (``grader.judging.harness.ExerciseHarness
.confined``) or, for the notebook's self-check, in a temporary folder. Its names are written out in visible cases and
drawn in hidden ones, so a table of verdicts keyed by the paths as written meets none of them.
"""

import os
import string

# What a case's path may name, as ``{key}`` in its template; ``root`` is the allowed folder's absolute path.
PARTS = ("case", "root", "notes", "sub", "deep", "inside_link", "outside_link", "up_link", "secret", "old", "alias")
# The names a visible case shows (readable), each the part's own name in a learner's words.
SHOWN = {"case": "case", "root": "workspace", "notes": "notes.txt", "sub": "reports", "deep": "q3.txt",
         "inside_link": "latest.txt", "outside_link": "shortcut.txt", "up_link": "parent", "secret": "secret.txt",
         "old": "workspace-old", "alias": "current"}


def drawn_names(generator):
    """Names for one tree, drawn from ``generator`` (``random.Random``): ``{part: name}``. The allowed folder's sibling
    starts with the allowed folder's name (``root`` + ``-old``), so a check by string prefix meets it."""
    def word(length):
        return "".join(generator.choice(string.ascii_lowercase) for _ in range(length))
    names = {part: word(generator.randint(5, 9)) for part in PARTS}
    names["notes"] += ".txt"
    names["deep"] += ".txt"
    names["secret"] += ".txt"
    names["old"] = names["root"] + "-" + word(3)
    return names


def make_tree(folder, names):
    """Make one case's tree under ``folder`` (str, an existing folder) and return the allowed folder's path (str).

    ::

        case/
          root/                  the allowed folder
            notes                a file
            sub/deep             a file in a folder
            inside_link -> notes         a link that stays inside
            outside_link -> ../secret    a link to a file outside
            up_link -> ..                a link to the folder above
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
                 os.path.join(case, names["old"], names["notes"]), os.path.join(case, names["secret"])):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("text\n")
    os.symlink(names["notes"], os.path.join(root, names["inside_link"]))
    os.symlink(os.path.join("..", names["secret"]), os.path.join(root, names["outside_link"]))
    os.symlink("..", os.path.join(root, names["up_link"]), target_is_directory=True)
    os.symlink(names["root"], os.path.join(case, names["alias"]), target_is_directory=True)
    return root


def render(template, root, names):
    """The path a case hands over: ``template`` with ``{part}`` replaced by the tree's names and ``{root}`` by the
    allowed folder's path; a template that is no string (``None``, a number, a list) as it is."""
    if not isinstance(template, str):
        return template
    return template.format(**dict(names, root=root))


def real_target(path, root):
    """Where ``path`` really leads from ``root`` (str, resolved like ``verdict``, inside or not), or None for a value
    that is no path: what a refusal's reason must not reveal."""
    if not isinstance(path, str) or not path or "\x00" in path:
        return None
    return os.path.realpath(os.path.join(os.path.realpath(root), path))


def verdict(path, root):
    """What the rules make of ``path`` for a tool confined to ``root``: the real path it leads to (str), or None when it
    must be refused. A non-empty str without NUL, joined to the real ``root`` when relative, with ``..`` and every
    symbolic link resolved (``os.path.realpath``), inside the real ``root`` by whole components."""
    if not isinstance(path, str) or not path or "\x00" in path:
        return None
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, path))
    return real if os.path.commonpath([real, real_root]) == real_root else None

"""The one module that knows the paths (``grader.paths``): what it names exists, the kit root the worker's guard
protects is the repository's root, and no other module finds a folder by climbing from its own file.

Issue 21: eleven modules found the kit root by counting ``dirname`` calls; moved one folder deeper, the folder the
guard refuses to read would silently have become ``grader/``, and ``solutions/`` readable by submissions (only
the kernel's rules, on Linux's default transport, would still have blocked it).
"""

import os
import re
import subprocess
import sys

import pytest

from grader import paths
from grader.judging.harness import Responder, Transcript
from grader.judging.scripted_models import NeverCorrects
from grader.isolation.limits import Limits
from grader.isolation.sandbox import Sandbox

REPOSITORY = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=os.path.dirname(os.path.abspath(__file__)),
                            capture_output=True, text=True).stdout.strip()


@pytest.mark.skipif(not REPOSITORY, reason="not a git checkout: the repository's root cannot be told independently")
def test_the_kit_root_is_the_repository_root():
    assert os.path.samefile(paths.KIT_ROOT, REPOSITORY)
    assert os.path.samefile(paths.GRADER_DIR, os.path.join(REPOSITORY, "grader"))
    assert os.path.samefile(paths.SOLUTIONS_DIR, os.path.join(REPOSITORY, "solutions"))


FILES = ["WORKER_PATH", "EXERCISES_PATH", "CANARY_POOLS_PATH", "VISIBLE_CHECKS_PATH", "MISCONCEPTIONS_PATH",
         "REAL_CALLS_PATH", "REQUIREMENTS_PATH"]
FOLDERS = ["KIT_ROOT", "GRADER_DIR", "CASES_DIR", "SOLUTIONS_DIR", "SOLVED_NOTEBOOKS_DIR", "NOTEBOOKS_DIR", "TESTS_DIR",
           "NOTEBOOK_TRANSLATIONS_DIR",
           "FAULTY_DIR"]


@pytest.mark.parametrize("name", FILES)
def test_every_file_it_names_exists_in_a_clone(name):
    path = getattr(paths, name)
    assert os.path.isabs(path) and os.path.isfile(path), (name, path)


@pytest.mark.parametrize("name", FOLDERS)
def test_every_folder_it_names_exists_in_a_clone(name):
    path = getattr(paths, name)
    assert os.path.isabs(path) and os.path.isdir(path), (name, path)


def test_the_license_files_are_the_repository_root_s():
    assert sorted(paths.LICENSE_PATHS) == ["LICENSE", "LICENSE-COURSE.txt"]
    for name, path in paths.LICENSE_PATHS.items():
        assert os.path.dirname(path) == paths.KIT_ROOT and os.path.isfile(path), name


# Finding a folder from a module's own file: dirname(dirname(__file__)), Path(__file__).parent.parent and the like.
CLIMBING = re.compile(r"dirname\(\s*os\.path\.dirname\(|\.parent\.parent|parents\[\d\]"
                      r"|(?:dirname|abspath|realpath|Path)\(\s*__file__")


def kit_sources():
    """Every Python file of the kit's own code and tests: not the submissions the tests grade (fixtures)."""
    fixtures = {os.path.join(paths.TESTS_DIR, name) for name in ("attacks", "hostile", "golden", "faulty", "insight")}
    for base, folders, names in os.walk(paths.KIT_ROOT):
        folders[:] = [f for f in folders if not f.startswith(".") and f != "__pycache__"
                      and os.path.join(base, f) not in fixtures]
        for name in names:
            if name.endswith(".py"):
                yield os.path.join(base, name)


def test_no_module_but_grader_paths_climbs_folders():
    sources = list(kit_sources())
    assert len(sources) > 60  # the walk found the kit (grader, course, solutions, tests, benchmarks)
    climbing = []
    for path in sources:
        if os.path.samefile(path, os.path.join(paths.GRADER_DIR, "paths.py")) or os.path.samefile(path, __file__):
            continue  # the one module that knows the paths, and this test, which checks it from outside
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if CLIMBING.search(line):
                    climbing.append(f"{os.path.relpath(path, paths.KIT_ROOT)}:{number}: {line.strip()}")
    assert climbing == [], "import the path from grader.paths instead:\n" + "\n".join(climbing)


def test_the_climbing_pattern_catches_the_ways_modules_climbed():
    for line in ['ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))',
                 'root = pathlib.Path(__file__).resolve().parent.parent',
                 'HERE = os.path.join(os.path.dirname(__file__), "data")']:
        assert CLIMBING.search(line), line
    assert not CLIMBING.search('where = getattr(module, "__file__", None)')


READS = """
import os

def attempt(action):
    try:
        action()
        return "allowed"
    except PermissionError as exc:
        return "refused: " + str(exc)
    except OSError as exc:
        return type(exc).__name__

def handle(targets):
    out = {}
    for label, path in targets:
        if label.startswith("list"):
            out[label] = attempt(lambda: os.listdir(path))
        else:
            out[label] = attempt(lambda: open(path, "rb").read(1))
    return out
"""

TARGETS = [
    ("read the reference", os.path.join(paths.SOLUTIONS_DIR, "parse.py")),
    ("list the reference", paths.SOLUTIONS_DIR),
    ("read a hidden case", os.path.join(paths.CASES_DIR, "tool_call", "test_01_parsing.py")),
    ("list the hidden cases", paths.CASES_DIR),
    ("read the kit root's README", os.path.join(paths.KIT_ROOT, "README.md")),
    ("read the canary pools", paths.CANARY_POOLS_PATH),
    ("read a model answer", os.path.join(paths.SOLUTIONS_DIR, "answers", sorted(os.listdir(os.path.join(paths.SOLUTIONS_DIR, "answers")))[0])),
    ("list the judging package", os.path.dirname(paths.CASES_DIR)),
]


@pytest.mark.parametrize("portable", [False, True], ids=["default transport", "portable transport"])
def test_a_submission_cannot_read_the_reference_or_the_cases(portable):
    """The guard's refusal is the worker's first line on every transport (the portable one has no kernel rules):
    its sentence proves the folder it protects is the kit root, with ``solutions/`` and the cases below it."""
    if not portable and not hasattr(os, "fork"):
        pytest.skip("the default transport needs POSIX")
    for _, path in TARGETS:
        assert os.path.exists(path), path  # each target is really there to be read
    sandbox = Sandbox(Limits(case_seconds=10.0), portable=portable)
    try:
        sandbox.begin_load([{"label": "reads.py", "kind": "file", "code": READS}], ["handle"])
        assert sandbox.load().fatal is None
        outcome = sandbox.run("handle", [[[list(target) for target in TARGETS]]], {},
                              Responder(Transcript(), NeverCorrects("{}"), lambda name, arguments: "ok"))
    finally:
        sandbox.close()
    assert outcome.problem is None, outcome.problem
    answers = outcome.results[0]["result"]["plain"]
    assert sorted(answers) == sorted(label for label, _ in TARGETS)
    for label, answer in answers.items():
        kind = "listing" if label.startswith("list") else "reading"
        assert answer == f"refused: the grader does not allow {kind} the kit's own files in a submission", label


@pytest.mark.skipif(sys.platform == "win32", reason="the worker's argument list is read from /proc")
def test_the_worker_is_told_the_kit_root(monkeypatch):
    """What the guard protects is what ``grader.paths`` names, passed on the worker's command line."""
    seen = []
    real = subprocess.Popen

    def spy(command, *args, **kwargs):
        seen.append(list(command))
        return real(command, *args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", spy)
    sandbox = Sandbox(Limits(case_seconds=10.0))
    try:
        sandbox.start()
    finally:
        sandbox.close()
    assert len(seen) == 1 and paths.KIT_ROOT in seen[0]
    assert seen[0][seen[0].index(paths.KIT_ROOT) - 1] == sandbox.scratch  # the argument after the scratch folder


def test_a_folder_the_layout_does_not_know_is_stray_unless_it_holds_only_caches(tmp_path):
    """What an update leaves in grader/ (issue 21): hidden cases an instructor added to the old grader/cases/ are
    stray; the bytecode caches Python kept for the old cases are not (a learner's trial: they drew a warning about
    cases the learner never added)."""
    grader = tmp_path / "grader"
    (grader / "judging").mkdir(parents=True)
    (grader / "judging" / "__init__.py").write_text('"""a package"""\n')
    (grader / "__pycache__").mkdir()
    (grader / "cases" / "tool_call" / "__pycache__").mkdir(parents=True)
    (grader / "cases" / "tool_call" / "__pycache__" / "test_01_parsing.cpython-311.pyc").write_bytes(b"\0")
    assert paths.stray_folders(str(grader)) == []
    (grader / "cases" / "tool_call" / "test_local.py").write_text("def test_mine(): pass\n")
    (grader / "notes").mkdir()
    (grader / "notes" / "todo.txt").write_text("x")
    assert paths.stray_folders(str(grader)) == ["cases", "notes"]
    assert paths.stray_sentence(["cases"]).startswith("grader/cases/ is not part of the grader's layout, so nothing in "
                                                      "it is run (hidden cases live in grader/judging/cases/")
    assert paths.stray_folders() == []  # this clone is clean

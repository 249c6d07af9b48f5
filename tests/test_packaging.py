"""The installable kit: `pip install .` into a fresh virtual environment gives commands that work from any folder.

The venv is made in a temporary folder (never the kit's own .venv) from a copy of the kit's files, so
the build leaves nothing in the clone. Installing needs PyPI (setuptools for the build, the kit's few
dependencies); without a network the install tests skip and say why.
"""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from test_golden import GOLDEN, normalise

import grader
from points import available, golden, shown

NETWORK_ERRORS = ("Failed to establish a new connection", "Temporary failure in name resolution",
                  "No matching distribution found", "Could not find a version that satisfies", "Network is unreachable")
# What a source copy leaves out: the clone's own environment and caches, build output, anything not the kit's.
COPY_IGNORE = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.pyc", "build", "*.egg-info", "artifacts",
                                     ".pytest_cache", ".ipynb_checkpoints")


def venv_python(venv):
    """The Python executable of a virtual environment (str)."""
    return os.path.join(venv, "Scripts" if os.name == "nt" else "bin", "python")


def make_venv(folder, *requirements):
    """Create a venv in ``folder`` and ``pip install`` ``requirements`` into it; skip the test without a network.

    Returns:
        the venv's Python (str).
    """
    subprocess.run([sys.executable, "-m", "venv", folder], check=True, capture_output=True)
    python = venv_python(folder)
    process = subprocess.run([python, "-m", "pip", "install", "--disable-pip-version-check", "-q", *requirements],
                             capture_output=True, text=True, timeout=900)
    if process.returncode != 0:
        if any(error in process.stdout + process.stderr for error in NETWORK_ERRORS):
            pytest.skip("pip could not reach the package index: " + process.stderr.strip().splitlines()[-1])
        raise AssertionError(f"pip install failed:\n{process.stdout[-3000:]}\n{process.stderr[-3000:]}")
    return python


def source_copy(folder):
    """A copy of the kit's files in ``folder`` (what a fresh clone holds), to build from (str)."""
    shutil.copytree(ROOT, folder, ignore=COPY_IGNORE)
    return folder


@pytest.fixture(scope="session")
def installed_kit(tmp_path_factory):
    """A fresh venv with the kit installed by `pip install <kit>`: yields its Python."""
    base = tmp_path_factory.mktemp("installed-kit")
    return make_venv(str(base / "venv"), source_copy(str(base / "src")))


def run(python, *args, cwd):
    return subprocess.run([python, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def test_the_installed_kit_grades_a_golden_example_from_another_folder(installed_kit, tmp_path):
    work = tmp_path / "somewhere" / "else"
    work.mkdir(parents=True)
    shutil.copy(os.path.join(GOLDEN, "seed_sample", "submission.py"), work / "submission.py")
    process = run(installed_kit, "-m", "grader", "submission.py", "--results", "results.json", cwd=work)
    assert process.returncode == 0, process.stderr
    with open(os.path.join(GOLDEN, "seed_sample", "expected_results.json"), encoding="utf-8") as handle:
        expected = json.load(handle)
    assert normalise(json.loads((work / "results.json").read_text(encoding="utf-8"))) == expected
    # The console script is the same command.
    script = os.path.join(os.path.dirname(installed_kit), "toolcall-grade")
    again = subprocess.run([script, "submission.py"], cwd=work, capture_output=True, text=True, timeout=600)
    assert again.stdout.startswith("Grading submission.py\nScore: {:g} / {:g}".format(*golden("seed_sample"))), again.stdout + again.stderr


def test_every_command_reports_the_one_version(installed_kit, tmp_path):
    bin_dir = os.path.dirname(installed_kit)
    for command in ("toolcall-grade", "toolcall-batch", "toolcall-gradescope", "toolcall-release", "toolcall-nbgrader"):
        process = subprocess.run([os.path.join(bin_dir, command), "--version"], cwd=tmp_path, capture_output=True,
                                 text=True, timeout=120)
        assert process.stdout.strip() == f"tool-call-kit {grader.__version__}", (command, process.stderr)
    module = run(installed_kit, "-m", "grader", "--version", cwd=tmp_path)
    assert module.stdout.strip() == f"tool-call-kit {grader.__version__}"


def test_the_installed_kit_grades_a_class_and_hands_out_a_release_from_another_folder(installed_kit, tmp_path):
    submissions = tmp_path / "submitted"
    (submissions / "alice").mkdir(parents=True)
    shutil.copy(os.path.join(GOLDEN, "seed_sample", "submission.py"), submissions / "alice" / "ps1.py")
    batch = run(installed_kit, "-m", "grader.batch", "submitted", "--out", "graded", "--no-progress", cwd=tmp_path)
    assert batch.returncode == 0, batch.stderr
    assert "alice,{:g},".format(golden("seed_sample")[0]) in (tmp_path / "graded" / "gradebook.csv").read_text(encoding="utf-8")
    release = run(installed_kit, "-m", "course.release", "handout", "--notebooks", "01", cwd=tmp_path)
    assert release.returncode == 0, release.stderr
    assert sorted(os.listdir(tmp_path / "handout" / "notebooks")) == ["01_parsing.ipynb"]
    assert (tmp_path / "handout" / "LICENSE").read_text() == open(os.path.join(ROOT, "LICENSE")).read()
    assert not (tmp_path / "handout" / "solutions").exists()


def test_the_distribution_holds_the_three_packages_and_the_licenses(installed_kit):
    """The decision in docs/instructors.md: grader, course and solutions; no tests, no learner working copy."""
    listing = subprocess.run([installed_kit, "-c", "import importlib.metadata as m, json; d = m.distribution("
                              "'tool-call-kit'); print(json.dumps([str(f) for f in d.files]))"],
                             capture_output=True, text=True, check=True)
    files = json.loads(listing.stdout)
    top = {f.split("/")[0] for f in files if not f.startswith(("..", "tool_call_kit-"))}
    assert top == {"grader", "course", "solutions"}
    assert "grader/judging/cases/tool_call/test_01_parsing.py" in files and "grader/judging/canary_pools.json" in files
    assert "solutions/notebooks/05_capstone.ipynb" in files
    assert {f.split("/")[-1] for f in files if "/licenses/" in f} == {"LICENSE", "LICENSE-COURSE.txt"}


def _requirement_ranges(lines):
    ranges = {}
    for line in lines:
        line = line.split("#")[0].strip()
        if line:
            name = re.split(r"[<>=!~\[ ;]", line, maxsplit=1)[0].lower()
            ranges[name] = line[len(name):].replace(" ", "")
    return ranges


def test_pyproject_pins_the_same_ranges_as_requirements_txt():
    """CI installs from requirements.txt, `pip install .` from pyproject.toml: the two must not drift."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 and newer
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        project = tomllib.load(handle)["project"]
    with open(os.path.join(ROOT, "requirements.txt"), encoding="utf-8") as handle:
        pinned = _requirement_ranges(handle)
    declared = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    for name, spec in _requirement_ranges(declared).items():
        assert pinned.get(name) == spec, f"{name}: pyproject.toml says {spec}, requirements.txt {pinned.get(name)}"
    assert project["requires-python"] == ">=3.10"
    assert project["license"] == "MIT AND CC-BY-4.0"


def test_the_version_is_defined_once():
    """Every other place reads grader.__version__; a second literal would drift."""
    assert re.fullmatch(r"\d+\.\d+\.\d+", grader.__version__)
    found = []
    for folder in ("grader", "course", "solutions"):
        for base, _, names in os.walk(os.path.join(ROOT, folder)):
            for name in names:
                if name.endswith(".py"):
                    text = open(os.path.join(base, name), encoding="utf-8").read()
                    if f'"{grader.__version__}"' in text:
                        found.append(os.path.relpath(os.path.join(base, name), ROOT))
    assert found == [os.path.join("grader", "__init__.py")]
    changelog = open(os.path.join(ROOT, "CHANGELOG.md"), encoding="utf-8").read()
    assert f"## {grader.__version__}" in changelog

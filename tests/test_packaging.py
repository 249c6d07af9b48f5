"""The installable kit: `pip install .` into a fresh virtual environment gives commands that work from any folder.

The venv is made in a temporary folder (never the kit's own .venv) from a copy of the kit's files, so
the build leaves nothing in the clone. Installing needs PyPI (setuptools for the build, the kit's few
dependencies); without a network the install tests skip and say why. The tests that build venvs of their own
are marked ``install``.

The requirement files by role (issue 22) are checked here too: pyproject.toml's dependencies and extras equal
requirements.txt and requirements-insight.txt, the Gradescope bundle installs the same dependencies, every
module the kit ships imports only what its command's set declares, and requirements-lock.txt pins each ranged
package inside its range on every Python from 3.10 to 3.13.
"""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT
from points import available, golden
from test_golden import GOLDEN, normalise

import grader

NETWORK_ERRORS = ("Failed to establish a new connection", "Temporary failure in name resolution",
                  "No matching distribution found", "Could not find a version that satisfies", "Network is unreachable")
def ready_venv(name):
    """The Python of the session's venv ``name`` (``tests/venvs.py``, built in the background); skips the test
    without a network."""
    import venvs

    python, reason = venvs.built(name, NETWORK_ERRORS)
    if python is None:
        pytest.skip(reason)
    return python


@pytest.fixture(scope="session")
def installed_kit():
    """A fresh venv with the kit installed by `pip install <kit>`: yields its Python."""
    return ready_venv("kit")


def run(python, *args, cwd):
    return subprocess.run([python, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.mark.install
def test_the_installed_kit_grades_a_golden_example_from_another_folder(installed_kit, tmp_path):
    work = tmp_path / "somewhere" / "else"
    work.mkdir(parents=True)
    shutil.copy(os.path.join(GOLDEN, "seed_sample", "submission.py"), work / "submission.py")
    process = run(installed_kit, "-m", "grader", "submission.py", "--results", "results.json", "--seed", "golden",
                  cwd=work)  # the goldens' seed (tests/test_golden.py)
    assert process.returncode == 0, process.stderr
    with open(os.path.join(GOLDEN, "seed_sample", "expected_results.json"), encoding="utf-8") as handle:
        expected = json.load(handle)
    assert normalise(json.loads((work / "results.json").read_text(encoding="utf-8"))) == expected
    # The console script is the same command.
    script = os.path.join(os.path.dirname(installed_kit), "toolcall-grade")
    again = subprocess.run([script, "submission.py"], cwd=work, capture_output=True, text=True, timeout=600)
    assert again.stdout.startswith("Grading submission.py\nScore: {:g} / {:g}".format(*golden("seed_sample"))), again.stdout + again.stderr


@pytest.mark.install
def test_every_command_reports_the_one_version(installed_kit, tmp_path):
    bin_dir = os.path.dirname(installed_kit)
    for command in ("toolcall-grade", "toolcall-batch", "toolcall-gradescope", "toolcall-release", "toolcall-nbgrader"):
        process = subprocess.run([os.path.join(bin_dir, command), "--version"], cwd=tmp_path, capture_output=True,
                                 text=True, timeout=120)
        assert process.stdout.strip() == f"tool-call-kit {grader.__version__}", (command, process.stderr)
    module = run(installed_kit, "-m", "grader", "--version", cwd=tmp_path)
    assert module.stdout.strip() == f"tool-call-kit {grader.__version__}"


@pytest.mark.install
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


@pytest.mark.install
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
    assert "grader/translations/ru/LC_MESSAGES/toolcall.mo" in files  # the Russian texts (issue 29)
    assert {f.split("/")[-1] for f in files if "/licenses/" in f} == {"LICENSE", "LICENSE-COURSE.txt"}


def _requirement_ranges(lines):
    """``{package: range}`` of requirement lines (a file's, or pyproject's list); ``-r``/``-c`` lines left out."""
    ranges = {}
    for line in lines:
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            name = re.split(r"[<>=!~\[ ;]", line, maxsplit=1)[0].lower()
            ranges[name] = line[len(name):].replace(" ", "")
    return ranges


def requirement_file(name):
    """``(ranges, included files)`` of one of the kit's requirement files: its own lines' ``{package: range}``
    and the files it includes with ``-r`` (list of str)."""
    with open(os.path.join(ROOT, name), encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    return _requirement_ranges(lines), [line.split()[1] for line in lines if line.startswith("-r ")]


def pyproject():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 and newer
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        return tomllib.load(handle)["project"]


# The requirement files by role: the learner's (README command one), the class report's, the tests' (command two).
LEARNER, LEARNER_INCLUDES = requirement_file("requirements.txt")
INSIGHT, INSIGHT_INCLUDES = requirement_file("requirements-insight.txt")
TEST_TOOLS, TEST_INCLUDES = requirement_file("requirements-test.txt")
RANGED = {**LEARNER, **INSIGHT, **TEST_TOOLS}


def test_the_requirement_files_split_by_role():
    """Command one installs what a learner runs and grades the notebooks with; the test set adds the rest."""
    assert set(LEARNER) == {"jupyter", "jupyterlab", "ipywidgets", "nbformat", "ipython", "pytest", "tqdm", "psutil"}
    assert set(INSIGHT) == {"matplotlib", "numpy", "copydetect", "markupsafe"}
    assert set(TEST_TOOLS) == {"nbclient", "nbval", "playwright", "jsonschema", "hypothesis", "pytest-xdist", "regress",
                               "pydantic", "babel"}
    assert LEARNER_INCLUDES == INSIGHT_INCLUDES == []
    assert TEST_INCLUDES == ["requirements.txt", "requirements-insight.txt"]
    assert len(RANGED) == len(LEARNER) + len(INSIGHT) + len(TEST_TOOLS)  # no package in two roles


def test_pyproject_declares_the_ranges_of_the_requirement_files():
    """CI installs from the requirement files, `pip install .` from pyproject.toml: the two must not drift."""
    from grader.results.provenance import GRADING_PACKAGES

    project = pyproject()
    extras = project["optional-dependencies"]
    assert set(extras) == {"notebooks", "insight"}
    dependencies = _requirement_ranges(project["dependencies"])
    assert set(dependencies) == set(GRADING_PACKAGES) == {"nbformat", "ipython", "pytest", "tqdm", "psutil"}
    assert {**dependencies, **_requirement_ranges(extras["notebooks"])} == LEARNER
    assert len(project["dependencies"]) + len(extras["notebooks"]) == len(LEARNER)
    assert _requirement_ranges(extras["insight"]) == INSIGHT
    assert dependencies["ipython"] == ">=8.0,<10"  # the notebook reader's transformer of magics
    assert project["requires-python"] == ">=3.10"
    assert project["license"] == "MIT AND CC-BY-4.0"


def test_the_gradescope_bundle_installs_what_grading_needs_with_the_same_ranges():
    """The bundle pinned pytest>=8.0 while requirements.txt said >=8.4: its list now comes from the same ranges."""
    from grader.classroom.gradescope_bundle import bundle_files, grader_requirements

    bundled = grader_requirements()
    assert _requirement_ranges(bundled.splitlines()) == _requirement_ranges(pyproject()["dependencies"])
    assert "pytest>=8.4,<10\n" in bundled and "ipython>=8.0,<10\n" in bundled
    assert bundle_files()["requirements-grader.txt"] == (bundled.encode(), False)


def locked():
    """The lock's lines as ``packaging`` requirements (list)."""
    from packaging.requirements import Requirement

    with open(os.path.join(ROOT, "requirements-lock.txt"), encoding="utf-8") as handle:
        return [Requirement(line.split("#")[0].strip()) for line in handle if line.split("#")[0].strip()]


LOCK_PYTHONS = ("3.10", "3.11", "3.12", "3.13")


def python_environment(version, platform):
    """A marker environment for Python ``version`` (``"3.12"``) on ``platform`` (``sys.platform``'s values)."""
    return {"python_version": version, "python_full_version": version + ".5", "sys_platform": platform,
            "os_name": "nt" if platform == "win32" else "posix", "implementation_name": "cpython",
            "platform_python_implementation": "CPython", "platform_system": {"win32": "Windows", "darwin": "Darwin",
                                                                              "linux": "Linux"}[platform],
            "platform_machine": "x86_64", "platform_release": "", "platform_version": "", "extra": ""}


def test_every_locked_package_satisfies_its_range_and_every_ranged_package_is_locked():
    """requirements-lock.txt pins exact versions for CI; the ranges stay for users. On every Python the kit supports
    (3.10 to 3.13) and every system, each ranged package has exactly one pin, inside its range."""
    from packaging.specifiers import SpecifierSet
    from packaging.utils import canonicalize_name

    lock = locked()
    assert len(lock) > len(RANGED)  # the ranged packages and everything they need
    for requirement in lock:
        assert len(requirement.specifier) == 1 and next(iter(requirement.specifier)).operator == "==", str(requirement)
    ranges = {canonicalize_name(name): SpecifierSet(spec) for name, spec in RANGED.items()}
    for version in LOCK_PYTHONS:
        for platform in ("linux", "win32", "darwin"):
            environment = python_environment(version, platform)
            pins = {}
            for requirement in lock:
                if requirement.marker is None or requirement.marker.evaluate(environment):
                    name = canonicalize_name(requirement.name)
                    assert name not in pins, f"{name} is pinned twice for Python {version} on {platform}"
                    pins[name] = next(iter(requirement.specifier)).version
            for name, spec in ranges.items():
                assert name in pins, f"{name} is ranged but not locked for Python {version} on {platform}"
                assert spec.contains(pins[name], prereleases=True), f"{name}=={pins[name]} is outside {spec}"
    # A lock built on 3.11 alone held ipython 9 and numpy 2.4, which do not install on Python 3.10.
    ipython = {str(r.marker): str(r.specifier) for r in lock if r.name == "ipython"}
    assert ipython['python_full_version < "3.11"'].startswith("==8.")


def test_ci_and_the_readme_install_the_test_set_with_the_lock():
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as handle:
        ci = handle.read()
    lines = ci.splitlines()
    install = lines.index("python3 -m venv .venv && .venv/bin/pip install -q -r requirements-test.txt -c requirements-lock.txt")
    suite = lines.index(".venv/bin/python -m pytest || status=$?")  # the README's command, its status kept
    assert install < suite and lines[-1] == 'exit "$status"'
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    assert ".venv/bin/python -m pip install -r requirements.txt && .venv/bin/jupyter lab notebooks" in readme
    assert ".venv/bin/python -m pip install -r requirements-test.txt -c requirements-lock.txt" in readme
    assert ".venv\\Scripts\\python -m pip install -r requirements-test.txt -c requirements-lock.txt" in readme
    with open(os.path.join(ROOT, "requirements-lock.txt"), encoding="utf-8") as handle:
        refresh = handle.read().splitlines()[1].lstrip("# ")  # the header uv writes: the command that made it
    assert refresh.startswith("uv pip compile --universal --python-version 3.10 ") and f"`{refresh}`" in readme


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


# -- what each shipped module imports, by the role of the command it serves ----------------------------------

SHIPPED = ("grader", "course", "solutions")
# Modules that serve one extra: the learner's widgets and progress (in a kernel, beside JupyterLab) and the class report.
EXTRA_OF = {"grader.learner": "notebooks", "grader.widgets": "notebooks", "grader.selfcheck": "notebooks",
            "grader.insight": "insight"}
# Developer tools run in a clone with the test set (requirements-test.txt), never by a learner or a grading machine:
# the message catalogs' extraction and compilation (the kit reads the compiled catalogs with gettext).
DEVELOPER_TOOLS = {"course.catalogs"}
# Packages that an extra brings with it, imported only where they are: a kernel's, JupyterLab's server.
BROUGHT_BY = {"ipykernel": "jupyter", "jupyter_server": "jupyterlab"}


def shipped_modules():
    """``{dotted name: path}`` of every module the distribution ships (the cases are data pytest collects)."""
    found = {}
    for package in SHIPPED:
        for base, folders, names in os.walk(os.path.join(ROOT, package)):
            folders[:] = sorted(f for f in folders if f not in ("__pycache__", "cases", "notebooks", "answers"))
            for name in sorted(names):
                if name.endswith(".py"):
                    dotted = os.path.relpath(os.path.join(base, name), ROOT)[:-3].replace(os.sep, ".")
                    found[dotted.removesuffix(".__init__")] = os.path.join(base, name)
    return found


def third_party_imports(path):
    """The top-level names of every package ``path`` imports anywhere (functions included) that is neither the
    standard library's nor the kit's (set of str)."""
    import ast

    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in SHIPPED and not n.startswith("_")}


def test_every_shipped_module_imports_only_what_its_role_declares():
    """grader.insight imported numpy and markupsafe, which only copydetect brought along: each import must be
    declared by pyproject.toml for the command it serves (the dependencies, or that module's extra)."""
    import importlib.metadata

    project = pyproject()
    declared = {None: _requirement_ranges(project["dependencies"])}
    for extra, lines in project["optional-dependencies"].items():
        declared[extra] = {**declared[None], **_requirement_ranges(lines)}
    distributions = importlib.metadata.packages_distributions()
    found = {}
    declared["developer"] = {**declared[None], **TEST_TOOLS}
    for module, path in shipped_modules().items():
        extra = next((e for prefix, e in EXTRA_OF.items() if module == prefix or module.startswith(prefix + ".")), None)
        extra = "developer" if module in DEVELOPER_TOOLS else extra
        for name in third_party_imports(path):
            found.setdefault(module, set()).add(name)
            providers = {d.lower() for d in distributions.get(name, [])} | {BROUGHT_BY.get(name)}
            assert providers & set(declared[extra]), (
                f"{module} imports {name} ({sorted(d for d in providers if d)}), which pyproject.toml does not "
                f"declare for {'its ' + extra + ' extra' if extra else 'grading'}")
    assert found["grader.insight.similarity"] == {"numpy", "copydetect", "markupsafe"}
    assert found["grader.intake.extract"] == {"IPython", "nbformat"}
    assert found["grader.learner.widgets"] == {"ipywidgets"}
    assert found["course.catalogs"] == {"babel", "nbformat"}  # Babel for the catalogs, nbformat to read the notebooks


@pytest.fixture(scope="session")
def installed_kit_with_insight():
    """A fresh venv with `pip install "<kit>[insight]"`: yields its Python."""
    return ready_venv("kit-insight")


def documented_shipped_commands():
    """The documented ``python -m`` commands of the shipped packages (the benchmarks stay in a clone)."""
    from test_commands import COMMANDS

    return sorted(module for module in COMMANDS if module.split(".")[0] in SHIPPED)


IMPORT_EACH = """
import importlib, json, sys
failed = {}
for module in sys.argv[1:]:
    try:
        importlib.import_module(module)
    except Exception as exc:
        failed[module] = f"{type(exc).__name__}: {exc}"
print(json.dumps(failed))
"""


@pytest.mark.install
def test_the_installed_kit_starts_every_documented_command_from_its_declared_dependencies(installed_kit, tmp_path):
    """Without any extra, from another folder: every documented command starts (`--help`), every shipped module
    imports, except the learner's widgets, which need the notebooks extra (ipywidgets), and say so."""
    commands = documented_shipped_commands()
    assert {"grader", "grader.batch", "grader.gradescope", "grader.insight", "course.release",
            "course.misconceptions"} <= set(commands)
    for module in commands:
        process = run(installed_kit, "-m", module, "--help", cwd=tmp_path)
        assert process.returncode == 0 and "Traceback" not in process.stderr, (module, process.stderr[-2000:])
        assert process.stdout.startswith(f"usage: python -m {module}"), (module, process.stdout[:200])
    bin_dir = os.path.dirname(installed_kit)
    for script in ("toolcall-grade", "toolcall-batch", "toolcall-gradescope", "toolcall-release", "toolcall-nbgrader"):
        process = subprocess.run([os.path.join(bin_dir, script), "--help"], cwd=tmp_path, capture_output=True,
                                 text=True, timeout=120)
        assert process.returncode == 0 and process.stdout.startswith("usage: "), (script, process.stderr[-2000:])
    modules = [m for m in shipped_modules() if not m.endswith("__main__") and m != "grader.isolation.worker"]
    process = run(installed_kit, "-c", IMPORT_EACH, *modules, cwd=tmp_path)
    assert process.returncode == 0, process.stderr[-2000:]
    assert json.loads(process.stdout) == {"grader.learner.widgets": "ModuleNotFoundError: No module named 'ipywidgets'",
                                          "grader.widgets": "ModuleNotFoundError: No module named 'ipywidgets'"}


@pytest.mark.install
def test_a_command_the_installed_kit_cannot_serve_says_why_in_one_sentence(installed_kit, tmp_path):
    """The class report without its extra crashed with "No module named 'matplotlib'"; the known mistakes'
    generator needs the faulty library of a clone. Each says so in one sentence and exits 2, no traceback."""
    (tmp_path / "graded" / "results").mkdir(parents=True)
    insight = run(installed_kit, "-m", "grader.insight", "graded", cwd=tmp_path)
    assert (insight.returncode, insight.stdout) == (2, "")
    assert insight.stderr == ("error: python -m grader.insight needs the kit's insight extra, and matplotlib is not "
                              'installed: pip install "/path/to/the/kit[insight]" (in a clone: pip install -r '
                              "requirements-insight.txt).\n")
    misconceptions = run(installed_kit, "-m", "course.misconceptions", "--check", cwd=tmp_path)
    assert (misconceptions.returncode, misconceptions.stdout) == (2, "")
    assert misconceptions.stderr.startswith("error: python -m course.misconceptions needs a clone of the kit: it "
                                            "grades the faulty library in tests/faulty/, which an installed kit does not have")
    assert misconceptions.stderr.count("\n") == 1 and "Traceback" not in misconceptions.stderr
    # Found by an instructor's trial: the course check crashed on the missing notebooks/, the build's --check called
    # every notebook "out of date" (exit 1) and the build itself tried to write them into site-packages.
    notebooks = run(installed_kit, "-c", "import grader.paths as p; print(p.NOTEBOOKS_DIR)", cwd=tmp_path).stdout.strip()
    assert notebooks.endswith(os.path.join("site-packages", "notebooks"))
    for command, work in ((["course.check"], "grades each learner notebook's stub"),
                          (["course.build", "--check"], "writes the learner notebooks"),
                          (["course.build"], "writes the learner notebooks")):
        process = run(installed_kit, "-m", *command, cwd=tmp_path)
        assert (process.returncode, process.stdout) == (2, ""), (command, process.stdout, process.stderr[-2000:])
        assert process.stderr.startswith(f"error: python -m {command[0]} needs a clone of the kit: it {work} in "
                                         "notebooks/, which an installed kit does not have ("), command
        assert process.stderr.count("\n") == 1, command
    assert not os.path.exists(notebooks)


def magics_notebook(path):
    """A correct capstone (tests/faulty/base.py) in cells with IPython magics, as a learner's notebook may hold."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    with open(os.path.join(ROOT, "tests", "faulty", "base.py"), encoding="utf-8") as handle:
        helpers, _, entry = handle.read().partition("def handle_tool_call(raw, ask_model):")
    cells = ["%load_ext autoreload", "%%time\n" + helpers, "%time x = 1",
             "%%time\ndef handle_tool_call(raw, ask_model):" + entry]
    nbformat.write(new_notebook(cells=[new_code_cell(source) for source in cells]), path)
    return path


@pytest.mark.install
def test_the_installed_kit_grades_a_notebook_with_magics_as_the_clone_does(installed_kit_with_insight, tmp_path):
    """After `pip install .` a notebook with a %%time cell scored 0/129 (IPython was not a dependency) while the
    clone gave it full marks. Graded from another folder, the installed kit's results equal the clone's."""
    work = tmp_path / "elsewhere"
    work.mkdir()
    magics_notebook(work / "magic.ipynb")
    # One seed for both: the same hidden inputs, so the same results.
    installed = run(installed_kit_with_insight, "-m", "grader", "magic.ipynb", "--results", "installed.json",
                    "--seed", "magic", cwd=work)
    assert installed.returncode == 0, installed.stderr[-2000:]
    clone = subprocess.run([sys.executable, "-m", "grader", str(work / "magic.ipynb"), "--results",
                            str(tmp_path / "clone.json"), "--seed", "magic"], cwd=ROOT, capture_output=True, text=True,
                           timeout=600)
    assert clone.returncode == 0, clone.stderr[-2000:]
    results = {name: json.loads(path.read_text(encoding="utf-8"))
               for name, path in (("installed", work / "installed.json"), ("clone", tmp_path / "clone.json"))}
    assert results["clone"]["score"] == available("capstone") > 0
    assert normalise(results["installed"]) == normalise(results["clone"])
    assert "IPython is not installed" not in installed.stdout


@pytest.mark.install
def test_the_installed_kit_with_its_insight_extra_writes_the_class_report(installed_kit_with_insight, tmp_path):
    submitted = tmp_path / "submitted"
    for student in ("alice", "bob"):
        (submitted / student).mkdir(parents=True)
        shutil.copy(os.path.join(GOLDEN, "seed_sample", "submission.py"), submitted / student / "ps1.py")
    batch = run(installed_kit_with_insight, "-m", "grader.batch", "submitted", "--out", "graded", "--no-progress",
                cwd=tmp_path)
    assert batch.returncode == 0, batch.stderr[-2000:]
    report = run(installed_kit_with_insight, "-m", "grader.insight", "graded", "--submissions", "submitted",
                 cwd=tmp_path)
    assert report.returncode == 0 and "Traceback" not in report.stderr, report.stderr[-2000:]
    assert report.stdout.startswith("Class report of 2 students: graded/insight/report.html")
    assert "1 alike pair(s)" in report.stdout  # the same file twice: the similarity step ran (copydetect, numpy)
    assert (tmp_path / "graded" / "insight" / "report.html").read_text(encoding="utf-8").count("data:image/png") >= 1

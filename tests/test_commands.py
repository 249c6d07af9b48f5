"""Every documented command keeps working under its documented name (issue 21: the grader moved into packages).

The commands are read from where users read them: the README, docs/, the learner notebooks, and the files the kit
generates (Gradescope's ``run_autograder``, nbgrader's test cells: their templates live in the kit's code). Each
``python -m MODULE`` of the kit must start and print its usage under that same name; each console script of
``pyproject.toml`` must name a function that exists.
"""

import glob
import importlib
import os
import re
import subprocess
import sys

import pytest

from grader.paths import KIT_ROOT

KIT_PACKAGES = ("grader", "course", "benchmarks")
COMMAND = re.compile(r"python3?(?: -I)? -m ((?:" + "|".join(KIT_PACKAGES) + r")(?:\.[a-z_]+)*)(?![\w.])")
READ_BY_USERS = ["README.md", "docs/*.md", "notebooks/*.ipynb", "grader/**/*.py", "course/*.py", "benchmarks/*.py"]
# The files the kit generates hold these commands too; their templates are in the modules above.
GENERATED = {"grader.gradescope": "grader/classroom/gradescope_bundle.py", "grader.autograde": "course/nbgrader.py",
             "grader.prairielearn": "grader/classroom/prairielearn_question.py"}


def documented_commands():
    """``{module: [files that document it]}`` for every ``python -m`` of the kit that users are told to run."""
    found = {}
    for pattern in READ_BY_USERS:
        for path in sorted(glob.glob(os.path.join(KIT_ROOT, pattern), recursive=True)):
            if "__pycache__" in path or os.sep + "cases" + os.sep in path:
                continue
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            for module in COMMAND.findall(text.replace('", "', " ")):  # also [sys.executable, "-m", "grader.batch"]
                found.setdefault(module, []).append(os.path.relpath(path, KIT_ROOT))
    return found


COMMANDS = documented_commands()


def test_the_commands_are_found_where_users_read_them():
    expected = {"grader", "grader.batch", "grader.gradescope", "grader.prairielearn", "grader.autograde", "grader.insight", "grader.learner",
                "course.release", "course.nbgrader", "course.build", "course.check", "course.misconceptions",
                "course.visible_checks", "benchmarks.grading_speed"}
    assert expected <= set(COMMANDS), sorted(expected - set(COMMANDS))
    for module, generator in GENERATED.items():
        assert generator in COMMANDS[module], (module, COMMANDS[module])


@pytest.mark.parametrize("module", sorted(COMMANDS))
def test_each_documented_command_runs_under_its_documented_name(module):
    process = subprocess.run([sys.executable, "-m", module, "--help"], cwd=KIT_ROOT, capture_output=True, text=True,
                             timeout=120)
    assert process.returncode == 0, (module, COMMANDS[module], process.stderr[-2000:])
    assert "Traceback" not in process.stderr
    name = module.rpartition(".")[2] + ".py" if module.startswith("benchmarks.") else f"python -m {module}"
    assert process.stdout.startswith(f"usage: {name}"), (module, process.stdout[:200])


def test_each_console_script_names_a_function_that_exists():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 and newer
    with open(os.path.join(KIT_ROOT, "pyproject.toml"), "rb") as handle:
        scripts = tomllib.load(handle)["project"]["scripts"]
    assert set(scripts) == {"toolcall-grade", "toolcall-batch", "toolcall-gradescope", "toolcall-prairielearn", "toolcall-release",
                            "toolcall-nbgrader"}
    for name, target in scripts.items():
        module, _, function = target.partition(":")
        assert callable(getattr(importlib.import_module(module), function, None)), (name, target)

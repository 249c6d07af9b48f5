"""The grader's layout: packages along the data flow, each a trust boundary (docs/grader.md).

Issue 21: 37 modules in one flat folder mixed six concerns, and one import cycle had grown. These tests keep the
folders meaning what docs/grader.md says: the trusted core (intake, isolation, judging, results) never reaches
into the tools beside it (classroom, learner, insight), isolation depends on nothing but itself, the worker on
nothing of the grader, no module imports one that imports it back, and the top folder holds only the pipeline,
the paths and thin command entries.
"""

import ast
import os

import pytest

from grader.paths import GRADER_DIR

CORE = ("intake", "isolation", "judging", "results")
BESIDE = ("classroom", "learner", "insight")
# Shared by every layer, as grader/paths.py is: the learner's language and the message catalogs (issue 29). Standard
# library only, and it imports nothing of the grader but the paths.
SHARED = ("translations",)
# The top folder: the package, ``python -m grader``, the paths, the pipeline, the commands kept by name, and the
# two names notebooks saved with kit 2.0.0 import (aliases of the moved modules).
TOP = {"__init__.py", "__main__.py", "paths.py", "pipeline.py", "batch.py", "gradescope.py", "prairielearn.py", "autograde.py",
       "selfcheck.py", "widgets.py"}
THIN_COMMANDS = {"batch.py": "grader.classroom.batch", "gradescope.py": "grader.classroom.gradescope_bundle",
                 "prairielearn.py": "grader.classroom.prairielearn_question",
                 "autograde.py": "grader.classroom.nbgrader_entry"}
OLD_NAMES = {"selfcheck.py": "grader.learner.selfcheck", "widgets.py": "grader.learner.widgets"}


def grader_modules():
    """``{dotted name: path}`` of every module of the grader (the cases are pytest's, not modules of it)."""
    found = {}
    for base, folders, names in os.walk(GRADER_DIR):
        folders[:] = sorted(f for f in folders if f not in ("__pycache__", "cases"))
        for name in names:
            if name.endswith(".py"):
                relative = os.path.relpath(os.path.join(base, name), os.path.dirname(GRADER_DIR))
                dotted = relative[:-3].replace(os.sep, ".")
                found[dotted[: -len(".__init__")] if dotted.endswith(".__init__") else dotted] = os.path.join(base, name)
    return found


MODULES = grader_modules()


def imports_of(path):
    """The grader modules ``path`` imports anywhere in it, functions included (set of dotted names)."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("grader"):
            out.update(name for name in [node.module, *(f"{node.module}.{a.name}" for a in node.names)] if name in MODULES)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in MODULES)
    return out - {"grader"}  # the package itself holds only the version


GRAPH = {module: imports_of(path) - {module} for module, path in MODULES.items()}


def package_of(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in CORE + BESIDE else "(top)"


def test_the_walk_finds_the_grader():
    assert {"grader.pipeline", "grader.isolation.worker", "grader.judging.harness", "grader.learner.selfcheck"} <= set(MODULES)
    assert len(MODULES) > 40 and any(GRAPH.values())


def test_no_module_imports_one_that_imports_it_back():
    def cycle_from(start):
        stack = [(start, [start])]
        while stack:
            module, trail = stack.pop()
            for target in GRAPH[module]:
                if target == start:
                    return trail + [start]
                if target not in trail and len(trail) < 30:
                    stack.append((target, trail + [target]))
        return None

    cycles = [cycle for cycle in map(cycle_from, sorted(GRAPH)) if cycle]
    assert cycles == [], " -> ".join(cycles[0])


def test_the_cycle_finder_finds_a_cycle():
    GRAPH["grader.judging.registries"].add("grader.judging.visible_cases")  # visible_cases imports registries
    try:
        with pytest.raises(AssertionError, match="registries -> grader.judging.visible_cases"):
            test_no_module_imports_one_that_imports_it_back()
    finally:
        GRAPH["grader.judging.registries"].discard("grader.judging.visible_cases")


@pytest.mark.parametrize("package", CORE)
def test_the_trusted_core_never_reaches_the_tools_beside_it(package):
    reached = sorted(f"{module} imports {target}" for module, targets in GRAPH.items() if package_of(module) == package
                     for target in targets if package_of(target) in BESIDE or target == "grader.pipeline")
    assert reached == []


def test_isolation_depends_on_nothing_but_itself():
    outside = sorted(f"{module} imports {target}" for module, targets in GRAPH.items() if package_of(module) == "isolation"
                     for target in targets if package_of(target) != "isolation"
                     and target not in ("grader.paths", "grader.translations"))
    assert outside == []


def test_the_translations_import_nothing_of_the_grader_but_the_paths():
    """Every layer imports the translations (a learner's kernel too): they must stand on the paths alone."""
    assert GRAPH["grader.translations"] == {"grader.paths"}


def test_the_worker_imports_nothing_of_the_grader():
    """The untrusted side runs as ``python -c`` text in its own process: nothing trusted lives there."""
    assert GRAPH["grader.isolation.worker"] == set()
    with open(MODULES["grader.isolation.worker"], encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert not imported & {"grader", "solutions", "course"}


def test_the_top_folder_holds_only_the_pipeline_the_paths_and_command_entries():
    files = {name for name in os.listdir(GRADER_DIR) if os.path.isfile(os.path.join(GRADER_DIR, name))}
    folders = {name for name in os.listdir(GRADER_DIR) if os.path.isdir(os.path.join(GRADER_DIR, name))} - {"__pycache__"}
    assert files == TOP, "a new module belongs in one of the packages (docs/grader.md)"
    assert folders == set(CORE + BESIDE + SHARED)
    for folder in folders:
        assert os.path.isfile(os.path.join(GRADER_DIR, folder, "__init__.py")), folder


@pytest.mark.parametrize("name, target", sorted(THIN_COMMANDS.items()))
def test_a_command_kept_by_name_is_a_thin_entry(name, target):
    with open(os.path.join(GRADER_DIR, name), encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    assert GRAPH[f"grader.{name[:-3]}"] == {target}
    functions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    assert functions == [] and len(tree.body) <= 5  # docstring, imports, the __main__ guard


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_says_what_it_holds(module):
    with open(MODULES[module], encoding="utf-8") as handle:
        docstring = ast.get_docstring(ast.parse(handle.read()))
    assert docstring and len(docstring) > 40, module


@pytest.mark.parametrize("name, target", sorted(OLD_NAMES.items()))
def test_an_old_name_is_only_an_alias_of_the_moved_module(name, target):
    import importlib

    with open(os.path.join(GRADER_DIR, name), encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    assert GRAPH[f"grader.{name[:-3]}"] == {target, target.rpartition(".")[0]}  # from grader.learner import ...
    assert not [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    assert importlib.import_module(f"grader.{name[:-3]}") is importlib.import_module(target)

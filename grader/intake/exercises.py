"""The course's exercise list (``grader/intake/exercises.json``) and which exercises a submission contains.

One metadata file for the whole course, as rustlings keeps one ``info.toml``: each exercise names
its notebook, the functions the learner writes, the folder of hidden cases under ``grader/judging/cases``,
how the cases call the functions (``style``), and its hint in three levels (``nudge``, ``rule``, ``hint``: a push, the
rules, then the recipe; issue 27).
"""

import ast
import json
from dataclasses import dataclass

from grader.paths import EXERCISES_PATH


@dataclass(frozen=True)
class Exercise:
    """One graded exercise.

    Attributes:
        id: stable id, also the nbgrader ``grade_id`` of its solution cell (str).
        notebook: the learner notebook's file name (str).
        title: shown in reports and progress views (str).
        functions: names the learner defines; the first is the main entry (tuple of str).
        cases: folder of hidden cases under ``grader/judging/cases`` (str).
        style: how cases call the entry: ``"seed"`` (TOOLS and dispatch are module globals),
            ``"explicit"`` (tools and dispatch are arguments) or ``"call"`` (plain function).
        hint: the recipe, the last of the three hint levels (str).
        nudge: the first hint level, a push in the right direction (str).
        rule: the second hint level, the rules the exercise grades in one breath (str).
    """

    id: str
    notebook: str
    title: str
    functions: tuple
    cases: str
    style: str
    hint: str
    nudge: str = ""
    rule: str = ""

    @property
    def entry(self):
        """The main function the cases call (str)."""
        return self.functions[0]


def load_exercises(path=EXERCISES_PATH):
    """Read the course's exercises in course order.

    Returns:
        list of ``Exercise``.
    Raises:
        OSError, ValueError, KeyError: the file is missing or malformed (a bug in the kit, caught by its tests).
    """
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    return [Exercise(e["id"], e["notebook"], e["title"], tuple(e["functions"]), e["cases"], e.get("style", "call"), e["hint"],
                     e.get("nudge", ""), e.get("rule", ""))
            for e in data["exercises"]]


EXERCISES = load_exercises()
BY_ID = {exercise.id: exercise for exercise in EXERCISES}
# The seed's exercise; a student release of some notebooks only may not have it, then its last exercise.
DEFAULT = BY_ID.get("capstone") or EXERCISES[-1]


def _names_bound_by(target, names):
    """Add the names an assignment target binds (``a``, ``a, b = ...``, ``[a, *b] = ...``) to ``names``."""
    if isinstance(target, ast.Name):
        names.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _names_bound_by(element, names)
    elif isinstance(target, ast.Starred):
        _names_bound_by(target.value, names)


def _bound_in(statements, names):
    for node in statements:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                _names_bound_by(target, names)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and (node.value is not None or isinstance(node, ast.AugAssign)):
            _names_bound_by(node.target, names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).partition(".")[0] for alias in node.names if alias.name != "*")
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            for target in ([node.target] if isinstance(node, (ast.For, ast.AsyncFor))
                           else [item.optional_vars for item in node.items if item.optional_vars is not None]):
                _names_bound_by(target, names)
        # Code in a top-level block runs at module level too: ``if``/``try``/``with``/``for`` bodies bind module names.
        for field in ("body", "orelse", "finalbody"):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                _bound_in(getattr(node, field, None) or [], names)
        for handler in getattr(node, "handlers", None) or []:
            _bound_in(handler.body, names)


def bound_names(chunks):
    """Names the chunks bind at module level, found without running them (set of str).

    An exercise's function may be written as a ``def``, a class, or an assignment
    (``parse_call = Parser()``, ``validate_call = functools.partial(...)``, an import): whatever binds
    the name counts, as it does when the code runs. Chunks that do not parse bind nothing here.
    """
    names = set()
    for chunk in chunks:
        try:
            tree = ast.parse(chunk["code"])
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        _bound_in(tree.body, names)
    return names


def detect(submission):
    """Which exercises a submission contains.

    Notebooks: the exercises whose ``grade_id`` marks one of its solution cells (nbgrader metadata).
    Otherwise (a ``.py`` file, or a notebook without metadata): the capstone when ``handle_tool_call``
    is bound (its helpers are part of it), else every exercise whose functions are all bound
    (``bound_names``: by ``def``, ``class``, assignment or import).
    With nothing found, the capstone, so the learner is told which function is missing.

    Args:
        submission: ``grader.intake.extract.Submission``.
    Returns:
        non-empty list of ``Exercise`` in course order.
    """
    found = [e for e in EXERCISES if e.id in submission.grade_ids]
    if found:
        return found
    names = bound_names(submission.chunks)
    if DEFAULT.entry in names:
        return [DEFAULT]
    return [e for e in EXERCISES if set(e.functions) <= names] or [DEFAULT]

"""The course's exercise list (``grader/exercises.json``) and which exercises a submission contains.

One metadata file for the whole course, as rustlings keeps one ``info.toml``: each exercise names
its notebook, the functions the learner writes, the folder of hidden cases under ``grader/cases``,
how the cases call the functions (``style``), and a hint.
"""

import ast
import json
import os
from dataclasses import dataclass

EXERCISES_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exercises.json")


@dataclass(frozen=True)
class Exercise:
    """One graded exercise.

    Attributes:
        id: stable id, also the nbgrader ``grade_id`` of its solution cell (str).
        notebook: the learner notebook's file name (str).
        title: shown in reports and progress views (str).
        functions: names the learner defines; the first is the main entry (tuple of str).
        cases: folder of hidden cases under ``grader/cases`` (str).
        style: how cases call the entry: ``"seed"`` (TOOLS and dispatch are module globals),
            ``"explicit"`` (tools and dispatch are arguments) or ``"call"`` (plain function).
        hint: the hint shown on demand (str).
    """

    id: str
    notebook: str
    title: str
    functions: tuple
    cases: str
    style: str
    hint: str

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
    return [Exercise(e["id"], e["notebook"], e["title"], tuple(e["functions"]), e["cases"], e.get("style", "call"), e["hint"])
            for e in data["exercises"]]


EXERCISES = load_exercises()
BY_ID = {exercise.id: exercise for exercise in EXERCISES}
# The seed's exercise; a student release of some notebooks only may not have it, then its last exercise.
DEFAULT = BY_ID.get("capstone") or EXERCISES[-1]


def defined_functions(chunks):
    """Top-level function names defined in the chunks, found without running them (set of str)."""
    names = set()
    for chunk in chunks:
        try:
            tree = ast.parse(chunk["code"])
        except (SyntaxError, ValueError):
            continue
        names.update(node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return names


def detect(submission):
    """Which exercises a submission contains.

    Notebooks: the exercises whose ``grade_id`` marks one of its solution cells (nbgrader metadata).
    Otherwise (a ``.py`` file, or a notebook without metadata): the capstone when ``handle_tool_call``
    is defined (its helpers are part of it), else every exercise whose functions are all defined.
    With nothing found, the capstone, so the learner is told which function is missing.

    Args:
        submission: ``grader.extract.Submission``.
    Returns:
        non-empty list of ``Exercise`` in course order.
    """
    found = [e for e in EXERCISES if e.id in submission.grade_ids]
    if found:
        return found
    names = defined_functions(submission.chunks)
    if DEFAULT.entry in names:
        return [DEFAULT]
    return [e for e in EXERCISES if set(e.functions) <= names] or [DEFAULT]

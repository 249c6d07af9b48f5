"""Assemble parts of the reference package into standalone code: notebook cells and seed-form files.

The grader cannot import the ``solutions`` package (its worker keeps the repository off
``sys.path``, so a submission cannot import the answer), so the solved notebooks' solution cells
and the reference capstone submission are the package's own source, assembled: imports between
the package's modules are dropped and the definitions concatenated in dependency order. They are
generated, never edited; ``python -m course.build --check`` proves they match the package.

The seed's form (``seed_form()``) is what learners submit for the capstone: a module that defines
``TOOLS`` and ``handle_tool_call(raw, ask_model)`` and calls a global ``dispatch``.
"""

import ast
import os

from grader.paths import SOLUTIONS_DIR

# Dependency order: each module uses only names from the ones before it.
CAPSTONE_MODULES = ["violations", "registry", "parse", "schema", "observation", "retry"]

ADAPTER = '''

def handle_tool_call(raw, ask_model):
    """The seed's form: validate ``raw``, allow one retry via ``ask_model``, then dispatch or reject.

    Reads the global ``TOOLS`` and calls the global ``dispatch`` when a call arrives (not when this
    function is defined), so the grader, or your notebook, can replace either.

    Args:
        raw: the model's raw call (str). ask_model: ``callable(error_text: str) -> str``.
    Returns:
        what ``dispatch(name, arguments)`` returned, or ``{"status": "rejected", "error": text}``.
    """
    return run_tool_call(raw, ask_model, TOOLS, dispatch, check)
'''


def _node_source(lines, node):
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    while first > 1 and lines[first - 2].lstrip().startswith("#"):
        first -= 1  # keep the comment that explains the node
    return "\n".join(lines[first - 1: node.end_lineno])


def assemble(modules, only=None, exclude=(), adapter=""):
    """Return standalone source: the stdlib imports, then the chosen definitions, then ``adapter``.

    Args:
        modules: module names under ``solutions/`` in dependency order (list of str).
        only: if given, keep only top-level definitions with these names (set of str); other
            statements (constants) are kept too, so helpers' constants stay available.
        exclude: names of top-level definitions to leave out (set of str).
        adapter: source appended at the end (str).
    Returns:
        str: Python source that imports nothing from the kit.
    """
    imports, bodies = [], []
    for module in modules:
        path = os.path.join(SOLUTIONS_DIR, module + ".py")
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        tree = ast.parse(text)
        lines = text.splitlines()
        for index, node in enumerate(tree.body):
            if index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue  # module docstring
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("solutions"):
                    continue
                if isinstance(node, ast.Import) and any(a.name.startswith("solutions") for a in node.names):
                    continue
                statement = ast.get_source_segment(text, node)
                if statement not in imports:
                    imports.append(statement)
                continue
            name = getattr(node, "name", None)
            if name in exclude or (only is not None and name is not None and name not in only):
                continue
            bodies.append(_node_source(lines, node))
    return "\n".join(sorted(imports)) + "\n\n\n" + "\n\n\n".join(bodies) + "\n" + adapter


def seed_form():
    """The whole reference as one capstone submission in the seed's form (str)."""
    docstring = ('"""Reference solution in the seed\'s form.\n\nGenerated from the solutions package by '
                 'course/assemble.py; edit the package, not this file."""\n\n')
    return docstring + assemble(CAPSTONE_MODULES, exclude={"handle_tool_call"}, adapter=ADAPTER)

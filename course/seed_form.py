"""Assemble the reference package into one standalone file in the seed's form.

The seed's form is what learners submit: a module that defines ``TOOLS`` and
``handle_tool_call(raw, ask_model)`` and calls a global ``dispatch``. The grader cannot import the
``solutions`` package (its worker keeps the repository off ``sys.path``, so a submission cannot
import the answer), so the reference is graded as this assembled text. It is generated, never
edited: a test checks the committed copies match.
"""

import ast
import os

SOLUTIONS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "solutions")
# Dependency order: each module uses only names from the ones before it.
MODULES = ["violations", "registry", "parse", "schema", "observation", "retry"]
# The package's keyword-argument entry point is replaced by the seed-form adapter below.
EXCLUDED = {("retry", "handle_tool_call")}

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
    return run_tool_call(raw, ask_model, TOOLS, dispatch)
'''


def _node_source(lines, node):
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    while first > 1 and lines[first - 2].lstrip().startswith("#"):
        first -= 1  # keep the comment that explains the node
    return "\n".join(lines[first - 1: node.end_lineno])


def assemble(header="Reference solution in the seed's form."):
    """Return the standalone source: stdlib imports, every module's definitions, then the adapter.

    Args:
        header: the first line of the generated module docstring (str).
    Returns:
        str: Python source that imports nothing from the kit.
    """
    imports, bodies = [], []
    for module in MODULES:
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
            if (module, getattr(node, "name", None)) in EXCLUDED:
                continue
            bodies.append(_node_source(lines, node))
    docstring = (f'"""{header}\n\nGenerated from the solutions package by course/seed_form.py; '
                 'edit the package, not this file."""')
    return docstring + "\n\n" + "\n".join(sorted(imports)) + "\n\n\n" + "\n\n\n".join(bodies) + "\n" + ADAPTER

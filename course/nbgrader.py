"""An nbgrader assignment from the course: ``python -m course.nbgrader COURSE [--assignment ps1] [--notebooks 01,05]``.

Writes ``COURSE/source/ASSIGNMENT/``: the chosen notebooks as nbgrader source notebooks, generated from the
solved notebooks (``solutions/notebooks``, through ``course.notebooks``) so they follow the course as it
changes, plus the student's grader (visible cases only, as in ``course.release``) for the notebooks'
self-checks, and the kit's licenses. Then nbgrader's own commands work as documented (docs/instructors.md):
``nbgrader generate_assignment``, ``autograde``, ``export``. What changes against the solved notebook:

- Each exercise cell keeps the learner's stub (signatures, ``TOOLS``, docstrings), and each exercise
  function's body becomes a solution region holding the whole reference, defined inside the function: nbgrader
  replaces a region with ``# YOUR CODE HERE`` / ``raise NotImplementedError()``, so the release keeps every
  signature and hides every helper (the solved cell, one region, released as nothing but that stub).
- After each exercise cell, an autograder test cell (nbgrader ``grade``, ``points`` = the exercise's
  maximum in the kit) whose hidden test runs ``python -I -m grader.autograde`` on the notebook's saved file:
  nbgrader takes the number it evaluates last as partial credit, so nbgrader's score is the kit's.
- The kit's own solved-only checks (cells of ``### BEGIN HIDDEN TESTS`` outside grade cells, which
  nbgrader refuses) are left out, and so is the authoring metadata (``metadata.kit``).

``--lang ru`` assigns the Russian notebooks (issue 29): their set-up cell makes the self-check and the autograder's
feedback Russian; the points are the same.

``nbgrader autograde`` executes notebooks in a kernel of the Python it runs from: install the kit there
(``pip install`` the kit's folder), as docs/instructors.md says.
"""

import argparse
import ast
import io
import os
import sys
import tokenize

from course.release import add_release_language
from course.notebooks import (
    BEGIN,
    BEGIN_HIDDEN,
    END,
    generated_notebooks,
    strip_solutions,
)

TEST_CELL = '''# Autograder test (nbgrader) for exercise "{exercise}", worth {points:g} points: the kit grades this notebook's
# saved file with its visible and hidden cases, in a fresh process; the number it shows last is this cell's score.
### BEGIN HIDDEN TESTS
import subprocess, sys
_kit = subprocess.run([sys.executable, "-I", "-m", "grader.autograde", "{notebook}", "{exercise}", "--points", "{points:g}"],
                      capture_output=True, text=True)
print(_kit.stdout.rstrip())
assert _kit.returncode == 0, "the kit could not grade this notebook: " + _kit.stderr.strip()[-1000:]
float(_kit.stdout.split()[-1])
### END HIDDEN TESTS'''
NESTED_NOTE = ("# The reference, defined inside this function so that nbgrader's release hides all of it;\n"
               "# a learner's own helpers may live anywhere in the cell.")


def _names_bound(node):
    """The names a top-level statement binds (set of str): targets of assignments, defined functions and classes."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    return {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}


def _without(code, names):
    """``code`` without its top-level statements that bind any of ``names`` (str)."""
    tree = ast.parse(code)
    lines = code.splitlines()
    drop = set()
    for node in tree.body:
        if _names_bound(node) & names:
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            drop.update(range(first, node.end_lineno + 1))
    return "\n".join(line for number, line in enumerate(lines, start=1) if number not in drop)


def _multiline_strings(code):
    """Line numbers of string literals whose text spans lines and that are not docstrings (list of int).

    Indenting such a literal would change its value. Adjacent literals on several lines (implicit
    concatenation inside parentheses) are fine: each literal stays on its line. Read with ``tokenize``, so that
    f-strings count too (Python 3.12 splits them into several tokens).
    """
    tree = ast.parse(code)
    docstrings = {node.body[0].value.lineno for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    kinds = {tokenize.STRING} | ({tokenize.FSTRING_MIDDLE} if hasattr(tokenize, "FSTRING_MIDDLE") else set())
    found = []
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type in kinds and "\n" in token.string and token.start[0] not in docstrings:
            found.append(token.start[0])
    return found


def _call(function):
    """``name(arguments)`` passing a function's own parameters on (str)."""
    arguments = function.args
    parts = [a.arg for a in arguments.posonlyargs + arguments.args]
    parts += [f"*{arguments.vararg.arg}"] if arguments.vararg else []
    parts += [f"{a.arg}={a.arg}" for a in arguments.kwonlyargs]
    parts += [f"**{arguments.kwarg.arg}"] if arguments.kwarg else []
    return f"{function.name}({', '.join(parts)})"


def solution_source(stub, reference, functions):
    """An nbgrader solution cell: the learner's stub, each exercise function's body a region holding the reference.

    Args:
        stub: the learner's version of the cell (str): imports, ``TOOLS``, the functions with docstrings.
        reference: the solved cell's code without its region markers (str).
        functions: the exercise's function names (iterable of str).
    Returns:
        str. Inside each function, the reference is defined (less what the stub itself defines at the top level,
        such as ``TOOLS``, so that the reference reads the notebook's globals as the stub does) and called.
    Raises:
        ValueError: the stub defines none of ``functions`` at the top level.
    """
    tree = ast.parse(stub)
    lines = stub.splitlines()
    targets = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in set(functions)]
    if not targets:
        raise ValueError(f"the stub defines none of {', '.join(functions)}")
    shared = set().union(*(_names_bound(node) for node in tree.body)) - {node.name for node in targets}
    nested = _without(reference, shared).strip("\n")
    if _multiline_strings(nested):
        # Indenting would change such a string's value; docstrings only change their look.
        raise ValueError(f"the reference holds a multi-line string at line {_multiline_strings(nested)[0]}; "
                         "write it on one line (or with \\n) so it can be nested")
    for node in sorted(targets, key=lambda n: n.lineno, reverse=True):
        body = node.body
        docstring = isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str)
        rest = body[1:] if docstring else body
        start = rest[0].lineno if rest else node.end_lineno + 1
        line = lines[start - 1] if rest else lines[body[0].lineno - 1]
        indent = line[: len(line) - len(line.lstrip())]
        region = [indent + BEGIN, *(indent + text for text in NESTED_NOTE.splitlines()),
                  *((indent + text).rstrip() for text in nested.splitlines()),
                  f"{indent}return {_call(node)}", indent + END]
        lines[start - 1: node.end_lineno] = region
    return "\n".join(lines)


def _region(source):
    """The code between a cell's ``### BEGIN SOLUTION`` and ``### END SOLUTION`` lines (str)."""
    inside, out = False, []
    for line in source.splitlines():
        if line.strip() == BEGIN:
            inside = True
        elif line.strip() == END:
            inside = False
        elif inside:
            out.append(line)
    return "\n".join(out)


def _hidden_only(cell):
    return cell.cell_type == "code" and BEGIN_HIDDEN in cell.source and not strip_solutions(cell.source).strip()


def source_notebook(filename, solved, learner, maxima):
    """The nbgrader source version of one course notebook.

    Args:
        filename: e.g. ``"01_parsing.ipynb"`` (str). solved, learner: the notebook pair from
            ``course.notebooks.generated_notebooks`` (nbformat notebooks; not changed).
        maxima: ``{exercise id: points}`` (dict; ``grader.classroom.batch.assignment_maxima``).
    Returns:
        a new nbformat notebook.
    """
    import nbformat

    from grader.intake.exercises import BY_ID

    stubs = {cell.metadata.get("nbgrader", {}).get("grade_id"): cell.source for cell in learner.cells
             if cell.metadata.get("nbgrader", {}).get("solution")}
    notebook = nbformat.reads(nbformat.writes(solved), as_version=4)
    cells = []
    for cell in notebook.cells:
        if _hidden_only(cell):
            continue  # the kit's own solved-only checks: nbgrader refuses hidden tests outside grade cells
        meta = cell.metadata.get("nbgrader", {})
        exercise = meta.get("grade_id") if meta.get("solution") else None
        cell.metadata.pop("kit", None)
        if cell.cell_type == "code" and BEGIN_HIDDEN in cell.source and not meta.get("grade"):
            cell.source = strip_solutions(cell.source)  # hidden parts out, as above
        cells.append(cell)
        if exercise in BY_ID:
            cell.source = solution_source(stubs[exercise], _region(cell.source), BY_ID[exercise].functions)
            points = int(maxima[exercise]) if float(maxima[exercise]).is_integer() else maxima[exercise]
            test = nbformat.v4.new_code_cell(TEST_CELL.format(exercise=exercise, points=points,
                                                              notebook=filename))
            test.metadata["nbgrader"] = {"grade": True, "grade_id": f"test-{exercise}", "locked": True,
                                         "points": points, "schema_version": 3, "solution": False}
            test.metadata["tags"] = ["grader-skip"]  # the kit's own grader never runs it
            cells.append(test)
    notebook.cells = cells
    return notebook


def write_source(course, assignment="ps1", notebooks="all", language="en"):
    """Write ``course/source/assignment/`` (it must not exist yet).

    Args:
        course: the nbgrader course folder (str; created if missing).
        assignment: the assignment's name, as nbgrader commands take it (str).
        notebooks: a ``--notebooks`` spec (``grader.classroom.assignment.select_notebooks``).
        language: ``"en"`` or a language of ``course.notebook_texts.TRANSLATED`` (``"ru"``): the notebooks in it,
            whose set-up cell makes the self-check and the autograder test cells speak it (issue 29).
    Returns:
        list of the files written, relative to the assignment folder.
    Raises:
        FileExistsError: the assignment folder exists. ValueError: ``notebooks`` names no notebook, or ``grader/``
            holds a folder that is not part of its layout.
    """
    import nbformat

    from course.release import copy_student_grader, write_licenses
    from grader.classroom.assignment import select_notebooks
    from grader.classroom.batch import assignment_maxima
    from grader.intake.exercises import EXERCISES
    from grader.paths import refuse_stray_folders

    generated = {filename: (solved, learner) for filename, solved, learner in generated_notebooks(language)}
    chosen = select_notebooks(notebooks, sorted(generated))
    exercises = [e.id for e in EXERCISES if e.notebook in chosen]
    folder = os.path.join(course, "source", assignment)
    refuse_stray_folders("The nbgrader assignment")  # before anything is written
    os.makedirs(folder)
    maxima = assignment_maxima(exercises) if exercises else {}
    written = []
    for filename in chosen:
        solved, learner = generated[filename]
        with open(os.path.join(folder, filename), "w", encoding="utf-8") as handle:
            handle.write(nbformat.writes(source_notebook(filename, solved, learner, maxima)) + "\n")
        written.append(filename)
    written += copy_student_grader(folder, set(exercises))
    written += write_licenses(folder)
    return written


def main(argv=None):
    """Command line; returns 0 on success, 2 when the assignment exists or ``--notebooks`` names nothing."""
    from grader.results.provenance import version_line

    parser = argparse.ArgumentParser(prog="python -m course.nbgrader", description=__doc__.splitlines()[0])
    parser.add_argument("course", help="the nbgrader course folder (the one holding nbgrader_config.py)")
    parser.add_argument("--assignment", default="ps1", help="the assignment's name (default: %(default)s)")
    parser.add_argument("--notebooks", default="all", metavar="SPEC",
                        help="the notebooks to assign: all (default), 05, 00-02, 01,05 or names")
    add_release_language(parser)
    parser.add_argument("--version", action="version", version=version_line())
    args = parser.parse_args(argv)
    try:
        written = write_source(args.course, args.assignment, args.notebooks, args.lang)
    except FileExistsError:
        print(f"error: {os.path.join(args.course, 'source', args.assignment)} exists; choose another assignment "
              "name or remove it.", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    notebooks = [name for name in written if name.endswith(".ipynb")]
    print(f"Wrote the nbgrader assignment {args.assignment} ({', '.join(notebooks)}) to "
          f"{os.path.join(args.course, 'source', args.assignment)}. From {args.course}: nbgrader generate_assignment "
          f"{args.assignment}; after collecting, nbgrader autograde {args.assignment}; nbgrader export.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``PYTHONPATH=. python tests/pydantic_lax.py [--check]`` (from the kit's folder): notebook 7's table of what pydantic does with arguments the kit refuses.

Learners' code stays standard library only, so pydantic is shown, not used (issue 27, "Why not just pydantic?"). The
table in notebook 7 is what this module gets by running pydantic (a test dependency, ``requirements-test.txt``) on
each call below, with pydantic's defaults (lax mode), with ``strict=True, extra="forbid"``, and with
``allow_inf_nan=False`` added. ``--check`` (and ``tests/test_pydantic_lax.py``) fails when the notebook's table is not
what the installed pydantic gives, so the prose cannot drift from the library. It lives with the tests, not in the
shipped ``course`` package: only the kit's own tests install pydantic.
"""

import argparse
import sys

import nbformat

from grader.paths import SOLVED_NOTEBOOKS_DIR

NOTEBOOK = "07_turn.ipynb"
# The markdown cell that holds the table is marked with this key in ``metadata.kit``.
MARK = "pydantic_table"
BEGIN, END = "<!-- pydantic table: python tests/pydantic_lax.py writes it -->", "<!-- end of the pydantic table -->"

# (arguments as the model sent them, the field's declared type, what the course's rules say)
CALLS = [
    ('{"hour": "7", "minute": 30}', "int", "refused: a string is not an integer (notebook 2)"),
    ('{"hour": 7.0, "minute": 30}', "int", "refused: `7.0` is a float (notebook 2)"),
    ('{"hour": true, "minute": 30}', "int", "refused: a bool is not a number (notebook 2)"),
    ('{"hour": 7, "minute": 30, "label": "wake"}', "int", "refused: `label` is not declared (notebook 2)"),
    ('{"hour": 7, "minute": 30, "hour": 9}', "int", "refused: a repeated key (notebook 1)"),
    ('{"amount": NaN}', "float", "refused: NaN is not JSON (notebook 1)"),
    ('{"amount": 1e400}', "float", "refused: too big for a float, it would become inf (notebook 1)"),
]
SETTINGS = [
    ("pydantic's default (lax)", {}),
    ('`strict=True, extra="forbid"`', {"strict": True, "extra": "forbid"}),
    ("and `allow_inf_nan=False`", {"strict": True, "extra": "forbid", "allow_inf_nan": False}),
]


def outcome(arguments, field_type, settings):
    """What pydantic makes of ``arguments`` (JSON text) for a model of ``hour, minute: int`` or ``amount: float``.

    Args:
        arguments: the arguments JSON (str). field_type: ``"int"`` or ``"float"``. settings: ``ConfigDict`` keys.
    Returns:
        one cell of the table (str): the values pydantic hands the tool, or the error type it raises.
    Raises:
        ImportError: pydantic is not installed (it is a test dependency).
    """
    from pydantic import BaseModel, ConfigDict, ValidationError, create_model

    fields = {"hour": (int, ...), "minute": (int, ...)} if field_type == "int" else {"amount": (float, ...)}
    model = create_model("Arguments", __base__=BaseModel, **fields)
    model.model_config = ConfigDict(**settings)
    model.model_rebuild(force=True)
    try:
        values = model.model_validate_json(arguments).model_dump()
    except ValidationError as exc:
        return "refused (" + ", ".join(sorted({error["type"] for error in exc.errors()})) + ")"
    shown = ", ".join(f"{key}={value!r}" for key, value in values.items())
    return f"accepted: {shown}"


def table():
    """The markdown table (str), from running pydantic now."""
    lines = ["| Arguments the model sent | The course | " + " | ".join(name for name, _ in SETTINGS) + " |",
             "|---|---|" + "---|" * len(SETTINGS)]
    for arguments, field_type, rule in CALLS:
        cells = [outcome(arguments, field_type, settings) for _, settings in SETTINGS]
        lines.append(f"| `{arguments}` | {rule} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(notebook):
    cells = [cell for cell in notebook.cells if cell.get("metadata", {}).get("kit", {}).get(MARK)]
    if len(cells) != 1:
        raise LookupError(f"notebook {NOTEBOOK} must have exactly one markdown cell marked {MARK!r}")
    return cells[0]


def with_table(source, text):
    """``source`` (a cell's markdown) with the part between ``BEGIN`` and ``END`` replaced by ``text`` (str)."""
    head, found, rest = source.partition(BEGIN)
    _, found_end, tail = rest.partition(END)
    if not (found and found_end):
        raise LookupError(f"the cell marked {MARK!r} must hold the lines {BEGIN!r} and {END!r}")
    return f"{head}{BEGIN}\n{text}\n{END}{tail}"


def main(argv=None):
    """Command line: write the table into the solved notebook 7 (then ``python -m course.build``), or ``--check``.

    Returns 0, or 1 when ``--check`` finds the table stale, 2 when pydantic or the cell is missing."""
    parser = argparse.ArgumentParser(prog="python tests/pydantic_lax.py", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the notebook's table is stale")
    args = parser.parse_args(argv)
    path = f"{SOLVED_NOTEBOOKS_DIR}/{NOTEBOOK}"
    try:
        notebook = nbformat.read(path, as_version=4)
        cell = _cell(notebook)
        wanted = with_table(cell.source, table())
    except (ImportError, LookupError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        current = cell.source == wanted
        print("notebook 7's pydantic table is current." if current else
              "notebook 7's pydantic table is stale: run PYTHONPATH=. python tests/pydantic_lax.py, then python -m course.build")
        return 0 if current else 1
    cell.source = wanted
    nbformat.write(notebook, path)
    print(f"Wrote pydantic's verdicts into {path}; now run python -m course.build")
    return 0


if __name__ == "__main__":
    sys.exit(main())

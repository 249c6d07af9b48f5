"""Issue 27: notebook 7 shows what pydantic does with arguments the course refuses; its table is what pydantic gives.

pydantic is a test dependency (requirements-test.txt), shown to learners, never used by their code.
"""

import nbformat

from conftest import ROOT
import pydantic_lax


def test_the_notebooks_table_is_what_the_installed_pydantic_gives(capsys):
    assert pydantic_lax.main(["--check"]) == 0, capsys.readouterr().out


def test_lax_mode_converts_what_strict_mode_refuses():
    lax, strict, finite = (settings for _, settings in pydantic_lax.SETTINGS)
    assert pydantic_lax.outcome('{"hour": "7", "minute": 30}', "int", lax) == "accepted: hour=7, minute=30"
    assert pydantic_lax.outcome('{"hour": true, "minute": 30}', "int", lax) == "accepted: hour=1, minute=30"
    assert pydantic_lax.outcome('{"hour": "7", "minute": 30}', "int", strict) == "refused (int_type)"
    assert pydantic_lax.outcome('{"hour": 7, "minute": 3, "x": 1}', "int", strict) == "refused (extra_forbidden)"
    # What strict mode does not catch: the parse step's rules (notebook 1).
    assert pydantic_lax.outcome('{"hour": 7, "minute": 30, "hour": 9}', "int", strict) == "accepted: hour=9, minute=30"
    assert pydantic_lax.outcome('{"amount": NaN}', "float", strict) == "accepted: amount=nan"
    assert pydantic_lax.outcome('{"amount": NaN}', "float", finite) == "refused (finite_number)"


def test_the_learner_notebook_carries_the_table_too():
    learner = nbformat.read(f"{ROOT}/notebooks/{pydantic_lax.NOTEBOOK}", as_version=4)
    assert any(pydantic_lax.table() in cell.source for cell in learner.cells if cell.cell_type == "markdown")


def test_the_table_goes_between_its_markers_only():
    source = f"Before.\n{pydantic_lax.BEGIN}\nold\n{pydantic_lax.END}\nAfter."
    assert pydantic_lax.with_table(source, "new") == f"Before.\n{pydantic_lax.BEGIN}\nnew\n{pydantic_lax.END}\nAfter."

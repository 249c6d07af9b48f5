"""Issue 11: a learner's own steps, pasted together as notebook 5 tells them to, make a full-marks capstone.

The steps are the faulty library's correct bases (``tests/faulty/step_faults.py``), written as a learner writes
the notebooks' exercises (strings for problems, no reference code). The glue is read from notebook 5's own words
(its "Your solution" cell), so the test fails if the instructions and the interfaces drift apart.
"""

import re

import nbformat
import pytest

from conftest import ROOT, docked_groups
from faulty.faults import DISPATCH, NAMES, OBSERVATIONS, PARSING, PUBLIC, REAL, RETRY, ROBUSTNESS, SCHEMA, VISIBLE
from faulty.step_faults import BASES, STEP_FAULTS
from test_faulty_library import apply_edits

NOTEBOOK = f"{ROOT}/notebooks/05_capstone.ipynb"
STEPS = ["parse-call", "validate-call", "observe", "retry-loop"]  # notebooks 1 to 4, in the order notebook 5 names them


def _cell(notebook, grade_id):
    return next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def glue_and_stub():
    """The glue notebook 5 shows (its only Python block) and the capstone stub's source up to handle_tool_call."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    blocks = re.findall(r"```python\n(.*?)```", _cell(notebook, "solution-intro").source, re.S)
    assert len(blocks) == 1, "notebook 5's instructions show exactly one block of glue"
    stub = _cell(notebook, "capstone").source
    return blocks[0], stub[: stub.index("def handle_tool_call")]


def assembled(bases=BASES):
    """A capstone made as notebook 5 says: the stub's TOOLS, the four steps pasted, the glue under them."""
    glue, stub = glue_and_stub()
    return stub + "\n\n".join(bases[step] for step in STEPS) + "\n\n" + glue


def test_the_glue_is_a_few_lines():
    glue, _ = glue_and_stub()
    code = [line for line in glue.splitlines() if line.strip()]
    assert len(code) <= 8
    assert "def handle_tool_call(raw, ask_model):" in glue and "dispatch" in glue and "TOOLS" in glue


def test_a_learners_own_steps_assemble_into_full_marks(grade, tmp_path):
    path = tmp_path / "capstone.py"
    path.write_text(assembled(), encoding="utf-8")
    process, results = grade(path, "--exercise", "capstone")
    assert process.returncode == 0, process.stderr
    total = sum(t["max_score"] for t in results["tests"])
    assert total > 0 and results["score"] == total, [t["name"] for t in results["tests"] if t["status"] == "failed"][:5]


# One fault per step: the capstone group that judges that step's work must dock it (``MUST``), and nothing outside
# the groups where that step's work shows (``STEP_GROUPS``; a step that crashes on a retry's answer is docked in
# "Bounded retry" too).
STEP_GROUPS = {
    "parse-call": {PARSING, RETRY, ROBUSTNESS, REAL, PUBLIC, OBSERVATIONS},
    "validate-call": {NAMES, SCHEMA, REAL, PUBLIC, OBSERVATIONS, ROBUSTNESS, VISIBLE},
    "observe": {OBSERVATIONS, ROBUSTNESS, PUBLIC, REAL},
    "retry-loop": {RETRY, OBSERVATIONS, DISPATCH},
}
ONE_FAULT = {"parse-call": ("no_object_check", PARSING), "validate-call": ("isinstance_types", SCHEMA),
             "observe": ("first_problem_only", OBSERVATIONS), "retry-loop": ("echoes_first_attempt", RETRY)}


@pytest.mark.parametrize("step", STEPS)
def test_one_faulty_step_is_docked_in_that_steps_groups(grade, tmp_path, step):
    name, must = ONE_FAULT[step]
    fault = next(f for f in STEP_FAULTS if f.exercise == step and f.name == name)
    path = tmp_path / "capstone.py"
    path.write_text(assembled({**BASES, step: apply_edits(fault, BASES[step])}), encoding="utf-8")
    process, results = grade(path, "--exercise", "capstone")
    assert process.returncode == 0, process.stderr
    docked = docked_groups(results)
    assert must in docked, f"{step}: {fault.why} was not docked in {must!r}"
    assert docked <= STEP_GROUPS[step], f"{step}: docked outside its groups: {sorted(docked - STEP_GROUPS[step])}"

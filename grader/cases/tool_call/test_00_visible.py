"""Visible self-checks: the same cases the notebook's self-check cell runs, here in the sandbox."""

import pytest

from grader.expectations import CaseFailed
from grader.visible_cases import VISIBLE_CASES

GROUP = "Visible self-checks"
ORDER = 0
VISIBILITY = "visible"


@pytest.mark.points(1)
@pytest.mark.rule("The visible cases: the notebook's self-check runs these same inputs.")
@pytest.mark.parametrize("case", VISIBLE_CASES, ids=[c.case_id for c in VISIBLE_CASES])
def test_visible_case(harness, case):
    """Visible self-check.

    Why: a learner must be able to reproduce a visible failure in the notebook; the input is shown.
    """
    transcript = harness.run(case.raw, model=case.model(), tools=case.tools)
    try:
        case.check(transcript)
    except CaseFailed as exc:
        raise CaseFailed(f"{exc} Input: {case.raw} Hint: {case.hint}") from None

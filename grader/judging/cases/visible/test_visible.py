"""Visible self-checks: the same cases the notebook's self-check cell runs, here in the sandbox.

Collected for every exercise; ``grader.judging.pytest_plugin.GradingPlugin`` parametrises ``visible_case`` with the cases of the
exercise being graded (``grader.judging.visible_cases.VISIBLE_CASES``).
"""

import pytest

from grader.judging.expectations import CaseFailed
from grader.judging.visible_cases import failure_text, run_visible
from grader.translations import N_

GROUP = N_("Visible self-checks")
ORDER = 0
VISIBILITY = "visible"


@pytest.mark.points(1)
@pytest.mark.rule(N_("The visible cases: the notebook's self-check runs these same inputs."))
def test_visible_case(harness, visible_case):
    """Visible self-check.

    Why: a learner must be able to reproduce a visible failure in the notebook; the input is shown.
    """
    transcript = run_visible(harness, visible_case)
    try:
        visible_case.check(transcript)
    except CaseFailed as exc:
        raise CaseFailed(failure_text(exc, visible_case, 300)) from None

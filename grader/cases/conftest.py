"""Fixtures for the hidden cases; the state lives in ``grader.plugin.GradingPlugin``."""

import pytest


@pytest.fixture(scope="session")
def harness(request):
    """The submission under grading, called the way this exercise is called (``grader.harness.ExerciseHarness``)."""
    plugin = getattr(request.config, "kit_grading", None)
    if plugin is None:
        pytest.exit("the hidden cases run through `python -m grader SUBMISSION`, not plain pytest", returncode=4)
    return plugin.view


def pytest_generate_tests(metafunc):
    """Give ``visible_case`` the visible cases of the exercise being graded."""
    if "visible_case" in metafunc.fixturenames:
        from grader.visible_cases import VISIBLE_CASES

        plugin = getattr(metafunc.config, "kit_grading", None)
        cases = VISIBLE_CASES.get(plugin.exercise.id, []) if plugin else []
        metafunc.parametrize("visible_case", cases, ids=[c.case_id for c in cases])

"""Fixtures for the hidden cases; the state lives in ``grader.plugin.GradingPlugin``."""

import pytest


@pytest.fixture(scope="session")
def harness(request):
    """The submission under grading (``grader.harness.Harness``), loaded once per grading run."""
    plugin = getattr(request.config, "kit_grading", None)
    if plugin is None:
        pytest.exit("the hidden cases run through `python -m grader SUBMISSION`, not plain pytest", returncode=4)
    yield from plugin.open_harness()

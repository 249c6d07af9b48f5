"""Kept for notebooks saved with kit 2.0.0, whose set-up cell finds the kit by ``grader/selfcheck.py`` and imports
``from grader import selfcheck``: the self-check now lives in ``grader.learner.selfcheck`` (issue 21). This module
is that one under its old name (an alias, not a copy), so a learner's saved notebook works unchanged.
"""

import sys

from grader.learner import selfcheck as _moved

sys.modules[__name__] = _moved

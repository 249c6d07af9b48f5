"""Kept for notebooks saved with kit 2.0.0, whose cells import ``from grader.widgets import ...``: the widgets now
live in ``grader.learner.widgets`` (issue 21). This module is that one under its old name (an alias, not a copy),
so a learner's saved notebook works unchanged.
"""

import sys

from grader.learner import widgets as _moved

sys.modules[__name__] = _moved

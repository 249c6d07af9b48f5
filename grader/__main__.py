"""``python -m grader``: see ``grader.cli``."""

import sys

from grader.cli import run

sys.exit(run())

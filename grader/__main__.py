"""``python -m grader``: see ``grader.classroom.cli``."""

import sys

from grader.classroom.cli import run

sys.exit(run())

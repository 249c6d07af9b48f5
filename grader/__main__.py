"""``python -m grader``: see ``grader.classroom.cli``."""

import sys

from grader.intake.extract import ReadInBackground

# The notebook is read in a forked process from here on, while the command line and pytest are imported.
ReadInBackground.ahead(sys.argv[1:])

from grader.classroom.cli import run  # noqa: E402 - after the reader started, on purpose

sys.exit(run())

"""``python -m grader``: see ``grader.cli``."""

import os
import sys

from grader.cli import main

try:
    status = main()
    sys.stdout.flush()
except BrokenPipeError:
    # The report was piped into a command that stopped reading (e.g. head); that is not an error.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    status = 0
sys.exit(status)

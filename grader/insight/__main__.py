"""``python -m grader.insight OUT``: the class report after a batch run (``grader.insight.class_report``)."""

import sys

from grader.insight.class_report import main

if __name__ == "__main__":  # guarded: the similarity step's worker processes import this module again
    sys.exit(main())

"""``python -m grader.learner``: the learner's command line, progress and hints (``grader.learner.command``)."""

import sys

from grader.learner.command import main

if __name__ == "__main__":
    sys.exit(main())

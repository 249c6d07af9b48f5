"""``python -m grader.autograde``: what an nbgrader autograder test cell runs (``grader.classroom.nbgrader_entry``).

A thin entry: the command keeps the name the docs, generated files and scripts use, while the code lives in
its package.
"""

import sys

from grader.classroom.nbgrader_entry import main

if __name__ == "__main__":
    sys.exit(main())

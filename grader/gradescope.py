"""``python -m grader.gradescope``: build Gradescope's autograder bundle, or grade an upload inside it (``grader.classroom.gradescope_bundle``).

A thin entry: the command keeps the name the docs, generated files and scripts use, while the code lives in
its package.
"""

import sys

from grader.classroom.gradescope_bundle import main

if __name__ == "__main__":
    sys.exit(main())

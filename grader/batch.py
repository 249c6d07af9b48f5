"""``python -m grader.batch``: grade a class's submissions into a gradebook (``grader.classroom.batch``).

A thin entry: the command keeps the name the docs, generated files and scripts use, while the code lives in
its package.
"""

import sys

from grader.classroom.batch import main

if __name__ == "__main__":
    sys.exit(main())

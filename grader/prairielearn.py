"""``python -m grader.prairielearn``: write a PrairieLearn question that grades with the kit, or grade a job inside it
(``grader.classroom.prairielearn_question``).

A thin entry: the command keeps a short name for the docs, the generated ``run.sh`` and scripts, while the code
lives in its package.
"""

import sys

from grader.classroom.prairielearn_question import main

if __name__ == "__main__":
    sys.exit(main())

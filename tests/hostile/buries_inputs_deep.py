"""Buries every input it is given at the bottom of 990 nested folders in scratch, then raises as the stub does.

Issue 40's attacker trial: fewer entries than the scratch bound, but deeper than shutil.rmtree could recurse on
Python 3.11, so the grader's cleanup died with a RecursionError, printed a traceback, wrote no report and left the
scratch folder, every hidden input in it, in /tmp for anyone to read. From Python the guard's bound on scratch
files stops it first (expected: that sentence, a report, nothing left behind); past the guard, test_sandbox's
``test_a_worker_s_tree_too_deep_for_rmtree_goes_with_the_sandbox`` makes the whole tree.
"""

import os

DEPTH = 990


def handle_tool_call(raw, ask_model):
    path = "."
    for _ in range(DEPTH):
        path = os.path.join(path, "d")
        if not os.path.isdir(path):
            os.mkdir(path)
    with open(os.path.join(path, "inputs.txt"), "a", encoding="utf-8") as handle:
        handle.write(repr(raw) + "\n")
    raise NotImplementedError("buried")

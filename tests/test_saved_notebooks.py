"""A notebook a learner saved with an earlier kit keeps working after an update (issue 21 moved the self-check and
the widgets into ``grader/learner/``).

The learner's copy holds its own set-up cell, which ``course.build`` leaves alone once the notebook holds work; so
the names that cell, and the widget cells, used in kit 2.0.0 are kept as aliases (``grader/selfcheck.py``,
``grader/widgets.py``).
"""

import subprocess
import sys

from grader.paths import NOTEBOOKS_DIR

# The set-up cell of every notebook of kit 2.0.0, word for word (git show 11a14bc:notebooks/01_parsing.ipynb).
SETUP_CELL_2_0_0 = '''import pathlib
import sys

# Find the kit's folder (the one holding grader/) so its self-checks and widgets can be imported.
_here = pathlib.Path.cwd().resolve()
_root = next((p for p in [_here, *_here.parents] if (p / "grader" / "selfcheck.py").exists()), None)
if _root is None:
    print("Could not find the kit's grader/ folder above", _here, "- open this notebook from inside the kit.")
else:
    sys.path.insert(0, str(_root))

from grader import selfcheck as kit_selfcheck
'''
# What the widget cells of kit 2.0.0's notebooks 0, 3 and 4 imported.
WIDGET_IMPORTS_2_0_0 = "from grader.widgets import Playground, ProgressView, RetrySimulator, kit_check\n"


def test_a_notebook_saved_with_kit_2_0_0_finds_the_kit_and_its_self_check_and_widgets():
    script = (SETUP_CELL_2_0_0 + WIDGET_IMPORTS_2_0_0
              + "print(kit_selfcheck.__name__, Playground.__module__, callable(kit_selfcheck.check))\n")
    # In the notebooks' folder, as a kernel runs; the kit is not on the path until the cell puts it there.
    process = subprocess.run([sys.executable, "-c", script], cwd=NOTEBOOKS_DIR, capture_output=True, text=True,
                             timeout=120)
    assert process.returncode == 0, process.stderr[-2000:]
    assert "Could not find" not in process.stdout
    assert process.stdout.split() == ["grader.learner.selfcheck", "grader.learner.widgets", "True"]

"""Issue 25: correct solutions written from the notebooks alone, in other styles and wordings, get full marks.

The corpus (``tests/corpus/``, see its README) was written by readers of the README and the learner notebooks only.
Before the cases accepted every wording of what a text must say (``grader.judging.wordings``), the terse solutions
lost 5 points for naming a stray comma as ``','`` and the Russian ones 18 for saying every rule in Russian.
"""

import os

import pytest

from conftest import ROOT
from points import available

pytestmark = pytest.mark.slow

CORPUS = os.path.join(ROOT, "tests", "corpus")
EXERCISE_OF = {"tool_result.py": "tool-result", "parse_call.py": "parse-call", "validate_call.py": "validate-call",
               "observe.py": "observe", "run_tool_call.py": "retry-loop", "capstone.py": "capstone",
               "validate_arguments.py": "json-schema", "adapters.py": "adapters", "answer_turn.py": "turn",
               "assemble_turn.py": "stream", "run_agent.py": "loop",
               "allowed_path.py": "authorise"}
FILES = sorted(os.path.join(style, name) for style in os.listdir(CORPUS) if os.path.isdir(os.path.join(CORPUS, style))
               for name in os.listdir(os.path.join(CORPUS, style)) if name.endswith(".py"))


def test_the_corpus_has_every_exercise_in_three_styles():
    styles = {path.split(os.sep)[0] for path in FILES}
    assert styles == {"classes", "terse", "russian"}
    for style in styles:
        names = {os.path.basename(path) for path in FILES if path.startswith(style + os.sep)}
        assert names == set(EXERCISE_OF) - ({"validate_arguments.py", "adapters.py"} if style == "russian" else set())


@pytest.mark.parametrize("seed", ["c0rpus-1", "c0rpus-2"])
@pytest.mark.parametrize("path", FILES)
def test_an_independent_correct_solution_gets_full_marks(grade, path, seed):
    exercise = EXERCISE_OF[os.path.basename(path)]
    process, results = grade(os.path.join(CORPUS, path), "--exercise", exercise, "--seed", seed)
    assert process.returncode == 0, process.stderr
    lost = [(t["name"], t["output"][:300]) for t in results["tests"] if t["status"] == "failed"]
    assert not lost and results["score"] == available(exercise), lost

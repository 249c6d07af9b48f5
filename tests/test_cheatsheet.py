"""Issue 27: docs/cheatsheet.md is one page of every rule the grader checks, each with its reason, and nothing else."""

import os
import re

from conftest import ROOT
from course.check import CASES_DIR, OTHER_AREAS, TAUGHT_IN, rule_ids_of
from grader.intake.exercises import EXERCISES

PAGE = os.path.join(ROOT, "docs", "cheatsheet.md")


def _page():
    with open(PAGE, encoding="utf-8") as handle:
        return handle.read()


def graded_ids():
    """Every rule id a hidden case of any exercise carries (set of str)."""
    found = set()
    for exercise in EXERCISES:
        for ids in rule_ids_of(exercise.cases, CASES_DIR).values():
            found |= set(ids)
    return found


def test_every_graded_rule_is_on_the_cheat_sheet_and_no_other():
    areas = "|".join(sorted({*TAUGHT_IN, *OTHER_AREAS}))
    named = set(re.findall(r"`((?:%s)\.[a-z0-9-]+)`" % areas, _page()))
    graded = graded_ids()
    assert len(graded) > 70
    assert graded - named == set(), f"rules graded but not on docs/cheatsheet.md: {sorted(graded - named)}"
    assert named - graded == set(), f"ids on docs/cheatsheet.md that no case grades: {sorted(named - graded)}"


def test_every_rule_line_gives_its_reason():
    lines = [line for line in _page().splitlines() if line.startswith("- `")]
    assert len(lines) > 50
    without = [line[:60] for line in lines if not re.search(r"\*[^*]+\*\s*$", line)]
    assert without == [], f"rule lines without a reason in italics at their end: {without}"


def test_the_readme_links_the_cheat_sheet():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        assert "(docs/cheatsheet.md)" in handle.read()

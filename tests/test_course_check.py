"""The course check: every stub fails, every solution passes, every exercise has hint, cases and points;
every rule the capstone grades is graded in the step that teaches it."""

import re
import shutil
import subprocess
import sys

from conftest import ROOT
from course.check import CAPSTONE_ONLY, TAUGHT_IN, check_rule_coverage
from grader.exercises import EXERCISES
from grader.run import CASES_DIR

COVERAGE_LINES = 1 + len(set(TAUGHT_IN.values())) + len(CAPSTONE_ONLY)


def test_course_check_passes():
    process = subprocess.run([sys.executable, "-m", "course.check"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert process.returncode == 0, process.stdout + process.stderr
    assert process.stdout.rstrip().endswith("course check passed")
    assert process.stdout.count("  ok   ") == 6 * len(EXERCISES) + COVERAGE_LINES
    assert "FAIL" not in process.stdout


def copy_of_the_cases(tmp_path):
    """A copy of grader/cases to break (str)."""
    target = tmp_path / "cases"
    shutil.copytree(CASES_DIR, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def without_case(path, function):
    """Remove the test function ``function`` (with its decorators) from the case file at ``path``."""
    source = path.read_text(encoding="utf-8")
    blocks = re.split(r"\n\n\n(?=@|def |[A-Z_]+ = )", source)
    kept = [block for block in blocks if f"def {function}(" not in block]
    assert len(kept) == len(blocks) - 1, f"{function} not found once in {path}"
    path.write_text("\n\n\n".join(kept), encoding="utf-8")


def test_rule_coverage_passes_on_the_kit():
    results = check_rule_coverage()
    assert [sentence for ok, sentence in results if not ok] == []
    assert len(results) == COVERAGE_LINES
    validate = next(sentence for ok, sentence in results if sentence.startswith("validate-call "))
    assert int(re.search(r"each of the (\d+) capstone rules", validate).group(1)) >= 10


def test_rule_coverage_fails_when_a_step_case_is_removed(tmp_path):
    cases = copy_of_the_cases(tmp_path)
    without_case(cases / "schema" / "test_validate_call.py", "test_name_that_is_almost_registered")
    failed = [sentence for ok, sentence in check_rule_coverage(cases_dir=str(cases)) if not ok]
    assert len(failed) == 1
    assert failed[0].startswith("validate-call ") and "(missing: name.exact)" in failed[0]


def test_rule_coverage_fails_for_a_parse_rule_the_step_lacks(tmp_path):
    cases = copy_of_the_cases(tmp_path)
    without_case(cases / "parsing" / "test_parse_call.py", "test_trailing_comma_is_named_as_a_comma")
    failed = [sentence for ok, sentence in check_rule_coverage(cases_dir=str(cases)) if not ok]
    assert len(failed) == 1 and "(missing: parse.comma-hint)" in failed[0]


def test_rule_coverage_fails_for_a_capstone_case_without_rule_ids(tmp_path):
    cases = copy_of_the_cases(tmp_path)
    path = cases / "tool_call" / "test_04_dispatch.py"
    path.write_text(path.read_text(encoding="utf-8").replace('@rule_id("dispatch.result")\n', ""), encoding="utf-8")
    failed = [sentence for ok, sentence in check_rule_coverage(cases_dir=str(cases)) if not ok]
    assert len(failed) == 1 and "(no rule id: " in failed[0] and "test_dispatch_result_returned_unchanged" in failed[0]


def test_rule_coverage_fails_for_a_rule_no_step_teaches(tmp_path):
    cases = copy_of_the_cases(tmp_path)
    path = cases / "tool_call" / "test_04_dispatch.py"
    path.write_text(path.read_text(encoding="utf-8").replace('@rule_id("dispatch.result")', '@rule_id("audit.result")'),
                    encoding="utf-8")
    failed = [sentence for ok, sentence in check_rule_coverage(cases_dir=str(cases)) if not ok]
    assert len(failed) == 1 and "(no step teaches: audit.result)" in failed[0]


def test_a_capstone_only_rule_is_listed_once_with_its_reason():
    results = check_rule_coverage()
    for rule, reason in CAPSTONE_ONLY.items():
        lines = [sentence for ok, sentence in results if f"capstone only: {rule}," in sentence]
        assert len(lines) == 1 and reason in lines[0]
        assert rule.partition(".")[0] not in TAUGHT_IN

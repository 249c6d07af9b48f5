"""The course check: every stub fails, every solution passes, every exercise has hint, cases and points;
every rule the capstone grades is graded in the step that teaches it."""

import os
import re
import shutil
import subprocess
import sys

import pytest

import case_modules
from conftest import ROOT
from points import available
from course.check import CAPSTONE_ONLY, TAUGHT_IN, check_rule_coverage, check_rules_stated
from grader.intake.exercises import EXERCISES
from grader.paths import CASES_DIR, NOTEBOOKS_DIR

COVERAGE_LINES = 1 + len(set(TAUGHT_IN.values())) + len(CAPSTONE_ONLY)
STATED_LINES = len(EXERCISES) + len({exercise.notebook for exercise in EXERCISES})


def test_course_check_passes():
    process = subprocess.run([sys.executable, "-m", "course.check"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert process.returncode == 0, process.stdout + process.stderr
    assert process.stdout.rstrip().endswith("course check passed")
    assert process.stdout.count("  ok   ") == 6 * len(EXERCISES) + STATED_LINES + COVERAGE_LINES
    assert "FAIL" not in process.stdout


def copy_of_the_cases(tmp_path):
    """A copy of grader/judging/cases to break (str)."""
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


# -- issue 25: each notebook names every rule its cases grade ------------------------------------------------------

def copy_of_the_notebooks(tmp_path):
    """A copy of the learner notebooks to break (pathlib.Path)."""
    target = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS_DIR, target)
    return target


def test_every_notebook_names_the_rules_its_cases_grade():
    results = check_rules_stated()
    assert [sentence for ok, sentence in results if not ok] == []
    assert len(results) == STATED_LINES
    capstone = next(sentence for ok, sentence in results if "the capstone cases grade" in sentence)
    assert int(re.search(r"each of the (\d+) rules", capstone).group(1)) >= 40


def test_the_capstone_notebook_must_name_a_rule_it_grades(tmp_path):
    """The trial's learner followed notebook 5 alone and lost 5 points to 1e400 and a stray comma it never named."""
    notebooks = copy_of_the_notebooks(tmp_path)
    path = notebooks / "05_capstone.ipynb"
    text = path.read_text(encoding="utf-8")
    assert text.count("`parse.finite`") == 1
    path.write_text(text.replace("`parse.finite`", "finite numbers"), encoding="utf-8")
    failed = [sentence for ok, sentence in check_rules_stated(notebooks_dir=str(notebooks)) if not ok]
    assert failed == ["notebooks/05_capstone.ipynb names each of the 41 rules the capstone cases grade "
                      "(not named: parse.finite)"]


def test_a_step_handed_the_earlier_steps_may_leave_their_rules_to_their_notebooks(tmp_path):
    """Notebook 4 receives check: a parse rule is named in notebook 1, and notebook 4 need not repeat it; remove it
    from notebook 1 and both notebook 1 and notebook 4 fail."""
    notebooks = copy_of_the_notebooks(tmp_path)
    path = notebooks / "01_parsing.ipynb"
    path.write_text(path.read_text(encoding="utf-8").replace("`parse.comma-hint`", "the comma"), encoding="utf-8")
    failed = [sentence for ok, sentence in check_rules_stated(notebooks_dir=str(notebooks)) if not ok]
    assert [sentence.split(" names")[0] for sentence in failed] == ["notebooks/01_parsing.ipynb",
                                                                    "notebooks/04_retries.ipynb"]
    assert all(sentence.endswith("(not named: parse.comma-hint)") for sentence in failed)


def test_every_hidden_case_of_every_exercise_needs_rule_ids(tmp_path):
    cases = copy_of_the_cases(tmp_path)
    path = cases / "adapters" / "test_adapters.py"
    path.write_text(path.read_text(encoding="utf-8").replace('@rule_id("adapter.anthropic")\n', ""), encoding="utf-8")
    failed = [sentence for ok, sentence in check_rules_stated(cases_dir=str(cases)) if not ok]
    assert len(failed) == 2, failed
    assert "(no rule id: " in failed[0] and "test_from_anthropic" in failed[0]
    # The notebook still names the id no case grades now.
    assert failed[1] == "notebooks/06_beyond.ipynb names no rule that its cases do not grade (graded nowhere here: " \
                        "adapter.anthropic)"


# -- at least as strict: the step cases hold every input the capstone has for the rules repairs target --------------

def parametrized(function, argument):
    """The values a parametrized case gives ``argument`` (list)."""
    mark = next(mark for mark in function.pytestmark if mark.name == "parametrize")
    names = [name.strip() for name in mark.args[0].split(",")]
    values = [getattr(value, "values", (value,)) if len(names) == 1 else getattr(value, "values", value)
              for value in mark.args[1]]
    return [value[names.index(argument)] for value in values]


def test_validate_call_has_every_near_miss_name_of_the_capstone():
    capstone = case_modules.load("tool_call/test_02_names.py")
    step = case_modules.load("schema/test_validate_call.py")
    names = {name for group in step.NEAR_MISS_NAMES.values() for name, _ in group}
    assert set(parametrized(capstone.test_name_that_is_almost_right, "name")) <= names
    assert {"get_wether", ": get_weather"} <= names  # test_unknown_tool's misspelling; the real call's junk prefix
    sent = [name for name, _, _ in step.INVALID.values()]
    for name in capstone.NON_STRING_NAMES.values():
        assert any(type(name) is type(other) and name == other for other in sent), name
    registered = {name for group in step.NEAR_MISS_NAMES.values() for name, _ in group} & set(step.TYPED_TOOLS)
    assert registered == set(), "a near-miss name must not be registered"


def test_parse_call_has_every_non_object_of_the_capstone():
    capstone = case_modules.load("tool_call/test_01_parsing.py")
    step = case_modules.load("parsing/test_parse_call.py")
    raws = {raw for raw, _ in step.INVALID.values()}
    assert set(capstone.NON_OBJECTS.values()) <= raws


def test_validate_call_has_every_non_object_arguments_and_type_mistake_of_the_capstone():
    capstone = case_modules.load("tool_call/test_03_schema.py")
    step = case_modules.load("schema/test_validate_call.py")
    sent = [arguments for _, arguments, _ in step.INVALID.values()]
    for arguments in capstone.NON_OBJECT_ARGUMENTS.values():
        assert any(type(arguments) is type(other) and arguments == other for other in sent), arguments

    def mistakes(cases):
        """(tool's declared type name, sent type name, required?) of each mistyped field."""
        found = set()
        for name, arguments in cases:
            spec = capstone.TYPED_TOOLS.get(name) if isinstance(name, str) else None
            if not spec or not isinstance(arguments, dict):
                continue
            for field, value in arguments.items():
                declared = {**spec["required"], **spec["optional"]}.get(field)
                ok = declared is not None and (type(value) is declared or (declared is float and type(value) is int))
                if declared is not None and not ok:
                    found.add((declared.__name__, type(value).__name__, field in spec["required"]))
        return found

    assert mistakes(capstone.TYPE_ERRORS.values()) <= mistakes((n, a) for n, a, _ in step.INVALID.values())


def test_rule_coverage_fails_when_a_case_file_does_not_import(tmp_path):
    cases = copy_of_the_cases(tmp_path)
    path = cases / "tool_call" / "test_04_dispatch.py"
    path.write_text("import no_such_module_in_the_kit\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    results = check_rule_coverage(cases_dir=str(cases))
    assert len(results) == 1 and not results[0][0] and "could not collect the cases in tool_call" in results[0][1]


def test_grading_after_a_copy_of_the_cases_uses_the_real_case_files(tmp_path):
    """Found in the full test run: after course.check collected a changed copy of tool_call/ in this process,
    pytest's importlib mode reused the copy's module for the real file and the capstone lost its 14 dispatch
    cases (129 points became 115) without a word. The grader now forgets case modules loaded from elsewhere."""
    from grader.pipeline import grade

    cases = copy_of_the_cases(tmp_path)
    path = cases / "tool_call" / "test_04_dispatch.py"
    path.write_text(path.read_text(encoding="utf-8").replace('@rule_id("dispatch.result")\n', ""), encoding="utf-8")
    check_rule_coverage(cases_dir=str(cases))
    base = os.path.join(ROOT, "tests", "faulty", "base.py")
    result = grade(base, exercise_ids=["capstone"], cases_dir=str(cases))
    assert result.max_score == available("capstone")
    path.unlink()  # the copy's module is now stale in sys.modules, its file gone
    result = grade(base, exercise_ids=["capstone"])
    assert (result.score, result.max_score) == (available("capstone"), available("capstone")), result.notes
    assert sum(1 for c in result.cases if "test_04_dispatch" in c.case_id) == 14


def test_a_case_file_that_cannot_be_collected_is_an_internal_error_not_fewer_cases(tmp_path):
    """A grading run never silently drops a case file: the report says an internal error happened."""
    from grader.pipeline import grade

    cases = copy_of_the_cases(tmp_path)
    path = cases / "tool_call" / "test_04_dispatch.py"
    path.write_text("import no_such_module_in_the_kit\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    result = grade(os.path.join(ROOT, "tests", "faulty", "base.py"), exercise_ids=["capstone"], cases_dir=str(cases))
    assert any("internal grader error" in note for note in result.notes), result.notes


def bytecode_files(folder):
    """Every ``.pyc`` under ``folder`` (sorted list of str, relative)."""
    return sorted(os.path.relpath(os.path.join(base, name), folder)
                  for base, _, names in os.walk(folder) for name in names if name.endswith(".pyc"))


def test_reading_the_cases_writes_no_bytecode_into_the_graders_folder(tmp_path, monkeypatch):
    """Found by the suite in a shell without PYTHONDONTWRITEBYTECODE: the course check's collection and the tests'
    reading of case tables left ``.pyc`` files beside the cases, inside the grader's folder, and a grading running
    at that moment in another process was void ("the grader's own files changed"). Both must write nothing there,
    whatever the shell says about bytecode."""
    from course.check import rule_ids_of

    cases = copy_of_the_cases(tmp_path)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert len(rule_ids_of("schema", cases_dir=str(cases))) >= 10
    module = case_modules.load("json_schema/test_validate_arguments.py", cases_dir=cases)
    assert module.VALID["minimal"] == {"city": "Paris"}
    assert sys.dont_write_bytecode is False  # each put the setting back
    assert bytecode_files(cases) == []

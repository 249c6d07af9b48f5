"""A function that returns the same value whatever it is given earns nothing, in every exercise.

A constant ignores its input, so it can only pass a case by luck; each case that a constant could pass
counts only with a canary that a constant fails (grader/judging/canaries.py), or judges by difference. The table
runs the plausible constants (what a stub returns, what a lazy solution returns, a fixed sentence, the
shapes each exercise asks for) against every exercise's visible and hidden cases (issue 12: an observe
that always returned None earned a point).
"""

import pytest

from grader.intake.exercises import EXERCISES

CONSTANTS = {
    "none": None,
    "empty-string": "",
    "empty-list": [],
    "empty-dict": {},
    "true": True,
    "zero": 0,
    "sentence": "The tool call is invalid: check the name and the arguments against the schema.",
    "parse-pair-rejecting": (None, ["the call is not valid JSON"]),
    "parse-pair-accepting": ({"name": "get_weather", "arguments": {}}, []),
    "problem-list": ["unknown tool; missing required argument; wrong type; unknown argument"],
    "rejection": {"status": "rejected", "error": "The call was rejected: fix the name and the arguments."},
    "dispatched": {"status": "ok", "tool": "get_weather", "receipt": "00000000"},
    "tool-result": {"type": "tool_result", "tool_use_id": "toolu_01", "content": "error", "is_error": True},
    "raw-call": '{"name": "get_weather", "arguments": {"city": "Paris"}}',
}


def stub_source(exercise, constant):
    """A submission whose every function of ``exercise`` returns ``constant``, whatever it is given."""
    return "".join(f"def {name}(*args, **kwargs):\n    return {constant!r}\n\n\n" for name in exercise.functions)


@pytest.mark.parametrize("exercise", EXERCISES, ids=[e.id for e in EXERCISES])
def test_every_constant_earns_nothing(tmp_path, exercise):
    from graded import grade_ahead, graded_result

    earned, options = {}, ("--exercise", exercise.id)
    for label, constant in CONSTANTS.items():
        (tmp_path / f"{label}.py").write_text(stub_source(exercise, constant), encoding="utf-8")
    grade_ahead([(tmp_path / f"{label}.py", options) for label in CONSTANTS])  # ahead, in pool processes (tests/graded.py)
    for label in CONSTANTS:
        result = graded_result(tmp_path / f"{label}.py", *options)
        assert result.max_score > 0 and result.error is None
        if result.score:
            earned[label] = [c.title for c in result.cases if c.passed]
    assert earned == {}

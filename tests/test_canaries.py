"""Canaries cannot be found by counting calls: each runs several times, before cases drawn at random."""

import pytest

from grader.judging.canaries import CITIES, RUNS_PER_KIND, not_an_object, unknown_name, valid_call
from grader.judging.registries import SEED_TOOLS
from grader.pipeline import grade

DISPATCH_ONLY_CALL_N = '''
import json
CALLS = [0]


def handle_tool_call(raw, ask_model):
    CALLS[0] += 1
    if CALLS[0] == {n}:
        try:
            call = json.loads(raw)
            return dispatch(call["name"], call.get("arguments") or {{}})  # noqa: F821
        except Exception:
            pass
    try:
        ask_model("invalid call")
    except Exception:
        pass
    return {{"status": "rejected", "error": "invalid call"}}
'''


@pytest.mark.parametrize("n", range(1, 7))
def test_dispatching_only_the_nth_call_earns_no_hidden_point(tmp_path, n):
    """With one canary at a fixed place, "dispatch only the 3rd call" scored 64 of 116 (an adversarial test)."""
    path = tmp_path / f"try_{n}.py"
    path.write_text(DISPATCH_ONLY_CALL_N.format(n=n), encoding="utf-8")
    result = grade(path)
    assert sum(c.points for c in result.cases if c.visibility == "hidden") == 0
    assert any(c.feedback.startswith("Not counted: ") for c in result.cases)


def test_canary_inputs_look_like_ordinary_inputs():
    """No suffix, no marker: values a regular expression could single out are not used."""
    assert RUNS_PER_KIND >= 2
    for _ in range(50):
        raw, arguments = valid_call()
        assert arguments["city"] in CITIES and set(arguments) <= {"city", "units"}
        assert unknown_name() not in SEED_TOOLS
        assert not not_an_object().lstrip().startswith("{")

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


def test_a_validate_call_that_knows_only_the_seed_registry_earns_nothing_on_any_draw(monkeypatch):
    """Found by the suite (about 1 grading in 27): each canary run drew one registry, the seed's with odds of 1 in 3,
    so all three "accepts" runs sometimes fell on it and tests/hostile/recognises_the_canary_registry.py, which
    validates only the seed's registry and refuses every other call, kept 35 points. Here every draw of
    ``secrets.choice`` takes the last item (the seed's registry was the last of the canaries' registries): the
    canaries must still see it refuse a valid call."""
    import os
    import secrets

    from grader.paths import KIT_ROOT

    monkeypatch.setattr(secrets, "choice", lambda items: list(items)[-1])
    result = grade(os.path.join(KIT_ROOT, "tests", "hostile", "recognises_the_canary_registry.py"))
    assert [c.exercise_id for c in result.cases][:1] == ["validate-call"]
    assert sum(c.points for c in result.cases) == 0
    assert any("failed the grader's check that it can accept a plainly valid input" in n for n in result.notes)


OBSERVE_ON_THE_SEED_REGISTRY_ONLY = '''
def observe(call, problems, tools):
    if set(tools) != {"get_weather"}:
        return "Tool call rejected; nothing was executed. Check the call and send it again."
    if not problems:
        return None
    lines = "; ".join(" ".join(str(p).split())[:200] for p in problems[:10])
    return f"Tool call rejected ({len(problems)} problems); nothing was executed. Fix them and resend: {lines}"
'''


def test_an_observe_that_knows_only_the_seed_registry_is_caught_on_every_draw(tmp_path, monkeypatch):
    """The same kind as the validate_call above, written anew for observe: it answers properly on the seed's registry
    and refuses every call on any other. Whichever registries the draws favour (first item or last), the canary
    that checks a plainly valid call is accepted fails, and the score is the same."""
    import secrets

    path = tmp_path / "observe_seed_only.py"
    path.write_text(OBSERVE_ON_THE_SEED_REGISTRY_ONLY, encoding="utf-8")
    scores = []
    for pick in (0, -1):
        monkeypatch.setattr(secrets, "choice", lambda items, pick=pick: list(items)[pick])
        result = grade(str(path), exercise_ids=["observe"])
        assert any("failed the grader's check that it can accept a plainly valid input" in n for n in result.notes), pick
        scores.append(sum(c.points for c in result.cases))
    assert scores[0] == scores[1]

"""Widgets work without a frontend: their plain-text fallback shows the content, and they respond to input."""

import re

import solutions
from grader.learner.progress import course_progress, format_progress
from grader.learner.widgets import Playground, ProgressView, RetrySimulator, kit_check


def broken_observe(call, problems, tools):
    raise KeyError("oops")


def test_playground_shows_both_verdicts_as_text_and_reacts_to_typing():
    playground = Playground(solutions.observe)
    text = playground._repr_mimebundle_()["text/plain"]
    assert "Your observe():\nNone: the call would be dispatched" in text
    playground.raw.value = '{"name": "get_weather", "arguments": {"city": 1}}'
    assert playground.result.value.count("argument &#x27;city&#x27; is the integer 1") == 2  # yours and the reference
    labels = list(playground.picker.options)
    assert any(label.startswith("real: ") for label in labels) and len(labels) >= 15
    playground.picker.value = next(label for label in labels if "hallucinated" in label)
    assert "multi_tool_use.parallel" in playground.raw.value


def test_the_playground_labels_the_real_calls_in_the_notebook_language():
    """A Russian learner's trial read «реальный: hallucinated tool name»: the real calls' categories are in the catalog
    too, so a Russian notebook's playground labels them in Russian; the calls themselves stay as reported."""
    from grader.learner.widgets import playground_examples
    from grader.translations import speaking

    english = playground_examples()
    with speaking("ru"):
        russian = playground_examples()
    assert [raw for _label, raw in russian] == [raw for _label, raw in english]
    real = [label for label, _raw in russian if label.startswith("реальный: ")]
    assert len(real) == len([label for label, _raw in english if label.startswith("real: ")]) >= 10
    assert "реальный: выдуманное имя инструмента" in real
    assert not [label for label in real if re.search(r"\b[a-z]{4,} [a-z]{4,}\b", label)], real


def test_playground_survives_a_function_that_raises():
    text = Playground(broken_observe).as_text()
    assert "your function raised KeyError: 'oops'" in text


def test_retry_simulator_steps_through_the_transcript():
    simulator = RetrySimulator(lambda raw, ask, dispatch: solutions.run_tool_call(raw, ask, solutions.TOOLS, dispatch, kit_check))
    assert simulator.shown == 1 and not simulator.step_button.disabled
    simulator.picker.value = "a model that never corrects itself"
    for _ in range(10):
        simulator.step_button.click()
    assert simulator.step_button.disabled and "End of the transcript" in simulator.view.value
    text = simulator._repr_mimebundle_()["text/plain"]
    never = text.split("With a model that never corrects itself:")[1].split("\n\nWith ")[0]
    assert never.count("observation sent to the model") == 1 and "'status': 'rejected'" in never
    assert "the model client raised TimeoutError" in text and "dispatch('get_weather', {'city': 'Paris'})" in text
    assert text.count("\n\nWith ") == len(simulator.scenarios) - 1


def test_progress_of_the_shipped_notebooks_is_not_started():
    rows = course_progress()
    assert [r.state for r in rows] == ["not started"] * len(rows)
    assert format_progress(rows).endswith(f"0 of {len(rows)} exercises done.")
    assert "not started" in ProgressView()._repr_mimebundle_()["text/plain"]


def test_progress_grades_started_and_solved_notebooks(tmp_path):
    import shutil

    from conftest import ROOT

    shutil.copytree(f"{ROOT}/solutions/notebooks", tmp_path, dirs_exist_ok=True)
    rows = course_progress(str(tmp_path))
    from points import available

    assert [(r.state, r.score, r.max_score) for r in rows] == [("done", available(r.exercise.id), available(r.exercise.id))
                                                               for r in rows] and len(rows) == 12


def test_without_the_kits_steps_the_views_use_the_learners_own_saved_steps(monkeypatch):
    """A student release has no reference: the playground and the simulator's check use the learner's own
    parse_call, validate_call and observe from their saved notebooks 1 to 3 (here the solved ones; issue 11)."""
    import os

    import grader.paths
    from grader.judging import reference_steps
    from conftest import ROOT

    monkeypatch.setattr(reference_steps, "available", lambda: False)
    monkeypatch.setattr(grader.paths, "NOTEBOOKS_DIR", os.path.join(ROOT, "solutions", "notebooks"))
    playground = Playground(solutions.observe)
    yours, reference = playground.verdicts('{"name": "get_weather", "arguments": {"city": 1}}')
    assert "argument 'city' is the integer 1" in yours  # the problem text came from the solved notebook 2
    call, observation = kit_check('{"name": "get_weather", "arguments": {"city": 1}}', solutions.TOOLS)
    assert call == {"name": "get_weather", "arguments": {"city": 1}} and "argument 'city' is the integer 1" in observation
    monkeypatch.setattr(grader.paths, "NOTEBOOKS_DIR", os.path.join(ROOT, "notebooks"))  # the shipped stubs
    assert kit_check("{}", solutions.TOOLS)[1].startswith("Your own steps from notebooks 1 and 2 check the call here, "
                                                          "and one raised NotImplementedError")

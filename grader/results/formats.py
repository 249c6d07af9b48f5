"""Every file format of one GradeResult besides the text report: Gradescope's results.json, Exercism's, JUnit XML.

- Gradescope's results.json (gradescope/autograder_samples docs/specs.md): ``gradescope_results``, with the
  visibility of hidden cases and of the score an instructor chose.
- Exercism test-runner interface (exercism/docs, building/tooling/test-runners/interface.md),
  version 3: top-level ``version``, ``status`` (``pass``/``fail``/``error``; error means the tests
  could not run, with a ``message``), ``tests[]`` in order with ``name``, ``status``, ``message``,
  ``output`` (at most 500 characters, with a truncation note) and ``task_id``.
- JUnit XML, the shape CI systems read: one ``<testsuite>`` per exercise, one ``<testcase>`` per case,
  ``<failure>`` carrying the feedback; ``<properties>`` name the grader's version and fingerprint.
"""

import xml.etree.ElementTree as ElementTree

from grader.isolation.sanitise import strip_controls
from grader.results.grade_result import points_text
from grader.results.provenance import provenance
from grader.results.text_report import capped
from grader.translations import N_, _, say

EXERCISM_OUTPUT_LIMIT = 500


def _exercism_output(text):
    if len(text) <= EXERCISM_OUTPUT_LIMIT:
        return text
    note = "\n… (output truncated)"
    return text[: EXERCISM_OUTPUT_LIMIT - len(note)] + note


def exercism_results(result):
    """Exercism results.json (version 3) for a ``grader.results.grade_result.GradeResult``.

    Returns:
        dict, JSON-serialisable. ``task_id`` numbers the exercises from 1 in the order graded.
    """
    if result.error:
        return {"version": 3, "status": "error", "message": result.error, "tests": []}
    task_ids = {title: number for number, title in enumerate(result.exercises(), start=1)}
    tests = []
    for group, cases in result.groups():
        for case in cases:
            entry = {"name": f"{group}: {case.title}", "status": "pass" if case.passed else "fail",
                     "task_id": task_ids[case.exercise]}
            if not case.passed:
                entry["message"] = (case.rule_line() + "\n" if case.rule else "") + case.feedback
            if case.output.strip():
                entry["output"] = _exercism_output(case.output.strip())
            tests.append(entry)
    status = "pass" if tests and all(t["status"] == "pass" for t in tests) else "fail"
    return {"version": 3, "status": status, "tests": tests}


def junit_xml(result):
    """JUnit XML text for a ``grader.results.grade_result.GradeResult`` (one testsuite per exercise).

    Returns:
        str, an XML document.
    """
    # The path is the submitter's choice of name: control characters would also make the XML invalid.
    root = ElementTree.Element("testsuites", name=strip_controls(result.submission), tests=str(len(result.cases)),
                               failures=str(sum(not c.passed for c in result.cases)),
                               time=f"{result.execution_time:.3f}")
    suites = {}
    for case in result.cases:
        suite = suites.get(case.exercise)
        if suite is None:
            suite = suites[case.exercise] = ElementTree.SubElement(root, "testsuite", name=case.exercise)
        testcase = ElementTree.SubElement(suite, "testcase", classname=case.group, name=case.title)
        if not case.passed:
            failure = ElementTree.SubElement(testcase, "failure", message=case.feedback[:200])
            failure.text = (case.rule_line() + "\n" if case.rule else "") + case.feedback
        if case.output.strip():
            ElementTree.SubElement(testcase, "system-out").text = case.output
    for name, suite in suites.items():
        cases = [c for c in result.cases if c.exercise == name]
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(sum(not c.passed for c in cases)))
    properties = ElementTree.SubElement(root, "properties")
    for name, value in {**provenance(), **drawn_with(result)}.items():  # which grader, draw and walls produced it
        ElementTree.SubElement(properties, "property", name=name, value=value)
    if result.error:
        ElementTree.SubElement(properties, "property", name="error", value=result.error)
    return ElementTree.tostring(root, encoding="unicode", xml_declaration=True)


def drawn_with(result):
    """How a result was produced, besides the grader (dict of str): ``seed`` for hidden inputs drawn with a known
    seed (with the grader's version and fingerprint, what reproduces the result: ``grader.judging.draw``), and
    ``isolation``, the walls that stood around the worker (``grader.isolation.protections.walls_line``); each
    left out when unknown."""
    return {**({"seed": result.seed} if result.seed else {}),
            **({"isolation": result.isolation} if result.isolation else {})}


def case_output(case):
    """The ``output`` text of one case in results.json: rule and feedback, plus printed output."""
    if case.passed:
        return f"{_(PASSED)} {case.rule_line()}" if case.rule else _(PASSED)
    parts = [case.rule_line()] if case.rule else []
    parts.append(_("What happened: {feedback}").format(feedback=case.feedback))
    if case.output.strip():
        parts.append(_("Your code printed:") + "\n" + capped(case.output))
    return "\n".join(parts)


# Gradescope's visibility values (autograder_samples docs/specs.md), from least to most shown.
VISIBILITIES = ("hidden", "after_published", "after_due_date", "visible")


# The sentence about the withheld cases, by Gradescope's visibility (each one whole: the verb agrees in Russian).
WHEN_SHOWN = {
    "hidden": N_("The hidden cases ({points} points) and your total are seen by your instructor only."),
    "after_published": N_("The hidden cases ({points} points) and your total are shown when your instructor publishes "
                          "the grades."),
    "after_due_date": N_("The hidden cases ({points} points) and your total are shown after the due date."),
    "visible": N_("The hidden cases ({points} points) and your total are shown now."),
}
PASSED = N_("Passed.")


def gradescope_results(result, hidden_visibility="visible", score_visibility="visible"):
    """Build Gradescope's results.json (gradescope/autograder_samples docs/specs.md) as a dict.

    Top level: ``score`` (earned points), ``execution_time`` (s), ``output`` (summary),
    ``visibility``, ``stdout_visibility``, ``extra_data`` (``grader.results.provenance.provenance()``: which grader
    produced it), ``tests``. Each test: ``name``, ``number``, ``score``, ``max_score``, ``status``
    (``passed``/``failed``), ``output``, ``visibility``, ``tags`` (case group, visibility),
    ``extra_data`` (``{"exercise": id}``).

    Args:
        result: ``grader.results.grade_result.GradeResult``.
        hidden_visibility: the ``visibility`` of every hidden case, one of ``VISIBILITIES``. Hidden
            cases never show their input, so ``"visible"`` is safe for a learner's own run; on
            Gradescope it lets students probe the hidden suite by resubmitting, so the bundle sets
            ``"after_due_date"`` by default. Visible cases are always ``"visible"``.
        score_visibility: the top-level ``visibility`` (Gradescope's assignment-level setting, the
            default for tests without their own). Gradescope hides the total score while any test
            that carries points is not yet shown, so the ``output`` then names the visible part only.
    Raises:
        ValueError: a visibility that is not one of ``VISIBILITIES``.
    """
    for value in (hidden_visibility, score_visibility):
        if value not in VISIBILITIES:
            raise ValueError(f"visibility must be one of {', '.join(VISIBILITIES)}, not {value!r}")
    tests = []
    for group_number, (group, cases) in enumerate(result.groups(), start=1):
        for case_number, case in enumerate(cases, start=1):
            tests.append({
                "name": f"{group}: {case.title}",
                "number": f"{group_number}.{case_number}",
                "score": case.points,
                "max_score": case.max_points,
                "status": "passed" if case.passed else "failed",
                "output": case_output(case),
                "visibility": "visible" if case.visibility == "visible" else hidden_visibility,
                "tags": [group, case.visibility],
                "extra_data": {"exercise": case.exercise_id},
            })
    withheld = [case for case in result.cases if case.visibility != "visible" and hidden_visibility != "visible"]
    if withheld or score_visibility != "visible":
        # The total would give away what the withheld cases scored: show the visible part only.
        visible = [case for case in result.cases if case.visibility == "visible"]
        summary = [say("Visible self-checks: {passed} of {count} passed ({points} of {max} points).",
                       passed=sum(c.passed for c in visible), count=len(visible),
                       points=points_text(sum(c.points for c in visible)),
                       max=points_text(sum(c.max_points for c in visible)))]
        if withheld:
            summary.append(_(WHEN_SHOWN[hidden_visibility]).format(
                points=points_text(sum(c.max_points for c in withheld))))
    else:
        summary = [_("Score: {score} / {max} points").format(score=points_text(result.score),
                                                             max=points_text(result.max_score))]
    if result.error:
        summary.append(_("Could not grade: {error}").format(error=result.error))
    summary += [_("Note: {note}").format(note=strip_controls(note)) for note in result.notes]
    return {
        "score": result.score,
        "execution_time": round(result.execution_time, 3),
        "output": "\n".join(summary),
        "visibility": score_visibility,
        "stdout_visibility": "hidden",
        "extra_data": {**provenance(), **drawn_with(result)},
        "tests": tests,
    }


# PrairieLearn reads at most 1 MB of results.json (docs/externalGrading.md, "Grading results"); the kit stays below
# this many bytes of UTF-8, leaving room for what PrairieLearn adds.
PRAIRIELEARN_RESULTS_BYTES = 900_000


def prairielearn_results(result, format_errors=(), limit=PRAIRIELEARN_RESULTS_BYTES):
    """Build PrairieLearn's results.json (PrairieLearn/PrairieLearn docs/externalGrading.md) as a dict.

    A gradable upload: ``gradable`` true, ``score`` (float, 0 to 1: the points earned over the points available),
    ``message`` (the summary and the notes), ``tests`` (one per case: ``name``, ``description`` (the rule),
    ``points``, ``max_points`` (floats), ``message`` (what happened; "Passed." when it passed), ``output`` (what the
    code printed, capped)), and ``kit`` (which grader and draw produced it: ``provenance()``, ``drawn_with``).
    Hidden cases show their rule and what happened, never their input, as in every report of the kit.

    An upload that cannot be graded (``format_errors`` not empty): ``gradable`` false and ``format_errors`` (list of
    one-sentence str), so PrairieLearn awards no points and uses no attempt; no ``score``.

    Args:
        result: ``grader.results.grade_result.GradeResult``.
        format_errors: sentences saying why the upload cannot be graded (iterable of str; empty: it can).
        limit: the most bytes the JSON text may take (int): the longest texts are cut, outputs first, until it fits.
    Returns:
        dict, JSON-serialisable, whose ``json.dumps`` stays within ``limit`` bytes.
    """
    format_errors = [strip_controls(error) for error in format_errors]
    kit = {**provenance(), **drawn_with(result)}
    if format_errors:
        return _fitted({"gradable": False, "format_errors": format_errors,
                        "message": say("Not graded: {errors} No attempt was used.", errors=" ".join(format_errors)),
                        "kit": kit}, limit)
    tests = []
    for group, cases in result.groups():
        for case in cases:
            tests.append({
                "name": f"{group}: {case.title}",
                "description": case.rule_line() if case.rule else "",
                "points": float(case.points),
                "max_points": float(case.max_points),
                "message": _(PASSED) if case.passed else case.feedback,
                "output": capped(case.output) if case.output.strip() else "",
            })
    summary = [_("Score: {score} / {max} points").format(score=points_text(result.score),
                                                         max=points_text(result.max_score))]
    if result.error:
        summary.append(_("Could not grade: {error}").format(error=result.error))
    summary += [_("Note: {note}").format(note=strip_controls(note)) for note in result.notes]
    score = result.score / result.max_score if result.max_score else 0.0
    return _fitted({"gradable": True, "score": min(1.0, max(0.0, float(score))), "message": "\n".join(summary),
                    "tests": tests, "kit": kit}, limit)


def _size(results):
    """The bytes ``grader.results.atomic_write.write_json_atomically`` writes for ``results`` (int)."""
    import json

    return len((json.dumps(results, indent=2, ensure_ascii=False) + "\n").encode("utf-8", "replace"))


def _fitted(results, limit):
    """``results`` with its longest texts cut (tests' outputs, then their messages, then the top message) until the
    JSON takes at most ``limit`` bytes; each cut text ends with a note saying so."""
    note = "… " + _("(cut to keep the results within PrairieLearn's 1 MB)")
    for key, floor in (("output", 0), ("message", 200), ("description", 200)):
        cap = 20_000
        while _size(results) > limit and cap > floor:
            cap //= 2
            for test in results.get("tests", []):
                if len(test[key]) > max(cap, floor):
                    test[key] = test[key][:max(cap, floor)] + note
    cap = 100_000
    while _size(results) > limit and cap > 1_000:
        cap //= 2
        for key in ("message",):
            if len(results[key]) > cap:
                results[key] = results[key][:cap] + note
        if results.get("format_errors"):
            results["format_errors"] = [error[:cap] for error in results["format_errors"]]
    if _size(results) > limit and results.get("tests"):
        # Still too big (thousands of cases): keep the score, and say where the details are.
        kept = results["tests"]
        while kept and _size({**results, "tests": kept}) > limit:
            kept = kept[: len(kept) // 2]
        results["tests"] = kept
        results["message"] += "\n" + say("Note: only the first {count} cases are listed, to keep within PrairieLearn's "
                                         "1 MB.", count=len(kept))
    return results

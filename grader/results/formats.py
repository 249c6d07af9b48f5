"""Other result formats from the same GradeResult: Exercism's results.json and JUnit XML.

- Exercism test-runner interface (exercism/docs, building/tooling/test-runners/interface.md),
  version 3: top-level ``version``, ``status`` (``pass``/``fail``/``error``; error means the tests
  could not run, with a ``message``), ``tests[]`` in order with ``name``, ``status``, ``message``,
  ``output`` (at most 500 characters, with a truncation note) and ``task_id``.
- JUnit XML, the shape CI systems read: one ``<testsuite>`` per exercise, one ``<testcase>`` per case,
  ``<failure>`` carrying the feedback; ``<properties>`` name the grader's version and fingerprint.
"""

import xml.etree.ElementTree as ElementTree

from grader.results.provenance import provenance
from grader.isolation.sanitise import strip_controls

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
                entry["message"] = (f"Rule: {case.rule}\n" if case.rule else "") + case.feedback
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
            failure.text = (f"Rule: {case.rule}\n" if case.rule else "") + case.feedback
        if case.output.strip():
            ElementTree.SubElement(testcase, "system-out").text = case.output
    for name, suite in suites.items():
        cases = [c for c in result.cases if c.exercise == name]
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(sum(not c.passed for c in cases)))
    properties = ElementTree.SubElement(root, "properties")
    for name, value in provenance().items():  # which grader produced this (grader.results.provenance)
        ElementTree.SubElement(properties, "property", name=name, value=value)
    if result.error:
        ElementTree.SubElement(properties, "property", name="error", value=result.error)
    return ElementTree.tostring(root, encoding="unicode", xml_declaration=True)

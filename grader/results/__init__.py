"""Results: one ``GradeResult`` and every way it is written out.

``grade_result`` holds the result types; ``text_report`` the learner's report; ``formats``
Exercism's and JUnit's files; ``provenance`` which grader produced a result, and the licenses.
"""

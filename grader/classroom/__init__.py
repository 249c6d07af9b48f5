"""Classroom: the instructor's commands over the pipeline.

``cli`` is ``python -m grader`` (one submission); ``batch`` grades a class; ``gradebook`` writes its
tables; ``gradescope_bundle`` builds Gradescope's autograder; ``nbgrader_entry`` is what nbgrader's
test cells run; ``assignment`` chooses an assignment's exercises.
"""

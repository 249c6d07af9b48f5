"""Intake: untrusted bytes become a submission, and nothing of it runs here.

``extract`` reads a ``.py`` file or a notebook into code chunks (IPython syntax turned into Python on
the grader's side); ``exercises`` knows the course's exercises (``exercises.json``) and finds which a
submission holds.
"""

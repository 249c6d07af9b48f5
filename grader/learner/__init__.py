"""The learner's side: what runs in the learner's own kernel or terminal.

``selfcheck`` runs the visible cases in the notebook; ``widgets`` the playground, retry simulator and
progress view; ``progress`` grades the saved notebooks; ``command`` is ``python -m grader.learner``.
"""

"""Isolation: where submission code runs, and the boundary around it.

``worker`` is the untrusted side (its own process; it imports nothing of the grader); ``sandbox``
starts it with limits and talks to it; ``kernel_rules`` holds Landlock and seccomp (Linux);
``sanitise`` makes text a submission influenced safe to print and store.
"""

"""The kit's autograder: one package per stage of the data flow, each a trust boundary (docs/grader.md).

``intake`` (untrusted bytes -> a submission; nothing runs) -> ``isolation`` (the worker process and the boundary
around it) -> ``judging`` (the cases, in the grader's process) -> ``results`` (one ``GradeResult`` and its
formats). ``pipeline.grade`` ties them together; ``paths`` knows where everything is. Beside them: ``classroom``
(``python -m grader``, the batch, Gradescope, nbgrader), ``learner`` (self-check, widgets, progress) and
``insight`` (the class report).

The kit's version is defined here, once: ``pyproject.toml`` reads it, ``python -m grader --version``
prints it, and every results.json and gradebook carries it (``grader.results.provenance``). CHANGELOG.md says what
changed in each version, scores included.
"""

__version__ = "2.0.0"

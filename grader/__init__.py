"""The kit's autograder.

Data flow, one module per step:
``extract`` (submission -> code chunks) -> ``sandbox`` + ``worker`` (isolated execution) ->
``harness`` (the trusted side: scripted model and dispatcher, transcripts) -> ``cases/`` judged by
``expectations`` (pytest tests, collected by ``plugin``) -> ``scoring`` (result model) ->
``report`` (text report, Gradescope results.json). ``run.grade`` ties them together; ``cli`` is
``python -m grader``.

The kit's version is defined here, once: ``pyproject.toml`` reads it, ``python -m grader --version``
prints it, and every results.json and gradebook carries it (``grader.results.provenance``). CHANGELOG.md says what
changed in each version, scores included.
"""

__version__ = "2.0.0"

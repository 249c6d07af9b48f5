"""The hidden case files of ``grader/judging/cases``, imported by path for the tests that read their tables.

The case folders are not packages, so a case file is loaded from its path. Nothing is written beside it: a
``.pyc`` that appears in the grader's folder while another process grades voids that grading, because
``grader.pipeline.grade`` compares the folder before and after. The suite runs several processes at once, and
a shell without ``PYTHONDONTWRITEBYTECODE`` used to see one or two void gradings a run.
"""

import importlib.util
import os
import warnings

import pytest

from grader.paths import CASES_DIR
from grader.pipeline import no_bytecode_writes


def load(relative, cases_dir=CASES_DIR):
    """Import one case file.

    Args:
        relative: the file's path under ``cases_dir``, with ``/`` (str), e.g. ``"schema/test_validate_call.py"``.
        cases_dir: the folder that holds the case folders (str or path-like).
    Returns:
        the module. It has a name of its own (``case_`` and the path), so it is not shared with pytest's
        collection of the same file.
    Raises:
        FileNotFoundError: no such file; any error the case file raises while it loads.
    """
    path = os.path.join(os.fspath(cases_dir), *relative.split("/"))
    spec = importlib.util.spec_from_file_location("case_" + relative.replace("/", "_")[:-3], path)
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings(), no_bytecode_writes():
        # The grader's plugin registers its marks (points, rule, gate) when it runs the cases; unknown here.
        warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
        spec.loader.exec_module(module)
    return module

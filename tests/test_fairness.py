"""What runs in Jupyter (or under ``python``) grades the same: correct solutions in ordinary styles get full marks.

One block per kind of the second adversarial round (issue 12), each with inputs written for it (the round's own
files are in test_attacks.py): how a ``.py`` file is decoded, IPython syntax, compiler flags kept from cell to cell,
cells split on newlines only, standard-library modules that import internals, relative paths in the scratch
folder, exercises found by the names a cell binds, and the sentence a learner gets at each limit that remains.
The correct solutions are tests/faulty/base.py (the capstone) and the faulty library's step bases, restyled.
"""

import ast
import os

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from conftest import ROOT
from faulty.step_faults import BASES
from grader.intake.extract import SubmissionError, extract, ipython_to_python
from grader.pipeline import grade
from points import available

with open(os.path.join(ROOT, "tests", "faulty", "base.py"), encoding="utf-8") as _handle:
    BASE = _handle.read()
# base.py in two parts: everything up to its entry point, and the entry point.
HELPERS, _, ENTRY = BASE.partition("def handle_tool_call(raw, ask_model):")
ENTRY = "def handle_tool_call(raw, ask_model):" + ENTRY
PREFIX = "Tool call rejected; nothing ran. Fix and resend:"


def full_marks(result, exercise_max=None):
    """Assert a GradeResult has every point (and, when given, that maximum)."""
    failed = [f"{c.title}: {c.feedback}" for c in result.cases if not c.passed]
    assert not failed and result.error is None, (result.notes, failed[:3])
    assert result.score == result.max_score == (exercise_max or result.max_score) > 0


def write_py(tmp_path, source, name="submission.py", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(source.encode(encoding) if isinstance(source, str) else source)
    return path


def write_notebook(tmp_path, *cells, name="submission.ipynb"):
    path = tmp_path / name
    nbformat.write(new_notebook(cells=[new_code_cell(source) for source in cells]), path)
    return path


# -- 1. a .py file is decoded as Python decodes it ---------------------------------------------------------

def test_a_file_that_names_files_next_to_itself_with_dunder_file_gets_full_marks(tmp_path):
    """Issue 41's learner trial: an ordinary first line, a log file next to the script through __file__, scored
    0/129 (NameError while loading). __file__ now names the file in the working folder, as python sets it."""
    here = "pathlib.Path(" "__file__)"  # the learner's idiom (split: tests/test_paths.py looks for it in the kit)
    source = ("import logging, pathlib\n"
              f"LOG_PATH = {here}.with_name('runtime.log')\n"
              "logging.basicConfig(filename=LOG_PATH, level=logging.INFO)\n"
              f"assert {here}.name == 'submission.py'\n" + BASE)
    full_marks(grade(write_py(tmp_path, source)), available("capstone"))


@pytest.mark.parametrize("header, text, encoding", [
    ("# -*- coding: latin-1 -*-\n", "Appel refusé; rien n'a été exécuté.", "latin-1"),
    ("# vim: set fileencoding=cp1252 :\n", "Tool call rejected – nothing ran. “Fix” and resend:", "cp1252"),
    ("\ufeff# coding: utf-8\n", "Aufruf abgelehnt; nichts ausgeführt. Bitte korrigieren:", "utf-8"),
], ids=["latin-1-cookie", "cp1252-cookie", "bom-and-utf8-cookie"])
def test_a_file_in_the_encoding_it_declares_gets_full_marks(tmp_path, header, text, encoding):
    source = header + BASE.replace(PREFIX, text)
    full_marks(grade(write_py(tmp_path, source, encoding=encoding)), available("capstone"))


def test_a_file_naming_an_encoding_python_does_not_know_gets_one_sentence(tmp_path):
    path = write_py(tmp_path, "# -*- coding: klingon -*-\n" + BASE)
    with pytest.raises(SubmissionError) as info:
        extract(path)
    assert str(info.value) == "submission.py cannot be read as Python source (unknown encoding: klingon); save it as UTF-8."


# -- 2. IPython syntax, turned into Python by IPython's own transformer ---------------------------------------

def test_a_capture_cell_with_line_magics_and_help_gets_full_marks(tmp_path):
    path = write_notebook(tmp_path, "%time START = 1\nlen?\n%matplotlib inline",
                          "%%capture output --no-stderr\n" + HELPERS + "print('captured')", ENTRY)
    result = grade(path)
    full_marks(result, available("capstone"))
    assert not any("Not run while grading" in note for note in result.notes)  # everything here runs as in Jupyter


def test_shell_commands_and_shell_cell_magics_are_skipped_with_a_sentence(tmp_path):
    path = write_notebook(tmp_path, "!pip install requests\nfiles = !ls\nassert files == []", "%%bash\necho hi",
                          BASE, "%%html\n<b>done</b>")
    result = grade(path)
    full_marks(result, available("capstone"))
    note = next(note for note in result.notes if note.startswith("Not run while grading"))
    assert note.startswith("Not run while grading: !pip, !ls, %%bash. Shell commands (!...) and magics that need a "
                           "Jupyter kernel or another process cannot run in the grader's sandbox")


def test_an_indented_cell_and_a_timeit_cell_run_as_in_ipython(tmp_path):
    indented = "\n".join("    " + line if line else line for line in BASE.splitlines())
    # IPython removes a cell's common indent; %%timeit runs its body in a namespace of its own, so the
    # handle_tool_call it assigns never replaces the real one.
    path = write_notebook(tmp_path, indented, "%%timeit -n1 -r1\nhandle_tool_call = None", "%time _ = 1 + \\\n    2",
                          "%timeit -n 1 -r1 handle_tool_call = None\n%prun -q -s cumulative PROFILED = 1",
                          "assert PROFILED == 1")  # %prun runs in the notebook's namespace
    result = grade(path)
    full_marks(result, available("capstone"))
    assert not [note for note in result.notes if "raised" in note or "syntax error" in note]


def test_top_level_await_runs_as_in_ipython(tmp_path):
    path = write_notebook(tmp_path, "import asyncio\nDELAY = await asyncio.sleep(0, result=0)", BASE,
                          "checked = await asyncio.sleep(0, result=handle_tool_call)\nassert checked is handle_tool_call")
    result = grade(path)
    full_marks(result, available("capstone"))
    assert not [note for note in result.notes if "raised" in note or "syntax error" in note]


def test_a_cell_that_imports_from_ipython_gets_full_marks(tmp_path):
    """Issue 25's learner trial: "from IPython.display import display" failed while loading ("No module named
    'IPython'") and the rest of that cell, the solution with it, was lost. What a notebook uses most now runs."""
    path = write_notebook(tmp_path,
                          "from IPython.display import display, Markdown, HTML, clear_output\n"
                          "from IPython import get_ipython\n"
                          "import IPython.display\n"
                          "from IPython.core.display import Image\n"
                          "handle = display(Markdown('# My runtime'), HTML('<b>checked</b>'), display_id=True)\n"
                          "handle.update(Markdown('# My runtime, checked'))\n"
                          "clear_output(wait=True)\n"
                          "assert get_ipython() is not None and Image(filename='x.png').filename == 'x.png'\n"
                          "assert IPython.display.display is display\n" + BASE)
    result = grade(path)
    full_marks(result, available("capstone"))
    assert result.notes == ["While loading, your code printed: <IPython.core.display.Markdown object> "
                            "<IPython.core.display.HTML object>\n<IPython.core.display.Markdown object>"], result.notes


def test_an_ipython_import_that_needs_a_kernel_says_why_in_one_sentence(tmp_path):
    path = write_notebook(tmp_path, BASE, "from IPython.core.magic import register_line_magic")
    result = grade(path)
    full_marks(result, available("capstone"))
    assert result.notes == ["cell 2, line 1 raised ModuleNotFoundError: No module named 'IPython.core.magic' (the "
                            "grader runs cells without a Jupyter kernel: of IPython it has display, clear_output, the "
                            "display classes such as Markdown and HTML, and get_ipython; other parts need a kernel) "
                            "while loading; the rest of that cell was skipped."], result.notes


def test_ipython_syntax_keeps_line_numbers():
    code, _ = ipython_to_python("\n\n%time x = 1\n!ls\nraise ValueError")
    assert code.splitlines()[4] == "raise ValueError"  # still line 5, so a location points at the learner's line


# -- 3. compiler flags carried from cell to cell, as IPython does --------------------------------------------

def test_future_annotations_from_a_cell_magic_hold_in_later_cells(tmp_path):
    typed = ENTRY.replace("def handle_tool_call(raw, ask_model):", "def handle_tool_call(raw: Raw, ask_model: Model) -> Verdict:")
    path = write_notebook(tmp_path, "%%time\nfrom __future__ import annotations", HELPERS, typed,
                          "Raw = str\nModel = object\nclass Verdict(dict):\n    pass")
    full_marks(grade(path), available("capstone"))


def test_future_annotations_hold_for_a_class_in_a_later_cell(tmp_path):
    path = write_notebook(tmp_path, "from __future__ import annotations\nimport dataclasses",
                          "@dataclasses.dataclass\nclass Attempt:\n    raw: RawCall\n    errors: list[Problem]\n", BASE,
                          "RawCall = str\nProblem = str\nassert Attempt('x', []).raw == 'x'")
    result = grade(path)
    full_marks(result, available("capstone"))
    assert not [note for note in result.notes if "raised" in note]


# -- 4. cells are split on newlines only ---------------------------------------------------------------------

@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x0c", "\x1c", "\x85"], ids=repr)
def test_other_line_separators_inside_strings_are_kept(tmp_path, separator):
    # The separator stands inside the observation's text: mangled into a newline, the cell would not even compile.
    source = BASE.replace(PREFIX, f"Tool call rejected{separator}nothing ran. Fix and resend:")
    path = write_notebook(tmp_path, "%time _ = 1", source)
    assert extract(path).chunks[1]["code"] == source
    full_marks(grade(path), available("capstone"))


def test_a_cell_with_a_magic_keeps_its_separators(tmp_path):
    # IPython's transformer splits a cell with str.splitlines, so on its own it cuts these strings in two
    # (and fails on this cell); the grader keeps them whole.
    source = "%time MARK = '\x85'\nSEPARATOR = 'a\u2028b\x1cc'\n" + BASE.replace(PREFIX, "Rejected\u2029 fix and resend:")
    code, _ = ipython_to_python(source)
    magic = ast.parse(code).body[0].value
    assert [ast.literal_eval(argument) for argument in magic.args] == ["time", "MARK = '\x85'"]
    assert code.split("\n")[1] == "SEPARATOR = 'a\u2028b\x1cc'" and "Rejected\u2029 fix" in code
    full_marks(grade(write_notebook(tmp_path, source)), available("capstone"))


# -- 5. standard-library modules that import internals load; the dangerous calls stay refused ---------------

def test_asyncio_with_a_timeout_and_threads_gets_full_marks(tmp_path):
    source = "import asyncio\n" + BASE.replace("def handle_tool_call(raw, ask_model):", "def _checked(raw, ask_model):") + """

async def _with_deadline(raw, ask_model):
    return await asyncio.wait_for(asyncio.to_thread(_checked, raw, ask_model), timeout=5)


def handle_tool_call(raw, ask_model):
    return asyncio.run(_with_deadline(raw, ask_model))
"""
    full_marks(grade(write_py(tmp_path, source)), available("capstone"))


def test_mock_futures_sqlite_and_logging_get_full_marks(tmp_path):
    source = """import concurrent.futures, logging, sqlite3, subprocess, multiprocessing, uuid, platform
from unittest import mock

AUDIT = sqlite3.connect(":memory:")
AUDIT.execute("create table rejected (error text)")
LOG = logging.getLogger("runtime")
NOT_SET = mock.sentinel.not_set
POOL = concurrent.futures.ThreadPoolExecutor(max_workers=2)
""" + BASE.replace("def handle_tool_call(raw, ask_model):", "def _checked(raw, ask_model):") + """

def handle_tool_call(raw, ask_model):
    result = POOL.submit(_checked, raw, ask_model).result()
    if isinstance(result, dict) and result.get("status") == "rejected":
        AUDIT.execute("insert into rejected values (?)", (str(result.get("error"))[:200],))
        LOG.debug("rejected")
    return result
"""
    full_marks(grade(write_py(tmp_path, source)), available("capstone"))


REFUSED = """import importlib, importlib.util, multiprocessing, os, socket, sqlite3, subprocess, sys
def attempt(what, action):
    try:
        action()
        print(what, "allowed")
    except Exception as exc:
        print(what, "refused", type(exc).__name__)

attempt("subprocess", lambda: subprocess.run(["true"]))
attempt("system", lambda: os.system("true"))
attempt("multiprocessing", lambda: multiprocessing.Process(target=print).start())
attempt("fork", os.fork)
attempt("network", lambda: socket.create_connection(("127.0.0.1", 9), timeout=1))
attempt("sqlite file", lambda: sqlite3.connect("/tmp/kit-fairness.db"))
ps = sys.modules["_posixsubprocess"]
attempt("a new _posixsubprocess", lambda: importlib.util.module_from_spec(
    importlib.util.spec_from_file_location("spawn-posixsubprocess", ps.__file__)))
attempt("fork_exec after a reload", lambda: importlib.reload(ps).fork_exec(*[None] * 23))

def handle_tool_call(raw, ask_model):
    return None
"""


@pytest.mark.skipif(os.name != "posix", reason="os.fork and _posixsubprocess exist only on POSIX systems")
def test_the_dangerous_calls_of_those_modules_stay_refused(tmp_path):
    printed = next(note for note in grade(write_py(tmp_path, REFUSED)).notes if note.startswith("While loading"))
    for what in ("subprocess", "system", "multiprocessing", "fork", "network", "sqlite file", "a new _posixsubprocess",
                 "fork_exec after a reload"):
        assert f"{what} refused PermissionError" in printed, printed
    assert "allowed" not in printed


# -- 6. relative paths resolve in the scratch folder -----------------------------------------------------------

def test_relative_folders_and_files_in_the_working_folder_get_full_marks(tmp_path):
    source = "import os, pathlib, json\nos.makedirs('logs', exist_ok=True)\n" + BASE.replace(
        "def handle_tool_call(raw, ask_model):", "def _checked(raw, ask_model):") + """

def handle_tool_call(raw, ask_model):
    result = _checked(raw, ask_model)
    with open("logs/audit.log", "a", encoding="utf-8") as log:
        log.write(json.dumps(str(result)[:80]) + "\\n")
    state = pathlib.Path("./state.json")
    count = json.loads(state.read_text()) if state.exists() else 0
    state.write_text(json.dumps(count + 1))
    return result
"""
    full_marks(grade(write_py(tmp_path, source)), available("capstone"))


def test_a_working_folder_of_its_own_below_scratch_is_fine_but_leaving_it_is_not(tmp_path):
    source = """import os
os.makedirs("work", exist_ok=True)
os.chdir("work")
open("notes.txt", "w").write("fine")
for what, action in [("climb", lambda: open("../../outside.txt", "w")), ("leave", lambda: os.chdir("/tmp"))]:
    try:
        action()
        print(what, "allowed")
    except PermissionError as exc:
        print(what, "refused:", exc)
""" + BASE
    result = grade(write_py(tmp_path, source))
    full_marks(result, available("capstone"))
    printed = next(note for note in result.notes if note.startswith("While loading"))
    assert "climb refused: the grader does not allow relative paths that climb out of the working folder" in printed
    assert "leave refused: the grader does not allow changing the working folder to outside the scratch folder" in printed


# -- 7. exercises are found by the names a cell binds ----------------------------------------------------------

def test_a_validator_bound_with_functools_partial_is_graded_as_validate_call(tmp_path):
    source = "import functools\n" + BASES["validate-call"].replace("def validate_call(call, tools):",
                                                                   "def _validate(call, tools, *, strict):")
    source += "\n\nvalidate_call = functools.partial(_validate, strict=True)\n"
    result = grade(write_py(tmp_path, source))
    assert {c.exercise_id for c in result.cases} == {"validate-call"}
    full_marks(result, available("validate-call"))


def test_an_observer_object_in_a_notebook_is_graded_as_observe(tmp_path):
    helpers = BASES["observe"].replace("def observe(call, problems, tools):", "def _observe(call, problems, tools):")
    path = write_notebook(tmp_path, helpers, "class Observer:\n    def __call__(self, call, problems, tools):\n"
                                             "        return _observe(call, problems, tools)", "observe = Observer()")
    result = grade(path)
    assert {c.exercise_id for c in result.cases} == {"observe"}
    full_marks(result, available("observe"))


def test_a_handler_made_by_a_factory_is_graded_as_the_capstone(tmp_path):
    source = BASE.replace("def handle_tool_call(raw, ask_model):", "def _handle(raw, ask_model):")
    source += "\n\ndef make_handler():\n    return lambda raw, ask_model: _handle(raw, ask_model)\n\n\nhandle_tool_call = make_handler()\n"
    result = grade(write_py(tmp_path, source))
    assert {c.exercise_id for c in result.cases} == {"capstone"}
    full_marks(result, available("capstone"))


# -- 8. each limit that remains is named to the learner in a sentence ------------------------------------------

def test_a_third_party_import_is_explained(tmp_path):
    result = grade(write_py(tmp_path, "import numpy\n" + BASE))
    assert any("raised ModuleNotFoundError: No module named 'numpy' (the grader runs submissions with Python's "
               "standard library only: third-party packages are not installed there)" in note for note in result.notes)


def test_too_many_files_in_scratch_are_refused_with_a_sentence(tmp_path):
    from grader.isolation.worker import MAX_SCRATCH_ENTRIES

    source = """written = 0
try:
    for number in range(100):
        open(f"file{number}.txt", "w").close()
        written += 1
except PermissionError as exc:
    print("stopped after", written, "files:", exc)
""" + BASE
    result = grade(write_py(tmp_path, source))
    full_marks(result, available("capstone"))
    assert any(f"stopped after {MAX_SCRATCH_ENTRIES} files: the grader does not allow more than {MAX_SCRATCH_ENTRIES} "
               "files in the scratch folder in a submission" in note for note in result.notes)


def test_without_ipython_a_cell_with_ipython_syntax_is_explained(tmp_path, monkeypatch):
    """A bare image without IPython (the grader's process needs it, the worker does not) says so, once."""
    import grader.intake.extract as extract_module

    monkeypatch.setattr(extract_module, "_TRANSFORMER", [None])
    submission = extract(write_notebook(tmp_path, "%time x = 1", "!ls", "y = 2"))
    assert submission.chunks[0]["code"] == "%time x = 1" and submission.chunks[2]["code"] == "y = 2"
    assert submission.notes == ["IPython is not installed next to the grader, so cells with IPython syntax (% magics, "
                                "! commands) could not be turned into Python and fail with a syntax error; install "
                                "IPython there."]


def test_a_module_written_with_writefile_imports_as_in_jupyter(tmp_path):
    """An attacker's fairness trial: helpers written with %%writefile and imported in the next cell scored 0
    (ModuleNotFoundError), while Jupyter runs it: a kernel has the notebook's folder on sys.path."""
    notebook = write_notebook(tmp_path, "%%writefile tool_steps.py\n" + HELPERS,
                              "from tool_steps import *", "%%time\n" + ENTRY)
    full_marks(grade(notebook), available("capstone"))


def test_a_written_module_cannot_shadow_the_standard_library(tmp_path):
    """The scratch folder comes last on sys.path: a json.py written there is not what `import json` finds."""
    notebook = write_notebook(tmp_path, "%%writefile json.py\nraise SystemExit('shadowed')\n",
                              "import importlib, sys\nsys.modules.pop('json', None)\nimport json\n" + BASE)
    full_marks(grade(notebook), available("capstone"))

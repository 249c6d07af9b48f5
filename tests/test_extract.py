"""Extraction: which notebook cells are graded, and how magics and bad files are handled."""

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from grader.extract import SubmissionError, extract, neutralise_magics


def nbgrader(cell, solution, grade_id):
    cell.metadata["nbgrader"] = {"schema_version": 3, "grade": False, "solution": solution, "locked": not solution,
                                 "grade_id": grade_id}
    return cell


def test_every_code_cell_runs_except_those_tagged_grader_skip(tmp_path):
    notebook = new_notebook(cells=[
        nbgrader(new_code_cell("PROVIDED = 1"), False, "setup"),
        nbgrader(new_code_cell("def handle_tool_call(raw, ask_model): ..."), True, "capstone"),
        new_markdown_cell("notes"),
        new_code_cell("def helper(): return 2"),
        nbgrader(new_code_cell("check(handle_tool_call)", metadata={"tags": ["grader-skip"]}), False, "selfcheck"),
    ])
    path = tmp_path / "n.ipynb"
    nbformat.write(notebook, path)
    submission = extract(path)
    assert [c["label"] for c in submission.chunks] == ["cell 1 (setup)", "cell 2 (capstone)", "cell 4"]
    assert submission.chunks[1]["code"] == "def handle_tool_call(raw, ask_model): ..."
    assert submission.grade_ids == ("capstone",)


def test_notebook_without_nbgrader_metadata_grades_every_code_cell(tmp_path):
    path = tmp_path / "plain.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("a = 1"), new_markdown_cell("x"), new_code_cell("b = 2")]), path)
    assert [c["code"] for c in extract(path).chunks] == ["a = 1", "b = 2"]


def test_magics_and_shell_escapes_are_commented_out():
    code, changed = neutralise_magics("%time x = 1\nif True:\n    !ls\nprint(1)\nlen?")
    assert changed == 3
    assert code == "pass  # %time x = 1\nif True:\n    pass  # !ls\nprint(1)\npass  # len?"
    compile(code, "cell", "exec")
    code, changed = neutralise_magics("%%bash\necho hi")
    assert changed == 2 and code == "# %%bash\n# echo hi"


@pytest.mark.parametrize("name, content, message", [
    ("broken.ipynb", "{not json", "is not a readable Jupyter notebook (NotJSONError)"),
    ("answer.txt", "x", "is neither a .py file nor a .ipynb notebook"),
])
def test_bad_files_raise_one_sentence(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(SubmissionError) as info:
        extract(path)
    assert message in str(info.value) and str(info.value).endswith(".")


def test_missing_and_folder_paths(tmp_path):
    with pytest.raises(SubmissionError, match="does not exist"):
        extract(tmp_path / "missing.py")
    with pytest.raises(SubmissionError, match="is a folder"):
        extract(tmp_path)

"""The notebooks in Russian (issue 29): generated from the English solved notebooks and the notebooks' catalog
(``course.notebook_texts``), complete, with the code untouched, and graded exactly as the English ones.

nbval runs ``notebooks/ru/`` and ``solutions/notebooks/ru/`` top to bottom like every committed notebook (the solved
ones assert their self-checks pass and their grade cell gives full marks); ``tests/test_course.py`` checks that the
generated files are up to date.
"""

import ast
import os
import re
import shutil

import nbformat
import pytest
from babel.messages.catalog import Catalog

from course import catalogs, notebook_texts
from course.notebook_texts import (TRANSLATED, TranslationError, code_pieces, markdown_blocks, notebook_texts as
                                   texts_of, translated)
from course.notebooks import generated_notebooks
from grader.paths import NOTEBOOKS_DIR, SOLVED_NOTEBOOKS_DIR

RUSSIAN = TRANSLATED["ru"]


def test_every_notebook_text_has_its_translation_and_the_catalog_is_compiled():
    """Every paragraph, comment and docstring of the notebooks Russian has is translated with the same {fields}, and
    the notebooks' .po and .mo are what ``python -m course.catalogs`` writes."""
    found = catalogs.problems("ru", domain=notebook_texts.DOMAIN)
    assert found == [], "\n".join(found)


def test_a_changed_english_paragraph_arrives_untranslated(tmp_path, monkeypatch):
    """One source, two languages: a paragraph changed in the English solved notebook becomes an untranslated entry the
    check names (the Russian notebook cannot keep the old paragraph silently), and the old one is dropped."""
    import course.notebooks

    folder = tmp_path / "solved"
    shutil.copytree(SOLVED_NOTEBOOKS_DIR, folder, ignore=shutil.ignore_patterns("ru"))
    path = folder / RUSSIAN[1]
    notebook = nbformat.read(path, as_version=4)
    cell = next(c for c in notebook.cells if c.cell_type == "markdown")
    old = markdown_blocks(cell.source)[0][1]
    cell.source = cell.source.replace(old, old + " Now with a new sentence.", 1)
    nbformat.write(notebook, path)
    monkeypatch.setattr(course.notebooks, "SOLVED_DIR", str(folder))
    found = catalogs.problems("ru", domain=notebook_texts.DOMAIN)
    assert any("no translation for" in line and old[:40] in line for line in found), found
    assert any("is out of date" in line for line in found), found  # the .po still holds the old paragraph


def test_a_translation_that_renames_a_field_of_an_f_string_is_caught():
    """A print's f-string is translated as written, its {fields} are code: a translation that drops or renames one
    is a problem, as in the grader's catalog."""
    catalog = Catalog(locale="ru", domain=notebook_texts.DOMAIN)
    catalog.add("handle_tool_call raised {type(exc).__name__}: {exc}", "handle_tool_call выбросила {exc}")
    catalog.add("{exc.msg!r} at line {exc.lineno}", "{exc.msg!r} в строке {exc.lineno}")
    found = catalogs.entry_problems(catalog, "ru")
    assert len(found) == 1 and "handle_tool_call raised" in found[0], found


@pytest.mark.parametrize("filename", sorted(name for name in os.listdir(SOLVED_NOTEBOOKS_DIR) if name.endswith(".ipynb")))
def test_cutting_a_notebook_into_texts_changes_nothing(filename):
    """Every cell joins back from its blocks, and translating every text into itself gives the notebook unchanged
    apart from the set-up cell's language lines and the grader's command (``FENCE_COMMANDS``): cutting and writing
    back lose no character."""
    notebook = nbformat.read(os.path.join(SOLVED_NOTEBOOKS_DIR, filename), as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            assert "\n".join(text for _, text in markdown_blocks(cell.source)) == cell.source
    same = translated(notebook, lambda text: text, "ru")
    changed = [(a, b.source) for a, b in zip(notebook.cells, same.cells) if a.source != b.source]
    setup = [(a, b) for a, b in changed if a.metadata.get("nbgrader", {}).get("grade_id") == notebook_texts.SETUP_ID]
    assert len(setup) == 1 and setup[0][1] == setup[0][0].source + notebook_texts.SETUP_LINES["ru"]
    command = "-m grader notebooks/"
    assert [(a.source.replace(command, "-m grader --lang ru notebooks/ru/"), b) for a, b in changed if (a, b) not in setup] \
        == [(b, b) for a, b in changed if (a, b) not in setup]
    assert len(changed) == 2, [b[:80] for _, b in changed]


def _code_only(source):
    """The code of a cell with every string emptied: what a translation may not change (comments are not in it)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = ""
        if isinstance(node, ast.JoinedStr):
            node.values = []
    return ast.dump(tree)


@pytest.mark.parametrize("filename", RUSSIAN)
def test_the_russian_notebooks_keep_the_code_byte_for_byte_apart_from_texts(filename):
    """Only texts change: the Russian solved notebook's code cells are the English ones' with their strings and comments
    translated (so the same code is graded), and their solution regions are the English ones exactly."""
    english = nbformat.read(os.path.join(SOLVED_NOTEBOOKS_DIR, filename), as_version=4)
    russian = nbformat.read(os.path.join(SOLVED_NOTEBOOKS_DIR, "ru", filename), as_version=4)
    assert [c.cell_type for c in russian.cells] == [c.cell_type for c in english.cells]
    for ours, theirs in zip(russian.cells, english.cells):
        if ours.cell_type != "code" or ours.metadata.get("nbgrader", {}).get("grade_id") == notebook_texts.SETUP_ID:
            continue
        assert _code_only(ours.source) == _code_only(theirs.source)
        region = re.compile(r"### BEGIN SOLUTION.*?### END SOLUTION", re.S)
        assert region.findall(ours.source) == region.findall(theirs.source)


def test_no_text_is_taken_from_inside_a_solution_region():
    """The reference's source (inside ### BEGIN SOLUTION) is never a text: learners never see it, and translating it
    would change what the solved notebook runs."""
    source = ('# shown to the learner\nx = 1\n### BEGIN SOLUTION\n# the reference\'s own comment\ndef f():\n'
              '    """The reference\'s docstring."""\n    print("from the reference")\n### END SOLUTION\n'
              'print("after the region")')
    assert [text for _, _, text, _ in code_pieces(source)] == ["shown to the learner", "after the region"]


def test_a_translation_that_breaks_the_code_is_refused_with_a_clear_message():
    """A string's translation is written back as source: one holding its own quote mark would break the cell, and the
    build says so in one sentence instead of writing a notebook that does not run."""
    source = 'print("Result:", 42)'
    with pytest.raises(TranslationError, match=r"^A translation breaks the code at line 1"):
        notebook_texts._translate_code(source, lambda text: 'Он сказал "да":')
    assert notebook_texts._translate_code(source, lambda text: "Результат:") == 'print("Результат:", 42)'


def test_comment_runs_are_one_text_rewrapped_to_their_width():
    """Whole-line comments in a row at one indent are one sentence to translate, written back wrapped to the run's
    width; an inline comment stays on its line."""
    source = ("def f():\n    # first half of a sentence that goes on\n    # and ends here.\n    return 1  # why\n")
    pieces = code_pieces(source)
    assert [text for _, _, text, _ in pieces] == ["first half of a sentence that goes on and ends here.", "why"]
    written = notebook_texts._translate_code(source, lambda text: {"why": "зачем"}.get(text, "слово " * 20))
    comment = written.splitlines()[1:-1]
    assert len(comment) == 4 and all(line.startswith("    # слово") and len(line) <= 4 + 2 + 40 for line in comment)
    assert " ".join(line[6:] for line in comment).split() == ["слово"] * 20  # 40: the narrowest width written
    assert written.splitlines()[-1] == "    return 1  # зачем"


@pytest.mark.parametrize("filename", RUSSIAN)
def test_a_russian_notebook_speaks_russian_and_names_its_own_file(filename):
    """The Russian learner notebook: its set-up cell sets the language (self-check, hints and grade cell speak
    Russian), its grader command grades notebooks/ru/ in Russian, and no paragraph is left in English."""
    notebook = nbformat.read(os.path.join(NOTEBOOKS_DIR, "ru", filename), as_version=4)
    setup = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == notebook_texts.SETUP_ID)
    assert setup.source.endswith('_use_language("ru")')
    markdown = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    assert f"-m grader --lang ru notebooks/ru/{filename}" in markdown
    english = [text for c in notebook.cells if c.cell_type == "markdown"
               for kind, text in markdown_blocks(c.source)
               if kind == "text" and not re.search("[а-яё]", text, re.IGNORECASE) and len(text.split()) > 3]
    assert english == []


def test_the_russian_notebooks_are_generated_for_every_translated_notebook_only():
    """notebooks/ru/ holds exactly the notebooks Russian has (no English stub passes for a Russian one)."""
    assert sorted(os.listdir(os.path.join(NOTEBOOKS_DIR, "ru"))) == sorted(RUSSIAN)
    assert [name for name, _solved, _learner in generated_notebooks("ru")] == sorted(RUSSIAN)
    assert len(texts_of(generated_notebooks("ru")[0][1])) > 20


@pytest.mark.parametrize("filename", RUSSIAN)
def test_a_russian_solved_notebook_grades_exactly_as_the_english_one(filename, grade):
    """The done-when of issue 29: the same cases with the same points, in the same order, with one seed; the Russian
    report's case titles are Russian."""
    _, english = grade(os.path.join(SOLVED_NOTEBOOKS_DIR, filename), "--seed", "golden")
    _, russian = grade(os.path.join(SOLVED_NOTEBOOKS_DIR, "ru", filename), "--seed", "golden", "--lang", "ru")
    assert [(t["score"], t["max_score"]) for t in russian["tests"]] == \
        [(t["score"], t["max_score"]) for t in english["tests"]]
    assert russian["score"] == english["score"] == sum(t["max_score"] for t in english["tests"]) > 0
    assert all(re.search("[а-яё]", t["name"], re.IGNORECASE) for t in russian["tests"]), \
        [t["name"] for t in russian["tests"] if not re.search("[а-яё]", t["name"], re.IGNORECASE)][:3]


@pytest.mark.parametrize("filename", RUSSIAN)
def test_the_russian_model_answers_answer_every_question(filename):
    """solutions/answers/ru/ is generated from the English answers: one answer per interview question, in Russian,
    and the Russian notebook points to it."""
    from grader.paths import ANSWERS_DIR, answers_dir

    name = notebook_texts.answers_name(filename)
    english = open(os.path.join(ANSWERS_DIR, name), encoding="utf-8").read()
    russian = open(os.path.join(answers_dir("ru"), name), encoding="utf-8").read()
    numbered = re.compile(r"^\d+\. \*\*", re.M)
    assert len(numbered.findall(russian)) == len(numbered.findall(english)) >= 4
    assert len(re.findall("[а-яё]", russian, re.IGNORECASE)) > len(russian) / 3
    notebook = nbformat.read(os.path.join(NOTEBOOKS_DIR, "ru", filename), as_version=4)
    assert any(f"solutions/answers/ru/{name}" in c.source for c in notebook.cells if c.cell_type == "markdown")


def test_a_russian_release_holds_the_russian_course_and_its_notebooks_run(tmp_path):
    """``python -m course.release DEST --lang ru --self-study``: the Russian notebooks in notebooks/ru/ (where their
    self-check looks), a Russian README whose commands name them, the Russian model answers; and a released notebook
    runs top to bottom with its self-check speaking Russian."""
    from nbclient import NotebookClient

    from course.release import main

    destination = tmp_path / "release"
    assert main([str(destination), "--lang", "ru", "--self-study", "--notebooks", "00-01"]) == 0
    assert sorted(os.listdir(destination / "notebooks")) == ["ru"]
    assert sorted(os.listdir(destination / "notebooks" / "ru")) == list(RUSSIAN[:2])
    readme = (destination / "README.md").read_text(encoding="utf-8")
    assert "jupyter lab notebooks/ru" in readme and "-m grader --lang ru notebooks/ru/00_start_here.ipynb" in readme
    assert "## Ответы-образцы" in readme and "You will write" not in readme
    answers = (destination / "answers" / "01_parsing.md").read_text(encoding="utf-8")
    assert answers.startswith("# 1 · Разбор: ответы-образцы")
    path = destination / "notebooks" / "ru" / "01_parsing.ipynb"
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    shown = "\n".join(output.get("text", "") + str(output.get("data", {}).get("text/plain", ""))
                      for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs)
    assert "Открытые проверки parse_call: пройдено 0 из 7" in shown, shown[:2000]
    assert "Баллы: 0 из 7" in shown
    assert "Could not find" not in shown


def test_a_russian_nbgrader_assignment_holds_the_russian_notebooks(tmp_path):
    """``python -m course.nbgrader COURSE --lang ru``: the Russian notebook as nbgrader's source, with its autograder
    test cell, and its set-up cell makes nbgrader's autograder cells speak Russian."""
    from course.nbgrader import main

    assert main([str(tmp_path / "course"), "--lang", "ru", "--notebooks", "01"]) == 0
    notebook = nbformat.read(tmp_path / "course" / "source" / "ps1" / "01_parsing.ipynb", as_version=4)
    assert notebook.cells[0].source.startswith("# 1 · Разбор")
    assert any("grader.autograde" in c.source for c in notebook.cells if c.cell_type == "code")
    assert any('_use_language("ru")' in c.source for c in notebook.cells if c.cell_type == "code")

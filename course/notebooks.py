"""Generate learner notebooks from the solved ones: the single source of truth is ``solutions/notebooks``.

Conventions (nbgrader's, so instructors can import the notebooks into an nbgrader course):
- ``### BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS`` regions are removed from the learner version (a
  code cell left empty by that is dropped): the solved notebooks use them to assert, under nbval,
  that their self-checks and grader runs pass.
- A solution region runs from ``### BEGIN SOLUTION`` to ``### END SOLUTION``. The learner sees the
  cell's ``metadata.kit.stub`` in its place (the kit's addition, so a stub can keep the seed's
  signature), or nbgrader's ``# YOUR CODE HERE`` / ``raise NotImplementedError()`` without one.
- Exercise cells carry ``metadata.nbgrader`` (schema_version 3, solution true, a grade_id);
  provided cells carry it with solution false. The grader grades solution cells and cells a
  learner added, never provided ones.
- A cell with ``metadata.kit.generate`` (``{"modules": [...], "only": [...], "exclude": [...],
  "adapter": "seed"}``) gets its code from ``course.assemble.assemble``, wrapped in a solution
  region when ``metadata.kit.solution`` is true; so no cell can drift from the package.
- Outputs and execution counts are cleared in both notebooks: committed notebooks carry no stale output.

In another language (``notebooks/ru/``, issue 29) the notebooks are generated from the same solved ones, their
texts translated by ``course.notebook_texts`` from the notebooks' catalog: the code, the cases and the grade stay
the same.

``python -m course.build`` rewrites every generated file; ``--check`` only reports drift.
"""

import os

import nbformat

from course.assemble import ADAPTER, assemble
from grader.learner.progress import stub_digest
from grader.paths import ANSWERS_DIR, KIT_ROOT, NOTEBOOKS_DIR, SOLVED_NOTEBOOKS_DIR, answers_dir

SOLVED_DIR = SOLVED_NOTEBOOKS_DIR
LEARNER_DIR = NOTEBOOKS_DIR
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
DEFAULT_STUB = ["# YOUR CODE HERE", "raise NotImplementedError()"]


class MarkerError(ValueError):
    """A solution region is malformed (unclosed, nested); the message names the notebook and cell."""


def strip_solutions(source, stub=None, where="a cell"):
    """Replace every solution region of a cell's source with the stub.

    Args:
        source: the cell's source (str).
        stub: the learner's text for a region (str), or None for nbgrader's default stub, indented
            like the BEGIN line.
        where: names the cell in error messages (str).
    Returns:
        str: the learner's version of the source.
    Raises:
        MarkerError: a region is not closed, or one opens inside another.
    """
    out, region, hidden = [], False, False
    for line in source.splitlines():
        marker = line.strip()
        if marker == BEGIN_HIDDEN:
            hidden = True
        elif marker == END_HIDDEN:
            hidden = False
        elif hidden:
            continue
        elif marker == BEGIN:
            if region:
                raise MarkerError(f"{where}: {BEGIN} inside another solution region")
            region, indent = True, line[: len(line) - len(line.lstrip())]
        elif marker == END:
            if not region:
                raise MarkerError(f"{where}: {END} without {BEGIN}")
            out.extend(stub.splitlines() if stub is not None else [indent + text for text in DEFAULT_STUB])
            region = False
        elif not region:
            out.append(line)
    if region:
        raise MarkerError(f"{where}: {BEGIN} is never closed")
    return "\n".join(out)


def _clear(cell):
    if cell.cell_type == "code":
        cell.outputs = []
        cell.execution_count = None
    cell.metadata.pop("execution", None)
    return cell


def refresh_solved(notebook):
    """Refill package-backed solution regions and clear outputs; returns the same notebook."""
    for cell in notebook.cells:
        _clear(cell)
        kit = cell.metadata.get("kit", {})
        if "generate" in kit:
            spec = kit["generate"]
            code = assemble(spec["modules"], only=set(spec["only"]) if "only" in spec else None,
                            exclude=set(spec.get("exclude", ())),
                            adapter=ADAPTER if spec.get("adapter") == "seed" else "").strip("\n")
            cell.source = "\n".join([BEGIN, code, END]) if kit.get("solution") else code
    return notebook


def learner_version(notebook, name="notebook"):
    """A copy of a solved notebook with every solution region replaced by its stub.

    Args:
        notebook: an nbformat v4 notebook (solved).
        name: used in error messages (str).
    Returns:
        a new nbformat notebook.
    """
    learner = nbformat.reads(nbformat.writes(notebook), as_version=4)
    learner.cells = [c for c in learner.cells
                     if not (c.cell_type == "code" and BEGIN_HIDDEN in c.source and not strip_solutions(c.source).strip())]
    for number, cell in enumerate(learner.cells, start=1):
        _clear(cell)
        if cell.cell_type == "code":
            stub = cell.metadata.get("kit", {}).get("stub")
            cell.source = strip_solutions(cell.source, stub, f"{name}, cell {number}")
        cell.metadata.pop("kit", None)  # authoring data; learners need none of it
        if cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
            # Lets the progress view tell "not started" from "failing" without grading.
            cell.metadata["kit"] = {"stub_sha256": stub_digest(cell.source)}
    return learner


def exercise_sources(notebook):
    """The sources of a notebook's exercise (nbgrader solution) cells, in order (list of str)."""
    return [c.source for c in notebook.cells if c.get("metadata", {}).get("nbgrader", {}).get("solution")]


def holds_learner_work(path, generated):
    """True when the learner notebook at ``path`` has exercise cells that differ from ``generated``'s
    stubs: someone has worked in it, and regenerating would wipe that work."""
    try:
        current = nbformat.read(path, as_version=4)
    except Exception:  # an unreadable file holds nothing worth keeping
        return False
    return exercise_sources(current) != exercise_sources(generated)


def generated_notebooks(language="en"):
    """Every notebook pair as generated from the solved sources, without touching any file.

    Args:
        language: ``"en"``, or a language of ``course.notebook_texts.TRANSLATED`` (str): its notebooks only, their
            texts translated (the solved one too, for tests and nbgrader; solution regions stay as they are).
    Returns:
        list of ``(filename, solved, learner)``: the file name (e.g. ``"01_parsing.ipynb"``) and the
        solved and learner ``NotebookNode``s (outputs cleared). The learner version is what a student
        release ships, whatever the working copy in ``notebooks/`` holds.
    Raises:
        FileNotFoundError: ``language``'s compiled notebooks catalog is missing.
    """
    from course.notebook_texts import TRANSLATED, catalog, translated

    translations = None if language == "en" else catalog(language)
    out = []
    for filename in sorted(os.listdir(SOLVED_DIR)):
        if filename.endswith(".ipynb") and (translations is None or filename in TRANSLATED[language]):
            solved = refresh_solved(nbformat.read(os.path.join(SOLVED_DIR, filename), as_version=4))
            if translations is not None:
                solved = translated(solved, translations.gettext, language)
            out.append((filename, solved, learner_version(solved, filename)))
    return out


def build(check=False, force=False):
    """Regenerate the solved notebooks' package-backed cells and every learner notebook, in every language, and the
    translated model answers.

    A learner notebook whose exercise cells hold work (they differ from the stubs) is not
    overwritten unless ``force`` is set: the kit's own folder is also where self-learners work.

    Args:
        check: only compare, write nothing (bool).
        force: overwrite learner notebooks even when they hold work (bool).
    Returns:
        ``(changed, kept)``: paths that were (or, with ``check``, would be) changed, and learner
        notebooks left alone because they hold work (lists of repository-relative str).
    """
    from course.notebook_texts import TRANSLATED

    changed, kept = [], []
    pairs = [("en", *pair) for pair in generated_notebooks()]
    pairs += [(language, *pair) for language in sorted(TRANSLATED) for pair in generated_notebooks(language)]
    for language, filename, solved, learner in pairs:
        # Another language's solved notebooks are generated too (solutions/notebooks/ru/): nbval runs them top to
        # bottom and their grade cells must give full marks, as the English ones do.
        inside = [] if language == "en" else [language]
        solved_path = os.path.join(SOLVED_DIR, *inside, filename)
        learner_path = os.path.join(LEARNER_DIR, *inside, filename)  # grader.paths.notebooks_dir(language)
        for path, notebook in [(solved_path, solved), (learner_path, learner)]:
            text = nbformat.writes(notebook) + "\n"
            current = open(path, encoding="utf-8").read() if os.path.exists(path) else None
            if current == text:
                continue
            relative = os.path.relpath(path, KIT_ROOT)
            if path == learner_path and current is not None and not force and holds_learner_work(path, learner):
                kept.append(relative)
                continue
            changed.append(relative)
            if not check:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(text)
    for path, text in translated_answers():
        current = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if current != text:
            changed.append(os.path.relpath(path, KIT_ROOT))
            if not check:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(text)
    return changed, kept


def translated_answers():
    """The model answers of every translated notebook, in its language: ``[(path, text)]`` (``path`` in
    ``grader.paths.answers_dir(language)``), generated from the English answers and the notebooks' catalog."""
    from course.notebook_texts import TRANSLATED, answers_name, catalog, translated_markdown

    out = []
    for language in sorted(TRANSLATED):
        translations = catalog(language)
        for filename in TRANSLATED[language]:
            name = answers_name(filename)
            with open(os.path.join(ANSWERS_DIR, name), encoding="utf-8") as handle:
                english = handle.read()
            out.append((os.path.join(answers_dir(language), name),
                        translated_markdown(english, translations.gettext, language)))
    return out

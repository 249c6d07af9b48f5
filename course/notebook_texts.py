"""The notebooks' texts as translation units, and the notebooks written in another language (issue 29).

One source, two languages: the solved notebooks (``solutions/notebooks``) are written in English, and each other
language's notebooks are generated from them with a gettext catalog of their texts
(``solutions/translations/<language>/LC_MESSAGES/notebooks.po``, compiled to the ``.mo`` this module reads), as
mdBook-based courses translate their books. A text changed in English becomes an untranslated entry
(``python -m course.catalogs``), which ``tests/test_notebook_translations.py`` refuses; the Russian notebook can never keep
an old paragraph silently.

What is a text (a unit of the catalog):
- a markdown cell's paragraphs: blocks of lines between blank lines, as mdBook's i18n helpers cut a chapter. A
  fenced code block (```` ``` ```` or ``~~~``) is code and stays as it is, but for the commands of
  ``FENCE_COMMANDS`` (the grader's command names the language's notebook); a block fenced ```` ```text ```` (a
  diagram in words) is one text;
- in a code cell: each comment (a run of whole-line comments at one indent is one text, re-wrapped to the run's
  width), each docstring, and each string literal (f-strings too) given to ``print(...)`` or to an exception
  (``...Error(...)``); the rest of the cell's code stays byte for byte the same, so it grades the same;
- a cell's learner stub (``metadata.kit.stub``), by the same rules;
- the model answers of those notebooks (``solutions/answers/NN_name.md``, written to ``solutions/answers/<language>/``)
  and the student release's README (``course.release``), cut into paragraphs like a markdown cell.
Nothing inside a solution or hidden-tests region is a text: learners never see the reference's source.

The set-up cell of a translated notebook also sets the language (``grader.translations.use``), so its self-check,
hints and grade cell speak it. Standard library and nbformat only: an instructor without Babel can build a
release in Russian.
"""

import ast
import gettext
import io
import os
import re
import textwrap
import tokenize

from grader.paths import NOTEBOOK_TRANSLATIONS_DIR

DOMAIN = "notebooks"
"""The notebooks' catalog's file name (gettext's domain)."""
TRANSLATED = {
    "ru": ("00_start_here.ipynb", "01_parsing.ipynb", "02_schema.ipynb", "03_observations.ipynb",
           "04_retries.ipynb", "05_capstone.ipynb", "06_beyond.ipynb", "07_turn.ipynb", "08_loop.ipynb",
           "09_authorise.ipynb"),
}
"""The notebooks each language has (file names in ``solutions/notebooks``): the catalog holds their texts and
must translate every one; ``course.build`` writes ``notebooks/<language>/`` for them."""
SETUP_ID = "setup"
"""The nbgrader ``grade_id`` of a notebook's set-up cell, the one that imports the kit."""
SETUP_LINES = {
    "ru": ("\n\n# Этот ноутбук говорит по-русски: самопроверка, подсказки и автопроверка тоже.\n"
           "from grader.translations import use as _use_language\n"
           "_use_language(\"ru\")"),
}
"""What a translated notebook's set-up cell adds after the kit's imports, in that language."""
FENCE_COMMANDS = (("-m grader notebooks/", "-m grader --lang {language} notebooks/{language}/"),
                  ("jupyter lab notebooks", "jupyter lab notebooks/{language}"))
"""What changes in a translated text's fenced code: the grader's command names the language's notebook and speaks
the language (``notebooks/ru/05_capstone.ipynb``, not the English stub beside it), and JupyterLab opens the
language's folder (a release's README)."""
_FENCES = ("```", "~~~")
_REGION_STARTS = ("### BEGIN SOLUTION", "### BEGIN HIDDEN TESTS")
_REGION_ENDS = ("### END SOLUTION", "### END HIDDEN TESTS")


def markdown_blocks(source):
    """A markdown text cut into blocks that join back into it with ``"\\n"``.

    Args:
        source: a markdown cell's source (str).
    Returns:
        list of ``(kind, text)``: ``"text"`` (a paragraph, a list, a table, a heading, or a block fenced as
        ```` ```text ````, a diagram in words: translated), ``"code"`` (any other fenced block, kept) or ``"blank"``
        (blank lines, kept). ``"\\n".join(text for _, text in blocks)`` is ``source``.
    """
    blocks, lines, fence, kind = [], [], None, "code"

    def flush(kind="text"):
        if lines:
            blocks.append((kind, "\n".join(lines)))
            lines.clear()

    for line in source.split("\n"):
        stripped = line.lstrip()
        if fence is not None:
            lines.append(line)
            if stripped.startswith(fence):
                flush(kind)
                fence = None
        elif stripped.startswith(_FENCES):
            flush()
            fence = stripped[:3]
            lines.append(line)
            kind = "text" if stripped[3:].strip() == "text" else "code"  # a diagram in words: translated whole
        elif not line.strip():
            flush()
            blocks.append(("blank", line))
        else:
            lines.append(line)
    flush(kind if fence is not None else "text")
    return blocks


def _regions(source):
    """The 1-based line numbers inside solution or hidden-tests regions, markers included (set of int)."""
    inside, depth = set(), 0
    for number, line in enumerate(source.split("\n"), start=1):
        marker = line.strip()
        if marker in _REGION_STARTS:
            depth += 1
        if depth:
            inside.add(number)
        if marker in _REGION_ENDS:
            depth = max(0, depth - 1)
    return inside


def _offsets(source):
    starts, total = [0], 0
    for line in source.split("\n"):
        total += len(line) + 1
        starts.append(total)
    return starts


def _spoken_strings(tree):
    """The string literals a learner reads (list of ``ast.Constant`` or ``ast.JoinedStr`` nodes): docstrings, and the
    arguments of ``print`` and of an exception's constructor (a name ending in ``Error`` or ``Exception``), also as
    parts of a ``+``."""
    found = []

    def operands(node):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return operands(node.left) + operands(node.right)
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            return [node]
        return []

    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found.append(first.value)
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name == "print" or name.endswith(("Error", "Exception")):
                found.extend(part for arg in node.args for part in operands(arg))
    return found


def _literal(segment):
    """``(prefix, quote, inner)`` of one string literal's source, or None for anything else (two literals written
    side by side, bytes)."""
    prefix = re.match(r"[A-Za-z]*", segment).group(0)
    rest = segment[len(prefix):]
    quote = rest[:3] if rest.startswith(('"""', "'''")) else rest[:1]
    if "b" in prefix.lower() or len(rest) < 2 * len(quote) or not rest.endswith(quote):
        return None
    inner = rest[len(quote):-len(quote)]
    if re.search(r"(?<!\\)" + re.escape(quote), inner):
        return None  # "a" "b": implicit concatenation
    return prefix, quote, inner


def code_pieces(source):
    """The texts of a code cell, where they are, and how to write them back.

    Comments are found by ``tokenize`` and strings by ``ast`` (whose positions do not change between Python
    versions, as the tokens of f-strings do in 3.12), so every Python builds the same notebook. A string's text is
    its source as written (escapes and an f-string's ``{fields}`` included): its translation is written back as is,
    and ``course.catalogs`` checks that it keeps the same ``{fields}``.

    Args:
        source: a code cell's source (str).
    Returns:
        list of ``(start, end, text, write)``, ordered by ``start``: the character span in ``source`` (ints), the
        English text (str), and ``write(translation) -> str``, the span's new source. Empty for a cell that does not
        parse (a ``%%time`` magic cell, say): such a cell keeps its English.
    """
    try:
        tree = ast.parse(source)
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (SyntaxError, tokenize.TokenError, IndentationError):
        return []
    skipped, starts, lines = _regions(source), _offsets(source), source.split("\n")
    pieces, run = [], []

    def end_run():
        if run:
            first, last = run[0], run[-1]
            column = first.start[1]
            width = max(len(token.line.rstrip("\n")) for token in run) - column - 2
            text = " ".join(token.string[1:].strip() for token in run)

            def write(translation, column=column, width=max(width, 40)):
                wrapped = textwrap.wrap(translation, width) or [""]
                return ("\n" + " " * column).join("# " + line for line in wrapped)

            pieces.append((starts[first.start[0] - 1] + column, starts[last.end[0] - 1] + last.end[1], text, write))
            run.clear()

    for token in tokens:
        if token.type in (tokenize.NL, tokenize.COMMENT):
            row, column = token.start
            whole_line = token.type == tokenize.COMMENT and not lines[row - 1][:column].strip()
            if token.type == tokenize.COMMENT and row not in skipped and token.string[1:].strip():
                if whole_line:
                    if run and (run[-1].start[0] != row - 1 or run[-1].start[1] != column):
                        end_run()
                    run.append(token)
                    continue
                end_run()
                pieces.append((starts[row - 1] + column, starts[row - 1] + token.end[1], token.string[1:].strip(),
                               lambda translation: "# " + translation))
            continue
        end_run()
    end_run()

    def offset(line, column):  # ast counts columns in UTF-8 bytes
        return starts[line - 1] + len(lines[line - 1].encode("utf-8")[:column].decode("utf-8"))

    for node in _spoken_strings(tree):
        if node.lineno in skipped:
            continue
        start, end = offset(node.lineno, node.col_offset), offset(node.end_lineno, node.end_col_offset)
        literal = _literal(source[start:end])
        if literal is None or not re.search(r"[A-Za-z]", re.sub(r"\{[^{}]*\}|\\.", "", literal[2])):
            continue  # no words: only fields and escapes ("\n", "{text!r:16} -> {kind}")
        prefix, quote, inner = literal
        pieces.append((start, end, inner, lambda translation, prefix=prefix, quote=quote: prefix + quote + translation + quote))
    return sorted(pieces, key=lambda piece: piece[0])


def cell_texts(cell):
    """The texts of one notebook cell to translate, in order (list of str): see the module's docstring."""
    if cell.cell_type == "markdown":
        return markdown_texts(cell.source)
    if cell.cell_type != "code":
        return []
    texts = [text for _, _, text, _ in code_pieces(cell.source)]
    stub = cell.metadata.get("kit", {}).get("stub")
    return texts + ([text for _, _, text, _ in code_pieces(stub)] if stub else [])


def notebook_texts(notebook):
    """Every text of a solved notebook to translate, in order, each once (list of str)."""
    seen = {}
    for cell in notebook.cells:
        for text in cell_texts(cell):
            seen.setdefault(text, None)
    return list(seen)


class TranslationError(ValueError):
    """A translation breaks the code it is written into (a string's translation holds its own quote mark, say);
    the message names the notebook's text."""


def _translate_code(source, translate):
    out, last, pieces = [], 0, code_pieces(source)
    if not pieces:
        return source
    for start, end, text, write in pieces:
        out.append(source[last:start])
        out.append(write(translate(text)))
        last = end
    written = "".join(out) + source[last:]
    try:
        ast.parse(written)
    except SyntaxError as exc:
        raise TranslationError(f"A translation breaks the code at line {exc.lineno}: {exc.msg} ({exc.text!r}).") from None
    return written


def _fenced(code, language):
    for english, other in FENCE_COMMANDS:
        code = code.replace(english, other.format(language=language))
    return code


def markdown_texts(source):
    """The texts of a markdown document or cell to translate, in order (list of str): its ``"text"`` blocks."""
    return [text for kind, text in markdown_blocks(source) if kind == "text"]


def translated_markdown(source, translate, language):
    """A markdown document or cell with its texts translated (str): paragraphs through ``translate``, fenced code
    kept but for ``FENCE_COMMANDS``, blank lines kept.

    Args:
        source: the English markdown (str). translate: ``callable(english: str) -> str``. language: its code (str).
    """
    return "\n".join(translate(text) if kind == "text" else _fenced(text, language) if kind == "code" else text
                     for kind, text in markdown_blocks(source))


def translated(notebook, translate, language):
    """A translated copy of a solved notebook (its solution regions, code and metadata unchanged).

    Args:
        notebook: an nbformat v4 notebook, solved (``course.notebooks.refresh_solved``'s output).
        translate: ``callable(english: str) -> str`` (a catalog's ``gettext``).
        language: the language's code (str, e.g. ``"ru"``): its set-up lines are added to the set-up cell.
    Returns:
        a new nbformat notebook; ``course.notebooks.learner_version`` of it is the learner's notebook.
    """
    import nbformat

    copy = nbformat.reads(nbformat.writes(notebook), as_version=4)
    copy.metadata["kit"] = {**copy.metadata.get("kit", {}), "language": language}
    for cell in copy.cells:
        if cell.cell_type == "markdown":
            cell.source = translated_markdown(cell.source, translate, language)
        elif cell.cell_type == "code":
            cell.source = _translate_code(cell.source, translate)
            kit = cell.metadata.get("kit", {})
            if kit.get("stub"):
                kit["stub"] = _translate_code(kit["stub"], translate)
            if cell.metadata.get("nbgrader", {}).get("grade_id") == SETUP_ID:
                cell.source = cell.source.rstrip("\n") + SETUP_LINES[language]
    return copy


def catalog(language):
    """The compiled catalog of ``language``'s notebook texts (a ``gettext.GNUTranslations``).

    Raises:
        FileNotFoundError: the ``.mo`` is missing (run ``python -m course.catalogs`` in a clone).
    """
    return gettext.translation(DOMAIN, localedir=NOTEBOOK_TRANSLATIONS_DIR, languages=[language])


def answers_name(notebook_name):
    """The model answers' file of a notebook (``"01_parsing.ipynb"`` -> ``"01_parsing.md"``)."""
    return notebook_name[: -len(".ipynb")] + ".md"

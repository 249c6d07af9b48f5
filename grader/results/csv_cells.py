"""CSV cells no spreadsheet evaluates: the one guard for every CSV file the kit writes.

Every text cell of the batch's tables (``gradebook.csv``, ``canvas.csv``, ``maxima.csv``:
``grader.classroom.gradebook``) and of the class report's files (``grader.insight.class_report``) goes through
``safe_cell``; the class report reads a gradebook back with ``original_cell``'s rule. OWASP's "CSV Injection" rule:
a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula to Excel, LibreOffice
or Google Sheets, also after leading spaces (which they skip) and in the full-width forms ``＝ ＋ － ＠`` (which some
locales read as the ASCII ones); such a cell gets a leading apostrophe, which spreadsheets hide and take as "this
is text" (../shared/cases/grader_attacks/csv_formula_in_file_name.sh). A cell that already starts with an
apostrophe gets one more, so that the apostrophe added here is always the first and only one to remove: the
rule can be undone exactly. Issue 21: a second copy of the rule in the class report missed the leading space and
the full-width signs, and a class of ``bob``, ``" =eve"`` and ``"＝mal"`` became a report of one student.
"""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
ESCAPED_STARTS = FORMULA_STARTS + ("'",)  # an apostrophe of the text's own is kept by a second one


def safe_cell(value):
    """``value`` as a CSV text cell no spreadsheet evaluates (str).

    Args:
        value: anything; it is written as ``str(value)``, on one line (line breaks become spaces).
    Returns:
        str: with a leading ``'`` when, after any leading spaces, it starts with a formula character or an
        apostrophe. Numbers the kit itself formats (``0.250``, ``-0.31``) are written as they are, not through here.
    """
    text = str(value)
    if "\n" in text or "\r" in text:
        text = " ".join(text.splitlines())
    if text.lstrip(" ").startswith(ESCAPED_STARTS):
        return "'" + text
    return text


def original_cell(cell):
    """The text ``safe_cell`` was given, for a cell it wrote (str): the one apostrophe it adds is removed.

    Exact for one-line text (``original_cell(safe_cell(t)) == t``); line breaks ``safe_cell`` joined are not
    restored. A cell that ``safe_cell`` cannot have written (an apostrophe before text that needs none) is
    returned as it is, as older gradebooks wrote such names unchanged.
    """
    if cell.startswith("'") and safe_cell(cell[1:]) == cell:
        return cell[1:]
    return cell

"""The batch's tables: ``gradebook.csv``, ``maxima.csv`` and ``canvas.csv``, from the per-student summaries.

Rules every table keeps (docs/instructors.md, "What the batch guarantees"):
- one row per student the batch found, graded or not (a student still to grade when a run was stopped
  has blank scores and a note saying so, never a zero);
- one maximum for everyone, from the assignment's exercises (``grader.classroom.assignment``), never from what
  students handed in;
- no text cell can start a spreadsheet formula, whatever the student or file is called: every text cell goes
  through the kit's one CSV guard, ``grader.results.csv_cells.safe_cell`` (OWASP's CSV-injection rule);
- notes are one line and short; the full reasons are in ``feedback/STUDENT/``.
"""

import csv
import io

from grader.results.csv_cells import safe_cell
from grader.results.grade_result import points_text
from grader.results.provenance import __version__

MAX_NOTE_CHARS = 200
CANVAS_STUDENT_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
# Which Canvas column identifies the student (Canvas matches ID first, then SIS User ID, SIS Login ID, name).
CANVAS_ID_COLUMNS = {"sis-login-id": "SIS Login ID", "sis-user-id": "SIS User ID", "id": "ID", "name": "Student"}


def note_cell(notes, student_folder):
    """The notes column: every note on one line, cut to ``MAX_NOTE_CHARS`` with a pointer to the feedback (str)."""
    text = " ".join("; ".join(notes).split())
    if len(text) > MAX_NOTE_CHARS:
        text = text[: MAX_NOTE_CHARS - 1].rstrip() + f"… (all of it in feedback/{student_folder}/)"
    return safe_cell(text)


def _rows(entries, maxima):
    """Per student: (summary or None, earned per exercise or None, notes)."""
    for entry in entries:
        summary = entry["summary"]
        if summary is None:
            yield entry, None, [entry["pending"]]
            continue
        scores = summary["exercises"]
        earned = [scores[e][0] if e in scores else 0 for e in maxima]
        notes = list(summary["errors"])
        missing = [e for e in maxima if e not in scores]
        if missing and summary["files"] and not summary["errors"]:
            notes.append("nothing graded for " + ", ".join(missing))
        yield entry, earned, notes


def gradebook_csv(entries, maxima):
    """``gradebook.csv``: one row per student, one column per exercise of the assignment, total, notes.

    Args:
        entries: per student, in order: ``{"student": shown name, "folder": feedback folder name,
            "summary": the summary dict (``grader.classroom.batch.grade_student``) or None when not graded yet,
            "pending": the note for a student not graded yet}`` (list of dict).
        maxima: ``{exercise id: max points}`` of the assignment, in course order (dict).
    Returns:
        str: CSV text. Columns: ``student``, one per exercise id, ``total``, ``max_total`` (the same in every
        row), ``notes``, ``grader`` (the kit's version, so a row can be traced to the grader that gave it).
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["student", *maxima, "total", "max_total", "notes", "grader"])
    available = points_text(sum(maxima.values()))
    for entry, earned, notes in _rows(entries, maxima):
        scores = [""] * (len(maxima) + 1) if earned is None else [*map(points_text, earned), points_text(sum(earned))]
        writer.writerow([safe_cell(entry["student"]), *scores, available, note_cell(notes, entry["folder"]),
                         __version__])
    return buffer.getvalue()


def maxima_csv(maxima, titles):
    """``maxima.csv``: each exercise's maximum, then the total (the gradebook's header names the columns).

    Args:
        maxima: ``{exercise id: max points}`` (dict). titles: ``{exercise id: title}`` (dict).
    Returns:
        str: CSV with columns ``exercise``, ``title``, ``max_points``.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["exercise", "title", "max_points"])
    for exercise_id, maximum in maxima.items():
        writer.writerow([exercise_id, safe_cell(titles.get(exercise_id, exercise_id)), points_text(maximum)])
    writer.writerow(["total", "all exercises of the assignment", points_text(sum(maxima.values()))])
    return buffer.getvalue()


def canvas_csv(entries, maxima, assignment="Tool-call validation", id_column="sis-login-id"):
    """``canvas.csv``: the gradebook in the CSV layout Canvas imports (Grades > Import).

    Canvas's importer (its instructor guide "How do I import grades in the Gradebook?", and
    ``GradebookImporter`` in instructure/canvas-lms) reads: a header whose first columns are ``Student``,
    ``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section``, then one column per assignment (``Title`` or
    ``Title (canvas id)``; an unknown title creates an assignment); an optional second row starting with
    ``Points Possible``; then one row per student, matched by ``ID``, else ``SIS User ID``, else ``SIS Login
    ID``, else the name. So this file has exactly one assignment column (the total), no notes or total
    columns (Canvas would create assignments from them), and a blank score for a student not graded yet
    (Canvas leaves that grade unchanged).

    Args:
        entries: as for ``gradebook_csv``. maxima: as for ``gradebook_csv``.
        assignment: the assignment column's header: a Canvas assignment's title, or ``Title (id)`` as
            Canvas's own export names it (str).
        id_column: which column holds the kit's student id (the submission folder's or file's name): a key
            of ``CANVAS_ID_COLUMNS`` (str). The ``Student`` column always holds it too.
    Returns:
        str: CSV text.
    """
    column = CANVAS_ID_COLUMNS[id_column]
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([*CANVAS_STUDENT_COLUMNS, safe_cell(assignment)])
    writer.writerow(["Points Possible", "", "", "", "", points_text(sum(maxima.values()))])
    for entry, earned, _ in _rows(entries, maxima):
        row = dict.fromkeys(CANVAS_STUDENT_COLUMNS, "")
        row["Student"] = row[column] = safe_cell(entry["student"])
        writer.writerow([*row.values(), "" if earned is None else points_text(sum(earned))])
    return buffer.getvalue()

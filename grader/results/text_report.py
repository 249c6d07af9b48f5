"""Reports: the learner's text report and Gradescope's results.json, both from one GradeResult."""

import json
import os
import tempfile

from grader.isolation.sanitise import strip_controls

MAX_PRINTED_CHARS = 1000
MAX_PRINTED_LINES = 12
# A case that did not run says so with one of these sentences (grader.judging.harness: Harness.problem_for); every
# later case gets the same one, so the report shows it once (issue 11: an endless loop filled 90 cases).
NOT_RUN_PREFIXES = ("Not run: ", "Grading stopped: ")
# Likewise for cases voided by a failed canary (grader.judging.canaries.void_reference): the cause is a note, told once.
FOLDED_PREFIXES = NOT_RUN_PREFIXES + ("Not counted: ",)


def _points(value):
    return f"{value:g}"


def _sentence(case):
    """A failed case's feedback without what a visible case adds (its input and hint): the sentence (str)."""
    return case.feedback.split("\n", 1)[0]


def _runs(lines):
    """Consecutive identical lines folded: ``[(line, count)]``."""
    runs = []
    for line in lines:
        if runs and runs[-1][0] == line:
            runs[-1][1] += 1
        else:
            runs.append([line, 1])
    return runs


def capped(text, limit=MAX_PRINTED_CHARS, max_lines=MAX_PRINTED_LINES):
    """``text`` stripped, a line repeated many times shown once with its count, and cut to ``limit`` characters
    and ``max_lines`` lines; cut text ends with "…" and a note of how much was left out (str).

    An endless loop that prints one line prints it thousands of times: the report shows it once, with
    "(the same line 3,057 times)", not ninety lines of it (issue 11).
    """
    text = text.strip()
    runs = _runs(text.splitlines())
    shown = [line if count == 1 else f"{line}  (the same line {count:,} times)" for line, count in runs]
    folded = "\n".join(shown[:max_lines])
    left = sum(count for _, count in runs[max_lines:])
    if len(folded) > limit:
        left_chars = len(folded) - limit
        return folded[:limit] + f"…\n(truncated: {left_chars:,} more characters{f' and {left:,} more lines' if left else ''} not shown)"
    if left:
        return folded + f"\n…\n(truncated: {left:,} more lines not shown)"
    return folded


def text_report(result):
    """A readable report: score, loading notes, then each case group with points and feedback.

    Hidden cases show their rule and what went wrong, never their input. The closing lines keep
    "all visible checks passed" and "all graded cases passed" apart: they are different claims.

    Args:
        result: ``grader.results.grade_result.GradeResult``.
    Returns:
        str (several lines, no trailing newline).
    """
    name = os.path.basename(result.submission)
    lines = [f"Grading {name}", f"Score: {_points(result.score)} / {_points(result.max_score)}"]
    if result.error:
        # Every case failed with the same sentence; listing them would bury it (results.json keeps them).
        return strip_controls("\n".join(lines + ["", f"Could not grade: {result.error}"]))
    if result.notes:
        lines += ["", "Before the cases:"] + [f"  ! {note}".replace("\n", "\n    ") for note in result.notes]
    not_run_shown = set()  # the "not run" / "not counted" sentences already shown in full
    folded = []  # later cases with such a sentence, told in one line: [(case, group)]

    def fold_line():
        groups = list(dict.fromkeys(group for _, group in folded))
        where = f" (in {groups[0]})" if len(groups) == 1 else f" (in {len(groups)} groups: {', '.join(groups[:3])}" + \
            (", …)" if len(groups) > 3 else ")")
        why = ("not counted, as the note at the top says" if folded[0][0].feedback.startswith("Not counted")
               else "not run, for the same reason")
        return (f"  ✗ {len(folded)} more case{'s' if len(folded) > 1 else ''}{where} {why} "
                f"({_points(0)}/{_points(sum(case.max_points for case, _ in folded))})")

    for group, cases in result.groups():
        earned = sum(c.points for c in cases)
        available = sum(c.max_points for c in cases)
        sentences = {_sentence(c) for c in cases if not c.passed}
        whole = (cases and all(not c.passed and c.feedback.startswith(FOLDED_PREFIXES) for c in cases)
                 and len(sentences) == 1 and sentences <= not_run_shown
                 and (not folded or sentences == {_sentence(folded[0][0])}))
        if whole:
            folded += [(case, group) for case in cases]  # the whole group did not run: no heading of its own
            continue
        if folded:
            lines.append(fold_line())
            folded = []
        lines += ["", f"{group} — {_points(earned)}/{_points(available)}"]
        last_rule = None
        for case in cases:
            if not case.passed and case.feedback.startswith(FOLDED_PREFIXES):
                if _sentence(case) in not_run_shown and (not folded or _sentence(folded[0][0]) == _sentence(case)):
                    folded.append((case, group))
                    continue
                not_run_shown.add(_sentence(case))
            if folded:
                lines.append(fold_line())
                folded = []
            mark = "✓" if case.passed else "✗"
            lines.append(f"  {mark} {case.title} ({_points(case.points)}/{_points(case.max_points)})")
            if not case.passed:
                if case.rule and case.rule != last_rule:
                    lines.append(f"      Rule: {case.rule}")  # once per run of cases that share it
                    last_rule = case.rule
                lines.append(f"      What happened: {case.feedback}".replace("\n", "\n      "))
                if case.output.strip():
                    lines.append("      Your code printed: " + capped(case.output).replace("\n", "\n        "))
    if folded:
        lines.append(fold_line())
    visible = [c for c in result.cases if c.visibility == "visible"]
    graded = result.cases
    lines.append("")
    if visible:
        passed = sum(c.passed for c in visible)
        lines.append(f"Visible self-checks: {passed} of {len(visible)} passed.")
    if graded and all(c.visibility == "visible" for c in graded):
        # A student release: saying "all graded cases passed" here would claim what was never checked.
        lines.append("Hidden cases: none in this copy of the kit; your instructor's grader runs them too.")
        return "\n".join(lines)
    passed = sum(c.passed for c in graded)
    verdict = "all graded cases passed." if graded and passed == len(graded) else f"{passed} of {len(graded)} passed."
    lines.append(f"Graded cases (visible and hidden): {verdict}")
    # The file name, or a note a caller added (a batch prefixes file names), may hold escape codes.
    return strip_controls("\n".join(lines))


def case_output(case):
    """The ``output`` text of one case in results.json: rule and feedback, plus printed output."""
    if case.passed:
        return f"Passed. Rule: {case.rule}" if case.rule else "Passed."
    parts = [f"Rule: {case.rule}"] if case.rule else []
    parts.append(f"What happened: {case.feedback}")
    if case.output.strip():
        parts.append("Your code printed:\n" + capped(case.output))
    return "\n".join(parts)


# Gradescope's visibility values (autograder_samples docs/specs.md), from least to most shown.
VISIBILITIES = ("hidden", "after_published", "after_due_date", "visible")
WHEN_SHOWN = {"hidden": "are seen by your instructor only", "after_published": "are shown when your instructor "
              "publishes the grades", "after_due_date": "are shown after the due date", "visible": "are shown now"}


def gradescope_results(result, hidden_visibility="visible", score_visibility="visible"):
    """Build Gradescope's results.json (gradescope/autograder_samples docs/specs.md) as a dict.

    Top level: ``score`` (earned points), ``execution_time`` (s), ``output`` (summary),
    ``visibility``, ``stdout_visibility``, ``extra_data`` (``grader.results.provenance.provenance()``: which grader
    produced it), ``tests``. Each test: ``name``, ``number``, ``score``, ``max_score``, ``status``
    (``passed``/``failed``), ``output``, ``visibility``, ``tags`` (case group, visibility),
    ``extra_data`` (``{"exercise": id}``).

    Args:
        result: ``grader.results.grade_result.GradeResult``.
        hidden_visibility: the ``visibility`` of every hidden case, one of ``VISIBILITIES``. Hidden
            cases never show their input, so ``"visible"`` is safe for a learner's own run; on
            Gradescope it lets students probe the hidden suite by resubmitting, so the bundle sets
            ``"after_due_date"`` by default. Visible cases are always ``"visible"``.
        score_visibility: the top-level ``visibility`` (Gradescope's assignment-level setting, the
            default for tests without their own). Gradescope hides the total score while any test
            that carries points is not yet shown, so the ``output`` then names the visible part only.
    Raises:
        ValueError: a visibility that is not one of ``VISIBILITIES``.
    """
    for value in (hidden_visibility, score_visibility):
        if value not in VISIBILITIES:
            raise ValueError(f"visibility must be one of {', '.join(VISIBILITIES)}, not {value!r}")
    tests = []
    for group_number, (group, cases) in enumerate(result.groups(), start=1):
        for case_number, case in enumerate(cases, start=1):
            tests.append({
                "name": f"{group}: {case.title}",
                "number": f"{group_number}.{case_number}",
                "score": case.points,
                "max_score": case.max_points,
                "status": "passed" if case.passed else "failed",
                "output": case_output(case),
                "visibility": "visible" if case.visibility == "visible" else hidden_visibility,
                "tags": [group, case.visibility],
                "extra_data": {"exercise": case.exercise_id},
            })
    withheld = [case for case in result.cases if case.visibility != "visible" and hidden_visibility != "visible"]
    if withheld or score_visibility != "visible":
        # The total would give away what the withheld cases scored: show the visible part only.
        visible = [case for case in result.cases if case.visibility == "visible"]
        summary = [f"Visible self-checks: {sum(c.passed for c in visible)} of {len(visible)} passed "
                   f"({_points(sum(c.points for c in visible))} of {_points(sum(c.max_points for c in visible))} points)."]
        if withheld:
            summary.append(f"The hidden cases ({_points(sum(c.max_points for c in withheld))} points) and your total "
                           f"{WHEN_SHOWN[hidden_visibility]}.")
    else:
        summary = [f"Score: {_points(result.score)} / {_points(result.max_score)}"]
    if result.error:
        summary.append(f"Could not grade: {result.error}")
    summary += [f"Note: {strip_controls(note)}" for note in result.notes]
    from grader.results.provenance import provenance

    return {
        "score": result.score,
        "execution_time": round(result.execution_time, 3),
        "output": "\n".join(summary),
        "visibility": score_visibility,
        "stdout_visibility": "hidden",
        "extra_data": provenance(),
        "tests": tests,
    }


def write_text_atomically(path, text):
    """Write ``text`` to ``path`` via a temporary file and rename, so no reader sees half a file.

    Args:
        path: destination (str or path-like); its folder is created if missing.
        text: the content (str, written as UTF-8; a lone surrogate, from a file name that is not
            UTF-8, becomes "?" instead of failing the write).
    Raises:
        OSError: the folder cannot be created or written.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".kit-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def write_json_atomically(path, data):
    """Write ``data`` as indented JSON to ``path`` atomically (see ``write_text_atomically``)."""
    write_text_atomically(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")

"""The learner's text report from one GradeResult, and the cutting of printed output every report shares.

Hidden cases show their rule and what went wrong, never their input; the other formats of the same result
(Gradescope's results.json, Exercism's, JUnit XML) are in ``grader.results.formats``.
"""

import os

from grader.isolation.sanitise import strip_controls
from grader.results.grade_result import points_text
from grader.translations import N_, _, ngettext

MAX_PRINTED_CHARS = 1000
MAX_PRINTED_LINES = 12
# A case that did not run begins its sentence with one of these (grader.judging.harness: Harness.problem_for); every
# later case gets the same one, so the report shows it once (issue 11: an endless loop filled 90 cases).
NOT_RUN = N_("Not run:")
STOPPED = N_("Grading stopped:")
# Likewise for cases voided by a failed canary (grader.judging.canaries.void_reference): the cause is a note, told once.
NOT_COUNTED = N_("Not counted:")


def folded_prefixes():
    """The beginnings of the sentences a report folds, each followed by a space, in English and in the current
    language (tuple of str; ``NOT_COUNTED``'s last)."""
    return tuple(dict.fromkeys(f"{text} " for prefix in (NOT_RUN, STOPPED, NOT_COUNTED) for text in (prefix, _(prefix))))


WALLS = N_("Isolation:")
MISSING_WALLS = N_("missing:")


def shown_walls(line):
    """The isolation line (``grader.isolation.protections.walls_line``, English: the batch and the class report read
    it) as a learner's report shows it: its two words in the current language; the walls' names are the kernel's
    mechanisms (namespaces, seccomp, Landlock) and stay as they are (str)."""
    if line.startswith("Isolation: "):
        line = _(WALLS) + line[len("Isolation:"):]
    return line.replace("; missing: ", f"; {_(MISSING_WALLS)} ", 1)


def not_counted(feedback):
    """Whether a case's feedback (str) is a canary's "not counted" sentence, in English or the current language."""
    return feedback.startswith((f"{NOT_COUNTED} ", f"{_(NOT_COUNTED)} "))


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
    shown = [line if count == 1 else f"{line}  " + _("(the same line {count:,} times)").format(count=count)
             for line, count in runs]
    folded = "\n".join(shown[:max_lines])
    left = sum(count for _line, count in runs[max_lines:])
    if len(folded) > limit:
        left_chars = len(folded) - limit
        note = (_("(truncated: {chars:,} more characters and {lines:,} more lines not shown)") if left
                else _("(truncated: {chars:,} more characters not shown)"))
        return folded[:limit] + "…\n" + note.format(chars=left_chars, lines=left)
    if left:
        return folded + "\n…\n" + _("(truncated: {lines:,} more lines not shown)").format(lines=left)
    return folded


def seed_line(seed):
    """The report's last line about the draw (str): the hidden inputs are new on every grading, and ``--seed``
    draws the same ones again (``grader.judging.draw``)."""
    return _("Hidden inputs: drawn for this grading with seed {seed}; grade the same file with --seed {seed} to draw "
             "the same ones again.").format(seed=seed)


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
    # Points here, cases at the end: a case may be worth 2 points, so the two counts differ (issue 25's trial read
    # "Score: 50 / 60" beside "50 of 59 passed" as one count).
    lines = [_("Grading {name}").format(name=name),
             _("Score: {score} / {max} points").format(score=points_text(result.score), max=points_text(result.max_score))]
    if result.error:
        # Every case failed with the same sentence; listing them would bury it (results.json keeps them).
        return strip_controls("\n".join(lines + ["", _("Could not grade: {error}").format(error=result.error)]))
    if result.notes:
        lines += ["", _("Before the cases:")] + [f"  ! {note}".replace("\n", "\n    ") for note in result.notes]
    not_run_shown = set()  # the "not run" / "not counted" sentences already shown in full
    folded = []  # later cases with such a sentence, told in one line: [(case, group)]

    def fold_line():
        groups = list(dict.fromkeys(group for _case, group in folded))
        where = (_("in {group}").format(group=groups[0]) if len(groups) == 1 else
                 _("in {count} groups: {groups}").format(count=len(groups),
                                                         groups=", ".join(groups[:3]) + (", …" if len(groups) > 3 else "")))
        counted = not_counted(folded[0][0].feedback)
        line = (ngettext("{count} more case ({where}) not counted, as the note at the top says",
                         "{count} more cases ({where}) not counted, as the note at the top says", len(folded)) if counted
                else ngettext("{count} more case ({where}) not run, for the same reason",
                              "{count} more cases ({where}) not run, for the same reason", len(folded)))
        total = points_text(sum(case.max_points for case, _group in folded))
        return f"  ✗ {line.format(count=len(folded), where=where)} ({points_text(0)}/{total})"

    prefixes = folded_prefixes()
    for group, cases in result.groups():
        earned = sum(c.points for c in cases)
        available = sum(c.max_points for c in cases)
        sentences = {_sentence(c) for c in cases if not c.passed}
        whole = (cases and all(not c.passed and c.feedback.startswith(prefixes) for c in cases)
                 and len(sentences) == 1 and sentences <= not_run_shown
                 and (not folded or sentences == {_sentence(folded[0][0])}))
        if whole:
            folded += [(case, group) for case in cases]  # the whole group did not run: no heading of its own
            continue
        if folded:
            lines.append(fold_line())
            folded = []
        lines += ["", f"{group} — {points_text(earned)}/{points_text(available)}"]
        last_rule = None
        for case in cases:
            if not case.passed and case.feedback.startswith(prefixes):
                if _sentence(case) in not_run_shown and (not folded or _sentence(folded[0][0]) == _sentence(case)):
                    folded.append((case, group))
                    continue
                not_run_shown.add(_sentence(case))
            if folded:
                lines.append(fold_line())
                folded = []
            mark = "✓" if case.passed else "✗"
            lines.append(f"  {mark} {case.title} ({points_text(case.points)}/{points_text(case.max_points)})")
            if not case.passed:
                if case.rule and case.rule_line() != last_rule:
                    lines.append("      " + case.rule_line())  # once per run of cases that share it
                    last_rule = case.rule_line()
                lines.append(("      " + _("What happened: {feedback}").format(feedback=case.feedback))
                             .replace("\n", "\n      "))
                if case.output.strip():
                    lines.append("      " + _("Your code printed: {output}").format(
                        output=capped(case.output).replace("\n", "\n        ")))
    if folded:
        lines.append(fold_line())
    visible = [c for c in result.cases if c.visibility == "visible"]
    graded = result.cases
    lines.append("")
    if visible:
        passed = sum(c.passed for c in visible)
        lines.append(_("Visible self-checks: {passed} of {count} passed.").format(passed=passed, count=len(visible)))
    if graded and all(c.visibility == "visible" for c in graded):
        # A student release: saying "all graded cases passed" here would claim what was never checked.
        lines.append(_("Hidden cases: none in this copy of the kit; your instructor's grader runs them too."))
        return "\n".join(lines)
    passed = sum(c.passed for c in graded)
    uneven = {c.max_points for c in graded} - {1.0}
    if graded and passed == len(graded):
        verdict = _("all graded cases passed.")
    elif uneven:
        verdict = _("{passed} of {count} cases passed (cases, not points: some cases are worth more than 1 point).")
    else:
        verdict = _("{passed} of {count} cases passed.")
    lines.append(_("Graded cases (visible and hidden): {verdict}").format(
        verdict=verdict.format(passed=passed, count=len(graded))))
    if result.seed:
        lines.append(seed_line(result.seed))
    if result.isolation:
        lines.append(shown_walls(result.isolation))
    # The file name, or a note a caller added (a batch prefixes file names), may hold escape codes.
    return strip_controls("\n".join(lines))

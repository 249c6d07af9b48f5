"""The learner's command line, rustlings-style: ``python -m grader.learner {progress,hint,watch}``.

- ``progress``: every exercise, done / failing / not started, with scores (graded by the grader).
- ``hint [ID] [--level N]``: the hint for an exercise; without an id, for the first exercise not done yet, with the
  first case it fails; in three levels asked for one at a time (1 a nudge, 2 the rule, 3 the recipe).
- ``watch``: re-grade a notebook each time it is saved and print where you stand.

All three use the grader itself (``grader.learner.progress``), never a second copy of its checks.
"""

import argparse
import os
import sys
import time

from grader.intake.exercises import BY_ID, EXERCISES
from grader.learner.progress import course_progress, format_progress
from grader.paths import KIT_ROOT, notebooks_dir
from grader.results.grade_result import points_text
from grader.translations import N_, _, add_language_option, choose, current, language_asked, speak_to_argparse, use

LEVEL_NAMES = {1: N_("a nudge"), 2: N_("the rule"), 3: N_("the recipe")}
"""The three hint levels' names (issue 27), translated where shown."""


def next_exercise(rows):
    """The first row, in course order, that is not done (or None when everything is)."""
    return next((row for row in rows if row.state not in ("done", "visible ok")), None)


def hint_text(rows, exercise_id=None, level=1):
    """The hint to print: for ``exercise_id``, or for the first exercise not done yet (str), at ``level`` (1 a nudge,
    2 the rule, 3 the recipe: each level asked for separately, as the notebooks' hint cells give them; issue 27)."""
    if exercise_id:
        exercise = BY_ID[exercise_id]
        row = next((r for r in rows if r.exercise is exercise), None) if rows else None
    else:
        row = next_exercise(rows)
        if row is None:
            return _("Every exercise is done. Well done!")
        exercise = row.exercise
    folder = os.path.relpath(notebooks_dir(current()), KIT_ROOT).replace(os.sep, "/")
    lines = [f"{_(exercise.title)}  ({folder}/{exercise.notebook})"]
    if row is not None and row.state == "failing":
        lines.append(row.detail)
        # The first failing case's own rule (and a visible case's hint) before the exercise's general hint (issue 11).
        lines += [_("Rule it checks: {rule}").format(rule=row.rule)] if row.rule and level >= 2 else []
        lines += [_("Hint for that case: {hint}").format(hint=row.case_hint)] if row.case_hint and level >= 3 else []
    text = {1: exercise.nudge, 2: exercise.rule, 3: exercise.hint}[level] or exercise.hint
    lines += ["", _("Hint {level} of 3 ({name}): {text}").format(level=level, name=_(LEVEL_NAMES[level]), text=_(text))]
    if level < 3:
        # The command to run next, in the language of this one (a learner trial ran it and got English).
        language = "" if current() == "en" else f" --lang {current()}"
        lines.append(_("More: python -m grader.learner hint {id} --level {level} ({name}).").format(
            id=f"{exercise.id}{language}", level=level + 1, name=_(LEVEL_NAMES[level + 1])))
    return "\n".join(lines)


def snapshot(folder):
    """``{notebook file name: modification time}`` for the course's notebooks in ``folder``."""
    stamps = {}
    for name in sorted({e.notebook for e in EXERCISES}):
        try:
            stamps[name] = os.path.getmtime(os.path.join(folder, name))
        except OSError:
            pass
    return stamps


def watch(folder, interval=1.0, max_events=None, out=sys.stdout):
    """Print progress whenever a course notebook in ``folder`` is saved.

    Polls modification times every ``interval`` seconds (a save in Jupyter rewrites the file).
    Args:
        folder: the learner notebooks' folder (str). interval: seconds between polls (float).
        max_events: stop after this many re-gradings (int; None: until interrupted).
        out: where to print (a text stream).
    Returns:
        the number of re-gradings done (int).
    """
    seen = snapshot(folder)
    print(_("Watching {folder}; save a notebook to re-check it (Ctrl+C stops).").format(folder=folder), file=out,
          flush=True)
    events = 0
    try:
        while max_events is None or events < max_events:
            time.sleep(interval)
            current = snapshot(folder)
            changed = [name for name, stamp in current.items() if seen.get(name) != stamp]
            seen = current
            if not changed:
                continue
            rows = course_progress(folder)
            for name in changed:
                for row in rows:
                    if row.exercise.notebook == name:
                        score = f" {points_text(row.score)}/{points_text(row.max_score)}" if row.max_score else ""
                        print(f"{name}: {_(row.exercise.title)}: {_(row.state)}{score}. {row.detail}", file=out,
                              flush=True)
            following = next_exercise(rows)
            print(_("Next: {title}").format(title=_(following.exercise.title)) if following
                  else _("Every exercise is done."), file=out, flush=True)
            events += 1
    except KeyboardInterrupt:
        pass
    return events


def main(argv=None):
    """Command line; returns the exit status (0; 2 for an unknown ``--lang``, with argparse's message)."""
    argv = sys.argv[1:] if argv is None else argv
    use(choose(language_asked(argv)))  # before the parser: its help and errors speak the language too
    speak_to_argparse()
    parser = argparse.ArgumentParser(prog="python -m grader.learner",
                                     description=_("The learner's command line: progress, hints, and a watcher that "
                                                   "re-checks each notebook you save."))
    parser.add_argument("--notebooks", default=None,
                        help=_("folder of your notebooks (default: notebooks/, or notebooks/ru/ in Russian)"))
    add_language_option(parser)
    commands = parser.add_subparsers(dest="command", required=True)
    progress = commands.add_parser("progress", help=_("show every exercise: done, failing or not started"))
    hint = commands.add_parser("hint", help=_("print the hint for the next exercise (or the one named)"))
    hint.add_argument("exercise", nargs="?", choices=sorted(BY_ID), help=_("an exercise id"))
    hint.add_argument("--level", type=int, choices=(1, 2, 3), default=1,
                      help=_("1 a nudge (the default), 2 the rule, 3 the recipe: ask for the next one when stuck"))
    watcher = commands.add_parser("watch", help=_("watch the notebooks folder; re-check whichever notebook you save"))
    watcher.add_argument("--interval", type=float, default=1.0, help=_("seconds between checks for a save"))
    watcher.add_argument("--max-events", type=int, default=None, help=argparse.SUPPRESS)
    for command in (progress, hint, watcher):  # --lang after the command too, as the grader takes it anywhere
        add_language_option(command, default=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    use(choose(args.lang))
    if args.notebooks is None:
        args.notebooks = notebooks_dir(current())
    if args.command == "progress":
        print(format_progress(course_progress(args.notebooks)))
    elif args.command == "hint":
        print(hint_text(course_progress(args.notebooks), args.exercise, args.level))
    else:
        watch(args.notebooks, args.interval, args.max_events)
    return 0


if __name__ == "__main__":
    sys.exit(main())

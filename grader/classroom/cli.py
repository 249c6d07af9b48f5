"""Command line: ``python -m grader SUBMISSION [--results PATH]``."""

import argparse
import importlib.util
import os
import sys

from grader.intake.exercises import BY_ID
from grader.isolation.deadlines import BUDGET_BACKSTOP
from grader.isolation.limits import Limits
from grader.isolation.protections import walls, walls_table
from grader.paths import stray_folders, stray_sentence
from grader.pipeline import grade
from grader.results.atomic_write import write_json_atomically, write_text_atomically
from grader.results.formats import exercism_results, gradescope_results, junit_xml
from grader.results.provenance import version_line
from grader.results.text_report import text_report
from grader.translations import _, add_language_option, choose, language_asked, say, speak_to_argparse, use


def build_parser():
    """The argument parser (also documents the options in ``--help``)."""
    parser = argparse.ArgumentParser(
        prog="python -m grader",
        description=_("Grade a tool-call validation submission (.py file or .ipynb notebook) with the kit's hidden "
                      "cases."),
    )
    parser.add_argument("submission", nargs="?", help=_("path of the .py file or .ipynb notebook to grade"))
    # Its own help given here: argparse before 3.12 does not pass the default one through gettext.
    parser.add_argument("--version", action="version", version=version_line(),
                        help=_("show program's version number and exit"))
    parser.add_argument("--isolation", action="store_true",
                        help=_("print which walls stand around a submission's worker on this machine, and exit "
                               "(status 0 when every wall stands, 1 when one is missing)"))
    parser.add_argument("--results", metavar="PATH", help=_("also write a Gradescope-format results.json here"))
    parser.add_argument("--exercism", metavar="PATH", help=_("also write Exercism's results.json (version 3) here"))
    parser.add_argument("--junit", metavar="PATH", help=_("also write JUnit XML here"))
    parser.add_argument("--seed", metavar="SEED",
                        help=_("draw the hidden inputs with this seed, the one a report names, to get that report's "
                               "inputs again (default: a fresh draw for every grading)"))
    add_grading_options(parser, total=_("all cases of the submission"))
    add_language_option(parser)
    return parser


def add_grading_options(parser, total, exercise=True):
    """The options every grading command shares (this one and ``grader.classroom.batch``): ``--exercise``,
    ``--case-timeout``, ``--load-timeout``, ``--memory-mb``, ``--total-timeout``.

    Args:
        parser: an ``argparse.ArgumentParser``. total: what ``--total-timeout`` bounds (str, for its help).
        exercise: add ``--exercise`` too (bool); the batch names its assignment with ``grader.classroom.assignment``'s.
    """
    if exercise:
        parser.add_argument("--exercise", action="append", choices=sorted(BY_ID), metavar="ID",
                            help=say("grade this exercise (repeatable) instead of the ones found in the submission; "
                                     "one of: {ids}", ids=", ".join(BY_ID)))
    parser.add_argument("--case-timeout", type=float, default=Limits.case_seconds, metavar="SECONDS",
                        help=_("wall-clock limit for one case (default: %(default)s)"))
    parser.add_argument("--load-timeout", type=float, default=Limits.load_seconds, metavar="SECONDS",
                        help=_("wall-clock limit for loading the submission (default: %(default)s)"))
    parser.add_argument("--memory-mb", type=int, default=Limits.memory_mb, metavar="MB",
                        help=_("memory limit of the process running the submission: its address space on Linux, "
                               "its memory as the grader watches it elsewhere (default: %(default)s)"))
    parser.add_argument("--total-timeout", type=float, default=Limits.total_seconds, metavar="SECONDS",
                        help=say("time limit for {total}: the wall clock less what a busy machine kept the submission "
                                 "waiting for a CPU, at most {backstop:g} times the limit (default: %(default)s)",
                                 total=total, backstop=BUDGET_BACKSTOP))


def warn_of_stray_folders():
    """Say on stderr when ``grader/`` holds a folder the grader does not run (``grader.paths.stray_folders``), so
    an instructor whose own cases an update left at an old place learns it before trusting a score."""
    stray = stray_folders()
    if stray:
        print(f"warning: {stray_sentence(stray)}", file=sys.stderr)


def limits_from(args):
    """The ``grader.isolation.limits.Limits`` that the options of ``add_grading_options`` ask for."""
    return Limits(case_seconds=args.case_timeout, load_seconds=args.load_timeout, memory_mb=args.memory_mb,
                  total_seconds=args.total_timeout)


def main(argv=None):
    """Grade, print the report, optionally write results.json.

    Returns:
        int exit status: 0 when grading completed (whatever the score) or ``--isolation`` found every wall standing
        (1 when one is missing); 2 when
        no submission was named, or it could not be graded (missing, unreadable, not a notebook), or results.json
        could not be written.
    """
    argv = sys.argv[1:] if argv is None else argv
    use(choose(language_asked(argv)))  # before the parser: its help and errors speak the language too
    speak_to_argparse()
    parser = build_parser()
    args = parser.parse_args(argv)
    use(choose(args.lang))
    if args.isolation:
        if args.submission is not None:
            parser.error(_("--isolation grades nothing: leave out the submission"))
        listed = walls()
        print(walls_table(listed))
        return 0 if all(wall.standing for wall in listed) else 1  # for a script checking a grading machine
    if args.submission is None:
        parser.error(_("the following arguments are required: submission (or --isolation)"))
    missing = [name for name in ("pytest", "nbformat") if importlib.util.find_spec(name) is None]
    if missing:
        print(f"error: this Python lacks the kit's packages ({', '.join(missing)}); run the grader with the kit's "
              f"environment: {os.path.join('.venv', 'Scripts' if os.name == 'nt' else 'bin', 'python')} -m grader ... "
              "(see the README's set-up command).", file=sys.stderr)
        return 2
    warn_of_stray_folders()
    limits = limits_from(args)
    result = grade(args.submission, limits=limits, exercise_ids=args.exercise,
                   seed=args.seed.strip() if args.seed and args.seed.strip() else None)
    # Learner text is sanitised, but never let an odd terminal encoding lose the results.
    sys.stdout.reconfigure(errors="replace")
    print(text_report(result))
    status = 0
    outputs = [(args.results, lambda: write_json_atomically(args.results, gradescope_results(result))),
               (args.exercism, lambda: write_json_atomically(args.exercism, exercism_results(result))),
               (args.junit, lambda: write_text_atomically(args.junit, junit_xml(result)))]
    for path, write in outputs:
        if not path:
            continue
        try:
            write()
        except OSError as exc:
            print(say("error: could not write {path} ({reason}).", path=path, reason=exc.strerror or exc), file=sys.stderr)
            status = 2
    if result.error:
        print(say("error: {error}", error=result.error), file=sys.stderr)
        status = 2
    return status


def run(argv=None):
    """``main`` for ``python -m grader`` and the ``toolcall-grade`` command: returns the exit status (int).

    A report piped into a command that stops reading (``| head``) is not an error: status 0.
    """
    try:
        status = main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 0
    return status

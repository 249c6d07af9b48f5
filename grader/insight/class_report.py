"""Class insight after a batch run: ``python -m grader.insight OUT [--submissions SUBMISSIONS] [--report PATH]``.

Reads the output folder of ``python -m grader.batch`` (never regrades) and writes one self-contained
HTML page (opens offline: inline CSS, plots embedded, no script) plus CSV files holding every figure
on it, by default into ``OUT/insight/``. The page shows, per exercise, the score distribution, and
per case group and case the pass rate, who failed and a discrimination figure, possibly broken cases
first; the known mistakes (``tests/faulty/``, via ``grader/insight/misconceptions.json``) each
student's failed cases match; and, with ``--submissions``, pairs of students whose code is alike.

The pipeline, one module per step: ``insight_read`` (batch output -> ``ClassResults``),
``insight_stats`` (distributions, items), ``insight_mistakes`` (known mistakes),
``insight_similarity`` (copydetect), ``insight_html`` (the page); this module writes the CSV files.
Student names appear only in these instructor outputs; the student release ships no ``insight`` file.
"""

import argparse
import csv
import datetime
import io
import os
import sys
import time
from dataclasses import dataclass, field

from grader.insight.read_batch import read_batch_output
from grader.results.atomic_write import write_text_atomically
from grader.results.csv_cells import safe_cell
from grader.results.grade_result import points_text

CSV_FILES = ("summary.csv", "exercises.csv", "students.csv", "score_distribution.csv", "groups.csv", "cases.csv", "failures.csv",
             "mistakes.csv", "mistake_cases.csv", "mistake_matches.csv", "similarity.csv", "similar_pairs.csv", "similar_groups.csv")


@dataclass
class ClassReport:
    """Everything the page and the CSV files show.

    Attributes:
        data: ``insight_read.ClassResults``. exercises: ``[insight_stats.ExerciseStats]``.
        cases, groups: ``[insight_stats.ItemStats]``. mistakes: ``insight_mistakes.MistakeReport``.
        similarity: ``insight_similarity.SimilarityResult`` or None (no ``--submissions``).
        unchanged: ``{exercise: [students]}`` whose code is only the shipped stub (known with
            ``--submissions`` only). negative: the discrimination below which a case is flagged (float),
            min_flag: with at least this many students counted (int).
        generated: when (str). csv_folder: where the CSV files go (str). csv_files: their names (tuple).
    """

    data: object
    exercises: list
    cases: list
    groups: list
    mistakes: object
    similarity: object = None
    unchanged: dict = field(default_factory=dict)
    negative: float = 0.0
    min_flag: int = 0
    generated: str = ""
    csv_folder: str = ""
    csv_files: tuple = CSV_FILES


def build_report(out, submissions=None, threshold=None, workers=None, log=None):
    """Compute the class report from a batch output folder.

    Args:
        out: the batch's ``--out`` folder (str). submissions: the batch's submissions folder, for
            similarity (str or None: no similarity). threshold: similarity share to list a pair
            (float 0..1; default ``insight_similarity.THRESHOLD``). workers: processes for similarity
            (int; default the number of CPUs). log: ``callable(str)`` for progress lines, or None.
    Returns:
        ``ClassReport``.
    Raises:
        FileNotFoundError: ``out`` is not a batch output folder (one sentence).
    """
    from grader.insight import mistakes as insight_mistakes
    from grader.insight import statistics as insight_stats

    log = log or (lambda line: None)
    started = time.perf_counter()
    data = read_batch_output(out)
    log(f"read {len(data.students)} students' results in {time.perf_counter() - started:.2f} s")
    exercises = insight_stats.exercise_stats(data)
    cases, groups = insight_stats.item_stats(data)
    mistakes = insight_mistakes.match_class(data, insight_mistakes.load_mistakes())
    log(f"statistics and known mistakes in {time.perf_counter() - started:.2f} s")
    report = ClassReport(data, exercises, cases, groups, mistakes, negative=insight_stats.NEGATIVE,
                         min_flag=insight_stats.MIN_STUDENTS_FOR_FLAG,
                         generated=datetime.datetime.now().strftime("%Y-%m-%d %H:%M"))
    if submissions is not None:
        from grader.insight import similarity as insight_similarity

        files = insight_similarity.code_files_for(data, submissions)
        lost = sum(len(per) for per in data.files.values()) - sum(len(per) for per in files.values())
        if lost:
            data.notes.append(f"{lost} graded file(s) are no longer in {submissions}, so their code is not compared.")
        report.similarity = insight_similarity.class_similarity(
            files, insight_similarity.THRESHOLD if threshold is None else threshold, workers, log=log)
        report.unchanged = {e: sorted(s for s, state in states.items() if state == "unchanged")
                            for e, states in report.similarity.states.items()}
        log(f"similarity in {time.perf_counter() - started:.2f} s "
            f"({sum(report.similarity.compared.values())} pairs, {len(report.similarity.pairs)} listed)")
    return report


def _share(value):
    return "" if value is None else f"{value:.3f}"


def tables(report):
    """Every CSV file's rows: ``{file name: (header, rows)}``, the figures the page shows. Every text cell goes
    through the kit's one CSV guard (``grader.results.csv_cells.safe_cell``); numbers are written as formatted here."""
    from grader.insight import similarity as insight_similarity

    data = report.data
    sim = report.similarity
    out = {}
    out["summary.csv"] = (["item", "value"], [
        ["batch output", safe_cell(data.folder)], ["generated", report.generated], ["students", len(data.students)],
        ["exercises", len(data.exercises)], ["reading notes", len(data.notes)],
        ["similarity threshold", "" if sim is None else f"{sim.threshold:.3f}"],
        ["discrimination flag below", f"{report.negative:.3f}"],
        ["discrimination flag from students counted", report.min_flag],
        ["alike pairs", "" if sim is None else len(sim.pairs)],
        ["alike groups", "" if sim is None else len(sim.clusters)],
        *([["similarity k-gram characters", insight_similarity.NOISE],
           ["similarity match always found from characters", insight_similarity.GUARANTEE],
           ["similarity minimum own characters", insight_similarity.MIN_OWN_CHARACTERS],
           ["similarity maximum own characters", insight_similarity.MAX_CHARACTERS]] if sim is not None else [])])
    rows = []
    for stats in report.exercises:
        unchanged = report.unchanged.get(stats.exercise)
        rows.append([stats.exercise, safe_cell(stats.title), len(data.cases.get(stats.exercise, [])), stats.students,
                     stats.graded, len(stats.no_file),
                     "" if unchanged is None else len(unchanged), len(stats.nothing_passed), points_text(stats.maximum),
                     _share(stats.mean), _share(stats.median), report.mistakes.compared.get(stats.exercise, 0),
                     len(report.mistakes.unexplained.get(stats.exercise, []))])
    out["exercises.csv"] = (["exercise", "title", "cases", "students", "graded", "no_file", "stub_unchanged", "passed_no_case",
                             "max_points", "mean", "median", "compared_with_mistakes", "matching_no_mistake"], rows)
    rows = []
    for stats in report.exercises:
        nothing = set(stats.nothing_passed)
        unchanged = report.unchanged.get(stats.exercise)
        states = sim.states.get(stats.exercise, {}) if sim is not None else {}
        for student in data.students:
            graded = stats.exercise in data.scores.get(student, {})
            rows.append([safe_cell(student), stats.exercise,
                         points_text(data.scores[student][stats.exercise]) if graded else "", points_text(stats.maximum),
                         safe_cell(data.files.get(student, {}).get(stats.exercise, "")),
                         "passed no case" if student in nothing else "graded" if graded else "no file",
                         "" if unchanged is None or not graded else "yes" if student in unchanged else "no",
                         states.get(student, "")])
    out["students.csv"] = (["student", "exercise", "points", "max_points", "file", "state", "stub_unchanged",
                            "similarity"], rows)
    out["score_distribution.csv"] = (["exercise", "from_points", "to_points", "students"], [
        [s.exercise, points_text(low), points_text(high), n] for s in report.exercises for low, high, n in s.bins])
    item_head = ["students", "passed", "pass_rate", "discrimination", "flag"]

    def item(i):
        return [i.students, i.passed, _share(i.pass_rate), _share(i.discrimination), i.flag]

    out["groups.csv"] = (["exercise", "group", "cases", "max_points", *item_head],
                         [[g.exercise, safe_cell(g.group), g.cases, points_text(g.max_points), *item(g)] for g in report.groups])
    out["cases.csv"] = (["exercise", "group", "case", "visibility", "max_points", *item_head],
                        [[c.exercise, safe_cell(c.group), safe_cell(c.title), c.visibility, points_text(c.max_points), *item(c)]
                         for c in report.cases])
    out["failures.csv"] = (["exercise", "group", "case", "student"],
                           [[i.exercise, safe_cell(i.group), safe_cell(i.title), safe_cell(s)]
                            for i in report.groups + report.cases for s in i.failed_by])
    out["mistakes.csv"] = (["exercise", "mistake_ids", "mistake", "identifiable", "cases", "groups", "exactly", "partly"],
                           [[r.exercise, " ".join(m.id for m in r.mistakes), safe_cell(r.name), "yes" if r.identifiable else "no",
                             len(r.cases), safe_cell("; ".join(r.groups)), len(r.exact), len(r.partial)]
                            for r in report.mistakes.rows])
    out["mistake_cases.csv"] = (["exercise", "mistake_ids", "group", "case"],
                                [[r.exercise, " ".join(m.id for m in r.mistakes), safe_cell(g), safe_cell(t)]
                                 for r in report.mistakes.rows for g, t in sorted(r.cases)])
    out["mistake_matches.csv"] = (["exercise", "student", "match", "mistake_ids", "mistake"],
                                  [[r.exercise, safe_cell(s), kind, " ".join(m.id for m in r.mistakes), safe_cell(r.name)]
                                   for r in report.mistakes.rows for kind, names in (("exact", r.exact), ("partial", r.partial))
                                   for s in names]
                                  + [[e, safe_cell(s), "none", "", ""] for e, names in report.mistakes.unexplained.items()
                                     for s in names])
    similarity_head = ["exercise", "compared", "stub_unchanged", "too_short", "too_long", "unreadable", "pairs_compared",
                       "shipped_cells"]
    if sim is None:
        out["similarity.csv"] = (similarity_head, [])
        out["similar_pairs.csv"] = (["exercise", "student", "other_student", "share_of_student", "share_of_other",
                                     "matching_characters"], [])
    else:
        out["similarity.csv"] = (similarity_head, [[e, *sim.counts(e).values(), sim.compared.get(e, 0),
                                                    sim.boilerplate.get(e, 0)] for e in sim.states])
        out["similar_pairs.csv"] = (["exercise", "student", "other_student", "share_of_student", "share_of_other",
                                     "matching_characters"],
                                    [[p.exercise, safe_cell(p.first), safe_cell(p.second), _share(p.first_share),
                                      _share(p.second_share), p.overlap] for p in sim.pairs])
    clusters = sim.clusters if sim is not None else []
    out["similar_groups.csv"] = (["group", "exercise", "students", "alike_pairs", "most_alike", "members"],
                                 [[n, c.exercise, len(c.students), len(c.pairs), _share(c.pairs[0].share),
                                   safe_cell("; ".join(c.students))] for n, c in enumerate(clusters, start=1)])
    return out


def write_report(report, html_path, csv_folder):
    """Write the page and the CSV files (atomically, each).

    Args:
        report: ``ClassReport``. html_path: the page (str). csv_folder: for the CSV files (str).
    Returns:
        the paths written (list of str).
    Raises:
        OSError: a file cannot be written.
    """
    from grader.insight.html_page import render

    report.csv_folder = csv_folder
    written = []
    for name, (header, rows) in tables(report).items():
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(header)
        writer.writerows(rows)
        path = os.path.join(csv_folder, name)
        write_text_atomically(path, buffer.getvalue())
        written.append(path)
    write_text_atomically(html_path, render(report))
    return [html_path] + written


# The packages of the kit's `insight` extra (requirements-insight.txt) that the report imports: the page's plots,
# and the similarity step's. Without them the command says how to install them, in one sentence.
EXTRA_MODULES = ("matplotlib", "numpy", "copydetect", "markupsafe")
NEEDS_THE_EXTRA = ("python -m grader.insight needs the kit's insight extra, and {module} is not installed: "
                   'pip install "/path/to/the/kit[insight]" (in a clone: pip install -r requirements-insight.txt).')


def missing_extra():
    """The first module of the insight extra that cannot be imported here (str), or None."""
    import importlib.util

    for module in EXTRA_MODULES:
        try:
            if importlib.util.find_spec(module) is None:
                return module
        except (ImportError, ValueError):  # a broken install, or one that left a module without a spec
            return module
    return None


def main(argv=None):
    """Command line; returns 0 when the report was written, 2 when the folder is not a batch output or the insight
    extra is not installed."""
    parser = argparse.ArgumentParser(prog="python -m grader.insight", description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the --out folder of python -m grader.batch")
    parser.add_argument("--submissions", default=None,
                        help="the submissions folder given to the batch; with it, similar code is compared")
    parser.add_argument("--report", default=None, help="the HTML page to write (default: OUT/insight/report.html)")
    parser.add_argument("--csv", default=None, help="folder for the CSV files (default: the page's folder)")
    parser.add_argument("--threshold", type=float, default=None,
                        help="list a pair when at least this share of one side's code is in the other (default 0.5)")
    parser.add_argument("--workers", type=int, default=None, help="processes for similarity (default: the number of CPUs)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print how long each step took")
    args = parser.parse_args(argv)
    if args.threshold is not None and not 0 < args.threshold <= 1:
        print("error: --threshold is a share between 0 and 1, e.g. 0.5.", file=sys.stderr)
        return 2
    if args.submissions is not None and not os.path.isdir(args.submissions):
        print(f"error: {args.submissions} is not a folder of submissions.", file=sys.stderr)
        return 2
    missing = missing_extra()
    if missing is not None:
        print(f"error: {NEEDS_THE_EXTRA.format(module=missing)}", file=sys.stderr)
        return 2
    html_path = args.report or os.path.join(args.out, "insight", "report.html")
    csv_folder = args.csv or os.path.dirname(os.path.abspath(html_path))
    log = (lambda line: print(line, file=sys.stderr)) if args.verbose else None
    try:
        report = build_report(args.out, args.submissions, args.threshold, args.workers, log)
        write_report(report, html_path, csv_folder)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: could not write the report ({exc.strerror or exc}).", file=sys.stderr)
        return 2
    flagged = sum(1 for c in report.cases if c.flag)
    pairs = "" if report.similarity is None else (f", {len(report.similarity.pairs)} alike pair(s) in "
                                                  f"{len(report.similarity.clusters)} group(s) for review")
    print(f"Class report of {len(report.data.students)} students: {html_path} (CSV files in {csv_folder}); "
          f"{flagged} case(s) to check{pairs}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

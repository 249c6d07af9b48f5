"""Class insight: the one-page HTML report, self-contained (inline CSS, plots as data URIs, no script).

Every figure on the page comes from the same rows the CSV files are written from
(``grader.insight.class_report.tables``), so a number on the page can always be found in a CSV.
"""

import base64
import html
import io

STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d232a;max-width:1180px;margin:0 auto;padding:0 18px 60px}
h1{font-size:26px;margin:22px 0 4px}h2{font-size:20px;margin:34px 0 8px;border-bottom:2px solid #e3e7eb;padding-bottom:4px}
h3{font-size:16px;margin:18px 0 6px}.lead{color:#4a5562;margin:0 0 12px}
table{border-collapse:collapse;margin:6px 0 12px;width:100%}th,td{padding:4px 8px;border-bottom:1px solid #e8ebee;text-align:left;vertical-align:top}
th{background:#f4f6f8;font-weight:600;font-size:13px}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.glance{background:#f4f8ff;border:1px solid #cfe0fb;border-radius:8px;padding:10px 18px}.glance li{margin:3px 0}
.note{background:#fff8e6;border:1px solid #f0d48a;border-radius:6px;padding:8px 12px;margin:8px 0}
.flag{color:#a4262c;font-weight:600}.muted{color:#6b7682}.tag{font-size:12px;color:#6b7682}
.bar{display:block;height:10px;background:#3d7ede;border-radius:2px}
.barbox{display:inline-block;width:90px;background:#e8ebee;border-radius:2px;vertical-align:middle;margin-right:6px;text-align:left}
table.items{table-layout:fixed}table.items col.label{width:38%}table.items col.rate{width:17%}table.items col.count{width:9%}
table.items col.disc{width:11%}table.items col.flag{width:13%}table.items col.who{width:12%}
.plots{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:14px}.plot{border:1px solid #e8ebee;border-radius:8px;padding:8px 10px}
.plot img{width:100%;height:auto}details{margin:2px 0}summary{cursor:pointer;color:#2b5fab}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:10px}.pair pre{margin:0;max-height:460px;overflow:auto;font-size:12px;
background:#fafbfc;border:1px solid #e8ebee;border-radius:6px;padding:8px;white-space:pre-wrap}mark{background:#ffe08a}
.names{font-size:13px;color:#39424c}
"""


def esc(value):
    """HTML-escaped text (str); student names and case titles are data, never markup."""
    return html.escape(str(value), quote=True)


def as_in_csv(value):
    """A figure rounded to the three decimals the CSV files hold (float): the page shows it from there, so
    rounding it again for the page can never disagree with the CSV."""
    return float(f"{value:.3f}")


def percent(share):
    """A share (0..1) as a whole percentage, e.g. ``"83%"`` (str)."""
    return f"{round(as_in_csv(share) * 100):d}%"


def number(value, digits=2):
    """A float as shown (``"—"`` for None; at most ``digits`` decimals, no trailing zeros) (str)."""
    if value is None:
        return "—"
    text = f"{as_in_csv(value):.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def histogram_png(stats):
    """The score distribution of one exercise as a PNG data URI (str), drawn from ``stats.bins``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(5.2, 2.3), dpi=110)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    lows = [low for low, _, _ in stats.bins]
    widths = [high - low for low, high, _ in stats.bins]
    counts = [n for _, _, n in stats.bins]
    axes.bar(lows, counts, width=widths, align="edge", color="#3d7ede", edgecolor="white", linewidth=0.6)
    axes.set_xlim(0, max(stats.maximum, 1))
    axes.set_xlabel(f"points (of {number(stats.maximum)})", fontsize=9)
    axes.set_ylabel("students", fontsize=9)
    axes.tick_params(labelsize=8)
    axes.yaxis.get_major_locator().set_params(integer=True)
    if stats.median is not None:
        axes.axvline(stats.median, color="#a4262c", linewidth=1.2, linestyle="--")
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)
    figure.subplots_adjust(left=0.1, right=0.98, bottom=0.21, top=0.96)  # fixed: tight_layout draws twice
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _bar(share):
    width = max(0, min(90, round(share * 90)))
    return f'<span class="barbox"><span class="bar" style="width:{width}px"></span></span>'


def _names(students, label="students"):
    if not students:
        return ""
    return (f"<details><summary>{len(students)} {label}</summary><div class='names'>"
            + ", ".join(esc(s) for s in students) + "</div></details>")


def _table(head, rows, columns=None):
    cells = "".join(f"<th>{esc(h)}</th>" for h in head)
    if columns:  # fixed column widths, so the tables of one section line up
        cols = "".join(f"<col class='{c}'>" for c in columns)
        return f"<table class='items'><colgroup>{cols}</colgroup><tr>{cells}</tr>" + "".join(rows) + "</table>"
    return f"<table><tr>{cells}</tr>" + "".join(rows) + "</table>"


def _item_row(item, with_case, where=False):
    """One table row for a case (``with_case``) or a case group; ``where`` adds its exercise and group first."""
    flag = f"<span class='flag'>{esc(item.flag)}</span>" if item.flag else ""
    label = esc(item.title) if with_case else esc(item.group)
    extra = f" <span class='tag'>{esc(item.visibility)}</span>" if with_case and item.visibility else ""
    lead = f"<td>{esc(item.exercise)}</td><td>{esc(item.group)}</td>" if where else ""
    return (f"<tr>{lead}<td>{label}{extra}</td><td class='n'>{_bar(item.pass_rate)}{percent(item.pass_rate)}</td>"
            f"<td class='n'>{item.passed}/{item.students}</td><td class='n'>{number(item.discrimination)}</td>"
            f"<td>{flag}</td><td>{_names(item.failed_by, 'failed')}</td></tr>")


ITEM_HEAD = ["", "pass rate", "passed", "discrimination", "check", "who did not pass"]
ITEM_COLUMNS = ["label", "rate", "count", "disc", "flag", "who"]


def render(report):
    """The report page (str, a complete HTML document).

    Args:
        report: ``grader.insight.class_report.ClassReport``.
    """
    data, parts = report.data, []
    title = f"Class insight: {len(data.students)} students"
    parts.append(f"<h1>{esc(title)}</h1>")
    parts.append(f"<p class='lead'>Based on the results of {len(data.students)} students in <code>{esc(data.folder)}</code> "
                 f"(python -m grader.batch); nothing was regraded. Generated {esc(report.generated)}. Every number "
                 f"here is also in the CSV files listed at the end.</p>")
    for note in data.notes + report.mistakes.stale + (report.similarity.notes if report.similarity else []):
        parts.append(f"<div class='note'>{esc(note)}</div>")
    parts.append("<div class='glance'><h3>At a glance</h3><ul>"
                 + "".join(f"<li>{line}</li>" for line in glance(report)) + "</ul></div>")
    parts += _scores_section(report)
    parts += _broken_section(report)
    parts += _rules_section(report)
    parts += _mistakes_section(report)
    parts += _similarity_section(report)
    parts += _method_section(report)
    body = "\n".join(parts)
    return (f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>{esc(title)}</title>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'><style>{STYLE}</style></head>"
            f"<body>\n{body}\n</body></html>\n")


def glance(report):
    """The summary lines at the top of the page (list of HTML str)."""
    lines = []
    for stats in report.exercises:
        handed = f"; {len(stats.no_file)} handed nothing in" if stats.no_file else ""
        unchanged = report.unchanged.get(stats.exercise)
        if unchanged:
            handed += f", {len(unchanged)} left the stub unchanged"
        lines.append(f"<b>{esc(stats.title)}</b>: mean {number(stats.mean, 1)}, median {number(stats.median, 1)} "
                     f"of {number(stats.maximum)} points over {stats.graded} graded{handed}.")
    # Only rules someone missed: a class that passed everything has none to list (an instructor's trial).
    missed = sorted((g for g in report.groups if g.students and g.pass_rate < 1), key=lambda g: g.pass_rate)[:3]
    if missed:
        lines.append("Rules most missed: " + "; ".join(
            f"{esc(g.group)} ({esc(g.exercise)}, {percent(g.pass_rate)} pass)" for g in missed) + ".")
    flagged = [c for c in report.cases if c.flag]
    lines.append(f"<span class='flag'>{len(flagged)} case(s) to check</span> (no student passes them, or the stronger "
                 "students fail them more often)." if flagged else "No case looks broken.")
    likely = [r for r in report.mistakes.rows if r.exact or r.partial][:3]
    if likely:
        lines.append("Likely mistakes to check: " + "; ".join(
            f"{esc(r.name)} ({len(r.exact)} exactly, {len(r.partial)} partly)" for r in likely))
    if report.similarity is None:
        lines.append("Similarity was not computed: add <code>--submissions FOLDER</code> (the folder given to the batch).")
    else:
        groups = len(report.similarity.clusters)
        lines.append(f"{len(report.similarity.pairs)} alike pair(s) of submissions, in {groups} group(s), for review "
                     f"(at least {percent(report.similarity.threshold)} of one side's code in the other)."
                     if report.similarity.pairs else "No pair of submissions is alike enough to review.")
    return lines


def _scores_section(report):
    parts = ["<h2>Scores</h2>", "<p class='lead'>Points per exercise over the students graded on it; the dashed line is "
             "the median. A student with no file for an exercise handed nothing in and is not in its plot.</p>",
             "<div class='plots'>"]
    for stats in report.exercises:
        image = histogram_png(stats) if stats.graded else ""
        unchanged = report.unchanged.get(stats.exercise)
        stub = f", stub unchanged: {len(unchanged)}" if unchanged is not None else ""
        parts.append(f"<div class='plot'><h3>{esc(stats.title)}</h3>"
                     + (f"<img alt='score distribution of {esc(stats.exercise)}' src='{image}'>" if image else "")
                     + f"<div>graded {stats.graded} of {stats.students}; mean {number(stats.mean, 1)}, median "
                       f"{number(stats.median, 1)} of {number(stats.maximum)}; no file: {len(stats.no_file)}{stub}; "
                       f"passed no case: {len(stats.nothing_passed)}</div>"
                     + _names(stats.no_file, "with no file") + _names(stats.nothing_passed, "passing no case")
                     + (_names(unchanged, "with the stub unchanged") if unchanged else "") + "</div>")
    parts.append("</div>")
    return parts


def _broken_section(report):
    flagged = [c for c in report.cases if c.flag]
    parts = ["<h2>Cases to check</h2>"]
    if not flagged:
        return parts + ["<p>No case is failed by every student, and none has a discrimination below "
                        f"{number(report.negative)}.</p>"]
    parts.append("<p class='lead'>A case no student passes, or one the stronger students fail more often than the weaker "
                 "(negative discrimination), may be broken, or may test something the course did not teach. Read its "
                 "rule and a failing student's feedback.</p>")
    rows = [_item_row(c, True, where=True) for c in flagged]
    return parts + [_table(["exercise", "group", "case", *ITEM_HEAD[1:]], rows)]


def _rules_section(report):
    parts = ["<h2>Rules the class missed</h2>",
             "<p class='lead'>Per case group (passing a group means full marks on all its cases), then per case: the "
             "share of students who passed, and discrimination (see How to read this). Possibly broken items first, "
             "then the least passed.</p>"]
    for stats in report.exercises:
        groups = [g for g in report.groups if g.exercise == stats.exercise]
        if not groups:
            continue
        counted = groups[0].students
        parts.append(f"<h3>{esc(stats.title)} <span class='tag'>{counted} students counted</span></h3>")
        parts.append(_table(["case group", *ITEM_HEAD[1:]], [_item_row(g, False) for g in groups], ITEM_COLUMNS))
        cases = [c for c in report.cases if c.exercise == stats.exercise]
        rows = [_item_row(c, True) for c in cases]
        parts.append(f"<details><summary>All {len(cases)} cases of {esc(stats.exercise)}</summary>"
                     + _table(["case", *ITEM_HEAD[1:]], rows, ITEM_COLUMNS) + "</details>")
    return parts


def _mistakes_section(report):
    mistakes = report.mistakes
    parts = ["<h2>Likely mistakes</h2>",
             "<p class='lead'>Each student's failed cases compared with the kit's library of known mistakes (each one a "
             "solution with that single fault, graded). <b>Exactly</b>: the student failed precisely that mistake's "
             "cases. <b>Partly</b>: they failed at least two thirds of them, and other cases or not all (two mistakes at "
             "once, or a broader or narrower form). A likely cause "
             "to look for in the student's code, not a verdict.</p>"]
    head = ["known mistake", "exercise", "exactly", "partly", "cases it fails", "students"]
    matched = [row for row in mistakes.rows if row.identifiable and (row.exact or row.partial)]
    unmatched = [row for row in mistakes.rows if row.identifiable and not (row.exact or row.partial)]
    parts.append(_table(head, [_mistake_row(row) for row in matched]) if matched
                 else "<p>No student's failed cases match a known mistake.</p>")
    if unmatched:
        parts.append(f"<details><summary>{len(unmatched)} known mistake(s) no student's pattern matches</summary>"
                     + _table(head, [_mistake_row(row) for row in unmatched]) + "</details>")
    lines = []
    for exercise, compared in mistakes.compared.items():
        unexplained = mistakes.unexplained.get(exercise, [])
        lines.append(f"<li>{esc(exercise)}: {compared} student(s) compared (passed some cases, failed some); "
                     f"{len(unexplained)} match no known mistake{_names(unexplained, 'unmatched')}</li>")
    parts.append("<ul>" + "".join(lines) + "</ul>")
    hidden = [row for row in mistakes.rows if not row.identifiable]
    if hidden:
        parts.append("<p class='muted'>Not identifiable from results, because they fail every case of their exercise as an "
                     "untouched stub does:</p><ul class='muted'>"
                     + "".join(f"<li>{esc(r.exercise)}: {esc(r.name)}</li>" for r in hidden) + "</ul>")
    return parts


def _mistake_row(row):
    cases = "<br>".join(f"{esc(g)}: {esc(t)}" for g, t in sorted(row.cases))
    return (f"<tr><td>{esc(row.name)}<div class='tag'>{esc(', '.join(m.id for m in row.mistakes))}</div></td>"
            f"<td>{esc(row.exercise)}</td><td class='n'>{len(row.exact)}</td><td class='n'>{len(row.partial)}</td>"
            f"<td><details><summary>{len(row.cases)} case(s)</summary><div class='names'>{cases}</div></details></td>"
            f"<td>{_names(row.exact, 'exactly')}{_names(row.partial, 'partly')}</td></tr>")


def _similarity_section(report):
    parts = ["<h2>Pairs for review</h2>"]
    result = report.similarity
    if result is None:
        return parts + ["<p>Not computed: run with <code>--submissions FOLDER</code>, the folder you gave "
                        "<code>python -m grader.batch</code>.</p>"]
    parts.append(f"<p class='lead'>Code for the same exercise, compared with copydetect (winnowing over tokens; names and "
                 f"strings normalised, so renaming hides nothing; the course's shipped cells do not count). Listed: pairs "
                 f"where at least {percent(result.threshold)} of one side's code is found in the other. Alike code is a "
                 f"reason to look, not proof of copying: students may share a source the course allowed.</p>")
    lines = []
    for exercise in result.states:
        counts = result.counts(exercise)
        lines.append(f"<li>{esc(exercise)}: {counts['compared']} compared ({result.compared.get(exercise, 0)} pairs); "
                     f"{counts['unchanged']} stub unchanged, {counts['short']} too short to compare, "
                     f"{counts['long']} too long, {counts['unreadable']} unreadable; "
                     f"{result.boilerplate.get(exercise, 0)} shipped cell(s) do not count</li>")
    parts.append("<ul>" + "".join(lines) + "</ul>")
    if not result.pairs:
        return parts + ["<p>No pair above the threshold.</p>"]
    parts.append("<p>Students are grouped when alike pairs link them; a group of three or more usually shares a "
                 "source (the course's own examples, a published solution, a study group) rather than one copying "
                 "another.</p>")
    rows = []
    for number, cluster in enumerate(result.clusters, start=1):
        best = cluster.pairs[0]
        names = (" and ".join(esc(s) for s in cluster.students) if len(cluster.students) == 2
                 else _names(cluster.students, "students"))
        view = ""
        if best.first_html:
            view = (f"<details><summary>{esc(best.first)} and {esc(best.second)} side by side</summary><div class='pair'>"
                    f"<div><b>{esc(best.first)}</b> ({percent(best.first_share)} of it in the other)<pre>{best.first_html}</pre></div>"
                    f"<div><b>{esc(best.second)}</b> ({percent(best.second_share)} of it in the other)<pre>{best.second_html}</pre></div>"
                    "</div></details>")
        rows.append(f"<tr><td class='n'>{number}</td><td>{esc(cluster.exercise)}</td><td>{names}</td>"
                    f"<td class='n'>{len(cluster.pairs)}</td><td class='n'>{percent(best.share)}</td><td>{view}</td></tr>")
    parts.append(_table(["group", "exercise", "students", "alike pairs", "most alike", "the most alike pair"], rows))
    parts.append(f"<p class='muted'>{len(result.pairs)} pair(s) in all, each with both shares and the matching "
                 "characters, in similar_pairs.csv; groups in similar_groups.csv.</p>")
    return parts


def _method_section(report):
    similarity = ""
    if report.similarity is not None:
        from grader.insight.similarity import (
            GUARANTEE,
            MAX_CHARACTERS,
            MIN_OWN_CHARACTERS,
            NOISE,
        )

        similarity = (f"<li><b>Similarity</b>: copydetect with k-grams of {NOISE} characters of normalised code and a "
                      f"window that finds every match of {GUARANTEE} or more; a submission with fewer than "
                      f"{MIN_OWN_CHARACTERS} characters of its own normalised code, or more than {MAX_CHARACTERS:,} "
                      "characters of own code, is not compared. Reading and "
                      "fingerprinting grow with the class; comparing grows with the square of it (every pair), so "
                      "twice the students take about four times as long.</li>")
    return ["<h2>How to read this</h2><ul>",
            "<li><b>Discrimination</b> is the point-biserial correlation between passing a case and the student's "
            "score on the rest of the exercise: near +1 the students who pass it are the ones doing well elsewhere, near "
            f"0 it tells them apart no better than chance, below {number(report.negative)} the stronger students fail it "
            f"more often: check the case (flagged when at least {report.min_flag} students are counted; with fewer, one "
            "or two students decide the sign).</li>",
            "<li><b>Students counted</b> for cases and groups: those graded on the exercise who passed at least one of "
            "its cases; a file that passes nothing fails every case alike and says nothing about any one.</li>",
            "<li><b>Known mistakes</b> come from the kit's faulty-solution library; "
            "<code>python -m course.misconceptions</code> regenerates them after the library or the cases change.</li>",
            similarity, "<li><b>CSV files</b> (in <code>" + esc(report.csv_folder) + "</code>): "
            + ", ".join(f"<code>{esc(name)}</code>" for name in report.csv_files) + ".</li></ul>"]


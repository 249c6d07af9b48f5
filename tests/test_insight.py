"""The class report (python -m grader.insight): reading a batch output, statistics, known mistakes,
similarity, the page and its CSV files.

Most tests write a batch output from ready results (``insight_class.write_batch_output``: the real
results.json writer, no grading). The synthetic class of ``insight_class.build_class`` is graded
once by the real batch; its report must name each planted mistake with its count, list the copied
pair and no pair of independent solutions, and render in headless Chromium.
"""

import csv
import hashlib
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT
from insight_class import build_class, result_from, write_batch_output

from grader.insight.class_report import build_report, main, tables, write_report
from grader.insight.mistakes import (
    Mistake,
    MistakeRow,
    explain,
    load_mistakes,
    match_class,
    rows_for,
)
from grader.insight.read_batch import read_batch_output
from grader.insight.statistics import NEGATIVE, point_biserial
from grader.intake.exercises import BY_ID
from grader.paths import MISCONCEPTIONS_PATH
from grader.results.csv_cells import original_cell, safe_cell
from grader.results.grade_result import CaseResult

CAPSTONE = BY_ID["capstone"]


def case(group, title, exercise=CAPSTONE, order=1, points=1.0, visibility="hidden"):
    return CaseResult(f"{exercise.id}::{group}::{title}", exercise.title, group, order, title, 0.0, points, False,
                      rule="a rule", visibility=visibility, exercise_id=exercise.id)


TEMPLATES = [case("Parsing", "p1"), case("Parsing", "p2"), case("Parsing", "p3"),
             case("Retry", "r1", order=2), case("Retry", "r2", order=2, points=2.0),
             case("Odd", "broken", order=3), case("Odd", "reversed", order=3)]


def ability_class(count=40):
    """``count`` students of rising ability: student k passes case c when k/count >= its difficulty;
    no one passes "broken"; only the weakest third pass "reversed"."""
    difficulty = {"p1": 0.1, "p2": 0.3, "p3": 0.6, "r1": 0.45, "r2": 0.8}
    graded = {}
    for k in range(count):
        ability = k / count
        failed = {(c.group, c.title) for c in TEMPLATES if c.title in difficulty and ability < difficulty[c.title]}
        failed.add(("Odd", "broken"))
        if ability >= 0.34:
            failed.add(("Odd", "reversed"))
        graded[f"student{k:02d}"] = [("capstone.py", result_from(TEMPLATES, failed, "capstone.py"))]
    return graded


@pytest.fixture
def ability_report(tmp_path):
    write_batch_output(tmp_path / "out", ability_class())
    return build_report(tmp_path / "out")


# -- statistics --------------------------------------------------------------------------------------

def test_a_case_nobody_passes_and_one_the_strong_fail_come_first_with_their_reason(ability_report):
    cases = [c for c in ability_report.cases if c.exercise == "capstone"]
    assert [(c.title, c.flag) for c in cases[:2]] == [("broken", "no student passes it"),
                                                     ("reversed", "stronger students fail it more often")]
    assert cases[1].discrimination < NEGATIVE
    assert len(cases) > 2 and all(not c.flag and c.discrimination > 0.3 for c in cases[2:])
    # Then the least passed first.
    assert [c.title for c in cases[2:]] == ["r2", "p3", "r1", "p2", "p1"]


def test_pass_rates_and_who_failed_are_exact(ability_report):
    by_title = {c.title: c for c in ability_report.cases}
    # student00 passes nothing but "reversed": it is counted (it passed a case); 40 students in all.
    assert by_title["p3"].students == 40
    assert by_title["p3"].passed == 16  # abilities 0.6 .. 0.975
    assert by_title["p1"].failed_by == ["student00", "student01", "student02", "student03"]
    groups = {g.group: g for g in ability_report.groups}
    assert (groups["Retry"].passed, groups["Retry"].cases, groups["Retry"].max_points) == (8, 2, 3.0)
    assert groups["Odd"].passed == 0 and groups["Odd"].flag == "no student passes it"


def test_score_distribution_mean_median_and_no_file(tmp_path):
    graded = ability_class(10)
    graded["zoe"] = []  # handed in nothing
    write_batch_output(tmp_path / "out", graded)
    report = build_report(tmp_path / "out")
    [stats] = report.exercises
    scores = sorted(read_batch_output(tmp_path / "out").scores[s]["capstone"] for s in graded if graded[s])
    assert stats.graded == 10 and stats.no_file == ["zoe"] and stats.students == 11
    assert stats.mean == pytest.approx(sum(scores) / 10)
    assert stats.median == pytest.approx((scores[4] + scores[5]) / 2)
    assert sum(n for _, _, n in stats.bins) == 10 and stats.bins[-1][1] == stats.maximum == 8


def test_point_biserial_matches_its_definition():
    passes = [True, True, False, False, True, False]
    rest = [5.0, 4.0, 1.0, 2.0, 3.0, 3.0]
    mean_pass, mean_fail = 4.0, 2.0
    sd = (sum((r - 3.0) ** 2 for r in rest) / 6) ** 0.5
    assert point_biserial(passes, rest) == pytest.approx((mean_pass - mean_fail) / sd * (0.5 * 0.5) ** 0.5)
    assert point_biserial([True] * 6, rest) is None        # no variance in passing: undefined
    assert point_biserial(passes[:4], rest[:4]) is None    # too few students to say anything


# -- reading the batch output ------------------------------------------------------------------------

def test_reader_takes_each_exercise_from_the_file_that_scored_it(tmp_path):
    weak = result_from(TEMPLATES, {("Parsing", "p1"), ("Parsing", "p2")}, "draft.py")
    strong = result_from(TEMPLATES, {("Parsing", "p3")}, "final.py")
    write_batch_output(tmp_path / "out", {"dana": [("draft.py", weak), ("final.py", strong)]})
    data = read_batch_output(tmp_path / "out")
    assert data.files["dana"]["capstone"] == "final.py"
    assert data.failed["capstone"]["dana"] == {("Parsing", "p3")}
    assert data.scores["dana"]["capstone"] == 7.0


def test_reader_strips_the_exercise_title_a_multi_exercise_file_puts_before_each_group(tmp_path):
    schema, adapters = BY_ID["json-schema"], BY_ID["adapters"]
    both = [case("validate_arguments", "nested", schema), case("Wire-format adapters", "openai", adapters, order=2)]
    result = result_from(both, {("Wire-format adapters", "openai")}, "06_beyond.ipynb")
    write_batch_output(tmp_path / "out", {"eve": [("06_beyond.ipynb", result)]})
    with open(tmp_path / "out" / "feedback" / "eve" / "06_beyond.ipynb.results.json", encoding="utf-8") as handle:
        assert json.load(handle)["tests"][0]["tags"][0].startswith(schema.title + " · ")
    data = read_batch_output(tmp_path / "out")
    assert [c.key for c in data.cases["json-schema"]] == [("validate_arguments", "nested")]
    assert data.failed["adapters"]["eve"] == {("Wire-format adapters", "openai")}


def test_reader_follows_the_gradebook_and_tolerates_new_fields_and_broken_files(tmp_path):
    out = tmp_path / "out"
    write_batch_output(out, {"amy": [("a.py", result_from(TEMPLATES, set(), "a.py"))],
                             "=cmd": [("b.py", result_from(TEMPLATES, {("Retry", "r1")}, "b.py"))],
                             "gone": [("c.py", result_from(TEMPLATES, set(), "c.py"))]})
    # Another run's gradebook: a version line above the header, an escaped formula-like name, "gone" removed.
    (out / "gradebook.csv").write_text("# gradebook version 2\nstudent,capstone,total,max_total,notes,sha256\n"
                                       "amy,9,9,9,,abc\n'=cmd,8,8,9,,def\n", encoding="utf-8")
    summary = json.loads((out / "results" / "amy.json").read_text())
    (out / "results" / "amy.json").write_text(json.dumps({**summary, "version": 2, "sha256": {"a.py": "abc"}}))
    (out / "feedback" / "gone").mkdir(exist_ok=True)
    (out / "results" / "broken.json").write_text("{not json")
    data = read_batch_output(out)
    assert data.students == ["=cmd", "amy"]
    assert data.failed["capstone"]["=cmd"] == {("Retry", "r1")}
    assert any("not in gradebook.csv" in note for note in data.notes)
    assert any("broken.json could not be read" in note for note in data.notes)


def test_a_case_voided_by_a_failed_canary_is_no_part_of_the_pattern(tmp_path):
    """Canary checks draw random inputs, so which accept-cases get voided varies from run to run."""
    from types import SimpleNamespace

    from grader.judging.canaries import void_sentence

    result = result_from(TEMPLATES, {("Parsing", "p1"), ("Retry", "r1")}, "v.py")
    for c in result.cases:
        if c.title == "r1":
            c.feedback = void_sentence(SimpleNamespace(entry="handle_tool_call"), "rejects", "it reported no problem")
    write_batch_output(tmp_path / "out", {"vic": [("v.py", result)]})
    data = read_batch_output(tmp_path / "out")
    assert data.failed["capstone"]["vic"] == {("Parsing", "p1"), ("Retry", "r1")}
    assert data.pattern("capstone", "vic") == {("Parsing", "p1")}


def test_look_alike_mistakes_share_a_row():
    a, b, c = ("G", "a"), ("G", "b"), ("H", "c")
    mistakes = [Mistake("capstone:x", "capstone", "X.", "", frozenset(), frozenset({a, b})),
                Mistake("capstone:y", "capstone", "Y.", "", frozenset(), frozenset({a, b, c})),
                Mistake("capstone:z", "capstone", "Z.", "", frozenset(), frozenset({c}))]
    rows = rows_for(mistakes, {"capstone": {a, b, c, ("H", "d")}})
    assert [[m.id for m in r.mistakes] for r in rows] == [["capstone:x", "capstone:y"], ["capstone:z"]]
    assert (rows[0].core, rows[0].cases) == ({a, b}, {a, b, c})
    assert explain(frozenset({a, b}), rows) == ([rows[0]], []) == explain(frozenset({a, b, c}), rows)


def test_each_known_mistake_graded_alone_is_named_for_itself_and_no_other():
    """Issue 25: a solution that dispatched before checking was named "rejects at once without asking the model to
    retry", one that converted numeric strings "names the first 10 problems". Each library entry's own failures (its
    cases on every draw, as misconceptions.json records them) match exactly its own row (look-alikes share one, by
    design: results cannot tell them apart) and no other row, exactly or partly."""
    mistakes = load_mistakes()
    every = {}
    for mistake in mistakes:
        every.setdefault(mistake.exercise, {("a case", "no mistake fails")}).update(mistake.cases | mistake.sometimes)
    rows = rows_for(mistakes, every)
    named = {}
    for mistake in mistakes:
        mine = [row for row in rows if row.exercise == mistake.exercise]
        exact, partial = explain(mistake.cases, mine)
        named[mistake.id] = ([[m.id for m in row.mistakes] for row in exact], [[m.id for m in row.mistakes] for row in partial])
    wrong = {key: value for key, value in named.items() if len(value[0]) != 1 or key not in value[0][0] or value[1]}
    assert not wrong, wrong
    assert {"capstone:dispatches_before_checking", "capstone:numeric_strings_converted"} <= set(named)
    # Its cases are those of the seed's "dispatches any call that parsed": one row names both, never "no retry".
    assert named["capstone:dispatches_before_checking"] == (
        [["capstone:dispatch_unchecked", "capstone:dispatches_before_checking"]], [])
    # A retry budget in a never-reset global gives its one retry to the first invalid visible call, which "no retry"
    # fails on every draw: their rows differ (they shared one while a canary could spend the retry first).
    assert named["capstone:no_retry"] == ([["capstone:no_retry"]], [])
    assert named["capstone:global_retry_counter"] == ([["capstone:global_retry_counter"]], [])
    assert named["capstone:numeric_strings_converted"] == ([["capstone:numeric_strings_converted"]], [])
    # Asking again when asking raised fails what letting the exception escape fails: one row names both, so a
    # student with two retries after a failed ask is not told only "lets an exception from ask_model escape".
    assert named["capstone:asks_again_when_the_model_fails"] == (
        [["capstone:raises_when_model_fails", "capstone:asks_again_when_the_model_fails"]], [])


def test_a_folder_that_is_not_a_batch_output_is_refused_with_one_sentence(tmp_path, capsys):
    assert main([str(tmp_path)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("error: ") and "results/ folder" in error and "\n" not in error
    assert main([str(tmp_path), "--threshold", "7"]) == 2


# -- known mistakes ----------------------------------------------------------------------------------

def row(name, cases, identifiable=True):
    return MistakeRow("capstone", [Mistake(f"capstone:{name}", "capstone", name, "", frozenset(), frozenset(cases))],
                      frozenset(cases), identifiable)


def test_explain_exact_then_greedy_partial_matches():
    """Partial matches are chosen greedily: the known mistake explaining most unexplained failures first."""
    a, b, c = ("G", "a"), ("G", "b"), ("H", "c")
    first, second, broad, everything = row("first", {a}), row("second", {b, c}), row("broad", {a, b, c}), row("all", {a, b, c, ("H", "d")}, False)
    rows = [first, second, broad, everything]
    assert explain(frozenset({b, c}), rows) == ([second], [])
    # Two mistakes at once: the broad one explains all three failures and is chosen alone.
    assert explain(frozenset({a, b, c, ("H", "e")}), rows) == ([], [broad])
    assert explain(frozenset({a, ("H", "e")}), rows) == ([], [first])
    # Two thirds of a mistake's cases is enough for a partial match (a narrower form, or hidden by another).
    assert explain(frozenset({a, b}), rows) == ([], [broad])
    assert explain(frozenset({("H", "e")}), rows) == ([], [])
    # A row that fails every case (like a stub) never matches.
    assert explain(frozenset({a, b, c, ("H", "d")}), rows[3:]) == ([], [])


def test_one_case_mistakes_on_different_cases_keep_their_own_rows():
    """Issue 15's name repairs each fail one case ({spacing}, {prefix}); one fault failing both must not chain them
    into one row whose core neither has (the class report then matched 3 of 11 planted students)."""
    a, b, c, d = [("Names", n) for n in "abcd"]
    def mistake(name, cases):
        return Mistake(f"capstone:{name}", "capstone", name, "", frozenset({"Names"}), frozenset(cases))
    mistakes = [mistake("a", {a}), mistake("b", {b}), mistake("ab", {a, b}), mistake("abc", {a, b, c}),
                mistake("abcd", {a, b, c, d})]
    rows = rows_for(mistakes, {"capstone": {a, b, c, d}})
    assert [[m.id for m in r.mistakes] for r in rows] == [["capstone:a"], ["capstone:b"], ["capstone:ab", "capstone:abc",
                                                                                         "capstone:abcd"]]
    assert rows[2].core == frozenset({a, b})


def test_a_case_failed_on_some_draws_only_may_be_failed_or_passed_by_an_exact_match():
    """The last stop's CI failed on this: a difflib repair of the unknown tool name meets a registered name on
    some draws of the hidden inputs and not on others, so a student holding that mistake failed one case more or
    less than the known-mistakes file said, and was counted as a partial match instead of an exact one."""
    a, b, c, d, e = [("Names", n) for n in "abcde"]
    repair = Mistake("capstone:repair", "capstone", "Repair.", "", frozenset({"Names"}), frozenset({a, b}),
                     sometimes=frozenset({c}))
    other = Mistake("capstone:other", "capstone", "Other.", "", frozenset({"Names"}), frozenset({d}))
    [row, alone] = rows_for([repair, other], {"capstone": {a, b, c, d, e}})
    assert (row.core, row.cases, alone.core) == ({a, b}, {a, b, c}, {d})
    assert explain(frozenset({a, b}), [row, alone]) == ([row], [])
    assert explain(frozenset({a, b, c}), [row, alone]) == ([row], [])
    # Still not a match: a case it fails on every draw passed, or a case it never fails failed.
    assert explain(frozenset({a, c}), [row, alone])[0] == []
    assert explain(frozenset({a, b, c, e}), [row, alone])[0] == []
    # Look-alikes are judged on the cases failed on every draw: {a, b} and {a, b, d} share a row, whatever
    # a mistake fails on some draws only.
    wider = Mistake("capstone:wider", "capstone", "Wider.", "", frozenset({"Names"}), frozenset({a, b, d}),
                    sometimes=frozenset({e}))
    [shared] = rows_for([repair, wider], {"capstone": {a, b, c, d, e}})
    assert (shared.core, shared.cases) == ({a, b}, {a, b, c, d, e})


def test_mistakes_with_the_same_cases_share_a_row_and_a_stub_like_one_is_not_identifiable(tmp_path):
    write_batch_output(tmp_path / "out", {
        "ann": [("x.py", result_from(TEMPLATES, {("Parsing", "p1")}, "x.py"))],
        "bob": [("x.py", result_from(TEMPLATES, {("Parsing", "p1"), ("Retry", "r1")}, "x.py"))],
        "cid": [("x.py", result_from(TEMPLATES, {(c.group, c.title) for c in TEMPLATES}, "x.py"))]})
    data = read_batch_output(tmp_path / "out")
    every = [(c.group, c.title) for c in TEMPLATES]
    mistakes = [Mistake("capstone:one", "capstone", "One.", "", frozenset({"Parsing"}), frozenset({("Parsing", "p1")})),
                Mistake("capstone:same", "capstone", "Same.", "", frozenset({"Parsing"}), frozenset({("Parsing", "p1")})),
                Mistake("capstone:all", "capstone", "All.", "", frozenset(), frozenset(every))]
    report = match_class(data, mistakes)
    [shared] = [r for r in report.rows if len(r.mistakes) == 2]
    assert (shared.name, shared.exact, shared.partial) == ("One. / Same.", ["ann"], ["bob"])
    [stub_like] = [r for r in report.rows if r.mistakes[0].id == "capstone:all"]
    assert not stub_like.identifiable and stub_like.exact == []
    assert report.nothing_passed["capstone"] == ["cid"] and report.compared["capstone"] == 2


def test_the_known_mistakes_file_lists_exactly_the_faulty_library():
    """Cheap drift check on every run; the cases each mistake fails are checked by the graded class below."""
    from faulty.faults import FAULTS

    from course.misconceptions import dump, library

    stored = load_mistakes()
    expected = [(i, e, n, o) for i, e, n, o, _ in library()]
    assert [(m.id, m.exercise, m.name, m.origin) for m in stored] == expected, (
        "grader/insight/misconceptions.json is stale: the faulty library changed; run python -m course.misconceptions")
    docked = {f"capstone:{f.name}": f.docked for f in FAULTS}
    for mistake in stored:
        assert mistake.cases and mistake.groups == {g for g, _ in mistake.cases | mistake.sometimes}
        assert not mistake.cases & mistake.sometimes
        if mistake.id in docked:  # (a group it loses only through voided cases is not among its groups)
            assert mistake.groups <= docked[mistake.id], (
                f"grader/insight/misconceptions.json is stale for {mistake.id}: it fails cases in groups the library "
                "does not dock it in; run python -m course.misconceptions")
    with open(MISCONCEPTIONS_PATH, encoding="utf-8") as handle:
        text = handle.read()
    assert dump(json.loads(text)) == text  # written by the generator, not edited by hand


# -- the page and the CSV files ----------------------------------------------------------------------

class VisibleText(html.parser.HTMLParser):
    """The figures' text a reader sees: no style, no attributes (data URIs), no students' code (pre)."""

    def __init__(self):
        super().__init__()
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        self.skip += tag in ("style", "pre")

    def handle_endtag(self, tag):
        self.skip -= tag in ("style", "pre")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*")


def csv_numbers(folder):
    """Every number the CSV files hold, in each form the page may show it (rounded, as a percentage)."""
    from grader.insight.html_page import number

    found = set()
    for name in os.listdir(folder):
        if name.endswith(".csv"):
            with open(os.path.join(folder, name), encoding="utf-8", newline="") as handle:
                for cells in csv.reader(handle):
                    for cell in cells:
                        for token in NUMBER.findall(cell):
                            value = float(token.replace(",", ""))
                            found |= {token, number(value, 1), number(value, 2), str(round(value))}
                            if 0 <= value <= 1:
                                found.add(str(round(value * 100)))
    return found


def test_every_number_on_the_page_is_in_a_csv_file(tmp_path):
    write_batch_output(tmp_path / "out", ability_class())
    report = build_report(tmp_path / "out")
    write_report(report, str(tmp_path / "r" / "report.html"), str(tmp_path / "r"))
    parser = VisibleText()
    parser.feed((tmp_path / "r" / "report.html").read_text(encoding="utf-8"))
    shown = {t.replace(",", "") for t in NUMBER.findall(" ".join(parser.parts))}
    missing = shown - csv_numbers(tmp_path / "r")
    assert not missing, f"numbers on the page that no CSV file holds: {sorted(missing)}"
    assert len(shown) > 30


def test_rules_everyone_passed_are_not_listed_as_missed(tmp_path):
    """An instructor's trial: "Rules most missed" listed rules at 100% pass for a class that passed everything."""
    write_batch_output(tmp_path / "out", {f"s{k}": [("c.py", result_from(TEMPLATES, set(), "c.py"))] for k in range(5)})
    assert main([str(tmp_path / "out")]) == 0
    page = (tmp_path / "out" / "insight" / "report.html").read_text(encoding="utf-8")
    assert "Rules most missed" not in page
    write_batch_output(tmp_path / "out2", ability_class(8))
    assert main([str(tmp_path / "out2")]) == 0
    page = (tmp_path / "out2" / "insight" / "report.html").read_text(encoding="utf-8")
    listed = re.search(r"Rules most missed: (.*?)\.<", page).group(1)
    assert "100% pass" not in listed and "Odd" in listed


def test_page_is_self_contained_and_escapes_names(tmp_path):
    hostile = "<script>alert(1)</script>"
    graded = ability_class(8)
    graded[hostile] = [("h.py", result_from(TEMPLATES, {("Parsing", "p1")}, "h.py"))]
    graded["=HYPERLINK(1)"] = [("g.py", result_from(TEMPLATES, {("Parsing", "p2")}, "g.py"))]
    write_batch_output(tmp_path / "out", graded)
    assert main([str(tmp_path / "out")]) == 0
    page = (tmp_path / "out" / "insight" / "report.html").read_text(encoding="utf-8")
    assert hostile not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script" not in page and not re.search(r"(src|href)=['\"](?!data:)", page)
    assert page.count("src='data:image/png;base64,") == 1
    rows = list(csv.reader(open(tmp_path / "out" / "insight" / "failures.csv", encoding="utf-8")))
    assert ["capstone", "Parsing", "p2", "'=HYPERLINK(1)"] in rows  # a spreadsheet shows it, never runs it
    assert all(not cell.startswith("=") for r in rows for cell in r)


def test_the_page_puts_the_cases_to_check_before_the_rules(ability_report):
    from grader.insight.html_page import render

    page = render(ability_report)
    to_check = page[page.index("<h2>Cases to check</h2>"):page.index("<h2>Rules the class missed</h2>")]
    assert to_check.index("<td>broken ") < to_check.index("<td>reversed ")
    assert "no student passes it" in to_check and "stronger students fail it more often" in to_check
    assert "<td>p1 " not in to_check and "<td>p1 " in page
    assert "2 case(s) to check" in page[:page.index("<h2>Scores</h2>")]


def test_csv_files_hold_the_figures_of_the_report(ability_report):
    out = tables(ability_report)
    header, rows = out["cases.csv"]
    broken = dict(zip(header, next(r for r in rows if r[2] == "broken")))
    assert (broken["students"], broken["passed"], broken["pass_rate"], broken["flag"]) == (40, 0, "0.000",
                                                                                          "no student passes it")
    header, rows = out["exercises.csv"]
    assert dict(zip(header, rows[0]))["graded"] == 40


# -- similarity -----------------------------------------------------------------------------------------

def style_files(tmp_path):
    """The five independent capstone styles and the copy, one .py file per student: {student: {exercise: (name, path)}}."""
    from course.assemble import seed_form

    codes = {"base": open(os.path.join(ROOT, "tests", "faulty", "base.py"), encoding="utf-8").read(),
             "reference": seed_form()}
    for name in ("classy", "flat", "table", "table_copied"):
        codes[name] = open(os.path.join(ROOT, "tests", "insight", name + ".py"), encoding="utf-8").read()
    files = {}
    for student, code in codes.items():
        (tmp_path / f"{student}.py").write_text(code, encoding="utf-8")
        files[student] = {"capstone": (f"{student}.py", str(tmp_path / f"{student}.py"))}
    return files


def test_overlap_is_computed_exactly_as_copydetect_computes_it(tmp_path):
    """``covered`` screens every pair; copydetect's own comparison must agree with it to the last character."""
    import io

    from copydetect import CodeFingerprint, compare_files

    from grader.insight.similarity import GUARANTEE, NOISE, _plain, covered

    prints = [_plain(CodeFingerprint(f"{s}.py", NOISE, GUARANTEE - NOISE + 1, fp=io.StringIO(open(p).read())))
              for s, [(_, p)] in ((s, list(f.values())) for s, f in style_files(tmp_path).items())]
    checked = 0
    for i, first in enumerate(prints):
        for second in prints[i + 1:]:
            shared = first.hashes & second.hashes
            overlap, shares, _ = compare_files(first, second)
            assert covered(first, shared) == overlap
            assert covered(second, shared) / second.token_coverage == pytest.approx(shares[1], abs=1e-12)
            checked += 1
    assert checked == 15


def test_similarity_is_the_same_on_every_run_and_pairs_only_the_copy(tmp_path):
    from grader.insight.similarity import class_similarity

    files = style_files(tmp_path)
    first = class_similarity(files, workers=2)
    again = class_similarity(files, workers=1)
    assert [(p.first, p.second, p.first_share, p.second_share) for p in first.pairs] == \
           [(p.first, p.second, p.first_share, p.second_share) for p in again.pairs]
    assert [(p.first, p.second) for p in first.pairs] == [("table", "table_copied")]
    assert first.pairs[0].share > 0.8 and "<mark>" in first.pairs[0].first_html
    assert first.compared == {"capstone": 15}


def test_bad_submissions_are_counted_not_compared(tmp_path):
    """A notebook that is not one, a file of 200,000 characters, one of binary noise: each gets a state, none a crash."""
    from grader.insight.similarity import class_similarity

    files = style_files(tmp_path)
    (tmp_path / "broken.ipynb").write_text("{not a notebook", encoding="utf-8")
    (tmp_path / "huge.py").write_text("def handle_tool_call(raw, ask_model):\n" + "    x = 1\n" * 25_000, encoding="utf-8")
    (tmp_path / "noise.py").write_bytes(bytes(range(256)) * 20)
    for student in ("broken.ipynb", "huge.py", "noise.py"):
        files[student] = {"capstone": (student, str(tmp_path / student))}
    result = class_similarity(files, workers=2)
    states = result.states["capstone"]
    assert (states["broken.ipynb"], states["huge.py"], states["noise.py"]) == ("unreadable", "long", "short")
    assert result.counts("capstone") == {"compared": 6, "unchanged": 0, "short": 1, "long": 1, "unreadable": 1}


def test_each_exercise_of_a_two_exercise_notebook_is_compared_on_its_own_cells():
    from grader.insight.similarity import exercise_code

    notebook = os.path.join(ROOT, "solutions", "notebooks", "06_beyond.ipynb")
    schema, _ = exercise_code(notebook, "json-schema")
    adapters, _ = exercise_code(notebook, "adapters")
    assert "def validate_arguments" in schema and "def raw_call_from_openai" not in schema
    assert "def raw_call_from_openai" in adapters and "def validate_arguments" not in adapters


# -- the graded synthetic class -------------------------------------------------------------------------

def library_forms(files, folder, assignment):
    """``{path: (copy, options, None)}`` for the files of ``files`` (a dict's values: paths) that hold a faulty
    library solution (or a base) and that the batch grades as tests/test_faulty_library.py does: a copy named as
    that file names it, in ``folder``, with its options (on its fixed draw, ``graded.LIBRARY_DRAW``). A file whose
    detected exercises differ from that form's (for a step solution: more than its own exercise) is left out, and
    graded as the batch grades it."""
    from course.misconceptions import library
    from faulty.step_faults import BASES
    from graded import LIBRARY_DRAW

    from grader.intake import exercises as course
    from grader.intake.extract import extract

    def digest(text):
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    with open(os.path.join(ROOT, "tests", "faulty", "base.py"), encoding="utf-8") as handle:
        names = {digest(handle.read()): ("base.py", "capstone")}
    names.update({digest(code): ("base.py", exercise) for exercise, code in BASES.items()})
    names.update({digest(source): (mistake.split(":", 1)[1] + ".py", exercise)
                  for mistake, exercise, _, _, source in library()})
    forms = {}
    for path in files.values():
        with open(path, "rb") as handle:
            named = names.get(hashlib.sha256(handle.read()).hexdigest()) if path.endswith(".py") else None
        if named is None:
            continue
        name, exercise = named
        detected = [e.id for e in course.detect(extract(path))]
        if not detected or not set(detected) <= set(assignment):
            continue
        if exercise == "capstone":
            options = ("--seed", LIBRARY_DRAW)  # graded by what is detected, as the batch grades it
        elif detected == [exercise]:
            options = ("--exercise", exercise, "--seed", LIBRARY_DRAW)
        else:
            continue
        copy = folder / exercise / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
        forms[path] = (str(copy), options, None)
    return forms


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    """The synthetic class, graded by the batch (in this process, 2 pool processes, the whole course assigned),
    and its report with similarity (the class report's command line, 2 workers).

    Each distinct file is graded once per session, ahead of the batch (``tests/graded.py``: as many at once as this
    process's share of the cores); the batch's
    pool, forked from this process, takes those results instead of grading again, and does the rest as always
    (each student's best file per exercise, the missing exercises, the summaries and the tables). The batch's
    own command line is tested on a class of its own below and in ``tests/test_classroom.py``. Every file is graded
    on one fixed draw of the hidden inputs (``graded.LIBRARY_DRAW``), so the patterns the known mistakes are matched
    against are the same on every run.
    """
    from graded import LIBRARY_DRAW, grade_ahead, graded_result

    from grader.classroom import batch
    from grader.intake.exercises import EXERCISES

    folder = tmp_path_factory.mktemp("insight")
    manifest = build_class(folder / "submissions")
    assignment = [e.id for e in EXERCISES]
    students = batch.find_submissions(str(folder / "submissions"))
    # A mistake is planted up to three times, as the same file under each student's name: one of them is graded,
    # and the others take its result with their own name, unless its report names the file (then each is graded).
    first = {}  # (content, suffix) -> the first path holding it
    for files, _ in students.values():
        for path in files:
            with open(path, "rb") as handle:
                first.setdefault((hashlib.sha256(handle.read()).hexdigest(), os.path.splitext(path)[1]), path)
    # Most files are the faulty library's, which tests/test_faulty_library.py grades too, under the fault's name and
    # with its exercise named: graded in that form, each is graded once for both files (and the two test processes
    # share the work). The forms agree where the batch grades exactly what the submission holds: the exercises
    # detected in it, all of them assigned (grader.pipeline.grade's ``within``).
    as_library = library_forms(first, folder / "as_library", assignment)
    fixed = ("--seed", LIBRARY_DRAW)
    grade_ahead([as_library.get(path, (path, fixed, assignment)) for path in first.values()])

    def as_graded(path, within):
        with open(path, "rb") as handle:
            same = first[(hashlib.sha256(handle.read()).hexdigest(), os.path.splitext(path)[1])]
        graded_as, options, graded_within = as_library.get(same, (same, fixed, within))
        result = graded_result(graded_as, *options, within=graded_within)
        stem = os.path.splitext(os.path.basename(graded_as))[0]
        if graded_as == path or stem in json.dumps([result.notes, result.error, [vars(c) for c in result.cases]],
                                                   default=str):
            return graded_result(path, *fixed, within=within)
        result.submission = path
        return result

    def graded_files(files, limits, exercise_ids=None, within=None, secret=None, student=""):
        for path in files:
            yield path, as_graded(path, within), None

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(batch, "grade_files", graded_files)
        _, graded_now, left = batch.run_batch(str(folder / "submissions"), str(folder / "out"), workers=2,
                                                      progress=False, assignment=assignment)
    assert graded_now == len(students) and left == []
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    insight = subprocess.run([sys.executable, "-m", "grader.insight", str(folder / "out"), "--submissions",
                              str(folder / "submissions"), "--workers", "2"], cwd=ROOT, capture_output=True, text=True,
                             env=env)
    assert insight.returncode == 0, insight.stderr
    assert insight.stdout.startswith(f"Class report of {len(os.listdir(folder / 'submissions'))} students: ")

    def read(name):
        with open(folder / "out" / "insight" / name, encoding="utf-8", newline="") as handle:
            return list(csv.DictReader(handle))

    return manifest, folder, read


# Mistakes that keep a retry budget between calls: which case gets the one retry depends on the worker each call is
# drawn to, so a grading may spare a case that grader/insight/misconceptions.json's eight draws never saw spared
# (about one draw in eight spares the first visible invalid call).
KEEPS_STATE = {"capstone:global_retry_counter", "retry-loop:retry_budget_between_calls"}


@pytest.mark.slow
def test_the_known_mistakes_file_matches_what_the_grader_says_today(graded_class):
    """Each planted student holds one library solution, so their pattern is that mistake's (within its row
    of look-alikes, whose cases differ by one: a retry budget in a global may give its retry to any case)."""
    manifest, folder, _ = graded_class
    data = read_batch_output(folder / "out")
    stored = load_mistakes()
    rows = {m.id: r for r in rows_for(stored, {e: {c.key for c in data.cases[e]} for e in data.exercises})
            for m in r.mistakes}
    for mistake_id, students in manifest.planted.items():
        row = rows[mistake_id]
        for student in students:
            pattern = data.pattern(row.exercise, student)
            if mistake_id in KEEPS_STATE:
                # Its one retry goes to the first invalid call each worker meets, which the draw decides: at most one
                # case per worker may lie outside what eight draws saw.
                assert len(pattern - row.cases) + len(row.core - pattern) <= 2, (mistake_id, pattern ^ row.cases)
                continue
            assert row.core <= pattern <= row.cases, (
                f"grader/insight/misconceptions.json is stale: {mistake_id} now fails {len(pattern)} case(s) "
                f"({len(pattern - row.cases)} the file does not name); run python -m course.misconceptions")


@pytest.mark.slow
def test_report_names_each_planted_mistake_with_its_count(graded_class):
    manifest, _, read = graded_class
    rows = {r["mistake_ids"]: r for r in read("mistakes.csv")}
    partial = {}
    for pair in manifest.doubles.values():
        for mistake_id in pair:
            partial[mistake_id] = partial.get(mistake_id, 0) + 1
    identifiable = 0
    for ids, row in rows.items():
        planted = sum(len(manifest.planted.get(i, [])) for i in ids.split())
        if row["identifiable"] == "no":
            continue
        identifiable += 1
        if KEEPS_STATE & set(ids.split()):
            # A student whose retry went to a case the file's draws never saw matches no row exactly, and partly the
            # row of "no retry", which fails every case it fails (see above): never another student.
            assert int(row["exactly"]) <= planted, ids
            continue
        assert (int(row["exactly"]), int(row["partly"])) == (planted, sum(partial.get(i, 0) for i in ids.split())), ids
    assert identifiable >= 45
    # Mistakes that fail every case of their exercise cannot be told from a stub, and the report says so.
    hidden = {ids for ids, row in rows.items() if row["identifiable"] == "no"}
    assert hidden == {"tool-result:string_is_error tool-result:extra_key"}
    matches = {(r["student"], r["match"], r["mistake_ids"]) for r in read("mistake_matches.csv")}
    student = manifest.planted["capstone:first_violation_only"][0]
    assert (student, "exact", "capstone:first_violation_only") in matches


@pytest.mark.slow
def test_report_lists_the_copied_pair_and_no_pair_of_independent_solutions(graded_class):
    manifest, _, read = graded_class
    pairs = {(r["student"], r["other_student"]): r for r in read("similar_pairs.csv") if r["exercise"] == "capstone"}
    copied = tuple(sorted(manifest.copied))
    assert copied in pairs and float(pairs[copied]["share_of_student"]) > 0.8
    styles = sorted(manifest.styles.values())
    independent = {(a, b) for a in styles for b in styles if a < b}
    assert not independent & set(pairs), "independent solutions written differently were paired"
    groups = read("similar_groups.csv")
    assert any(g["members"] == "; ".join(copied) for g in groups)


@pytest.mark.slow
def test_report_counts_the_stub_and_the_missing_file(graded_class):
    manifest, _, read = graded_class
    capstone = next(r for r in read("exercises.csv") if r["exercise"] == "capstone")
    assert (capstone["stub_unchanged"], capstone["passed_no_case"]) == ("1", "1")
    assert int(capstone["no_file"]) == int(capstone["students"]) - int(capstone["graded"])
    similarity = next(r for r in read("similarity.csv") if r["exercise"] == "capstone")
    assert similarity["stub_unchanged"] == "1"
    assert similarity["pairs_compared"] == str(int(similarity["compared"]) * (int(similarity["compared"]) - 1) // 2)
    full = {r["student"] for r in read("failures.csv") if r["exercise"] == "capstone"}
    assert not full & set(manifest.styles.values()) and manifest.copied[1] not in full


@pytest.mark.slow
def test_every_number_on_the_page_with_similarity_is_in_a_csv_file(graded_class):
    _, folder, _ = graded_class
    parser = VisibleText()
    parser.feed((folder / "out" / "insight" / "report.html").read_text(encoding="utf-8"))
    shown = {t.replace(",", "") for t in NUMBER.findall(" ".join(parser.parts))}
    missing = shown - csv_numbers(folder / "out" / "insight")
    assert not missing, f"numbers on the page that no CSV file holds: {sorted(missing)}"


@pytest.mark.slow
@pytest.mark.browser
def test_report_page_renders_in_headless_chromium(graded_class):
    """The page opens from a file with no server and no network; a screenshot is saved like the learner view's."""
    from test_browser import CHROMIUM, CHROMIUM_ARGS, sync_playwright

    if CHROMIUM is None or sync_playwright is None:
        pytest.skip("no Chromium or Playwright on this machine (apt-get install chromium)")
    _, folder, _ = graded_class
    artifacts = os.path.join(ROOT, "tests", "artifacts", "insight")
    os.makedirs(artifacts, exist_ok=True)
    requested = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1500})
            page.on("request", lambda request: requested.append(request.url))
            page.goto("file://" + str(folder / "out" / "insight" / "report.html"))
            assert page.title().startswith("Class insight: ")
            images = page.locator("img")
            assert images.count() >= 7
            assert page.evaluate("() => [...document.images].every(i => i.complete && i.naturalWidth > 300)")
            assert "Likely mistakes" in page.inner_text("body")
            page.screenshot(path=os.path.join(artifacts, "report.png"))
            page.screenshot(path=os.path.join(artifacts, "report-full.png"), full_page=True)
            page.locator("summary", has_text="side by side").last.click()
            assert page.locator("div.pair mark").count() > 5
        finally:
            browser.close()
    external = [url for url in requested if not url.startswith(("file:", "data:"))]
    assert not external, f"the page asked for {external[:3]}"


# -- one CSV guard for every CSV file (issue 21) ---------------------------------------------------------

FORMULA_NAMES = ["bob", " =eve", "\uff1dmal", "\uff0bplus", "  @at", "'quoted", "-2+3",
                 "  \uff20cmd", " +1+1", "\t=tab", "\uff0b\uff0d"]  # the second line: inputs written after the fix
PLAIN_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def starts_a_formula(cell):
    """True for a CSV cell a spreadsheet would evaluate: a formula sign first, after any spaces, in ASCII or
    full width (a number the kit wrote, like ``-0.31``, is a number)."""
    return not PLAIN_NUMBER.fullmatch(cell) and cell.lstrip(" ").startswith(
        ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20"))


def test_the_formula_check_catches_each_sign():
    assert [starts_a_formula(c) for c in [" =eve", "\uff1dmal", "@x", "-2+3", "-0.31", "12.5", "'=x", "bob"]] == \
        [True, True, True, True, False, False, False, False]


def test_students_whose_names_start_a_formula_stay_students_in_every_csv_file(tmp_path):
    """Issue 21: the class report's own copy of the CSV guard missed a leading space and the full-width signs, so
    a class of ``bob``, ``" =eve"`` and ``"＝mal"`` became a report of one student ("2 student(s) of gradebook.csv
    have no results file"). With one guard, every student is one, and no cell of any CSV file that the batch or
    the class report writes starts a formula."""
    folder = tmp_path / "submissions"
    with open(os.path.join(ROOT, "tests", "faulty", "base.py"), encoding="utf-8") as handle:
        base = handle.read()
    for number, name in enumerate(FORMULA_NAMES):
        (folder / name).mkdir(parents=True)
        # alike code, so that the similarity files name students too; each file named like its student
        (folder / name / f"{name}.py").write_text(base + f"\n# student {number}\n", encoding="utf-8")
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    batch = subprocess.run([sys.executable, "-m", "grader.batch", str(folder), "--out", str(tmp_path / "out"),
                            "--no-progress"], cwd=ROOT, capture_output=True, text=True, env=env)
    assert batch.returncode == 0, batch.stderr
    insight = subprocess.run([sys.executable, "-m", "grader.insight", str(tmp_path / "out"), "--submissions",
                              str(folder), "--workers", "1"], cwd=ROOT, capture_output=True, text=True, env=env)
    assert insight.returncode == 0, insight.stderr
    assert insight.stdout.startswith(f"Class report of {len(FORMULA_NAMES)} students: "), insight.stdout
    from grader.classroom.batch import (
        shown,  # the batch shows a control character as \\xNN, reversibly
    )

    names = [shown(name) for name in FORMULA_NAMES]
    data = read_batch_output(tmp_path / "out")
    assert data.students == sorted(names) and data.notes == []
    files = sorted((tmp_path / "out").glob("*.csv")) + sorted((tmp_path / "out" / "insight").glob("*.csv"))
    assert {f.name for f in files} >= {"gradebook.csv", "canvas.csv", "maxima.csv", "students.csv",
                                       "similar_pairs.csv", "failures.csv"}
    named = set()
    for path in files:
        with open(path, encoding="utf-8", newline="") as handle:
            for row in csv.reader(handle):
                for cell in row:
                    assert not starts_a_formula(cell), (path.name, cell)
                    named.update(name for name in names if cell.endswith(name))
    assert named == set(names)  # every student's name was written somewhere, behind the guard
    with open(tmp_path / "out" / "insight" / "students.csv", encoding="utf-8", newline="") as handle:
        written = {row["student"] for row in csv.DictReader(handle)}
    assert written == {safe_cell(name) for name in names} and "' =eve" in written and "'\uff1dmal" in written


def test_the_guard_can_be_undone_exactly():
    for text in FORMULA_NAMES + ["", "'", "''=x", "\t=tab", "plain", "12.5"]:
        assert original_cell(safe_cell(text)) == text, text
        assert not starts_a_formula(safe_cell(text)) or PLAIN_NUMBER.fullmatch(text), text
    assert safe_cell("\r=cr") == "' =cr"  # one line: a line break becomes a space (not undone), still guarded
    assert original_cell("'bob") == "'bob"  # an older gradebook's own apostrophe, which needed no guard

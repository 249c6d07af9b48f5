"""The grader's second adversarial round (tests/attacks/, copied from shared/cases/grader_attacks/): each file
gets the outcome its first line says it should.

Eleven were correct solutions that scored 0 (fairness), the rest earned points without the work, read hidden
inputs out of the feedback, or hurt classmates (issue 12). Each is graded as a user would
(``python -m grader``); the new inputs of the same kinds, written for this round, are in test_fairness.py,
test_hidden_stays_hidden.py, test_stubs.py and test_sandbox.py.
"""

import csv
import functools
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import pytest

from conftest import ROOT, run_grader
from points import available, shown

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the attack fixtures' expected outcomes are Linux's (kernel rules, /proc)")

ATTACKS = os.path.join(ROOT, "tests", "attacks")
# The batch's own attacks (the gradebook and the submissions folder) belong to issue 13, which changes
# grader/classroom/batch.py; their fixtures are here so that the list is complete, and run there.
OWNED_ELSEWHERE = {
    **{f"stream_{name}.py": "issue 27: notebook 7b's attacker trial (tests/test_turn_grading.py)"
       for name in ("a1_tell_object_none", "a2_tell_skeleton_none", "w1_mixes_choices", "w2_drops_delta_on_finish_chunk",
                    "w3_crashes_on_null_tool_calls", "w4_new_call_on_any_id", "w5_concatenates_names")},
    **{name: "issue 27: notebook 7a's attacker trial (tests/test_turn_grading.py)"
       for name in ("turn_raises_after_running.py", "turn_own_cache_instead_of_done.py", "turn_error_with_traceback.py",
                    "turn_check_by_keyword.py", "turn_check_with_two_arguments.py", "turn_dispatch_from_threads.py")},
    **{name: "issue 27: notebook 8's and 9's attacker trials (tests/test_loop_grading.py)"
       for name in ("loop_reverse_dispatch.py", "loop_swapped_replies.py", "loop_linear_backoff.py", "loop_never_stops.py",
                    "path_dangling_parent.py", "path_links_by_text.py", "path_normpath_first.py", "path_leaky_reason.py")},
    "csv_formula_in_file_name.sh": "issue 13: no gradebook cell may start a spreadsheet formula",
    "gradebook_adds_exercises.sh": "issue 13: the assignment's exercises come from the instructor, not the students",
    "symlink_submissions.sh": "issue 13: symlinks in a submissions folder are not submissions",
    "batch_name_collision.sh": "issue 41: no two students share a results file (tests/test_batch_isolation.py)",
    "registry_count_tell.py": "issue 24: the draw tells no refused case from a dispatched one (tests/test_lookup_attacks.py)",
    "drawn_field_strip_lookup.py": "issue 24: drawn fields cannot be stripped away (tests/test_lookup_attacks.py, strict xfail)",
    "drawn_field_strip_stub.py": "issue 24: the control of drawn_field_strip_lookup.py (tests/test_lookup_attacks.py)",
    **{name: "issue 24: image lengths are drawn, so a skeleton table earns the stub's points (tests/test_lookup_attacks.py)"
       for name in ("registry_shape_lookup.py", "registry_shape_stub.py", "registry_shape_lookup_validate_call.py",
                    "registry_shape_stub_validate_call.py", "drawn_key_strip_json_schema.py",
                    "drawn_key_strip_stub_json_schema.py", "pool_word_strip_parse_call.py",
                    "pool_word_strip_stub_parse_call.py")},
    "pair_memory.py": "issue 24: a memory of the last call tells a sibling from its case no more (tests/test_siblings.py)",
    "order_memory.py": "issue 24: a case's call and its siblings go to two workers, so no memory of texts tells them "
                       "apart (tests/test_siblings.py)",
    "shared_scratch_memory.py": "issue 24: the capstone's two workers cannot share a memory through files "
                                "(tests/test_siblings.py)",
    # Their results depend on the machine's timing and process ids (each file says): not run as they stand.
    "timing_phase_memory.py": "issue 24: a call and its siblings run at the same time, so no return timed to the "
                              "clock tells the other worker (docs/threat-model.md)",
    "worker_identity_split.py": "issue 24: each canary runs in both workers, so two workers that answer apart fail "
                                "one (tests/test_siblings.py)",
    "worker_split_where_no_canary.py": "issue 24: a call's unchanged copy in the other worker, so two workers that "
                                       "answer apart void the cases with siblings (tests/test_siblings.py)",
    "worker_split_raising.py": "issue 24: a sibling that raised is handled wrongly, and a raise against a return is an "
                               "answer apart (tests/test_siblings.py)",
    "worker_split_hanging.py": "issue 24: measured by hand (the file says); timeouts cost more than the split earns",
    "hang_on_repeat_text.py": "issue 24: a sibling cut short is handled wrongly (tests/test_siblings.py)",
    "model_oracle_short_fix.py": "issue 24: siblings with the case's kind of model, and a short fix beside its valid "
                                 "twin (tests/test_siblings.py)",
    **{name: "issue 24: a coarse shape classifier earns its stub's points (tests/test_lookup_attacks.py)"
       for name in ("lengthless_capstone_lookup.py", "lengthless_capstone_stub.py")},
}
FULL_MARKS = ["fair_bom.py", "fair_asyncio_run.py", "fair_cell_magic_time.ipynb", "fair_future_annotations.ipynb",
              "fair_relative_audit_file.py"]
TESTED_HERE = FULL_MARKS + [
    "fair_class_based_step.py", "stub_observe_none.py", "stuffed_observation.py", "validate_call_one_generic_problem.py",
    "leak_where_filename.py", "leak_via_later_visible_case.py", "guard_bypass_dash_name.py", "disk_fill_scratch.py",
    "str_subclass_module_name.py",
    "gradebook_adds_exercises.py", "steal_check_capstone.py", "steal_check_parse.py",
    "observe_joins_its_problems.py", "reads_grader_memory_portable.py", "fair_everyday_words.py",
    "fair_quote_cut_short.py", "fair_learner_a_bullets.py", "fair_learner_b_sentences.py", "fair_learner_c_json.py"]


@pytest.mark.parametrize("name, exercise", [("steal_check_capstone.py", "capstone"), ("steal_check_parse.py", "parse-call")])
def test_the_trusted_check_answers_only_the_loop_it_is_handed_to(tmp_path, name, exercise):
    """An attacker walked the worker's frames to the check proxy and scored 129/129 and 44/44 with no checks of
    their own: the grader now answers check requests only in a loop judged alone (retry-loop)."""
    process, results = grade_attack(tmp_path, name, "--exercise", exercise)
    assert points(results) == (0, available(exercise))


def test_an_observe_that_only_joins_its_problems_loses_what_observe_adds(tmp_path):
    process, results = grade_attack(tmp_path, "observe_joins_its_problems.py", "--exercise", "observe")
    assert points(results, name_part="way out for terse problems")[0] == 0
    assert points(results, name_part="problem holding a traceback")[0] == 0
    assert points(results, name_part="do not fit are counted")[0] == 0
    assert results["score"] <= available("observe") - 5


def test_every_attack_file_has_an_expectation():
    assert sorted(os.listdir(ATTACKS)) == sorted(TESTED_HERE + list(OWNED_ELSEWHERE))
    for name in os.listdir(ATTACKS):
        with open(os.path.join(ATTACKS, name), encoding="utf-8-sig") as handle:
            assert "EXPECTED" in handle.read(2000), name


def grade_attack(tmp_path, name, *options):
    process, results = run_grader(os.path.join(ATTACKS, name), *options, results=tmp_path / "results.json")
    assert "Traceback" not in process.stdout + process.stderr
    assert results is not None, process.stderr
    return process, results


def points(results, group=None, name_part=None):
    """(earned, available) over the tests of a results.json, optionally one group or tests whose name holds a part."""
    tests = [t for t in results["tests"] if (group is None or t["tags"][0] == group)
             and (name_part is None or name_part in t["name"])]
    return sum(t["score"] for t in tests), sum(t["max_score"] for t in tests)


# The attack files embed the compact solution as it was before issue 10 added cases that it does not pass (a
# 1e400 number, a stray comma's hint; issue 25's NaN and Infinity). Graded plainly, that solution loses exactly those cases; a file's style is
# fair when it loses nothing more, and the current solution in each style gets full marks (test_fairness.py).
PLAIN = os.path.join(ROOT, "tests", "faulty", "base_before_issue10.py")
PLAIN_PARSE_CALL = os.path.join(ROOT, "tests", "faulty", "parse_call_before_issue10.py")


@functools.lru_cache(maxsize=None)
def plain_outcome(path=PLAIN):
    """``(score, names of failed tests)`` of an embedded solution graded as a plain .py file."""
    with tempfile.TemporaryDirectory() as folder:
        _, results = run_grader(path, results=os.path.join(folder, "results.json"))
    return results["score"], frozenset(t["name"] for t in results["tests"] if t["status"] == "failed")


def test_the_embedded_solutions_lose_only_the_cases_added_after_them():
    score, failed = plain_outcome()
    assert 0 < len(failed) <= 9 and score == available("capstone") - len(failed)
    assert all(("1e400" in name or "comma" in name or "NaN" in name) for name in failed), sorted(failed)
    assert any("NaN" in name for name in failed)
    score, failed = plain_outcome(PLAIN_PARSE_CALL)
    assert 0 < len(failed) <= 6 and score == available("parse-call") - len(failed), sorted(failed)


def outcome(results):
    return results["score"], frozenset(t["name"] for t in results["tests"] if t["status"] == "failed")


@pytest.mark.parametrize("name", FULL_MARKS)
def test_a_correct_solution_in_an_ordinary_style_gets_full_marks(tmp_path, name):
    process, results = grade_attack(tmp_path, name)
    assert sum(t["max_score"] for t in results["tests"]) == available("capstone")
    assert outcome(results) == plain_outcome(), process.stdout[-2000:]


def test_a_parse_call_bound_to_an_instance_is_graded_as_parse_call(tmp_path):
    process, results = grade_attack(tmp_path, "fair_class_based_step.py")
    assert {t["extra_data"]["exercise"] for t in results["tests"]} == {"parse-call"}
    assert sum(t["max_score"] for t in results["tests"]) == available("parse-call")
    assert outcome(results) == plain_outcome(PLAIN_PARSE_CALL)


def test_an_observe_that_always_returns_none_earns_nothing(tmp_path):
    process, results = grade_attack(tmp_path, "stub_observe_none.py")
    assert points(results) == (0, available("observe"))


def test_an_observation_that_never_says_what_is_wrong_loses_the_observation_points(tmp_path):
    process, results = grade_attack(tmp_path, "stuffed_observation.py")
    # It keeps only the cases where its dump does name the problem: an unknown tool's name with the registered
    # tools, an undeclared field among the keys it quotes (2 of 11 and 2 of 11); every other group stays full.
    # Of the public reports' cases it keeps the rejection texts (not observations) and the unknown name among 26.
    assert points(results, "Error observations")[0] <= 2
    assert points(results, "Real malformed calls")[0] <= 2
    public = "Malformed calls from public bug reports"
    assert points(results, public, "1e400") == (0, 3) and points(results, public, "Thirteen")[0] == 0
    assert points(results, public, "broken arguments string")[0] == 0
    assert results["score"] <= available("capstone") - 27
    judged = ("Error observations", "Real malformed calls", public)
    others = [t for t in results["tests"] if t["tags"][0] not in judged]
    assert len(others) > 50 and all(t["status"] == "passed" for t in others)


def test_one_generic_problem_is_not_every_violation(tmp_path):
    process, results = grade_attack(tmp_path, "validate_call_one_generic_problem.py")
    assert points(results, name_part="four different violations")[0] == 0
    # Issue 15 added the capstone's inputs to these cases, and a dump of the registry and the sent keys mentions
    # the sent name in most of them: mentions are judged, not singling out (twin judging would be stricter).
    earned, available_here = points(results, name_part="naming the offending tool or field")
    assert earned <= available_here * 2 // 3
    assert points(results, name_part="four different violations")[0] == 0
    assert results["score"] <= available("validate-call") - 14


def hidden_outputs(results):
    return " ".join(t["output"] for t in results["tests"] if "hidden" in t["tags"])


def test_a_location_made_of_the_input_is_not_shown(tmp_path):
    process, results = grade_attack(tmp_path, "leak_where_filename.py")
    assert results["score"] == 0
    assert "LEAK" not in process.stdout + json.dumps(results)
    assert "raised an exception (in a hidden case, which one, its message and its line are not shown)" \
        in hidden_outputs(results)
    assert "ValueError" not in hidden_outputs(results)


def test_a_later_exercise_cannot_print_an_earlier_ones_hidden_inputs(tmp_path):
    process, results = grade_attack(tmp_path, "leak_via_later_visible_case.py")
    assert results["score"] == 0
    everything = process.stdout + json.dumps(results)
    # Each exercise has a fresh worker: what run_tool_call saw is gone when validate_arguments prints.
    assert "printed: LEAK" in everything and not re.search(r"LEAK [^\s\"\\]", everything)
    printed = [t["output"].partition("Your code printed:\n")[2] for t in results["tests"] if "visible" in t["tags"]]
    assert {p for p in printed if p} == {"LEAK"}


def survivors(marker="REDTEAM_SURVIVOR"):
    found = []
    for path in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(path, "rb") as handle:
                if marker.encode() in handle.read():
                    found.append(path)
        except OSError:
            continue
    return found


def test_a_guard_bypass_by_an_import_name_is_refused_and_leaves_no_process(tmp_path):
    process, results = grade_attack(tmp_path, "guard_bypass_dash_name.py")
    assert outcome(results) == plain_outcome()  # its score is legitimate
    assert "refused: PermissionError the grader does not allow importing -posixsubprocess" in process.stdout
    assert "spawned detached pid" not in process.stdout
    assert survivors() == []


@pytest.mark.parametrize("portable", [False, True], ids=["default transport", "portable transport"])
def test_a_module_spec_named_by_a_str_subclass_loads_nothing_and_starts_nothing(tmp_path, portable):
    """A str-subclass spec name skipped the guard's whole import check and loaded a second _posixsubprocess: on the
    portable transport a shell copied the reference into scratch (full marks), wrote above scratch and left a
    process behind. The guard now refuses any name or origin that is not exactly a str; on the default transport
    Landlock already refuses the attack's first step (reading /proc/self/cmdline), where the kernel has it, and on
    Linux the portable transport has the same rules (issue 41). test_sandbox tests the guard's refusal alone."""
    scratch_parent = tmp_path / "tmp"
    scratch_parent.mkdir()
    process, results = run_grader(os.path.join(ATTACKS, "str_subclass_module_name.py"), "--exercise", "capstone",
                                  results=tmp_path / "results.json",
                                  env={"TMPDIR": str(scratch_parent), "KIT_PORTABLE_WORKER": "1" if portable else ""})
    assert "Traceback" not in process.stdout + process.stderr and results is not None, process.stderr
    assert results["score"] == 0
    log = re.search(r"ATTACK LOG: (.*)", process.stdout).group(1)
    assert "copied" not in log and "forked" not in log, log
    if "Permission denied: '/proc/self/cmdline'" not in log:
        assert "the grader does not allow importing a module by a name or file that is not a plain string" in log, log
    assert os.listdir(scratch_parent) == []  # no written_outside_scratch.txt, no scratch folder left
    assert survivors("KIT_ATTACK_SURVIVOR") == []


@pytest.mark.parametrize("portable", [False, True], ids=["default transport", "portable transport"])
def test_a_worker_cannot_read_the_graders_memory(tmp_path, portable):
    """On the portable transport a submission opened /proc/<grader's pid>/mem and printed 38 hidden cases' "Why:"
    texts and a hidden input in visible cases (issue 41). The grader is non-dumpable now, and on Linux the worker
    runs under the kernel's rules on both transports (Landlock's ptrace scope, no capabilities)."""
    process, results = run_grader(os.path.join(ATTACKS, "reads_grader_memory_portable.py"), "--exercise", "capstone",
                                  results=tmp_path / "results.json",
                                  env={"KIT_PORTABLE_WORKER": "1" if portable else "0"})
    assert "Traceback" not in process.stdout + process.stderr and results is not None, process.stderr
    assert results["score"] == 0, process.stdout[-3000:]
    # It prints in the cases it guesses are visible; a canary drawn first moves them (test_sandbox's tests of the
    # same read are exact).
    if "strings read from the grader's memory:" in process.stdout:
        assert re.search(r"1 strings read from the grader's memory:\n\s+refused: ", process.stdout), process.stdout[-3000:]
    report = process.stdout + json.dumps(results)
    leaked = [line for line in report.splitlines() if "Why: " in line or "Let me know" in line]
    assert leaked == [], leaked[:5]


def test_extra_exercise_functions_graded_alone_earn_nothing(tmp_path):
    process, results = grade_attack(tmp_path, "gradebook_adds_exercises.py")
    assert results["score"] == 0
    assert {t["extra_data"]["exercise"] for t in results["tests"]} == {
        "tool-result", "parse-call", "validate-call", "observe", "retry-loop", "json-schema", "adapters", "turn", "stream", "loop", "authorise"}


def scratch_usage(folder):
    """Bytes allocated under ``folder``'s kit-grade-* scratch folders right now."""
    used = 0
    for base, _, files in os.walk(folder):
        if "kit-grade-" not in base:
            continue
        for name in files:
            try:
                used += os.lstat(os.path.join(base, name)).st_blocks * 512
            except OSError:
                pass
    return used


def small_tmpfs(path, megabytes):
    """Mount a tmpfs of ``megabytes`` at ``path`` (True), or leave a plain folder where that is not permitted (False)."""
    if not sys.platform.startswith("linux") or shutil.which("mount") is None:
        return False
    process = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(path)],
                             capture_output=True, text=True)
    return process.returncode == 0


def lost_cases(out, students):
    """Per student, the cases that lost points and what they said (dict: student -> list of (name, output)),
    from the batch's results files under ``out``: what a failed comparison of totals prints."""
    lost = {}
    for path in glob.glob(os.path.join(str(out), "**", "*.json"), recursive=True):
        student = next((name for name in students if os.path.basename(path).startswith(name)), None)
        try:
            with open(path, encoding="utf-8") as handle:
                tests = json.load(handle).get("tests", [])
        except (OSError, ValueError, AttributeError):
            continue
        if student is not None:
            lost[student] = [(test.get("name"), (test.get("output") or "")[:300]) for test in tests
                             if test.get("score") != test.get("max_score")]
    return lost


@pytest.mark.slow
def test_a_submission_that_fills_the_disk_costs_only_itself(tmp_path):
    """The filler writes 8 MB files from a thread for as long as it may; classmates graded at the same time, with
    their scratch folders and results on the same (small) disk, keep their results."""
    from grader.isolation.limits import Limits
    from grader.isolation.worker import MAX_SCRATCH_ENTRIES

    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = small_tmpfs(disk, 180)  # the attacker's two workers may hold 144 MB between them
    try:
        students = disk / "submitted"
        students.mkdir()
        # Each case waits 0.05 s instead of the attack's 0.4 s: the disk is full within a second of loading either
        # way, and its grading still outlasts the classmate graded beside it (8 s, not 65 s, of the suite's time).
        attack = open(os.path.join(ATTACKS, "disk_fill_scratch.py"), encoding="utf-8").read()
        assert attack.count("time.sleep(0.4)") == 1
        (students / "mallory.py").write_text(attack.replace("time.sleep(0.4)", "time.sleep(0.05)"), encoding="utf-8")
        for name in ("alice", "bob", "carol"):
            shutil.copy(os.path.join(ROOT, "tests", "faulty", "base.py"), students / f"{name}.py")
        (disk / "tmp").mkdir()
        peak, done = [0], threading.Event()

        def watch():
            while not done.is_set():
                peak[0] = max(peak[0], scratch_usage(disk / "tmp"))
                time.sleep(0.05)

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            process = subprocess.run([sys.executable, "-m", "grader.batch", str(students), "--out", str(disk / "out"),
                                      "--workers", "2", "--no-progress"], cwd=ROOT, capture_output=True, text=True,
                                     timeout=600, env={**os.environ, "TMPDIR": str(disk / "tmp")})
        finally:
            done.set()
            watcher.join()
        assert process.returncode == 0, process.stderr
        with open(disk / "out" / "gradebook.csv", newline="", encoding="utf-8") as handle:
            book = {row["student"]: row for row in csv.DictReader(handle)}
        # Classmates keep full marks; the attacker keeps what its embedded solution earns (see plain_outcome).
        assert {student: book[student]["total"] for student in book} == {
            **dict.fromkeys(("alice", "bob", "carol"), shown(available("capstone"))), "mallory": shown(plain_outcome()[0])}, \
            lost_cases(disk / "out", ("alice", "bob", "carol"))
        # What one worker may hold on disk: its files (each under the per-file limit) and its output file; the
        # attacker's capstone has two workers, the classmates graded beside it write next to nothing.
        bound = (MAX_SCRATCH_ENTRIES + 1) * Limits.output_bytes
        assert 0 < peak[0] <= 2 * bound + 4 * 1024 * 1024, f"peak scratch use {peak[0]:,} bytes"
        assert os.listdir(disk / "tmp") == []
    finally:
        if mounted:
            subprocess.run(["umount", str(disk)], capture_output=True)


def test_a_registry_dump_gains_nothing_from_the_drawn_registry(tmp_path):
    """On this draw the dump of the registry named a drawn field's type (list, dict) in the judged observation and not
    in its twin's, so it passed "parallel calls as a list" by difference (CI, issue 24): a twin after a varied call now
    runs on that call's drawn registry."""
    process, results = grade_attack(tmp_path, "stuffed_observation.py", "--seed", "a")
    passed = {t["name"] for t in results["tests"] if t["status"] == "passed" and t["tags"][0] == "Real malformed calls"}
    assert not any("parallel-calls-as-a-list" in name for name in passed)
    assert points(results, "Real malformed calls")[0] <= 2


@pytest.mark.parametrize("seed", ["1", "2", "3"])
def test_a_learners_everyday_words_cost_nothing_on_any_draw(tmp_path, seed):
    """Issue 24's attacker trial: renaming back changed a correct message's "this time" into "this city" on about one
    draw in 40. Images are now pool words only (tests/test_draw.py checks 300 draws); this is the whole grading of a
    correct capstone whose messages use many such words and a hex id."""
    process, results = grade_attack(tmp_path, "fair_everyday_words.py", "--seed", seed)
    assert points(results) == (available("capstone"), available("capstone")), process.stdout[-2000:]


@pytest.mark.parametrize("seed", ["r6", "r7", "r11", "r13"])
def test_an_observation_that_quotes_the_call_cut_short_loses_nothing(tmp_path, seed):
    """The second trials of issue 24: a twin whose values took other room than its judged call's kept a field inside a
    quote cut at 60 characters that the judged call's quote cut off (these seeds lost a point). Each twin value now
    takes its judged value's room."""
    process, results = grade_attack(tmp_path, "fair_quote_cut_short.py", "--seed", seed)
    assert points(results) == (available("capstone"), available("capstone")), process.stdout[-2000:]


@pytest.mark.parametrize("name, seed", [("fair_learner_a_bullets.py", "l1"), ("fair_learner_b_sentences.py", "l2"),
                                        ("fair_learner_c_json.py", "l3")])
def test_a_learners_own_capstone_gets_full_marks_on_a_draw(tmp_path, name, seed):
    """Issue 24's learner trial (after the templated cases): three capstones written from the README and notebook 5
    alone, observations in bullets, in sentences quoting the call, in numbered JSON-like items; 129/129 on 42 draws
    each. A templated case must not cost a wording its point."""
    process, results = grade_attack(tmp_path, name, "--seed", seed)
    assert points(results) == (available("capstone"), available("capstone")), process.stdout[-2000:]

"""The seed that decides the hidden inputs (issue 24): a report names it, --seed reproduces the report, a class's secret
seed gives every student and file their own inputs, and a regrade with it writes the same gradebook byte for byte."""

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile

import pytest
from conftest import ROOT, run_grader

from grader.classroom.batch import file_digest
from grader.judging.draw import seed_for

BASE = os.path.join(ROOT, "tests", "faulty", "base.py")
SEED_SAMPLE = os.path.join(ROOT, "tests", "golden", "seed_sample", "submission.py")
SEED_LINE = re.compile(r"^Hidden inputs: drawn for this grading with seed (\S+);", re.M)


def without_times(results):
    """results.json with its timing left out: the only field a regrade may change."""
    results = dict(results)
    results.pop("execution_time", None)
    return results


def test_a_report_names_its_seed_and_that_seed_gives_the_same_report_again(tmp_path):
    first, results = run_grader(SEED_SAMPLE, results=tmp_path / "first.json")
    seed = SEED_LINE.search(first.stdout).group(1)
    assert re.fullmatch(r"[0-9a-f]{16}", seed) and results["extra_data"]["seed"] == seed
    again, repeated = run_grader(SEED_SAMPLE, "--seed", seed, results=tmp_path / "again.json")
    assert again.stdout == first.stdout
    assert without_times(repeated) == without_times(results)
    other, _ = run_grader(SEED_SAMPLE)
    assert SEED_LINE.search(other.stdout).group(1) != seed  # a fresh draw for every grading without --seed


def batch(folder, out, *options, env=None):
    return subprocess.run([sys.executable, "-m", "grader.batch", str(folder), "--out", str(out), "--workers", "2",
                           "--no-progress", *options], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})


@pytest.fixture
def two_students(tmp_path):
    """alice and bob hand in the same correct file; carol the seed's sample."""
    folder = tmp_path / "submitted"
    for student in ("alice", "bob"):
        (folder / student).mkdir(parents=True)
        shutil.copy(BASE, folder / student / "answer.py")
    (folder / "carol").mkdir()
    shutil.copy(SEED_SAMPLE, folder / "carol" / "answer.py")
    return folder


def outputs(out):
    """Every file the batch wrote, by relative name: what a byte-identical regrade must reproduce."""
    found = {}
    for base, _, names in os.walk(out):
        for name in names:
            path = os.path.join(base, name)
            with open(path, "rb") as handle:
                found[os.path.relpath(path, out)] = handle.read()
    return found


def test_a_class_seed_gives_each_student_their_own_inputs_and_a_regrade_the_same_gradebook(two_students, tmp_path):
    out = tmp_path / "out"
    env = {"KIT_ASSIGNMENT_SEED": ""}
    assert batch(two_students, out, "--assignment-seed", "autumn-ps1", env=env).returncode == 0
    summaries = {s: json.loads((out / "results" / f"{s}.json").read_text()) for s in ("alice", "bob", "carol")}
    digest = file_digest(str(two_students / "alice" / "answer.py"))
    assert summaries["alice"]["seeds"] == {"answer.py": seed_for("autumn-ps1", "alice", digest)}
    assert summaries["bob"]["seeds"] == {"answer.py": seed_for("autumn-ps1", "bob", digest)}
    assert summaries["alice"]["seeds"] != summaries["bob"]["seeds"]  # the same file, drawn apart
    assert summaries["alice"]["exercises"] == summaries["bob"]["exercises"]  # the same maxima, full marks both
    assert summaries["alice"]["exercises"]["capstone"][0] == summaries["alice"]["exercises"]["capstone"][1]
    report = (out / "feedback" / "alice" / "answer.py.txt").read_text(encoding="utf-8")
    assert SEED_LINE.search(report).group(1) == summaries["alice"]["seeds"]["answer.py"]
    # The secret is in no file a student could be shown: only in the seed file, the instructor's own.
    shown_files = {name: text for name, text in outputs_text(out).items() if name != "assignment-seed.txt"}
    assert "autumn-ps1" not in json.dumps(shown_files)
    assert stat.S_IMODE(os.stat(out / "assignment-seed.txt").st_mode) == 0o600
    written = outputs(out)
    assert batch(two_students, out, "--assignment-seed", "autumn-ps1", "--regrade", env=env).returncode == 0
    assert outputs(out).keys() == written.keys()
    changed = [name for name, data in outputs(out).items() if data != written[name]
               and not name.endswith(".results.json")]
    assert changed == []
    for name in written:
        if name.endswith(".results.json"):  # only its execution time may differ
            assert without_times(json.loads(outputs(out)[name])) == without_times(json.loads(written[name]))
    # Another seed is another draw: nothing stored is reused.
    rerun = batch(two_students, out, "--assignment-seed", "spring-ps1", env=env)
    assert rerun.stdout.startswith("Graded 3 students"), rerun.stdout


def outputs_text(out):
    return {name: data.decode("utf-8", "replace") for name, data in outputs(out).items()}


def test_without_a_seed_the_batch_keeps_one_in_its_output_folder(two_students, tmp_path):
    out = tmp_path / "out"
    assert batch(two_students, out, env={"KIT_ASSIGNMENT_SEED": ""}).returncode == 0
    kept = (out / "assignment-seed.txt").read_text().strip()
    assert "Hidden inputs: drawn from the assignment's seed, made now (16 random bytes); kept in" in \
        batch(two_students, tmp_path / "elsewhere", env={"KIT_ASSIGNMENT_SEED": ""}).stdout
    assert re.fullmatch(r"[0-9a-f]{32}", kept)
    assert stat.S_IMODE(os.stat(out / "assignment-seed.txt").st_mode) == 0o600
    digest = file_digest(str(two_students / "carol" / "answer.py"))
    summary = json.loads((out / "results" / "carol.json").read_text())
    assert summary["seeds"] == {"answer.py": seed_for(kept, "carol", digest)}
    rerun = batch(two_students, out, env={"KIT_ASSIGNMENT_SEED": ""})
    assert rerun.stdout.startswith("Graded 0 students"), rerun.stdout
    # KIT_ASSIGNMENT_SEED, set once for every command of the assignment, stands for --assignment-seed; the seed in
    # use is kept, and the console says where it came from and that it replaced the kept one.
    changed = batch(two_students, out, env={"KIT_ASSIGNMENT_SEED": "winter"})
    assert changed.stdout.startswith("Graded 3 students")
    assert "given in KIT_ASSIGNMENT_SEED; it replaces the one kept before" in changed.stdout
    assert (out / "assignment-seed.txt").read_text().strip() == "winter"
    assert batch(two_students, out, env={"KIT_ASSIGNMENT_SEED": ""}).stdout.startswith("Graded 0 students")
    summary = json.loads((out / "results" / "carol.json").read_text())
    assert summary["seeds"] == {"answer.py": seed_for("winter", "carol", digest)}


def test_a_gradescope_bundle_carries_its_seed_and_draws_each_upload_from_it(tmp_path):
    from grader.classroom.gradescope_bundle import build_bundle, grade_upload

    build_bundle(str(tmp_path / "autograder.zip"), ["capstone"], secret="it's a secret")
    with zipfile.ZipFile(tmp_path / "autograder.zip") as archive:
        script = archive.read("run_autograder").decode()
    assert "--assignment-seed 'it'\"'\"'s a secret'" in script  # quoted for the shell
    assert stat.S_IMODE(os.stat(tmp_path / "autograder.zip").st_mode) == 0o600  # it holds the seed
    upload = tmp_path / "submission"
    upload.mkdir()
    shutil.copy(SEED_SAMPLE, upload / "answer.py")
    # Gradescope's metadata names the uploader: two students' equal files are drawn apart.
    (tmp_path / "submission_metadata.json").write_text(json.dumps({"users": [{"id": 4242, "name": "Ada"}]}))
    grade_upload(str(upload), str(tmp_path / "results.json"), ["capstone"], secret="it's a secret")
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["extra_data"]["seed"] == seed_for("it's a secret", "4242", file_digest(str(upload / "answer.py")))


def test_a_bundle_built_without_a_seed_gets_one_and_says_which(tmp_path):
    process = subprocess.run([sys.executable, "-m", "grader.gradescope", str(tmp_path / "a.zip")], cwd=ROOT,
                             capture_output=True, text=True, timeout=300, env={**os.environ, "KIT_ASSIGNMENT_SEED": ""})
    assert process.returncode == 0, process.stderr
    seed = re.search(r"drawn from the bundle's seed ([0-9a-f]{32})", process.stdout).group(1)
    with zipfile.ZipFile(tmp_path / "a.zip") as archive:
        assert f"--assignment-seed {seed}" in archive.read("run_autograder").decode()


def test_an_nbgrader_cell_draws_from_the_assignment_seed_and_the_students_folder(tmp_path):
    """nbgrader autograde runs a cell in autograded/STUDENT/ASSIGNMENT/: the student's folder names them."""
    folder = tmp_path / "autograded" / "ada" / "ps1"
    folder.mkdir(parents=True)
    notebook = folder / "05_capstone.ipynb"
    shutil.copy(os.path.join(ROOT, "solutions", "notebooks", "05_capstone.ipynb"), notebook)
    process = subprocess.run([sys.executable, "-m", "grader.autograde", notebook.name, "capstone", "--points", "5"],
                             cwd=folder, capture_output=True, text=True, timeout=300,
                             env={**os.environ, "KIT_ASSIGNMENT_SEED": "nb-secret", "PYTHONPATH": ROOT})
    assert process.returncode == 0, process.stderr
    assert SEED_LINE.search(process.stdout).group(1) == seed_for("nb-secret", "ada", file_digest(str(notebook)))
    assert "nb-secret" not in process.stdout


def test_a_seed_tells_nothing_cheap_about_the_secret():
    """Issue 24's instructor trial guessed a weak secret from a student's own seed in ten tries at a million a second:
    the secret is stretched by PBKDF2 (200,000 rounds) before any seed is made from it (recomputed here by hand)."""
    import hashlib
    import hmac

    key = hashlib.pbkdf2_hmac("sha256", b"class-secret-A", b"tool-call-kit assignment seed", 200_000)
    expected = hmac.new(key, "carol\x1fdigest".encode(), hashlib.sha256).hexdigest()[:16]
    assert seed_for("class-secret-A", "carol", "digest") == expected
    assert seed_for("class-secret-B", "carol", "digest") != expected


def test_the_bundle_command_names_an_option_it_accepts_for_rebuilding_with_its_seed(tmp_path, capsys):
    """An instructor's trial: the build's last line said to rebuild "with --seed", which the command refuses."""
    import re

    from grader.classroom.gradescope_bundle import main

    assert main([str(tmp_path / "autograder.zip"), "--notebooks", "05", "--assignment-seed", "kept"]) == 0
    said = capsys.readouterr().out
    named = re.findall(r"with (--[a-z-]+)", said)
    assert named == ["--assignment-seed"]
    assert main([str(tmp_path / "again.zip"), "--notebooks", "05", named[0], "kept"]) == 0


def test_a_students_files_are_drawn_together_so_copies_gain_nothing(tmp_path):
    """An attacker's trial of issue 28: each copy of a solution that fails some inputs drew its own inputs, and the
    best copy counted (ten copies, differing by a comment, scored 125 of 133 where one scored 28 to 122). Every file
    of one student is now graded on the same inputs: one seed for the upload, named once."""
    from grader.classroom.batch import grade_files, upload_digest
    from grader.isolation.limits import Limits

    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_text("def tool_error_result(tool_use_id, message):\n    return {}\n")
    second.write_text("def tool_error_result(tool_use_id, message):\n    return {}  # a copy\n")
    graded = list(grade_files([str(first), str(second)], Limits(), secret="ps", student="mallory"))
    seeds = {result.seed for _, result, _ in graded}
    assert seeds == {seed_for("ps", "mallory", upload_digest([str(first), str(second)]))}
    assert upload_digest([str(second), str(first)]) == upload_digest([str(first), str(second)])
    assert upload_digest([str(first)]) == file_digest(str(first))  # a lone file draws as python -m grader does
    assert upload_digest([str(first), str(second)]) not in (file_digest(str(first)), file_digest(str(second)))

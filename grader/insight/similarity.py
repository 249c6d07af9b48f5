"""Class insight: which students' code for the same exercise is alike enough to review.

The measure is copydetect's (PyPI ``copydetect``; Lingenfelter's implementation of the winnowing
of Schleimer, Wilkerson and Aiken, SIGMOD 2003, the method behind MOSS). Code is tokenised with
Pygments and every variable, function and string is replaced by one letter, so renaming does not
hide a copy; each k-gram of that text is hashed and a window keeps a sample of the hashes (its
fingerprints). A pair's similarity, for each side, is the share of that side's fingerprinted code
found in the other. Code the course ships (the learner notebook's cells, stubs included) is
boilerplate: its k-grams are never counted.

What is compared per student and exercise: the code cells of the file the exercise's score came
from (``grader.intake.extract``: graded cells only, magics neutralised), without the cells that belong to
another exercise of the same notebook; a ``.py`` file counts whole.

Cost: reading and fingerprinting grow with the class (linear); comparing grows with the number of
pairs, n(n-1)/2 per exercise, so doubling the class multiplies the comparison time by four. Both
run in ``workers`` processes. Each pair's overlap is first computed as copydetect computes it, in
plain Python (``covered``); copydetect's own comparison then runs for the pairs that reach the threshold.
Fingerprints are made in processes with a fixed ``PYTHONHASHSEED`` (copydetect hashes with Python's
``hash()``), so the same class gives the same figures on every run.
"""

import concurrent.futures
import io
import multiprocessing
import os
import re
from dataclasses import dataclass, field

from grader.intake.exercises import BY_ID, EXERCISES
from grader.intake.extract import SubmissionError, read_submission
from grader.paths import NOTEBOOKS_DIR

# copydetect's noise threshold (its default): the shortest match counted, in characters of the
# normalised code ("V=json.loads(V)" is 15). Any match at least GUARANTEE long is always found; copydetect's
# default, 25, keeps every k-gram, and 35 (a window of 11) keeps about one in six, so comparing is faster.
NOISE = 25
GUARANTEE = 35
THRESHOLD = 0.5  # a pair is listed when one side has at least this share of its code in the other
# Below this many characters of own normalised code (after the shipped code is removed) a submission
# is not compared: every correct one-line answer is the same line.
MIN_OWN_CHARACTERS = 100
# Above this many characters of own code a submission is not compared: tokenising costs about 10 ms per
# 1,000 characters, and a solution is a few thousand (the grader reads files up to 5 MB).
MAX_CHARACTERS = 100_000
STATES = ("compared", "unchanged", "short", "long", "unreadable")
SIDE_BY_SIDE = 40  # groups whose most alike pair is shown side by side; the CSV lists every pair

_LABEL_GRADE_ID = re.compile(r"^cell \d+ \((.+)\)$")  # grader.intake.extract labels a cell "cell 7 (capstone)"


def _normalised(code):
    return "\n".join(line.rstrip() for line in code.strip().splitlines())


def exercise_code(path, exercise):
    """A student's code for one exercise, as compared.

    Args:
        path: the submission file (str). exercise: exercise id (str).
    Returns:
        ``(code, chunks)``: the code (str, chunks joined by blank lines) and the chunks' codes (list
        of str), or ``(None, [])`` when the file cannot be read (``SubmissionError``). Cells exactly as
        the course ships them are left out before fingerprinting (``_fingerprint_student``).
    """
    try:
        submission = read_submission(path)  # a class's notebooks: each in a limited child, as the batch reads them
    except SubmissionError:
        return None, []
    others = {e.id for e in EXERCISES} - {exercise}
    chunks = []
    for chunk in submission.chunks:
        match = _LABEL_GRADE_ID.match(chunk.get("label", ""))
        if match and match.group(1) in others:
            continue  # another exercise's solution cell in a notebook that holds two
        chunks.append(chunk["code"])
    return "\n\n".join(chunks), chunks


def _learner_notebook(notebook):
    """The learner version of ``notebook`` (an nbformat node): this clone's ``notebooks/`` copy when its
    exercise cells still hold the shipped stubs, else one generated from the solved sources (the
    instructor may have worked in ``notebooks/``, and their answers are not boilerplate)."""
    from grader.intake.extract import read_notebook_text
    from grader.learner.progress import stub_digest

    reads = read_notebook_text()  # nbformat, imported without its slow optional format checkers
    try:
        with open(os.path.join(NOTEBOOKS_DIR, notebook), encoding="utf-8") as handle:
            node = reads(handle.read(), as_version=4)
    except Exception:  # missing or unreadable: generate it
        node = None
    if node is not None:
        stubs = [c for c in node.cells if c.get("metadata", {}).get("nbgrader", {}).get("solution")]
        if all(stub_digest(c.source) == c.get("metadata", {}).get("kit", {}).get("stub_sha256") for c in stubs):
            return node
    try:
        from course.notebooks import generated_notebooks
    except ImportError:  # a copy of the grader without the course sources
        return node
    return next((learner for name, _, learner in generated_notebooks() if name == notebook), node)


def boilerplate_code(exercise):
    """The code the course ships for an exercise: every code cell of its learner notebook (list of str,
    empty when the notebook cannot be found)."""
    known = BY_ID.get(exercise)
    node = _learner_notebook(known.notebook) if known else None
    if node is None:
        return []
    return [c.source for c in node.cells if c.cell_type == "code" and c.source.strip()]


@dataclass
class Fingerprinted:
    """One student's code for one exercise, ready to compare.

    Attributes:
        student: (str). file: the file name (str).
        state: one of ``STATES`` (str): ``"compared"``, ``"unchanged"`` (nothing beyond the shipped
            code), ``"short"`` (under ``MIN_OWN_CHARACTERS`` of own normalised code), ``"long"`` (over
            ``MAX_CHARACTERS`` of own code) or ``"unreadable"``.
        fingerprint: ``copydetect.CodeFingerprint`` when compared, else None.
    """

    student: str
    file: str
    state: str
    fingerprint: object = None


@dataclass
class Pair:
    """Two students whose code for one exercise is alike.

    Attributes:
        exercise: id (str). first, second: students (str), sorted.
        first_share, second_share: the share of each one's fingerprinted code found in the other's
            (float, 0 to 1; copydetect's similarity). overlap: matching characters of normalised code (int).
        first_html, second_html: each one's code, HTML-escaped, with the matching regions marked (str).
    """

    exercise: str
    first: str
    second: str
    first_share: float
    second_share: float
    overlap: int
    first_html: str = ""
    second_html: str = ""

    @property
    def share(self):
        """The larger of the two shares (float): what the threshold is compared with."""
        return max(self.first_share, self.second_share)


@dataclass
class Cluster:
    """Students linked by listed pairs (each linked to another of them, directly or through others).

    Three or more alike usually means a common source (the course's own examples, a published
    solution, work shared in a group) rather than one student copying another.

    Attributes:
        exercise: id (str). students: sorted (list of str). pairs: the listed pairs among them (list of ``Pair``,
        most similar first).
    """

    exercise: str
    students: list
    pairs: list


@dataclass
class SimilarityResult:
    """Similarity over a class.

    Attributes:
        threshold: (float). pairs: ``[Pair, ...]`` above the threshold, most similar first.
        clusters: ``[Cluster, ...]``, largest first; the first pair of each of the first ``shown`` has a
            side-by-side view.
        states: ``{exercise: {student: state}}`` (see ``Fingerprinted.state``).
        compared: ``{exercise: number of pairs compared}`` (int).
        boilerplate: ``{exercise: number of shipped code cells counted as boilerplate}`` (int).
        notes: sentences (list of str).
    """

    threshold: float
    pairs: list = field(default_factory=list)
    clusters: list = field(default_factory=list)
    states: dict = field(default_factory=dict)
    compared: dict = field(default_factory=dict)
    boilerplate: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)

    def counts(self, exercise):
        """``{state: number of students}`` for one exercise, every state of ``STATES`` present (dict)."""
        states = list(self.states.get(exercise, {}).values())
        return {state: states.count(state) for state in STATES}


# copydetect hashes k-grams with Python's hash(), which is salted per process unless PYTHONHASHSEED is
# set: fingerprints are made in processes started with this seed, so every run gives the same figures.
HASH_SEED = "0"
_BOILERPLATE = {}   # in fingerprinting processes: {exercise: (k-gram hashes, normalised shipped cells)}
_FINGERPRINTS = {}  # in comparing processes (forked): {exercise: [Fingerprinted, ...]}


def _boilerplate_hashes(codes):
    import numpy as np
    from copydetect import CodeFingerprint

    hashes = set()
    for code in codes:
        hashes.update(CodeFingerprint("boilerplate.py", NOISE, 1, fp=io.StringIO(code), language="python").hashes)
    return np.unique(np.array(sorted(hashes), dtype=np.int64))


def _start_fingerprinting(shipped):
    """Fingerprinting process start: hash the shipped code of each exercise (``{exercise: [code, ...]}``)."""
    _BOILERPLATE.clear()
    for exercise, codes in shipped.items():
        _BOILERPLATE[exercise] = (_boilerplate_hashes(codes), {_normalised(c) for c in codes})


def _fingerprint_student(task):
    """Pool task: ``(student, [(exercise, file name, path)])`` -> ``[Fingerprinted, ...]``."""
    from copydetect import CodeFingerprint

    student, items = task
    out = []
    for exercise, name, path in items:
        code, chunks = exercise_code(path, exercise)
        boilerplate = _BOILERPLATE.get(exercise)
        if code is None:
            out.append((exercise, Fingerprinted(student, name, "unreadable")))
            continue
        shipped = boilerplate[1] if boilerplate else set()
        # A cell exactly as shipped (the stub, given helpers of 15,000 characters) holds no k-gram that counts.
        own = [c for c in chunks if c.strip() and _normalised(c) not in shipped]
        if not own:
            out.append((exercise, Fingerprinted(student, name, "unchanged")))
            continue
        if sum(len(c) for c in own) > MAX_CHARACTERS:
            out.append((exercise, Fingerprinted(student, name, "long")))
            continue
        fingerprint = CodeFingerprint(f"{student}.py", NOISE, GUARANTEE - NOISE + 1,
                                      boilerplate=boilerplate[0] if boilerplate else None,
                                      fp=io.StringIO("\n\n".join(own)), language="python")
        state = "compared" if fingerprint.token_coverage >= MIN_OWN_CHARACTERS else "short"
        out.append((exercise, Fingerprinted(student, name, state, _plain(fingerprint) if state == "compared" else None)))
    return out


def covered(fingerprint, shared):
    """Characters of one side's normalised code inside a k-gram whose hash the other side shares (int).

    This is copydetect's token overlap (``compare_files``: the slices it builds from the shared
    fingerprints' positions, summed), computed without numpy: for the many pairs that are not alike it
    is ten times faster, so ``compare_files`` runs only for pairs that reach the threshold.
    """
    positions = sorted(i for h in shared for i in fingerprint.hash_idx[h])
    k = fingerprint.k
    total = k if positions else 0
    for current, following in zip(positions, positions[1:]):
        total += min(k, following - current)
    return total


def _plain(fingerprint):
    """The fingerprint with its hashes and positions as Python ints (set operations on them run in C)."""
    fingerprint.hash_idx = {int(h): [int(i) for i in positions] for h, positions in fingerprint.hash_idx.items()}
    fingerprint.hashes = set(fingerprint.hash_idx)
    return fingerprint


def _compare_row(task):
    """Pool task: ``(exercise, i, threshold)`` -> ``(exercise, i, compared, [(j, share_i, share_j, overlap)])``."""
    from copydetect import compare_files

    exercise, i, threshold = task
    rows = _FINGERPRINTS[exercise]
    first = rows[i].fingerprint
    found = []
    for j in range(i + 1, len(rows)):
        second = rows[j].fingerprint
        shared = first.hashes & second.hashes
        if not shared or (covered(first, shared) < threshold * first.token_coverage
                          and covered(second, shared) < threshold * second.token_coverage):
            continue
        overlap, (share_i, share_j), _ = compare_files(first, second)
        if max(share_i, share_j) >= threshold:
            found.append((j, float(share_i), float(share_j), int(overlap)))
    return exercise, i, len(rows) - i - 1, found


def _fingerprint_all(tasks, shipped, workers):
    """``_fingerprint_student`` over ``tasks`` in processes started with ``PYTHONHASHSEED=HASH_SEED``."""
    previous = os.environ.get("PYTHONHASHSEED")
    os.environ["PYTHONHASHSEED"] = HASH_SEED  # read by each process as it starts (they start lazily)
    try:
        with concurrent.futures.ProcessPoolExecutor(
                max_workers=max(1, min(workers, len(tasks))), mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_fingerprinting, initargs=(shipped,)) as pool:
            return list(pool.map(_fingerprint_student, tasks, chunksize=max(1, len(tasks) // (workers * 8))))
    finally:
        if previous is None:
            os.environ.pop("PYTHONHASHSEED", None)
        else:
            os.environ["PYTHONHASHSEED"] = previous


def _compare_all(tasks, workers):
    """``_compare_row`` over ``tasks``: in forked processes that share ``_FINGERPRINTS``, or here."""
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [_compare_row(task) for task in tasks]
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(_compare_row, tasks, chunksize=max(1, len(tasks) // (workers * 8))))


def side_by_side(first, second):
    """Both codes HTML-escaped with the matching regions wrapped in ``<mark>`` (tuple of two str)."""
    from copydetect import compare_files
    from copydetect.utils import highlight_overlap

    _, _, (slices_first, slices_second) = compare_files(first, second)
    shown = []
    for fingerprint, slices in ((first, slices_first), (second, slices_second)):
        if len(slices) and len(slices[0]):
            html, _ = highlight_overlap(fingerprint.raw_code, slices, "<mark>", "</mark>", escape_html=True)
        else:
            from markupsafe import escape

            html = str(escape(fingerprint.raw_code))
        shown.append(html)
    return shown[0], shown[1]


def clusters(pairs):
    """Group listed pairs into ``Cluster``s per exercise (connected students), largest first, then by
    their most similar pair (list)."""
    parent = {}

    def root(node):
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for pair in pairs:
        parent[root((pair.exercise, pair.first))] = root((pair.exercise, pair.second))
    members = {}
    for pair in pairs:
        members.setdefault(root((pair.exercise, pair.first)), []).append(pair)
    out = []
    for (exercise, _), linked in members.items():
        students = sorted({s for p in linked for s in (p.first, p.second)})
        out.append(Cluster(exercise, students, linked))
    return sorted(out, key=lambda c: (-len(c.students), -c.pairs[0].share, c.exercise, c.students))


def class_similarity(code_files, threshold=THRESHOLD, workers=None, shown=SIDE_BY_SIDE, log=None):
    """Compare every pair of students' code per exercise.

    Args:
        code_files: ``{student: {exercise: (file name, path)}}``: the file each exercise was graded from.
        threshold: a pair is listed when one side's share is at least this (float, 0 to 1).
        workers: processes (int; default ``os.cpu_count()``).
        shown: how many clusters get a side-by-side view of their most similar pair (int).
        log: ``callable(str)`` for a line per step with its time, or None.
    Returns:
        ``SimilarityResult``.
    """
    global _FINGERPRINTS
    import time

    started = time.perf_counter()

    def step(text):
        if log:
            log(f"  similarity: {text} ({time.perf_counter() - started:.1f} s)")

    workers = workers or os.cpu_count() or 1
    result = SimilarityResult(threshold=threshold)
    exercises = sorted({e for files in code_files.values() for e in files},
                       key=lambda e: [x.id for x in EXERCISES].index(e) if e in BY_ID else len(EXERCISES))
    shipped = {}
    for exercise in exercises:
        shipped[exercise] = boilerplate_code(exercise)
        result.boilerplate[exercise] = len(shipped[exercise])
        if not shipped[exercise]:
            result.notes.append(f"{exercise}: the course's notebook for it was not found, so no code counts as shipped.")
    step("the shipped code read")
    tasks = [(student, [(e, name, path) for e, (name, path) in sorted(files.items())])
             for student, files in sorted(code_files.items())]
    rows = {e: [] for e in exercises}
    result.states = {e: {} for e in exercises}
    for done in _fingerprint_all(tasks, shipped, workers) if tasks else []:
        for exercise, item in done:
            result.states[exercise][item.student] = item.state
            if item.state == "compared":
                rows[exercise].append(item)
    step(f"{sum(len(r) for r in rows.values())} submissions read and fingerprinted")
    _FINGERPRINTS = rows  # read by the forked comparison processes
    try:
        tasks = [(e, i, threshold) for e in exercises for i in range(len(rows[e]) - 1)]
        for exercise, i, compared, found in _compare_all(tasks, workers):
            result.compared[exercise] = result.compared.get(exercise, 0) + compared
            for j, share_i, share_j, overlap in found:
                first, second = rows[exercise][i], rows[exercise][j]
                if first.student > second.student:
                    first, second, share_i, share_j = second, first, share_j, share_i
                result.pairs.append(Pair(exercise, first.student, second.student, share_i, share_j, overlap))
        step(f"{sum(result.compared.values())} pairs compared")
        result.pairs.sort(key=lambda p: (-p.share, p.exercise, p.first, p.second))
        result.clusters = clusters(result.pairs)
        index = {(e, r.student): r for e in exercises for r in rows[e]}
        for pair in [c.pairs[0] for c in result.clusters[:shown]]:
            pair.first_html, pair.second_html = side_by_side(index[(pair.exercise, pair.first)].fingerprint,
                                                             index[(pair.exercise, pair.second)].fingerprint)
        step("side-by-side views made")
    finally:
        _FINGERPRINTS = {}
    return result


def code_files_for(data, submissions):
    """Where each student's graded code is: ``{student: {exercise: (file name, path)}}``.

    Args:
        data: ``grader.insight.read_batch.ClassResults``. submissions: the folder given to ``grader.classroom.batch`` (str).
    Returns:
        the mapping; a student or file that is no longer in ``submissions`` is left out.
    """
    # The batch names each feedback file after the submitted file, made file-name safe by safe_file_name.
    from grader.classroom.batch import find_submissions, safe_file_name, shown

    found = find_submissions(submissions)
    by_name = {shown(student): files for student, (files, _refused) in found.items()}
    out = {}
    for student, per_exercise in data.files.items():
        paths = {}
        for path in by_name.get(student, []):
            paths.setdefault(safe_file_name(os.path.basename(path)), path)
        for exercise, name in per_exercise.items():
            path = paths.get(name)
            if path is not None:
                out.setdefault(student, {})[exercise] = (os.path.basename(path), path)
    return out

"""The earlier steps the grader supplies from its own, trusted side (issue 11).

Each step exercise is judged alone: ``observe`` receives the problems that parsing and validation
found (as data, computed here), and ``run_tool_call`` receives a ``check`` that the grader answers
(a proxied callable, like ``ask_model`` and ``dispatch``). Nothing of this runs in the worker, so a
learner's loop is judged by its own code and no working step is ever handed to the submission as code.

The trusted steps are the kit's reference package (``solutions``), imported in the grader's process
only. Where it is absent (a student release), only the visible cases' calls can be checked: their
answers are data in ``grader/judging/visible_checks.json``.
"""

import json
import os

from grader.paths import VISIBLE_CHECKS_PATH

UNCHECKED = ("The grader cannot check this call here: the kit's reference steps are not installed (a student "
             "release); run the self-check's visible cases instead.")


def _reference():
    """The reference package's ``check_call`` and ``observe``, or None when it is not installed."""
    try:
        from solutions.observation import observe
        from solutions.schema import check_call
    except ImportError:
        return None
    return check_call, observe


def available():
    """True when the kit's reference steps are installed (the full kit; not a student release)."""
    return _reference() is not None


def _visible_table():
    try:
        with open(VISIBLE_CHECKS_PATH, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {}


def problems_for(raw, tools):
    """What steps 1 and 2 give for ``raw``: ``(call, problem_texts)``.

    Args:
        raw: the model's raw call (any value). tools: the registry with Python classes.
    Returns:
        ``(call, problems)``: the parsed call (dict) or None, and each problem as one sentence (list of str).
    Raises:
        LookupError: the reference is not installed and ``raw`` is not one of the visible cases' calls.
    """
    reference = _reference()
    if reference is None:
        entry = _visible_table().get(raw) if isinstance(raw, str) else None
        if entry is None:
            raise LookupError(UNCHECKED)
        return entry["call"], entry["problems"]
    call, problems = reference[0](raw, tools)
    return call, [str(p) for p in problems]


def check(raw, tools):
    """Steps 1 to 3 as the trusted ``check`` handed to a learner's ``run_tool_call``.

    Args:
        raw: the attempt the learner's loop asks about (any value). tools: the registry (Python classes).
    Returns:
        ``[call, observation]``: the parsed call or None, and None (dispatch it) or the observation (str).
    """
    reference = _reference()
    if reference is None:
        entry = _visible_table().get(raw) if isinstance(raw, str) else None
        if entry is None:
            return [None, UNCHECKED]
        return [entry["call"], entry["observation"]]
    check_call, observe = reference
    call, problems = check_call(raw, tools)
    return [call, observe(call, problems, tools)]


# Where a learner's own steps 1 and 2 live, for views that need them where the kit's are absent (a student release).
OWN_STEPS = (("parse_call", "01_parsing.ipynb"), ("validate_call", "02_schema.ipynb"))
OWN_OBSERVE = ("observe", "03_observations.ipynb")
_OWN_CACHE = {}


def own_steps(notebooks_dir):
    """The learner's own ``parse_call``, ``validate_call`` and ``observe``, read from their saved notebooks 1 to 3
    (read again only when a notebook was saved since).

    Runs the notebooks' graded cells in a fresh namespace each, in the learner's own kernel (this is their
    code, run where they run it anyway); a cell that fails is skipped.

    Args:
        notebooks_dir: the folder holding the learner's notebooks (str).
    Returns:
        ``{name: function}`` for those found (dict; may be empty).
    """
    from grader.intake.extract import extract

    def stamp(filename):
        try:
            return os.stat(os.path.join(notebooks_dir, filename)).st_mtime_ns
        except OSError:
            return None

    key = (os.path.abspath(notebooks_dir), tuple(stamp(f) for _, f in (*OWN_STEPS, OWN_OBSERVE)))
    if key in _OWN_CACHE:
        return dict(_OWN_CACHE[key])
    found = {}
    for name, filename in (*OWN_STEPS, OWN_OBSERVE):
        namespace = {"__name__": "__kit_own_steps__"}
        try:
            submission = extract(os.path.join(notebooks_dir, filename))
        except Exception:  # missing or unreadable: the view says so
            continue
        for chunk in submission.chunks:
            try:
                exec(compile(chunk["code"], f"{filename} {chunk['label']}", "exec"), namespace)
            except Exception:  # the learner's cell fails: the rest may still define the step
                continue
        if callable(namespace.get(name)):
            found[name] = namespace[name]
    _OWN_CACHE.clear()
    _OWN_CACHE[key] = found
    return dict(found)


def problems_by_own_steps(raw, tools, steps):
    """``(call, problem_texts)`` from the learner's own steps (``own_steps``), as ``problems_for`` gives them.

    Raises:
        LookupError: a step is missing or raised; the message is one sentence saying which.
    """
    for name, filename in OWN_STEPS:
        if name not in steps:
            raise LookupError(f"No {name} was found in your saved {filename}; write it there (and save) to check "
                              "calls here.")
    try:
        call, problems = steps["parse_call"](raw)
        if call is not None:
            problems = steps["validate_call"](call, tools)
        return call, [str(p) for p in problems]
    except Exception as exc:
        return_text = f"Your own steps from notebooks 1 and 2 check the call here, and one raised {type(exc).__name__}: {exc}"
        raise LookupError(return_text[:300]) from None


def own_check(raw, tools, steps):
    """Steps 1 to 3 from the learner's own notebooks (``own_steps``): ``(call, observation)``.

    Raises:
        LookupError: a step is missing or raised (one sentence).
    """
    call, problems = problems_by_own_steps(raw, tools, steps)
    if "observe" not in steps:
        raise LookupError("No observe was found in your saved 03_observations.ipynb; write it there (and save).")
    try:
        return call, steps["observe"](call, problems, tools)
    except Exception as exc:
        raise LookupError(f"Your observe from notebook 3 raised {type(exc).__name__}: {exc}"[:300]) from None


def write_visible_table(raws, tools, path=VISIBLE_CHECKS_PATH):
    """Record what the trusted steps give for the visible cases' calls (``python -m grader.judging.reference_steps``)."""
    table = {}
    for raw in raws:
        call, problems = problems_for(raw, tools)
        table[raw] = {"call": call, "problems": problems, "observation": check(raw, tools)[1]}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(table, handle, indent=1, sort_keys=True, ensure_ascii=False)
        handle.write("\n")


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    from grader.judging.registries import SEED_TOOLS
    from grader.judging.visible_cases import visible_raws

    write_visible_table(visible_raws(), SEED_TOOLS)

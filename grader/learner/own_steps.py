"""The learner's own steps 1 to 3, read from their saved notebooks, for the views that need earlier steps where
the kit's reference is absent (a student release): the playground (notebook 3) and the retry simulator (4).

This runs learner code, in the learner's own kernel (their code, run where they run it anyway); the grader never
calls it: in grading, the earlier steps come from ``grader.judging.reference_steps``.
"""

import os
from grader.translations import _, say

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

    key = (os.path.abspath(notebooks_dir), tuple(stamp(f) for _name, f in (*OWN_STEPS, OWN_OBSERVE)))
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
            raise LookupError(say("No {name} was found in your saved {file}; write it there (and save) to check calls "
                                  "here.", name=name, file=filename))
    try:
        call, problems = steps["parse_call"](raw)
        if call is not None:
            problems = steps["validate_call"](call, tools)
        return call, [str(p) for p in problems]
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        return_text = say("Your own steps from notebooks 1 and 2 check the call here, and one raised {error}",
                          error=error)
        raise LookupError(return_text[:300]) from None


def own_check(raw, tools, steps):
    """Steps 1 to 3 from the learner's own notebooks (``own_steps``): ``(call, observation)``.

    Raises:
        LookupError: a step is missing or raised (one sentence).
    """
    call, problems = problems_by_own_steps(raw, tools, steps)
    if "observe" not in steps:
        raise LookupError(_("No observe was found in your saved 03_observations.ipynb; write it there (and save)."))
    try:
        return call, steps["observe"](call, problems, tools)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        raise LookupError(say("Your observe from notebook 3 raised {error}", error=error)[:300]) from None

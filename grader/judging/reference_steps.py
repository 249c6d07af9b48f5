"""The earlier steps the grader supplies from its own, trusted side (issue 11).

Each step exercise is judged alone: ``observe`` receives the problems that parsing and validation
found (as data, computed here), and ``run_tool_call`` receives a ``check`` that the grader answers
(a proxied callable, like ``ask_model`` and ``dispatch``). Nothing of this runs in the worker, so a
learner's loop is judged by its own code and no working step is ever handed to the submission as code.

The trusted steps are the kit's reference package (``solutions``), imported in the grader's process
only. Where it is absent (a student release), only the visible cases' calls can be checked: their
answers are data in ``grader/judging/visible_checks.json`` (``python -m course.visible_checks`` writes it). The
learner's own steps, for the notebooks' views in a release, are ``grader.learner.own_steps``.
"""

import json

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


# What the visible table (``grader/judging/visible_checks.json``) keys a provider's tool call by: the prefix, then the
# call as sorted JSON. A raw call is a model's text; this prefix is no text a visible raw call starts with.
TOOL_CALL_KEY = "tool call as sent: "


def tool_call_key(tool_call):
    """The visible table's key for a provider's tool call (str): ``TOOL_CALL_KEY`` and the call as sorted JSON."""
    return TOOL_CALL_KEY + json.dumps(tool_call, sort_keys=True, ensure_ascii=False, default=str)


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


def raw_of_tool_call(tool_call):
    """The kit's raw call for a provider's tool call (str), by the reference's adapters (notebook 6b).

    Args:
        tool_call: an OpenAI ``tool_calls`` entry (it has ``function``) or an Anthropic ``tool_use`` block (any value).
    Returns:
        the raw call (str), or None when ``tool_call`` is no tool call at all (the adapters raise TypeError).
    Raises:
        LookupError: the reference is not installed.
    """
    try:
        from solutions.adapters import raw_call_from_anthropic, raw_call_from_openai
    except ImportError:
        raise LookupError(UNCHECKED) from None
    adapter = raw_call_from_anthropic if isinstance(tool_call, dict) and tool_call.get("type") == "tool_use" \
        else raw_call_from_openai
    try:
        return adapter(tool_call)
    except TypeError:
        return None


NO_TOOL_CALL = "Tool call rejected, nothing ran: this is no tool call (it has no name and no arguments)."


def check_tool_call(tool_call, tools):
    """Steps 1 to 3 for one tool call as its provider sent it: the trusted ``check`` handed to notebook 7's
    ``answer_turn`` (the adapters of notebook 6b, then ``check``).

    Args:
        tool_call: an OpenAI ``tool_calls`` entry or an Anthropic ``tool_use`` block (any value).
        tools: the registry (Python classes).
    Returns:
        ``[call, observation]`` as ``check`` gives them; ``[None, NO_TOOL_CALL]`` for a value no adapter reads.
    """
    if not available():
        entry = _visible_table().get(tool_call_key(tool_call))
        if entry is None:
            return [None, UNCHECKED]
        return [entry["call"], entry["observation"]]
    raw = raw_of_tool_call(tool_call)
    if raw is None:
        return [None, NO_TOOL_CALL]
    return check(raw, tools)

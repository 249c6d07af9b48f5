"""Siblings: beside a hidden call, the same call where the registry gives it the opposite verdict.

A hidden capstone case that expects its call refused also hands the submission the *same* call (as drawn, byte for
byte) with a registry that makes it valid, and expects that one dispatched at once; a case that expects its call
dispatched also hands over the same call with a registry that forbids it, and expects a rejection. Only the registry
tells the two apart, so a submission whose verdict comes from the call's look, not from checking it against the
registry it meets, loses the case (issue 24's fifth attacker trial: a classifier of coarse shapes, every word "w"
and every number "0", recorded from one grading of the reference, refused every shape it had not seen dispatched and
scored 82 hidden capstone points against its empty table's 0).

The registry changes as little as it can: a tool keeps its place and its fields, a field keeps its place. Only calls
the contract reads without doubt get a sibling (a ``json.dumps``-like object of a string name and an arguments object,
no null, no number a double cannot hold, no repeated key, short, shallow), and every sibling is confirmed by the kit's reference
steps (``grader.judging.reference_steps.problems_for``) before it is used; where the reference is not installed there
are no siblings.
"""

import difflib
import json
import math

from grader.judging.draw import SAMPLE_TYPES, _fits

LONGEST = 10_000  # characters: a longer call (a 1 MB name or value) is its own case; it gets no sibling
DEEPEST = 20  # levels of lists and objects in an argument's value

_KIND = {bool: bool, int: int, float: float, str: str, list: list, dict: dict}


def _no_repeats(pairs):
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a repeated key")
    return dict(pairs)


def _plain(value, depth=0):
    """Whether ``value`` (parsed JSON) holds no null, no number a double cannot hold and nothing nested deeper than
    ``DEEPEST`` levels (a deep value is its own case: how deep a runtime reads is not what a sibling asks)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) < 2 ** 53
    if isinstance(value, (list, dict)) and depth >= DEEPEST:
        return False
    if isinstance(value, list):
        return all(_plain(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return all(_plain(item, depth + 1) for item in value.values())
    return value is not None


def parsed(raw):
    """``(name, arguments)`` of a raw call a sibling can be made of, or None.

    Args:
        raw: the raw call as the case hands it over (any value).
    Returns:
        ``(str, dict)``: the tool's name and the arguments (``{}`` for a call without them or with null), or None for
        anything else (not a str, longer than ``LONGEST``, no JSON object, a key other than name and arguments, a
        repeated key, NaN or Infinity, a null value, an integer past 2**53, a value nested deeper than ``DEEPEST``,
        arguments of another type).
    """
    if not isinstance(raw, str) or len(raw) > LONGEST:
        return None
    try:
        call = json.loads(raw, object_pairs_hook=_no_repeats,
                          parse_constant=lambda constant: (_ for _ in ()).throw(ValueError(constant)))
    except (ValueError, RecursionError):
        return None
    if not isinstance(call, dict) or not set(call) <= {"name", "arguments"} or not isinstance(call.get("name"), str):
        return None
    arguments = call.get("arguments")
    arguments = {} if arguments is None else arguments
    if not isinstance(arguments, dict) or not all(_plain(value) for value in arguments.values()):
        return None
    return call["name"], arguments


def _confirmed(raw, registry, valid):
    """``registry`` when the reference steps give ``raw`` no problem (``valid``) or some (not ``valid``); else None."""
    from grader.judging.reference_steps import problems_for

    try:
        _, problems = problems_for(raw, registry)
    except LookupError:
        return None
    return registry if (not problems) == valid else None


def allowing(raw, tools):
    """A registry like ``tools`` in which ``raw`` is a valid call, or None.

    Args:
        raw: a raw call (str). tools: ``{name: {"required": {field: class}, "optional": {...}}}``.
    Returns:
        a new registry (the given one unchanged): an unregistered name takes the place of the registered tool nearest
        it (``difflib``), so there are as many tools; a required field the call leaves out becomes optional; a field
        sent with a value its declared type refuses is declared of the value's type; an undeclared field sent is
        declared optional, after the others. None when ``raw`` is no call ``parsed`` reads, the registry is empty or
        the reference steps still find a problem.
    """
    call = parsed(raw)
    if call is None or not tools:
        return None
    name, arguments = call
    registry = dict(tools)
    if name not in registry:
        nearest = (difflib.get_close_matches(name, list(registry), n=1, cutoff=0) or list(registry))[0]
        registry = {name if key == nearest else key: spec for key, spec in registry.items()}
    spec = registry[name]
    required = {field: kind for field, kind in spec.get("required", {}).items() if field in arguments}
    optional = {field: kind for field, kind in [*spec.get("required", {}).items(), *spec.get("optional", {}).items()]
                if field not in required}
    for field, value in arguments.items():
        part = required if field in required else optional
        if field not in part or not _fits(value, part[field]):
            part[field] = _KIND[type(value)]
    registry[name] = {**spec, "required": required, "optional": optional}
    return _confirmed(raw, registry, valid=True)


def forbidding(raw, tools, random, fresh_name):
    """A registry like ``tools`` in which ``raw``, a valid call, misses a required field, or None.

    Args:
        raw: a raw call (str). tools: a registry (as in ``allowing``). random: a ``random.Random`` (the draw's).
        fresh_name: ``callable(taken) -> str``, a field name that is none of ``taken`` (a set of str) and reads the same
            after the draw's renaming (``grader.judging.draw.Draw.fresh_name``).
    Returns:
        a new registry where an optional field of the tool that the call leaves out is made required (drawn among
        them), or where there is none, a new required field of a drawn type is declared after the tool's own. Always
        the missing required field, the original card's first rule, never a changed type: a sibling that asked for
        a type check docked a runtime without one in the valid-call cases too (the card's sample solution lost 3
        points there). None when ``raw`` is no call ``parsed`` reads, its tool is not in ``tools`` or the reference
        steps find no problem.
    """
    call = parsed(raw)
    if call is None or call[0] not in tools:
        return None
    name, arguments = call
    spec = tools[name]
    required, optional = dict(spec.get("required", {})), dict(spec.get("optional", {}))
    unsent = [field for field in optional if field not in arguments]
    if unsent:
        field = random.choice(unsent)
        required[field] = optional.pop(field)
    else:
        required[fresh_name({*required, *optional, *arguments})] = random.choice(SAMPLE_TYPES)
    return _confirmed(raw, {**tools, name: {**spec, "required": required, "optional": optional}}, valid=False)

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
no null, no number a double cannot hold, no repeated key, short, shallow), and every sibling is confirmed by the kit's
reference steps (``grader.judging.reference_steps.problems_for``) before it is used; where the reference is not
installed there are no siblings.

Changes that leave the verdict as it is blur each sibling's registry (``_blurred``): a submission that kept the last
call compared the two registries and took the looser one for the valid one (issue 24's sixth attacker trial).
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


def confirmed(raw, registry, valid):
    """``registry`` when the reference steps give ``raw`` (a raw call) no problem (``valid``) or some (not ``valid``);
    else None (and None where the reference is not installed)."""
    from grader.judging.reference_steps import problems_for

    try:
        _, problems = problems_for(raw, registry)
    except LookupError:
        return None
    return registry if (not problems) == valid else None


def allowing(raw, tools, random=None, fresh_name=None, keep=()):
    """A registry like ``tools`` in which ``raw`` is a valid call, or None.

    Args:
        raw: a raw call (str). tools: ``{name: {"required": {field: class}, "optional": {...}}}``.
        random, fresh_name: as for ``forbidding``; when given, the tool also gets changes that leave the verdict as it
            is (``_blurred``). keep: fields those changes may not touch (a collection of str): another call's, which
            must keep its faults and no other on the registry made.
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
    if random is not None:
        registry[name] = _blurred(registry[name], arguments, random, fresh_name, looser=False, keep=keep)
    return confirmed(raw, registry, valid=True)


def short_fix(fixed, tools, random, keep=(), first=None):
    """The model's fix ``fixed`` (a raw call, str) without one of the fields it sends that its tool requires in
    ``tools`` (drawn among them, none of ``keep``, a collection of str: the draw's required fields, which every retry
    carries), as ``json.dumps`` writes it; None when ``fixed`` is no call ``parsed`` reads, its tool is not in
    ``tools``, it sends no such field, or the reference steps find no problem in what is left. ``first``: the arguments
    of the call the fix answers (dict), or None when that call is no call ``parsed`` reads (its fault is its form):
    given, only a field it sends with the fix's very value may be left out, one the call did not get wrong, so that a
    registry declaring that field optional leaves the call its own faults (the twin below).

    For the sibling of a case that expects a malformed call refused and the model's fix dispatched: the same call on the
    same registry, answered by this fix, must end with nothing dispatched. A sibling whose registry forbade the fix
    instead had a registry of its own shape, and a table keyed by the registry's shape met the case and not its sibling
    (issue 24's fifth trial kept 2 to 3 hidden points that way); on the same registry only the retry tells them apart,
    so what tells them apart is checking the retry, as every call. Always a missing required field, the original
    card's first rule. The same call and the same short fix also meet a registry that allows the fix (``allowing``)
    and refuses the call: the fix is then dispatched, so no rule of the two texts alone gets both right (issue 24's
    thirteenth trial refused a retry whose every value the first call already held, as the short fix's often are).
    """
    call = parsed(fixed)
    if call is None or call[0] not in tools:
        return None
    name, arguments = call
    sent = [field for field in arguments if field in tools[name].get("required", {}) and field not in keep and (
        first is None or (field in first and json.dumps(first[field]) == json.dumps(arguments[field])))]
    if not sent:
        return None
    left_out = random.choice(sent)
    short = json.dumps({"name": name, "arguments": {field: value for field, value in arguments.items()
                                                    if field != left_out}})
    return short if confirmed(short, tools, valid=False) is not None else None


def forbidding(raw, tools, random, fresh_name, keep=()):
    """A registry like ``tools`` in which ``raw``, a valid call, misses a required field, or None.

    Args:
        raw: a raw call (str). tools: a registry (as in ``allowing``). random: a ``random.Random`` (the draw's).
        fresh_name: ``callable(taken) -> str``, a field name that is none of ``taken`` (a set of str) and reads the same
            after the draw's renaming (``grader.judging.draw.Draw.fresh_name``).
        keep: fields no change may touch besides the new required one (a collection of str): those of a call the
            model's fix answers, so that call keeps the faults it has and no other.
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
    unsent = [field for field in optional if field not in arguments and field not in keep]
    if unsent:
        field = random.choice(unsent)
        required[field] = optional.pop(field)
    else:
        required[fresh_name({*required, *optional, *arguments, *keep})] = random.choice(SAMPLE_TYPES)
    tool = _blurred({**spec, "required": required, "optional": optional}, arguments, random, fresh_name, looser=True,
                    keep=keep)
    return confirmed(raw, {**tools, name: tool}, valid=False)


def _blurred(spec, arguments, random, fresh_name, looser, keep=()):
    """``spec`` (one tool's) with two or three drawn changes that leave the verdict on ``arguments`` (the call's, a
    dict) as it is: an optional field the call does not send added, dropped or given another type; a field the call
    sends made required, or optional. Three in four of them look ``looser`` (a field added, a sent field made optional)
    or, when not, stricter (a field dropped, a sent field made required), against the sibling's own change: the
    valid sibling is blurred stricter-looking, the refused one looser-looking. No change touches a field of ``keep``.

    Why: a sibling and its case hand over the very same call, so a submission that kept the last call and its registry
    compared the two, took the more permissive registry for the valid one and scored 18 to 22 hidden capstone points
    over the same file without that memory (issue 24's sixth attacker trial). With changes both ways, which registry
    allows more says nothing until the call is read against each: the checks themselves.
    """
    required, optional = dict(spec.get("required", {})), dict(spec.get("optional", {}))
    for _ in range(2 + random.randrange(2)):
        unsent = [field for field in optional if field not in arguments and field not in keep]
        sent = {field: value for field, value in arguments.items() if field not in keep}
        loose = ["add"] + (["free"] if any(field in required for field in sent) else [])
        strict = (["drop", "retype"] if unsent else []) + (["require"] if any(
            field in optional and _fits(value, optional[field]) for field, value in sent.items()) else [])
        favoured, other = (loose, strict) if looser else (strict, loose)
        change = random.choice(favoured if favoured and (random.randrange(4) or not other) else other)
        if change == "add":
            optional[fresh_name({*required, *optional, *arguments, *keep})] = random.choice(SAMPLE_TYPES)
        elif change == "drop":
            optional.pop(random.choice(unsent))
        elif change == "retype":
            field = random.choice(unsent)
            optional[field] = random.choice([kind for kind in SAMPLE_TYPES if kind is not optional[field]])
        elif change == "require":
            field = random.choice([field for field, value in sent.items()
                                   if field in optional and _fits(value, optional[field])])
            required[field] = optional.pop(field)
        else:
            field = random.choice([field for field in sent if field in required])
            optional[field] = required.pop(field)
    return {**spec, "required": required, "optional": optional}

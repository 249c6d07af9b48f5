"""Rule markers: which rule of the course a hidden case checks, as a short id shared by the capstone and the steps.

A hidden case carries ``@pytest.mark.rule_id("name.exact")`` (one id or several) next to its learner-facing
``@pytest.mark.rule("...")`` sentence. The sentence is worded for the exercise; the id is the same wherever the
rule is checked, so ``course.check`` can prove mechanically that every rule the capstone grades is graded
as strictly in the step exercise whose notebook teaches it (issue 15). An id is ``area.rule``: the area
(``parse``, ``name``, ``schema``, ``observe``, ``retry``, ``dispatch``, ...) says which step teaches the rule
(``course.check.TAUGHT_IN``).

For a parametrized case whose parameters check different rules, ``params`` puts the marker on each
parameter instead.
"""

import pytest

MARKER = "rule_id"


def rule_id(*ids):
    """The marker for a case (or a parameter) that checks the rules ``ids`` (str, ``area.rule``)."""
    return getattr(pytest.mark, MARKER)(*ids)


def params(table, rule_of, unpack=True):
    """Parameters for ``pytest.mark.parametrize``, each with its own rule marker.

    Args:
        table: ``{param_id: values}``, in order; ``values`` is a tuple of the arguments when ``unpack``,
            else the one argument.
        rule_of: ``{param_id: id or tuple of ids}``; every param id must have an entry.
        unpack: False when the case takes one argument (so a tuple value stays one value).
    Returns:
        list of ``pytest.param`` with ``id`` set to the param id.
    Raises:
        KeyError: a parameter has no rule (a bug in the case file, caught when the cases are collected).
    """
    result = []
    for key, values in table.items():
        ids = rule_of[key]
        ids = (ids,) if isinstance(ids, str) else tuple(ids)
        args = values if unpack else (values,)
        result.append(pytest.param(*args, id=key, marks=rule_id(*ids)))
    return result

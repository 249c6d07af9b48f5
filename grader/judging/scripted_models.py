"""Scripted models: stand-ins for the LLM that ``ask_model`` reaches, with known behaviour.

Each one is called with the observation text the submission produced and returns the next raw
call (or raises, like a failing model client). They run on the trusted side of the grader and,
in the notebooks' self-checks, in the learner's kernel. Each records what it was asked.
"""

import copy
import json

from grader.judging.expectations import LOOP_FINAL, names_more


class ScriptedModel:
    """Base class: records every observation in ``self.observations`` (list of whatever was passed)."""

    description = "a scripted model"

    def __init__(self):
        self.observations = []

    def __call__(self, observation):
        self.observations.append(observation)
        return self.reply(observation)

    def reply(self, observation):  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def fresh(self):
        """A copy of this model that has been asked nothing (its own empty ``observations``), answering as this one
        does: the same kind, reply, error or fixes.

        For the runs a hidden case hands over beside its own call (``grader.judging.harness``: its siblings and its
        unchanged copy): with a model of another kind there, a submission that asked the model before dispatching a
        call it had not checked learnt from the answer which run was the case (issue 24's thirteenth attacker trial:
        only cases expecting a refusal had a model that fails or answers with another call). Shallow: no model
        changes what it was given (``FixesWhatIsNamed.REMOVE`` must stay the very object)."""
        fresh = copy.copy(self)
        fresh.observations = []
        return fresh


class NeverCorrects(ScriptedModel):
    """Sends the same broken call again, whatever it is told (the seed's 'model that never learns').

    Args:
        raw: the call it repeats (str).
    """

    description = "a model that never corrects itself"

    def __init__(self, raw):
        super().__init__()
        self.raw = raw

    def reply(self, observation):
        return self.raw


class Answers(ScriptedModel):
    """Answers every retry with one fixed reply: a valid call, garbage text, or even ``None``.

    Args:
        reply: what to return (usually str).
        description: how the report names this model (str).
    """

    def __init__(self, reply, description="a model that answers with a fixed reply"):
        super().__init__()
        self.fixed = reply
        self.description = description

    def reply(self, observation):
        return self.fixed


class Fails(ScriptedModel):
    """A model client whose call raises, e.g. a network timeout.

    Args:
        error: the exception class name to raise: ``"ConnectionError"``, ``"TimeoutError"`` or ``"RuntimeError"``.
        message: the exception's message (str).
    """

    description = "a model whose API call fails"

    def __init__(self, error="ConnectionError", message="the model API did not answer"):
        super().__init__()
        self.error = error
        self.message = message

    def reply(self, observation):
        raise {"ConnectionError": ConnectionError, "TimeoutError": TimeoutError}.get(self.error, RuntimeError)(self.message)


class FixesWhatIsNamed(ScriptedModel):
    """Changes exactly the fields the observation calls wrong, nothing more (a careful real model).

    Args:
        name: the tool name it sends (str).
        arguments: the broken arguments it starts from (dict).
        fixes: list of ``(keyword, field, value)``: if the observation calls ``keyword`` wrong,
            ``arguments[field] = value``, or the field is removed when ``value`` is ``REMOVE``. A
            fix may also *break* a correct field (a decoy): an observation that wrongly calls it
            wrong then costs the retry.
        baseline: the observation for a twin call whose problems lie in other fields (str), or None.
            With it, the observation calls a field wrong when it names the field more often than the
            baseline does (``grader.judging.expectations.names_more``; for a field the call lacks, as often is
            enough), so naming every field, as a dump of the registry does, fixes nothing. Without
            it, any mention of ``keyword`` counts.

    An observation that names only the first of two problems gets a call that still has the
    second, so a submission that reports violations one at a time wastes its single retry.
    """

    description = "a model that fixes exactly what the observation names"
    REMOVE = object()

    def __init__(self, name, arguments, fixes, baseline=None):
        super().__init__()
        self.name = name
        self.arguments = dict(arguments)
        self.fixes = list(fixes)
        self.baseline = baseline

    def calls_wrong(self, text, keyword, field):
        """Whether ``text`` calls ``keyword`` (for ``field``) wrong (bool); see the class docstring."""
        if self.baseline is None:
            return keyword in text
        return names_more(text, self.baseline, keyword, absent=field not in self.arguments)

    def reply(self, observation):
        text = observation if isinstance(observation, str) else ""
        arguments = dict(self.arguments)
        for keyword, field, value in self.fixes:
            if self.calls_wrong(text, keyword, field):
                if value is self.REMOVE:
                    arguments.pop(field, None)
                else:
                    arguments[field] = value
        return json.dumps({"name": self.name, "arguments": arguments})


def make_call(name, arguments=None, **extra):
    """Encode a call the way a model emits it: ``{"name": ..., "arguments": {...}}`` as JSON text.

    Args:
        name: the tool name (any JSON value, so cases can send wrong ones).
        arguments: the arguments value (any JSON value, None for null); the key is left out when ``...``.
        extra: more top-level keys (rarely needed).
    Returns:
        str.
    """
    call = {"name": name}
    if arguments is not ...:
        call["arguments"] = arguments
    call.update(extra)
    return json.dumps(call)


# Notebook 8's model: given the whole conversation, it replies with an assistant message; past its script it answers
# ``LOOP_FINAL`` (grader.judging.expectations, whose judge replays the script). The exceptions a script may raise, by
# name: a model client's transient failures and one that is not.
LOOP_ERRORS = {"TimeoutError": TimeoutError, "ConnectionError": ConnectionError, "RuntimeError": RuntimeError}


class LoopScript:
    """Notebook 8's scripted model: ``model(messages) -> reply``, the next step of a script on each request.

    Args:
        steps: list; each an assistant reply (``{"role": "assistant", "content", "calls": [{"id", "raw"}]}``) or
            ``{"raise": "TimeoutError" | "ConnectionError" | "RuntimeError", "message": str}``. Past the last step it
            answers ``LOOP_FINAL``.
    Attributes:
        requests: the conversations it was handed, in order (list of lists, copies).
    Raises (when called):
        the step's exception, for a ``raise`` step.
    """

    description = "a scripted model for the agent loop"

    def __init__(self, steps):
        self.steps = list(steps)
        self.requests = []

    def __call__(self, messages):
        index = len(self.requests)
        self.requests.append(copy.deepcopy(messages))
        step = self.steps[index] if index < len(self.steps) else LOOP_FINAL
        if "raise" in step:
            raise LOOP_ERRORS[step["raise"]](step.get("message", ""))
        return copy.deepcopy(step)

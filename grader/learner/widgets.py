"""Interactive views for the notebooks: a playground, a retry simulator and a progress view.

Each view is an ipywidgets box whose ``text/plain`` representation is a readable rendering of
what it shows, so without a live widget frontend (nbval, a terminal, a static render on GitHub)
the learner still sees the content instead of ``VBox(children=...)``. Nothing here raises into
the notebook: the learner's function failing is shown as text.
"""

import html
import json

import ipywidgets as widgets

from grader.judging.registries import REAL_CALL_TOOLS, fresh
from grader.judging.scripted_models import (
    Answers,
    Fails,
    FixesWhatIsNamed,
    NeverCorrects,
    make_call,
)
from grader.learner.own_steps import own_check, own_steps, problems_by_own_steps
from grader.learner.progress import course_progress, format_progress
from grader.paths import REAL_CALLS_PATH
from grader.paths import notebooks_dir as notebooks_in
from grader.results.grade_result import points_text
from grader.translations import N_, _, current, say

PRE = "white-space: pre-wrap; font-family: monospace; margin: 0"
NO_REFERENCE = N_("(the reference solution is not part of this release)")
WOULD_DISPATCH = N_("None: the call would be dispatched")
# Who speaks in the retry simulator's transcript (kept in English in the events, translated where shown).
MODEL, RUNTIME = N_("model"), N_("runtime")


class TextFallbackBox(widgets.VBox):
    """A VBox whose plain-text representation is ``self.as_text()`` (for frontends without widgets)."""

    def as_text(self):  # pragma: no cover - every view overrides it
        return ""

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = self.as_text()
        return bundle


def _safely(function, *args):
    """``("ok", value)`` or ``("raised", "Type: message")``: the learner's code never breaks a widget."""
    try:
        return "ok", function(*args)
    except Exception as exc:  # shown to the learner as text
        return "raised", f"{type(exc).__name__}: {exc}"


def _reference_observe():
    """The reference ``observe`` when the solutions package is present (not in a student release)."""
    try:
        from solutions import observe
    except ImportError:
        return None
    return observe


def kit_check(raw, tools):
    """The kit's own steps 1 to 3 for notebook 4's simulator: ``(call, observation)`` (``grader.judging.reference_steps.check``;
    in a student release, which has none, the learner's own from their saved notebooks 1 to 3, and when those
    cannot check the call, an observation saying why).

    The learner's loop receives it as its ``check`` argument, as in grading; it is the grader's trusted side,
    not code a submission can use (the grader's worker cannot import the kit)."""
    from grader.judging import reference_steps

    if reference_steps.available():
        call, observation = reference_steps.check(raw, tools)
        return call, observation
    try:  # a student release: the learner's own steps 1 to 3, from their saved notebooks (in the notebook's language)
        return own_check(raw, tools, own_steps(notebooks_in(current())))
    except LookupError as exc:
        return None, str(exc)


def playground_examples():
    """Example raw calls for the playground: a few classics plus the malformed calls adapted from bug reports.

    Returns:
        list of ``(label, raw)``; the adapted calls are labelled ``real: <category>`` (their shapes are
        real, the tool and argument names are rewritten; see docs/sources.md).
    """
    examples = [
        (_("valid call"), make_call("get_weather", {"city": "Paris"})),
        (_("wrong type and an extra field"), make_call("get_weather", {"city": 75001, "country": "FR"})),
        (_("truncated JSON"), '{"name": "get_weather", "arguments": {"city": "Par'),
        (_("unknown tool"), make_call("get_forecast", {"city": "Paris"})),
    ]
    try:
        with open(REAL_CALLS_PATH, encoding="utf-8") as handle:
            examples += [(say("real: {category}", category=_(entry["category"])), entry["raw"])
                         for entry in json.load(handle)]
    except (OSError, ValueError):
        pass  # a release without the data still has the classics
    return examples


class Playground(TextFallbackBox):
    """Type or pick a raw call; see your ``observe`` verdict beside the reference's.

    The kit parses and validates the call (its trusted steps 1 and 2, ``grader.judging.reference_steps.problems_for``; in a
    student release, which has none, your own ``parse_call`` and ``validate_call`` from your saved notebooks
    1 and 2) and hands your ``observe`` the call and the problems, as the grader does.

    Args:
        observe: the learner's ``observe(call, problems, tools) -> str | None``.
        notebooks_dir: where the learner's notebooks are saved (default: the kit's ``notebooks/``).
        tools: the registry both use (default: the seed's get_weather plus the tools the adapted
            malformed calls name: read_file, view_file, web_search, call_tool).
    """

    def __init__(self, observe, tools=None, notebooks_dir=None):
        from grader.judging import reference_steps

        self.observe = observe
        # Without the kit's own steps (a student release), the learner's own from their saved notebooks 1 and 2.
        self.steps = None if reference_steps.available() else own_steps(notebooks_dir or notebooks_in(current()))
        self.tools = fresh(tools or REAL_CALL_TOOLS)
        self.reference = _reference_observe()
        self.examples = playground_examples()
        self.picker = widgets.Dropdown(options=[label for label, _raw in self.examples], description=_("Example:"),
                                       layout=widgets.Layout(width="95%"))
        self.raw = widgets.Textarea(value=self.examples[0][1], description=_("Raw call:"), continuous_update=False,
                                    layout=widgets.Layout(width="95%", height="80px"))
        self.result = widgets.HTML()
        self.picker.observe(self._pick, names="value")
        self.raw.observe(lambda change: self.refresh(), names="value")
        super().__init__([self.picker, self.raw, self.result])
        self.refresh()

    def _pick(self, change):
        self.raw.value = dict(self.examples)[change["new"]]

    def verdicts(self, raw=None):
        """``(yours, reference)`` texts for ``raw`` (default: the current raw call)."""
        from grader.judging import reference_steps

        raw = self.raw.value if raw is None else raw
        try:
            if self.steps is None:
                call, problems = reference_steps.problems_for(raw, fresh(self.tools))
            else:
                call, problems = problems_by_own_steps(raw, fresh(self.tools), self.steps)
        except LookupError as exc:
            return str(exc), _(NO_REFERENCE)
        kind, value = _safely(self.observe, call, list(problems), fresh(self.tools))
        if kind == "raised":
            yours = say("your function raised {error}", error=value)
        else:
            yours = _(WOULD_DISPATCH) if value is None else str(value)
        if self.reference is None:
            reference = _(NO_REFERENCE)
        else:
            value = self.reference(call, problems, fresh(self.tools))
            reference = _(WOULD_DISPATCH) if value is None else value
        return yours, reference

    def refresh(self):
        """Recompute both verdicts and redraw."""
        yours, reference = self.verdicts()
        cell = "<td style='vertical-align: top; text-align: left; width: 50%'><pre style='{}'>{}</pre></td>"
        checked = html.escape(self.raw.value[:120] + ("…" if len(self.raw.value) > 120 else ""))
        heads = [html.escape(_(text)) for text in (N_("Checked:"), N_("Your observe()"), N_("Reference"))]
        self.result.value = (f"<p class='kit-checked'>{heads[0]} <code>{checked}</code></p>"
                             f"<table style='width: 95%'><tr><th style='text-align: left'>{heads[1]}</th>"
                             f"<th style='text-align: left'>{heads[2]}</th></tr><tr>"
                             + cell.format(PRE, html.escape(yours)) + cell.format(PRE, html.escape(reference)) + "</tr></table>")

    def as_text(self):
        """Both verdicts for the current call and three more examples (one of them adapted from a bug report)."""
        shown = [(_("current"), self.raw.value)] + [self.examples[i] for i in (1, 2, 5) if i < len(self.examples)]
        parts = []
        for label, raw in shown:
            yours, reference = self.verdicts(raw)
            parts.append(f"[{label}] " + say("Raw call: {raw}\nYour observe():\n{yours}\nReference:\n{reference}",
                                             raw=raw[:200], yours=yours, reference=reference))
        return "\n\n".join(parts)


def scenarios():
    """The retry simulator's scripted models: ``{label: (first raw call, model factory)}``."""
    wrong = make_call("get_weather", {"city": 75001})
    broken = {"country": "FR", "units": 1}
    fixes = [("city", "city", "Paris"), ("country", "country", FixesWhatIsNamed.REMOVE), ("units", "units", "metric")]
    return {
        _("a model that never corrects itself"): (wrong, lambda: NeverCorrects(wrong)),
        _("a model that fixes exactly what it is told"): (make_call("get_weather", broken),
                                                          lambda: FixesWhatIsNamed("get_weather", broken, fixes)),
        _("a model that answers garbage"): (wrong, lambda: Answers("Sorry, I cannot help with that.")),
        _("a model whose client fails"): (wrong, lambda: Fails("TimeoutError", "the model API timed out")),
        _("a valid call"): (make_call("get_weather", {"city": "Paris"}), lambda: NeverCorrects("")),
    }


def transcript_for(run, raw, model):
    """Run the learner's loop once and record every message: ``[(speaker, text), ...]``.

    Args:
        run: ``callable(raw, ask_model, dispatch) -> result`` (the learner's function, adapted).
        raw: the model's first call (str). model: a scripted model.
    Returns:
        list of ``("model" | "runtime", text)`` in order, ending with the runtime's result.
    """
    events = [(MODEL, raw)]

    def ask_model(observation):
        events.append((RUNTIME, say("observation sent to the model:\n{observation}", observation=observation)))
        try:
            reply = model(observation)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            events.append((MODEL, say("(the model client raised {error})", error=error)))
            raise
        events.append((MODEL, str(reply)))
        return reply

    def dispatch(name, arguments):
        events.append((RUNTIME, f"dispatch({name!r}, {arguments!r})"))
        return {"status": "ok", "tool": name}

    kind, value = _safely(run, raw, ask_model, dispatch)
    events.append((RUNTIME, say("result: {value}", value=value) if kind == "ok"
                   else say("your function raised {error}", error=value)))
    return events


class RetrySimulator(TextFallbackBox):
    """Pick a scripted model and step through the transcript model -> runtime -> model.

    Args:
        run: ``callable(raw, ask_model, dispatch) -> result``, e.g.
            ``lambda raw, ask, dispatch: run_tool_call(raw, ask, TOOLS, dispatch, kit_check)``.
    """

    def __init__(self, run):
        self.run = run
        self.scenarios = scenarios()
        self.picker = widgets.Dropdown(options=list(self.scenarios), description=_("Model:"),
                                       layout=widgets.Layout(width="95%"))
        self.step_button = widgets.Button(description=_("Step"), button_style="primary")
        self.reset_button = widgets.Button(description=_("Start over"))
        self.view = widgets.HTML()
        self.picker.observe(lambda change: self.reset(), names="value")
        self.step_button.on_click(lambda button: self.step())
        self.reset_button.on_click(lambda button: self.reset())
        super().__init__([self.picker, widgets.HBox([self.step_button, self.reset_button]), self.view])
        self.reset()

    def reset(self):
        """Run the learner's function for the chosen scenario and show its first message."""
        raw, factory = self.scenarios[self.picker.value]
        self.events = transcript_for(self.run, raw, factory())
        self.shown = 1
        self._draw()

    def step(self):
        """Reveal the next message of the transcript."""
        self.shown = min(self.shown + 1, len(self.events))
        self._draw()

    def _draw(self):
        rows = "".join(f"<tr><td style='vertical-align: top'><b>{html.escape(_(speaker))}</b></td><td style='text-align: "
                       f"left'><pre style='{PRE}'>{html.escape(text)}</pre></td></tr>"
                       for speaker, text in self.events[:self.shown])
        more = "" if self.shown < len(self.events) else f"<p><i>{html.escape(_('End of the transcript.'))}</i></p>"
        self.step_button.disabled = self.shown >= len(self.events)
        self.view.value = f"<table>{rows}</table>{more}"

    def as_text(self):
        """The whole transcript for every scripted model (a static view cannot press Step)."""
        parts = []
        for label, (raw, factory) in self.scenarios.items():
            events = transcript_for(self.run, raw, factory())
            parts.append(say("With {model}:", model=label) + "\n"
                         + "\n".join(f"{_(speaker):>7}: {text}" for speaker, text in events))
        return "\n\n".join(parts)


class ProgressView(TextFallbackBox):
    """Which exercises pass, across the notebooks, graded by the grader itself.

    Args:
        notebooks_dir: the folder of learner notebooks (default: the kit's ``notebooks/``).
    """

    def __init__(self, notebooks_dir=None):
        self.notebooks_dir = notebooks_dir
        self.button = widgets.Button(description=_("Refresh"))
        self.table = widgets.HTML()
        self.button.on_click(lambda button: self.refresh())
        super().__init__([self.button, self.table])
        self.refresh()

    def refresh(self):
        """Grade the notebooks again (save yours first) and redraw."""
        self.rows = course_progress(self.notebooks_dir) if self.notebooks_dir else course_progress()
        marks = {"done": "✓", "visible ok": "◐", "failing": "✗", "not started": "○", "missing": "?"}  # plain marks: every font has them
        body = "".join(
            f"<tr><td>{marks[r.state]}</td><td style='text-align: left'>{html.escape(_(r.exercise.title))}</td>"
            f"<td>{html.escape(_(r.state))}</td>"
            f"<td>{points_text(r.score) + '/' + points_text(r.max_score) if r.max_score else '-'}</td>"
            f"<td style='text-align: left'>{html.escape(r.detail)}</td></tr>" for r in self.rows)
        heads = "".join(f"<th>{html.escape(_(text))}</th>" for text in (N_("Exercise"), N_("State"), N_("Score")))
        self.table.value = f"<table><tr><th></th>{heads}<th></th></tr>{body}</table>"

    def as_text(self):
        return format_progress(self.rows)

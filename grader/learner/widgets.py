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
from grader.results.grade_result import points_text

PRE = "white-space: pre-wrap; font-family: monospace; margin: 0"


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
    from grader.learner.progress import NOTEBOOKS_DIR

    if reference_steps.available():
        call, observation = reference_steps.check(raw, tools)
        return call, observation
    try:  # a student release: the learner's own steps 1 to 3, from their saved notebooks
        return own_check(raw, tools, own_steps(NOTEBOOKS_DIR))
    except LookupError as exc:
        return None, str(exc)


def playground_examples():
    """Example raw calls for the playground: a few classics plus the malformed calls adapted from bug reports.

    Returns:
        list of ``(label, raw)``; the adapted calls are labelled ``real: <category>`` (their shapes are
        real, the tool and argument names are rewritten; see docs/sources.md).
    """
    examples = [
        ("valid call", make_call("get_weather", {"city": "Paris"})),
        ("wrong type and an extra field", make_call("get_weather", {"city": 75001, "country": "FR"})),
        ("truncated JSON", '{"name": "get_weather", "arguments": {"city": "Par'),
        ("unknown tool", make_call("get_forecast", {"city": "Paris"})),
    ]
    try:
        with open(REAL_CALLS_PATH, encoding="utf-8") as handle:
            examples += [(f"real: {entry['category']}", entry["raw"]) for entry in json.load(handle)]
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
        from grader.learner.progress import NOTEBOOKS_DIR

        self.observe = observe
        # Without the kit's own steps (a student release), the learner's own from their saved notebooks 1 and 2.
        self.steps = None if reference_steps.available() else own_steps(notebooks_dir or NOTEBOOKS_DIR)
        self.tools = fresh(tools or REAL_CALL_TOOLS)
        self.reference = _reference_observe()
        self.examples = playground_examples()
        self.picker = widgets.Dropdown(options=[label for label, _ in self.examples], description="Example:",
                                       layout=widgets.Layout(width="95%"))
        self.raw = widgets.Textarea(value=self.examples[0][1], description="Raw call:", continuous_update=False,
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
            return str(exc), "(the reference solution is not part of this release)"
        kind, value = _safely(self.observe, call, list(problems), fresh(self.tools))
        if kind == "raised":
            yours = f"your function raised {value}"
        else:
            yours = "None: the call would be dispatched" if value is None else str(value)
        if self.reference is None:
            reference = "(the reference solution is not part of this release)"
        else:
            value = self.reference(call, problems, fresh(self.tools))
            reference = "None: the call would be dispatched" if value is None else value
        return yours, reference

    def refresh(self):
        """Recompute both verdicts and redraw."""
        yours, reference = self.verdicts()
        cell = "<td style='vertical-align: top; text-align: left; width: 50%'><pre style='{}'>{}</pre></td>"
        checked = html.escape(self.raw.value[:120] + ("…" if len(self.raw.value) > 120 else ""))
        self.result.value = (f"<p class='kit-checked'>Checked: <code>{checked}</code></p>"
                             "<table style='width: 95%'><tr><th style='text-align: left'>Your observe()</th>"
                             "<th style='text-align: left'>Reference</th></tr><tr>"
                             + cell.format(PRE, html.escape(yours)) + cell.format(PRE, html.escape(reference)) + "</tr></table>")

    def as_text(self):
        """Both verdicts for the current call and three more examples (one of them adapted from a bug report)."""
        shown = [("current", self.raw.value)] + [self.examples[i] for i in (1, 2, 5) if i < len(self.examples)]
        parts = []
        for label, raw in shown:
            yours, reference = self.verdicts(raw)
            parts.append(f"[{label}] Raw call: {raw[:200]}\nYour observe():\n{yours}\nReference:\n{reference}")
        return "\n\n".join(parts)


def scenarios():
    """The retry simulator's scripted models: ``{label: (first raw call, model factory)}``."""
    wrong = make_call("get_weather", {"city": 75001})
    broken = {"country": "FR", "units": 1}
    fixes = [("city", "city", "Paris"), ("country", "country", FixesWhatIsNamed.REMOVE), ("units", "units", "metric")]
    return {
        "a model that never corrects itself": (wrong, lambda: NeverCorrects(wrong)),
        "a model that fixes exactly what it is told": (make_call("get_weather", broken),
                                                       lambda: FixesWhatIsNamed("get_weather", broken, fixes)),
        "a model that answers garbage": (wrong, lambda: Answers("Sorry, I cannot help with that.")),
        "a model whose client fails": (wrong, lambda: Fails("TimeoutError", "the model API timed out")),
        "a valid call": (make_call("get_weather", {"city": "Paris"}), lambda: NeverCorrects("")),
    }


def transcript_for(run, raw, model):
    """Run the learner's loop once and record every message: ``[(speaker, text), ...]``.

    Args:
        run: ``callable(raw, ask_model, dispatch) -> result`` (the learner's function, adapted).
        raw: the model's first call (str). model: a scripted model.
    Returns:
        list of ``("model" | "runtime", text)`` in order, ending with the runtime's result.
    """
    events = [("model", raw)]

    def ask_model(observation):
        events.append(("runtime", f"observation sent to the model:\n{observation}"))
        try:
            reply = model(observation)
        except Exception as exc:
            events.append(("model", f"(the model client raised {type(exc).__name__}: {exc})"))
            raise
        events.append(("model", str(reply)))
        return reply

    def dispatch(name, arguments):
        events.append(("runtime", f"dispatch({name!r}, {arguments!r})"))
        return {"status": "ok", "tool": name}

    kind, value = _safely(run, raw, ask_model, dispatch)
    events.append(("runtime", f"result: {value}" if kind == "ok" else f"your function raised {value}"))
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
        self.picker = widgets.Dropdown(options=list(self.scenarios), description="Model:", layout=widgets.Layout(width="95%"))
        self.step_button = widgets.Button(description="Step", button_style="primary")
        self.reset_button = widgets.Button(description="Start over")
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
        rows = "".join(f"<tr><td style='vertical-align: top'><b>{speaker}</b></td><td style='text-align: left'>"
                       f"<pre style='{PRE}'>{html.escape(text)}</pre></td></tr>" for speaker, text in self.events[:self.shown])
        more = "" if self.shown < len(self.events) else "<p><i>End of the transcript.</i></p>"
        self.step_button.disabled = self.shown >= len(self.events)
        self.view.value = f"<table>{rows}</table>{more}"

    def as_text(self):
        """The whole transcript for every scripted model (a static view cannot press Step)."""
        parts = []
        for label, (raw, factory) in self.scenarios.items():
            events = transcript_for(self.run, raw, factory())
            parts.append(f"With {label}:\n" + "\n".join(f"{speaker:>7}: {text}" for speaker, text in events))
        return "\n\n".join(parts)


class ProgressView(TextFallbackBox):
    """Which exercises pass, across the notebooks, graded by the grader itself.

    Args:
        notebooks_dir: the folder of learner notebooks (default: the kit's ``notebooks/``).
    """

    def __init__(self, notebooks_dir=None):
        self.notebooks_dir = notebooks_dir
        self.button = widgets.Button(description="Refresh")
        self.table = widgets.HTML()
        self.button.on_click(lambda button: self.refresh())
        super().__init__([self.button, self.table])
        self.refresh()

    def refresh(self):
        """Grade the notebooks again (save yours first) and redraw."""
        self.rows = course_progress(self.notebooks_dir) if self.notebooks_dir else course_progress()
        marks = {"done": "✓", "visible ok": "◐", "failing": "✗", "not started": "○", "missing": "?"}  # plain marks: every font has them
        body = "".join(
            f"<tr><td>{marks[r.state]}</td><td style='text-align: left'>{html.escape(r.exercise.title)}</td>"
            f"<td>{r.state}</td><td>{points_text(r.score) + '/' + points_text(r.max_score) if r.max_score else '-'}</td>"
            f"<td style='text-align: left'>{html.escape(r.detail)}</td></tr>" for r in self.rows)
        self.table.value = f"<table><tr><th></th><th>Exercise</th><th>State</th><th>Score</th><th></th></tr>{body}</table>"

    def as_text(self):
        return format_progress(self.rows)

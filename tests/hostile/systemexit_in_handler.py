"""Raises SystemExit from the handler: one case's worth of damage per call, never the grader's."""


def handle_tool_call(raw, ask_model):
    raise SystemExit(0)

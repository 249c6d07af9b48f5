"""Calls sys.exit while loading: the grader must report it and grade nothing as passed."""
import sys

sys.exit(3)


def handle_tool_call(raw, ask_model):
    return {"status": "rejected", "error": "unreachable"}

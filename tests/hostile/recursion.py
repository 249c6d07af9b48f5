"""Recurses without bound after raising the recursion limit (may overflow the C stack)."""
import sys

sys.setrecursionlimit(10**6)


def handle_tool_call(raw, ask_model):
    return handle_tool_call(raw, ask_model)

"""Sleeps in the handler: wall-clock limits, not CPU limits, must catch it."""
import time


def handle_tool_call(raw, ask_model):
    time.sleep(1000)

"""Loops forever in the handler, ignoring SIGTERM: cases time out, then the rest are skipped."""
import signal

signal.signal(signal.SIGTERM, signal.SIG_IGN)


def handle_tool_call(raw, ask_model):
    while True:
        pass

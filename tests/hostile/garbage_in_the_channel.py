"""Writes garbage into every pipe it can find, hoping to confuse the grader's channel."""
import os


def handle_tool_call(raw, ask_model):
    for fd in range(3, 10):
        try:
            os.write(fd, b"this is not json\n")
        except OSError:
            pass
    return {"status": "rejected", "error": "garbage"}

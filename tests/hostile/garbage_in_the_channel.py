"""Writes garbage into the grader's reply pipe (its file descriptor is in sys.argv)."""
import os
import sys


def handle_tool_call(raw, ask_model):
    os.write(int(sys.argv[2]), b"this is not json\n")
    return {"status": "rejected", "error": "garbage"}

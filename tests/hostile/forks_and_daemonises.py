"""Forks a child that leaves its process group and would outlive the grader (to rewrite results.json)."""
import subprocess

subprocess.Popen(["sleep", "300"], start_new_session=True)


def handle_tool_call(raw, ask_model):
    import os
    if os.fork() == 0:
        os.setsid()
        import time
        time.sleep(300)
    return {"status": "rejected", "error": "forked"}

"""Starts a detached process through _posixsubprocess.fork_exec, which raises no audit event of its own.

Importing _posixsubprocess is allowed (subprocess, asyncio and unittest.mock import it); calling fork_exec
must be refused, and the kernel refuses to create the process anyway where seccomp is available."""
import os
import sys

try:
    import _posixsubprocess

    print("imported _posixsubprocess")
    _posixsubprocess.fork_exec([sys.executable, "-c", "import time; time.sleep(300)"], [os.fsencode(sys.executable)],
                               True, (), None, None, -1, -1, -1, -1, -1, -1, *os.pipe(), False, True, -1, None, None,
                               None, -1, None, False)
    print("spawned a process")
except Exception as exc:
    print("could not spawn", type(exc).__name__, exc)


def handle_tool_call(raw, ask_model):
    return None

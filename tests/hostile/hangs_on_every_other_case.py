"""Evades "two timeouts in a row": every other call hangs (a counter kept in the scratch folder survives the
worker's restart), and loading is slow each time the worker is restarted (from an adversarial test)."""
import os
import time

time.sleep(0.5)
COUNTER = os.path.abspath("counter")


def handle_tool_call(raw, ask_model):
    try:
        with open(COUNTER) as handle:
            count = int(handle.read() or 0)
    except OSError:
        count = 0
    with open(COUNTER, "w") as handle:
        handle.write(str(count + 1))
    if count % 2:
        while True:
            pass
    return {"status": "rejected", "error": "no"}

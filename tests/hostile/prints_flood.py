"""Prints 100 MB per call: output must be capped and the case must still end."""


def handle_tool_call(raw, ask_model):
    for _ in range(100):
        print("x" * 1_000_000)
    return {"status": "rejected", "error": "flooded"}

"""Allocates 8 GB: the memory limit must stop it with a sentence, not take the machine down."""


def handle_tool_call(raw, ask_model):
    hog = bytearray(8 * 1024 ** 3)
    return {"status": "rejected", "error": str(len(hog))}

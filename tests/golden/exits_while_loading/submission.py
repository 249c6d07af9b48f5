import sys

sys.exit("I am done here")


def handle_tool_call(raw, ask_model):
    return {"status": "rejected", "error": "never reached"}

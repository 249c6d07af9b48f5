"""Starts a detached process through _posixsubprocess, which raises no audit event of its own."""
try:
    import _posixsubprocess  # noqa: F401
    print("imported _posixsubprocess")
except Exception as exc:
    print("could not import _posixsubprocess", type(exc).__name__)


def handle_tool_call(raw, ask_model):
    return None

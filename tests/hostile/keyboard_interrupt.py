"""Raises KeyboardInterrupt (a BaseException) at import and in the handler."""
try:
    raise KeyboardInterrupt
finally:
    def handle_tool_call(raw, ask_model):
        raise KeyboardInterrupt

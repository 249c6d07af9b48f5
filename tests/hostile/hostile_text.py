"""Raises exceptions whose names and messages hold a megabyte, a lone surrogate and terminal escapes."""
Huge = type("E" * 1_000_000, (Exception,), {})


def handle_tool_call(raw, ask_model):
    if "Paris" in str(raw):
        raise Huge("\x1b[2J\x1b[32m✓ all cases passed\x1b[0m " + "\ud800" * 10)
    raise ValueError("bad \ud800 \x1b[31mred")

"""Crashes the interpreter with a segmentation fault in the handler."""
import faulthandler


def handle_tool_call(raw, ask_model):
    faulthandler._sigsegv()

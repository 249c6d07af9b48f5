"""Retries forever and swallows even the grader's halt (a BaseException): the worker is killed."""


def handle_tool_call(raw, ask_model):
    while True:
        try:
            raw = ask_model("try again")
        except BaseException:
            pass

# EXPECTED: 0/44 on parse-call (the check proxy is answered only in retry-loop); observed 44/44 before the fix
# parse_call that does no parsing: it borrows the grader's trusted check (a proxy meant only for
# run_tool_call) from the worker's run_case frame.
import sys


def _grader_check():
    frame = sys._getframe(1)
    while frame is not None:
        proxies = frame.f_locals.get("proxies")
        if isinstance(proxies, dict) and "check" in proxies:
            return proxies["check"]
        frame = frame.f_back
    raise RuntimeError("no proxy")


def parse_call(raw):
    call, observation = _grader_check()(raw)
    if call is not None:
        return call, []
    lines = [l.split(". ", 1)[1] if l[:1].isdigit() else l for l in observation.splitlines()[1:] if l.strip()]
    return None, [lines[0] if lines else observation]

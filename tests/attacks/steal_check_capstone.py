# EXPECTED: 0/129 (the check proxy is answered only in retry-loop); observed 129/129 before the fix
# Capstone with no parsing, validation or observation of its own: it borrows the grader's trusted
# check (meant only for the retry-loop exercise) from the worker's run_case frame.
import sys


def _grader_check():
    frame = sys._getframe(1)
    while frame is not None:
        proxies = frame.f_locals.get("proxies")
        if isinstance(proxies, dict) and "check" in proxies:
            return proxies["check"]
        frame = frame.f_back


def handle_tool_call(raw, ask_model):
    check = _grader_check()
    attempt = raw
    for turn in range(2):
        call, observation = check(attempt)
        if observation is None:
            return dispatch(call["name"], call["arguments"])
        if turn == 1:
            break
        try:
            attempt = ask_model(observation)
        except Exception as exc:
            return {"status": "rejected", "error": f"The retry failed: asking the model again raised {type(exc).__name__}. " + observation}
    return {"status": "rejected", "error": observation}

# EXPECTED: 0 hidden points, and the report says it did not stop where the case's rules stop it (not that a retry is unbounded).
def run_agent(task, model, check, dispatch, sleep, limits):
    messages = [{"role": "user", "content": task}]
    while True:  # asks on whatever the model says: no stop at all
        try:
            messages.append(model(messages))
        except Exception:
            pass

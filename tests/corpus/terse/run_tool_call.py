def _reject(text, limit=2000):
    return {"status": "rejected", "error": text if len(text) <= limit else text[:limit - 3] + "..."}


def _run(call, dispatch):
    try:
        return dispatch(call["name"], call["arguments"])
    except Exception as e:
        return _reject(f"tool {call['name']!r} raised {type(e).__name__}; call was valid")


def run_tool_call(raw, ask_model, tools, dispatch, check):
    call, obs = check(raw, tools)
    if obs is None:
        return _run(call, dispatch)
    try:
        raw2 = ask_model(obs)
    except Exception as e:
        return _reject(f"retry failed: model request raised {type(e).__name__}; first attempt was invalid")
    call2, obs2 = check(raw2, tools)
    return _run(call2, dispatch) if obs2 is None else _reject(f"retry still invalid, giving up.\n{obs2}")

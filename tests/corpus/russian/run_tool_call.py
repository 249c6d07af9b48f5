_LIMIT = 2000


def _looks_like_traceback(text):
    return "Traceback (most recent call last)" in text or ('File "' in text and ", line " in text)


def _short_reason(exc):
    """Причина сбоя одной короткой строкой, без трассировки."""
    kind = type(exc).__name__[:60]
    try:
        message = str(exc)
    except Exception:
        message = ""
    if not message:
        return kind
    if _looks_like_traceback(message):
        first = message.strip().splitlines()[0] if message.strip() else ""
        if first and not _looks_like_traceback(first) and not first.startswith("Traceback"):
            first = first[:150]
            return kind + ": " + first + " (дальше шла трассировка стека, она опущена)"
        return kind + " (сообщение похоже на трассировку стека, поэтому опущено)"
    message = " ".join(message.split())
    if len(message) > 150:
        message = message[:150] + "…"
    return kind + ": " + message


def _reject(text):
    text = str(text)
    if len(text) > _LIMIT:
        text = text[:_LIMIT - 1] + "…"
    return {"status": "rejected", "error": text}


def _check(check, raw, tools):
    """Вызвать check; если она сама упала, считать вызов непрошедшим проверку."""
    try:
        return check(raw, tools)
    except Exception as exc:
        return None, ("Вызов не выполнен: проверить его не удалось (" + _short_reason(exc)
                      + "). Пришлите вызов заново в виде {\"name\": ..., \"arguments\": {...}}.")


def _dispatch(dispatch, call):
    try:
        return dispatch(call["name"], call["arguments"])
    except Exception as exc:
        return _reject("Вызов прошёл проверку, но инструмент завершился с ошибкой (" + _short_reason(exc) + ").")


def run_tool_call(raw, ask_model, tools, dispatch, check):
    """Выполнить корректный вызов; некорректному дать ровно один повтор; иначе вернуть отказ."""
    call, observation = _check(check, raw, tools)
    if observation is None:
        return _dispatch(dispatch, call)

    # Один повтор: модель получает наблюдение и присылает новый вызов.
    try:
        retry_raw = ask_model(observation)
    except Exception as exc:
        return _reject("Вызов отклонён: повторная попытка не удалась — модель не ответила на замечания ("
                       + _short_reason(exc) + "). Ничего не выполнено. Что не так в последней попытке: " + str(observation))

    call, observation = _check(check, retry_raw, tools)
    if observation is None:
        return _dispatch(dispatch, call)

    return _reject("Вызов отклонён: и повторная попытка не прошла проверку, ничего не выполнено. "
                   "Что не так в последней попытке: " + str(observation))

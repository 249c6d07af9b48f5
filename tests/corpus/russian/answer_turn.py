"""Упражнение 7: ответ на все вызовы инструментов одного хода ассистента."""
import json


def _tool_calls(message, provider):
    """Вызовы инструментов хода в порядке, в котором их прислал провайдер."""
    if not isinstance(message, dict):
        return []
    if provider == "openai":
        calls = message.get("tool_calls")
        if not isinstance(calls, list):
            return []
        return [c for c in calls if isinstance(c, dict)]
    if provider == "anthropic":
        content = message.get("content")
        if not isinstance(content, list):
            return []
        return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
    return []


def _as_text(result):
    if isinstance(result, str):
        return result
    return json.dumps(result, ensure_ascii=False)


def _answer_one(call, check, dispatch, done):
    call_id = call.get("id")
    if call_id in done:
        # Повтор хода: вызов уже выполнялся, отдаём сохранённый ответ и ничего не запускаем.
        return done[call_id]
    try:
        checked, observation = check(call)
    except Exception as exc:
        return {"content": f"Не удалось проверить вызов, поэтому он не выполнялся "
                           f"({type(exc).__name__}: {exc}). Пришлите его ещё раз.",
                "is_error": True}
    if observation is not None:
        return {"content": observation, "is_error": True}
    name = checked["name"]
    try:
        result = dispatch(name, checked["arguments"])
    except Exception as exc:
        answer = {"content": f"Инструмент «{name}» завершился с ошибкой: исключение "
                             f"{type(exc).__name__}: {exc}",
                  "is_error": True}
    else:
        try:
            answer = {"content": _as_text(result), "is_error": False}
        except (TypeError, ValueError) as exc:
            answer = {"content": f"Инструмент «{name}» отработал, но его результат не удалось "
                                 f"представить в виде JSON ({type(exc).__name__}: {exc}).",
                      "is_error": True}
    done[call_id] = answer  # вызов передан инструменту: запоминаем ответ, даже если он с ошибкой
    return answer


def answer_turn(message, provider, check, dispatch, done):
    """Отвечает ровно один раз на каждый вызов инструмента в ходе, в формате провайдера; возвращает сообщения для добавления в диалог."""
    calls = _tool_calls(message, provider)
    if not calls:
        return []
    answers = [(call.get("id"), _answer_one(call, check, dispatch, done)) for call in calls]
    if provider == "openai":
        return [{"role": "tool", "tool_call_id": call_id, "content": answer["content"]}
                for call_id, answer in answers]
    return [{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": call_id,
         "content": answer["content"], "is_error": answer["is_error"]}
        for call_id, answer in answers]}]

"""Упражнение 7b: собрать потоковый ход (stream=True) Chat Completions в одно сообщение ассистента.

Только стандартная библиотека.
"""

# Ход завершён, только если последняя причина остановки одна из этих.
ЗАВЕРШЁН = ("stop", "tool_calls")


def _первый_выбор(чанк):
    """Вернуть выбор с index 0 или None (у последнего чанка с usage может не быть choices)."""
    if not isinstance(чанк, dict):
        return None
    for выбор in чанк.get("choices") or []:
        if isinstance(выбор, dict) and выбор.get("index", 0) == 0:
            return выбор
    return None


def assemble_turn(chunks):
    """Собрать сообщение ассистента из чанков потока.

    Возвращает {"role": "assistant", "content": текст или None, "tool_calls": [...]}
    (без ключа tool_calls, если вызовов не было) или None, если поток не завершён
    (finish_reason "length", "content_filter" или его нет вовсе).
    Аргументы склеиваются как есть: никакого разбора JSON и никакого «ремонта».
    """
    куски_текста = []
    вызовы = []          # в порядке их начала
    по_индексу = {}      # index -> вызов, открытый на этом индексе
    последний = None     # последний начатый вызов (для кусков без index)
    причина = None       # последняя встреченная finish_reason

    for чанк in chunks or []:
        выбор = _первый_выбор(чанк)
        if выбор is None:
            continue  # чанк без choices ничего не добавляет
        дельта = выбор.get("delta") or {}

        if isinstance(дельта.get("content"), str):
            куски_текста.append(дельта["content"])

        for кусок in дельта.get("tool_calls") or []:
            индекс = кусок.get("index")
            ид = кусок.get("id")
            функция = кусок.get("function") or {}

            # Без index кусок продолжает последний начатый вызов (Gemini).
            текущий = последний if индекс is None else по_индексу.get(индекс)

            # Новый вызов: его ещё нет, или id отличается от id вызова на этом индексе (Ollama).
            if текущий is None or (ид is not None and ид != текущий["id"]):
                текущий = {
                    "id": ид,
                    "type": кусок.get("type") or "function",
                    "function": {"name": функция.get("name"), "arguments": ""},
                }
                вызовы.append(текущий)
                последний = текущий
                if индекс is not None:
                    по_индексу[индекс] = текущий
            else:
                # id и имя берутся из первого куска; дополняем, только если их ещё нет.
                if текущий["id"] is None:
                    текущий["id"] = ид
                if текущий["function"]["name"] is None:
                    текущий["function"]["name"] = функция.get("name")

            # null-кусок аргументов ничего не добавляет; текст склеивается точно как пришёл.
            if isinstance(функция.get("arguments"), str):
                текущий["function"]["arguments"] += функция["arguments"]

        if выбор.get("finish_reason") is not None:
            причина = выбор["finish_reason"]

    if причина not in ЗАВЕРШЁН:
        return None  # обрезанный или оборванный поток — не ход: спросить ещё раз

    текст = "".join(куски_текста)
    сообщение = {"role": "assistant", "content": текст or None}
    if вызовы:
        сообщение["tool_calls"] = вызовы
    return сообщение
